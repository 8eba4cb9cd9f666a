"""The spec's `cluster` section: the EKS cluster (created or existing), its network, task governance,
timeouts, and the HyperPod cluster with its instance groups and add-ons.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    Field,
    model_validator,
)

from hyperpod_teams.spec.cluster_addons import DependenciesChart, Inference, Observability, Spaces, TrainingOperator
from hyperpod_teams.spec.field_types import (
    KubernetesPriorityClassName,
    KubernetesVersion,
    PriorityClassName,
    PublicCidr,
    ResourceName,
    S3Prefix,
    SchedulerConfigArn,
    SecurityGroupId,
    SpecModel,
    SubnetId,
    VpcId,
    optional,
    pattern,
    spec_rule,
)
from hyperpod_teams.spec.instance_groups import InstanceGroup


class Eks(SpecModel):
    """Exactly one of `create` / `existing_cluster_name`."""

    create: bool | None = optional("Create a new EKS cluster. Default: true unless existing_cluster_name is set.")
    kubernetes_version: KubernetesVersion = "1.32"
    existing_cluster_name: str | None = Field(default=None, pattern=r"^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$")
    public_access_cidrs: list[PublicCidr] = Field(
        default_factory=list,
        max_length=40,
        description="(optional addition) Address ranges outside the VPC that may reach the created "
        "cluster's Kubernetes API, e.g. the pipeline's egress. Default: none, the API is private "
        "to the VPC.",
    )

    @model_validator(mode="after")
    def _exactly_one_source(self) -> Eks:
        if self.existing_cluster_name is not None and self.create:
            raise spec_rule(
                "create and existing_cluster_name are mutually exclusive",
                field="create",
                hint="remove `create: true` to use the existing cluster, or remove existing_cluster_name to create one",
            )
        if self.existing_cluster_name is not None and self.public_access_cidrs:
            raise spec_rule(
                "public_access_cidrs applies only to a cluster this spec creates",
                field="public_access_cidrs",
                hint="set the existing cluster's endpoint access where that cluster is managed",
            )
        if self.existing_cluster_name is None and self.create is False:
            raise spec_rule(
                "exactly one of create and existing_cluster_name must be set",
                field="existing_cluster_name",
                hint="set existing_cluster_name to the EKS cluster to use, or set `create: true`",
            )
        return self

    @property
    def creates_cluster(self) -> bool:
        return self.existing_cluster_name is None


class Network(SpecModel):
    vpc_id: VpcId
    subnet_ids: list[SubnetId] = Field(min_length=1, max_length=16)
    security_group_ids: list[SecurityGroupId] = Field(min_length=1, max_length=5)


class PriorityClass(SpecModel):
    name: PriorityClassName
    weight: int = Field(ge=0, le=100)


class TaskGovernance(SpecModel):
    enabled: bool = True
    fair_share: Literal["Enabled", "Disabled"] = "Enabled"
    idle_resource_sharing: Literal["Enabled", "Disabled"] | None = optional(
        "(addition) Enabled lends capacity no team's quota holds to any team's tasks "
        "(SchedulerConfig.IdleResourceSharing); unset leaves AWS's default."
    )
    priority_classes: list[PriorityClass] = Field(default_factory=list, max_length=10)
    allow_unlisted_region: bool = Field(
        default=False,
        description="(optional addition) Deploy compute quotas and the scheduler config in a region "
        "that is not in hyperpod_teams.regions.TASK_GOVERNANCE_REGIONS, for a region AWS added after "
        "that table was written. Without it, validate refuses such a region.",
    )
    existing_addon: Literal["take_over", "leave_alone"] | None = optional(
        "(optional addition) The task-governance add-on is installed already: take_over imports it "
        "(the stacks manage it from then on), leave_alone keeps it out of the stacks. Absent: the stacks create it."
    )
    existing_scheduler_config_arn: SchedulerConfigArn | None = optional(
        "(optional addition) The cluster's scheduler config exists already (a cluster has one): the "
        "stacks create none and keep it as it is, and the plan stops when its fair share or priority classes "
        "differ from fair_share and priority_classes here. Needs existing_hyperpod_cluster_name."
    )


Duration = Annotated[str, pattern(r"^[1-9][0-9]{0,4}[mh]$", "a whole number of minutes or hours, such as 720m or 12h")]


class ClusterTimeouts(SpecModel):
    """How long Terraform waits for Cloud Control on the HyperPod cluster. CloudFormation's
    handlers for AWS::SageMaker::Cluster allow 720 minutes each (the resource schema's
    `handlers.*.timeoutInMinutes`); Terraform's default of 2 hours is too short for a large
    cluster with deep health checks."""

    create: Duration = "720m"
    update: Duration = "720m"
    delete: Duration = "720m"


#: Settings only a HyperPod cluster the stacks create uses: refused when the spec adopts one.
CREATED_CLUSTER_ONLY = (
    "autoscaling",
    "node_provisioning_mode",
    "lifecycle_scripts_s3_uri",
    "lifecycle_on_create",
    "node_recovery",
    "timeouts",
    "allow_destroy",
    "cloudwatch_observability",
    "retired_instance_groups",
)


CREATED_INSTANCE_GROUP_ONLY = (
    "ebs_volume_gb",
    "threads_per_core",
    "deep_health_checks",
    "min_count",
    "kubernetes",
    "training_plan_arn",
    "capacity",
    "volume_kms_key_id",
    "image_release_version",
    "scheduled_update",
    "auto_patch",
)


class Cluster(SpecModel):
    name: ResourceName
    existing_hyperpod_cluster_name: ResourceName | None = optional(
        "(optional addition) Adopt this HyperPod cluster instead of creating one: the stacks look it "
        "up and create nothing of it. Needs eks.existing_cluster_name (its EKS cluster); instance_groups then "
        "describe its groups (name, type, count) for the capacity checks and the report."
    )
    eks: Eks = Field(default_factory=Eks)
    network: Network
    lifecycle_scripts_s3_uri: S3Prefix | None = optional("When absent, a lifecycle-scripts bucket is created.")
    lifecycle_on_create: str = Field(
        default="on_create.sh",
        min_length=1,
        max_length=128,
        description="Entry-point script under the lifecycle-scripts prefix (optional field).",
    )
    node_recovery: Literal["Automatic", "None"] = "Automatic"
    autoscaling: Literal["Karpenter"] | None = optional(
        "(addition) Scale the instance groups with Karpenter (AutoScaling: Mode Enable); unset: off."
    )
    node_provisioning_mode: Literal["Continuous"] | None = optional(
        "(addition) Continuous provisioning: nodes are added as capacity comes, the cluster InService "
        "before every node is (NodeProvisioningMode)."
    )
    instance_groups: list[InstanceGroup] = Field(min_length=1, max_length=20)
    task_governance: TaskGovernance = Field(default_factory=TaskGovernance)
    dependencies_chart: DependenciesChart = Field(default_factory=DependenciesChart)
    timeouts: ClusterTimeouts = Field(
        default_factory=ClusterTimeouts,
        description="(optional addition) Terraform's create/update/delete timeouts of the HyperPod cluster.",
    )
    allow_destroy: bool = Field(
        default=False,
        description="Lift lifecycle.prevent_destroy from the HyperPod cluster (optional field): "
        "only to delete the cluster on purpose.",
    )
    retired_instance_groups: list[ResourceName] = Field(
        default_factory=list,
        max_length=100,
        description="(optional addition) Deployed instance groups the spec removes or renames on purpose. "
        "SageMaker knows a group by its name: a group that leaves instance_groups is deleted, its nodes "
        "terminated with every job on them (a renamed group is a new one, provisioned from zero). A plan "
        "that drops a deployed group not named here stops with an error naming this field.",
    )
    training_operator: TrainingOperator = Field(
        default_factory=TrainingOperator,
        description="(optional addition) The HyperPod training operator add-on and what it needs.",
    )
    inference: Inference | None = optional(
        "(optional addition) The HyperPod inference operator: teams deploy and invoke models under their "
        "quota. Absent: no inference."
    )
    spaces: Spaces | None = optional(
        "(optional addition) SageMaker Spaces on the cluster: IDEs in the team namespace under its quota."
    )
    observability: Observability | None = optional(
        "(optional addition) The HyperPod observability add-on, Prometheus and Grafana (`hyp get-monitoring`)."
    )
    cloudwatch_observability: bool = Field(
        default=False,
        description="(optional addition) Install the Amazon CloudWatch Observability EKS add-on (Container "
        "Insights: the cluster metrics Studio's HyperPod page shows) and give the instance groups' role "
        "CloudWatchAgentServerPolicy; each team's roles then read their own namespace's container logs. Off "
        "by default: it sends metrics and container logs to CloudWatch, charged per node and per GB.",
    )
    pod_priority_classes: list[KubernetesPriorityClassName] = Field(
        default_factory=list,
        max_length=20,
        description="(addition) The Kubernetes PriorityClasses a team's pods may name (spec.priorityClassName); "
        "empty: none, and team pods run at the cluster's default priority. The kube-scheduler preempts by pod "
        "priority across namespaces, past every quota; a task's priority within task governance is Kueue's "
        "(task_governance.priority_classes).",
    )

    platform_group: ResourceName | None = optional(
        "(addition) The instance group the platform's credentialed controllers run on, apart from the "
        "nodes team pods run on: the inference operator's controller, its load balancer controller and KEDA are "
        "placed there (its nodes' label sagemaker.amazonaws.com/instance-group-name, tolerating its taints), and no "
        "team pod may tolerate its taints. The group needs a NoSchedule or NoExecute taint (kubernetes.taints) and "
        "an instance type no team's quota names. Unset: the controllers run wherever the scheduler puts them "
        '(docs/security.md, "What is still shared").'
    )

    @model_validator(mode="after")
    def _platform_group_is_a_tainted_group_of_the_cluster(self) -> Cluster:
        if self.platform_group is None:
            return self
        group = next((g for g in self.instance_groups if g.name == self.platform_group), None)
        if group is None:
            raise spec_rule(
                f"platform_group {self.platform_group!r} is no group of instance_groups",
                field="platform_group",
                hint=f"name one of {', '.join(g.name for g in self.instance_groups)}",
            )
        if not group.platform_taints:
            raise spec_rule(
                f"instance group {group.name!r} has no NoSchedule or NoExecute taint: team pods would be scheduled "
                "onto the platform's nodes",
                field="platform_group",
                hint=f"give {group.name} a taint, e.g. kubernetes: {{taints: [{{key: hyperpod-teams.io/platform, "
                "value: 'true', effect: NoSchedule}]}",
            )
        return self

    @property
    def platform_instance_group(self) -> InstanceGroup | None:
        """The group of `platform_group`, if the spec names one."""
        return next((g for g in self.instance_groups if g.name == self.platform_group), None)

    @model_validator(mode="after")
    def _autoscaling_provisions_continuously(self) -> Cluster:
        if self.autoscaling and self.node_provisioning_mode != "Continuous":
            raise spec_rule(
                "Karpenter autoscaling adds nodes as capacity comes: HyperPod takes it on a cluster of continuous "
                "provisioning only",
                field="node_provisioning_mode",
                hint="set `node_provisioning_mode: Continuous` (SageMaker developer guide, 'Create and configure a "
                "HyperPod cluster with Karpenter autoscaling')",
            )
        return self

    @model_validator(mode="after")
    def _a_retired_group_is_no_group_of_the_cluster(self) -> Cluster:
        both = sorted({group.name for group in self.instance_groups} & set(self.retired_instance_groups))
        if both:
            raise spec_rule(
                f"{', '.join(both)} {'is' if len(both) == 1 else 'are'} both in instance_groups and retired",
                field="retired_instance_groups",
                hint="a retired group is one the cluster no longer has: remove it from one of the two lists",
            )
        return self

    @model_validator(mode="after")
    def _adopted_cluster_takes_no_creation_settings(self) -> Cluster:
        if self.existing_hyperpod_cluster_name is None:
            return self
        if self.eks.existing_cluster_name is None:
            raise spec_rule(
                "an existing HyperPod cluster runs on an existing EKS cluster, "
                "but eks.existing_cluster_name is not set",
                field="eks",
                hint="set eks.existing_cluster_name to the EKS cluster the HyperPod cluster is orchestrated by "
                "(aws sagemaker describe-cluster --cluster-name "
                f"{self.existing_hyperpod_cluster_name} --query Orchestrator.Eks.ClusterArn)",
            )
        unused = [name for name in CREATED_CLUSTER_ONLY if name in self.model_fields_set]
        unused += [
            f"instance_groups[{i}].{name}"
            for i, group in enumerate(self.instance_groups)
            for name in CREATED_INSTANCE_GROUP_ONLY
            if name in group.model_fields_set
        ]
        if "dependencies_chart" in self.model_fields_set:
            unused.append("dependencies_chart")
        if unused:
            raise spec_rule(
                f"{', '.join(unused)} only apply to a HyperPod cluster the stacks create, but "
                f"existing_hyperpod_cluster_name adopts {self.existing_hyperpod_cluster_name!r}",
                field="existing_hyperpod_cluster_name",
                hint="remove them: the existing cluster keeps its own lifecycle scripts, node recovery, volumes, "
                "health checks and dependency chart",
            )
        return self

    @property
    def installs_dependencies_chart(self) -> bool:
        """An adopted cluster runs its dependency chart already."""
        return self.dependencies_chart.install and not self.adopted

    @property
    def installs_training_operator(self) -> bool:
        """Installed by default on a cluster the stacks create; on an adopted one only when asked."""
        install = self.training_operator.install
        return (not self.adopted) if install is None else install

    @property
    def adopted(self) -> bool:
        """Whether the spec adopts an existing HyperPod cluster rather than creating one."""
        return self.existing_hyperpod_cluster_name is not None

    def capacity_by_instance_type(self) -> dict[str, int]:
        return capacity_by_instance_type(self.instance_groups)


def capacity_by_instance_type(groups: list[InstanceGroup]) -> dict[str, int]:
    """Nodes per instance type, summed over the instance groups."""
    capacity: dict[str, int] = {}
    for group in groups:
        capacity[group.instance_type] = capacity.get(group.instance_type, 0) + group.count
    return capacity
