"""A customer-managed KMS key with yearly rotation and an alias: what the EKS cluster's secrets
and each team's Studio volumes are encrypted with."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import bindings, policies
from hyperpod_teams.engine import cdk
from hyperpod_teams.spec.models import Organization

#: Days a scheduled key deletion can still be cancelled: the longest AWS allows.
DELETION_WINDOW_DAYS = 30


class EncryptionKey(Construct):
    def __init__(
        self,
        scope: Construct,
        id_: str,
        *,
        alias: str,
        description: str,
        organization: Organization,
        service_statements: tuple[dict, ...] = (),
    ) -> None:
        """`service_statements`: key-policy statements for AWS services that use the key."""
        super().__init__(scope, id_)
        partition = policies.aws_partition(organization.region)
        key_policy = policies.kms_key_policy(organization.account_id, partition)
        key_policy["Statement"] += list(service_statements)
        self.key = bindings.aws_kms_key.KmsKey(
            self,
            "key",
            description=description,
            policy=policies.policy_json(key_policy),
            enable_key_rotation=True,
            deletion_window_in_days=DELETION_WINDOW_DAYS,
            # What the key encrypts (a team's home directories, kept when its domain goes; the EKS
            # cluster's secrets) is unreadable once the key is deleted: no plan may destroy it.
            # Removing a team takes it out of the stack's state instead (the runbook).
            lifecycle=cdk.TerraformResourceLifecycle(prevent_destroy=True),
        )
        bindings.aws_kms_alias.KmsAlias(self, "alias", name=f"alias/{alias}", target_key_id=self.key.key_id)
        self.arn: str = self.key.arn
