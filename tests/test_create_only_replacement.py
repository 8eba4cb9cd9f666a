"""A change of a create-only property of the HyperPod cluster plans as a replacement, which
`prevent_destroy` stops with an error naming the field: real offline `terraform plan` of the
synthesized cluster resource and its guards against a state stand-in of what was applied before.

Reference: terraform-provider-aws `internal/service/cloudcontrol/resource.go` forces replacement
only when a JSON-patch path equals a create-only path of the type schema exactly; the offline
schema stand-in lists the real schema's create-only paths, so the provider behaves as on AWS.
"""

from __future__ import annotations

import base64
import copy
import json
import re

import pytest

from hyperpod_teams.review.plan_summary import StackPlan, changes
from hyperpod_teams.spec.models import PlatformSpec
from tests.conftest import synthesize_stacks
from tests.offline_terraform import offline_plan_config, terraform_or_skip, write_stack

pytestmark = pytest.mark.terraform

ROLE_ARN = "arn:aws:iam::111122223333:role/acme-ml-shared-hyperpod-nodes"
EKS_ARN = "arn:aws:eks:us-west-2:111122223333:cluster/ml-shared-eks"
CLUSTER_ARN = "arn:aws:sagemaker:us-west-2:111122223333:cluster/abcdefghijkl"


def cluster_and_guards(spec_data: dict, tmp_path, name: str) -> dict:
    """The cluster stack's HyperPod cluster and its create-only guards, planned offline, with
    the values other resources and stacks would provide filled in."""
    stacks = synthesize_stacks(PlatformSpec.model_validate(spec_data), tmp_path / name)
    config = offline_plan_config(stacks["acme-cluster"])
    resources = config["resource"]
    kept = {
        "terraform_data": resources["terraform_data"],
        "aws_cloudcontrolapi_resource": {
            key: value
            for key, value in resources["aws_cloudcontrolapi_resource"].items()
            if value["type_name"] == "AWS::SageMaker::Cluster"
        },
    }
    for resource in kept["aws_cloudcontrolapi_resource"].values():
        resource.pop("depends_on", None)
        # The precondition on the deployed instance groups reads a data source this stand-in does
        # not serve; the emulator tier plans it (tests/test_emulator_tier.py).
        resource["lifecycle"].pop("precondition", None)
    text = json.dumps({"terraform": config["terraform"], "provider": config["provider"], "resource": kept})
    text = re.sub(r"\$\{aws_iam_role\.[^}]+\.arn\}", ROLE_ARN, text)
    text = re.sub(r"\$\{data\.terraform_remote_state\.[^}]+\}", EKS_ARN, text)
    assert "${data." not in text and "${aws_" not in text
    return json.loads(text)


