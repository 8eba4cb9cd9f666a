"""What the stacks must match on a real account, checked against AWS's own references: the
HyperPod EKS execution role (AWS docs, awslabs/awsome-distributed-training), the team role of
aws/sagemaker-hyperpod-cli's chart, Kueue's and Kubernetes' name limits, CloudFormation's tag
pattern and handler timeouts, the dependency chart's install steps and the regions of task
governance. Each reference is named where it is used."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from hyperpod_teams import naming, rbac
from hyperpod_teams.spec import validate_spec
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.spec.problems import SpecError
from tests.conftest import require_module, synthesize_stacks


def problems_of(data: dict) -> list[str]:
    try:
        validate_spec(data)
    except SpecError as error:
        return [f"{'.'.join(map(str, p.path))}: {p.message} {p.hint or ''}" for p in error.problems]
    return []


# --- the instance groups' execution role -------------------------------------------------------

#: The actions the HyperPod execution role of an EKS-orchestrated cluster needs besides the
#: managed policy: AWS docs "IAM role for SageMaker HyperPod" (EKS) and
#: awslabs/awsome-distributed-training terraform-modules/hyperpod-eks-tf/modules/sagemaker_iam_role.
REFERENCE_NODE_ACTIONS = {
    "ec2:AssignPrivateIpAddresses",
    "ec2:CreateNetworkInterface",
    "ec2:CreateNetworkInterfacePermission",
    "ec2:DeleteNetworkInterface",
    "ec2:DeleteNetworkInterfacePermission",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeVpcs",
    "ec2:DescribeDhcpOptions",
    "ec2:DescribeSubnets",
    "ec2:DescribeSecurityGroups",
    "ec2:DetachNetworkInterface",
    "ec2:ModifyNetworkInterfaceAttribute",
    "ec2:UnassignPrivateIpAddresses",
    "ecr:BatchGetImage",
    "ecr:GetAuthorizationToken",
    "ecr:GetDownloadUrlForLayer",
    "eks-auth:AssumeRoleForPodIdentity",
    "ec2:CreateTags",
}
#: AmazonEKS_CNI_Policy, version v5 (the default since 2024-03-04), as the AWS Managed Policy
#: Reference publishes it: what the VPC CNI on a node calls, and HyperPod nodes run the VPC CNI.
#: awsome-distributed-training's "Custom EKS CNI IAM Policy" grants the same.
AMAZON_EKS_CNI_POLICY_V5_ACTIONS = {
    "ec2:AssignPrivateIpAddresses",
    "ec2:AttachNetworkInterface",
    "ec2:CreateNetworkInterface",
    "ec2:DeleteNetworkInterface",
    "ec2:DescribeInstances",
    "ec2:DescribeTags",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeSubnets",
    "ec2:DetachNetworkInterface",
    "ec2:ModifyNetworkInterfaceAttribute",
    "ec2:UnassignPrivateIpAddresses",
    "ec2:CreateTags",
}
#: The references grant these on `*`; only these have no resource-level permissions (Service
#: Authorization Reference, Amazon EC2: the Describe* actions and ECR's GetAuthorizationToken).
UNSCOPABLE = {
    "ec2:DescribeInstances",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeTags",
    "ec2:DeleteNetworkInterfacePermission",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeVpcs",
    "ec2:DescribeDhcpOptions",
    "ec2:DescribeSubnets",
    "ec2:DescribeSecurityGroups",
    "ecr:GetAuthorizationToken",
}


@pytest.fixture(scope="module")
def node_policy(quickstart_stacks) -> dict:
    stack = quickstart_stacks["acme-cluster"]
    (policy,) = [p for p in stack["resource"]["aws_iam_role_policy"].values() if p["name"] == "eks-node-access"]
    return json.loads(policy["policy"])


def test_execution_role_grants_every_action_eks_nodes_need(node_policy):
    granted = {action for statement in node_policy["Statement"] for action in statement["Action"]}
    assert granted == REFERENCE_NODE_ACTIONS | AMAZON_EKS_CNI_POLICY_V5_ACTIONS


def test_execution_role_grants_everything_the_vpc_cni_calls(node_policy):
    granted = {action for statement in node_policy["Statement"] for action in statement["Action"]}
    assert AMAZON_EKS_CNI_POLICY_V5_ACTIONS - granted == set()


def test_execution_role_scopes_each_node_action_as_tightly_as_it_allows(node_policy):
    for statement in node_policy["Statement"]:
        if statement["Resource"] == "*":
            assert set(statement["Action"]) <= UNSCOPABLE, statement["Sid"]
            assert statement["Condition"] == {"StringEquals": {"aws:RequestedRegion": "us-west-2"}}
        else:
            assert all(":us-west-2:" in r for r in statement["Resource"]), statement["Sid"]
    by_sid = {s["Sid"]: s for s in node_policy["Statement"]}
    (pod_identity,) = by_sid["PodIdentity"]["Resource"]
    assert pod_identity.startswith("arn:aws:eks:us-west-2:111122223333:cluster/${")  # the shared cluster only
    created = by_sid["CreateNodeNetworkInterfaces"]["Resource"]
    assert "arn:aws:ec2:us-west-2:111122223333:subnet/subnet-0a1b2c3d4e5f60718" in created
    assert not any(r.endswith("subnet/*") or r.endswith("security-group/*") for r in created)


def test_parliament_finds_nothing_in_the_node_policy(node_policy):
    require_module("parliament")
    from parliament import analyze_policy_string

    findings = analyze_policy_string(json.dumps(node_policy)).findings
    assert [(f.issue, f.detail) for f in findings] == []


# --- regions --------------------------------------------------------------------------------


def test_task_governance_in_a_region_without_it_is_refused_naming_the_region(quickstart_data):
    quickstart_data["organization"]["region"] = "me-central-1"
    (problem,) = problems_of(quickstart_data)
    assert problem.startswith("organization.region:")
    assert "me-central-1" in problem and "us-west-2" in problem and "allow_unlisted_region" in problem


def test_a_region_added_since_is_accepted_with_the_opt_in(quickstart_data):
    quickstart_data["organization"]["region"] = "me-central-1"
    quickstart_data["cluster"]["task_governance"]["allow_unlisted_region"] = True
    assert problems_of(quickstart_data) == []


def test_without_task_governance_any_region_is_fine(quickstart_data):
    quickstart_data["organization"]["region"] = "me-central-1"
    quickstart_data["cluster"]["task_governance"] = {"enabled": False}
    assert problems_of(quickstart_data) == []


# --- names task governance derives -----------------------------------------------------------


def test_queue_names_are_exactly_what_task_governance_creates_even_for_the_longest_team():
    team = "t" * 40
    assert naming.team_cluster_queue(team) == f"hyperpod-ns-{team}-clusterqueue"
    assert naming.team_local_queue(team) == f"hyperpod-ns-{team}-localqueue"
    assert len(naming.team_local_queue(team)) == 63  # the label-value limit, exactly
    assert naming.derived_name_problems(team) == []


def test_a_team_name_whose_local_queue_kueue_could_not_label_is_refused():
    problems = naming.derived_name_problems("t" * 41)
    assert any("LocalQueue" in p and "64 characters" in p for p in problems)


def test_rbac_reads_the_cluster_queue_task_governance_creates():
    team = "t" * 40
    (queue_rule,) = [r for r in rbac.cluster_read_rules(team) if r.resources == ("clusterqueues",)]
    assert queue_rule.resource_names == (f"hyperpod-ns-{team}-clusterqueue",)


def test_priority_classes_are_shown_by_the_name_a_job_gives(quickstart_data):
    from hyperpod_teams.document import to_markdown
    from hyperpod_teams.review.report import build_report
    from hyperpod_teams.review.runbook import build_runbook

    spec = PlatformSpec.model_validate(quickstart_data)
    for document in (build_report(spec), build_runbook(spec)):
        assert "`training-priority`" in to_markdown(document)


# --- Kubernetes RBAC against the chart's team role --------------------------------------------

#: The scientists' rules of aws/sagemaker-hyperpod-cli's chart (v3.9.0):
#: helm_chart/HyperPodHelmChart/charts/team-role-and-bindings/templates/team-level-namespaced-role.yaml
#: and team-level-cluster-role.yaml, (API group, resources, verbs) as written there.
CHART_TEAM_ROLE = [
    ("", ("namespaces",), ("get", "describe")),
    ("batch", ("jobs",), ("get", "list", "watch", "create", "update", "patch", "delete")),
    ("", ("pods",), ("create", "get", "watch", "list")),
    ("", ("nodes", "nodes/status", "pods/status"), ("get", "list", "watch")),
    ("", ("pods/log",), ("get", "list")),
    ("kubeflow.org", ("pytorchjobs", "pytorchjobs/status"), ("get", "list", "watch", "create", "delete", "update")),
    ("", ("serviceaccounts",), ("get", "list")),
    ("", ("configmaps",), ("create", "update", "get", "delete")),
    ("", ("secrets",), ("create", "get", "list", "delete")),
    ("apiextensions.k8s.io", ("customresourcedefinitions",), ("list", "get")),
    ("kueue.x-k8s.io", ("workloads", "workloads/status"), ("get", "list", "watch", "patch")),
    # team-level-cluster-role.yaml
    ("", ("namespaces",), ("list", "get")),
    ("kueue.x-k8s.io", ("clusterqueues",), ("list", "get", "watch")),
    ("kueue.x-k8s.io", ("resourceflavors", "workloadpriorityclasses"), ("list", "get", "watch")),
]
#: What a scientist needs beyond the chart: the HyperPod CLI's own job kind
#: (src/sagemaker/hyperpod/training/hyperpod_pytorch_job.py: group sagemaker.amazonaws.com).
HYPERPOD_CLI_JOBS = [
    ("sagemaker.amazonaws.com", ("hyperpodpytorchjobs",), ("get", "list", "watch", "create", "delete", "patch")),
]


def scientist_grants(team: str) -> set[tuple[str, str, str]]:
    rules = [*rbac.SCIENTIST_RULES, *rbac.cluster_read_rules(team)]
    return {(g, r, v) for rule in rules for g in rule.api_groups for r in rule.resources for v in rule.verbs}


@pytest.mark.parametrize("api_group, resources, verbs", [*CHART_TEAM_ROLE, *HYPERPOD_CLI_JOBS])
def test_scientists_get_what_the_chart_team_role_grants_or_a_documented_reason(api_group, resources, verbs):
    granted = scientist_grants("nlp")
    for resource in resources:
        for verb in verbs:
            key = (api_group, resource, verb)
            assert key in granted or key in rbac.CHART_DIFFERENCES, f"{key} neither granted nor explained"


def test_every_documented_difference_is_one_the_chart_makes_and_we_do_not_grant():
    chart = {(g, r, v) for g, rs, vs in CHART_TEAM_ROLE for r in rs for v in vs}
    granted = scientist_grants("nlp")
    for key in rbac.CHART_DIFFERENCES:
        assert key in chart and key not in granted, key


def test_scientists_read_their_own_namespace_and_the_workload_priority_classes():
    rules = rbac.cluster_read_rules("nlp")
    assert rbac.Rule(("",), ("namespaces",), ("get",), ("hyperpod-ns-nlp",)) in rules
    assert any("workloadpriorityclasses" in r.resources and "list" in r.verbs for r in rules)


def test_the_differences_are_listed_in_the_docs():
    from tests.conftest import ROOT

    text = (ROOT / "docs" / "kubernetes-access.md").read_text()
    for (group, resource, verb), _reason in rbac.CHART_DIFFERENCES.items():
        assert f"`{group or 'core'}` `{resource}` `{verb}`" in text


# --- tags -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tags, fragment",
    [
        ({"owner": "ml;platform"}, "';' is not allowed in a tag"),
        ({"cost#center": "x"}, "'#' is not allowed in a tag"),
        ({"aws:createdBy": "me"}, "reserved for AWS"),
        ({"AWS:team": "me"}, "reserved for AWS"),
        ({"hyperpod-teams:team": "nlp"}, "reserved for hyperpod-teams"),
        ({f"key{i}": "v" for i in range(48)}, "at most 47"),
    ],
)
def test_organization_tags_aws_would_refuse_are_refused(quickstart_data, tags, fragment):
    quickstart_data["organization"]["tags"] = tags
    problems = problems_of(quickstart_data)
    assert any(fragment in p for p in problems), problems
    assert all(p.startswith("organization.tags") for p in problems)


def test_tags_in_any_script_with_spaces_and_aws_punctuation_are_accepted(quickstart_data):
    quickstart_data["organization"]["tags"] = {"Équipe ML": "São Paulo 東京 _.:/=+-@"}
    quickstart_data["teams"][0]["cost_center"] = "cc-42 / ML"
    assert problems_of(quickstart_data) == []


def test_a_cost_center_aws_would_refuse_is_refused(quickstart_data):
    quickstart_data["teams"][0]["cost_center"] = "cc#42"
    assert any(p.startswith("teams.0.cost_center") for p in problems_of(quickstart_data))


# --- the cluster resource, the chart, Studio: synthesized --------------------------------------


def test_cluster_timeouts_default_to_cloudformations_handler_limit(quickstart_stacks):
    clusters = [
        r
        for r in quickstart_stacks["acme-cluster"]["resource"]["aws_cloudcontrolapi_resource"].values()
        if r["type_name"] == "AWS::SageMaker::Cluster"
    ]
    assert clusters[0]["timeouts"] == {"create": "720m", "update": "720m", "delete": "720m"}


def test_cluster_timeouts_are_settable_and_checked(quickstart_data):
    quickstart_data["cluster"]["timeouts"] = {"create": "24h"}
    spec = PlatformSpec.model_validate(quickstart_data)
    assert (spec.cluster.timeouts.create, spec.cluster.timeouts.delete) == ("24h", "720m")
    quickstart_data["cluster"]["timeouts"] = {"create": "2 hours"}
    with pytest.raises(ValidationError):
        PlatformSpec.model_validate(quickstart_data)


@pytest.fixture(scope="module")
def chart_release(quickstart_stacks) -> dict:
    (release,) = quickstart_stacks["acme-hyperpod-deps"]["resource"]["helm_release"].values()
    return release


def test_dependencies_chart_fetches_its_remote_dependencies_before_installing(chart_release):
    assert chart_release["dependency_update"] is True


def test_dependencies_chart_gets_its_regional_values_and_the_agents_region(chart_release):
    assert chart_release["set"] == [{"name": "health-monitoring-agent.region", "value": "us-west-2"}]
    (values,) = chart_release["values"]
    assert "regional-values/values-us-west-2.yaml" in values and "fileexists(" in values


def test_dependencies_chart_stops_the_plan_with_the_pinned_clone_command_when_missing(chart_release):
    (condition,) = chart_release["lifecycle"]["precondition"]
    assert "HyperPodHelmChart/Chart.yaml" in condition["condition"]
    assert (
        "git clone --depth 1 --branch v3.9.0 https://github.com/aws/sagemaker-hyperpod-cli"
        in condition["error_message"]
    )


def test_dependencies_chart_components_are_switched_by_the_charts_own_conditions(quickstart_data, tmp_path):
    quickstart_data["cluster"]["dependencies_chart"] = {
        "git_ref": "v3.8.0",
        "components": {"mlflow": True, "training-operators": False, "nvidia-device-plugin": False},
    }
    stacks = synthesize_stacks(PlatformSpec.model_validate(quickstart_data), tmp_path)
    (release,) = stacks["acme-hyperpod-deps"]["resource"]["helm_release"].values()
    assert {s["name"]: s["value"] for s in release["set"]} == {
        "health-monitoring-agent.region": "us-west-2",
        "mlflow.enabled": "true",
        "trainingOperators.enabled": "false",
        "nvidia-device-plugin.devicePlugin.enabled": "false",
    }
    assert "--branch v3.8.0" in release["lifecycle"]["precondition"][0]["error_message"]


def test_an_unknown_chart_component_is_refused_naming_the_known_ones(quickstart_data):
    quickstart_data["cluster"]["dependencies_chart"] = {"components": {"mlfow": True}}
    problems = problems_of(quickstart_data)
    assert any("mlflow" in p for p in problems), problems


# --- names the registry schema of AWS::SageMaker::Cluster bounds --------------------------------


@pytest.mark.parametrize(
    ("field", "definition"),
    [("cluster.name", ("properties", "ClusterName")), ("instance group name", ("definitions", "InstanceGroupName"))],
)
def test_a_name_longer_than_the_registry_schema_allows_is_refused(quickstart_data, field, definition):
    """The pattern alone accepts runs of hyphens past 63 characters; AWS::SageMaker::Cluster's
    registry schema (cfn-lint's bundled copy) bounds ClusterName and InstanceGroupName at 63."""
    require_module("cfnlint")
    from cfnlint.schema.manager import PROVIDER_SCHEMA_MANAGER

    schema = PROVIDER_SCHEMA_MANAGER.get_resource_schema("us-east-1", "AWS::SageMaker::Cluster").schema
    longest = schema[definition[0]][definition[1]]["maxLength"]
    assert longest == 63
    name = "a" + "-" * (longest - 1) + "b"  # 64 characters the pattern accepts
    if field == "cluster.name":
        quickstart_data["cluster"]["name"] = name
    else:
        quickstart_data["cluster"]["instance_groups"][0]["name"] = name
    assert any("63" in p for p in problems_of(quickstart_data)), problems_of(quickstart_data)
    if field == "cluster.name":
        quickstart_data["cluster"]["name"] = name[:62] + "b"
    else:
        quickstart_data["cluster"]["instance_groups"][0]["name"] = name[:62] + "b"
    assert not [p for p in problems_of(quickstart_data) if "63" in p]
