"""Write the synthesized stacks to a folder, all or nothing.

The App synthesizes into a staging folder beside the target; only a complete result replaces the
target, so a failure at any point leaves the previous contents untouched. Terraform's working
files in each stack folder (`.terraform/`, `.terraform.lock.hcl`) move over to the new result, so
a re-synth does not force `terraform init` again.

Only a folder this tool wrote (it holds OUTPUT_MARKER) or an empty one is ever replaced: anything
else is refused before any work, with nothing touched. Staging folders of a run that was killed
are removed by the next run; an output folder moved aside by a run killed mid-swap is put back.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

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


def synthesize(spec: PlatformSpec, out_dir: str | Path, *, phase: Phase | None = None) -> list[StackSummary]:
    """Synthesize the platform's stacks into `out_dir` (cdktf layout) and summarize them."""
    phase = phase or (lambda _: contextlib.nullcontext())
    out_dir = prepare_output_folder(out_dir)
    with phase("Loading cdktf and the provider bindings"):
        from hyperpod_teams import bindings, speedups

        speedups.enable()  # this process runs only the project's own stacks
        import cdktf

        from hyperpod_teams.app import add_platform_stacks

        bindings.preload()

    staging = Path(tempfile.mkdtemp(prefix=f"{_staging_prefix(out_dir)}{os.getpid()}-", dir=out_dir.parent))
    try:
        with phase(f"Building the stacks of {len(spec.teams)} teams"), _no_cyclic_garbage_collection():
            app = cdktf.App(outdir=str(staging))
            stacks = add_platform_stacks(app, spec)
        with phase("Writing Terraform JSON"):
            app.synth()
            summaries = _summarize(staging, {s.stack_name: s.credentials for s in stacks.all()})
            (staging / OUTPUT_MARKER).write_text(
                "This folder was written by `hyperpod-teams synth`, which replaces it whole on the next synth.\n"
            )
            # mkdtemp makes the folder private (0700); the output follows the umask like any folder.
            staging.chmod(0o777 & ~_umask())
            _replace_folder(staging, out_dir)
    except KeyboardInterrupt:
        _stop_node()
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return summaries


def _stop_node() -> None:
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
    _recover_from_a_killed_run(out_dir)
    if out_dir.exists():
        if not out_dir.is_dir():
            raise OutputFolderError(f"cannot write the output folder {out_dir}: it is a file")
        entries = sorted(entry.name for entry in out_dir.iterdir())
        if entries and not _written_by_synth(out_dir, entries):
            shown = ", ".join(entries[:6]) + (f" and {len(entries) - 6} more" if len(entries) > 6 else "")
            raise OutputFolderError(
                f"refusing to replace {out_dir}: synth replaces its output folder whole, and this folder holds "
                f"files synth did not write ({shown}). Choose a new or empty folder, e.g. --out cdktf.out"
            )
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


def _recover_from_a_killed_run(out_dir: Path) -> None:
    """Remove staging folders whose run is gone; put back an output folder moved aside by a run
    killed between its two renames, else remove the stale copy."""
    for leftover in out_dir.parent.glob(f"{_staging_prefix(out_dir)}*"):
        pid = leftover.name.removeprefix(_staging_prefix(out_dir)).split("-", 1)[0]
        if not (pid.isdigit() and _running(int(pid))):
            shutil.rmtree(leftover, ignore_errors=True)
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


def _umask() -> int:
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


def _replace_folder(new: Path, target: Path) -> None:
    """Swap `new` into `target` by renames; on failure the old target is put back."""
    if not target.exists():
        os.rename(new, target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.previous-", dir=target.parent))
    os.rmdir(old)
    os.rename(target, old)
    try:
        os.rename(new, target)
    except BaseException:
        os.rename(old, target)
        raise
    _carry_over_terraform_files(old, target)
    shutil.rmtree(old, ignore_errors=True)


def _carry_over_terraform_files(old: Path, new: Path) -> None:
    old_stacks = old / "stacks"
    if not old_stacks.is_dir():
        return
    for stack_dir in old_stacks.iterdir():
        target = new / "stacks" / stack_dir.name
        if not target.is_dir():
            continue  # a removed stack: its working files go with it
        for name in TERRAFORM_WORKING_FILES:
            if (stack_dir / name).exists() and not (target / name).exists():
                os.rename(stack_dir / name, target / name)
