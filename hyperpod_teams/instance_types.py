"""The instance types a HyperPod cluster takes and the accelerators of each: a snapshot of
AWS's own models (pure layer), kept as data in instance_types.json beside this module and rebuilt
by tests/aws_models/build_instance_types.py, which says how; the file's "sources" name where each
table comes from.

CLUSTER_INSTANCE_TYPES: botocore's SageMaker service model, shape ClusterInstanceType (the
CloudFormation registry's AWS::SageMaker::ComputeQuota InstanceType enum is the same list).
STUDIO_INSTANCE_TYPES: the same model, shape AppInstanceType (its ml. types).
ACCELERATORS_PER_INSTANCE: GPUs, Trainium or Inferentia devices per instance, from EC2
DescribeInstanceTypes as moto ships it (the few types it lacks sourced by hand in the build
script); VCPUS_PER_INSTANCE and MEMORY_GIB_PER_INSTANCE from the same (VCpuInfo.DefaultVCpus,
MemoryInfo.SizeInMiB / 1024), for the types it has.
"""

from __future__ import annotations

import json
from pathlib import Path

_DATA = json.loads((Path(__file__).with_name("instance_types.json")).read_text(encoding="utf-8"))

BOTOCORE_VERSION: str = _DATA["botocore_version"]
CLUSTER_INSTANCE_TYPES: tuple[str, ...] = tuple(_DATA["cluster_instance_types"])
STUDIO_INSTANCE_TYPES: tuple[str, ...] = tuple(_DATA["studio_instance_types"])
ACCELERATORS_PER_INSTANCE: dict[str, int] = _DATA["accelerators_per_instance"]
VCPUS_PER_INSTANCE: dict[str, int] = _DATA["vcpus_per_instance"]
MEMORY_GIB_PER_INSTANCE: dict[str, float] = _DATA["memory_gib_per_instance"]

#: For membership tests (the spec's check, the quota split's).
OFFERED: frozenset[str] = frozenset(CLUSTER_INSTANCE_TYPES)
#: For membership tests of a Studio app's instance type (the spec's check).
STUDIO_OFFERED: frozenset[str] = frozenset(STUDIO_INSTANCE_TYPES)
