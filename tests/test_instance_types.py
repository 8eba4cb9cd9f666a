"""The instance types the spec accepts and what each weighs are AWS's own (hyperpod_teams/
instance_types.json, a snapshot of botocore's ClusterInstanceType and EC2's instance specifications),
checked here against the sources installed beside the tests: the CloudFormation registry schema of
AWS::SageMaker::ComputeQuota (cfn-lint's bundled copy) and EC2 DescribeInstanceTypes (moto's copy)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from hyperpod_teams import cost, instance_types
from hyperpod_teams.spec import validate_spec
from hyperpod_teams.spec.problems import SpecError
from tests.conftest import require_module


def test_the_types_are_the_registry_schemas_list():
    require_module("cfnlint")
    from cfnlint.schema import PROVIDER_SCHEMA_MANAGER

    schema = PROVIDER_SCHEMA_MANAGER.get_resource_schema("us-east-1", "AWS::SageMaker::ComputeQuota").schema
    registry = schema["definitions"]["ComputeQuotaResourceConfig"]["properties"]["InstanceType"]["enum"]
    assert sorted(instance_types.CLUSTER_INSTANCE_TYPES) == sorted(registry)
    assert "ml.p6-b200.48xlarge" in registry


def ec2_instance_types() -> dict:
    require_module("moto")
    import moto

    return json.loads(
        gzip.decompress((Path(moto.__file__).parent / "ec2/resources/instance_types.json.gz").read_bytes())
    )


def test_every_accelerated_type_has_its_accelerators_as_ec2_lists_them():
    ec2 = ec2_instance_types()
    for instance_type in instance_types.CLUSTER_INSTANCE_TYPES:
        found = ec2.get(instance_type.removeprefix("ml."))
        if found is None:  # sourced by hand in the build script
            assert instance_type in cost.ACCELERATORS_PER_INSTANCE, instance_type
            continue
        devices = sum(g["Count"] for g in found.get("GpuInfo", {}).get("Gpus", []))
        devices += sum(n["Count"] for n in found.get("NeuronInfo", {}).get("NeuronDevices", []))
        assert cost.ACCELERATORS_PER_INSTANCE.get(instance_type, 0) == devices, instance_type


def with_instance_type(data: dict, instance_type: str) -> dict:
    """The quickstart with its GPU group, and the quotas on it, of `instance_type`."""
    text = json.dumps(data).replace('"ml.p5.48xlarge"', json.dumps(instance_type))
    return json.loads(text)


def test_the_newest_gpu_nodes_hyperpod_offers_are_accepted(quickstart_data):
    spec = validate_spec(with_instance_type(quickstart_data, "ml.p6-b200.48xlarge"))
    assert spec.cluster.instance_groups[0].instance_type == "ml.p6-b200.48xlarge"
    assert cost.instance_worth("ml.p6-b200.48xlarge", {}) == 8


@pytest.mark.parametrize("instance_type", ["ml.p99.48xlarge", "ml.p5.49xlarge", "ml.g5.96xlarge"])
def test_a_type_aws_does_not_offer_is_refused_naming_the_nearest(quickstart_data, instance_type):
    with pytest.raises(SpecError) as error:
        validate_spec(with_instance_type(quickstart_data, instance_type))
    group = [p for p in error.value.problems if p.path[:3] == ("cluster", "instance_groups", 0)]
    (problem,) = group
    assert problem.path[-1] == "instance_type"
    assert f"{instance_type} is not an instance type HyperPod offers" in problem.message
    assert problem.hint and "did you mean ml." in problem.hint and "ClusterInstanceType" in problem.hint
