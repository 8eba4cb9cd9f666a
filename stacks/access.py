"""`<org>-access`: IAM Identity Center permission sets and assignments (Identity Center account)."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.stacks.base import PlatformStack


class AccessStack(PlatformStack):
    credentials = "AWS (Identity Center account)"

    def __init__(self, scope: Construct, stack_name: str, *, spec: PlatformSpec) -> None:
        super().__init__(scope, stack_name, spec=spec)
        self.add_aws_provider(tags=self.organization_tags())
