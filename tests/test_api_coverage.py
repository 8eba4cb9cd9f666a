"""Every member of HyperPod's create requests, as botocore's SageMaker model (the version
tests/service-models-requirements.txt pins, installed by `make test` into .tools/service-models)
defines them, is a spec field or is named in hyperpod_teams/api_coverage.py with the reason it is
left out or what the stacks set it to."""

from __future__ import annotations

import gzip
import json
import typing

import pytest

from hyperpod_teams.api_coverage import COVERAGE, SHAPES
from hyperpod_teams.spec.models import PlatformSpec
from tests.emulator.input_shapes import MODELS_DIR


def sagemaker_shapes() -> dict:
    found = sorted((MODELS_DIR / "sagemaker").glob("*/service-2.json*"))
    if not found:
        pytest.fail(f"no SageMaker model under {MODELS_DIR}: `make test` installs the pinned botocore there")
    path = found[-1]
    text = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return json.loads(text)["shapes"]


def members(shapes: dict) -> list[str]:
    return [f"{shape}.{member}" for shape in SHAPES for member in shapes[shape]["members"]]


def spec_field_exists(path: str) -> bool:
    """`teams[].compute.quota[].accelerators` names a field of PlatformSpec, through lists and
    optional sections."""
    model: typing.Any = PlatformSpec
    for part in path.split("."):
        name = part.removesuffix("[]")
        fields = getattr(model, "model_fields", None)
        if not fields or name not in fields:
            return False
        annotation = fields[name].annotation
        model = _inner_model(annotation)
    return True


def _inner_model(annotation: typing.Any) -> typing.Any:
    """The model inside `X | None`, `list[X]`, `dict[K, X]`."""
    for arg in (annotation, *typing.get_args(annotation)):
        if hasattr(arg, "model_fields"):
            return arg
        for inner in typing.get_args(arg):
            if hasattr(inner, "model_fields"):
                return inner
    return None


def test_every_member_of_the_create_requests_is_a_spec_field_or_named_with_a_reason():
    shapes = sagemaker_shapes()
    missing = [m for m in members(shapes) if m not in COVERAGE]
    assert not missing, (
        f"botocore's SageMaker model has members no spec field sets and api_coverage.py does not name: {missing}. "
        "Add a spec field, or name it in hyperpod_teams/api_coverage.py with the reason it is left out"
    )
    stale = sorted(set(COVERAGE) - set(members(shapes)))
    assert not stale, f"api_coverage.py names members the model no longer has: {stale}"


@pytest.mark.parametrize("member", sorted(COVERAGE))
def test_each_entry_names_a_real_spec_field_or_gives_its_reason(member):
    kind, text = COVERAGE[member]
    assert kind in ("spec", "stacks", "left out"), kind
    if kind == "spec":
        assert spec_field_exists(text), f"{member}: {text} is no field of the spec"
    else:
        assert len(text) > 20, f"{member}: say why, not just that"


def test_the_check_fails_on_a_member_nobody_decided_on():
    shapes = sagemaker_shapes()
    shapes["SchedulerConfig"]["members"]["SomeNewSetting"] = {"shape": "String"}
    assert "SchedulerConfig.SomeNewSetting" in [m for m in members(shapes) if m not in COVERAGE]
    assert not spec_field_exists("teams[].compute.quota[].no_such_field")
