"""`<org>-identity`: the identity provider's side (IdP credentials only), built by its plugin."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams.plugins import IdentityBuild, IdentityGroups, IdentityProviderPlugin
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.stacks.base import PlatformStack


class IdentityStack(PlatformStack):
    credentials = "identity provider"

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
        plugin.configure_provider(self, spec)
        self.build: IdentityBuild = plugin.build(self, spec, groups)
