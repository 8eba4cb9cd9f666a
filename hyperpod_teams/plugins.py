"""The identity-provider plugin contract and its registry (entry-point group
`hyperpod_teams.identity_providers`).

Pure layer: discovering a plugin and validating its settings imports no cdktf. A plugin imports its
Terraform bindings only inside `build`, when it is selected and its resources are created.
Built-in plugins (providers/ in the repo) are registered through entry points exactly like
third-party ones.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel, ConfigDict

from hyperpod_teams import naming

if TYPE_CHECKING:  # pragma: no cover - typing only
    from constructs import Construct

    from hyperpod_teams.spec.models import PlatformSpec

ENTRY_POINT_GROUP = "hyperpod_teams.identity_providers"


class PluginSettings(BaseModel):
    """Base for a plugin's `identity.settings` model: every setting has a default, unknown
    settings are rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class IdentityGroups:
    """The IdP groups to create or expect: (team, role) -> display name, plus platform admins."""

    by_team_role: dict[tuple[str, str], str]
    platform_admins: str

    @classmethod
    def for_spec(cls, spec: PlatformSpec) -> IdentityGroups:
        pattern, org = spec.identity.group_name_pattern, spec.organization
        return cls(
            by_team_role={
                (team.name, role): naming.team_group_name(pattern, org.name, team, role)
                for team in spec.teams
                for role in naming.ROLES
            },
            platform_admins=naming.platform_admins_group(pattern, org),
        )


@dataclass
class IdentityBuild:
    """What a plugin's build hands to later stacks and to the runbook."""

    #: Group display names as IAM Identity Center will see them, keyed like IdentityGroups.
    group_display_names: dict[tuple[str, str], str] = field(default_factory=dict)
    platform_admins_display_name: str | None = None
    #: Names of the Terraform outputs (in the identity stack) an operator needs.
    outputs: dict[str, str] = field(default_factory=dict)


class IdentityProviderPlugin(ABC):
    """One identity provider: its settings model, its Terraform provider and its resources."""

    #: The value of `identity.provider` that selects this plugin.
    name: ClassVar[str]
    #: The model that validates `identity.settings`.
    settings_model: ClassVar[type[PluginSettings]] = PluginSettings
    #: Whether the plugin creates resources with the IdP's own credentials (an identity stack).
    needs_identity_stack: ClassVar[bool] = True

    def __init__(self, settings: PluginSettings) -> None:
        self.settings = settings

    @abstractmethod
    def configure_provider(self, stack: Construct, spec: PlatformSpec) -> None:
        """Create the Terraform provider(s) of the identity stack."""

    @abstractmethod
    def build(self, stack: Construct, spec: PlatformSpec, groups: IdentityGroups) -> IdentityBuild:
        """Create the IdP-side resources in the identity stack."""


class PluginError(Exception):
    """A plugin is missing or breaks the contract."""


def _check_contract(name: str, plugin: object) -> type[IdentityProviderPlugin]:
    where = f"identity-provider plugin {name!r} (entry point in group {ENTRY_POINT_GROUP!r})"
    if not (inspect.isclass(plugin) and issubclass(plugin, IdentityProviderPlugin)):
        raise PluginError(
            f"{where} is {plugin!r}, not a subclass of hyperpod_teams.plugins.IdentityProviderPlugin"
        )
    if inspect.isabstract(plugin):
        missing = ", ".join(sorted(plugin.__abstractmethods__))
        raise PluginError(f"{where} does not implement: {missing}")
    if getattr(plugin, "name", None) != name:
        raise PluginError(
            f"{where} declares name {getattr(plugin, 'name', None)!r}; it must equal the entry-point name"
        )
    settings_model = getattr(plugin, "settings_model", None)
    if not (inspect.isclass(settings_model) and issubclass(settings_model, BaseModel)):
        raise PluginError(f"{where}: settings_model must be a Pydantic model class")
    if settings_model.model_config.get("extra") != "forbid":
        raise PluginError(f"{where}: settings_model must reject unknown settings (extra='forbid')")
    required = [n for n, f in settings_model.model_fields.items() if f.is_required()]
    if required:
        raise PluginError(f"{where}: every setting needs a default; required: {', '.join(required)}")
    return plugin


@cache
def installed_identity_providers() -> tuple[str, ...]:
    return tuple(sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}))


@cache
def load_identity_provider(name: str) -> type[IdentityProviderPlugin]:
    """The plugin class registered under `name`, checked against the contract."""
    matches = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not matches:
        installed = ", ".join(installed_identity_providers()) or "none"
        raise PluginError(f"no identity-provider plugin named {name!r} is installed (installed: {installed})")
    try:
        plugin = matches[0].load()
    except Exception as exc:  # a broken third-party package must not look like our bug
        raise PluginError(f"identity-provider plugin {name!r} failed to load: {exc}") from exc
    return _check_contract(name, plugin)
