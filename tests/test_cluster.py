"""The cluster side: EKS, the HyperPod dependencies chart, the HyperPod cluster, task governance
and each team's compute quota, pinned against the spec field by field."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml
from pydantic import ValidationError

from hyperpod_teams import cloudformation
from hyperpod_teams.spec import load_spec, validate_spec
from hyperpod_teams.spec.problems import SpecError
from tests.conftest import QUICKSTART, ROOT, one_block, synthesize_stacks

EXISTING = ROOT / "examples" / "existing-cluster" / "teams.yaml"


def only(mapping: dict) -> dict:
    (value,) = mapping.values()
    return value


def cloud_control(stack: dict, type_name: str) -> list[dict]:
    return [
        r for r in stack["resource"].get("aws_cloudcontrolapi_resource", {}).values() if r["type_name"] == type_name
    ]


def desired_state(resource: dict) -> dict:
    return json.loads(resource["desired_state"])


def test_hyperpod_cluster_desired_state_follows_the_spec(quickstart_stacks):
    spec = load_spec(QUICKSTART)
    stack = quickstart_stacks["acme-cluster"]
    (resource,) = cloud_control(stack, "AWS::SageMaker::Cluster")
    state = desired_state(resource)
    assert state["ClusterName"] == spec.cluster.name
    assert state["NodeRecovery"] == spec.cluster.node_recovery
    assert state["VpcConfig"] == {
        "SecurityGroupIds": spec.cluster.network.security_group_ids,
        "Subnets": spec.cluster.network.subnet_ids,
    }
    assert "cross-stack-reference-input-acme-eks" in state["Orchestrator"]["Eks"]["ClusterArn"]
    (role,) = [r for r in stack["resource"]["aws_iam_role"].values() if r["name"].endswith("-hyperpod-nodes")]
    bucket = only(stack["resource"]["aws_s3_bucket"])["bucket"]
    assert len(state["InstanceGroups"]) == len(spec.cluster.instance_groups)
    for group, rendered in zip(spec.cluster.instance_groups, state["InstanceGroups"], strict=True):
        assert rendered["InstanceGroupName"] == group.name
        assert rendered["InstanceType"] == group.instance_type
        assert rendered["InstanceCount"] == group.count
        assert rendered["ThreadsPerCore"] == group.threads_per_core
        assert rendered["InstanceStorageConfigs"] == [{"EbsVolumeConfig": {"VolumeSizeInGB": group.ebs_volume_gb}}]
        assert rendered.get("OnStartDeepHealthChecks", []) == group.deep_health_checks
        assert rendered["LifeCycleConfig"] == {
            "SourceS3Uri": f"s3://{bucket}/lifecycle-scripts/",
            "OnCreate": "on_create.sh",
        }
        assert rendered["ExecutionRole"].startswith("${aws_iam_role.") and role["name"] in json.dumps(stack)
    assert {t["Key"]: t["Value"] for t in state["Tags"]} == {
        "hyperpod-teams:organization": "acme",
        "hyperpod-teams:platform": "shared",  # its spend is split across the teams (cost category)
        "owner": "ml-platform",
    }


def test_hyperpod_cluster_is_protected_from_destroy_unless_the_spec_allows_it(
    quickstart_stacks, quickstart_data, tmp_path
):
    (resource,) = cloud_control(quickstart_stacks["acme-cluster"], "AWS::SageMaker::Cluster")
    assert resource["lifecycle"]["prevent_destroy"] is True
    quickstart_data["cluster"]["allow_destroy"] = True
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)
    (resource,) = cloud_control(stacks["acme-cluster"], "AWS::SageMaker::Cluster")
    assert resource["lifecycle"]["prevent_destroy"] is False


def test_scheduler_config_carries_priorities_and_fair_share_after_the_add_on(quickstart_stacks):
    spec = load_spec(QUICKSTART)
    stack = quickstart_stacks["acme-cluster"]
    (addon,) = [
        a
        for a in stack["resource"]["aws_eks_addon"].values()
        if a["addon_name"] == "amazon-sagemaker-hyperpod-taskgovernance"
    ]
    assert "cross-stack-reference-input-acme-eks" in addon["cluster_name"]
    (resource,) = cloud_control(stack, "AWS::SageMaker::ClusterSchedulerConfig")
    state = desired_state(resource)
    assert state["SchedulerConfig"] == {
        "PriorityClasses": [
            {"Name": c.name, "Weight": c.weight} for c in spec.cluster.task_governance.priority_classes
        ],
        "FairShare": "Enabled",
    }
    assert state["ClusterArn"].startswith("${aws_cloudcontrolapi_resource.") and state["ClusterArn"].endswith(".id}")
    assert any(d.startswith("aws_eks_addon.") for d in resource["depends_on"])


@pytest.mark.parametrize("team_name", ["nlp", "vision", "research"])
def test_each_team_quota_follows_its_compute_spec(quickstart_stacks, team_name):
    team = load_spec(QUICKSTART).team(team_name)
    (resource,) = cloud_control(quickstart_stacks[f"acme-team-{team_name}"], "AWS::SageMaker::ComputeQuota")
    state = desired_state(resource)
    config = state["ComputeQuotaConfig"]
    assert config["ComputeQuotaResources"] == [
        {"InstanceType": q.instance_type, "Count": q.count} for q in team.compute.quota
    ]
    assert config["ResourceSharingConfig"]["Strategy"] == team.compute.sharing
    assert config["PreemptTeamTasks"] == team.compute.preempt_team_tasks
    assert state["ComputeQuotaTarget"] == {"TeamName": team.name, "FairShareWeight": team.compute.fair_share_weight}
    assert state["ActivationState"] == "Enabled"
    # The cluster ARN arrives by cross-stack reference, never hard-coded.
    assert "cross-stack-reference-input-acme-cluster" in state["ClusterArn"]
    tags = {t["Key"]: t["Value"] for t in state["Tags"]}
    assert tags["hyperpod-teams:team"] == team.name


def test_borrow_limit_is_sent_only_to_teams_that_borrow(quickstart_stacks):
    def sharing(team: str) -> dict:
        (quota,) = cloud_control(quickstart_stacks[f"acme-team-{team}"], "AWS::SageMaker::ComputeQuota")
        return desired_state(quota)["ComputeQuotaConfig"]["ResourceSharingConfig"]

    assert sharing("nlp") == {"Strategy": "LendAndBorrow", "BorrowLimit": 50}
    assert sharing("vision") == {"Strategy": "Lend"}
    assert sharing("research") == {"Strategy": "DontLend"}


def test_lifecycle_bucket_is_private_versioned_encrypted_and_tls_only(quickstart_stacks):
    resources = quickstart_stacks["acme-cluster"]["resource"]
    assert only(resources["aws_s3_bucket_versioning"])["versioning_configuration"]["status"] == "Enabled"
    encryption = only(resources["aws_s3_bucket_server_side_encryption_configuration"])
    assert encryption["rule"][0]["apply_server_side_encryption_by_default"]["sse_algorithm"] == "aws:kms"
    block = only(resources["aws_s3_bucket_public_access_block"])
    assert all(
        block[k] is True
        for k in ("block_public_acls", "block_public_policy", "ignore_public_acls", "restrict_public_buckets")
    )
    policy = json.loads(only(resources["aws_s3_bucket_policy"])["policy"])
    (statement,) = policy["Statement"]
    assert statement["Effect"] == "Deny" and statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    script = only(resources["aws_s3_object"])
    assert script["key"] == "lifecycle-scripts/on_create.sh" and script["content"].startswith("#!/bin/bash")


def test_execution_role_gets_the_managed_policy_and_reads_only_its_scripts(quickstart_stacks):
    """Its reading of the scripts; what EKS nodes need is pinned in test_aws_references."""
    resources = quickstart_stacks["acme-cluster"]["resource"]
    (role_key,) = [k for k, r in resources["aws_iam_role"].items() if r["name"].endswith("-hyperpod-nodes")]
    role = resources["aws_iam_role"][role_key]
    assert json.loads(role["assume_role_policy"])["Statement"][0]["Principal"] == {"Service": "sagemaker.amazonaws.com"}
    attached = {a["policy_arn"] for a in resources["aws_iam_role_policy_attachment"].values() if role_key in a["role"]}
    assert attached == {"arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy"}
    (reading,) = [p for p in resources["aws_iam_role_policy"].values() if p["name"] == "read-lifecycle-scripts"]
    inline = json.loads(reading["policy"])
    bucket = only(resources["aws_s3_bucket"])["bucket"]
    actions = {a for s in inline["Statement"] for a in s["Action"]}
    assert actions == {"s3:GetObject", "s3:ListBucket"}
    assert inline["Statement"][0]["Resource"] == [f"arn:aws:s3:::{bucket}/lifecycle-scripts/*"]


def test_existing_cluster_example_uses_its_scripts_and_creates_no_eks(tmp_path):
    stacks = synthesize_stacks(load_spec(EXISTING), tmp_path)
    assert "globex-identity" not in stacks  # generic SAML: nothing on the IdP side
    assert "aws_eks_cluster" not in stacks["globex-eks"].get("resource", {})
    cluster = stacks["globex-cluster"]["resource"]
    assert "aws_s3_bucket" not in cluster
    (resource,) = cloud_control(stacks["globex-cluster"], "AWS::SageMaker::Cluster")
    groups = desired_state(resource)["InstanceGroups"]
    assert groups[0]["LifeCycleConfig"]["SourceS3Uri"] == "s3://globex-hyperpod-lifecycle/scripts/"
    (reading,) = [p for p in cluster["aws_iam_role_policy"].values() if p["name"] == "read-lifecycle-scripts"]
    inline = json.loads(reading["policy"])
    assert inline["Statement"][0]["Resource"] == ["arn:aws:s3:::globex-hyperpod-lifecycle/scripts/*"]


def test_dependencies_chart_installs_before_the_hyperpod_cluster(quickstart_stacks):
    release = only(quickstart_stacks["acme-hyperpod-deps"]["resource"]["helm_release"])
    assert release["name"] == "hyperpod-dependencies" and release["namespace"] == "kube-system"
    assert release["chart"].endswith("helm_chart/HyperPodHelmChart") and release["atomic"] is True
    (helm,) = quickstart_stacks["acme-hyperpod-deps"]["provider"]["helm"]
    assert helm["kubernetes"]["exec"]["command"] == "aws"


def test_dependencies_chart_can_be_left_to_the_operator(quickstart_data, tmp_path):
    quickstart_data["cluster"]["dependencies_chart"] = {"install": False}
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)
    assert "acme-hyperpod-deps" not in stacks
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert set(manifest["stacks"]["acme-cluster"]["dependencies"]) == {"acme-eks", "acme-access"}


def test_without_task_governance_the_project_owns_the_namespaces(quickstart_data, quickstart_stacks, tmp_path):
    assert "kubernetes_namespace_v1" not in quickstart_stacks["acme-k8s-nlp"].get("resource", {})
    quickstart_data["cluster"]["task_governance"] = {"enabled": False}
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)
    addon_names = {a["addon_name"] for a in stacks["acme-cluster"]["resource"]["aws_eks_addon"].values()}
    assert "amazon-sagemaker-hyperpod-taskgovernance" not in addon_names
    assert not cloud_control(stacks["acme-cluster"], "AWS::SageMaker::ClusterSchedulerConfig")
    assert not stacks["acme-team-nlp"]["resource"].get("aws_cloudcontrolapi_resource")
    namespace = only(stacks["acme-k8s-nlp"]["resource"]["kubernetes_namespace_v1"])
    assert one_block(namespace["metadata"])["name"] == "hyperpod-ns-nlp"


def test_over_capacity_is_refused_before_synth(tmp_path):
    spec = tmp_path / "teams.yaml"
    spec.write_text(QUICKSTART.read_text().replace("count: 3}", "count: 5}", 1))
    result = subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "synth", str(spec), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "ml.p5.48xlarge add up to 9 nodes" in result.stderr and "has 8" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_misspelled_cloudformation_property_fails_in_python():
    with pytest.raises(ValidationError, match="VolumeSizeInGb"):
        cloudformation.ClusterEbsVolumeConfig.model_validate({"VolumeSizeInGb": 100})
    with pytest.raises(ValidationError):
        cloudformation.ResourceSharingConfig(strategy="LendandBorrow")


def _only(stack: dict, resource_type: str) -> dict:
    (body,) = stack["resource"][resource_type].values()
    return body


def test_eks_api_is_private_to_the_vpc_by_default_and_secrets_are_encrypted(quickstart_stacks):
    eks = quickstart_stacks["acme-eks"]
    cluster = _only(eks, "aws_eks_cluster")
    vpc = cluster["vpc_config"]
    assert vpc["endpoint_private_access"] is True and vpc["endpoint_public_access"] is False
    assert "public_access_cidrs" not in vpc
    encryption = cluster["encryption_config"]
    key_name = next(iter(eks["resource"]["aws_kms_key"]))
    assert encryption == {"provider": {"key_arn": f"${{aws_kms_key.{key_name}.arn}}"}, "resources": ["secrets"]}
    key = eks["resource"]["aws_kms_key"][key_name]
    assert key["enable_key_rotation"] is True and key["deletion_window_in_days"] == 30
    uses = [json.loads(p["policy"]) for p in eks["resource"]["aws_iam_role_policy"].values()]
    assert [s["Resource"] for u in uses for s in u["Statement"]] == [[f"${{aws_kms_key.{key_name}.arn}}"]]


def test_eks_api_opens_only_to_the_ranges_the_spec_names(quickstart_data, tmp_path):
    quickstart_data["cluster"]["eks"]["public_access_cidrs"] = ["203.0.113.0/24"]
    vpc = _only(synthesize_stacks(validate_spec(quickstart_data), tmp_path)["acme-eks"], "aws_eks_cluster")[
        "vpc_config"
    ]
    assert vpc["endpoint_public_access"] is True and vpc["public_access_cidrs"] == ["203.0.113.0/24"]


@pytest.mark.parametrize(
    ("eks", "field"),
    [
        ({"create": True, "public_access_cidrs": ["0.0.0.0/0"]}, ("cluster", "eks", "public_access_cidrs", 0)),
        (
            {"existing_cluster_name": "shared", "public_access_cidrs": ["203.0.113.0/24"]},
            ("cluster", "eks", "public_access_cidrs"),
        ),
    ],
    ids=["the whole internet", "an existing cluster"],
)
def test_public_access_cidrs_refuse_the_internet_and_existing_clusters(quickstart_data, eks, field):
    from hyperpod_teams.spec import SpecError

    quickstart_data["cluster"]["eks"] = eks
    with pytest.raises(SpecError) as error:
        validate_spec(quickstart_data)
    assert [p.path for p in error.value.problems] == [field]


def test_lifecycle_bucket_keeps_old_script_versions_for_90_days(quickstart_stacks):
    (rule,) = _only(quickstart_stacks["acme-cluster"], "aws_s3_bucket_lifecycle_configuration")["rule"]
    assert rule["status"] == "Enabled" and rule["noncurrent_version_expiration"] == [{"noncurrent_days": 90}]
    assert rule["abort_incomplete_multipart_upload"] == [{"days_after_initiation": 7}]


# --- the training operator (what `hyp create hyp-pytorch-job` needs) ---------------------------

#: awslabs/awsome-distributed-training, 1.architectures/7.sagemaker-hyperpod-eks/terraform-modules/
#: hyperpod-eks-tf/modules/hyperpod_training_operator/main.tf and modules/hyperpod_cluster/
#: cert_manager.tf (commit 0edaf15, 2026-06-01): the names AWS's own module installs it with.
REFERENCE_TRAINING_OPERATOR = {
    "addon_name": "amazon-sagemaker-hyperpod-training-operator",
    "namespace": "aws-hyperpod",
    "service_account": "hp-training-operator-controller-manager",
    "policy_arn": "arn:aws:iam::aws:policy/AmazonSageMakerHyperPodTrainingOperatorAccess",
    "trust_actions": ["sts:AssumeRole", "sts:TagSession"],
    "trust_service": "pods.eks.amazonaws.com",
    "cert_manager_version": "v1.18.2-eksbuild.2",
}


def addons_by_name(stack: dict) -> dict[str, tuple[str, dict]]:
    return {a["addon_name"]: (key, a) for key, a in stack.get("resource", {}).get("aws_eks_addon", {}).items()}


def test_the_training_operator_installs_as_awss_module_does_after_what_it_needs(quickstart_stacks):
    """SageMaker developer guide, "Installing the training operator": cert-manager and the EKS Pod
    Identity agent first; the association before the add-on, so the controller starts with credentials."""
    stack = quickstart_stacks["acme-cluster"]
    resources = stack["resource"]
    addons = addons_by_name(stack)
    key, operator = addons[str(REFERENCE_TRAINING_OPERATOR["addon_name"])]
    (association_key, association) = only_item(resources["aws_eks_pod_identity_association"])
    assert association["namespace"] == REFERENCE_TRAINING_OPERATOR["namespace"]
    assert association["service_account"] == REFERENCE_TRAINING_OPERATOR["service_account"]
    (role_key,) = [k for k, r in resources["aws_iam_role"].items() if r["name"].endswith("-training-operator")]
    assert association["role_arn"] == f"${{aws_iam_role.{role_key}.arn}}"
    trust = json.loads(resources["aws_iam_role"][role_key]["assume_role_policy"])["Statement"]
    assert [(s["Principal"]["Service"], sorted(s["Action"])) for s in trust] == [
        (REFERENCE_TRAINING_OPERATOR["trust_service"], REFERENCE_TRAINING_OPERATOR["trust_actions"])
    ]
    attachments = [a for a in resources["aws_iam_role_policy_attachment"].values() if role_key in a["role"]]
    assert [a["policy_arn"] for a in attachments] == [REFERENCE_TRAINING_OPERATOR["policy_arn"]]
    cert_manager_key, cert_manager = addons["cert-manager"]
    assert cert_manager["addon_version"] == REFERENCE_TRAINING_OPERATOR["cert_manager_version"]
    tolerations = json.loads(cert_manager["configuration_values"])["webhook"]["tolerations"]
    assert {t["effect"] for t in tolerations} == {"NoSchedule", "NoExecute", "PreferNoSchedule"}
    agent_key, _ = addons["eks-pod-identity-agent"]
    (cluster,) = [
        k for k, r in resources["aws_cloudcontrolapi_resource"].items() if r["type_name"] == "AWS::SageMaker::Cluster"
    ]
    assert set(operator["depends_on"]) >= {
        f"aws_eks_pod_identity_association.{association_key}",
        f"aws_eks_addon.{cert_manager_key}",
        f"aws_eks_addon.{agent_key}",
        f"aws_cloudcontrolapi_resource.{cluster}",
    }
    # Their pods need the HyperPod cluster's nodes.
    assert f"aws_cloudcontrolapi_resource.{cluster}" in cert_manager["depends_on"]


def only_item(mapping: dict) -> tuple[str, dict]:
    (item,) = mapping.items()
    return item


def _agents(stacks: dict) -> list[tuple[str, str]]:
    return [
        (name, addons_by_name(stack)["eks-pod-identity-agent"][0])
        for name, stack in stacks.items()
        if "eks-pod-identity-agent" in addons_by_name(stack)
    ]


def test_the_pod_identity_agent_stays_where_it_is_when_usage_reports_are_switched_on(quickstart_data, tmp_path):
    """The training operator and the usage-report operator share one agent in <org>-cluster: a move
    to another stack's state destroys it in one (every Pod Identity credential stops) and fails to
    create it in the other (EKS: "already exists"), which day 2 of the emulator tier hit."""
    before = _agents(synthesize_stacks(validate_spec(quickstart_data), tmp_path / "before"))
    quickstart_data["cost"] = {**quickstart_data.get("cost", {}), "usage_reports": {"enabled": True}}
    after = _agents(synthesize_stacks(validate_spec(quickstart_data), tmp_path / "after"))
    assert before == after and [name for name, _ in after] == ["acme-cluster"]
    quickstart_data["cluster"]["training_operator"] = {"install_pod_identity_agent": False}
    assert _agents(synthesize_stacks(validate_spec(quickstart_data), tmp_path / "reports")) == after
    quickstart_data["cost"]["usage_reports"]["install_pod_identity_agent"] = False
    assert _agents(synthesize_stacks(validate_spec(quickstart_data), tmp_path / "neither")) == []


def test_the_agents_former_addresses_move_or_are_forgotten_not_destroyed(quickstart_data, tmp_path):
    """Where the agent was before it was shared: the training operator's construct in <org>-cluster
    (a `moved` block to its address now), the usage-report stack (a `removed` block that keeps it).
    The addresses are the engine's own for those construct paths, computed here in a scratch stack."""
    from constructs import Construct

    from hyperpod_teams import bindings
    from hyperpod_teams.engine import cdk

    app = cdk.App(outdir=str(tmp_path / "scratch"))
    scratch = cdk.TerraformStack(app, "scratch")
    former = {}
    for scope_id in ("training-operator", "usage-report"):
        addon = bindings.aws_eks_addon.EksAddon(
            Construct(scratch, scope_id), "pod-identity-agent", cluster_name="c", addon_name="eks-pod-identity-agent"
        )
        former[scope_id] = f"aws_eks_addon.{scratch.get_logical_id(addon)}"
    quickstart_data["cost"] = {**quickstart_data.get("cost", {}), "usage_reports": {"enabled": True}}
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path / "out")
    ((_, agent),) = _agents(stacks)
    assert stacks["acme-cluster"]["moved"] == [{"from": former["training-operator"], "to": f"aws_eks_addon.{agent}"}]
    assert stacks["acme-usage-report"]["removed"] == [{"from": former["usage-report"], "lifecycle": {"destroy": False}}]


