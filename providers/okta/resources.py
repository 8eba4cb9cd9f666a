"""The Okta side of IAM Identity Center: the "AWS IAM Identity Center" app in SAML mode, a group
per team role and for platform admins, each assigned to the app."""

from __future__ import annotations

from typing import TYPE_CHECKING

from constructs import Construct

from hyperpod_teams import bindings
from hyperpod_teams.constructs.identity_provider import identity_center_variables
from hyperpod_teams.engine import cdk
from hyperpod_teams.plugins import IdentityGroups, group_key_id
from hyperpod_teams.providers.okta import PRECONFIGURED_APP, OktaSettings

if TYPE_CHECKING:  # the modules bindings serves, for editors and mypy
    from cdktf_cdktf_provider_okta import data_okta_group
    from cdktf_cdktf_provider_okta import group as okta_group


class OktaIdentityCenterApplication(Construct):
    def __init__(
        self, scope: Construct, id_: str, *, organization: str, settings: OktaSettings, groups: IdentityGroups
    ) -> None:
        super().__init__(scope, id_)
        urls = identity_center_variables(self)
        self.application = bindings.okta_app_saml.AppSaml(
            self,
            "application",
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
            group: data_okta_group.DataOktaGroup | okta_group.Group
            if key in groups.existing:
                group = bindings.okta_data_group.DataOktaGroup(self, construct_id, name=group_name, type="OKTA_GROUP")
            else:
                group = bindings.okta_group.Group(
                    self,
                    construct_id,
                    name=group_name,
                    description=groups.description(key, organization),
                )
            self.group_ids[key] = group.id
            bindings.okta_app_group_assignment.AppGroupAssignment(
                self, f"assignment-{group_key_id(key)}", app_id=self.application.id, group_id=group.id
            )
        self.saml_outputs: dict[str, object] = {
            "saml_metadata_url": self.application.metadata_url,
            "saml_entity_id": self.application.entity_url,
            "saml_sign_in_url": self.application.http_post_binding,
            "saml_certificate": self.application.certificate,
        }
