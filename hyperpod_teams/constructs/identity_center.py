"""IAM Identity Center's side of access: a group (looked up by display name, or created) and a
permission set with its inline policy and its assignment to a group in the spec's account, taken
over when it exists already. The access stack (`stacks/access.py`) holds them."""

from __future__ import annotations

from collections.abc import Sequence

from constructs import Construct

from hyperpod_teams import bindings, policies
from hyperpod_teams.engine import cdk
from hyperpod_teams.spec.models import ExistingPermissionSet, PlatformSpec


def identity_center_provider(scope: Construct):
    """The AWS provider of the account that administers Identity Center, where the stack holding
    `scope` has one of its own for it (stacks/team.py: organization.accounts.identity_center differs
    from the workload account); None: the stack's default provider."""
    return getattr(cdk.TerraformStack.of(scope), "identity_center_provider", None)


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
        accounts: Sequence[str] = (),
    ) -> None:
        """`existing`: a permission set to take over (imported with its inline policy, and its
        assignment when the spec says the group holds it), never destroyed by the stacks.
        `accounts` (several clusters): the accounts it is assigned in, the first by the assignment a
        one-cluster spec has (`assignment`), each other by one of its own (`assignment-<account>`);
        default: the spec's account."""
        super().__init__(scope, id_)
        instance_arn = spec.identity.identity_center.instance_arn
        account_id, *more_accounts = accounts or [spec.organization.account_id]
        keep = cdk.TerraformResourceLifecycle(prevent_destroy=True) if existing is not None else None
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

        def assignment(id_: str, account: str, lifecycle=None):
            return bindings.aws_ssoadmin_account_assignment.SsoadminAccountAssignment(
                self,
                id_,
                instance_arn=instance_arn,
                permission_set_arn=self.arn,
                principal_id=group_id,
                principal_type="GROUP",
                target_id=account,
                target_type="AWS_ACCOUNT",
                # Identity Center creates the AWSReservedSSO_ role only once the policy is in place.
                depends_on=[self.inline_policy],
                lifecycle=lifecycle,
            )

        self.assignment = assignment("assignment", account_id, keep)
        #: Account -> the permission set's assignment there.
        self.assignments = {account_id: self.assignment}
        self.assignments |= {account: assignment(f"assignment-{account}", account) for account in more_accounts}
        if existing is not None:
            # The provider's import IDs: PERMISSION_SET_ARN,INSTANCE_ARN for the set and its inline
            # policy; the six parts of the assignment's ID for the assignment.
            self.permission_set.import_from(f"{existing.arn},{instance_arn}")
            self.inline_policy.import_from(f"{existing.arn},{instance_arn}")
            if existing.assigned:
                self.assignment.import_from(f"{group_id},GROUP,{account_id},AWS_ACCOUNT,{existing.arn},{instance_arn}")
