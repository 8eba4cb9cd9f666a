"""`<org>-access`: IAM Identity Center groups, permission sets and account assignments (Identity
Center account).

It is the one place that resolves the IdP groups, as provisioned into Identity Center, to their
group IDs (or creates them there, for a plugin that asks); team stacks receive the IDs by
cross-stack reference.
"""

from __future__ import annotations

import cdktf
from constructs import Construct

from hyperpod_teams import bindings, naming, policies
from hyperpod_teams.plugins import PLATFORM_ADMINS_KEY, IdentityBuild, group_key_id
from hyperpod_teams.spec.models import ExistingPermissionSet, PlatformSpec, Team
from hyperpod_teams.stacks.base import PlatformStack


class IdentityCenterGroup(Construct):
    """One group in Identity Center: looked up by display name, or created."""

    def __init__(
        self, scope: Construct, id_: str, *, identity_store_id: str, display_name: str, create: bool, description: str
    ) -> None:
        super().__init__(scope, id_)
        self.group: (
            bindings.aws_identitystore_group.IdentitystoreGroup
            | bindings.aws_data_identitystore_group.DataAwsIdentitystoreGroup
        )
        if create:
            self.group = bindings.aws_identitystore_group.IdentitystoreGroup(
                self, "group", identity_store_id=identity_store_id, display_name=display_name, description=description
            )
        else:
            lookup = bindings.aws_data_identitystore_group
            self.group = lookup.DataAwsIdentitystoreGroup(
                self,
                "group",
                identity_store_id=identity_store_id,
                alternate_identifier=lookup.DataAwsIdentitystoreGroupAlternateIdentifier(
                    unique_attribute=lookup.DataAwsIdentitystoreGroupAlternateIdentifierUniqueAttribute(
                        attribute_path="DisplayName", attribute_value=display_name
                    )
                ),
            )
        self.group_id: str = self.group.group_id


class PermissionSet(Construct):
    """A permission set with one inline policy, assigned to one group in the spec's account."""

    def __init__(
        self,
        scope: Construct,
        id_: str,
        *,
        spec: PlatformSpec,
        name: str,
        description: str,
        policy: dict,
        group_id: str,
        tags: dict[str, str],
        existing: ExistingPermissionSet | None = None,
    ) -> None:
        """`existing`: a permission set to take over (imported with its inline policy, and its
        assignment when the spec says the group holds it), never destroyed by the stacks."""
        super().__init__(scope, id_)
        instance_arn = spec.identity.identity_center.instance_arn
        account_id = spec.organization.account_id
        keep = cdktf.TerraformResourceLifecycle(prevent_destroy=True) if existing is not None else None
        self.permission_set = bindings.aws_ssoadmin_permission_set.SsoadminPermissionSet(
            self,
            "permission-set",
            name=name,
            description=description,
            instance_arn=instance_arn,
            session_duration=spec.identity.identity_center.session_duration,
            tags=tags,
            lifecycle=keep,
        )
        # Read once: each read of an attribute is a round trip to jsii's node process.
        self.arn = self.permission_set.arn
        self.inline_policy = bindings.aws_ssoadmin_permission_set_inline_policy.SsoadminPermissionSetInlinePolicy(
            self,
            "inline-policy",
            instance_arn=instance_arn,
            permission_set_arn=self.arn,
            inline_policy=policies.policy_json(policy),
        )
        self.assignment = bindings.aws_ssoadmin_account_assignment.SsoadminAccountAssignment(
            self,
            "assignment",
            instance_arn=instance_arn,
            permission_set_arn=self.arn,
            principal_id=group_id,
            principal_type="GROUP",
            target_id=account_id,
            target_type="AWS_ACCOUNT",
            # Identity Center creates the AWSReservedSSO_ role only once the policy is in place.
            depends_on=[self.inline_policy],
            lifecycle=keep,
        )
        if existing is not None:
            # The provider's import IDs: PERMISSION_SET_ARN,INSTANCE_ARN for the set and its inline
            # policy; the six parts of the assignment's ID for the assignment.
            self.permission_set.import_from(f"{existing.arn},{instance_arn}")
            self.inline_policy.import_from(f"{existing.arn},{instance_arn}")
            if existing.assigned:
                self.assignment.import_from(f"{group_id},GROUP,{account_id},AWS_ACCOUNT,{existing.arn},{instance_arn}")


class AccessStack(PlatformStack):
    def __init__(
        self,
        scope: Construct,
        stack_name: str,
        *,
        spec: PlatformSpec,
        groups: IdentityBuild,
        create_groups: bool = False,
        existing_groups: frozenset[tuple[str, str]] = frozenset(),
    ) -> None:
        """`create_groups`: create the groups in Identity Center instead of looking them up,
        except `existing_groups` (the spec names groups that exist already)."""
        super().__init__(scope, stack_name, spec=spec)
        self.add_aws_provider(tags=self.organization_tags())
        org = spec.organization
        store = spec.identity.identity_center.identity_store_id
        eks_cluster_name = naming.shared_eks_cluster_name(spec.cluster)
        #: (team, role), or PLATFORM_ADMINS_KEY -> Identity Center group ID of that group.
        self.group_ids: dict[tuple[str, str], str] = {}
        #: Same keys -> the permission set of that group.
        self.permission_sets: dict[tuple[str, str], PermissionSet] = {}
        teams: dict[str, Team] = {team.name: team for team in spec.teams}
        for key, display_name in groups.all_display_names().items():
            team_name, role = key
            if key == PLATFORM_ADMINS_KEY:
                purpose = "Platform admins of the shared HyperPod cluster"
                tags = self.organization_tags()
                permission_set_name = naming.platform_admins_permission_set_name(org.name)
                policy = policies.platform_admins_permission_set_policy(
                    org=org.name, account_id=org.account_id, region=org.region, eks_cluster_name=eks_cluster_name
                )
            else:
                team = teams[team_name]
                purpose = f"The {role} of team {team.name}"
                tags = naming.team_resource_tags(org, team)
                permission_set_name = naming.team_permission_set_name(org.name, team, role)
                policy = policies.permission_set_policy_of(spec, team, role)
            group = IdentityCenterGroup(
                self,
                f"group-{group_key_id(key)}",
                identity_store_id=store,
                display_name=display_name,
                create=create_groups and key not in existing_groups,
                description=f"{purpose} (hyperpod-teams)",
            )
            self.group_ids[key] = group.group_id
            self.permission_sets[key] = PermissionSet(
                self,
                f"permission-set-{group_key_id(key)}",
                spec=spec,
                name=permission_set_name,
                description=f"{purpose} (hyperpod-teams, {org.name})",
                policy=policy,
                group_id=group.group_id,
                tags=tags,
                existing=None if key == PLATFORM_ADMINS_KEY else teams[team_name].existing_permission_set(role),
            )
