"""A third-party identity provider whose SAML app is set up by hand: the identity stack only
publishes its metadata as outputs, and it imports the CDK engine (hyperpod_teams.engine.cdk) only when it builds."""

from __future__ import annotations

from pydantic import Field

from hyperpod_teams.plugins import IdentityBuild, IdentityGroups, IdentityProviderPlugin, PluginSettings


class AcmeIdpSettings(PluginSettings):
    tenant: str = Field(default="acme-test", pattern=r"^[a-z-]+$")
    group_prefix: str = "ACME "


class AcmeIdpPlugin(IdentityProviderPlugin):
    contract = 2
    name = "acme_idp"
    settings_model = AcmeIdpSettings
    settings: AcmeIdpSettings

    def configure_provider(self, stack, idp) -> None:
        """Nothing to configure: the app is set up in Acme's console."""

    def build(self, stack, idp, groups: IdentityGroups) -> IdentityBuild:
        from hyperpod_teams.engine import cdk  # the engine the app builds with (cdktn or cdktf)

        base = f"https://{self.settings.tenant}.idp.example.com"
        cdk.TerraformLocal(stack, "acme_tenant", self.settings.tenant)
        # Acme prefixes the groups it provisions into Identity Center.
        return IdentityBuild(
            group_display_names={key: self.settings.group_prefix + name for key, name in groups.by_team_role.items()},
            platform_admins_display_name=self.settings.group_prefix + groups.platform_admins,
            outputs={
                "saml_metadata_url": f"{base}/saml/metadata",
                "saml_entity_id": f"{base}/saml",
                "saml_sign_in_url": f"{base}/saml/sso",
            },
        )


class NotAPlugin:
    name = "acme_broken"
