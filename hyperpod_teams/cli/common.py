"""What every command shares: exit codes, the consoles, the spec argument and the output options,
reading the spec, bounded reading of an input file, and writing a file without replacing one the
user did not ask to replace.

Imports no CDK engine.
"""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import click
from rich.console import Console

from hyperpod_teams.engine import ENGINES
from hyperpod_teams.input_files import NotAFile, TooLarge, read_at_most, regular_file_size
from hyperpod_teams.spec import PlatformSpec, SpecError, load_platform
from hyperpod_teams.spec.clusters import SeveralClusters

EXIT_INVALID_SPEC = 2


EXIT_INTERNAL_ERROR = 1


DEBUG_ENV = "HYPERPOD_TEAMS_DEBUG"


# Off a terminal (CI logs, pipes) rich would wrap at 80 columns; log lines read better whole.
stdout = Console(highlight=False, soft_wrap=True)


stderr = Console(stderr=True, highlight=False, soft_wrap=True)


for _console in (stdout, stderr):
    if not _console.is_terminal:
        _console.width = 200


SPEC_ARGUMENT = click.argument("spec_path", metavar="SPEC", type=click.Path(dir_okay=False, path_type=Path))


def out_option(help_text: str):
    """`--out`, the synth output folder (cdktf's $CDKTF_OUTDIR when set), as `synth` and `stacks` take it."""
    return click.option(
        "--out",
        "out_dir",
        envvar="CDKTF_OUTDIR",
        default="cdktf.out",
        show_default=True,
        type=click.Path(file_okay=False, path_type=Path),
        help=help_text,
    )


def format_option(*formats: str, help_text: str):
    """`--format`, one of `formats` (the first the default), as the command's `output_format`."""
    return click.option(
        "--format",
        "output_format",
        type=click.Choice(list(formats)),
        default=formats[0],
        show_default=True,
        help=help_text,
    )


def file_out_option(function):
    """`--out FILE` and `--force`: a command never replaces a file that is there already unless told to."""
    function = click.option(
        "--force",
        is_flag=True,
        help="Replace the --out file (and a CSV's FILE.json) when it exists; without it the command refuses.",
    )(function)
    return click.option(
        "--out", "out_file", type=click.Path(dir_okay=False, path_type=Path), help="Write to FILE instead of stdout."
    )(function)


def engine_option(function):
    """`--engine`, the CDK engine that builds the stacks (hyperpod_teams.engine), as `synth` and
    `stacks` take it."""
    return click.option(
        "--engine",
        "engine_name",
        envvar="HYPERPOD_TEAMS_ENGINE",
        type=click.Choice(list(ENGINES)),
        default=None,
        help="The CDK engine: cdktn (CDK Terrain, the default) or cdktf (CDKTF 0.21, for apps on it; "
        "its extra: pip install './hyperpod-teams[cdktf]'). Defaults to $HYPERPOD_TEAMS_ENGINE, else cdktn when "
        "installed.",
    )(function)


def package_version() -> str:
    from hyperpod_teams import __version__

    return __version__


