"""A team's place on a cluster: its compute quota there (task governance), the EKS access entries
of its roles, the binding of its workload role to its service account, and, on the cluster its
Studio domain reaches, the access entry of its execution role. `add_team_placement` adds them to a
scope; `TeamEnvironment` (constructs/team.py) holds a home and a placement in one stack."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from constructs import Construct

from hyperpod_teams import bindings, cloudformation, naming, policies
from hyperpod_teams.adoption import add_tags_command
from hyperpod_teams.constructs.access_entries import SsoRoleAccessEntry, StudioAccessEntry
from hyperpod_teams.constructs.lookups import (
    cloud_control_lookup,
    hcl_literal,
    property_check,
    same_cluster_check,
    tags_check,
)
from hyperpod_teams.constructs.pod_identity import Inline, pod_identity_association, pod_identity_role
from hyperpod_teams.spec.models import Organization, PlatformSpec, Team
from hyperpod_teams.stack_plan import TeamStackInputs


class ExistingComputeQuota(Construct):
    """A team's compute quota that exists already: looked up by its ARN (the primary identifier
    of AWS::SageMaker::ComputeQuota) and kept as it is. As for the scheduler config, the AWS
    provider cannot import a Cloud Control resource; the plan stops when the quota is not the
    team's on this cluster, or its counts or sharing differ from the spec's."""

    def __init__(
        self, scope: Construct, id_: str, *, organization: Organization, team: Team, arn: str, cluster_arn: str
    ) -> None:
        super().__init__(scope, id_)
        compute = team.compute
        tags = naming.team_resource_tags(organization, team)
        where = f"The compute quota {arn} (team {team.name})"
        fix = f"see `aws sagemaker describe-compute-quota --compute-quota-id {arn.rpartition('/')[2]}`"
        counts = {q.instance_type: q.count for q in compute.quota}
        accelerators = {q.instance_type: q.accelerators for q in compute.quota}
        partitions = {
            q.instance_type: f"{q.accelerator_partition.count} x {q.accelerator_partition.type}"
            if q.accelerator_partition
            else None
            for q in compute.quota
        }
        # AWS fills vCPU and memory in proportion where they are not given: compared where given.
        vcpus = {q.instance_type: q.vcpu for q in compute.quota if q.vcpu is not None}
        memory = {q.instance_type: q.memory_gib for q in compute.quota if q.memory_gib is not None}
        amounts = f"{where} guarantees other amounts than teams[].compute.quota"
        self.lookup = cloud_control_lookup(
            self,
            "compute-quota",
            type_name=cloudformation.COMPUTE_QUOTA_TYPE,
            identifier=arn,
            checks=[
                same_cluster_check(cluster_arn, where, fix),
                property_check(
                    "ComputeQuotaTarget.TeamName",
                    team.name,
                    f"{where} is another team's (its ComputeQuotaTarget.TeamName is not {team.name}, and "
                    f"task governance names the namespace after it): {fix}.",
                ),
                property_check(
                    "ComputeQuotaConfig.ComputeQuotaResources",
                    counts,
                    f"{where} guarantees other instance counts than teams[].compute.quota ({counts or 'none'}): "
                    f"{fix}, and make the spec say what runs.",
                    iterate="item.InstanceType => try(item.Count, null)",
                ),
                property_check(
                    "ComputeQuotaConfig.ComputeQuotaResources",
                    accelerators,
                    f"{amounts} (accelerators {accelerators}): {fix}, and make the spec say what runs.",
                    iterate="item.InstanceType => try(item.Accelerators, null)",
                ),
                property_check(
                    "ComputeQuotaConfig.ComputeQuotaResources",
                    partitions,
                    f"{amounts} (GPU partitions {partitions}): {fix}, and make the spec say what runs.",
                    iterate='item.InstanceType => try(format("%d x %s", item.AcceleratorPartition.Count, '
                    "item.AcceleratorPartition.Type), null)",
                ),
                *[
                    property_check(
                        "ComputeQuotaConfig.ComputeQuotaResources",
                        given,
                        f"{amounts} ({name} {given}): {fix}, and make the spec say what runs.",
                        iterate=f"item.InstanceType => try(item.{member}, null) "
                        f"if contains({hcl_literal(list(given))}, item.InstanceType)",
                    )
                    for name, member, given in (("vCPUs", "VCpu", vcpus), ("memory in GiB", "MemoryInGiB", memory))
                    if given
                ],
                # Only where the spec says: a spec of 0.2.0, before `active` was added, adopted a paused
                # quota as it was (docs/spec-versions.md: an addition's default keeps the old meaning).
                *(
                    [
                        property_check(
                            "ActivationState",
                            "Enabled" if compute.active else "Disabled",
                            f"{where} is {'paused' if compute.active else 'active'}, but teams[].compute.active "
                            f"is {str(compute.active).lower()}: {fix}, and make the spec say what runs.",
                        )
                    ]
                    if "active" in compute.model_fields_set
                    else []
                ),
                property_check(
                    "ComputeQuotaConfig.ResourceSharingConfig.Strategy",
                    compute.sharing,
                    f"{where} shares otherwise than teams[].compute.sharing ({compute.sharing}): {fix}, and make "
                    "the spec say what runs.",
                ),
                tags_check(tags, where, add_tags_command(arn, tags, organization.region)),
            ],
        )


def bind_workload_role(scope: Construct, *, team: Team, eks_cluster_name: str, role_arn: str):
    """EKS Pod Identity's association of the team's workload role with its service account
    TEAM_SERVICE_ACCOUNT in the team's namespace on `eks_cluster_name`."""
    pods = (naming.team_namespace(team.name), naming.TEAM_SERVICE_ACCOUNT)
    return pod_identity_association(
        scope, "pod-identity", eks_cluster_name=eks_cluster_name, pods=pods, role_arn=role_arn
    )


