"""Every AWS-only stack of the examples the emulator tier does not apply passes `terraform validate`,
and those without data sources `terraform plan`, against the real AWS provider binary, offline.

The emulator tier (tests/test_emulator_tier.py) applies every AWS stack of quickstart,
existing-cluster and existing-hyperpod with the same binary: its apply validates and plans each
(and more), so they are not validated and planned again here. Every example's every stack is also
validated and planned against the providers it pins (tests/test_terraform_every_stack.py)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import EXAMPLE_SPECS
from tests.offline_terraform import (
    in_parallel,
    is_aws_only,
    needs_aws_to_plan,
    real_offline_plans,
    terraform_or_skip,
    write_stack,
)

pytestmark = pytest.mark.terraform

#: The examples whose AWS stacks the emulator tier applies with the real provider binary.
APPLIED_BY_THE_EMULATOR_TIER = ("quickstart", "existing-cluster", "existing-hyperpod")
NOT_APPLIED = [p.parent.name for p in EXAMPLE_SPECS if p.parent.name not in APPLIED_BY_THE_EMULATOR_TIER]


def test_the_examples_left_to_the_emulator_tier_are_the_ones_it_applies():
    from tests import test_emulator_tier as tier

    assert {*tier.TIER_EXAMPLES, tier.ADOPTING_EXAMPLE} == set(APPLIED_BY_THE_EMULATOR_TIER)


@pytest.mark.parametrize("example", NOT_APPLIED)
def test_aws_stacks_pass_terraform_validate(example, example_stacks, tmp_path):
    """The stacks the plan test below cannot plan offline (they read data sources of AWS); a plan
    validates the configuration first, so the others are validated there."""
    terraform = terraform_or_skip(tmp_path)
    stacks = {name: s for name, s in example_stacks[example].items() if is_aws_only(s) and needs_aws_to_plan(s)}
    assert stacks, "an example whose every AWS stack plans offline: nothing left to validate here"

    def validate(name: str) -> tuple[str, object]:
        result = terraform.run(write_stack(tmp_path, name, stacks[name]), "validate", "-json")
        return name, json.loads(result.stdout)

    failures = {name: report["diagnostics"] for name, report in in_parallel(validate, stacks) if not report["valid"]}
    assert not failures, json.dumps(failures, indent=2)


@pytest.mark.parametrize("example", NOT_APPLIED)
def test_aws_stacks_without_data_sources_pass_terraform_plan(example, example_stacks, tmp_path_factory):
    """Cross-stack references on local state plan against stub state files of the stacks they
    read; any other data source needs AWS, and such a stack is only validated. (The plans are
    made once per run: checkov's plan scan reads the same, tests/test_security_checks.py.)"""
    results = real_offline_plans(tmp_path_factory, example, example_stacks[example])
    if not results:
        pytest.skip(f"every AWS stack of {example} reads data sources, which need AWS to plan")
    failures = {name: result for name, result in results.items() if isinstance(result, str)}
    assert not failures, "\n".join(f"{name}:\n{error}" for name, error in failures.items())
    for name, plan_json in results.items():
        assert isinstance(plan_json, dict)
        actions = {tuple(change["change"]["actions"]) for change in plan_json.get("resource_changes", [])}
        assert actions <= {("create",)}, f"{name}: a first plan must only create, got {actions}"


def test_library_example_passes_terraform_validate(tmp_path):
    import runpy

    from tests.conftest import QUICKSTART, ROOT

    terraform = terraform_or_skip(tmp_path)
    example = runpy.run_path(str(ROOT / "examples" / "library" / "app.py"))
    example["main"](["app.py", str(QUICKSTART), "nlp", str(tmp_path / "out")])
    stack = json.loads((tmp_path / "out" / "stacks" / "nlp-team" / "cdk.tf.json").read_text())
    result = terraform.run(write_stack(tmp_path, "nlp-team", stack), "validate", "-json")
    report = json.loads(result.stdout)
    assert report["valid"], json.dumps(report["diagnostics"], indent=2)


def test_the_stacks_pin_the_provider_version_the_header_names(example_stacks):
    """The header line says which provider the stacks pin; it must be the one they really pin."""
    from hyperpod_teams import engine
    from tests.conftest import PINNED_AWS_PROVIDER

    pins = {
        name: stack["terraform"]["required_providers"]["aws"]["version"]
        for name, stacks in example_stacks.items()
        for stack in stacks.values()
        if "aws" in stack["terraform"].get("required_providers", {})
    }
    assert set(pins.values()) == {PINNED_AWS_PROVIDER} == {dict(engine.DEFAULT.provider_versions)["aws"]}
