"""HyperPod resources that Terraform reaches through Cloud Control, as typed models.

The pinned AWS bindings have no HyperPod cluster, compute quota or scheduler config resource; the
CloudFormation types `AWS::SageMaker::Cluster`, `AWS::SageMaker::ComputeQuota` and
`AWS::SageMaker::ClusterSchedulerConfig` are managed with `aws_cloudcontrolapi_resource`, whose
`desired_state` is a JSON document. These models mirror the CloudFormation schemas (aliases are
the exact property names), so a wrong or misspelled property fails here, in Python, not at deploy.
Pure layer: no cdktf.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from hyperpod_teams import naming
from hyperpod_teams.spec.fields import InstanceGroup, ResourceAmount, RollingUpdate
from hyperpod_teams.spec.models import Organization, PlatformSpec, Team

CLUSTER_TYPE = "AWS::SageMaker::Cluster"


def cluster_name_identifier(name: str) -> str:
    """A HyperPod cluster's Cloud Control identifier by its name. The type's primary identifier is
    ClusterArn; ClusterName is among its additionalIdentifiers, and the Cloud Control user guide
    ("Identifying resources") says secondary identifiers are given as JSON: `{"ClusterName": ...}`
    (a bare name would be read as the ARN)."""
    return json.dumps({"ClusterName": name})


SCHEDULER_CONFIG_TYPE = "AWS::SageMaker::ClusterSchedulerConfig"
COMPUTE_QUOTA_TYPE = "AWS::SageMaker::ComputeQuota"


class CfnModel(BaseModel):
    """A CloudFormation property object: only its own properties, written by their CFN names."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    def desired_state(self) -> str:
        """The Cloud Control `desired_state`: compact JSON, unset properties left out."""
        return json.dumps(self.model_dump(by_alias=True, exclude_none=True), separators=(",", ":"))


class Tag(CfnModel):
    key: str = Field(alias="Key", min_length=1, max_length=128)
    value: str = Field(alias="Value", max_length=256)


def tag_list(tags: dict[str, str]) -> list[Tag]:
    return [Tag(key=k, value=v) for k, v in sorted(tags.items())]


# --- AWS::SageMaker::Cluster -----------------------------------------------------------------


class ClusterEbsVolumeConfig(CfnModel):
    volume_size_in_gb: int = Field(alias="VolumeSizeInGB", ge=1, le=16384)
    volume_kms_key_id: str | None = Field(default=None, alias="VolumeKmsKeyId", max_length=2048)


class ClusterKubernetesTaint(CfnModel):
    key: str = Field(alias="Key")
    value: str | None = Field(default=None, alias="Value")
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = Field(alias="Effect")


class ClusterKubernetesConfig(CfnModel):
    labels: dict[str, str] | None = Field(default=None, alias="Labels")
    taints: list[ClusterKubernetesTaint] | None = Field(default=None, alias="Taints", max_length=50)


class CapacitySizeConfig(CfnModel):
    type: Literal["INSTANCE_COUNT", "CAPACITY_PERCENTAGE"] = Field(alias="Type")
    value: int = Field(alias="Value", ge=1)


class RollingUpdatePolicy(CfnModel):
    maximum_batch_size: CapacitySizeConfig = Field(alias="MaximumBatchSize")


class DeploymentConfig(CfnModel):
    rolling_update_policy: RollingUpdatePolicy | None = Field(default=None, alias="RollingUpdatePolicy")
    wait_interval_in_seconds: int | None = Field(default=None, alias="WaitIntervalInSeconds", ge=0, le=3600)


class ScheduledUpdateConfig(CfnModel):
    schedule_expression: str = Field(alias="ScheduleExpression", max_length=256)
    deployment_config: DeploymentConfig | None = Field(default=None, alias="DeploymentConfig")


class AutoPatchConfig(CfnModel):
    patching_strategy: Literal["WhenIdle", "WhenAllIdle"] = Field(alias="PatchingStrategy")
    deployment_config: DeploymentConfig | None = Field(default=None, alias="DeploymentConfig")


