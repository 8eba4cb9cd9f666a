"""What every stack of the platform shares: its name, its state backend, its AWS provider."""

from __future__ import annotations

import cdktf
from constructs import Construct

from hyperpod_teams import bindings, naming
from hyperpod_teams.backends import configure_backend
from hyperpod_teams.spec.models import PlatformSpec


class PlatformStack(cdktf.TerraformStack):
    """A stack of the platform: one unit of credentials and of blast radius."""

    #: Which system's credentials the stack needs, for reviewers and the runbook (set from
    #: stack_plan by app.add_platform_stacks).
    credentials: str = ""

    def __init__(self, scope: Construct, stack_name: str, *, spec: PlatformSpec) -> None:
        super().__init__(scope, stack_name)
        self.stack_name = stack_name
        self.spec = spec
        configure_backend(self, stack_name, spec)

    def add_aws_provider(self, *, tags: dict[str, str], pin_account: bool = True) -> None:
        """The AWS provider, tagging every resource it creates with `tags` by default."""
        org = self.spec.organization
        bindings.aws_provider.AwsProvider(
            self,
            "aws",
            region=org.region,
            # Refuse to touch any other account than the spec's, whatever credentials CI has.
            allowed_account_ids=[org.account_id] if pin_account else None,
            default_tags=[bindings.aws_provider.AwsProviderDefaultTags(tags=tags)],
        )

    def organization_tags(self) -> dict[str, str]:
        return naming.platform_resource_tags(self.spec.organization)
