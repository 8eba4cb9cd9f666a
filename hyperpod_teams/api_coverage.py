"""Where each member of HyperPod's create requests comes from: a spec field, the stacks, or
nowhere, with the reason. tests/test_api_coverage.py reads botocore's SageMaker model (the
version tests/service-models-requirements.txt pins) and fails on a member this table does not
name, so the next addition to the API is a decision, not an accident. Pure data.

Each entry is `"<Shape>.<Member>": (kind, text)`: kind "spec" (text: the spec field, `[]` for a
list's items, checked to exist), "stacks" (text: what the stacks set it to) or "left out" (text:
why).
"""

from __future__ import annotations

#: The request shapes read, and the nested ones a spec section mirrors.
SHAPES = (
    "CreateClusterRequest",
    "ClusterInstanceGroupSpecification",
    "CreateComputeQuotaRequest",
    "ComputeQuotaConfig",
    "ComputeQuotaResourceConfig",
    "ResourceSharingConfig",
    "ComputeQuotaTarget",
    "CreateClusterSchedulerConfigRequest",
    "SchedulerConfig",
)

SLURM = "Slurm orchestration: the platform is HyperPod on EKS"

COVERAGE: dict[str, tuple[str, str]] = {
    # --- CreateCluster
    "CreateClusterRequest.ClusterName": ("spec", "cluster.name"),
    "CreateClusterRequest.InstanceGroups": ("spec", "cluster.instance_groups"),
    "CreateClusterRequest.RestrictedInstanceGroups": (
        "left out",
        "restricted instance groups run SageMaker Nova model customization, not the teams' own workloads",
    ),
    "CreateClusterRequest.RestrictedInstanceGroupsConfig": ("left out", "belongs to RestrictedInstanceGroups"),
    "CreateClusterRequest.VpcConfig": ("spec", "cluster.network"),
    "CreateClusterRequest.Tags": ("stacks", "the shared platform's cost allocation tags (naming.shared_platform_tags)"),
    "CreateClusterRequest.Orchestrator": ("stacks", "the EKS cluster the EKS stack makes or adopts (cluster.eks)"),
    "CreateClusterRequest.NodeRecovery": ("spec", "cluster.node_recovery"),
    "CreateClusterRequest.TieredStorageConfig": (
        "left out",
        "managed tiered checkpointing memory: a per-workload choice the training operator makes, not the platform's",
    ),
    "CreateClusterRequest.NodeProvisioningMode": ("spec", "cluster.node_provisioning_mode"),
    "CreateClusterRequest.ClusterRole": (
        "stacks",
        "the role HyperPod assumes for Karpenter, which the cluster stack makes with cluster.autoscaling "
        "(SageMaker developer guide, 'Create an IAM role for HyperPod autoscaling with Karpenter')",
    ),
    "CreateClusterRequest.AutoScaling": ("spec", "cluster.autoscaling"),
    # --- an instance group
    "ClusterInstanceGroupSpecification.InstanceCount": ("spec", "cluster.instance_groups[].count"),
    "ClusterInstanceGroupSpecification.MinInstanceCount": ("spec", "cluster.instance_groups[].min_count"),
    "ClusterInstanceGroupSpecification.InstanceGroupName": ("spec", "cluster.instance_groups[].name"),
    "ClusterInstanceGroupSpecification.InstanceType": ("spec", "cluster.instance_groups[].instance_type"),
    "ClusterInstanceGroupSpecification.InstanceRequirements": (
        "left out",
        "flexible instance types per group: a group of one type keeps quotas, prices and usage per type exact",
    ),
    "ClusterInstanceGroupSpecification.LifeCycleConfig": (
        "spec",
        "cluster.lifecycle_scripts_s3_uri",
    ),
    "ClusterInstanceGroupSpecification.ExecutionRole": ("stacks", "the cluster stack's node execution role"),
    "ClusterInstanceGroupSpecification.ThreadsPerCore": ("spec", "cluster.instance_groups[].threads_per_core"),
    "ClusterInstanceGroupSpecification.InstanceStorageConfigs": ("spec", "cluster.instance_groups[].ebs_volume_gb"),
    "ClusterInstanceGroupSpecification.OnStartDeepHealthChecks": (
        "spec",
        "cluster.instance_groups[].deep_health_checks",
    ),
    "ClusterInstanceGroupSpecification.TrainingPlanArn": ("spec", "cluster.instance_groups[].training_plan_arn"),
    "ClusterInstanceGroupSpecification.OverrideVpcConfig": (
        "left out",
        "every group in the cluster's subnets: one network for the platform's security groups and endpoints",
    ),
    "ClusterInstanceGroupSpecification.ScheduledUpdateConfig": (
        "spec",
        "cluster.instance_groups[].scheduled_update",
    ),
    "ClusterInstanceGroupSpecification.ImageId": (
        "left out",
        "a custom AMI: the platform runs HyperPod's own AMIs, pinned by image_release_version",
    ),
    "ClusterInstanceGroupSpecification.AutoPatchConfig": ("spec", "cluster.instance_groups[].auto_patch"),
    "ClusterInstanceGroupSpecification.ImageReleaseVersion": (
        "spec",
        "cluster.instance_groups[].image_release_version",
    ),
    "ClusterInstanceGroupSpecification.KubernetesConfig": ("spec", "cluster.instance_groups[].kubernetes"),
    "ClusterInstanceGroupSpecification.SlurmConfig": ("left out", SLURM),
    "ClusterInstanceGroupSpecification.CapacityRequirements": ("spec", "cluster.instance_groups[].capacity"),
    "ClusterInstanceGroupSpecification.NetworkInterface": (
        "left out",
        "EFA interface type per group: HyperPod's default for the instance type",
    ),
    # --- CreateComputeQuota
    "CreateComputeQuotaRequest.Name": ("stacks", "naming.compute_quota_name(team)"),
    "CreateComputeQuotaRequest.Description": ("stacks", "the team's display name"),
    "CreateComputeQuotaRequest.ClusterArn": ("stacks", "the HyperPod cluster's ARN"),
    "CreateComputeQuotaRequest.ComputeQuotaConfig": ("spec", "teams[].compute"),
    "CreateComputeQuotaRequest.ComputeQuotaTarget": ("spec", "teams[].compute.fair_share_weight"),
    "CreateComputeQuotaRequest.ActivationState": ("spec", "teams[].compute.active"),
    "CreateComputeQuotaRequest.Tags": ("stacks", "the team's cost allocation tags (naming.team_resource_tags)"),
    "ComputeQuotaConfig.ComputeQuotaResources": ("spec", "teams[].compute.quota"),
    "ComputeQuotaConfig.ResourceSharingConfig": ("spec", "teams[].compute.sharing"),
    "ComputeQuotaConfig.PreemptTeamTasks": ("spec", "teams[].compute.preempt_team_tasks"),
    "ComputeQuotaResourceConfig.InstanceType": ("spec", "teams[].compute.quota[].instance_type"),
    "ComputeQuotaResourceConfig.Count": ("spec", "teams[].compute.quota[].count"),
    "ComputeQuotaResourceConfig.Accelerators": ("spec", "teams[].compute.quota[].accelerators"),
    "ComputeQuotaResourceConfig.VCpu": ("spec", "teams[].compute.quota[].vcpu"),
    "ComputeQuotaResourceConfig.MemoryInGiB": ("spec", "teams[].compute.quota[].memory_gib"),
    "ComputeQuotaResourceConfig.AcceleratorPartition": ("spec", "teams[].compute.quota[].accelerator_partition"),
    "ResourceSharingConfig.Strategy": ("spec", "teams[].compute.sharing"),
    "ResourceSharingConfig.BorrowLimit": ("spec", "teams[].compute.borrow_limit_percent"),
    "ResourceSharingConfig.AbsoluteBorrowLimits": ("spec", "teams[].compute.absolute_borrow_limits"),
    "ComputeQuotaTarget.TeamName": ("spec", "teams[].name"),
    "ComputeQuotaTarget.FairShareWeight": ("spec", "teams[].compute.fair_share_weight"),
    # --- CreateClusterSchedulerConfig
    "CreateClusterSchedulerConfigRequest.Name": ("stacks", "naming.scheduler_config_name(cluster)"),
    "CreateClusterSchedulerConfigRequest.ClusterArn": ("stacks", "the HyperPod cluster's ARN"),
    "CreateClusterSchedulerConfigRequest.SchedulerConfig": ("spec", "cluster.task_governance"),
    "CreateClusterSchedulerConfigRequest.Description": ("stacks", "names the cluster and hyperpod-teams"),
    "CreateClusterSchedulerConfigRequest.Tags": ("stacks", "the shared platform's cost allocation tags"),
    "SchedulerConfig.PriorityClasses": ("spec", "cluster.task_governance.priority_classes"),
    "SchedulerConfig.FairShare": ("spec", "cluster.task_governance.fair_share"),
    "SchedulerConfig.IdleResourceSharing": ("spec", "cluster.task_governance.idle_resource_sharing"),
}
