"""`<org>-team-<team>`: one team's AWS resources, tagged with the team for cost allocation."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from constructs import Construct

from hyperpod_teams import naming
from hyperpod_teams.constructs.team import ExistingComputeQuota, TeamEnvironment
from hyperpod_teams.engine import cdk
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.stack_plan import PlacedWorkload, TeamPlacement, team_stack_inputs
from hyperpod_teams.stacks.base import PlatformStack


class TeamStack(PlatformStack):
    def __init__(
        self,
        scope: Construct,
        stack_name: str,
        *,
        spec: PlatformSpec,
        team: Team,
        placement: TeamPlacement,
        placed: PlacedWorkload | None = None,
    ) -> None:
        """`placed` (several clusters): where the team's other placements reach its workload role
        from (stack_plan.PlacedWorkload)."""
        super().__init__(scope, stack_name, spec=spec)
        self.team = team
        org = spec.organization
        tags = naming.team_resource_tags(org, team)
        self.add_aws_provider(tags=tags, account=org.account_id)
        #: Identity Center's resources of the team (the domain's application assignments, the admins'
        #: policy attachment) go to the account that administers it, when that is another one.
        #: ... or is in another Region (with several clusters, a team whose home is off the
        #: organization's Region: IAM Identity Center's admin APIs answer in its instance's Region).
        center_region = spec.identity_center_region
        self.identity_center_provider = (
            self.add_aws_provider(
                tags=tags,
                account=org.identity_center_account,
                alias="identity_center",
                region=None if center_region == org.region else center_region,
            )
            if org.identity_center_account != org.account_id or center_region != org.region
            else None
        )
        self.environment = TeamEnvironment(
            self,
            "team",
            inputs=replace(team_stack_inputs(spec), placed=placed or PlacedWorkload()),
            team=team,
            **placement.keywords(),
        )
        add_quota_outputs(self, team, self.environment.compute_quota, self.environment.existing_compute_quota)


def add_quota_outputs(
    stack: cdk.TerraformStack, team: Team, compute_quota: Any, existing_compute_quota: ExistingComputeQuota | None
) -> None:
    """What a team needs to see its quota on the stack's cluster: `aws sagemaker
    describe-compute-quota` takes the quota's ID, and task governance's ClusterQueue shows its use
    (`kubectl get clusterqueue`)."""
    if compute_quota is not None:
        quota = compute_quota
        arn, quota_id = quota.id, cdk.Fn.lookup(cdk.Fn.jsondecode(quota.properties), "ComputeQuotaId", "")
        properties = f"{quota.terraform_resource_type}.{stack.get_logical_id(quota)}.properties"
    elif existing_compute_quota is not None:
        arn = team.compute.existing_quota_arn or ""
        quota_id = arn.rsplit("/", 1)[-1]
        lookup = existing_compute_quota.lookup
        properties = f"data.{lookup.terraform_resource_type}.{stack.get_logical_id(lookup)}.properties"
    else:
        return
    # What AWS holds of the quota (Cloud Control's properties, AWS::SageMaker::ComputeQuota):
    # instance counts by type, how the team shares and borrows, whether it preempts its own tasks.
    config = f"try(jsondecode({properties}).ComputeQuotaConfig, {{}})"
    cdk.TerraformOutput(
        stack,
        "compute_quota",
        value=(
            "${{instances = {for r in try(" + config + ".ComputeQuotaResources, []) : r.InstanceType => "
            "try(r.Count, null)}, "
            "accelerators = {for r in try(" + config + ".ComputeQuotaResources, []) : r.InstanceType => "
            "try(r.Accelerators, null)}, "
            "partitions = {for r in try(" + config + ".ComputeQuotaResources, []) : r.InstanceType => "
            'try(format("%d x %s", r.AcceleratorPartition.Count, r.AcceleratorPartition.Type), null)}, '
            "sharing = try(" + config + ".ResourceSharingConfig.Strategy, null), "
            "borrow_limit_percent = try(" + config + ".ResourceSharingConfig.BorrowLimit, null), "
            "absolute_borrow_limits = {for r in try(" + config + ".ResourceSharingConfig.AbsoluteBorrowLimits, "
            "[]) : r.InstanceType => {count = try(r.Count, null), accelerators = try(r.Accelerators, null)}}, "
            "preempts_own_tasks = try(" + config + ".PreemptTeamTasks, null), "
            "activation_state = try(jsondecode(" + properties + ").ActivationState, null)}}"
        ),
        description="What the team's quota guarantees, as AWS holds it: instances, accelerators and GPU "
        "partitions by type, sharing, borrow limits, whether it is active",
    )
    cdk.TerraformOutput(
        stack, "compute_quota_arn", value=arn, description=f"Team {team.name}'s compute quota (task governance)"
    )
    cdk.TerraformOutput(
        stack,
        "compute_quota_id",
        value=quota_id,
        description="aws sagemaker describe-compute-quota --compute-quota-id takes it",
    )
    cdk.TerraformOutput(
        stack,
        "cluster_queue",
        value=naming.team_cluster_queue(team.name),
        description="The team's use of its quota: kubectl get clusterqueue <this> (Kueue, task governance)",
    )
