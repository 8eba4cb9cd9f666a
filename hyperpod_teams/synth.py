"""Write the synthesized stacks to a folder, all or nothing.

The App synthesizes into a staging folder beside the target; only a complete result replaces the
target, so a failure at any point leaves the previous contents untouched. Terraform's working
files in each stack folder (`.terraform/`, `.terraform.lock.hcl`) move over to the new result, so
a re-synth does not force `terraform init` again.
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
    out_dir = Path(out_dir).resolve()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    with phase("Loading cdktf and the provider bindings"):
        from hyperpod_teams import bindings, jsii_requests

        bindings.tune_node_process()
        import cdktf

        # This process runs only the project's own stacks: see the functions for why.
        bindings.skip_argument_type_checks()
        jsii_requests.install()

        from hyperpod_teams.app import add_platform_stacks

        bindings.preload()

    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.staging-", dir=out_dir.parent))
    try:
        with phase(f"Building the stacks of {len(spec.teams)} teams"), _no_cyclic_garbage_collection():
            app = cdktf.App(outdir=str(staging))
            stacks = add_platform_stacks(app, spec)
        with phase("Writing Terraform JSON"):
            app.synth()
            summaries = _summarize(staging, {s.stack_name: s.credentials for s in stacks.all()})
            _replace_folder(staging, out_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return summaries


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
