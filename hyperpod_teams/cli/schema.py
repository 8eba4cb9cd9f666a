"""`hyperpod-teams schema`: the JSON Schema of spec v1."""

from __future__ import annotations

from pathlib import Path

from hyperpod_teams.cli.common import check_out_file, file_out_option, spec_json_schema, write_output
from hyperpod_teams.cli.group import cli


@cli.command()
@file_out_option
def schema(out_file: Path | None, force: bool) -> None:
    """Print the JSON Schema of spec v1, for editor completion and validation.

    Put `# yaml-language-server: $schema=<path or URL of this schema>` on the first line of a
    spec file and editors with the YAML language server complete and check it.
    """
    check_out_file(out_file, force)
    write_output(spec_json_schema(), out_file)
