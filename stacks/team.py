"""`<org>-team-<team>`: one team's AWS resources, tagged with the team for cost allocation."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import bindings, cloudformation, naming
from hyperpod_teams.constructs.cost import TeamBudget
from hyperpod_teams.constructs.team import TeamDomain, TeamExecutionRole
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.stacks.base import PlatformStack


class TeamStack(PlatformStack):
    credentials = "AWS"

    def __init__(
        self,
        scope: Construct,
        stack_name: str,
        *,
        spec: PlatformSpec,
        team: Team,
        hyperpod_cluster_arn: str,
        group_ids: dict[str, str],
    ) -> None:
        super().__init__(scope, stack_name, spec=spec)
        self.team = team
        self.add_aws_provider(tags=naming.team_resource_tags(spec.organization, team))
        self.compute_quota = None
        if spec.cluster.task_governance.enabled:
            # Task governance creates the team namespace hyperpod-ns-<team> with this quota.
            self.compute_quota = bindings.aws_cloudcontrolapi_resource.CloudcontrolapiResource(
                self,
                "compute-quota",
                type_name=cloudformation.COMPUTE_QUOTA_TYPE,
                desired_state=cloudformation.compute_quota(spec, team, cluster_arn=hyperpod_cluster_arn).desired_state(),
            )
        self.execution_role = TeamExecutionRole(self, "execution-role", spec=spec, team=team)
        self.domain = None
        if team.studio.enabled:
            self.domain = TeamDomain(
                self, "studio", spec=spec, team=team, execution_role=self.execution_role, group_ids=group_ids
            )
        self.budget = TeamBudget(self, "budget", spec=spec, team=team) if team.budget else None
