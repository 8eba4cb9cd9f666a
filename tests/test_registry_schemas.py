"""Every Cloud Control desired state the stacks write is checked against the CloudFormation
registry's schema of its type at `validate` (hyperpod_teams/registry.py), with the registry's
schemas as cfn-lint bundles them."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys

import pytest
import yaml

from hyperpod_teams import registry
from tests.conftest import QUICKSTART, require_module

TYPES = sorted(registry.SCHEMA_FILES)


@pytest.mark.parametrize("type_name", TYPES)
def test_the_copies_are_the_registry_schemas_the_pinned_cfn_lint_bundles(type_name):
    require_module("cfnlint")
    from cfnlint.schema.manager import PROVIDER_SCHEMA_MANAGER

    assert registry.schema(type_name) == PROVIDER_SCHEMA_MANAGER.get_resource_schema("us-east-1", type_name).schema


#: What Terraform fills in at apply, in the shape AWS gives it, by the property the token is in.
APPLY_TIME_VALUES = {
    ("AWS::SageMaker::Cluster", "ClusterArn"): "arn:aws:eks:us-east-1:123456789012:cluster/ml-shared-eks",
    ("AWS::SageMaker::Cluster", "ExecutionRole"): "arn:aws:iam::123456789012:role/acme-ml-shared-hyperpod",
    ("AWS::SageMaker::Cluster", "SourceS3Uri"): "s3://acme-ml-shared-lifecycle-123456789012/",
    ("*", "ClusterArn"): "arn:aws:sagemaker:us-east-1:123456789012:cluster/a1b2c3d4e5f6",
}


def _fill_tokens(type_name: str, value, key: str | None = None):
    if isinstance(value, dict):
        return {k: _fill_tokens(type_name, v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill_tokens(type_name, v, key) for v in value]
    if isinstance(value, str) and re.fullmatch(r"\$\{.*\}", value):
        assert key is not None, f"a token at the top of a {type_name} desired state"
        return APPLY_TIME_VALUES.get((type_name, key)) or APPLY_TIME_VALUES[("*", key)]
    return value


def _desired_states(stacks: dict[str, dict]):
    for stack in stacks.values():
        for resource in stack.get("resource", {}).get("aws_cloudcontrolapi_resource", {}).values():
            document = json.loads(resource["desired_state"])
            yield resource["type_name"], _fill_tokens(resource["type_name"], document)


def test_every_desired_state_the_examples_synthesize_is_one_the_registry_accepts(example_stacks):
    checked: dict = {}
    for example, stacks in example_stacks.items():
        for type_name, document in _desired_states(stacks):
            assert registry.refusals(type_name, document) == [], (example, type_name, document)
            checked[type_name] = checked.get(type_name, 0) + 1
    assert set(checked) == set(TYPES), checked


def test_the_states_validate_checks_are_the_ones_synth_writes(quickstart_stacks):
    """validate checks the states it builds itself; synth writes the stacks' ones: the same."""
    from hyperpod_teams.spec import load_spec

    spec = load_spec(QUICKSTART)
    checked = sorted(
        (s.type_name, json.dumps(_without_apply_time(json.loads(s.build().desired_state())), sort_keys=True))
        for s in registry.desired_states(spec)
    )
    written = sorted(
        (t, json.dumps(_without_apply_time(json.loads(json.dumps(d))), sort_keys=True))
        for t, d in _desired_states(quickstart_stacks)
    )
    assert checked == written


def _without_apply_time(document):
    if isinstance(document, dict):
        return {
            k: _without_apply_time(v)
            for k, v in document.items()
            if k not in ("ClusterArn", "ExecutionRole", "SourceS3Uri")
        }
    if isinstance(document, list):
        return [_without_apply_time(v) for v in document]
    return document


def test_the_unicode_classes_of_the_registry_patterns_are_matched():
    quota = {
        "Name": "nlp",
        "ClusterArn": "arn:aws:sagemaker:us-east-1:123456789012:cluster/a1b2c3d4e5f6",
        "ComputeQuotaConfig": {"ComputeQuotaResources": []},
        "ComputeQuotaTarget": {"TeamName": "nlp"},
        "Description": "Équipe R&D — vision 🚀 (¥)",
    }
    assert registry.refusals("AWS::SageMaker::ComputeQuota", quota) == []
    bell = dict(quota, Description="a bell \a")
    (refusal,) = registry.refusals("AWS::SageMaker::ComputeQuota", bell)
    assert refusal.pointer == "/Description"


def test_a_read_only_property_in_a_desired_state_is_refused():
    state: dict = {"Name": "x", "ClusterArn": "arn:aws:sagemaker:us-east-1:123456789012:cluster/a1b2c3d4e5f6"}
    state |= {"SchedulerConfig": {"FairShare": "Enabled"}, "Status": "Created"}
    assert [r.pointer for r in registry.refusals("AWS::SageMaker::ClusterSchedulerConfig", state)] == ["/Status"]


def _validate(tmp_path, data) -> subprocess.CompletedProcess:
    path = tmp_path / "teams.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    return subprocess.run(
        [sys.executable, "-m", "hyperpod_teams.cli", "validate", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_control_character_in_a_team_display_name_is_refused_at_validate_naming_the_field(tmp_path, quickstart_data):
    """The team's display name goes into its compute quota's Description, whose registry pattern
    takes letters, marks, separators, symbols, numbers and punctuation only: Cloud Control would
    fail the apply of the team's stack. (A control character is refused before, by the spec's own
    rule; a zero-width space, a format character, is the registry pattern's alone.)"""
    data = copy.deepcopy(quickstart_data)
    data["teams"][0]["display_name"] = "Natural Language\u200bProcessing"
    result = _validate(tmp_path, data)
    assert result.returncode == 2, result.stdout + result.stderr
    output = result.stdout + result.stderr
    assert "teams[0].display_name" in output
    assert "AWS::SageMaker::ComputeQuota" in output and "/Description" in output
    assert "Traceback" not in output


def test_the_quickstart_passes_the_registry_check(tmp_path, quickstart_data):
    result = _validate(tmp_path, quickstart_data)
    assert result.returncode == 0, result.stdout + result.stderr
