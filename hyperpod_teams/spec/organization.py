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
    model_validator,
)

from hyperpod_teams.plugins import installed_identity_providers
from hyperpod_teams.spec.field_types import (
    MAX_ORGANIZATION_TAGS,
    RESERVED_TAG_PREFIXES,
    AccountId,
    IamRoleArn,
    IamRoleName,
    IdentityCenterInstanceArn,
    IdentityStoreId,
    OrganizationName,
    PluginName,
    RegionName,
    SessionDuration,
    SpecModel,
    TagKey,
    TagValue,
    optional,
    spec_rule,
)


class Accounts(SpecModel):
    """The organization's other AWS accounts, as AWS's multi-account guidance lays them out (optional
    addition within spec v1; docs/deploy.md, "Accounts"). Each unset: `organization.account_id`."""

    identity_center: AccountId | None = optional(
        "Where IAM Identity Center is administered: the organization's management account or its "
        "delegated administrator. <org>-access (permission sets, assignments) and each team stack's Identity "
        "Center resources (the domain's application assignments, the admins' policy attachment) run there."
    )
    payer: AccountId | None = optional(
        "The management (payer) account: cost allocation tags and the cost category (<org>-cost) "
        "live there, and its Cost and Usage Reports cover every linked account."
    )


class Organization(SpecModel):
    name: OrganizationName = Field(description="Prefix of every derived name.")
    account_id: AccountId = Field(
        description="The workload account: the EKS and HyperPod clusters, the teams' domains, roles and data."
    )
    region: RegionName
    tags: dict[TagKey, TagValue] = Field(
        default_factory=dict,
        max_length=MAX_ORGANIZATION_TAGS,
        description="Added to every taggable AWS resource. At most 47 (AWS allows 50 per resource "
        "and team resources carry three hyperpod-teams:* tags); no key may start with aws: or "
        "hyperpod-teams:.",
    )
    platform_admins_group: str | None = optional(
        "IdP group whose members administer the whole cluster. Default: "
        "group_name_pattern with team=platform, role=admins.",
        min_length=1,
    )
    accounts: Accounts | None = optional(
        "(optional addition) The Identity Center and payer accounts, where they are not account_id."
    )
    deploy_role_name: IamRoleName | None = optional(
        "(optional addition) A role of this name in each account, which every stack's AWS provider "
        "assumes (arn:<partition>:iam::<account>:role/<name>), and `aws eks get-token` in the workload account. "
        "Unset: the stacks run with the pipeline's own credentials, one account at a time."
    )

    @model_validator(mode="after")
    def _accounts_as_identity_center_allows(self) -> Organization:
        """IAM Identity Center User Guide, "Delegated administration": a delegated administrator
        cannot manage permission sets provisioned in the management account; the permission sets
        here are assigned to account_id."""
        accounts = self.accounts
        if accounts is None or accounts.payer is None or accounts.identity_center is None:
            return self
        delegated = accounts.identity_center != accounts.payer
        if delegated and self.account_id == accounts.payer:
            raise spec_rule(
                "the workload account is the management (payer) account, and a delegated administrator "
                "(accounts.identity_center) cannot manage permission sets provisioned in the management account",
                field="account_id",
                hint="run the cluster in a member account (AWS advises against workloads in the management "
                "account), or administer Identity Center from the management account",
            )
        return self

    @property
    def identity_center_account(self) -> str:
        """The account where Identity Center is administered."""
        return (self.accounts.identity_center if self.accounts else None) or self.account_id

    @property
    def payer_account(self) -> str | None:
        """The payer account the spec names (None: not named; <org>-cost then pins no account)."""
        return self.accounts.payer if self.accounts else None

    @property
    def cost_account(self) -> str:
        """The account the cost stack's resources land in: the payer's when named, else the
        workload account (where credentials without a pinned account then deploy them)."""
        return self.payer_account or self.account_id

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
    region: RegionName | None = optional("Default: organization.region.")
    use_lockfile: bool = True
    encrypt: bool = True
    kms_key_id: str | None = None
    role_arn: IamRoleArn | None = optional(
        "(optional addition) A role the backend assumes for the state bucket (assume_role), in every "
        "stack and every remote-state read: a state bucket in an account of its own, reached from each account's "
        "pipeline role through this one role."
    )


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
