"""The one place that decides which CDK engine builds the stacks; nothing else names one.

Two engines build the same stacks (docs/engines.md):

- **CDK Terrain** (`cdktn`), the maintained fork of CDKTF and the default: a plain
  hyperpod-teams brings it and its current prebuilt providers.
- **CDKTF** (`cdktf` 0.21, archived 2025-12-10), for apps written on it: the extra
  `hyperpod-teams[cdktf]` brings it and its frozen providers.

A process builds with one engine, fixed the first time the construct layer asks (`cdk`, or
`current()`), by the first of:

1. `use("cdktf")` / `use("cdktn")` (the CLI's `--engine`), or `for_app(app)` with the app object a
   library user passes in (`add_platform_stacks` calls it);
2. the environment variable HYPERPOD_TEAMS_ENGINE;
3. the engine the process has already imported (an app on cdktf that imports hyperpod-teams after
   `import cdktf` builds with cdktf);
4. cdktn when installed, else cdktf.

The construct layer reaches the engine's core module as `engine.cdk` (App, TerraformStack, Fn, ...)
and the provider bindings through `hyperpod_teams.bindings`, which asks here for the package names.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from hyperpod_teams.install_hint import install_extras

if TYPE_CHECKING:  # what editors and mypy see: the default engine's core module
    import cdktn as cdk  # noqa: F401

ENGINE_ENV = "HYPERPOD_TEAMS_ENGINE"


class EngineError(Exception):
    """The engine asked for is not installed, or another one is in use in this process."""


@dataclass(frozen=True)
class Engine:
    #: The core package (`import cdktn`), also the engine's name on the command line.
    name: str
    #: What a user calls it.
    title: str
    #: How its prebuilt provider packages are named: prefix + provider (cdktn_provider_aws).
    provider_prefix: str
    #: The provider versions its pinned bindings were generated from (docs/engines.md).
    provider_versions: tuple[tuple[str, str], ...]
    #: The `pip install` that brings it.
    install: str

    def provider_package(self, provider: str) -> str:
        """The Python package of this engine's prebuilt bindings of `provider` (aws, kubernetes, ...)."""
        return f"{self.provider_prefix}{provider}"

    def installed(self) -> bool:
        return importlib.util.find_spec(self.name) is not None


#: The provider versions each engine's pinned bindings were generated from (docs/engines.md), side
#: by side: provider -> (CDK Terrain's, CDKTF's). Okta's is written without a binding on both engines
#: (providers/okta/terraform.py).
PROVIDER_PINS: dict[str, tuple[str, str]] = {
    "aws": ("6.69.1", "6.25.0"),
    "kubernetes": ("3.4.0", "2.38.0"),
    "helm": ("3.3.0", "3.1.1"),
    "azuread": ("3.10.0", "3.7.0"),
    "okta": ("4.20.0", "4.20.0"),
}


def _pins(column: int) -> tuple[tuple[str, str], ...]:
    """One engine's column of PROVIDER_PINS: 0 CDK Terrain's, 1 CDKTF's."""
    return tuple((provider, pins[column]) for provider, pins in PROVIDER_PINS.items())


CDKTN = Engine("cdktn", "CDK Terrain", "cdktn_provider_", _pins(0), install_extras("entra"))
CDKTF = Engine("cdktf", "CDKTF", "cdktf_cdktf_provider_", _pins(1), install_extras("cdktf"))
ENGINES = {engine.name: engine for engine in (CDKTN, CDKTF)}
DEFAULT = CDKTN

_in_use: Engine | None = None


def _named(name: str, *, where: str) -> Engine:
    engine = ENGINES.get(name)
    if engine is None:
        raise EngineError(f"{where}: unknown engine {name!r}; choose one of: {', '.join(ENGINES)}")
    return engine


def use(name: str, *, where: str = "engine") -> Engine:
    """Build with engine `name` in this process. Refused when another engine is in use already
    (its stacks' classes are made of that engine's) or when `name` is not installed; `where` names
    what asked for an unknown one."""
    global _in_use
    engine = _named(name, where=where)
    if _in_use is not None and _in_use is not engine:
        raise EngineError(
            f"this process builds with {_in_use.title} ({_in_use.name}) already; choose {engine.name} before "
            f"hyperpod-teams' stacks are imported (hyperpod_teams.engine.use({engine.name!r}) or "
            f"{ENGINE_ENV}={engine.name})"
        )
    if not engine.installed():
        raise EngineError(f"the {engine.title} engine ({engine.name}) is not installed; run: {engine.install}")
    # The engine runs `terraform version` while it writes the stacks (for `terraform_data`), and
    # Terraform then asks HashiCorp's checkpoint service for its newest version unless
    # CHECKPOINT_DISABLE is set (Terraform CLI docs, "Environment Variables"): a network call the
    # user did not ask for. Set before the engine's node process starts, which inherits it.
    os.environ.setdefault("CHECKPOINT_DISABLE", "1")
    _in_use = engine
    return engine


def chosen() -> str | None:
    """The engine fixed so far in this process, or None while nothing has asked."""
    return _in_use.name if _in_use else None


def current() -> Engine:
    """The engine of this process, fixed now if nothing fixed it yet (see the module's docstring)."""
    if _in_use is not None:
        return _in_use
    requested = os.environ.get(ENGINE_ENV)
    if requested:
        return use(requested, where=ENGINE_ENV)
    imported = [engine for engine in ENGINES.values() if engine.name in sys.modules]
    if len(imported) == 1:
        return use(imported[0].name)
    for engine in (DEFAULT, *ENGINES.values()):
        if engine.installed():
            return use(engine.name)
    raise EngineError(f"no CDK engine is installed; run: {DEFAULT.install}")


def for_app(app: object) -> Engine:
    """The engine of a user's app object (a cdktn.App or a cdktf.App), which must be this
    process's engine; fixes it when nothing has yet."""
    package = type(app).__module__.partition(".")[0]
    if package not in ENGINES:
        raise EngineError(f"not an app of a CDK engine: {type(app).__module__}.{type(app).__qualname__}")
    if _in_use is not None and _in_use.name != package:
        raise EngineError(
            f"the app is a {package}.App, but hyperpod-teams' stacks were loaded for {_in_use.title} "
            f"({_in_use.name}); call hyperpod_teams.engine.use({package!r}) or set {ENGINE_ENV}={package} "
            "before importing hyperpod_teams.app, or build the app with the same engine"
        )
    return use(package)


def core() -> ModuleType:
    """The core module of this process's engine (cdktn or cdktf)."""
    return importlib.import_module(current().name)


def __getattr__(name: str) -> ModuleType:
    if name == "cdk":
        return core()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
