"""The cluster's `instance_groups`: each group's type, count and volumes, its Kubernetes labels and
taints, training plan, capacity, AMI release and the updates HyperPod rolls over it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    Field,
    field_validator,
    model_validator,
)

from hyperpod_teams.spec.field_types import ClusterInstanceType, ResourceName, SpecModel, optional, pattern, spec_rule

#: botocore's DeepHealthCheckType (the API); the CloudFormation registry's AWS::SageMaker::Cluster
#: lists the first two, and `validate` says so of the third (what Cloud Control checks).
DeepHealthCheck = Literal["InstanceStress", "InstanceConnectivity", "MultiNodeTrainingValidation"]


#: A Kubernetes label or taint key and value, as botocore's ClusterKubernetesLabelKey/Value and
#: TaintKey/Value take them (the Kubernetes rules for label keys and values).
KubernetesKey = Annotated[
    str,
    pattern(
        r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$",
        "a Kubernetes label key: an optional DNS prefix and /, then a name of letters, digits, -, _ and . that starts "
        "and ends with a letter or digit",
        min_length=1,
        max_length=317,
    ),
]


KubernetesValue = Annotated[
    str,
    pattern(
        r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$",
        "a Kubernetes label value: letters, digits, -, _ and ., starting and ending with a letter or digit",
        min_length=1,
        max_length=63,
    ),
]


TrainingPlanArn = Annotated[
    str,
    pattern(
        r"^arn:aws[a-z\-]*:sagemaker:[a-z0-9\-]*:[0-9]{12}:training-plan/.*$",
        "a SageMaker training plan ARN, arn:aws:sagemaker:<region>:<account>:training-plan/<name>",
        min_length=50,
        max_length=2048,
    ),
]


KmsKeyRef = Annotated[
    str,
    pattern(r"^[a-zA-Z0-9:/_-]*$", "a KMS key ID or ARN (letters, digits, :, /, _ and -)", max_length=2048),
]


ImageReleaseVersion = Annotated[
    str,
    pattern(r"^[0-9]+\.[0-9]+\.[0-9]+$", "a HyperPod AMI release version MAJOR.MINOR.PATCH, such as 1.2.3"),
]


#: The registry schema's ScheduledUpdateConfig.ScheduleExpression pattern (AWS::SageMaker::Cluster).
CronExpression = Annotated[
    str,
    pattern(
        r"^cron\((?:[0-5][0-9]|[0-9]|) (?:[01][0-9]|2[0-3]|[0-9]) (?:[1-9]|0[1-9]|[12][0-9]|3[01]|\?) "
        r"(?:[1-9]|0[1-9]|1[0-2]|\*|\*/(?:[1-9]|1[0-2])|) (?:MON|TUE|WED|THU|FRI|SAT|SUN|[1-7]|\?|L|(?:[1-7]#[1-5])|"
        r"(?:[1-7]L)) (?:20[2-9][0-9]|\*|)\)$",
        "a cron expression cron(minute hour day-of-month month day-of-week year), such as cron(0 3 ? * SUN *)",
        max_length=256,
    ),
]


class Taint(SpecModel):
    key: KubernetesKey
    value: KubernetesValue | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


class KubernetesNodes(SpecModel):
    """Labels and taints HyperPod puts on the group's nodes (ClusterKubernetesConfig)."""

    labels: dict[KubernetesKey, KubernetesValue] = Field(default_factory=dict, max_length=50)
    taints: list[Taint] = Field(default_factory=list, max_length=50)

    @field_validator("taints")
    @classmethod
    def _one_taint_per_key_and_effect(cls, taints: list[Taint]) -> list[Taint]:
        keys = [(t.key, t.effect) for t in taints]
        if len(set(keys)) != len(keys):
            raise spec_rule("a taint key is listed twice with one effect (Kubernetes keeps one)")
        return taints


class RollingUpdate(SpecModel):
    """How many nodes an AMI update takes at a time (DeploymentConfig.RollingUpdatePolicy)."""

    max_batch: int = Field(ge=1, description="Nodes, or percent with `unit: percent`.")
    unit: Literal["nodes", "percent"] = "nodes"
    wait_seconds: int | None = optional("Between batches.", ge=0, le=3600)


class ScheduledUpdate(SpecModel):
    """When SageMaker updates the group's AMI (ScheduledUpdateConfig)."""

    schedule: CronExpression
    rolling: RollingUpdate | None = None


class AutoPatch(SpecModel):
    """Workload-aware patching of the group's AMI (AutoPatchConfig)."""

    strategy: Literal["WhenIdle", "WhenAllIdle"]
    rolling: RollingUpdate | None = None


class InstanceGroup(SpecModel):
    name: ResourceName
    instance_type: ClusterInstanceType
    count: int = Field(ge=0, le=1000, description="Nodes in the group.")
    ebs_volume_gb: int = Field(default=500, ge=1, le=16384)
    threads_per_core: Literal[1, 2] = 1
    deep_health_checks: list[DeepHealthCheck] = Field(default_factory=list, max_length=3)
    min_count: int | None = optional(
        "(addition) Nodes the group needs to be InService (MinInstanceCount).", ge=0, le=1000
    )
    kubernetes: KubernetesNodes | None = optional(
        "(addition) Labels and taints on the group's nodes: keep system pods off GPU nodes, dedicate a "
        "group to inference, training or spaces. Teams steer to a group with its labels (docs/spec-reference.md)."
    )
    training_plan_arn: TrainingPlanArn | None = optional(
        "(addition) Run the group on a SageMaker flexible training plan's capacity."
    )
    capacity: Literal["on_demand", "spot"] | None = optional(
        "(addition) Spot or on-demand nodes (CapacityRequirements); unset: on demand."
    )
    volume_kms_key_id: KmsKeyRef | None = optional("(addition) The KMS key of the nodes' EBS volume (VolumeKmsKeyId).")
    image_release_version: ImageReleaseVersion | None = optional(
        "(addition) The HyperPod AMI release the group runs; unset: the latest."
    )
    scheduled_update: ScheduledUpdate | None = optional(
        "(addition) A window in which SageMaker updates the group's AMI."
    )
    auto_patch: AutoPatch | None = optional("(addition) Patch the group's AMI when its nodes are idle.")

    @property
    def platform_taints(self) -> list[Taint]:
        """The group's taints that keep pods off its nodes (NoSchedule, NoExecute)."""
        taints = self.kubernetes.taints if self.kubernetes else []
        return [t for t in taints if t.effect in ("NoSchedule", "NoExecute")]

    @field_validator("deep_health_checks")
    @classmethod
    def _no_repeats(cls, checks: list[str]) -> list[str]:
        if len(set(checks)) != len(checks):
            raise spec_rule("each deep health check may be listed once")
        return checks

    @model_validator(mode="after")
    def _what_requires_what(self) -> InstanceGroup:
        if self.min_count is not None and self.min_count > self.count:
            raise spec_rule(
                f"min_count {self.min_count} is more than the group's count {self.count}",
                field="min_count",
                hint="MinInstanceCount must be at most InstanceCount",
            )
        if self.training_plan_arn and self.capacity == "spot":
            raise spec_rule(
                "a training plan's capacity is reserved, not Spot",
                field="capacity",
                hint="remove capacity, or the training plan",
            )
        return self
