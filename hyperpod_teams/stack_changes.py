"""Which stacks a change touches, for pipelines that plan and deploy only those (as Terramate's
change detection and Atlantis's autoplan do): the stacks whose synthesized document differs
between two synth outputs, the stacks that depend on them, in deploy waves. Pure layer: it reads
the cdktf layout (manifest.json, stacks/<stack>/cdk.tf.json) and never imports cdktf.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyperpod_teams.input_files import read_json_file
from hyperpod_teams.stack_plan import waves_of


class SynthOutputError(ValueError):
    """A folder that is not the output of a synth, with what to do."""


@dataclass(frozen=True)
class Selection:
    """The stacks to plan or deploy, in waves (each wave after the ones before it)."""

    waves: list[list[str]]
    #: Stacks whose own document changed (new stacks included); the rest of `stacks` depend on them.
    changed: list[str] = field(default_factory=list)
    #: Stacks the old output has and the new one does not: nothing plans them any more, and
    #: nothing destroys them (docs/deploy.md, removing a team).
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    #: The HyperPod and EKS clusters the removed stacks created ("<kind> <name> (<stack>)"): a
    #: cluster taken out of the spec keeps running, and billing, until its stacks are destroyed.
    removed_clusters: list[str] = field(default_factory=list)

    @property
    def stacks(self) -> list[str]:
        return [name for wave in self.waves for name in wave]

    def as_json(self) -> dict:
        return {
            "stacks": self.stacks,
            "waves": self.waves,
            "changed": self.changed,
            "removed": self.removed,
            "removed_clusters": self.removed_clusters,
            "unchanged": self.unchanged,
        }


#: The largest manifest or stack document of a synth output read (the largest stack of an
#: organization's is a few megabytes).
MAX_OUTPUT_FILE_BYTES = 100 * 1024 * 1024


def _read_json(path: Path) -> Any:
    """A synth output's JSON file: a regular file of at most MAX_OUTPUT_FILE_BYTES (a FIFO would
    block, /dev/zero never end), else SynthOutputError naming it."""
    try:
        return read_json_file(path, MAX_OUTPUT_FILE_BYTES, "not a file synth writes")
    except ValueError as error:
        raise SynthOutputError(str(error)) from None


def read_output(out_dir: Path) -> tuple[dict[str, dict], dict[str, list[str]]]:
    """The stacks' documents and each stack's dependencies, from a synth output folder."""
    manifest_path = out_dir / "manifest.json"
    try:
        manifest = _read_json(manifest_path)
        entries = manifest["stacks"]
        documents = {name: _read_json(out_dir / entry["synthesizedStackPath"]) for name, entry in entries.items()}
    except FileNotFoundError as missing:
        raise SynthOutputError(
            f"{out_dir} is not a synth output: {Path(missing.filename or manifest_path).name} is missing "
            "(give the folder `hyperpod-teams synth --out` or `cdktn synth` wrote, e.g. the previous run's cdktf.out)"
        ) from None
    except (OSError, KeyError, TypeError, AttributeError) as broken:
        raise SynthOutputError(f"{manifest_path} is not a readable synth output's manifest: {broken!r}") from None
    dependencies = {name: list(entry.get("dependencies", [])) for name, entry in entries.items()}
    return documents, dependencies


def in_waves(names: set[str], dependencies: dict[str, list[str]]) -> list[list[str]]:
    """`names` in deploy waves, by their dependencies among themselves (the others are in place)."""
    try:
        return waves_of(sorted(names), dependencies)
    except ValueError as cycle:
        raise SynthOutputError(f"the manifest's dependencies have a {cycle}") from None


def changed_stacks(old: dict[str, dict], new_dir: Path) -> Selection:
    """The stacks of `new_dir` whose document differs from the old documents (`read_output` of the
    old folder, read before a synth may replace it), or that the old output lacks, with every
    stack that depends on them, directly or not: a changed stack's outputs may change what its
    dependents plan, though their documents stay the same."""
    new, dependencies = read_output(new_dir)
    changed = {name for name, document in new.items() if old.get(name) != document}
    dependents: dict[str, set[str]] = {}
    for name, needs in dependencies.items():
        for needed in needs:
            dependents.setdefault(needed, set()).add(name)
    selected, frontier = set(changed), list(changed)
    while frontier:
        for dependent in dependents.get(frontier.pop(), ()):
            if dependent not in selected:
                selected.add(dependent)
                frontier.append(dependent)
    removed = sorted(set(old) - set(new))
    return Selection(
        in_waves(selected, dependencies),
        changed=sorted(changed),
        removed=removed,
        unchanged=len(new) - len(selected),
        removed_clusters=[found for name in removed for found in clusters_created(name, old[name])],
    )


def clusters_created(stack_name: str, document: dict) -> list[str]:
    """The HyperPod and EKS clusters a stack's document creates (not the ones it looks up)."""
    found = []
    resources = document.get("resource", {})
    for resource in resources.get("aws_cloudcontrolapi_resource", {}).values():
        if resource.get("type_name") == "AWS::SageMaker::Cluster":
            try:
                name = json.loads(resource.get("desired_state", "{}")).get("ClusterName", "?")
            except (TypeError, ValueError):
                name = "?"
            found.append(f"HyperPod cluster {name} ({stack_name})")
    found += [
        f"EKS cluster {cluster.get('name', '?')} ({stack_name})"
        for cluster in resources.get("aws_eks_cluster", {}).values()
    ]
    return found


def render_text(selection: Selection) -> str:
    lines = [f"wave {i}: {' '.join(wave)}" for i, wave in enumerate(selection.waves, 1)]
    if not lines:
        lines.append("no stack changed")
    if selection.removed:
        lines.append(f"removed (not planned, not destroyed): {' '.join(selection.removed)}")
    if selection.removed_clusters:
        lines.append(
            "warning: the spec no longer has what these removed stacks created, and it keeps running (and "
            f"billing) until they are destroyed: {'; '.join(selection.removed_clusters)}. Move its teams' work "
            "first, then destroy the removed stacks in reverse deploy order (docs/deploy.md)"
        )
    return "\n".join(lines)
