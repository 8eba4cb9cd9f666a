"""One team's AWS resources in one stack: its home (constructs/team_home.py) and its place on
one cluster (constructs/team_placement.py), gathered in `TeamEnvironment`."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams.constructs.team_home import (
    DOMAIN_TYPE,
    MIN_IDLE_TIMEOUT_MINUTES,
    ExistingDomain,
    TeamAdminsStudioPolicy,
    TeamData,
    TeamDomain,
    TeamExecutionRole,
    TeamStudioSecurityGroup,
    TeamWorkloadIdentity,
    add_team_budget,
    add_team_home,
)
from hyperpod_teams.constructs.team_placement import ExistingComputeQuota, add_team_placement
from hyperpod_teams.spec.models import Team
from hyperpod_teams.stack_plan import TeamStackInputs

__all__ = [
    "DOMAIN_TYPE",
    "MIN_IDLE_TIMEOUT_MINUTES",
    "ExistingComputeQuota",
    "ExistingDomain",
    "TeamAdminsStudioPolicy",
    "TeamData",
    "TeamDomain",
    "TeamEnvironment",
    "TeamExecutionRole",
    "TeamStudioSecurityGroup",
    "TeamWorkloadIdentity",
]


class TeamEnvironment(Construct):
    """Everything one team gets in AWS, placeable in any TerraformStack with an AWS provider:
    execution role, SageMaker AI domain, compute quota, EKS access entries and budget.

    It takes what the rest of the platform provides as plain values or Terraform references, so a
    stack of one's own can add a team to a cluster managed elsewhere (examples/library/).
    """

    def __init__(
        self,
        scope: Construct,
        id_: str,
        *,
        inputs: TeamStackInputs,
        team: Team,
        hyperpod_cluster_arn: str,
        eks_cluster_name: str,
        group_ids: dict[str, str],
        admins_permission_set_arn: str | None = None,
    ) -> None:
        """`admins_permission_set_arn`: the team admins' permission set, which gets what they
        manage in the team's domain (TeamAdminsStudioPolicy); without it, no such grant."""
        super().__init__(scope, id_)
        home = add_team_home(
            self,
            inputs=inputs,
            team=team,
            eks_cluster_name=eks_cluster_name,
            group_ids=group_ids,
            admins_permission_set_arn=admins_permission_set_arn,
        )
        self.execution_role = home.execution_role
        self.data = home.data
        self.workload = home.workload
        self.domain = home.domain
        self.admins_studio = home.admins_studio
        placed = add_team_placement(
            self,
            inputs=inputs,
            team=team,
            hyperpod_cluster_arn=hyperpod_cluster_arn,
            eks_cluster_name=eks_cluster_name,
            workload_scope=home.workload,
            workload_role_arn=home.workload.role_arn if home.workload else None,
            studio_execution_role_arn=home.execution_role.arn if home.domain else None,
        )
        if home.workload is not None:
            home.workload.association = placed.workload_association
        self.studio_access = placed.studio_access
        self.compute_quota = placed.compute_quota
        self.existing_compute_quota = placed.existing_compute_quota
        self.access_entries = placed.access_entries
        self.budget = add_team_budget(self, organization=inputs.organization, team=team)
