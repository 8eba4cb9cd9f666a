"""Any SAML 2.0 identity provider configured by hand: no IdP-side resources.

The groups are expected in IAM Identity Center, provisioned there by the external IdP.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hyperpod_teams.plugins import IdentityBuild, IdentityGroups, IdentityProviderPlugin, PluginSettings

if TYPE_CHECKING:  # pragma: no cover
    from constructs import Construct

    from hyperpod_teams.spec.models import PlatformSpec


class GenericSamlSettings(PluginSettings):
    pass


class GenericSamlPlugin(IdentityProviderPlugin):
    name = "generic_saml"
    settings_model = GenericSamlSettings
    needs_identity_stack = False

    def configure_provider(self, stack: Construct, spec: PlatformSpec) -> None:
        """No identity stack: nothing is created with the IdP's credentials."""

    def build(self, stack: Construct, spec: PlatformSpec, groups: IdentityGroups) -> IdentityBuild:
        return IdentityBuild(
            group_display_names=dict(groups.by_team_role),
            platform_admins_display_name=groups.platform_admins,
        )