def installed_version(package: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def file_size_or_exit(path: Path, what: str) -> int:
    try:
        return regular_file_size(path)
    except NotAFile as refused:
        user_error(f"{path} is {refused}: give the {what} as a file")
    except OSError as error:
        user_error(f"cannot read {path}: {error.strerror or error}")


def bounded_text_or_exit(path: Path, what: str, max_bytes: int) -> str:
    try:
        raw = read_at_most(path, max_bytes)
    except NotAFile as refused:
        user_error(f"{path} is {refused}: give the {what} as a file")
    except TooLarge as refused:
        if refused.size is None:  # it grew while read
            user_error(f"{path} has more than {max_bytes:,} bytes, more than a {what} can have")
        user_error(f"{path} has {refused.size:,} bytes, more than a {what} can have (at most {max_bytes:,})")
    except OSError as error:
        user_error(f"cannot read {path}: {error.strerror or error}")
    if raw.startswith(b"%PDF-"):
        hint = (
            "; chargeback reads the generator's CSV: run it with --format csv (python run.py --type summary "
            "--format csv ...)"
            if what == "usage report"
            else ""
        )
        user_error(f"{path} is a PDF document, not a {what}{hint}")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        user_error(f"{path} is not UTF-8 text (byte 0x{raw[error.start]:02x} at offset {error.start:,})")


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same path once links are followed, or one inode."""
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def overlap(a: Path, b: Path) -> bool:
    """Whether two folders are one, or one holds the other (links followed)."""
    a, b = a.resolve(), b.resolve()
    return a == b or a in b.parents or b in a.parents or same_file(a, b)


def refuse_to_overwrite_an_input(out_file: Path | None, *inputs: Path) -> None:
    """Exit 2, with nothing read or written, when --out names one of the command's own inputs."""
    if out_file is None:
        return
    for path in inputs:
        if same_file(out_file, path):
            user_error(f"--out {out_file} is {path}, an input of this command: give --out another file")


def refuse_to_replace(out_file: Path | None, force: bool) -> None:
    """Exit 2, before any work, when --out (or a file written beside it) exists and --force is not given:
    a command replaces no file of the user's it was not told to."""
    if out_file is None or force or not (out_file.exists() or out_file.is_symlink()):
        return
    user_error(f"{out_file} exists: add --force to replace it, or give --out another file")


def check_out_file(out_file: Path | None, force: bool, *inputs: Path) -> None:
    """Before a command writes `--out`: it is none of the command's inputs, and it does not exist
    unless `--force` says to replace it."""
    refuse_to_overwrite_an_input(out_file, *inputs)
    refuse_to_replace(out_file, force)


def user_error(message: str) -> NoReturn:
    stderr.print(f"error: {message}", markup=False)
    sys.exit(EXIT_INVALID_SPEC)


def write_output_bytes(data: bytes, out_file: Path) -> None:
    """A binary file written whole or not at all: into a file beside it, then moved over it."""
    staging = out_file.with_name(f".{out_file.name}.partial")
    try:
        staging.write_bytes(data)
        staging.replace(out_file)
    except OSError as error:
        staging.unlink(missing_ok=True)
        stderr.print(f"error: cannot write {out_file}: {error.strerror or error}", markup=False)
        sys.exit(EXIT_INVALID_SPEC)
    stderr.print(f"wrote {out_file}", markup=False)


def write_output(text: str, out_file: Path | None) -> None:
    if out_file:
        try:
            out_file.write_text(text, encoding="utf-8")
        except OSError as error:
            stderr.print(f"error: cannot write {out_file}: {error.strerror or error}", markup=False)
            sys.exit(EXIT_INVALID_SPEC)
        stderr.print(f"wrote {out_file}", markup=False)
    else:
        click.echo(text, nl=False)


def spec_json_schema() -> str:
    """The JSON Schema of spec v1: a spec of one cluster (`cluster`, PlatformSpec) or of several
    (`clusters`, spec.clusters.SeveralClustersSpec), whose teams have `placements` instead of `compute`."""
    from hyperpod_teams.spec.clusters import SeveralClustersSpec

    one, several = PlatformSpec.model_json_schema(), SeveralClustersSpec.model_json_schema()
    properties = dict(one["properties"])
    properties["clusters"] = {
        **several["properties"]["clusters"],
        "description": "(optional addition) Several clusters, instead of `cluster`: each a `cluster` section "
        "with the account and Region it runs in; each team then gives its compute per cluster in `placements`.",
    }
    properties["teams"] = {"anyOf": [one["properties"]["teams"], several["properties"]["teams"]]}
    document = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **one,
        "$defs": {**several["$defs"], **one["$defs"]},
        "properties": properties,
        "required": [field for field in one["required"] if field != "cluster"],
        # One cluster or several: `cluster` or `clusters`, and the teams of that kind of spec.
        "oneOf": [
            {
                "required": ["cluster"],
                "not": {"required": ["clusters"]},
                "properties": {"teams": one["properties"]["teams"]},
            },
            {
                "required": ["clusters"],
                "not": {"required": ["cluster"]},
                "properties": {"teams": several["properties"]["teams"]},
            },
        ],
    }
    return json.dumps(document, indent=2) + "\n"


def load_platform_or_exit(spec_path: Path) -> PlatformSpec | SeveralClusters:
    """The spec of one cluster or of several, or exit 2 naming every problem."""
    try:
        return load_platform(spec_path)
    except SpecError as error:
        stderr.print(error.render(), markup=False)
        sys.exit(EXIT_INVALID_SPEC)


@contextmanager
def phase_of_work(description: str):
    """Progress for work that takes seconds: a spinner on a terminal, timed lines in CI logs."""
    started = time.monotonic()
    if stderr.is_terminal:
        with stderr.status(f"{description}…"):
            yield
    else:
        stderr.print(f"{description}…", markup=False)
        yield
    stderr.print(f"  {description}: {time.monotonic() - started:.1f} s", style="dim", markup=False)
