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

if TYPE_CHECKING:  # pragma: no cover - typing only
    from constructs import Construct

ENTRY_POINT_GROUP = "hyperpod_teams.identity_providers"

#: The version of the plugin contract this hyperpod-teams speaks. A plugin declares the one it is
#: written for (`contract = 2`); 1 handed `configure_provider` and `build` the whole spec, 2 hands
#: them `IdentityProviderInputs`, so the spec can grow without breaking a plugin.
CONTRACT_VERSION = 2


@dataclass(frozen=True)
class IdentityProviderInputs:
    """What an identity provider's resources need of the spec, and no more."""

    #: `organization.name`: what a plugin names its application after.
    organization: str
    #: The AWS account and region the platform runs in, and its Identity Center.
    account_id: str
    region: str
    identity_center_instance_arn: str
    identity_store_id: str


class PluginSettings(BaseModel):
    """Base for a plugin's `identity.settings` model: every setting has a default, unknown
    settings are rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class IdentityGroups:
    """The IdP groups to create or expect: (team, role) -> display name, plus platform admins."""

    by_team_role: dict[tuple[str, str], str]
    platform_admins: str
    #: Keys of the groups the IdP has already (`members.<role>`, `platform_admins_group` in the
    #: spec): a plugin looks them up instead of creating them. PLATFORM_ADMINS_KEY for the admins.
    existing: frozenset[tuple[str, str]] = frozenset()

    def all(self) -> dict[tuple[str, str], str]:
        """Every group; the platform admins' keyed PLATFORM_ADMINS_KEY, like a team role."""
        return {**self.by_team_role, PLATFORM_ADMINS_KEY: self.platform_admins}

    @staticmethod
    def description(key: tuple[str, str], org: str) -> str:
        """What a created group is for, in the words its IdP shows to its admins."""
        team, role = key
        purpose = (
            "administer the shared HyperPod cluster" if key == PLATFORM_ADMINS_KEY else f"are the {role} of team {team}"
        )
        return f"Members {purpose} (hyperpod-teams, {org})"


#: Terraform outputs of the identity stack that a SAML plugin provides: what the operator pastes
#: into IAM Identity Center when switching its identity source to the external IdP (runbook).
SAML_OUTPUTS: dict[str, str] = {
    "saml_metadata_url": "IdP SAML metadata URL (download it and upload it as the IdP SAML metadata)",
    "saml_entity_id": "IdP issuer URL (entity ID)",
    "saml_sign_in_url": "IdP sign-in URL",
    "saml_certificate": "IdP certificate (base64 DER; wrap in PEM markers to upload it as a file)",
}

#: Terraform variables of the identity stack that carry IAM Identity Center's own SAML values,
#: which only the Identity Center console shows ("Change identity source" -> "External identity
#: provider" -> "Service provider metadata").
IDENTITY_CENTER_VARIABLES: dict[str, str] = {
    "identity_center_acs_url": "IAM Identity Center Assertion Consumer Service (ACS) URL",
    "identity_center_issuer_url": "IAM Identity Center issuer URL",
}

#: Terraform variables of automatic provisioning (SCIM): Identity Center shows them once, when
#: automatic provisioning is enabled. Sensitive: never in the spec, never in synthesized JSON.
SCIM_VARIABLES: dict[str, str] = {
    "scim_endpoint": "IAM Identity Center SCIM endpoint",
    "scim_access_token": "IAM Identity Center SCIM access token",
}
#: The switch that turns provisioning on once the SCIM variables are known (a second deploy).
SCIM_SWITCH_VARIABLE = "enable_scim_provisioning"


@dataclass
class IdentityBuild:
    """What a plugin's build hands to later stacks and to the runbook."""

    #: Group display names as IAM Identity Center will see them, keyed like IdentityGroups.
    group_display_names: dict[tuple[str, str], str]
    platform_admins_display_name: str
    #: Terraform outputs of the identity stack: output name -> value (usually a reference). The
    #: identity stack declares each one; SAML plugins provide the names of SAML_OUTPUTS.
    outputs: dict[str, object] = field(default_factory=dict)
    #: Names among `outputs` whose values are sensitive (Terraform insists they are marked).
    sensitive_outputs: frozenset[str] = frozenset()

    @classmethod
    def unchanged(
        cls,
        groups: IdentityGroups,
        outputs: dict[str, object] | None = None,
        sensitive_outputs: frozenset[str] = frozenset(),
    ) -> IdentityBuild:
        """Groups that reach Identity Center under their IdP names, with the stack's outputs."""
        return cls(
            group_display_names=dict(groups.by_team_role),
            platform_admins_display_name=groups.platform_admins,
            outputs=dict(outputs or {}),
            sensitive_outputs=sensitive_outputs,
        )

    def all_display_names(self) -> dict[tuple[str, str], str]:
        """Every group; the platform admins' keyed PLATFORM_ADMINS_KEY, like a team role."""
        return {**self.group_display_names, PLATFORM_ADMINS_KEY: self.platform_admins_display_name}


