"""Rebuild hyperpod_teams/instance_types.json (the data hyperpod_teams/instance_types.py loads) from AWS's own models:

- the instance types HyperPod takes: botocore's SageMaker service model, shape `ClusterInstanceType`
  (the same enum as the CloudFormation registry's AWS::SageMaker::ComputeQuota `InstanceType`,
  which tests/test_instance_types.py compares it with);
- the accelerators of each: EC2 DescribeInstanceTypes (`GpuInfo.Gpus[].Count`,
  `NeuronInfo.NeuronDevices[].Count`) as moto ships a snapshot of it (moto/ec2/resources/
  instance_types.json.gz), for the EC2 type behind each `ml.` type; the few it lacks come from
  MISSING_FROM_EC2, each with its source.

    python -m tests.aws_models.build_instance_types path/to/botocore-X.whl > hyperpod_teams/instance_types.json
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
    sources = {
        "cluster_instance_types": f"botocore {version}, SageMaker service model, shape ClusterInstanceType"
        " (the CloudFormation registry's AWS::SageMaker::ComputeQuota InstanceType enum is the same list)",
        "studio_instance_types": "the same model, shape AppInstanceType (ml. types)",
        "accelerators_per_instance": "GPUs, Trainium or Inferentia devices per instance, from EC2"
        f" DescribeInstanceTypes as moto {moto.__version__} ships it; "
        + "; ".join(f"{t}: {c} ({s})" for t, (c, s) in MISSING_FROM_EC2.items()),
        "vcpus_per_instance": "the same EC2 data, VCpuInfo.DefaultVCpus, for the types it has",
        "memory_gib_per_instance": "the same EC2 data, MemoryInfo.SizeInMiB / 1024, for the types it has",
    }
    table = {
        "sources": sources,
        "botocore_version": version,
        "cluster_instance_types": types,
        "studio_instance_types": app_types,
        "accelerators_per_instance": counts,
        "vcpus_per_instance": vcpus,
        "memory_gib_per_instance": memory,
    }
    sys.stdout.write(json.dumps(table, indent=1) + "\n")


if __name__ == "__main__":
    main()
