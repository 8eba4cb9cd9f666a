"""The Okta side of IAM Identity Center: the "AWS IAM Identity Center" app in SAML mode, a group
per team role and for platform admins, each assigned to the app."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams.constructs.identity_provider import identity_center_variables
from hyperpod_teams.engine import cdk
from hyperpod_teams.plugins import IdentityGroups, group_key_id
from hyperpod_teams.providers.okta import PRECONFIGURED_APP, OktaSettings, terraform


class OktaIdentityCenterApplication(Construct):
    def __init__(
        self, scope: Construct, id_: str, *, organization: str, settings: OktaSettings, groups: IdentityGroups
    ) -> None:
        super().__init__(scope, id_)
        urls = identity_center_variables(self)
        self.application = terraform.resource(
            self,
            "application",
            "okta_app_saml",
            label=settings.application_label or f"{organization} AWS IAM Identity Center",
            preconfigured_app=PRECONFIGURED_APP,
            app_settings_json=cdk.Fn.jsonencode(
                {
                    "acsURL": urls["identity_center_acs_url"].string_value,
                    "entityID": urls["identity_center_issuer_url"].string_value,
                }
            ),
            # Users reach the app only through the assigned groups. No ignore_changes: okta 4.x has no
            # `users` argument (removed in 4.0.0) and `features` is computed only (resource_okta_app_saml.go).
        )
        self.group_ids: dict[tuple[str, str], str] = {}
        for key, group_name in groups.all().items():
            construct_id = f"group-{group_key_id(key)}"
            if key in groups.existing:
                group = terraform.data_source(self, construct_id, "okta_group", name=group_name, type="OKTA_GROUP")
            else:
                group = terraform.resource(
                    self,
                    construct_id,
                    "okta_group",
                    name=group_name,
                    description=groups.description(key, organization),
                )
            self.group_ids[key] = group.get_string_attribute("id")
            terraform.resource(
                self,
                f"assignment-{group_key_id(key)}",
                "okta_app_group_assignment",
                app_id=self.application.get_string_attribute("id"),
                group_id=self.group_ids[key],
            )
        attribute = self.application.get_string_attribute
        self.saml_outputs: dict[str, object] = {
            "saml_metadata_url": attribute("metadata_url"),
            "saml_entity_id": attribute("entity_url"),
            "saml_sign_in_url": attribute("http_post_binding"),
            "saml_certificate": attribute("certificate"),
        }
