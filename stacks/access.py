"""`<org>-access`: IAM Identity Center permission sets and assignments (Identity Center account).

It is also the one place that resolves the IdP groups, as provisioned into Identity Center, to
their group IDs; team stacks receive them by cross-stack reference.
"""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import bindings, naming
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.stacks.base import PlatformStack


class AccessStack(PlatformStack):
    credentials = "AWS (Identity Center account)"

    def __init__(self, scope: Construct, stack_name: str, *, spec: PlatformSpec) -> None:
        super().__init__(scope, stack_name, spec=spec)
        self.add_aws_provider(tags=self.organization_tags())
        #: (team, role) -> Identity Center group ID of that team role's group.
        self.group_ids: dict[tuple[str, str], str] = {}
        store = spec.identity.identity_center.identity_store_id
        lookup = bindings.aws_data_identitystore_group
        org = spec.organization.name
        for team in spec.teams:
            for role in naming.ROLES:
                group = lookup.DataAwsIdentitystoreGroup(
                    self,
                    f"group-{team.name}-{role}",
                    identity_store_id=store,
                    alternate_identifier=lookup.DataAwsIdentitystoreGroupAlternateIdentifier(
                        unique_attribute=lookup.DataAwsIdentitystoreGroupAlternateIdentifierUniqueAttribute(
                            attribute_path="DisplayName",
                            attribute_value=naming.team_group_name(spec.identity.group_name_pattern, org, team, role),
                        )
                    ),
                )
                self.group_ids[(team.name, role)] = group.group_id