class ClusterCapacityRequirements(CfnModel):
    spot: dict | None = Field(default=None, alias="Spot")
    on_demand: dict | None = Field(default=None, alias="OnDemand")


class ClusterAutoScalingConfig(CfnModel):
    mode: Literal["Enable", "Disable"] = Field(alias="Mode")
    auto_scaler_type: Literal["Karpenter"] | None = Field(default=None, alias="AutoScalerType")


class ClusterInstanceStorageConfig(CfnModel):
    ebs_volume_config: ClusterEbsVolumeConfig = Field(alias="EbsVolumeConfig")


class ClusterLifeCycleConfig(CfnModel):
    source_s3_uri: str = Field(alias="SourceS3Uri", max_length=1024)
    on_create: str = Field(alias="OnCreate", min_length=1, max_length=128)


class ClusterInstanceGroup(CfnModel):
    instance_group_name: str = Field(alias="InstanceGroupName", pattern=r"^[a-zA-Z0-9](-*[a-zA-Z0-9])*$", max_length=63)
    instance_type: str = Field(alias="InstanceType")
    instance_count: int = Field(alias="InstanceCount", ge=0)
    execution_role: str = Field(alias="ExecutionRole")
    life_cycle_config: ClusterLifeCycleConfig = Field(alias="LifeCycleConfig")
    threads_per_core: int = Field(alias="ThreadsPerCore", ge=1, le=2)
    instance_storage_configs: list[ClusterInstanceStorageConfig] = Field(alias="InstanceStorageConfigs", max_length=1)
    on_start_deep_health_checks: (
        list[Literal["InstanceStress", "InstanceConnectivity", "MultiNodeTrainingValidation"]] | None
    ) = Field(default=None, alias="OnStartDeepHealthChecks", max_length=3)
    min_instance_count: int | None = Field(default=None, alias="MinInstanceCount", ge=0)
    kubernetes_config: ClusterKubernetesConfig | None = Field(default=None, alias="KubernetesConfig")
    training_plan_arn: str | None = Field(default=None, alias="TrainingPlanArn")
    capacity_requirements: ClusterCapacityRequirements | None = Field(default=None, alias="CapacityRequirements")
    image_release_version: str | None = Field(default=None, alias="ImageReleaseVersion")
    scheduled_update_config: ScheduledUpdateConfig | None = Field(default=None, alias="ScheduledUpdateConfig")
    auto_patch_config: AutoPatchConfig | None = Field(default=None, alias="AutoPatchConfig")


class ClusterOrchestratorEksConfig(CfnModel):
    cluster_arn: str = Field(alias="ClusterArn")


class Orchestrator(CfnModel):
    eks: ClusterOrchestratorEksConfig = Field(alias="Eks")


class VpcConfig(CfnModel):
    security_group_ids: list[str] = Field(alias="SecurityGroupIds", min_length=1, max_length=5)
    subnets: list[str] = Field(alias="Subnets", min_length=1, max_length=16)


