"""`<org>-<cluster>-team-<team>`: a team's place on a cluster other than its home's (spec
`clusters`): its compute quota there, the EKS access entries of its roles, and the binding of its
workload role where the cluster shares the home's account. Its domain, data, roles and budget are
its home stack's (`<org>-team-<team>`, stacks/team.py)."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import naming, policies
from hyperpod_teams.constructs.team_placement import add_team_placement
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.stack_plan import TeamPlacement, team_stack_inputs
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
        workload_role_arn = None
        workload = home.team(team.name).workload_identity
        if workload.enabled and home.organization.account_id == org.account_id:
            # EKS Pod Identity binds a role of the cluster's own account: the team's home role, which
            # trusts the EKS clusters of its placements in that account (stacks/team.py).
            workload_role_arn = workload.existing_role_arn or (
                f"arn:{policies.aws_partition(org.region)}:iam::{org.account_id}:role/"
                f"{naming.team_workload_role_name(org.name, team.name)}"
            )
        self.placed = add_team_placement(
            self,
            inputs=team_stack_inputs(spec),
            team=team,
            hyperpod_cluster_arn=placement.hyperpod_cluster_arn,
            eks_cluster_name=placement.eks_cluster_name,
            workload_scope=self if workload_role_arn else None,
            workload_role_arn=workload_role_arn,
        )
        add_quota_outputs(self, team, self.placed.compute_quota, self.placed.existing_compute_quota)
