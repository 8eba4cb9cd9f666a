"""Turn a published provider schema into the file the stand-in serves (run by hand, never by the
tests: they read only what is kept in tests/schema_provider/schemas/).

The published schemas are `terraform providers schema -json` output, one git tag per provider
release, in lonegunmanb/terraform-<provider>-schema: each resource's and data source's schema a JSON
string constant in a Go file under generated/, registered by name in generated/register.go. They
carry no provider block: that comes from a JSON file given with --provider-block (its source named
in schemas/SOURCES.md).

    python -m tests.schema_provider.import_published GIT_DIR TAG OUT.json.gz [--provider-block FILE]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
from pathlib import Path

KINDS = {"resource": "resource_schemas", "data": "data_source_schemas", "ephemeral": "ephemeral_resource_schemas"}


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(git_dir), *args], check=True, capture_output=True, text=True).stdout


def published_schema(git_dir: Path, tag: str) -> dict:
    register = _git(git_dir, "show", f"{tag}:generated/register.go")
    registered = re.findall(
        r'(resources|dataSources|ephemeralResources)\["([\w-]+)"\] = (\w+)\.(\w+)Schema\(\)', register
    )
    constants = {}
    for package in KINDS:
        try:
            listing = _git(git_dir, "ls-tree", "--name-only", f"{tag}:generated/{package}").split()
        except subprocess.CalledProcessError:  # no ephemeral resources in this provider
            continue
        for file in listing:
            if file.endswith(".go") and not file.endswith("_test.go"):
                try:
                    text = _git(git_dir, "show", f"{tag}:generated/{package}/{file}")
                except subprocess.CalledProcessError:  # a snapshot may lack its largest files
                    continue
                name = re.search(r"\bconst (\w+) = ", text)
                if name:
                    constants[(package, name.group(1).lower())] = text
    schema: dict = {"provider": {}}
    missing: list[str] = []
    for _table, type_name, package, constant in registered:
        published = constants.get((package, constant.lower()))
        if published is None:
            missing.append(type_name)
            continue
        schema.setdefault(KINDS[package], {})[type_name] = json.loads(_go_string_constant(published))
    if missing:
        schema["//"] = {"types missing from the copy read (left out)": sorted(missing)}
    return schema


def _go_string_constant(text: str) -> str:
    """The value of the file's `const x = ...`: raw strings joined with `+`, where a backquote in a
    description is written as the interpreted string "`"."""
    start = re.search(r"\bconst \w+ = ", text)
    if start is None:
        raise SystemExit("no string constant")
    parts, position = [], start.end()
    token = re.compile(r'\s*(?:`([^`]*)`|"((?:[^"\\]|\\.)*)")\s*(\+)?')
    while True:
        match = token.match(text, position)
        if match is None:
            raise SystemExit(f"cannot read the Go string at offset {position}")
        raw, interpreted, plus = match.groups()
        parts.append(raw if raw is not None else json.loads(f'"{interpreted}"'))
        position = match.end()
        if not plus:
            return "".join(parts)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("git_dir", type=Path)
    parser.add_argument("tag")
    parser.add_argument("out", type=Path)
    parser.add_argument("--provider-block", type=Path, help="the provider block's schema, as JSON")
    args = parser.parse_args(argv)
    schema = published_schema(args.git_dir, args.tag)
    if args.provider_block:
        schema["provider"] = json.loads(args.provider_block.read_text())
    with gzip.GzipFile(args.out, "wb", mtime=0) as handle:
        handle.write(json.dumps(schema, sort_keys=True, separators=(",", ":")).encode())


if __name__ == "__main__":
    main()