class ClusterProperties(CfnModel):
    cluster_name: str = Field(alias="ClusterName", pattern=r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")
    instance_groups: list[ClusterInstanceGroup] = Field(alias="InstanceGroups", min_length=1)
    node_recovery: Literal["Automatic", "None"] = Field(alias="NodeRecovery")
    orchestrator: Orchestrator = Field(alias="Orchestrator")
    vpc_config: VpcConfig = Field(alias="VpcConfig")
    tags: list[Tag] = Field(alias="Tags", max_length=50)
    auto_scaling: ClusterAutoScalingConfig | None = Field(default=None, alias="AutoScaling")
    cluster_role: str | None = Field(default=None, alias="ClusterRole")
    node_provisioning_mode: Literal["Continuous"] | None = Field(default=None, alias="NodeProvisioningMode")


#: Create-only properties of AWS::SageMaker::Cluster: the union of the resource schema's
#: `createOnlyProperties` in hashicorp/terraform-provider-awscc
#: (internal/service/cloudformation/schemas/AWS_SageMaker_Cluster.json: ClusterName, VpcConfig,
#: Orchestrator, and per instance group ExecutionRole, InstanceGroupName, InstanceType,
#: ThreadsPerCore) and the newer one in pulumi/pulumi-aws-native (ClusterName, VpcConfig,
#: Orchestrator/Eks). The union: a change either schema refuses must never reach apply as an update.
CLUSTER_CREATE_ONLY = ("ClusterName", "VpcConfig", "Orchestrator")
INSTANCE_GROUP_CREATE_ONLY = ("ExecutionRole", "InstanceType", "ThreadsPerCore")
INSTANCE_GROUP_FIELD_PREFIX = "InstanceGroups_"
#: Address prefix of the guard of each create-only field (constructs/hyperpod.py CreateOnlyGuards);
#: the plan summary names the field of a replaced guard by it.
CREATE_ONLY_GUARD = "terraform_data.create_only_"


def create_only_fields(cluster: ClusterProperties) -> dict[str, object]:
    """The create-only values of a cluster, one entry per guard: `ClusterName`, `VpcConfig`,
    `Orchestrator`, and `InstanceGroups_<group>` per instance group (a group is matched by its
    name, which is create-only itself: a renamed group is a new group)."""
    document = cluster.model_dump(by_alias=True, exclude_none=True)
    fields: dict[str, object] = {name: document[name] for name in CLUSTER_CREATE_ONLY}
    for group in document["InstanceGroups"]:
        fields[f"{INSTANCE_GROUP_FIELD_PREFIX}{group['InstanceGroupName']}"] = {
            name: group[name] for name in INSTANCE_GROUP_CREATE_ONLY
        }
    return fields


def hyperpod_cluster(
    spec: PlatformSpec,
    *,
    eks_cluster_arn: str,
    execution_role_arn: str,
    lifecycle_s3_uri: str,
    cluster_role_arn: str | None = None,
) -> ClusterProperties:
    cluster = spec.cluster
    return ClusterProperties(
        cluster_name=cluster.name,
        instance_groups=[
            ClusterInstanceGroup(
                instance_group_name=group.name,
                instance_type=group.instance_type,
                instance_count=group.count,
                execution_role=execution_role_arn,
                life_cycle_config=ClusterLifeCycleConfig(
                    source_s3_uri=lifecycle_s3_uri, on_create=cluster.lifecycle_on_create
                ),
                threads_per_core=group.threads_per_core,
                instance_storage_configs=[
                    ClusterInstanceStorageConfig(
                        ebs_volume_config=ClusterEbsVolumeConfig(
                            volume_size_in_gb=group.ebs_volume_gb, volume_kms_key_id=group.volume_kms_key_id
                        )
                    )
                ],
                on_start_deep_health_checks=list(group.deep_health_checks) or None,
                **_group_additions(group),
            )
            for group in cluster.instance_groups
        ],
        node_recovery=cluster.node_recovery,
        auto_scaling=ClusterAutoScalingConfig(mode="Enable", auto_scaler_type=cluster.autoscaling)
        if cluster.autoscaling
        else None,
        node_provisioning_mode=cluster.node_provisioning_mode,
        cluster_role=cluster_role_arn if cluster.autoscaling else None,
        orchestrator=Orchestrator(eks=ClusterOrchestratorEksConfig(cluster_arn=eks_cluster_arn)),
        # Both lists are `insertionOrder: false` in the registry schema of AWS::SageMaker::Cluster
        # (cfn-lint's bundled copy): their order is no change to AWS, so it is none to the stacks
        # either. Sorted, a reordered spec keeps the desired state and the VpcConfig guard as they
        # are, where the spec's own order would trip the create-only guard.
        vpc_config=VpcConfig(
            security_group_ids=sorted(cluster.network.security_group_ids), subnets=sorted(cluster.network.subnet_ids)
        ),
        tags=tag_list(naming.shared_platform_tags(spec.organization)),
    )


def _deployment(rolling: RollingUpdate | None) -> DeploymentConfig | None:
    if rolling is None:
        return None
    size = CapacitySizeConfig(
        type="INSTANCE_COUNT" if rolling.unit == "nodes" else "CAPACITY_PERCENTAGE", value=rolling.max_batch
    )
    return DeploymentConfig(
        rolling_update_policy=RollingUpdatePolicy(maximum_batch_size=size),
        wait_interval_in_seconds=rolling.wait_seconds,
    )


def _group_additions(group: InstanceGroup) -> dict:
    """The instance group's fields of the newer API, each only when the spec sets it."""
    nodes = group.kubernetes
    return {
        "min_instance_count": group.min_count,
        "kubernetes_config": ClusterKubernetesConfig(
            labels=dict(nodes.labels) or None,
            taints=[ClusterKubernetesTaint(key=t.key, value=t.value, effect=t.effect) for t in nodes.taints] or None,
        )
        if nodes and (nodes.labels or nodes.taints)
        else None,
        "training_plan_arn": group.training_plan_arn,
        "capacity_requirements": ClusterCapacityRequirements(spot={})
        if group.capacity == "spot"
        else ClusterCapacityRequirements(on_demand={})
        if group.capacity == "on_demand"
        else None,
        "image_release_version": group.image_release_version,
        "scheduled_update_config": ScheduledUpdateConfig(
            schedule_expression=group.scheduled_update.schedule,
            deployment_config=_deployment(group.scheduled_update.rolling),
        )
        if group.scheduled_update
        else None,
        "auto_patch_config": AutoPatchConfig(
            patching_strategy=group.auto_patch.strategy, deployment_config=_deployment(group.auto_patch.rolling)
        )
        if group.auto_patch
        else None,
    }


# --- AWS::SageMaker::ClusterSchedulerConfig --------------------------------------------------


class PriorityClass(CfnModel):
    name: str = Field(alias="Name")
    weight: int = Field(alias="Weight", ge=0, le=100)


class SchedulerConfig(CfnModel):
    priority_classes: list[PriorityClass] | None = Field(default=None, alias="PriorityClasses", max_length=10)
    fair_share: Literal["Enabled", "Disabled"] = Field(alias="FairShare")
    idle_resource_sharing: Literal["Enabled", "Disabled"] | None = Field(default=None, alias="IdleResourceSharing")


class ClusterSchedulerConfigProperties(CfnModel):
    name: str = Field(alias="Name", pattern=r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")
    cluster_arn: str = Field(alias="ClusterArn")
    scheduler_config: SchedulerConfig = Field(alias="SchedulerConfig")
    description: str | None = Field(default=None, alias="Description", max_length=256)
    tags: list[Tag] = Field(alias="Tags", max_length=50)


def scheduler_config(spec: PlatformSpec, *, cluster_arn: str) -> ClusterSchedulerConfigProperties:
    governance = spec.cluster.task_governance
    return ClusterSchedulerConfigProperties(
        name=naming.scheduler_config_name(spec.cluster.name),
        cluster_arn=cluster_arn,
        scheduler_config=SchedulerConfig(
            priority_classes=[PriorityClass(name=c.name, weight=c.weight) for c in governance.priority_classes] or None,
            fair_share=governance.fair_share,
            idle_resource_sharing=governance.idle_resource_sharing,
        ),
        description=f"Task governance of {spec.cluster.name} (hyperpod-teams)",
        tags=tag_list(naming.shared_platform_tags(spec.organization)),
    )


# --- AWS::SageMaker::ComputeQuota ------------------------------------------------------------


class AcceleratorPartitionConfig(CfnModel):
    type: str = Field(alias="Type")
    count: int = Field(alias="Count", ge=0, le=10_000_000)


class ComputeQuotaResourceConfig(CfnModel):
    instance_type: str = Field(alias="InstanceType")
    count: int | None = Field(default=None, alias="Count", ge=0, le=10_000_000)
    accelerators: int | None = Field(default=None, alias="Accelerators", ge=0, le=10_000_000)
    v_cpu: float | None = Field(default=None, alias="VCpu", ge=0, le=10_000_000)
    memory_in_gib: float | None = Field(default=None, alias="MemoryInGiB", ge=0, le=10_000_000)
    accelerator_partition: AcceleratorPartitionConfig | None = Field(default=None, alias="AcceleratorPartition")


def resource_config(amount: ResourceAmount) -> ComputeQuotaResourceConfig:
    """A quota's (or borrow limit's) amount of one instance type, as the API takes it."""
    partition = amount.accelerator_partition
    return ComputeQuotaResourceConfig(
        instance_type=amount.instance_type,
        count=amount.count,
        accelerators=amount.accelerators,
        v_cpu=amount.vcpu,
        memory_in_gib=amount.memory_gib,
        accelerator_partition=AcceleratorPartitionConfig(type=partition.type, count=partition.count)
        if partition
        else None,
    )


class ResourceSharingConfig(CfnModel):
    strategy: Literal["Lend", "DontLend", "LendAndBorrow"] = Field(alias="Strategy")
    borrow_limit: int | None = Field(default=None, alias="BorrowLimit", ge=0, le=10000)
    absolute_borrow_limits: list[ComputeQuotaResourceConfig] | None = Field(
        default=None, alias="AbsoluteBorrowLimits", max_length=15
    )


class ComputeQuotaConfig(CfnModel):
    compute_quota_resources: list[ComputeQuotaResourceConfig] = Field(alias="ComputeQuotaResources", max_length=15)
    resource_sharing_config: ResourceSharingConfig = Field(alias="ResourceSharingConfig")
    preempt_team_tasks: Literal["Never", "LowerPriority"] = Field(alias="PreemptTeamTasks")


class ComputeQuotaTarget(CfnModel):
    team_name: str = Field(alias="TeamName", pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9]){0,39}?$")
    fair_share_weight: int = Field(alias="FairShareWeight", ge=0, le=100)


class ComputeQuotaProperties(CfnModel):
    name: str = Field(alias="Name", pattern=r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")
    cluster_arn: str = Field(alias="ClusterArn")
    compute_quota_config: ComputeQuotaConfig = Field(alias="ComputeQuotaConfig")
    compute_quota_target: ComputeQuotaTarget = Field(alias="ComputeQuotaTarget")
    activation_state: Literal["Enabled", "Disabled"] = Field(alias="ActivationState")
    description: str | None = Field(default=None, alias="Description", max_length=256)
    tags: list[Tag] = Field(alias="Tags", max_length=50)


def compute_quota(
    organization: Organization, team: Team, *, cluster_arn: str, cluster: str | None = None
) -> ComputeQuotaProperties:
    """The team's compute quota on the cluster `cluster_arn`; `cluster`: the cluster's qualifier
    (PlatformSpec.cluster_qualifier), which its name carries with several clusters."""
    compute = team.compute
    return ComputeQuotaProperties(
        name=naming.compute_quota_name(team.name, cluster=cluster),
        cluster_arn=cluster_arn,
        compute_quota_config=ComputeQuotaConfig(
            compute_quota_resources=[resource_config(q) for q in compute.quota],
            resource_sharing_config=ResourceSharingConfig(
                strategy=compute.sharing,
                borrow_limit=compute.borrow_limit,
                absolute_borrow_limits=[resource_config(limit) for limit in compute.absolute_borrow_limits] or None,
            ),
            preempt_team_tasks=compute.preempt_team_tasks,
        ),
        compute_quota_target=ComputeQuotaTarget(team_name=team.name, fair_share_weight=compute.fair_share_weight),
        activation_state="Enabled" if compute.active else "Disabled",
        description=f"Compute quota of team {team.title} (hyperpod-teams)"[:256],
        tags=tag_list(naming.team_resource_tags(organization, team)),
    )