#: The key of the platform admins' group among the team roles' (team, role) keys; no team can be
#: named "" so it never collides with one.
PLATFORM_ADMINS_KEY = ("", "platform-admins")


def group_key_id(key: tuple[str, str]) -> str:
    """A construct ID for a group key: `<team>-<role>`, or `platform-admins`."""
    team, role = key
    return f"{team}-{role}" if team else role


class IdentityProviderPlugin(ABC):
    """One identity provider: its settings model, its Terraform provider and its resources.

    The contract is small: `contract`, `name`, `settings_model`, `configure_provider` and `build`.
    The rest has defaults a plugin overrides when its IdP differs.
    """

    #: The version of the contract the plugin is written for (CONTRACT_VERSION); declared by each
    #: plugin class itself.
    contract: ClassVar[int]
    #: The value of `identity.provider` that selects this plugin.
    name: ClassVar[str]
    #: The model that validates `identity.settings`.
    settings_model: ClassVar[type[PluginSettings]] = PluginSettings
    #: Whether the plugin creates resources with the IdP's own credentials (an identity stack).
    needs_identity_stack: ClassVar[bool] = True

    def __init__(self, settings: PluginSettings) -> None:
        self.settings = settings

    @property
    def creates_identity_center_groups(self) -> bool:
        """True when the groups are created in IAM Identity Center itself (the access stack does
        it) instead of being provisioned there from the IdP and looked up."""
        return False

    def provisioning_steps(self, identity_stack: str | None) -> list[str]:
        """The runbook's steps that turn on automatic provisioning (SCIM) into Identity Center,
        once Identity Center shows its SCIM endpoint and access token. Pure: no cdktf."""
        return [
            "Configure your identity provider's SCIM client for IAM Identity Center with that endpoint and "
            "token, and provision the groups listed below (with their members) to it."
        ]

    @abstractmethod
    def configure_provider(self, stack: Construct, idp: IdentityProviderInputs) -> None:
        """Create the Terraform provider(s) of the identity stack."""

    @abstractmethod
    def build(self, stack: Construct, idp: IdentityProviderInputs, groups: IdentityGroups) -> IdentityBuild:
        """Create the IdP-side resources in the identity stack; import the bindings here."""


class PluginError(Exception):
    """A plugin is missing or breaks the contract."""


#: The arguments each method of the contract is called with, by name (as pluggy checks a hook's).
_METHOD_ARGUMENTS = {"configure_provider": ("stack", "idp"), "build": ("stack", "idp", "groups")}


def _check_contract(name: str, plugin: object) -> type[IdentityProviderPlugin]:
    where = f"identity-provider plugin {name!r} (entry point in group {ENTRY_POINT_GROUP!r})"
    if not (inspect.isclass(plugin) and issubclass(plugin, IdentityProviderPlugin)):
        raise PluginError(f"{where} is {plugin!r}, not a subclass of hyperpod_teams.plugins.IdentityProviderPlugin")
    if inspect.isabstract(plugin):
        missing = ", ".join(sorted(plugin.__abstractmethods__))
        raise PluginError(f"{where} does not implement: {missing}")
    declared = next((vars(c)["contract"] for c in plugin.__mro__ if "contract" in vars(c)), None)
    if declared != CONTRACT_VERSION:
        raise PluginError(
            f"{where} is written for contract {declared if declared is not None else '1 (it declares none)'}; this "
            f"hyperpod-teams speaks contract {CONTRACT_VERSION}: declare `contract = {CONTRACT_VERSION}`, and take "
            "`idp: IdentityProviderInputs` instead of the spec (docs/plugins.md)"
        )
    for method, arguments in _METHOD_ARGUMENTS.items():
        parameters = list(inspect.signature(getattr(plugin, method)).parameters)[1:]
        if parameters != list(arguments):
            raise PluginError(
                f"{where}: {method} takes ({', '.join(parameters)}); contract {CONTRACT_VERSION} calls it with "
                f"({', '.join(arguments)})"
            )
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
