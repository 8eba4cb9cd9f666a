"""Adopting a HyperPod cluster that already runs (cluster.existing_hyperpod_cluster_name): the
stacks look it up and never create, change or replace it; real offline plans against a state
stand-in show it."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from hyperpod_teams import stack_plan
from hyperpod_teams.spec import SpecError, load_spec, validate_spec
from tests.conftest import EXAMPLES, synthesize_stacks
from tests.offline_terraform import (
    STUB_OUTPUT,
    offline_plan_config,
    stub_remote_states,
    terraform_or_skip,
    write_stack,
)

EXAMPLE = EXAMPLES / "existing-hyperpod" / "teams.yaml"


@pytest.fixture(scope="module")
def adopted_stacks(tmp_path_factory):
    return synthesize_stacks(load_spec(EXAMPLE), tmp_path_factory.mktemp("adopt"))


def example_data() -> dict:
    return yaml.safe_load(EXAMPLE.read_text())


def test_an_adopted_cluster_is_looked_up_by_name_and_never_created(adopted_stacks):
    stack = adopted_stacks["initech-cluster"]
    (lookup,) = stack["data"]["aws_cloudcontrolapi_resource"].values()
    assert (lookup["type_name"], lookup["identifier"]) == ("AWS::SageMaker::Cluster", "ml-prod")
    created = [r["type_name"] for r in stack["resource"].get("aws_cloudcontrolapi_resource", {}).values()]
    assert created == ["AWS::SageMaker::ClusterSchedulerConfig"]
    for kind in ("aws_s3_bucket", "aws_iam_role", "terraform_data"):
        assert kind not in stack["resource"], f"an adopted cluster needs no {kind}"
    assert "initech-hyperpod-deps" not in adopted_stacks, "the adopted cluster runs its dependency chart already"


def test_team_quotas_point_at_the_adopted_clusters_arn(adopted_stacks):
    stack = adopted_stacks["initech-team-search"]
    (quota,) = [
        r
        for r in stack["resource"]["aws_cloudcontrolapi_resource"].values()
        if r["type_name"] == "AWS::SageMaker::ComputeQuota"
    ]
    assert "cross-stack-reference-input-initech-cluster" in quota["desired_state"]


def test_settings_only_a_created_cluster_uses_are_refused_by_name():
    data = example_data()
    data["cluster"]["node_recovery"] = "None"
    data["cluster"]["lifecycle_scripts_s3_uri"] = "s3://initech-lifecycle/scripts/"
    data["cluster"]["instance_groups"][0]["deep_health_checks"] = ["InstanceStress"]
    with pytest.raises(SpecError) as raised:
        validate_spec(data)
    (problem,) = raised.value.problems
    assert problem.location == "cluster.existing_hyperpod_cluster_name"
    for name in ("lifecycle_scripts_s3_uri", "node_recovery", "instance_groups[0].deep_health_checks"):
        assert name in problem.message


def test_an_adopted_cluster_needs_its_existing_eks_cluster():
    data = example_data()
    data["cluster"]["eks"] = {"create": True}
    with pytest.raises(SpecError) as raised:
        validate_spec(data)
    assert any(p.location == "cluster.eks" and "describe-cluster" in (p.hint or "") for p in raised.value.problems)


def test_stack_plan_says_the_cluster_stack_only_looks_it_up():
    plan = {s.name: s for s in stack_plan.stack_plan(validate_spec(example_data()))}
    assert plan["initech-cluster"].holds.startswith("lookup of the existing HyperPod cluster")


def plan_cluster_stack(stacks, tmp_path, properties=None):
    """Plan the cluster stack offline. With `properties`, the lookup becomes a data source Terraform
    reads offline (local remote state whose output holds them), its postcondition kept (on
    `self.outputs.properties`), so the check runs at plan as it would on Cloud Control's answer."""
    terraform = terraform_or_skip(tmp_path)
    stack = copy.deepcopy(stacks["initech-cluster"])
    if properties is not None:
        ((name, lookup),) = stack["data"].pop("aws_cloudcontrolapi_resource").items()
        reference = f"data.terraform_remote_state.{name}.outputs.properties"
        stack = json.loads(json.dumps(stack).replace(f"data.aws_cloudcontrolapi_resource.{name}.properties", reference))
        condition = lookup["lifecycle"]["postcondition"]
        condition[0]["condition"] = condition[0]["condition"].replace("self.properties", "self.outputs.properties")
        state = tmp_path / "described-cluster.tfstate"
        outputs = {"properties": {"value": json.dumps(properties), "type": "string"}}
        state.write_text(json.dumps({"version": 4, "serial": 1, "lineage": "x", "outputs": outputs, "resources": []}))
        stack["data"]["terraform_remote_state"][name] = {
            "backend": "local",
            "config": {"path": str(state)},
            "lifecycle": {"postcondition": condition},
        }
    stack = offline_plan_config(stack)
    directory = write_stack(tmp_path, "initech-cluster", stack)
    stub_remote_states(directory, stack)
    return terraform.plan(directory)


@pytest.mark.terraform
def test_first_plan_of_an_adopted_cluster_creates_only_task_governance_and_access(adopted_stacks, tmp_path):
    plan = plan_cluster_stack(adopted_stacks, tmp_path)
    assert isinstance(plan, dict), plan
    changes = {(c["type"], tuple(c["change"]["actions"])) for c in plan["resource_changes"]}
    assert all(actions == ("create",) for _, actions in changes)
    types = {kind for kind, _ in changes}
    assert types == {
        "aws_eks_addon",
        "aws_cloudcontrolapi_resource",
        "aws_eks_access_entry",
        "aws_eks_access_policy_association",
    }
    (scheduler,) = [c for c in plan["resource_changes"] if c["type"] == "aws_cloudcontrolapi_resource"]
    desired = json.loads(scheduler["change"]["after"]["desired_state"])
    assert desired["ClusterArn"] == "arn:aws:sagemaker:eu-west-1:777788889999:cluster/offline0stub"


@pytest.mark.terraform
def test_a_hyperpod_cluster_on_another_eks_cluster_stops_the_plan(adopted_stacks, tmp_path):
    other = {
        "ClusterArn": "arn:aws:sagemaker:eu-west-1:777788889999:cluster/x",
        "Orchestrator": {"Eks": {"ClusterArn": "arn:aws:eks:eu-west-1:777788889999:cluster/other"}},
    }
    assert other["Orchestrator"]["Eks"]["ClusterArn"] != STUB_OUTPUT
    error = plan_cluster_stack(adopted_stacks, tmp_path, other)
    assert isinstance(error, str) and "is not orchestrated by the spec's EKS cluster" in error, error
    # The same lookup on the spec's EKS cluster plans.
    other["Orchestrator"]["Eks"]["ClusterArn"] = STUB_OUTPUT
    (tmp_path / "same").mkdir()
    assert isinstance(plan_cluster_stack(adopted_stacks, tmp_path / "same", other), dict)


def test_runbook_prints_the_command_that_lists_the_adopted_clusters_groups():
    from hyperpod_teams.runbook import render_runbook

    runbook = render_runbook(load_spec(EXAMPLE), spec_path=str(EXAMPLE))
    assert "aws sagemaker describe-cluster --cluster-name ml-prod --region eu-west-1" in runbook
    assert "InstanceGroups[].[InstanceGroupName,InstanceType,CurrentCount]" in runbook
    assert "hyperpod-deps" not in runbook
