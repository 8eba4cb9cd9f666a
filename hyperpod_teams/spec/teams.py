"""The spec's `teams`: each team's members (IdP groups by role), compute quota (instance counts,
accelerators, vCPUs, memory, GPU partitions, borrowing), Studio, budget, data and workload identity.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import (
    Field,
    field_validator,
    model_validator,
)

from hyperpod_teams import accelerator_partitions, instance_types
from hyperpod_teams.spec.field_types import (
    AmountUsd,
    BucketName,
    ClusterInstanceType,
    ComputeQuotaArn,
    DomainId,
    EmailAddress,
    IamRoleArn,
    InstanceType,
    PermissionSetArn,
    PermissionSetName,
    PriorityClassName,
    SpecModel,
    StudioInstanceType,
    TagValue,
    TeamName,
    optional,
    spec_rule,
)


class Members(SpecModel):
    scientists: str | None = optional("Default: group_name_pattern with role=scientists.", min_length=1)
    admins: str | None = optional("Default: group_name_pattern with role=admins.", min_length=1)


MigProfile = Literal[accelerator_partitions.MIG_PROFILE_TYPES]  # type: ignore[valid-type]


#: The most any amount of a quota may be (botocore: InstanceCount, AcceleratorsAmount, VCpuAmount,
#: MemoryInGiBAmount, AcceleratorPartitionConfigCountInteger all have max 10,000,000).
_QUOTA_MAX = 10_000_000


class AcceleratorPartition(SpecModel):
    """GPU partitions (NVIDIA MIG) guaranteed to the team: `ComputeQuotaResourceConfig.
    AcceleratorPartition`."""

    type: MigProfile = Field(description="A MIG profile the instance type's GPUs offer, such as mig-1g.10gb.")
    count: int = Field(ge=0, le=_QUOTA_MAX, description="Partitions of that profile.")


class ResourceAmount(SpecModel):
    """An amount of an instance type's capacity, as the API's ComputeQuotaResourceConfig takes it:
    whole instances (`count`), accelerators, vCPUs, memory, or GPU partitions. Give at least one.
    AWS fills vCPU and memory in proportion to accelerators (or memory to vCPU) when they are
    not given."""

    instance_type: ClusterInstanceType
    count: int | None = optional("Whole instances.", ge=0, le=_QUOTA_MAX)
    accelerators: int | None = optional(
        "GPUs, Trainium or Inferentia devices (e.g. 4 of a p5's 8).", ge=0, le=_QUOTA_MAX
    )
    vcpu: float | None = optional("vCPUs.", ge=0, le=_QUOTA_MAX)
    memory_gib: float | None = optional("Memory in GiB.", ge=0, le=_QUOTA_MAX)
    accelerator_partition: AcceleratorPartition | None = optional(
        "GPU partitions (MIG), e.g. {type: mig-1g.10gb, count: 7}."
    )

    @model_validator(mode="after")
    def _an_amount_the_type_has(self) -> ResourceAmount:
        amounts = ("count", "accelerators", "vcpu", "memory_gib", "accelerator_partition")
        if all(getattr(self, name) is None for name in amounts):
            raise spec_rule(
                f"no amount of {self.instance_type} is given",
                field="count",
                hint="give count (instances), accelerators, vcpu, memory_gib or accelerator_partition",
            )
        devices = instance_types.ACCELERATORS_PER_INSTANCE.get(self.instance_type)
        if self.accelerators and not devices:
            raise spec_rule(
                f"{self.instance_type} has no accelerators",
                field="accelerators",
                hint="give count, vcpu or memory_gib for a CPU instance type",
            )
        partition = self.accelerator_partition
        if partition is not None and accelerator_partitions.per_gpu(self.instance_type, partition.type) is None:
            offered = accelerator_partitions.PROFILES_BY_INSTANCE_TYPE.get(self.instance_type)
            raise spec_rule(
                f"{self.instance_type} offers no GPU partition {partition.type}",
                field="accelerator_partition",
                hint=f"its profiles: {', '.join(offered)}"
                if offered
                else "GPU partitions (MIG) are offered on p4d, p4de, p5, p5e, p5en and p6 instance types",
            )
        return self

    @property
    def instances(self) -> Decimal:
        """The amount in instances of the type (4 of a p5's 8 GPUs: 0.5; 7 mig-1g.10gb partitions
        of a p5, one GPU's worth: 0.125): the count, else the accelerators and partitions over the
        accelerators of one instance, else the vCPUs or the memory over one instance's; 0 where
        the tables do not know the type's vCPUs or memory."""
        if self.count is not None:
            return Decimal(self.count)
        devices = instance_types.ACCELERATORS_PER_INSTANCE.get(self.instance_type) or 0
        gpus = Decimal(self.accelerators or 0)
        if self.accelerator_partition is not None:
            partition = self.accelerator_partition
            gpus += accelerator_partitions.gpus_of(self.instance_type, partition.type, partition.count)
        if gpus and devices:
            return gpus / devices
        vcpus = instance_types.VCPUS_PER_INSTANCE.get(self.instance_type)
        if self.vcpu is not None and vcpus:
            return Decimal(str(self.vcpu)) / vcpus
        memory = instance_types.MEMORY_GIB_PER_INSTANCE.get(self.instance_type)
        if self.memory_gib is not None and memory:
            return Decimal(str(self.memory_gib)) / Decimal(str(memory))
        return Decimal(0)


class QuotaEntry(ResourceAmount):
    """Capacity of one instance type guaranteed to the team."""


class Compute(SpecModel):
    quota: list[QuotaEntry] = Field(default_factory=list, max_length=15)
    existing_quota_arn: ComputeQuotaArn | None = optional(
        "(optional addition) The team's compute quota exists already: the stacks create none and keep "
        "it as it is, and the plan stops when its team, instance counts or sharing differ from this section. "
        "Needs cluster.existing_hyperpod_cluster_name."
    )
    sharing: Literal["Lend", "DontLend", "LendAndBorrow"] = "LendAndBorrow"
    borrow_limit_percent: int = Field(default=50, ge=1, le=500, description="Only with sharing LendAndBorrow.")
    absolute_borrow_limits: list[ResourceAmount] = Field(
        default_factory=list,
        max_length=15,
        description="(addition) The most the team may borrow of each instance type of its quota, in instances, "
        "accelerators, vCPUs, memory or partitions (ResourceSharingConfig.AbsoluteBorrowLimits): a cap in GPUs, "
        "not a percentage of a pool that moves. Only with sharing LendAndBorrow.",
    )
    preempt_team_tasks: Literal["Never", "LowerPriority"] = "LowerPriority"
    priority_classes: list[PriorityClassName] | None = optional(
        "(addition) The task-governance priority classes the team's work may run at (label "
        "kueue.x-k8s.io/priority-class: <name>-priority), each one of cluster.task_governance.priority_classes; "
        "unset: all of them. The team's admission policies refuse any other, on a job, endpoint or space, on its "
        "pods, and on a Kueue workload an admin changes.",
        max_length=10,
    )
    fair_share_weight: int = Field(default=0, ge=0, le=100)
    active: bool = Field(
        default=True,
        description="(addition) false pauses the team's quota (ActivationState Disabled): its tasks are admitted "
        "against no guarantee, and the quota, its namespace and everything of the team are kept. An adopted "
        "quota (existing_quota_arn) is held to it only where the spec sets it: unset, it stays as AWS holds it.",
    )

    @model_validator(mode="after")
    def _borrow_limit_needs_borrowing(self) -> Compute:
        for name in ("borrow_limit_percent", "absolute_borrow_limits"):
            if name in self.model_fields_set and self.sharing != "LendAndBorrow":
                raise spec_rule(
                    f"{name} is set but sharing is {self.sharing}, which never borrows",
                    field=name,
                    hint=f"remove {name}, or set `sharing: LendAndBorrow`",
                )
        quota_types = {entry.instance_type for entry in self.quota}
        for index, limit in enumerate(self.absolute_borrow_limits):
            if limit.instance_type not in quota_types:
                raise spec_rule(
                    f"absolute_borrow_limits[{index}] limits {limit.instance_type}, which the team's quota does not "
                    "have",
                    field="absolute_borrow_limits",
                    hint=f"limit borrowing of a type of the quota ({', '.join(sorted(quota_types)) or 'none'})",
                )
        seen = [limit.instance_type for limit in self.absolute_borrow_limits]
        if len(set(seen)) != len(seen):
            raise spec_rule("an instance type has two absolute borrow limits", field="absolute_borrow_limits")
        return self

    @property
    def borrow_limit(self) -> int | None:
        """The borrow limit in percent, or None when the team never borrows."""
        return self.borrow_limit_percent if self.sharing == "LendAndBorrow" else None


class Studio(SpecModel):
    enabled: bool = True
    existing_domain_id: DomainId | None = optional(
        "(optional addition) Take over the team's SageMaker AI domain that exists already: imported, "
        "never replaced, its users' home directories kept; its name, VPC, subnets, key and auth mode stay as "
        "they are (AWS fixes them at creation). It must use IAM Identity Center (auth mode SSO)."
    )
    default_instance_type: StudioInstanceType = "ml.t3.medium"
    idle_timeout_minutes: int = Field(
        default=60,
        ge=60,
        le=525600,
        description="Minutes without activity after which a member's JupyterLab app shuts down. Members may "
        "pick a shorter one for their own apps, down to 60 (SageMaker's least), never a longer one.",
    )
    job_instance_types: list[InstanceType] | None = optional(
        "(addition) The instance types the team's Studio execution role may start SageMaker training and "
        "processing jobs on (condition sagemaker:InstanceTypes). Such jobs run outside the HyperPod cluster and its "
        "quota, billed to the team's tag. Unset: the instance types of the team's compute quota; [] : none.",
        max_length=30,
    )


class Budget(SpecModel):
    monthly_limit_usd: AmountUsd = Field(
        description="USD a month; AWS Budgets takes a plain decimal number (BudgetLimit Amount)."
    )
    notify_emails: list[EmailAddress] = Field(min_length=1, max_length=10)
    # One notification per threshold, and AWS Budgets takes at most 10 per budget (AWS Budgets
    # quotas); the provider creates them one by one and would fail at the 11th, leaving half a budget.
    thresholds_percent: list[int] = Field(default_factory=lambda: [80, 100], min_length=1, max_length=10)

    @field_validator("thresholds_percent")
    @classmethod
    def _thresholds_in_range(cls, thresholds: list[int]) -> list[int]:
        for threshold in thresholds:
            if not 1 <= threshold <= 1000:
                raise spec_rule(f"threshold {threshold} is outside 1..1000 percent")
        return thresholds


class ExistingPermissionSet(SpecModel):
    """A permission set in Identity Center that a team role takes over (imported, not created)."""

    arn: PermissionSetArn
    name: PermissionSetName = Field(
        description="Its name, which AWS fixes at creation: the stacks keep it, and EKS access entries find the "
        "AWSReservedSSO_<name>_ role by it."
    )
    assigned: bool = Field(
        default=True,
        description="The role's group holds it in the spec's account already: the assignment is imported too "
        "(Terraform would refuse to create one that exists). false: the stacks create the assignment.",
    )


class TeamData(SpecModel):
    """The team's own data home (optional addition within spec v1)."""

    enabled: bool = Field(
        default=True,
        description="A bucket of the team's own (<org>-<team>-data-<account>-<region>), versioned, TLS only, "
        "encrypted with a KMS key of the team's; its Studio execution role and workload role read and write it, "
        "no other team's role does.",
    )
    existing_bucket: BucketName | None = optional(
        "Grant this bucket instead of creating one (its encryption and policy stay as they are)."
    )


class WorkloadIdentity(SpecModel):
    """What the team's pods run as (optional addition within spec v1)."""

    enabled: bool = Field(
        default=True,
        description="A role of the team's own (<org>-<team>-workload), bound by EKS Pod Identity to the service "
        "account team-workload in the team's namespace (hyp create hyp-pytorch-job --service-account-name "
        "team-workload): the team's data, nothing of another team's. Needs the EKS Pod Identity agent add-on.",
    )
    existing_role_arn: IamRoleArn | None = optional(
        "Bind this role instead of creating one (its trust policy must allow pods.eks.amazonaws.com)."
    )


class Team(SpecModel):
    name: TeamName
    display_name: str | None = optional("Free text; defaults to name.")
    cost_center: TagValue | None = optional("Tag value for cost allocation.")
    members: Members = Field(default_factory=Members)
    compute: Compute = Field(default_factory=Compute)
    studio: Studio = Field(default_factory=Studio)
    budget: Budget | None = optional("Absent: no budget for the team.")
    data: TeamData = Field(default_factory=TeamData, description="(optional addition) The team's data home.")
    workload_identity: WorkloadIdentity = Field(
        default_factory=WorkloadIdentity, description="(optional addition) What the team's pods run as."
    )
    existing_permission_sets: dict[Literal["scientists", "admins"], ExistingPermissionSet] = Field(
        default_factory=dict,
        description="(optional addition) Permission sets that exist already, by role, for the stacks to take over "
        "(imported with their inline policy) instead of creating <org>-<team>-<role>.",
    )

    @property
    def title(self) -> str:
        return self.display_name or self.name

    @property
    def job_instance_types(self) -> list[str]:
        """The instance types the team's Studio execution role starts training and processing jobs on:
        studio.job_instance_types, else its compute quota's."""
        if self.studio.job_instance_types is not None:
            return sorted(set(self.studio.job_instance_types))
        return sorted({entry.instance_type for entry in self.compute.quota})

    def existing_permission_set(self, role: str) -> ExistingPermissionSet | None:
        """The permission set the role takes over, if the spec names one."""
        return next((found for r, found in self.existing_permission_sets.items() if r == role), None)
