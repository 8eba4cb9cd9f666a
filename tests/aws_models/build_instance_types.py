"""Rebuild hyperpod_teams/instance_types.py from AWS's own models:

- the instance types HyperPod takes: botocore's SageMaker service model, shape `ClusterInstanceType`
  (the same enum as the CloudFormation registry's AWS::SageMaker::ComputeQuota `InstanceType`,
  which tests/test_instance_types.py compares it with);
- the accelerators of each: EC2 DescribeInstanceTypes (`GpuInfo.Gpus[].Count`,
  `NeuronInfo.NeuronDevices[].Count`) as moto ships a snapshot of it (moto/ec2/resources/
  instance_types.json.gz), for the EC2 type behind each `ml.` type; the few it lacks come from
  MISSING_FROM_EC2, each with its source.

    python -m tests.aws_models.build_instance_types path/to/botocore-X.whl > hyperpod_teams/instance_types.py
"""

from __future__ import annotations

import gzip
import json
import re
import sys
import zipfile
from pathlib import Path

#: Accelerated types EC2's snapshot lacks: (count, source).
MISSING_FROM_EC2 = {
    # EC2 user guide, "Amazon EC2 P6e-GB200 UltraServers": 72 B200 GPUs over 18 instances.
    "ml.p6e-gb200.36xlarge": (4, "EC2 P6e-GB200 UltraServers: 72 GPUs across 18 instances"),
}


def main() -> None:
    wheel = Path(sys.argv[1])
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if re.match(r"botocore/data/sagemaker/[^/]+/service-2\.json", n)]
        data = archive.read(name)
    model = json.loads(gzip.decompress(data) if name.endswith(".gz") else data)
    types = sorted(model["shapes"]["ClusterInstanceType"]["enum"])
    # The instance types of a Studio app (a JupyterLab space's default among them); "system" is
    # the type of the domain's system apps, no instance.
    app_types = sorted(t for t in model["shapes"]["AppInstanceType"]["enum"] if t.startswith("ml."))
    found = re.search(r"botocore-([\d.]+)-", wheel.name)
    assert found, f"{wheel.name} is not a botocore wheel"
    version = found[1]
    import moto

    ec2 = json.loads(
        gzip.decompress((Path(moto.__file__).parent / "ec2/resources/instance_types.json.gz").read_bytes())
    )
    counts: dict[str, int] = {}
    vcpus: dict[str, int] = {}
    memory: dict[str, float] = {}
    for instance_type in types:
        found = ec2.get(instance_type.removeprefix("ml."))
        if found is None:  # a type EC2's snapshot lacks: its count must be sourced by hand
            counts[instance_type] = MISSING_FROM_EC2[instance_type][0]
            continue
        vcpus[instance_type] = found["VCpuInfo"]["DefaultVCpus"]
        memory[instance_type] = found["MemoryInfo"]["SizeInMiB"] / 1024
        total = sum(g["Count"] for g in found.get("GpuInfo", {}).get("Gpus", []))
        total += sum(n["Count"] for n in found.get("NeuronInfo", {}).get("NeuronDevices", []))
        if total:
            counts[instance_type] = total
    lines = [
        '"""The instance types a HyperPod cluster takes and the accelerators of each: a snapshot of',
        "AWS's own models (pure layer; rebuilt by tests/aws_models/build_instance_types.py, which says",
        "how).",
        "",
        f"CLUSTER_INSTANCE_TYPES: botocore {version}, SageMaker service model, shape ClusterInstanceType",
        f"({len(types)} types; the CloudFormation registry's AWS::SageMaker::ComputeQuota InstanceType enum is the",
        "same list).",
        f"STUDIO_INSTANCE_TYPES: the same model, shape AppInstanceType ({len(app_types)} ml. types).",
        "ACCELERATORS_PER_INSTANCE: GPUs, Trainium or Inferentia devices per instance, from EC2",
        f"DescribeInstanceTypes as moto {moto.__version__} ships it; VCPUS_PER_INSTANCE and",
        "MEMORY_GIB_PER_INSTANCE from the same (VCpuInfo.DefaultVCpus, MemoryInfo.SizeInMiB / 1024), for",
        "the types it has; the types it lacks:",
        *(f"{t}: {c} ({s})." for t, (c, s) in MISSING_FROM_EC2.items()),
        '"""',
        "",
        "from __future__ import annotations",
        "",
        f'BOTOCORE_VERSION = "{version}"',
        "",
        "CLUSTER_INSTANCE_TYPES: tuple[str, ...] = (",
        *(f'    "{t}",' for t in types),
        ")",
        "",
        "STUDIO_INSTANCE_TYPES: tuple[str, ...] = (",
        *(f'    "{t}",' for t in app_types),
        ")",
        "",
        "ACCELERATORS_PER_INSTANCE: dict[str, int] = {",
        *(f'    "{t}": {c},' for t, c in counts.items()),
        "}",
        "",
        "VCPUS_PER_INSTANCE: dict[str, int] = {",
        *(f'    "{t}": {c},' for t, c in vcpus.items()),
        "}",
        "",
        "MEMORY_GIB_PER_INSTANCE: dict[str, float] = {",
        *(f'    "{t}": {c!r},' for t, c in memory.items()),
        "}",
        "",
        "#: For membership tests (the spec's check, the quota split's).",
        "OFFERED: frozenset[str] = frozenset(CLUSTER_INSTANCE_TYPES)",
        "#: For membership tests of a Studio app's instance type (the spec's check).",
        "STUDIO_OFFERED: frozenset[str] = frozenset(STUDIO_INSTANCE_TYPES)",
        "",
    ]
    sys.stdout.write("\n".join(lines))


if __name__ == "__main__":
    main()
