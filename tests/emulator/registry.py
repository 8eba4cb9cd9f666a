"""The CloudFormation registry's resource schemas of the three HyperPod types, for the local Cloud
Control API (cloud_control.py): read from the pinned cfn-lint's bundled registry (us-east-1), not
from the project's copies in hyperpod_teams/registry_schemas/ nor its models
(hyperpod_teams/cloudformation.py), so the emulator checks the stacks against AWS's schema by a
path of its own. The registry's patterns use `\\p{..}` classes: they are matched with `regex`.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import jsonschema
import regex
from cfnlint.schema.manager import PROVIDER_SCHEMA_MANAGER

TYPES = ("AWS::SageMaker::Cluster", "AWS::SageMaker::ClusterSchedulerConfig", "AWS::SageMaker::ComputeQuota")

Json = dict[str, Any]


@cache
def schema(type_name: str) -> Json:
    return PROVIDER_SCHEMA_MANAGER.get_resource_schema("us-east-1", type_name).schema


def _pattern(validator: Any, pattern: str, instance: Any, _schema: Json) -> Iterator[jsonschema.ValidationError]:
    if isinstance(instance, str) and not regex.search(pattern, instance):
        yield jsonschema.ValidationError(f"string [{instance}] does not match pattern {pattern}")


_Validator = jsonschema.validators.extend(jsonschema.Draft7Validator, {"pattern": _pattern})


@cache
def validator(type_name: str) -> Any:
    return _Validator({k: v for k, v in schema(type_name).items() if k not in ("typeName", "handlers")})
