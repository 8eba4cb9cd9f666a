"""Okta as the SAML 2.0 identity provider of IAM Identity Center, on either engine.

Validating settings imports no CDK engine; the identity stack's okta resources are written
without a generated binding (`terraform.py` says why) when it is built (`resources.py`). The Okta
provider configures SAML, groups and their assignment to the app; SCIM provisioning (the app's API
integration and group push) has no resource in it, so the runbook gives those steps.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from hyperpod_teams import plugins

if TYPE_CHECKING:  # pragma: no cover
    from constructs import Construct


#: Okta Integration Network name of the "AWS IAM Identity Center" app.
PRECONFIGURED_APP = "amazon_aws_sso"


class OktaSettings(plugins.PluginSettings):
    org_name: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9-]+$",
        description="Okta organization (the part before .okta.com); default: OKTA_ORG_NAME.",
    )
    base_url: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9.-]+\.[a-z]+$",
        description="Okta domain, e.g. okta.com or oktapreview.com; default: OKTA_BASE_URL, else okta.com.",
    )
    application_label: str | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        description="Label of the app in Okta; default: '<org> AWS IAM Identity Center'.",
    )
    key_years_valid: int = Field(
        default=3,
        ge=2,
        le=10,
        description="No effect, kept so that specs that set it stay valid: okta_app_saml applies it only with "
        "key_name, which the app does not use (Okta then manages the signing key's validity itself).",
        deprecated=True,
    )


class OktaPlugin(plugins.IdentityProviderPlugin):
    contract = plugins.CONTRACT_VERSION
    name = "okta"
    settings_model = OktaSettings
    settings: OktaSettings

    def provisioning_steps(self, identity_stack: str | None) -> list[str]:
        # The Okta provider has no resource for an app's API integration or group push.
        return [
            "In the Okta Admin Console, open the AWS IAM Identity Center app → *Provisioning* → *Configure API "
            "Integration*: enable it, paste the SCIM endpoint as *Base URL* and the access token as *API Token*, "
            "*Test API Credentials*, save; under *To App* enable *Create Users*, *Update User Attributes* and "
            "*Deactivate Users*.",
            "In the app's *Push Groups* tab, push each group listed below (*Push Groups* → *Find groups by name*).",
        ]

    def configure_provider(self, stack: Construct, idp: plugins.IdentityProviderInputs) -> None:
        from hyperpod_teams.providers.okta import terraform

        # The API token comes from OKTA_API_TOKEN (or OAuth settings in the environment), never the spec.
        terraform.provider(stack, "okta", org_name=self.settings.org_name, base_url=self.settings.base_url)

    def build(
        self, stack: Construct, idp: plugins.IdentityProviderInputs, groups: plugins.IdentityGroups
    ) -> plugins.IdentityBuild:
        from hyperpod_teams.providers.okta.resources import OktaIdentityCenterApplication

        application = OktaIdentityCenterApplication(
            stack, "identity-center", organization=idp.organization, settings=self.settings, groups=groups
        )
        # Okta pushes each group into Identity Center under its Okta name.
        return plugins.IdentityBuild.unchanged(groups, application.saml_outputs)
