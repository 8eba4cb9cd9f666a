"""hyperpod-teams: compile typed team specs into Terraform stacks (CDK for Terraform) for a
SageMaker HyperPod EKS cluster shared by several ML teams.

Importing this package is cheap: the cdktf constructs load only when `build_app` or the
`hyperpod_teams.stacks` package is used.
"""

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from importlib.metadata import PackageNotFoundError, version

from hyperpod_teams.spec import PlatformSpec, SpecError, load_spec, validate_spec

try:
    __version__ = version("hyperpod-teams")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0+unknown"

__all__ = ["PlatformSpec", "SpecError", "__version__", "build_app", "load_spec", "validate_spec"]


def __getattr__(name: str):
    if name == "build_app":
        from hyperpod_teams.app import build_app

        return build_app
    raise AttributeError(name)


#: The modules of what people read moved into `hyperpod_teams.review` after 0.1.0 (CHANGELOG);
#: their 0.1.0 import paths still work, with a DeprecationWarning naming the new one.
MOVED_MODULES = {
    f"hyperpod_teams.{name}": f"hyperpod_teams.review.{name}"
    for name in ("report", "runbook", "plan_summary", "document", "chargeback")
}


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`import hyperpod_teams.report` gives the module `hyperpod_teams.review.report` itself."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED_MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        new_name = MOVED_MODULES[spec.name]
        warnings.warn(f"{spec.name} moved to {new_name}; import it from there", DeprecationWarning, stacklevel=2)
        return importlib.import_module(new_name)

    def exec_module(self, module) -> None:
        """The module was executed under its new name."""


if not any(isinstance(finder, _MovedModuleFinder) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModuleFinder())
