"""Any SAML 2.0 identity provider configured by hand: no IdP-side resources.

The groups are provisioned into IAM Identity Center by the external IdP (SCIM) and looked up
there by display name; with `create_groups_in_identity_center: true` the access stack creates them
in Identity Center instead (`aws_identitystore_group`), for IdPs that do not provision groups.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from hyperpod_teams import plugins

if TYPE_CHECKING:  # pragma: no cover
    from constructs import Construct


class GenericSamlSettings(plugins.PluginSettings):
    create_groups_in_identity_center: bool = Field(
        default=False,
        description="Create the team roles' and platform admins' groups in IAM Identity Center "
        "instead of expecting the IdP to provision them. Their members are then managed in "
        "Identity Center.",
    )


class GenericSamlPlugin(plugins.IdentityProviderPlugin):
    contract = plugins.CONTRACT_VERSION
    name = "generic_saml"
    settings_model = GenericSamlSettings
    settings: GenericSamlSettings
    needs_identity_stack = False

    @property
    def creates_identity_center_groups(self) -> bool:
        return self.settings.create_groups_in_identity_center

    def provisioning_steps(self, identity_stack: str | None) -> list[str]:
        if self.settings.create_groups_in_identity_center:
            return [
                "Provision the users (SCIM from your IdP, or by hand); the access stack creates the groups "
                "listed below in Identity Center: add their members there."
            ]
        return super().provisioning_steps(identity_stack)

    def configure_provider(self, stack: Construct, idp: plugins.IdentityProviderInputs) -> None:
        """No identity stack: nothing is created with the IdP's credentials."""

    def build(
        self, stack: Construct, idp: plugins.IdentityProviderInputs, groups: plugins.IdentityGroups
    ) -> plugins.IdentityBuild:
        return plugins.IdentityBuild.unchanged(groups)
