"""The upgrade round: the last release's output applied, then main's planned and applied over it.

A user who deployed the quickstart with hyperpod-teams 0.2.0 (commit 8867ff4) upgrades the tool and
changes nothing in the spec. What 0.2.0 wrote for its own quickstart spec is kept unchanged in
tests/data/release-0.2.0/quickstart.out/ (how it was written: tests/data/release-0.2.0/write_requests.py).
The round applies those AWS stacks against the local AWS API, synthesizes the same spec with the code
under test beside them (the same state files: the quickstart's `local` backends name files beside the
app folder), plans every AWS stack over the release's state (`terraform show -json`, what a review job
reads), applies them and plans again.

What the tests then read (tests/test_emulator_tier.py): nothing replaced or destroyed, every change the
plans hold listed by the review (`plan_section`, what `hyperpod-teams report --plan` prints), the apply
of main's stacks over the release's state clean, and its re-plan "No changes".

Then main's stacks are destroyed, wave by wave in reverse, and applied again (what a platform torn
down and deployed again meets: nothing the destroy leaves may block the second deploy). Here, and not
in the quickstart's own round, because that round's journeys and day 2 need its platform standing:
side by side, the two rounds end sooner than one doing both.
"""

from __future__ import annotations

import json
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from tests.conftest import ROOT, synthesize_stacks

RELEASE = "0.2.0"
RELEASE_DATA = ROOT / "tests" / "data" / f"release-{RELEASE}"
#: The release's quickstart spec, and the stacks the release synthesized from it.
RELEASE_SPEC = RELEASE_DATA / "quickstart.yaml"
RELEASE_OUTPUT = RELEASE_DATA / "quickstart.out"
#: The pipeline's policies the release's `deploy-policy` printed for that spec.
RELEASE_DEPLOY_POLICY = RELEASE_DATA / "quickstart.deploy-policy.json"


@dataclass
class Upgrade:
    """What happened to the release's deployed stacks when main's were planned and applied over them."""

    applied: list = field(default_factory=list)  # the release's stacks, applied (deployment.Outcome)
    #: main's plan of each AWS stack over the release's state (`terraform show -json`).
    plans: dict[str, dict] = field(default_factory=dict)
    #: The AWS stacks main writes that the release did not (none is expected of one spec).
    new_stacks: list[str] = field(default_factory=list)
    upgraded: list = field(default_factory=list)  # main's stacks, applied over the release's state
    replanned: list = field(default_factory=list)
    #: Then main's stacks destroyed in reverse wave order and applied again (deployment.Outcome).
    waves: list[list[str]] = field(default_factory=list)
    destroyed: list = field(default_factory=list)
    reapplied: list = field(default_factory=list)
    #: The resource types of main's AWS stacks, which the destroy and the second deploy go through.
    resource_types: set = field(default_factory=set)
    #: The deploying pipeline's requests as IAM decided them: {"allowed": n, "refused": [...]}.
    deploy_decisions: dict = field(default_factory=dict)
    seconds: float = 0.0

    def summary(self) -> str:
        changed = sum(
            1
            for plan in self.plans.values()
            for change in plan.get("resource_changes", [])
            if set(change["change"]["actions"]) - {"no-op", "read"}
        )
        clean = sum(o.ok for o in self.replanned)
        return (
            f"emulator: upgrade from {RELEASE}: its quickstart's {len(self.applied)} AWS stacks applied, main's "
            f"{len(self.plans)} planned over them ({changed} resources to change, none replaced or destroyed "
            f"if the tests pass), applied ({sum(o.ok for o in self.upgraded)} ok), {clean}/{len(self.replanned)} "
            f"re-plans clean; destroyed ({sum(o.count for o in self.destroyed)} resources) and applied again "
            f"({sum(o.count for o in self.reapplied)} created) ({self.seconds:.0f} s)"
        )


def release_spec() -> dict:
    return yaml.safe_load(RELEASE_SPEC.read_text())


def prepare(work: Path) -> None:
    """The two apps side by side in `work`: the release's output as it wrote it (cdktf.out) and main's
    synth of the same spec (cdktf.main). The quickstart's local backends name
    ../../../terraform.<stack>.tfstate: the same state files for both. (Synthesized in the calling
    thread: one engine per process.)"""
    from hyperpod_teams.spec import validate_spec

    shutil.copytree(RELEASE_OUTPUT, work / "cdktf.out")
    synthesize_stacks(validate_spec(release_spec()), work / "cdktf.main")


def _phases(result: Upgrade, before, after) -> None:
    from hyperpod_teams.spec import validate_spec
    from tests.emulator.day_two import plan_json
    from tests.emulator.deployment import create_role_boundary, widen_pipeline_policies

    result.applied = before.each_wave(before.apply)
    if not all(o.ok for o in result.applied):
        return
    spec = validate_spec(release_spec())
    create_role_boundary(after.endpoint, spec)
    widen_pipeline_policies(after.endpoint, spec)
    result.new_stacks = sorted(set(after.stacks) - set(before.stacks))
    with ThreadPoolExecutor(max_workers=4) as pool:  # plans change nothing: side by side
        result.plans = dict(zip(after.stacks, pool.map(lambda name: plan_json(after, name), after.stacks), strict=True))
    result.upgraded = after.each_wave(after.apply)
    if all(o.ok for o in result.upgraded):
        result.replanned = after.all_at_once(after.replan)
    if not (result.replanned and all(o.ok for o in result.replanned)):
        return
    result.waves = after.waves
    result.resource_types = after.resource_types
    result.destroyed = after.destroy_everything()
    if all(o.ok for o in result.destroyed):
        result.reapplied = after.each_wave(after.apply)


def an_upgrade(work: Path, terraform_env: dict[str, str]) -> Upgrade:
    """The round (module docstring) over the apps `prepare` wrote, with an emulator of its own."""
    from tests.emulator.deployment import (
        Deployment,
        pipeline_credentials,
        running_emulator,
        world_before_first_deploy,
    )

    started = time.monotonic()
    result = Upgrade()
    spec = release_spec()
    with running_emulator(work, spec["organization"]["account_id"]) as emulator:
        before = Deployment(work / "cdktf.out", terraform_env, emulator.url)
        emulator.seed(world_before_first_deploy(spec, before.looked_up_groups()))
        # As the pipeline's role, with the policies the release's `deploy-policy` printed; main's
        # replace them before main's plans (the upgrade's first step, docs/deploy.md).
        released_policies = json.loads(RELEASE_DEPLOY_POLICY.read_text())
        before.terraform_env = {**terraform_env, **pipeline_credentials(emulator.url, spec, released_policies)}
        try:
            _phases(result, before, Deployment(work / "cdktf.main", before.terraform_env, emulator.url))
        finally:
            result.deploy_decisions = emulator.deploy_decisions()
    result.seconds = time.monotonic() - started
    return result
