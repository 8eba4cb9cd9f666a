"""The fields of HyperPod's newer API the spec speaks (#47), as they reach the Cloud Control
desired states, checked the way AWS checks them: by the CloudFormation registry schemas Cloud
Control validates against (hyperpod_teams/registry_schemas, cfn-lint's snapshot) and by
botocore's own parameter validator over the pinned SageMaker model's Create* request shapes.
The spec is tests/data/specs/hyperpod-api-fields.yaml: the quickstart with every new field."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from hyperpod_teams import cloudformation, cost, registry
from hyperpod_teams.spec import validate_spec

SPEC = Path(__file__).resolve().parent / "data" / "specs" / "hyperpod-api-fields.yaml"


@pytest.fixture(scope="module")
def spec():
    return validate_spec(yaml.safe_load(SPEC.read_text()))


@pytest.fixture(scope="module")
def states(spec) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for state in registry.desired_states(spec):
        found.setdefault(state.type_name, []).append(json.loads(state.build().desired_state()))
    return found


def test_every_desired_state_is_one_the_registry_schema_takes(states):
    for type_name, documents in states.items():
        for document in documents:
            assert registry.refusals(type_name, document) == [], type_name


@pytest.mark.parametrize(
    ("type_name", "operation"),
    [
        (cloudformation.CLUSTER_TYPE, "CreateCluster"),
        (cloudformation.COMPUTE_QUOTA_TYPE, "CreateComputeQuota"),
        (cloudformation.SCHEDULER_CONFIG_TYPE, "CreateClusterSchedulerConfig"),
    ],
)
def test_every_desired_state_is_a_request_botocore_validates(states, type_name, operation):
    """The desired state's properties are the API's members (same names): botocore's validator,
    over the pinned model, takes each as the Create request."""
    from botocore.validate import ParamValidator

    from tests.emulator.input_shapes import load_session

    session, _ = load_session()
    shape = session.get_service_model("sagemaker").operation_model(operation).input_shape
    for document in states[type_name]:
        report = ParamValidator().validate(document, shape)
        assert not report.has_errors(), report.generate_report()


def test_the_quotas_reach_aws_in_accelerators_partitions_and_vcpus(states):
    quotas = {q["ComputeQuotaTarget"]["TeamName"]: q for q in states[cloudformation.COMPUTE_QUOTA_TYPE]}
    nlp = quotas["nlp"]["ComputeQuotaConfig"]
    assert nlp["ComputeQuotaResources"] == [
        {"InstanceType": "ml.p5.48xlarge", "Accelerators": 20},
        {"InstanceType": "ml.c5.4xlarge", "VCpu": 24.0},
    ]
    assert nlp["ResourceSharingConfig"]["AbsoluteBorrowLimits"] == [
        {"InstanceType": "ml.p5.48xlarge", "Accelerators": 8}
    ]
    assert quotas["research"]["ComputeQuotaConfig"]["ComputeQuotaResources"] == [
        {"InstanceType": "ml.p5.48xlarge", "AcceleratorPartition": {"Type": "mig-1g.10gb", "Count": 14}}
    ]
    assert quotas["vision"]["ActivationState"] == "Disabled" and quotas["nlp"]["ActivationState"] == "Enabled"
    (scheduler,) = states[cloudformation.SCHEDULER_CONFIG_TYPE]
    assert scheduler["SchedulerConfig"]["IdleResourceSharing"] == "Enabled"


def test_the_instance_groups_reach_aws_with_labels_taints_plans_and_patching(states):
    (cluster,) = states[cloudformation.CLUSTER_TYPE]
    assert cluster["AutoScaling"] == {"Mode": "Enable", "AutoScalerType": "Karpenter"}
    assert cluster["NodeProvisioningMode"] == "Continuous"
    gpu, cpu = cluster["InstanceGroups"]
    assert gpu["MinInstanceCount"] == 4
    assert gpu["KubernetesConfig"] == {
        "Labels": {"hyperpod-teams/workload": "training"},
        "Taints": [{"Key": "nvidia.com/gpu", "Value": "present", "Effect": "NoSchedule"}],
    }
    assert gpu["TrainingPlanArn"].endswith(":training-plan/p5-plan-december")
    assert gpu["InstanceStorageConfigs"][0]["EbsVolumeConfig"]["VolumeKmsKeyId"].startswith("arn:aws:kms:")
    assert gpu["ImageReleaseVersion"] == "1.2.3"
    assert gpu["ScheduledUpdateConfig"] == {
        "ScheduleExpression": "cron(0 3 ? * SUN *)",
        "DeploymentConfig": {
            "RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "CAPACITY_PERCENTAGE", "Value": 25}},
            "WaitIntervalInSeconds": 600,
        },
    }
    assert cpu["CapacityRequirements"] == {"Spot": {}}
    assert cpu["AutoPatchConfig"] == {
        "PatchingStrategy": "WhenIdle",
        "DeploymentConfig": {"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 1}}},
    }


def test_a_team_with_part_of_the_instances_weighs_that_part_in_the_quota_split(spec):
    """By hand (weights are accelerators, the quickstart prices none): nlp 20 p5 GPUs = 20 (its
    24 c5 vCPUs weigh nothing: a c5 has no accelerators); vision 3 p5 nodes = 24; research 14
    mig-1g.10gb partitions of a p5, 7 to a GPU, = 2 GPUs. 20 : 24 : 2 of 46."""
    weights = cost.guaranteed_weights(spec)
    assert weights == {"nlp": Decimal(20), "vision": Decimal(24), "research": Decimal(2)}


def test_a_quota_in_accelerators_over_what_the_groups_hold_names_the_accelerators(tmp_path):
    from tests.test_cli import run_command

    data = yaml.safe_load(SPEC.read_text())
    data["teams"][0]["compute"]["quota"][0]["accelerators"] = 60
    path = tmp_path / "teams.yaml"
    path.write_text(yaml.safe_dump(data))
    result = run_command("validate", str(path))
    assert result.returncode == 2
    assert "ml.p5.48xlarge add up to 10.75 nodes across teams (86 of the 64 accelerators its groups hold)" in (
        result.stdout + result.stderr
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"accelerator_partition": {"type": "mig-1g.5gb", "count": 7}},
            "ml.p5.48xlarge offers no GPU partition mig-1g.5gb",
        ),
        ({"accelerator_partition": {"type": "mig-9g.1tb", "count": 7}}, "mig-1g.5gb"),
        ({"accelerators": -1}, "greater than or equal to 0"),
    ],
)
def test_quota_amounts_are_validated_as_aws_validates_them(tmp_path, change, message):
    from tests.test_cli import run_command

    data = yaml.safe_load(SPEC.read_text())
    data["teams"][2]["compute"]["quota"] = [{"instance_type": "ml.p5.48xlarge", **change}]
    path = tmp_path / "teams.yaml"
    path.write_text(yaml.safe_dump(data))
    result = run_command("validate", str(path))
    assert result.returncode == 2 and message in result.stdout + result.stderr, result.stdout + result.stderr


def test_the_third_deep_health_check_is_refused_naming_the_registry_schema(tmp_path):
    """botocore's DeepHealthCheckType has MultiNodeTrainingValidation; the registry schema Cloud
    Control validates AWS::SageMaker::Cluster against has two values: validate says so before
    an apply fails."""
    from tests.test_cli import run_command

    data = yaml.safe_load(SPEC.read_text())
    data["cluster"]["instance_groups"][0]["deep_health_checks"].append("MultiNodeTrainingValidation")
    path = tmp_path / "teams.yaml"
    path.write_text(yaml.safe_dump(data))
    result = run_command("validate", str(path))
    assert result.returncode == 2
    assert "Cloud Control would refuse the AWS::SageMaker::Cluster" in result.stdout + result.stderr


def test_the_report_says_which_team_may_land_on_which_group(spec):
    from hyperpod_teams.review.report import render_report

    text = render_report(spec)
    assert (
        "| gpu-workers | `ml.p5.48xlarge` | `hyperpod-teams/workload=training` | `nvidia.com/gpu=present:NoSchedule` | "
        "nlp 20 accelerators; vision 3 nodes (paused); research 14 x mig-1g.10gb |"
    ) in text
    assert "| nlp | 2.5 | 1.5 |" in text  # 20 of a p5's 8 GPUs each; 24 of a c5.4xlarge's 16 vCPUs
    assert "50 %, at most 8 accelerators of ml.p5.48xlarge" in text


def test_the_desired_states_are_applied_by_the_emulators_cloud_control_and_read_back(states):
    """The emulator tier's Cloud Control (tests/emulator/cloud_control.py: the registry schemas,
    create-only rules, a quota needing its cluster) creates the cluster, the scheduler config and
    every quota from these desired states, and reads each back with the new fields as sent."""
    from tests.conftest import require_module

    require_module("jsonpatch")
    from tests.emulator.cloud_control import CloudControl
    from tests.test_local_cloud_control import Call, create

    api = CloudControl(account_id="111122223333")
    (cluster,) = states[cloudformation.CLUSTER_TYPE]
    made = create(api, cloudformation.CLUSTER_TYPE, cluster)
    assert made["OperationStatus"] == "SUCCESS", made
    arn = made["Identifier"]

    def read(type_name: str, identifier: str) -> dict:
        found = api.get_resource(Call({"TypeName": type_name, "Identifier": identifier}))
        return json.loads(found["ResourceDescription"]["Properties"])

    held = read(cloudformation.CLUSTER_TYPE, arn)
    assert held["InstanceGroups"][0]["KubernetesConfig"] == cluster["InstanceGroups"][0]["KubernetesConfig"]
    assert held["NodeProvisioningMode"] == "Continuous" and held["AutoScaling"]["Mode"] == "Enable"
    (scheduler,) = states[cloudformation.SCHEDULER_CONFIG_TYPE]
    made = create(api, cloudformation.SCHEDULER_CONFIG_TYPE, dict(scheduler, ClusterArn=arn))
    assert made["OperationStatus"] == "SUCCESS", made
    assert read(cloudformation.SCHEDULER_CONFIG_TYPE, made["Identifier"])["SchedulerConfig"]["IdleResourceSharing"] == (
        "Enabled"
    )
    for quota in states[cloudformation.COMPUTE_QUOTA_TYPE]:
        made = create(api, cloudformation.COMPUTE_QUOTA_TYPE, dict(quota, ClusterArn=arn))
        assert made["OperationStatus"] == "SUCCESS", made
        back = read(cloudformation.COMPUTE_QUOTA_TYPE, made["Identifier"])
        assert back["ComputeQuotaConfig"] == quota["ComputeQuotaConfig"]
        assert back["ActivationState"] == quota["ActivationState"]


@pytest.mark.terraform
def test_the_stacks_of_the_spec_plan_through_the_stand_ins_with_the_fields_in_their_desired_states(tmp_path):
    """The spec synthesized by the real engine, its cluster and team stacks planned by Terraform
    against the schema stand-ins of the pinned providers: the plan creates the Cloud Control
    resources, the quotas with these fields in their desired states."""
    from hyperpod_teams.spec import load_spec
    from tests.conftest import synthesize_stacks
    from tests.offline_terraform import (
        in_parallel,
        stand_in_plan_config,
        stand_in_terraform,
        stub_remote_states,
        write_stack,
    )

    stacks = synthesize_stacks(load_spec(SPEC), tmp_path / "synth")
    wanted = {name: stack for name, stack in stacks.items() if name == "acme-cluster" or "-team-" in name}
    assert "acme-cluster" in wanted and len(wanted) == 4, sorted(stacks)
    terraform = stand_in_terraform(tmp_path)
    configs = {name: stand_in_plan_config(stack, {}) for name, stack in wanted.items()}
    directories = {name: write_stack(tmp_path, name, config) for name, config in configs.items()}
    for name, directory in directories.items():
        stub_remote_states(directory, configs[name])

    def plan(name: str):
        init = terraform.run(directories[name], "init", "-input=false", "-backend=false")
        return name, init.stderr if init.returncode else terraform.plan(directories[name])

    results = dict(in_parallel(plan, wanted))
    failed = {name: result for name, result in results.items() if isinstance(result, str)}
    assert not failed, failed
    created = [
        change
        for result in results.values()
        for change in result.get("resource_changes", [])
        if change["type"] == "aws_cloudcontrolapi_resource" and change["change"]["actions"] == ["create"]
    ]
    # The cluster's desired state names roles the plan cannot know yet (computed at apply); the
    # quotas' are whole at plan (the cluster's ARN comes from its stack's state).
    assert any(c["change"]["after"].get("type_name") == cloudformation.CLUSTER_TYPE for c in created)
    quotas = [
        json.loads(c["change"]["after"]["desired_state"])
        for c in created
        if c["change"]["after"].get("type_name") == cloudformation.COMPUTE_QUOTA_TYPE
    ]
    assert len(quotas) == 3
    assert {"InstanceType": "ml.p5.48xlarge", "AcceleratorPartition": {"Type": "mig-1g.10gb", "Count": 14}} in [
        r for q in quotas for r in q["ComputeQuotaConfig"]["ComputeQuotaResources"]
    ]
    assert {q["ActivationState"] for q in quotas} == {"Enabled", "Disabled"}


def test_autoscaling_gets_the_role_aws_documents_and_continuous_provisioning(states, spec, tmp_path):
    """SageMaker developer guide, "Create an IAM role for HyperPod autoscaling with Karpenter": a
    role trusted by hyperpod.sagemaker.amazonaws.com that may BatchAddClusterNodes and
    BatchDeleteClusterNodes; the cluster names it as ClusterRole. And Karpenter needs continuous
    provisioning: a spec without it is refused naming the field."""
    from hyperpod_teams import policies
    from tests.test_cli import run_command

    (cluster,) = states[cloudformation.CLUSTER_TYPE]
    assert cluster["ClusterRole"].endswith(":role/acme-ml-shared-hyperpod-autoscaling")
    trust = policies.hyperpod_autoscaling_trust_policy()
    assert trust["Statement"][0]["Principal"] == {"Service": "hyperpod.sagemaker.amazonaws.com"}
    policy = policies.hyperpod_autoscaling_policy(
        partition="aws", region="us-west-2", account_id="111122223333", kms_keys=["arn:aws:kms:us-west-2:1:key/k"]
    )
    assert policy["Statement"][0]["Action"] == ["sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes"]
    assert policy["Statement"][1]["Action"] == ["kms:CreateGrant"]
    assert policy["Statement"][1]["Condition"]["Bool"] == {"kms:GrantIsForAWSResource": "true"}
    data = yaml.safe_load(SPEC.read_text())
    del data["cluster"]["node_provisioning_mode"]
    path = tmp_path / "teams.yaml"
    path.write_text(yaml.safe_dump(data))
    result = run_command("validate", str(path))
    assert result.returncode == 2 and "node_provisioning_mode: Continuous" in result.stdout + result.stderr
