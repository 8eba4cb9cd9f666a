"""Machine-readable forms of `validate`'s problems: JSON for scripts, SARIF 2.1.0 for code-scanning
annotations (OASIS SARIF v2.1.0: a run of one tool, a result per problem with its level, message
and physical location). Pure layer."""

from __future__ import annotations

import json
from pathlib import Path

from hyperpod_teams.spec.problems import Problem

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
RULE_ID = "spec-v1"


def problems_report(
    spec_path: Path,
    problems: list[Problem],
    output_format: str,
    *,
    tool_version: str,
    information_uri: str | None = None,
) -> str:
    if output_format == "json":
        return json.dumps(
            {
                "spec": str(spec_path),
                "valid": not problems,
                "problems": [
                    {
                        "path": p.location,
                        "line": p.line,
                        "message": p.message,
                        "hint": p.hint,
                    }
                    for p in problems
                ],
            },
            indent=2,
        )
    if output_format == "sarif":
        return json.dumps(_sarif(spec_path, problems, tool_version, information_uri), indent=2)
    raise ValueError(f"unknown format {output_format!r}")


def _uri(path: Path) -> str:
    """A relative path as a relative reference (code scanning resolves it from the repository's
    root), an absolute one as a file URI (SARIF1004: a relative reference must not begin with /)."""
    from urllib.parse import quote

    return path.as_uri() if path.is_absolute() else quote(path.as_posix())


def project_information_uri(distribution: str = "hyperpod-teams") -> str | None:
    """Where a reader learns about the tool: the package's own Project-URL (Documentation, else
    Source), which the release workflow writes from the repository the tag is in. None for a
    checkout, whose pyproject.toml names no address: not the package index's page, which anyone
    could register (docs/releasing.md)."""
    from importlib import metadata

    try:
        urls = metadata.metadata(distribution).get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    named = dict(entry.split(", ", 1) for entry in urls if ", " in entry)
    return named.get("Documentation") or named.get("Source")


def _sarif(spec_path: Path, problems: list[Problem], tool_version: str, information_uri: str | None) -> dict:
    results = []
    for problem in problems:
        text = f"{problem.location}: {problem.message}"
        if problem.hint:
            text += f" (hint: {problem.hint})"
        location: dict = {"artifactLocation": {"uri": _uri(spec_path)}}
        if problem.line is not None:
            location["region"] = {"startLine": problem.line}
        results.append(
            {
                "ruleId": RULE_ID,
                "level": "error",
                "message": {"text": text},
                "locations": [{"physicalLocation": location}],
            }
        )
    driver: dict = {"name": "hyperpod-teams", "version": tool_version}
    if information_uri:
        driver["informationUri"] = information_uri
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": driver
                    | {
                        "rules": [
                            {
                                "id": RULE_ID,
                                "name": "SpecV1",
                                "shortDescription": {"text": "The team spec follows spec v1"},
                                "fullDescription": {
                                    "text": "Every field of the team spec is checked against spec v1 "
                                    "(docs/spec-reference.md): types, ranges, names AWS accepts, quotas "
                                    "within capacity."
                                },
                                "defaultConfiguration": {"level": "error"},
                            }
                        ],
                    }
                },
                "results": results,
            }
        ],
    }
