"""`hyperpod-teams init`: a new platform repository in a folder, never over the user's files."""

from __future__ import annotations

import shutil
from pathlib import Path

import click

from hyperpod_teams.cli.common import spec_json_schema, stdout, user_error
from hyperpod_teams.cli.group import cli
from hyperpod_teams.engine import ENGINES
from hyperpod_teams.spec import SpecError, load_spec


@cli.command()
@click.argument("folder", default=".", type=click.Path(path_type=Path))
@click.option(
    "--identity-provider",
    type=click.Choice(["generic_saml", "entra_id"]),
    default="generic_saml",
    show_default=True,
    help="generic_saml: any SAML 2.0 IdP that provisions the groups (nothing more to install); "
    "entra_id: Microsoft Entra ID's application and groups (its extra: pip install './hyperpod-teams[entra]').",
)
@click.option(
    "--engine",
    "engine_name",
    type=click.Choice(list(ENGINES)),
    default="cdktn",
    show_default=True,
    help="The engine cdktf.json's app builds with: cdktn (CDK Terrain) or cdktf (CDKTF 0.21).",
)
@click.option("--org", default="acme", show_default=True, help="organization.name of the starter spec.")
def init(folder: Path, identity_provider: str, engine_name: str, org: str) -> None:
    """Start a platform repository in FOLDER (default: here): a starter teams.yaml that validates
    and synthesizes as it is, its JSON Schema for editors, the cdktf.json that `cdktn synth` (or
    `cdktf synth`) reads, a .gitignore and NEXT-STEPS.md.

    FOLDER must be empty or new, or hold only version-control metadata (a `git init`ed or freshly
    cloned empty repository: .git, .hg, .svn, .bzr, .jj): init never writes beside or over files of
    yours (exit 2).

    \b
    From nothing to the stacks:
      pip install ./hyperpod-teams && hyperpod-teams init platform   # a checkout of a release tag
      cd platform && cdktn synth        # or: hyperpod-teams synth teams.yaml
    """
    import tempfile

    from hyperpod_teams import scaffold

    if folder.exists() and not folder.is_dir():
        user_error(f"{folder} is a file; init writes into an empty or new folder")
    if folder.is_dir() and any(entry.name not in VCS_METADATA for entry in folder.iterdir()):
        entries = sorted(entry.name for entry in folder.iterdir())
        shown = ", ".join(entries[:5]) + (", ..." if len(entries) > 5 else "")
        user_error(
            f"{folder} is not empty ({shown}); init writes only into an empty or new folder (a repository's "
            "own metadata, such as .git, may be there) and changed nothing. "
            "Give a new folder: hyperpod-teams init platform"
        )
    files = scaffold.starter_files(
        org=org, provider=identity_provider, engine=engine_name, schema_text=spec_json_schema()
    )
    with tempfile.TemporaryDirectory(prefix="hyperpod-teams-init-") as scratch:
        starter = Path(scratch) / scaffold.SPEC_FILE
        starter.write_text(files[scaffold.SPEC_FILE], encoding="utf-8")
        try:  # the starter is checked as any spec: --org is its organization.name
            load_spec(starter)
        except SpecError as error:
            # Named as the file it would have been, not the scratch copy it was checked in.
            problems = SpecError(error.problems, str(folder / scaffold.SPEC_FILE)).render()
            user_error(f"--org {org!r} does not make a valid spec:\n{problems}")
    _write_new_folder(folder, files)
    for name in files:
        stdout.print(f"[green]✓[/green] wrote {folder / name}", highlight=False)
    stdout.print()
    stdout.print(files[scaffold.NEXT_STEPS_FILE], markup=False, highlight=False)


#: What a new, empty repository holds, which init writes beside (nothing else of the user's).
VCS_METADATA = frozenset({".git", ".hg", ".svn", ".bzr", ".jj"})


def _write_new_folder(folder: Path, files: dict[str, str]) -> None:
    """Write `files` into `folder` (empty or new) all or nothing: into a staging folder beside it,
    then moved in."""
    import tempfile

    from hyperpod_teams.synth import current_umask

    parent = folder.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name or 'init'}-", dir=parent))
    except OSError as error:
        user_error(f"cannot create {folder}: {error.strerror or error}")
    try:
        for name, text in files.items():
            (staging / name).write_text(text, encoding="utf-8")
        if folder.is_dir():
            for name in files:
                (staging / name).rename(folder / name)
        else:
            staging.chmod(0o777 & ~current_umask())
            staging.rename(folder)
    except OSError as error:
        for name in files:  # what was moved in: the folder was empty before
            (folder / name).unlink(missing_ok=True)
        user_error(f"cannot write into {folder}: {error.strerror or error}; nothing was left")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