def cty_type(value) -> object:
    """The cty type of a JSON value, as Terraform writes a dynamic attribute's type in state."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return ["tuple", [cty_type(v) for v in value]]
    return ["object", {k: cty_type(v) for k, v in value.items()}]


#: Where the plugin SDK keeps a resource's timeouts: the instance's private data, in nanoseconds.
SDK_TIMEOUTS_KEY = "e2bfb730-ecaa-11e6-8f88-34363bc7c4c0"


def timeouts_private(resource: dict) -> str:
    units = {"m": 60, "h": 3600}
    nanoseconds = {
        operation: int(value[:-1]) * units[value[-1]] * 10**9 for operation, value in resource["timeouts"].items()
    }
    return base64.b64encode(json.dumps({SDK_TIMEOUTS_KEY: nanoseconds, "schema_version": "0"}).encode()).decode()


def applied_state(config: dict) -> dict:
    """A state file as if `config` had been applied: what Terraform keeps for each resource."""
    resources = []
    for name, guard in config["resource"]["terraform_data"].items():
        trigger = {"value": guard["triggers_replace"], "type": cty_type(guard["triggers_replace"])}
        attributes = {"id": f"guard-{name}", "input": None, "output": None, "triggers_replace": trigger}
        resources.append(
            {
                "mode": "managed",
                "type": "terraform_data",
                "name": name,
                "provider": 'provider["terraform.io/builtin/terraform"]',
                "instances": [{"schema_version": 0, "attributes": attributes}],
            }
        )
    for name, cluster in config["resource"]["aws_cloudcontrolapi_resource"].items():
        properties = {**json.loads(cluster["desired_state"]), "ClusterArn": CLUSTER_ARN}
        attributes = {
            "id": CLUSTER_ARN,
            "desired_state": cluster["desired_state"],
            "properties": json.dumps(properties),
            "role_arn": None,
            "schema": cluster["schema"],
            "type_name": cluster["type_name"],
            "type_version_id": None,
        }
        resources.append(
            {
                "mode": "managed",
                "type": "aws_cloudcontrolapi_resource",
                "name": name,
                "provider": 'provider["registry.terraform.io/hashicorp/aws"]',
                "instances": [{"schema_version": 0, "attributes": attributes, "private": timeouts_private(cluster)}],
            }
        )
    return {
        "version": 4,
        "terraform_version": "1.11.0",
        "serial": 1,
        "lineage": "stand-in",
        "outputs": {},
        "resources": resources,
    }


def plan_change(before: dict, after: dict, tmp_path, *, guards: bool = True) -> dict | str:
    terraform = terraform_or_skip(tmp_path)
    if not guards:
        after = copy.deepcopy(after)
        for cluster in after["resource"]["aws_cloudcontrolapi_resource"].values():
            cluster["lifecycle"].pop("replace_triggered_by")
    directory = write_stack(tmp_path, "acme-cluster", after)
    (directory / "terraform.tfstate").write_text(json.dumps(applied_state(before)))
    return terraform.plan(directory, "-refresh=false")


def cluster_actions(plan: dict | str) -> list[str]:
    assert isinstance(plan, dict), plan
    (change,) = [c for c in plan["resource_changes"] if c["type"] == "aws_cloudcontrolapi_resource"]
    return change["change"]["actions"]


@pytest.fixture(scope="module")
def unchanged(tmp_path_factory):
    from tests.conftest import _quickstart_data

    return copy.deepcopy(_quickstart_data())


def with_change(data: dict, change) -> dict:
    data = copy.deepcopy(data)
    change(data)
    return data


def add_subnet(data):
    data["cluster"]["network"]["subnet_ids"].append("subnet-0fedcba9876543210")


def test_without_the_guards_a_new_subnet_would_plan_as_an_update_aws_refuses(unchanged, tmp_path):
    """The fault the guards exist for: the provider alone plans an in-place update."""
    allowed = with_change(unchanged, lambda d: d["cluster"].update(allow_destroy=True))
    before = cluster_and_guards(allowed, tmp_path, "before")
    after = cluster_and_guards(with_change(allowed, add_subnet), tmp_path, "after")
    plan = plan_change(before, after, tmp_path, guards=False)
    assert cluster_actions(plan) == ["update"]


@pytest.mark.parametrize(
    ("field", "change"),
    [
        ("VpcConfig", add_subnet),
        ("VpcConfig", lambda d: d["cluster"]["network"]["security_group_ids"].append("sg-0fedcba9876543210")),
        ("InstanceGroups_gpu-workers", lambda d: d["cluster"]["instance_groups"][0].update(threads_per_core=2)),
    ],
)
def test_a_create_only_change_plans_as_a_replacement(unchanged, tmp_path, field, change):
    allowed = with_change(unchanged, lambda d: d["cluster"].update(allow_destroy=True))
    before = cluster_and_guards(allowed, tmp_path, "before")
    after = cluster_and_guards(with_change(allowed, change), tmp_path, "after")
    plan = plan_change(before, after, tmp_path)
    assert not isinstance(plan, str), plan
    assert sorted(cluster_actions(plan)) == ["create", "delete"]
    (guard,) = [
        c for c in plan["resource_changes"] if c["type"] == "terraform_data" and c["change"]["actions"] != ["no-op"]
    ]
    assert guard["name"] == f"create_only_{field}"
    assert sorted(guard["change"]["actions"]) == ["create", "delete"]
    # The plan summary (report --plan) names the field and flags the protected cluster.
    found = changes([StackPlan("acme-cluster", plan)], PlatformSpec.model_validate(allowed))
    (cluster,) = [c for c in found if c.address.startswith("aws_cloudcontrolapi_resource.")]
    assert cluster.action == "replace"
    assert f"create-only {field}" in cluster.forced_by
    assert cluster.protected and "HyperPod cluster" in cluster.protected


def test_prevent_destroy_stops_a_create_only_change_naming_the_field(unchanged, tmp_path):
    before = cluster_and_guards(unchanged, tmp_path, "before")
    after = cluster_and_guards(with_change(unchanged, add_subnet), tmp_path, "after")
    error = plan_change(before, after, tmp_path)
    assert isinstance(error, str), "the plan went through"
    assert "prevent_destroy" in error
    assert "terraform_data.create_only_VpcConfig" in error


def test_a_new_instance_group_or_a_new_count_is_an_update_not_a_replacement(unchanged, tmp_path):
    def grow(data):
        data["cluster"]["instance_groups"][0]["count"] += 1
        data["cluster"]["instance_groups"].append({"name": "extra", "instance_type": "ml.c5.4xlarge", "count": 1})

    before = cluster_and_guards(unchanged, tmp_path, "before")
    after = cluster_and_guards(with_change(unchanged, grow), tmp_path, "after")
    plan = plan_change(before, after, tmp_path)
    assert not isinstance(plan, str), plan
    assert cluster_actions(plan) == ["update"]


def _order_insensitive_arrays() -> set[str]:
    """The VpcConfig arrays whose order AWS ignores: `insertionOrder: false` in the registry
    schema of AWS::SageMaker::Cluster as cfn-lint ships it (the outside reference)."""
    from tests.conftest import require_module

    require_module("cfnlint")
    from cfnlint.schema.manager import PROVIDER_SCHEMA_MANAGER

    schema = PROVIDER_SCHEMA_MANAGER.get_resource_schema("us-east-1", "AWS::SageMaker::Cluster").schema
    properties = schema["definitions"]["VpcConfig"]["properties"]
    return {name for name, spec in properties.items() if spec.get("insertionOrder") is False}


def test_reordering_subnets_and_security_groups_plans_no_change(unchanged, tmp_path):
    """AWS keeps no order in VpcConfig's Subnets and SecurityGroupIds, so a spec that lists them in
    another order changes nothing: no update, no replacement, no create-only guard tripped."""
    assert _order_insensitive_arrays() == {"Subnets", "SecurityGroupIds"}

    def two_of_each(reverse: bool):
        def change(data):
            network = data["cluster"]["network"]
            network["subnet_ids"] = ["subnet-0a1b2c3d4e5f60718", "subnet-0f1e2d3c4b5a60718"]
            network["security_group_ids"] = ["sg-0123456789abcdef0", "sg-0fedcba9876543210"]
            if reverse:
                network["subnet_ids"].reverse()
                network["security_group_ids"].reverse()

        return change

    before = cluster_and_guards(with_change(unchanged, two_of_each(False)), tmp_path, "before")
    after = cluster_and_guards(with_change(unchanged, two_of_each(True)), tmp_path, "after")
    plan = plan_change(before, after, tmp_path)
    assert not isinstance(plan, str), plan
    # The same plan as for the very same spec (the state stand-in leaves the provider an in-place
    # refresh of its own to plan): no guard replaced, the cluster's desired state unchanged.
    (tmp_path / "same").mkdir()
    same = plan_change(before, before, tmp_path / "same")
    assert isinstance(same, dict), same
    actions = {c["address"]: c["change"]["actions"] for c in plan["resource_changes"]}
    assert actions == {c["address"]: c["change"]["actions"] for c in same["resource_changes"]}
    assert all(a == ["no-op"] for address, a in actions.items() if address.startswith("terraform_data."))
    (cluster,) = [c for c in plan["resource_changes"] if c["type"] == "aws_cloudcontrolapi_resource"]
    assert cluster["change"]["before"]["desired_state"] == cluster["change"]["after"]["desired_state"]


def test_a_guard_removed_from_state_is_created_again_without_replacing_the_cluster(unchanged, tmp_path):
    """The CHANGELOG's way through for a cluster deployed from unsorted lists: with the VpcConfig
    guard gone from the state (`terraform state rm`), the plan creates the guard and leaves the
    cluster alone (replace_triggered_by reacts to an update or replacement, not a create)."""
    config = cluster_and_guards(unchanged, tmp_path, "config")
    state = applied_state(config)
    state["resources"] = [r for r in state["resources"] if r["name"] != "create_only_VpcConfig"]
    terraform = terraform_or_skip(tmp_path)
    directory = write_stack(tmp_path, "acme-cluster", config)
    (directory / "terraform.tfstate").write_text(json.dumps(state))
    plan = terraform.plan(directory, "-refresh=false")
    assert not isinstance(plan, str), plan
    actions = {c["address"]: c["change"]["actions"] for c in plan["resource_changes"]}
    assert actions.pop("terraform_data.create_only_VpcConfig") == ["create"]
    (cluster,) = [address for address in actions if address.startswith("aws_cloudcontrolapi_resource.")]
    assert "delete" not in actions.pop(cluster), "the cluster would be replaced"
    assert set(map(tuple, actions.values())) == {("no-op",)}, actions
