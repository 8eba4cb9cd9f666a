"""GPU partitions (NVIDIA Multi-Instance GPU profiles) a compute quota can be given in: which
profiles an instance type's GPUs offer, and what share of one GPU each profile is. Pure layer.

Sources:

- MIG_PROFILE_TYPES: botocore's SageMaker model (the version instance_types.BOTOCORE_VERSION
  names), shape `MIGProfileType`: what `ComputeQuotaResourceConfig.AcceleratorPartition.Type`
  accepts.
- PROFILES_BY_INSTANCE_TYPE: the HyperPod CLI (aws/sagemaker-hyperpod-cli, commit 011ca92,
  `src/sagemaker/hyperpod/training/constants.py`, `INSTANCE_TYPE_MIG_PROFILES`): what the CLI
  submits jobs, endpoints and spaces with (`--accelerator-partition-type`) per instance type.
- PER_GPU: NVIDIA's MIG user guide, "Supported MIG Profiles": on A100, H100, H200 and B200 alike,
  the six profiles of a GPU are, in the CLI's order, 1g (smallest memory) x7, 1g (double memory)
  x4, 2g x3, 3g x2, 4g x1, 7g x1 per GPU. A partition weighs 1 / (instances per GPU) of a GPU.
"""

from __future__ import annotations

from decimal import Decimal

MIG_PROFILE_TYPES: tuple[str, ...] = (
    "mig-1g.5gb", "mig-1g.10gb", "mig-1g.18gb", "mig-1g.20gb", "mig-1g.23gb", "mig-1g.35gb", "mig-1g.45gb",
    "mig-1g.47gb", "mig-2g.10gb", "mig-2g.20gb", "mig-2g.35gb", "mig-2g.45gb", "mig-2g.47gb", "mig-3g.20gb",
    "mig-3g.40gb", "mig-3g.71gb", "mig-3g.90gb", "mig-3g.93gb", "mig-4g.20gb", "mig-4g.40gb", "mig-4g.71gb",
    "mig-4g.90gb", "mig-4g.93gb", "mig-7g.40gb", "mig-7g.80gb", "mig-7g.141gb", "mig-7g.180gb", "mig-7g.186gb",
)  # fmt: skip

PROFILES_BY_INSTANCE_TYPE: dict[str, tuple[str, ...]] = {
    "ml.p4d.24xlarge": ("mig-1g.5gb", "mig-1g.10gb", "mig-2g.10gb", "mig-3g.20gb", "mig-4g.20gb", "mig-7g.40gb"),
    "ml.p4de.24xlarge": ("mig-1g.10gb", "mig-1g.20gb", "mig-2g.20gb", "mig-3g.40gb", "mig-4g.40gb", "mig-7g.80gb"),
    "ml.p5.48xlarge": ("mig-1g.10gb", "mig-1g.20gb", "mig-2g.20gb", "mig-3g.40gb", "mig-4g.40gb", "mig-7g.80gb"),
    "ml.p5e.48xlarge": ("mig-1g.18gb", "mig-1g.35gb", "mig-2g.35gb", "mig-3g.71gb", "mig-4g.71gb", "mig-7g.141gb"),
    "ml.p5en.48xlarge": ("mig-1g.18gb", "mig-1g.35gb", "mig-2g.35gb", "mig-3g.71gb", "mig-4g.71gb", "mig-7g.141gb"),
    "ml.p6-b200.48xlarge": ("mig-1g.23gb", "mig-1g.45gb", "mig-2g.45gb", "mig-3g.90gb", "mig-4g.90gb", "mig-7g.180gb"),
    "ml.p6-b300.48xlarge": (
        "mig-1g.34gb",
        "mig-1g.67gb",
        "mig-2g.67gb",
        "mig-3g.135gb",
        "mig-4g.135gb",
        "mig-7g.269gb",
    ),  # fmt: skip
    "ml.p6e-gb200.36xlarge": (
        "mig-1g.23gb",
        "mig-1g.47gb",
        "mig-2g.47gb",
        "mig-3g.93gb",
        "mig-4g.93gb",
        "mig-7g.186gb",
    ),  # fmt: skip
}

#: Instances of each profile one GPU holds, by the profile's place in its type's list.
_PER_GPU_BY_PLACE = (7, 4, 3, 2, 1, 1)


def per_gpu(instance_type: str, profile: str) -> int | None:
    """How many partitions of `profile` one GPU of the type holds, or None when the type does not
    offer the profile."""
    profiles = PROFILES_BY_INSTANCE_TYPE.get(instance_type, ())
    return _PER_GPU_BY_PLACE[profiles.index(profile)] if profile in profiles else None


def gpus_of(instance_type: str, profile: str, count: int) -> Decimal:
    """The GPUs `count` partitions of `profile` take (0 for a profile the type does not offer)."""
    held = per_gpu(instance_type, profile)
    return Decimal(count) / held if held else Decimal(0)
