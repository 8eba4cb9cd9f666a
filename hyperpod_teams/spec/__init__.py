"""The team spec: models (the public contract of spec-v1.md), loading and validation. Pure layer."""

from hyperpod_teams.spec.loading import load_platform, load_spec, validate_platform, validate_spec
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.spec.problems import Problem, SpecError, format_path

__all__ = [
    "PlatformSpec",
    "Problem",
    "SpecError",
    "Team",
    "format_path",
    "load_platform",
    "load_spec",
    "validate_platform",
    "validate_spec",
]
