"""The Entra ID side of IAM Identity Center: the gallery enterprise application in SAML mode, a
group per team role and for platform admins assigned to it, and SCIM provisioning.

Identity Center's own SAML values and SCIM credentials come in as Terraform variables (the
console shows them; no API does), so neither the spec nor the synthesized JSON ever holds them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from constructs import Construct

from hyperpod_teams import bindings
from hyperpod_teams.constructs.identity_provider import ScimCredentials, identity_center_variables
from hyperpod_teams.engine import cdk
from hyperpod_teams.plugins import IdentityGroups, group_key_id
from hyperpod_teams.providers.entra_id import AWS_IDENTITY_CENTER_TEMPLATE_ID, EntraIdSettings

if TYPE_CHECKING:  # the modules bindings serves, for editors and mypy
    from cdktn_provider_azuread import data_azuread_group
    from cdktn_provider_azuread import group as azuread_group


class EntraIdentityCenterApplication(Construct):
    """The AWS IAM Identity Center gallery application, its groups and its provisioning."""

    def __init__(
        self, scope: Construct, id_: str, *, organization: str, settings: EntraIdSettings, groups: IdentityGroups
    ) -> None:
        super().__init__(scope, id_)
        display_name = settings.application_name or f"{organization} AWS IAM Identity Center"
        urls = identity_center_variables(self)
        application = bindings.azuread_application
        self.application = application.Application(
            self,
            "application",
            display_name=display_name,
            template_id=AWS_IDENTITY_CENTER_TEMPLATE_ID,
            feature_tags=[application.ApplicationFeatureTags(enterprise=True, gallery=True)],
            identifier_uris=[urls["identity_center_issuer_url"].string_value],
            web=application.ApplicationWeb(redirect_uris=[urls["identity_center_acs_url"].string_value]),
            # The template brings its own app roles ("User", "msiam_access"); leave them alone.
            lifecycle=cdk.TerraformResourceLifecycle(ignore_changes=["app_role"]),
        )
        principal = bindings.azuread_service_principal
        self.service_principal = principal.ServicePrincipal(
            self,
            "service-principal",
            client_id=self.application.client_id,
            use_existing=True,  # the template created it with the application
            preferred_single_sign_on_mode="saml",
            app_role_assignment_required=True,  # only the assigned groups may sign in
            feature_tags=[principal.ServicePrincipalFeatureTags(enterprise=True, gallery=True)],
        )
        self.signing_certificate = (
            bindings.azuread_service_principal_token_signing_certificate.ServicePrincipalTokenSigningCertificate(
                self,
                "signing-certificate",
                service_principal_id=self.service_principal.id,
                display_name=f"CN={display_name}",
                end_date=settings.certificate_end_date,
            )
        )

        #: Group key (team, role) or PLATFORM_ADMINS_KEY -> the group's object ID.
        self.group_object_ids: dict[tuple[str, str], str] = {}
        # Each read of an attribute is a round trip to jsii's node process: read once, use often.
        service_principal_object_id = self.service_principal.object_id
        for key, group_name in groups.all().items():
            construct_id = f"group-{group_key_id(key)}"
            group: data_azuread_group.DataAzureadGroup | azuread_group.Group
            if key in groups.existing:  # the spec names a group the IdP has already
                group = bindings.azuread_data_group.DataAzureadGroup(
                    self, construct_id, display_name=group_name, security_enabled=True
                )
            else:
                group = bindings.azuread_group.Group(
                    self,
                    construct_id,
                    display_name=group_name,
                    description=groups.description(key, organization),
                    security_enabled=True,
                    prevent_duplicate_names=True,
                )
            self.group_object_ids[key] = group_object_id = group.object_id
            bindings.azuread_app_role_assignment.AppRoleAssignment(
                self,
                f"assignment-{group_key_id(key)}",
                app_role_id=settings.app_role_id,
                principal_object_id=group_object_id,
                resource_object_id=service_principal_object_id,
            )

        scim = ScimCredentials(self, "scim")
        secret = bindings.azuread_synchronization_secret
        self.synchronization_secret = secret.SynchronizationSecret(
            self,
            "scim-secret",
            count=scim.count,
            service_principal_id=self.service_principal.id,
            credential=[
                secret.SynchronizationSecretCredential(key="BaseAddress", value=scim.endpoint.string_value),
                secret.SynchronizationSecretCredential(key="SecretToken", value=scim.access_token.string_value),
            ],
            lifecycle=cdk.TerraformResourceLifecycle(precondition=[scim.precondition]),
        )
        self.synchronization_job = bindings.azuread_synchronization_job.SynchronizationJob(
            self,
            "scim-job",
            count=scim.count,
            service_principal_id=self.service_principal.id,
            template_id=settings.synchronization_template_id,
            enabled=True,
            depends_on=[self.synchronization_secret],
        )

        tenant = (
            settings.tenant_id or bindings.azuread_data_client_config.DataAzureadClientConfig(self, "client").tenant_id
        )
        login = f"https://login.microsoftonline.com/{tenant}"
        #: The SAML values Identity Center needs of Entra (plugins.SAML_OUTPUTS).
        self.saml_outputs: dict[str, object] = {
            "saml_metadata_url": (
                f"{login}/federationmetadata/2007-06/federationmetadata.xml?appid={self.application.client_id}"
            ),
            "saml_entity_id": f"https://sts.windows.net/{tenant}/",
            "saml_sign_in_url": f"{login}/saml2",
            "saml_certificate": self.signing_certificate.value,
        }
        #: The provider may mark the certificate sensitive; an output of it must be marked too.
        self.sensitive_outputs = frozenset({"saml_certificate"})
