"""What Cloud Control would refuse at apply, found at `validate`: every desired state the stacks
write, checked against the CloudFormation registry's resource schema of its type.

The pinned AWS bindings manage the HyperPod cluster, its scheduler config and the teams' compute
quotas through `aws_cloudcontrolapi_resource`; Cloud Control validates each `desired_state`
against the type's registry schema and fails the apply with "Model validation failed (...)"
after the resources before it were created. This module runs that validation first: the same
schemas (registry_schemas/, the us-east-1 registry as cfn-lint 1.58.0 bundles it, copied by
tests/aws_models/copy_registry_schemas.py and compared with cfn-lint by the tests), the same
JSON Schema rules (draft 7, as the registry's meta-schema), and the registry's `\\p{..}` patterns
with the `regex` module, which has the Unicode classes Python's `re` lacks. A read-only property
in a desired state is refused, as Cloud Control refuses it.

Values Terraform knows only at apply (the EKS cluster's ARN, the execution role's, the HyperPod
cluster's) are checked in the shape AWS gives them (`placeholders`). Pure layer: no cdktf.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, partial
from importlib import resources
from typing import Any

import jsonschema
import regex
from pydantic import ValidationError

from hyperpod_teams import cloudformation, naming
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.spec.problems import Path, Problem

SCHEMA_SOURCE = "the CloudFormation registry (us-east-1) as cfn-lint 1.58.0 bundles it"
SCHEMA_FILES = {
    cloudformation.CLUSTER_TYPE: "aws-sagemaker-cluster.json",
    cloudformation.SCHEDULER_CONFIG_TYPE: "aws-sagemaker-clusterschedulerconfig.json",
    cloudformation.COMPUTE_QUOTA_TYPE: "aws-sagemaker-computequota.json",
}

Json = dict[str, Any]


@cache
def schema(type_name: str) -> Json:
    """The registry schema of `type_name` (one of SCHEMA_FILES)."""
    text = (resources.files("hyperpod_teams") / "registry_schemas" / SCHEMA_FILES[type_name]).read_text("utf-8")
    return json.loads(text)


def _pattern(validator: Any, pattern: str, instance: Any, _schema: Json) -> Iterator[jsonschema.ValidationError]:
    if isinstance(instance, str) and regex.search(pattern, instance) is None:
        yield jsonschema.ValidationError(f"{instance!r} does not match the pattern {pattern}")


#: Draft 7 with the registry's regular expressions (ECMA-262 with `\p{..}` classes).
RegistryValidator = jsonschema.validators.extend(jsonschema.Draft7Validator, {"pattern": _pattern})


@cache
def _validator(type_name: str) -> Any:
    document = {k: v for k, v in schema(type_name).items() if k not in ("typeName", "handlers")}
    return RegistryValidator(document)


@dataclass(frozen=True)
class Refusal:
    """One reason Cloud Control would refuse a desired state: where (a JSON pointer) and why."""

    pointer: str
    message: str


def _pointer_path(pointer: str) -> list[str]:
    return pointer.removeprefix("/properties/").split("/")


def _holds(document: Any, path: list[str]) -> bool:
    if not path:
        return True
    head, rest = path[0], path[1:]
    if head == "*":
        return isinstance(document, list) and any(_holds(item, rest) for item in document)
    return isinstance(document, dict) and head in document and _holds(document[head], rest)


def refusals(type_name: str, desired_state: Json) -> list[Refusal]:
    """Why Cloud Control would refuse `desired_state` as a model of `type_name`; [] when it
    would not."""
    found = [
        Refusal("/" + "/".join(path), "is read-only: AWS sets it, a desired state may not")
        for path in map(_pointer_path, schema(type_name).get("readOnlyProperties", []))
        if _holds(desired_state, path)
    ]
    for error in sorted(_validator(type_name).iter_errors(desired_state), key=lambda e: list(map(str, e.path))):
        found.append(Refusal("/" + "/".join(str(p) for p in error.absolute_path), error.message))
    return found


# --- the spec's desired states --------------------------------------------------------------


ACCOUNT_PLACEHOLDER = "111122223333"


def placeholders(spec: PlatformSpec) -> dict[str, str]:
    """The values Terraform fills in at apply, in the shape AWS gives them."""
    org, cluster = spec.organization, spec.cluster
    partition = naming.aws_partition(org.region)
    eks_name = naming.shared_eks_cluster_name(cluster)
    return {
        "eks_cluster_arn": f"arn:{partition}:eks:{org.region}:{ACCOUNT_PLACEHOLDER}:cluster/{eks_name}",
        "execution_role_arn": f"arn:{partition}:iam::{ACCOUNT_PLACEHOLDER}:role/"
        + naming.hyperpod_execution_role_name(org.name, cluster.name),
        "lifecycle_s3_uri": cluster.lifecycle_scripts_s3_uri
        or "s3://" + naming.lifecycle_bucket_name(org.name, cluster.name, ACCOUNT_PLACEHOLDER, org.region) + "/",
        "cluster_arn": f"arn:{partition}:sagemaker:{org.region}:{ACCOUNT_PLACEHOLDER}:cluster/abcdefghijkl",
        "cluster_role_arn": f"arn:{partition}:iam::{ACCOUNT_PLACEHOLDER}:role/"
        + naming.hyperpod_autoscaling_role_name(org.name, cluster.name),
    }


@dataclass(frozen=True)
class DesiredState:
    """A desired state the stacks write, and the spec field each of its properties comes from."""

    type_name: str
    build: Callable[[], cloudformation.CfnModel]
    fields: FieldTable
    #: Prefixed to each pointer before it is looked up in `fields` (a team's index).
    pointer_prefix: str = ""

    def spec_path(self, pointer: str) -> Path:
        return spec_field(self.fields, self.pointer_prefix + pointer)


def desired_states(spec: PlatformSpec) -> list[DesiredState]:
    """Every Cloud Control desired state the stacks write for `spec` (an adopted resource's is
    AWS's, not written)."""
    values = placeholders(spec)
    states: list[DesiredState] = []
    cluster = spec.cluster
    if cluster.existing_hyperpod_cluster_name is None:
        states.append(
            DesiredState(
                cloudformation.CLUSTER_TYPE,
                partial(
                    cloudformation.hyperpod_cluster,
                    spec,
                    eks_cluster_arn=values["eks_cluster_arn"],
                    execution_role_arn=values["execution_role_arn"],
                    lifecycle_s3_uri=values["lifecycle_s3_uri"],
                    cluster_role_arn=values["cluster_role_arn"],
                ),
                CLUSTER_FIELDS,
            )
        )
    governance = cluster.task_governance
    if not governance.enabled:
        return states
    if governance.existing_scheduler_config_arn is None:
        states.append(
            DesiredState(
                cloudformation.SCHEDULER_CONFIG_TYPE,
                partial(cloudformation.scheduler_config, spec, cluster_arn=values["cluster_arn"]),
                SCHEDULER_CONFIG_FIELDS,
            )
        )
    for index, team in enumerate(spec.teams):
        if team.compute.existing_quota_arn is None:
            states.append(
                DesiredState(
                    cloudformation.COMPUTE_QUOTA_TYPE,
                    partial(cloudformation.compute_quota, spec.organization, team, cluster_arn=values["cluster_arn"]),
                    COMPUTE_QUOTA_FIELDS,
                    pointer_prefix=str(index),
                )
            )
    return states


def spec_problems(spec: PlatformSpec) -> list[Problem]:
    """What Cloud Control would refuse of the desired states `spec` makes, each at the spec
    field it comes from."""
    problems = []
    for state in desired_states(spec):
        try:
            document = json.loads(state.build().desired_state())
        except ValidationError as error:  # the typed model refused first: name its field
            for detail in error.errors():
                pointer = "/" + "/".join(str(part) for part in detail["loc"])
                problems.append(_problem(state, pointer, detail["msg"]))
            continue
        problems += [_problem(state, r.pointer, r.message) for r in refusals(state.type_name, document)]
    return problems


def _problem(state: DesiredState, pointer: str, message: str) -> Problem:
    return Problem(
        state.spec_path(pointer),
        f"Cloud Control would refuse the {state.type_name} at apply: {pointer or '/'}: {message}",
        f"this field becomes {pointer or 'the desired state'} of {state.type_name}, whose registry schema "
        f"({SCHEMA_SOURCE}) refuses the value",
    )


#: Where each property of a desired state comes from in the spec: (the property's JSON pointer as a
#: regular expression, the spec path). An int in a path stands for that group of the match (an index).
FieldTable = list[tuple[str, tuple[str | int, ...]]]

_GROUP = r"/InstanceGroups/(\d+)"
CLUSTER_FIELDS: FieldTable = [
    (r"/ClusterName", ("cluster", "name")),
    (r"/NodeRecovery", ("cluster", "node_recovery")),
    (r"/VpcConfig/Subnets(/.*)?", ("cluster", "network", "subnet_ids")),
    (r"/VpcConfig/SecurityGroupIds(/.*)?", ("cluster", "network", "security_group_ids")),
    (rf"{_GROUP}/LifeCycleConfig/OnCreate", ("cluster", "lifecycle_on_create")),
    (rf"{_GROUP}/LifeCycleConfig/SourceS3Uri", ("cluster", "lifecycle_scripts_s3_uri")),
    (rf"{_GROUP}/InstanceGroupName", ("cluster", "instance_groups", 1, "name")),
    (rf"{_GROUP}/InstanceType", ("cluster", "instance_groups", 1, "instance_type")),
    (rf"{_GROUP}/InstanceCount", ("cluster", "instance_groups", 1, "count")),
    (rf"{_GROUP}/ThreadsPerCore", ("cluster", "instance_groups", 1, "threads_per_core")),
    (rf"{_GROUP}/InstanceStorageConfigs(/.*)?", ("cluster", "instance_groups", 1, "ebs_volume_gb")),
    (rf"{_GROUP}/OnStartDeepHealthChecks(/.*)?", ("cluster", "instance_groups", 1, "deep_health_checks")),
    (rf"{_GROUP}(/.*)?", ("cluster", "instance_groups", 1)),
    (r"/InstanceGroups", ("cluster", "instance_groups")),
    (r"/Tags(/.*)?", ("organization", "tags")),
    (r".*", ("cluster",)),
]

_PRIORITY_CLASS = r"/SchedulerConfig/PriorityClasses/(\d+)"
SCHEDULER_CONFIG_FIELDS: FieldTable = [
    (r"/(?:Name|Description)", ("cluster", "name")),
    (rf"{_PRIORITY_CLASS}/Name", ("cluster", "task_governance", "priority_classes", 1, "name")),
    (rf"{_PRIORITY_CLASS}/Weight", ("cluster", "task_governance", "priority_classes", 1, "weight")),
    (r"/SchedulerConfig/PriorityClasses(/.*)?", ("cluster", "task_governance", "priority_classes")),
    (r"/SchedulerConfig/FairShare", ("cluster", "task_governance", "fair_share")),
    (r"/Tags(/.*)?", ("organization", "tags")),
    (r".*", ("cluster", "task_governance")),
]

#: A team's quota: the pointer is prefixed with the team's index (`<index>/Name`).
_TEAM = r"(\d+)"
_QUOTA = rf"{_TEAM}/ComputeQuotaConfig"
COMPUTE_QUOTA_FIELDS: FieldTable = [
    (rf"{_TEAM}/(?:Name|ComputeQuotaTarget/TeamName)", ("teams", 1, "name")),
    (rf"{_TEAM}/Description", ("teams", 1, "display_name")),
    (rf"{_TEAM}/ComputeQuotaTarget/FairShareWeight", ("teams", 1, "compute", "fair_share_weight")),
    (rf"{_QUOTA}/ComputeQuotaResources/(\d+)/InstanceType", ("teams", 1, "compute", "quota", 2, "instance_type")),
    (rf"{_QUOTA}/ComputeQuotaResources/(\d+)/Count", ("teams", 1, "compute", "quota", 2, "count")),
    (rf"{_QUOTA}/ComputeQuotaResources(/.*)?", ("teams", 1, "compute", "quota")),
    (rf"{_QUOTA}/ResourceSharingConfig/Strategy", ("teams", 1, "compute", "sharing")),
    (rf"{_QUOTA}/ResourceSharingConfig/BorrowLimit", ("teams", 1, "compute", "borrow_limit")),
    (rf"{_QUOTA}/PreemptTeamTasks", ("teams", 1, "compute", "preempt_team_tasks")),
    (rf"{_TEAM}/Tags(/.*)?", ("teams", 1, "cost_center")),
    (rf"{_TEAM}.*", ("teams", 1)),
]


def spec_field(table: FieldTable, pointer: str) -> Path:
    """The spec path a desired state's property (its JSON pointer) comes from."""
    for expression, path in table:
        match = re.fullmatch(expression, pointer)
        if match:
            return tuple(int(match[part]) if isinstance(part, int) else part for part in path)
    raise AssertionError(f"no spec field for {pointer}: the tables end with a catch-all")
