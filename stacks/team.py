"""`<org>-team-<team>`: one team's AWS resources, tagged with the team for cost allocation."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import naming
from hyperpod_teams.constructs.team import TeamEnvironment
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.stack_plan import team_stack_inputs
from hyperpod_teams.stacks.base import PlatformStack


class TeamStack(PlatformStack):
    def __init__(
        self,
        scope: Construct,
        stack_name: str,
        *,
        spec: PlatformSpec,
        team: Team,
        hyperpod_cluster_arn: str,
        eks_cluster_name: str,
        group_ids: dict[str, str],
    ) -> None:
        super().__init__(scope, stack_name, spec=spec)
        self.team = team
        self.add_aws_provider(tags=naming.team_resource_tags(spec.organization, team))
        self.environment = TeamEnvironment(
            self,
            "team",
            inputs=team_stack_inputs(spec),
            team=team,
            hyperpod_cluster_arn=hyperpod_cluster_arn,
            eks_cluster_name=eks_cluster_name,
            group_ids=group_ids,
        )
