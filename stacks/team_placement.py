"""`<org>-<cluster>-team-<team>`: a team's place on a cluster other than its home's (spec
`clusters`): its compute quota there, the EKS access entries of its roles, and the binding of its
workload role (in another account than the home's, through a role of the cluster's account that
assumes it). Its domain, data, roles and budget are its home stack's (`<org>-team-<team>`,
stacks/team.py)."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import naming
from hyperpod_teams.constructs.team_placement import add_team_placement, chained_workload_role
from hyperpod_teams.engine import cdk
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.stack_plan import TeamPlacement, team_stack_inputs, team_workload_role_arn
from hyperpod_teams.stacks.base import PlatformStack
from hyperpod_teams.stacks.team import add_quota_outputs


class TeamPlacementStack(PlatformStack):
    def __init__(
        self,
        scope: Construct,
        stack_name: str,
        *,
        spec: PlatformSpec,
        team: Team,
        placement: TeamPlacement,
        home: PlatformSpec,
    ) -> None:
        """`spec`: the view of the cluster the team is placed on; `home`: its home cluster's view."""
        super().__init__(scope, stack_name, spec=spec)
        self.team = team
        org = spec.organization
        self.add_aws_provider(tags=naming.team_resource_tags(org, team), account=org.account_id)
        workload = home.team(team.name).workload_identity
        home_account = home.organization.account_id
        workload_role_arn = workload.existing_role_arn or team_workload_role_arn(home, team.name)
        self.placed = add_team_placement(
            self,
            inputs=team_stack_inputs(spec),
            team=team,
            hyperpod_cluster_arn=placement.hyperpod_cluster_arn,
            eks_cluster_name=placement.eks_cluster_name,
            # EKS Pod Identity binds a role of the cluster's own account: in the home's account the
            # team's workload role, which trusts the EKS clusters of its placements there
            # (stacks/team.py); in another, a role of this account that assumes it (below).
            workload_scope=self if workload.enabled and home_account == org.account_id else None,
            workload_role_arn=workload_role_arn,
        )
        self.pod_identity_role = None
        if workload.enabled and home_account != org.account_id:
            self.pod_identity_role, self.placed.workload_association = chained_workload_role(
                self,
                spec=spec,
                team=team,
                eks_cluster_name=placement.eks_cluster_name,
                target_role_arn=workload_role_arn,
            )
            cdk.TerraformOutput(
                self,
                "pod_identity_role_arn",
                value=self.pod_identity_role.arn,
                description=f"The role EKS Pod Identity assumes for team {team.name} here, which assumes its "
                f"workload role {workload_role_arn} (whose trust names it)",
            )
        add_quota_outputs(self, team, self.placed.compute_quota, self.placed.existing_compute_quota)