def chained_workload_role(
    scope: Construct, *, spec: PlatformSpec, team: Team, eks_cluster_name: str, target_role_arn: str
):
    """On a cluster in another account than the team's home: the role Pod Identity assumes there
    for the team's service account alone (by its session tags), whose one grant is to assume the
    team's workload role at home, and the association naming that role its target (EKS user guide,
    "Access AWS Resources using EKS Pod Identity Target IAM Roles"). The home role trusts this one
    (stack_plan.PlacedWorkload). Answers (role, association)."""
    org = spec.organization
    partition = policies.aws_partition(org.region)
    pods = (naming.team_namespace(team.name), naming.TEAM_SERVICE_ACCOUNT)
    role, granted = pod_identity_role(
        scope,
        role_id="pod-identity-role",
        policy_id="pod-identity-policy",
        name=naming.team_pod_identity_role_name(org.name, team.name, cluster=spec.cluster_qualifier),
        org=org,
        eks_cluster_arn=policies.eks_cluster_arn(partition, org.region, org.account_id, eks_cluster_name),
        policy=Inline("assume-team-workload-role", policies.team_pod_identity_chain_policy(target_role_arn)),
        pods=pods,
    )
    association = pod_identity_association(
        scope,
        "pod-identity",
        eks_cluster_name=eks_cluster_name,
        pods=pods,
        role_arn=role.arn,
        target_role_arn=target_role_arn,
        after=[granted],
    )
    return role, association


@dataclass
class TeamPlacementResources:
    """What `add_team_placement` added (None: the spec or the cluster leaves it out)."""

    workload_association: Any = None
    studio_access: StudioAccessEntry | None = None
    compute_quota: Any = None
    existing_compute_quota: ExistingComputeQuota | None = None
    access_entries: dict[str, SsoRoleAccessEntry] = field(default_factory=dict)


def add_team_placement(
    scope: Construct,
    *,
    inputs: TeamStackInputs,
    team: Team,
    hyperpod_cluster_arn: str,
    eks_cluster_name: str,
    workload_scope: Construct | None = None,
    workload_role_arn: str | None = None,
    studio_execution_role_arn: str | None = None,
) -> TeamPlacementResources:
    """The team on one cluster, as children of `scope`: the workload role `workload_role_arn`
    bound under `workload_scope` (None: no workload identity), the execution role
    `studio_execution_role_arn` admitted to the EKS API (None: the team's domain is elsewhere or
    none), the compute quota, and an access entry per team role."""
    org = inputs.organization
    placed = TeamPlacementResources()
    if workload_scope is not None and workload_role_arn is not None:
        placed.workload_association = bind_workload_role(
            workload_scope, team=team, eks_cluster_name=eks_cluster_name, role_arn=workload_role_arn
        )
    if studio_execution_role_arn is not None:
        placed.studio_access = StudioAccessEntry(
            scope,
            "studio-access",
            team=team,
            execution_role_arn=studio_execution_role_arn,
            eks_cluster_name=eks_cluster_name,
            partition=policies.aws_partition(org.region),
        )
    if inputs.task_governance and team.compute.existing_quota_arn is not None:
        placed.existing_compute_quota = ExistingComputeQuota(
            scope,
            "existing-compute-quota",
            organization=org,
            team=team,
            arn=team.compute.existing_quota_arn,
            cluster_arn=hyperpod_cluster_arn,
        )
    elif inputs.task_governance:
        # Task governance creates the team namespace hyperpod-ns-<team> with this quota.
        placed.compute_quota = bindings.aws_cloudcontrolapi_resource.CloudcontrolapiResource(
            scope,
            "compute-quota",
            type_name=cloudformation.COMPUTE_QUOTA_TYPE,
            desired_state=cloudformation.compute_quota(
                org, team, cluster_arn=hyperpod_cluster_arn, cluster=inputs.cluster_qualifier
            ).desired_state(),
        )
    # Each role's members reach Kubernetes as the role's group, which the team's RBAC binds in
    # its namespace only (hyperpod_teams/rbac.py).
    placed.access_entries = {
        role: SsoRoleAccessEntry(
            scope,
            f"{role}-access",
            permission_set=naming.team_permission_set_name(org.name, team, role),
            eks_cluster_name=eks_cluster_name,
            kubernetes_groups=[naming.team_kubernetes_group(team.name, role)],
            view_namespace=naming.team_namespace(team.name),
            spaces_namespace=naming.team_namespace(team.name) if inputs.spaces else None,
            partition=policies.aws_partition(org.region),
        )
        for role in naming.ROLES
    }
    return placed
