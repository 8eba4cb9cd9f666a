"""What hyperpod-teams 0.2.0 (commit 8867ff4, the last release) derived from its own example specs:
the stacks it planned and the AWS requests it built (cluster, scheduler config, compute quotas).
Written once by the release's own code, never by the code under test:

    git worktree add /tmp/v0.2.0 8867ff4 && cd /tmp/v0.2.0
    PYTHONPATH=. python $MAIN/tests/data/release-0.2.0/write_requests.py > requests.json

and requests.json copied here.
The specs beside this file are that release's examples, unchanged. tests/test_spec_additions.py
reads them with main's code.

The upgrade round of the emulator tier (tests/emulator/upgrade.py) applies what the release wrote for
its quickstart, written in the same worktree by the release's own commands (the worktree's
`hyperpod_teams/stacks` and `hyperpod_teams/providers` linked to `../stacks` and `../providers`, as
the release's package maps them, and the test venv's editable finder of main left out):

    hyperpod-teams synth examples/quickstart/teams.yaml --out quickstart.out   # manifest.json, stacks/
    hyperpod-teams deploy-policy examples/quickstart/teams.yaml --out quickstart.deploy-policy.json
"""

import json
import sys
from pathlib import Path

from hyperpod_teams import cloudformation
from hyperpod_teams.spec.loading import load_spec
from hyperpod_teams.stack_plan import stack_plan

EKS = "arn:aws:eks:eu-west-1:111122223333:cluster/eks"
ROLE = "arn:aws:iam::111122223333:role/execution"
S3 = "s3://lifecycle/scripts/"
HYPERPOD = "arn:aws:sagemaker:eu-west-1:111122223333:cluster/abc123"
EXAMPLES = ("quickstart", "okta", "existing-cluster", "existing-hyperpod")


def dump(model) -> dict:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def requests(spec) -> dict:
    cluster = cloudformation.hyperpod_cluster(spec, eks_cluster_arn=EKS, execution_role_arn=ROLE, lifecycle_s3_uri=S3)
    derived = {"stacks": [stack.name for stack in stack_plan(spec)], "cluster": dump(cluster)}
    if spec.cluster.task_governance is not None:
        derived["scheduler_config"] = dump(cloudformation.scheduler_config(spec, cluster_arn=HYPERPOD))
    derived["compute_quotas"] = {
        team.name: dump(cloudformation.compute_quota(spec.organization, team, cluster_arn=HYPERPOD))
        for team in spec.teams
    }
    return derived


if __name__ == "__main__":
    written = {name: requests(load_spec(Path("examples") / name / "teams.yaml")) for name in EXAMPLES}
    json.dump(written, sys.stdout, indent=1, sort_keys=True)
