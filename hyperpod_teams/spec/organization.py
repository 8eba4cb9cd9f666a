"""The spec's `organization` (accounts, region, tags, state backend) and `identity` (IAM Identity
Center and the identity provider) sections.
"""

from __future__ import annotations

import difflib
import re
from typing import Annotated, Literal

from pydantic import (
    Field,
    field_validator,
)

from hyperpod_teams.plugins import installed_identity_providers
from hyperpod_teams.spec.field_types import (
    MAX_ORGANIZATION_TAGS,
    RESERVED_TAG_PREFIXES,
    AccountId,
    IdentityCenterInstanceArn,
    IdentityStoreId,
    OrganizationName,
    PluginName,
    RegionName,
    SessionDuration,
    SpecModel,
    TagKey,
    TagValue,
    spec_rule,
)


class Organization(SpecModel):
    name: OrganizationName = Field(description="Prefix of every derived name.")
    account_id: AccountId
    region: RegionName
    tags: dict[TagKey, TagValue] = Field(
        default_factory=dict,
        max_length=MAX_ORGANIZATION_TAGS,
        description="Added to every taggable AWS resource. At most 47 (AWS allows 50 per resource "
        "and team resources carry three hyperpod-teams:* tags); no key may start with aws: or "
        "hyperpod-teams:.",
    )
    platform_admins_group: str | None = Field(
        default=None,
        min_length=1,
        description="IdP group whose members administer the whole cluster. Default: "
        "group_name_pattern with team=platform, role=admins.",
    )

    @field_validator("tags")
    @classmethod
    def _no_reserved_tag_keys(cls, tags: dict[str, str]) -> dict[str, str]:
        for key in tags:
            for prefix in RESERVED_TAG_PREFIXES:
                if key.casefold().startswith(prefix):
                    owner = "AWS" if prefix == "aws:" else "hyperpod-teams (team, cost center and organization tags)"
                    raise spec_rule(
                        f"tag key {key!r} starts with {prefix!r}, which is reserved for {owner}",
                        hint="choose a key with a prefix of your own, such as acme:" + key.split(":", 1)[-1],
                    )
        return tags


class LocalBackend(SpecModel):
    type: Literal["local"] = "local"


class S3Backend(SpecModel):
    type: Literal["s3"]
    bucket: str = Field(min_length=3, max_length=63)
    key_prefix: str = "hyperpod-teams/"
    region: RegionName | None = Field(default=None, description="Default: organization.region.")
    use_lockfile: bool = True
    encrypt: bool = True
    kms_key_id: str | None = None


class RemoteBackend(SpecModel):
    """HCP Terraform or Terraform Enterprise, one workspace per stack."""

    type: Literal["remote"]
    organization: str = Field(min_length=1)
    workspace_prefix: str = Field(min_length=1)
    hostname: str = "app.terraform.io"


Backend = Annotated[LocalBackend | S3Backend | RemoteBackend, Field(discriminator="type")]


GROUP_PATTERN_PLACEHOLDERS = ("org", "team", "role")


class IdentityCenter(SpecModel):
    instance_arn: IdentityCenterInstanceArn
    identity_store_id: IdentityStoreId
    session_duration: SessionDuration = "PT8H"


class Identity(SpecModel):
    provider: PluginName = Field(
        description="Name of an installed identity-provider plugin: entra_id, okta, generic_saml or a third-party one."
    )
    identity_center: IdentityCenter
    group_name_pattern: str = Field(default="{org}-{team}-{role}", description="Placeholders: {org} {team} {role}.")
    settings: dict[str, object] = Field(
        default_factory=dict, description="Plugin-specific; validated by the plugin's own model."
    )

    @field_validator("provider")
    @classmethod
    def _plugin_installed(cls, provider: str) -> str:
        installed = installed_identity_providers()
        if provider not in installed:
            close = difflib.get_close_matches(provider, installed, n=1)
            raise spec_rule(
                f"no identity-provider plugin named {provider!r} is installed",
                hint=(f"did you mean {close[0]!r}? " if close else "")
                + f"installed plugins: {', '.join(installed) or 'none'}; a third-party plugin "
                "registers in the entry-point group hyperpod_teams.identity_providers",
            )
        return provider

    @field_validator("group_name_pattern")
    @classmethod
    def _known_placeholders(cls, pattern: str) -> str:
        used = re.findall(r"\{([^{}]*)\}", pattern)
        unknown = sorted(set(used) - set(GROUP_PATTERN_PLACEHOLDERS))
        if unknown:
            names = ", ".join("{" + name + "}" for name in unknown)
            raise spec_rule(
                f"unknown placeholder {names} in the group name pattern",
                hint="use only {org}, {team} and {role}",
            )
        if "team" not in used or "role" not in used:
            raise spec_rule(
                "the group name pattern must contain {team} and {role}, or two teams or roles would share one group"
            )
        return pattern
