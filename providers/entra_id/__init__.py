"""Microsoft Entra ID as the SAML 2.0 (and SCIM) identity provider of IAM Identity Center.

Validating settings imports no CDK engine; the azuread bindings (extra `entra`) are imported
only when the identity stack is built (`resources.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from hyperpod_teams import bindings, plugins

#: The azuread bindings modules this plugin builds with, served by hyperpod_teams.bindings (the
#: `entra` extra installs them; nothing loads until the plugin builds).
bindings.register(
    {
        "azuread_app_role_assignment": "azuread.app_role_assignment",
        "azuread_application": "azuread.application",
        "azuread_data_client_config": "azuread.data_azuread_client_config",
        "azuread_data_group": "azuread.data_azuread_group",
        "azuread_group": "azuread.group",
        "azuread_provider": "azuread.provider",
        "azuread_service_principal": "azuread.service_principal",
        "azuread_service_principal_token_signing_certificate": ("azuread.service_principal_token_signing_certificate"),
        "azuread_synchronization_job": "azuread.synchronization_job",
        "azuread_synchronization_secret": "azuread.synchronization_secret",
    },
    extra="entra",
)

if TYPE_CHECKING:  # pragma: no cover
    from constructs import Construct


#: Gallery template "AWS IAM Identity Center (successor to AWS Single Sign-On)".
AWS_IDENTITY_CENTER_TEMPLATE_ID = "21ed01d2-ec13-4e9e-86c1-cd546719ebc4"
#: That template's "User" app role, which the team groups are assigned with.
TEMPLATE_USER_APP_ROLE_ID = "8774f594-1d59-4279-b9d9-59ef09a23530"
#: The template's provisioning (synchronization) template.
TEMPLATE_SYNCHRONIZATION_ID = "aWSSingleSignon"


class EntraIdSettings(plugins.PluginSettings):
    tenant_id: str | None = Field(
        default=None,
        pattern=r"^[0-9a-fA-F-]{36}$",
        description="Entra tenant ID; default: the azuread provider's own (ARM_TENANT_ID).",
    )
    application_name: str | None = Field(
        default=None,
        min_length=1,
        max_length=120,
        description="Display name of the enterprise application; default: '<org> AWS IAM Identity Center'.",
    )
    app_role_id: str = Field(
        default=TEMPLATE_USER_APP_ROLE_ID,
        pattern=r"^[0-9a-fA-F-]{36}$",
        description="App role the groups are assigned with; default: the gallery template's 'User' role.",
    )
    synchronization_template_id: str = Field(
        default=TEMPLATE_SYNCHRONIZATION_ID,
        min_length=1,
        description="Provisioning template of the application "
        "(Graph: servicePrincipals/{id}/synchronization/templates).",
    )
    certificate_end_date: str | None = Field(
        default=None,
        pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$",
        description="Expiry of the SAML token-signing certificate (RFC 3339); default: three years from creation.",
    )


class EntraIdPlugin(plugins.IdentityProviderPlugin):
    contract = plugins.CONTRACT_VERSION
    name = "entra_id"
    settings_model = EntraIdSettings
    settings: EntraIdSettings

    def provisioning_steps(self, identity_stack: str | None) -> list[str]:
        return [
            f"Store the two values as secrets of the pipeline and deploy `{identity_stack}` again with them: "
            "`TF_VAR_enable_scim_provisioning=true TF_VAR_scim_endpoint=<SCIM endpoint> "
            f"TF_VAR_scim_access_token=<access token> cdktn deploy {identity_stack}`. This creates the "
            "application's synchronization secret and job; Entra provisions the assigned groups and their "
            "members (the first cycle can take up to 40 minutes; *Provision on demand* in the application's "
            "Provisioning page is quicker for one group)."
        ]

    def configure_provider(self, stack: Construct, idp: plugins.IdentityProviderInputs) -> None:
        from hyperpod_teams.bindings import azuread_provider

        azuread_provider.AzureadProvider(stack, "azuread", tenant_id=self.settings.tenant_id)

    def build(
        self, stack: Construct, idp: plugins.IdentityProviderInputs, groups: plugins.IdentityGroups
    ) -> plugins.IdentityBuild:
        from hyperpod_teams.providers.entra_id.resources import EntraIdentityCenterApplication

        application = EntraIdentityCenterApplication(
            stack, "identity-center", organization=idp.organization, settings=self.settings, groups=groups
        )
        # Entra provisions each group into Identity Center under its own display name.
        return plugins.IdentityBuild.unchanged(groups, application.saml_outputs, application.sensitive_outputs)