def test_what_the_cluster_has_already_is_not_installed_again(quickstart_data, tmp_path):
    quickstart_data["cluster"]["training_operator"] = {
        "install_cert_manager": False,
        "install_pod_identity_agent": False,
    }
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)
    assert set(addons_by_name(stacks["acme-cluster"])) == {
        "amazon-sagemaker-hyperpod-taskgovernance",
        "amazon-sagemaker-hyperpod-training-operator",
    }


def test_an_adopted_cluster_gets_the_operator_only_when_asked(tmp_path):
    data = yaml.safe_load((ROOT / "examples" / "existing-hyperpod" / "teams.yaml").read_text())
    stacks = synthesize_stacks(validate_spec(data), tmp_path / "default")
    assert not any("amazon-sagemaker-hyperpod-training-operator" in addons_by_name(s) for s in stacks.values())
    data["cluster"]["training_operator"] = {"install": True}
    stacks = synthesize_stacks(validate_spec(data), tmp_path / "asked")
    assert any("amazon-sagemaker-hyperpod-training-operator" in addons_by_name(s) for s in stacks.values())


def test_an_add_on_version_that_is_not_one_is_refused_naming_the_field(quickstart_data):
    quickstart_data["cluster"]["training_operator"] = {"version": "1.2.1"}
    with pytest.raises(SpecError) as error:
        validate_spec(quickstart_data)
    (problem,) = error.value.problems
    assert problem.path[-2:] == ("training_operator", "version")
    assert "v1.2.1-eksbuild.1" in problem.message + (problem.hint or "")
