"""Library use: add one team's environment to a HyperPod cluster that is managed elsewhere.

A CDK Terrain (cdktn) app of your own, with a stack of your own: it reads the team from the organization's
spec (so its names, quota and tags follow the same rules), and takes what the platform stacks
provide (the HyperPod cluster ARN, the EKS cluster name, the team's Identity Center group IDs)
as Terraform variables instead of cross-stack references.

    python examples/library/app.py [SPEC] [TEAM] [OUT_DIR]

An app on CDKTF does the same with `import cdktf` and `cdktf.App` (pip install
'hyperpod-teams[cdktf]'): hyperpod-teams builds with the engine the app imported
(hyperpod_teams.engine; docs/engines.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

from hyperpod_teams import bindings, load_spec, naming, speedups

# Optional, before the engine loads: node then loads only the provider code the stacks use (about
# 800 MiB and several seconds less). The output is the same either way; speedups.enable() would
# add the rest of the speed-ups, for a process that runs only hyperpod-teams' stacks.
speedups.tune_node_process()

import cdktn  # noqa: E402
from constructs import Construct  # noqa: E402

from hyperpod_teams.constructs.team import TeamEnvironment  # noqa: E402
from hyperpod_teams.stack_plan import team_stack_inputs  # noqa: E402

HERE = Path(__file__).resolve().parent


class OneTeamStack(cdktn.TerraformStack):
    """A user's own stack holding one team's environment."""

    def __init__(self, scope: Construct, id_: str, *, spec_path: Path, team_name: str) -> None:
        super().__init__(scope, id_)
        spec = load_spec(spec_path)
        team = spec.team(team_name)
        aws = bindings.aws_provider  # the fast door to the AWS bindings; a plain import works too
        aws.AwsProvider(
            self,
            "aws",
            region=spec.organization.region,
            default_tags=[aws.AwsProviderDefaultTags(tags=naming.team_resource_tags(spec.organization, team))],
        )

        def variable(name: str, description: str) -> str:
            return cdktn.TerraformVariable(self, name, type="string", description=description).string_value

        TeamEnvironment(
            self,
            team.name,
            inputs=team_stack_inputs(spec),
            team=team,
            hyperpod_cluster_arn=variable("hyperpod_cluster_arn", "ARN of the shared HyperPod cluster"),
            eks_cluster_name=variable("eks_cluster_name", "Name of the EKS cluster HyperPod runs on"),
            group_ids={
                role: variable(f"{role}_group_id", f"Identity Center group ID of the team's {role}")
                for role in naming.ROLES
            },
            admins_permission_set_arn=variable(
                "admins_permission_set_arn", "ARN of the team admins' permission set (gets their Studio policy)"
            ),
        )


def main(argv: list[str]) -> None:
    spec_path = Path(argv[1]) if len(argv) > 1 else HERE.parent / "quickstart" / "teams.yaml"
    team_name = argv[2] if len(argv) > 2 else "research"
    app = cdktn.App(outdir=argv[3] if len(argv) > 3 else "cdktf.out")
    OneTeamStack(app, f"{team_name}-team", spec_path=spec_path, team_name=team_name)
    app.synth()


if __name__ == "__main__":
    main(sys.argv)
