"""The okta provider's three resources, its group lookup and the provider itself, written without
a generated binding, on whichever engine the process builds with (CDK Terrain or CDKTF): each is
the engine's own TerraformResource, TerraformDataSource or TerraformProvider with the okta type
name and its arguments, which synthesizes the same JSON a binding writes.

Why not a binding (docs/engines.md, "Okta"): none is published for CDK Terrain, generating one
needs the okta provider's schema from its binary, and a vendored jsii package would be ours to
regenerate for every okta release, for three resources. What a binding checks at build time, the
argument names, `terraform validate` checks here against the okta 4.20.0 schema
(tests/test_terraform_every_stack.py), and tests/test_identity_providers.py checks each argument
against that schema too.
"""

from __future__ import annotations

import functools
from typing import Any

from constructs import Construct

from hyperpod_teams.engine import cdk

#: The okta provider the identity stack pins, on both engines (okta/okta on the Terraform registry).
SOURCE = "okta/okta"
VERSION = "4.20.0"


def _metadata() -> Any:
    return cdk.TerraformProviderGeneratorMetadata(
        provider_name="okta", provider_version=VERSION, provider_version_constraint=VERSION
    )


def _arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in arguments.items() if value is not None}  # as a binding leaves unset out


@functools.cache
def _classes() -> tuple[type, type, type]:
    """Subclasses of the engine's elements that synthesize their arguments as a binding's do
    (`synthesizeAttributes`, which jsii calls back into Python), made once the engine is known."""

    class Arguments:
        """Synthesizes the arguments it was made with (the mixin stands before the engine's class, so
        jsii finds its `_synthesize_attributes` as an override)."""

        _arguments: dict[str, Any]

        def _synthesize_attributes(self) -> dict[str, Any]:
            return self._arguments

    class Provider(Arguments, cdk.TerraformProvider):
        def __init__(self, scope: Construct, id_: str, arguments: dict[str, Any]) -> None:
            super().__init__(
                scope,
                id_,
                terraform_resource_type="okta",
                terraform_provider_source=SOURCE,
                terraform_generator_metadata=_metadata(),
            )
            self._arguments = arguments

    class Resource(Arguments, cdk.TerraformResource):
        def __init__(self, scope: Construct, id_: str, type_name: str, arguments: dict[str, Any]) -> None:
            super().__init__(scope, id_, terraform_resource_type=type_name, terraform_generator_metadata=_metadata())
            self._arguments = arguments

    class DataSource(Arguments, cdk.TerraformDataSource):
        def __init__(self, scope: Construct, id_: str, type_name: str, arguments: dict[str, Any]) -> None:
            super().__init__(scope, id_, terraform_resource_type=type_name, terraform_generator_metadata=_metadata())
            self._arguments = arguments

    return Provider, Resource, DataSource


def provider(scope: Construct, id_: str, **arguments: Any) -> Any:
    """`provider "okta"` and `required_providers.okta` at SOURCE and VERSION."""
    return _classes()[0](scope, id_, _arguments(arguments))


def resource(scope: Construct, id_: str, type_name: str, **arguments: Any) -> Any:
    """A `resource "<type_name>"`; read its attributes with `.get_string_attribute(name)`."""
    return _classes()[1](scope, id_, type_name, _arguments(arguments))


def data_source(scope: Construct, id_: str, type_name: str, **arguments: Any) -> Any:
    """A `data "<type_name>"`."""
    return _classes()[2](scope, id_, type_name, _arguments(arguments))
