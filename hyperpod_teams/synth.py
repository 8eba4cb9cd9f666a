"""Write the synthesized stacks to a folder without losing anything of the user's.

The App synthesizes into a staging folder beside the target, so a failure while building or
writing leaves the previous output untouched. Only then does the result go into the target, file
by file (each an atomic rename): the files the previous synth wrote and this one does not are
removed, and nothing else in the folder is touched: the user's own files (a `plan.json`, an
`override.tf`, a README, `.git`), Terraform's working files (`.terraform/`, `.terraform.lock.hcl`).
The marker file OUTPUT_MARKER lists what synth wrote; a file of the user's where synth must now
write is refused (exit 2) before anything moves.

Only a folder this tool wrote (it holds OUTPUT_MARKER) or an empty one is written into: anything
else is refused before any work, with nothing touched. Staging folders of a run that was killed
are removed by the next run.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from hyperpod_teams.spec.clusters import SeveralClusters
from hyperpod_teams.spec.models import PlatformSpec

#: Terraform's own files in a stack folder, kept across re-synths.
TERRAFORM_WORKING_FILES = (".terraform", ".terraform.lock.hcl")
#: Written into every output folder: what lets a later synth recognise a folder as its own.
OUTPUT_MARKER = ".hyperpod-teams-output"
#: What a synth of hyperpod-teams 0.1 wrote before the marker existed (cdktf's own layout).
LEGACY_OUTPUT_ENTRIES = frozenset({"manifest.json", "stacks"})


class OutputFolderError(Exception):
    """The output folder cannot be used: a user error (exit 2), nothing was touched."""


Phase = Callable[[str], AbstractContextManager]


@dataclass(frozen=True)
class StackSummary:
    name: str
    credentials: str
    resources: int
    data_sources: int
    depends_on: tuple[str, ...]


def synthesize(
    spec: PlatformSpec | SeveralClusters,
    out_dir: str | Path,
    *,
    phase: Phase | None = None,
    engine_name: str | None = None,
) -> list[StackSummary]:
    """Synthesize the platform's stacks (of one cluster, or of several) into `out_dir` (cdktf
    layout) and summarize them, with engine `engine_name` (cdktn or cdktf; else
    hyperpod_teams.engine's choice)."""
    from hyperpod_teams import engine

    phase = phase or (lambda _: contextlib.nullcontext())
    in_use = engine.use(engine_name) if engine_name else engine.current()
    out_dir = prepare_output_folder(out_dir)
    with phase(f"Loading {in_use.title} ({in_use.name}) and the provider bindings"):
        from hyperpod_teams import bindings, speedups

        speedups.enable()  # this process runs only the project's own stacks
        from hyperpod_teams.app import (
            PlatformStacks,
            SeveralClustersStacks,
            add_platform_stacks,
            add_several_clusters_stacks,
        )
        from hyperpod_teams.engine import cdk

        bindings.preload()

    staging = Path(tempfile.mkdtemp(prefix=f"{_staging_prefix(out_dir)}{os.getpid()}-", dir=out_dir.parent))
    try:
        building = (
            f"{len(spec.spec.teams)} teams on {len(spec.views)} clusters"
            if isinstance(spec, SeveralClusters)
            else f"{len(spec.teams)} teams"
        )
        with phase(f"Building the stacks of {building}"), _no_cyclic_garbage_collection():
            app = cdk.App(outdir=str(staging))
            stacks: PlatformStacks | SeveralClustersStacks = (
                add_several_clusters_stacks(app, spec)
                if isinstance(spec, SeveralClusters)
                else add_platform_stacks(app, spec)
            )
        with phase("Writing Terraform JSON"):
            app.synth()
            summaries = _summarize(staging, {s.stack_name: s.credentials for s in stacks.all()})
            # mkdtemp makes the folder private (0700); the output follows the umask like any folder.
            staging.chmod(0o777 & ~current_umask())
            with signals_deferred():  # the old output or the new one, whole: never a mix of both
                _update_folder(staging, out_dir)
    except KeyboardInterrupt:
        stop_node()
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return summaries


@contextlib.contextmanager
def signals_deferred():
    """Ctrl-C or SIGTERM arriving inside the block is acted on when the block ends: its handler
    then runs as it would have (KeyboardInterrupt, the CLI's exit 143). Python runs signal handlers
    in the main thread between bytecodes, so replacing them is what holds a signal back, whichever
    thread the operating system delivered it to."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[signal.Signals] = []
    previous = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    for number in previous:
        signal.signal(number, lambda signum, frame: received.append(signal.Signals(signum)))
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        if received:
            handler = previous[received[0]]
            if callable(handler):
                handler(received[0], None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(received[0])


def stop_node() -> None:
    """Interrupted mid-request, jsii's node process may go on writing stacks into the staging
    folder after Python has removed it: end node first. (jsii's kernel, as in speedups/jsii_requests.py;
    this process is exiting and uses jsii no more.)"""
    import atexit

    from jsii._runtime import kernel

    node = getattr(kernel.provider, "_process", None)
    process = getattr(node, "_process", None)
    if node is None or process is None:
        return
    atexit.unregister(node.stop)  # its polite exit would write to the pipe of a killed process
    if process.poll() is None:
        process.kill()
        process.wait(timeout=10)


def prepare_output_folder(out_dir: str | Path) -> Path:
    """The output folder, resolved, after checking that synth may write and replace it; cleans
    what a killed run left beside it. Raises OutputFolderError naming the folder and the fix."""
    out_dir = Path(out_dir).resolve()
    for parent in reversed(out_dir.parents):
        if parent.exists() and not parent.is_dir():
            raise OutputFolderError(f"cannot write {out_dir}: {parent} is a file, not a folder")
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputFolderError(f"cannot create the folder {out_dir.parent}: {exc.strerror or exc}") from None
    if not os.access(out_dir.parent, os.W_OK | os.X_OK):
        raise OutputFolderError(f"cannot write {out_dir}: no permission to write in {out_dir.parent}")
    _put_back_a_folder_moved_aside(out_dir)
    if out_dir.exists():
        if not out_dir.is_dir():
            raise OutputFolderError(f"cannot write the output folder {out_dir}: it is a file")
        entries = sorted(entry.name for entry in out_dir.iterdir())
        if entries and not _written_by_synth(out_dir, entries):
            shown = ", ".join(entries[:6]) + (f" and {len(entries) - 6} more" if len(entries) > 6 else "")
            raise OutputFolderError(
                f"refusing to write into {out_dir}: synth writes only into a folder it wrote itself (it holds "
                f"{OUTPUT_MARKER}) or an empty one, and this folder holds files synth did not write ({shown}). "
                "Choose a new or empty folder, e.g. --out cdktf.out"
            )
    # Only for an output synth will write: nothing beside a refused folder is touched.
    _remove_stale_staging_folders(out_dir)
    return out_dir


def _written_by_synth(out_dir: Path, entries: list[str]) -> bool:
    if OUTPUT_MARKER in entries:
        return True
    if not set(entries) <= LEGACY_OUTPUT_ENTRIES or "manifest.json" not in entries:
        return False
    try:
        return "stacks" in json.loads((out_dir / "manifest.json").read_text())
    except (OSError, ValueError):
        return False


def _staging_prefix(out_dir: Path) -> str:
    return f".{out_dir.name}.staging-"


def _previous_prefix(out_dir: Path) -> str:
    return f".{out_dir.name}.previous-"


def _remove_stale_staging_folders(out_dir: Path) -> None:
    """Remove the staging folders of runs that are gone: folders (not links) of this output's staging
    name holding nothing but what synth writes."""
    for leftover in out_dir.parent.glob(f"{_staging_prefix(out_dir)}*"):
        pid = leftover.name.removeprefix(_staging_prefix(out_dir)).split("-", 1)[0]
        if not pid.isdigit() or _running(int(pid)) or leftover.is_symlink() or not leftover.is_dir():
            continue
        if {entry.name for entry in leftover.iterdir()} <= {*LEGACY_OUTPUT_ENTRIES, OUTPUT_MARKER}:
            shutil.rmtree(leftover, ignore_errors=True)


def _put_back_a_folder_moved_aside(out_dir: Path) -> None:
    """Put back an output folder moved aside by a run killed between its two renames, else remove the
    stale copy (either holds synth's marker: it is synth's own)."""
    for previous in sorted(out_dir.parent.glob(f"{_previous_prefix(out_dir)}*")):
        if not out_dir.exists() and (previous / OUTPUT_MARKER).exists():
            os.rename(previous, out_dir)
        elif out_dir.exists() and (previous / OUTPUT_MARKER).exists():
            shutil.rmtree(previous, ignore_errors=True)


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def current_umask() -> int:
    """The process's umask (read by setting it, then set back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _no_cyclic_garbage_collection():
    """Python's cycle collector off while the stacks are built.

    Building creates a Python proxy for every jsii object, and all of them live until the App is
    synthesized, so each collection walks a growing heap and frees nothing: a tenth of the build
    time at 100 teams (benchmarks/synth.py). Reference counting still frees everything else.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _summarize(out_dir: Path, credentials: dict[str, str]) -> list[StackSummary]:
    manifest = json.loads((out_dir / "manifest.json").read_text())
    summaries = []
    for name in credentials:  # deploy order
        entry = manifest["stacks"][name]
        document = json.loads((out_dir / entry["synthesizedStackPath"]).read_text())
        summaries.append(
            StackSummary(
                name=name,
                credentials=credentials[name],
                resources=sum(len(v) for v in document.get("resource", {}).values()),
                data_sources=sum(len(v) for v in document.get("data", {}).values()),
                depends_on=tuple(sorted(entry.get("dependencies", []))),
            )
        )
    return summaries


MARKER_HEADER = (
    "This folder was written by `hyperpod-teams synth`. The next synth replaces the files listed below\n"
    "and removes those it no longer writes; everything else here is left as it is.\n"
)


def _recorded_files(folder: Path) -> set[str]:
    """The files (relative paths) the previous synth wrote into `folder`: those its marker lists;
    for a marker of a version that listed none, or the layout of 0.1, cdktf's own layout."""
    marker = folder / OUTPUT_MARKER
    if marker.is_file():
        lines = marker.read_text(errors="replace").splitlines()
        if lines and lines[0].startswith("This folder was written by") and "listed below" in lines[0]:
            return {line for line in lines[2:] if _inside(folder, line)}
    recorded = {"manifest.json"}
    stacks = folder / "stacks"
    for stack in stacks.iterdir() if stacks.is_dir() else []:
        recorded.add(f"stacks/{stack.name}/cdk.tf.json")
        assets = stack / "assets"
        if assets.is_dir() and not assets.is_symlink():
            recorded.update(str(path.relative_to(folder)) for path in assets.rglob("*") if not path.is_dir())
    return {name for name in recorded if _inside(folder, name)}


def _inside(folder: Path, name: str) -> bool:
    """Whether `name` (a line of the marker, which anyone could edit) is a file path inside
    `folder`, reached without a symbolic link: nothing outside it is ever removed."""
    parts = Path(name).parts
    if not name or name.startswith("#") or Path(name).is_absolute() or ".." in parts or name == OUTPUT_MARKER:
        return False
    return not any((folder / part).is_symlink() for part in _parents_and_self(name)[:-1])


def _files(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if not path.is_dir())


def _update_folder(new: Path, target: Path) -> None:
    """Move the new output's files into `target`, remove the files the previous synth wrote that
    the new one does not, and leave everything else in `target` as it is. Refuses, before moving
    anything, to write over a file synth did not write."""
    written = _files(new)
    recorded = _recorded_files(target) if target.exists() else set()
    in_the_way = [
        name
        for name in written
        if name not in recorded
        and any((target / part).exists() and not (target / part).is_dir() for part in _parents_and_self(name))
    ]
    in_the_way += [name for name in written if (target / name).is_dir() or not _inside(target, name)]
    if in_the_way:
        raise OutputFolderError(
            f"refusing to write {target}: synth would write over files it did not write "
            f"({', '.join(sorted(in_the_way)[:6])}). Move them, or choose another folder with --out"
        )
    target.mkdir(exist_ok=True)
    target.chmod(new.stat().st_mode & 0o777)
    marker = target / OUTPUT_MARKER
    # Listed first, all of it: a run killed while moving files leaves nothing of synth's unlisted.
    _write_marker(marker, sorted(recorded | set(written)))
    for name in written:
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        os.replace(new / name, destination)
    removed = sorted(recorded - set(written))
    for name in removed:
        with contextlib.suppress(FileNotFoundError, IsADirectoryError, NotADirectoryError):
            (target / name).unlink()
    _remove_working_files_of_removed_stacks(
        target, {name.split("/")[1] for name in written if name.startswith("stacks/")}
    )
    # The folders synth made for files it no longer writes, once empty (a file of the user's keeps one).
    for name in removed:
        for folder in list((target / name).parents)[: len(Path(name).parts) - 1]:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty
    _write_marker(marker, written)


def _parents_and_self(name: str) -> list[str]:
    parts = name.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _write_marker(marker: Path, files: list[str]) -> None:
    partial = marker.with_name(f"{marker.name}.{os.getpid()}.partial")
    partial.write_text(MARKER_HEADER + "".join(f"{name}\n" for name in files))
    os.replace(partial, marker)


def _remove_working_files_of_removed_stacks(target: Path, stacks: set[str]) -> None:
    """A stack no longer synthesized takes its Terraform working files with it, unless its folder
    holds a file of the user's (then the folder stays as it is)."""
    stacks_dir = target / "stacks"
    for stack_dir in stacks_dir.iterdir() if stacks_dir.is_dir() else []:
        if stack_dir.name in stacks or not stack_dir.is_dir() or stack_dir.is_symlink():
            continue
        if {entry.name for entry in stack_dir.iterdir()} <= {*TERRAFORM_WORKING_FILES, "assets"}:
            for name in TERRAFORM_WORKING_FILES:
                working = stack_dir / name
                if working.is_dir() and not working.is_symlink():
                    shutil.rmtree(working, ignore_errors=True)
                elif working.exists() or working.is_symlink():
                    working.unlink()
