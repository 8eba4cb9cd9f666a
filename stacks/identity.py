"""`<org>-identity`: the identity provider's side (IdP credentials only), built by its plugin."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams.engine import cdk
from hyperpod_teams.plugins import SAML_OUTPUTS, IdentityBuild, IdentityGroups, IdentityProviderPlugin
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.stack_plan import identity_provider_inputs
from hyperpod_teams.stacks.base import PlatformStack


class IdentityStack(PlatformStack):
    def __init__(
        self,
        scope: Construct,
        stack_name: str,
        *,
        spec: PlatformSpec,
        plugin: IdentityProviderPlugin,
        groups: IdentityGroups,
    ) -> None:
        super().__init__(scope, stack_name, spec=spec)
        self.credentials = f"identity provider ({plugin.name})"
        idp = identity_provider_inputs(spec)
        plugin.configure_provider(self, idp)
        self.build: IdentityBuild = plugin.build(self, idp, groups)
        # What the operator pastes into IAM Identity Center (the runbook names these outputs).
        for output_name, value in sorted(self.build.outputs.items()):
            cdk.TerraformOutput(
                self,
                output_name,
                value=value,
                description=SAML_OUTPUTS.get(output_name),
                sensitive=output_name in self.build.sensitive_outputs or None,
            )
