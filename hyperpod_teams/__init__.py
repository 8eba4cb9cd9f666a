"""hyperpod-teams: compile typed team specs into Terraform stacks (CDK for Terraform) for a
SageMaker HyperPod EKS cluster shared by several ML teams.

Importing this package is cheap: the engine's constructs load only when `build_app` or the
`hyperpod_teams.stacks` package is used.
"""

from importlib.metadata import PackageNotFoundError, version

from hyperpod_teams.spec import PlatformSpec, SpecError, load_platform, load_spec, validate_platform, validate_spec

try:
    __version__ = version("hyperpod-teams")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0+unknown"

__all__ = [
    "PlatformSpec",
    "SpecError",
    "__version__",
    "build_app",
    "load_platform",
    "load_spec",
    "validate_platform",
    "validate_spec",
]


def __getattr__(name: str):
    if name == "build_app":
        from hyperpod_teams.app import build_app

        return build_app
    raise AttributeError(name)
