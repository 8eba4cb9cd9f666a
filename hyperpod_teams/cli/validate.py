"""`hyperpod-teams validate`: every rule of spec v1 at once, as text, JSON or SARIF; warns of lines
`init` left to replace.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from hyperpod_teams.cli.common import (
    EXIT_INVALID_SPEC,
    SPEC_ARGUMENT,
    format_option,
    load_platform_or_exit,
    package_version,
    stderr,
    stdout,
)
from hyperpod_teams.cli.group import cli
from hyperpod_teams.spec import SpecError, load_platform
from hyperpod_teams.spec.clusters import SeveralClusters, organization_of
from hyperpod_teams.spec.loading import pipeline_problems


@cli.command()
@SPEC_ARGUMENT
@format_option(
    "text",
    "json",
    "sarif",
    help_text="json: {valid, problems: [{path, line, message, hint}]} on stdout; sarif: SARIF 2.1.0 for "
    "code-scanning annotations (one result per problem at its line).",
)
@click.option(
    "--require-remote-backend",
    is_flag=True,
    help="For pipelines: a spec whose stacks keep their state on the runner (backend local, the "
    "default) is a problem, since a runner's files are gone after the job.",
)
def validate(spec_path: Path, output_format: str, require_remote_backend: bool) -> None:
    """Check SPEC against every rule of spec v1 and list all problems at once.

    Each problem names the field path (teams[2].compute.quota[0].count), the line in the file and,
    where one helps, a hint. Exits 2 when the spec is invalid, in every format. Imports no CDK
    engine: it takes milliseconds, so run it in editors and pre-commit hooks.
    """
    if output_format != "text":
        from hyperpod_teams.spec.reports import problems_report, project_information_uri

        try:
            spec = load_platform(spec_path)
            problems = pipeline_problems(organization_of(spec), spec_path) if require_remote_backend else []
        except SpecError as error:
            problems = error.problems
        text = problems_report(
            spec_path,
            problems,
            output_format,
            tool_version=package_version(),
            information_uri=project_information_uri(),
        )
        click.echo(text)
        sys.exit(EXIT_INVALID_SPEC if problems else 0)
    spec = load_platform_or_exit(spec_path)
    if require_remote_backend and (problems := pipeline_problems(organization_of(spec), spec_path)):
        stderr.print(SpecError(problems, str(spec_path)).render(), markup=False)
        sys.exit(EXIT_INVALID_SPEC)
    for line in _placeholder_lines(spec_path):
        stderr.print(
            f"warning: {spec_path}, line {line}: still marked REPLACE (a placeholder of `init`'s starter spec): "
            "put your own value there",
            markup=False,
        )
    org = organization_of(spec)
    views = list(spec.views.values()) if isinstance(spec, SeveralClusters) else [spec]
    groups = [group for view in views for group in view.cluster.instance_groups]
    clusters = f" on {len(views)} clusters ({', '.join(spec.views)})" if isinstance(spec, SeveralClusters) else ""
    stdout.print(
        f"[green]✓[/green] {spec_path} is valid: organization {org.organization.name}, "
        f"{len(org.teams)} team{'s' if len(org.teams) != 1 else ''}{clusters}, "
        f"{sum(g.count for g in groups)} nodes in {len(groups)} instance group{'s' if len(groups) != 1 else ''}, "
        f"identity provider {org.identity.provider}"
    )


#: `init`'s starter spec marks each value to replace with a comment `# REPLACE...` (scaffold.py).
_PLACEHOLDER = re.compile(r"#\s*REPLACE\b")


def _placeholder_lines(spec_path: Path) -> list[int]:
    """The lines of the spec (already read and bounded by load_spec) that still carry a placeholder."""
    try:
        text = spec_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [number for number, line in enumerate(text.splitlines(), 1) if _PLACEHOLDER.search(line)]
