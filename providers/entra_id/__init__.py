"""Microsoft Entra ID as the SAML 2.0 (and SCIM) identity provider of IAM Identity Center.

Validating settings imports nothing from cdktf; the azuread bindings (extra `entra`) are imported
only when the identity stack is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from hyperpod_teams.plugins import IdentityBuild, IdentityGroups, IdentityProviderPlugin, PluginSettings

if TYPE_CHECKING:  # pragma: no cover
    from constructs import Construct

    from hyperpod_teams.spec.models import PlatformSpec


class EntraIdSettings(PluginSettings):
    tenant_id: str | None = Field(
        default=None,
        pattern=r"^[0-9a-fA-F-]{36}$",
        description="Entra tenant ID; default: the azuread provider's own (ARM_TENANT_ID).",
    )


class EntraIdPlugin(IdentityProviderPlugin):
    name = "entra_id"
    settings_model = EntraIdSettings
    settings: EntraIdSettings

    def configure_provider(self, stack: Construct, spec: PlatformSpec) -> None:
        from hyperpod_teams.bindings import azuread_provider

        azuread_provider.AzureadProvider(stack, "azuread", tenant_id=self.settings.tenant_id)

    def build(self, stack: Construct, spec: PlatformSpec, groups: IdentityGroups) -> IdentityBuild:
        # The enterprise application, groups and SCIM provisioning arrive with the identity issue;
        # until then the stack carries only its provider and the group names it will create.
        return IdentityBuild(
            group_display_names=dict(groups.by_team_role),
            platform_admins_display_name=groups.platform_admins,
        )
