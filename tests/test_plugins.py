"""The identity-provider registry: discovery through entry points and the plugin contract."""

from __future__ import annotations

import pytest

from hyperpod_teams.plugins import (
    IdentityProviderPlugin,
    PluginError,
    PluginSettings,
    _check_contract,
    installed_identity_providers,
    load_identity_provider,
)


def test_built_in_plugins_are_registered_through_entry_points():
    assert {"entra_id", "generic_saml"} <= set(installed_identity_providers())
    assert load_identity_provider("entra_id").name == "entra_id"


def test_unknown_plugin_lists_the_installed_ones():
    with pytest.raises(PluginError, match="installed: .*entra_id.*generic_saml"):
        load_identity_provider("ping")


class _Settings(PluginSettings):
    region: str = "eu"


def _plugin(**attributes) -> type:
    def configure_provider(self, stack, spec):
        return None

    def build(self, stack, spec, groups):
        return None

    body = {"name": "acme_idp", "settings_model": _Settings, "configure_provider": configure_provider, "build": build}
    body.update(attributes)
    return type("AcmeIdp", (IdentityProviderPlugin,), body)


def test_a_plugin_that_keeps_the_contract_is_accepted():
    assert _check_contract("acme_idp", _plugin()).name == "acme_idp"


@pytest.mark.parametrize(
    ("plugin", "complaint"),
    [
        (object, "not a subclass"),
        (type("NoBuild", (IdentityProviderPlugin,), {"name": "acme_idp"}), "does not implement"),
        (_plugin(name="other"), "must equal the entry-point name"),
        (_plugin(settings_model=dict), "Pydantic model"),
        (
            _plugin(settings_model=type("Loose", (PluginSettings,), {"model_config": {"extra": "allow"}})),
            "unknown settings",
        ),
        (
            _plugin(settings_model=type("Needy", (PluginSettings,), {"__annotations__": {"token": str}})),
            "needs a default",
        ),
    ],
    ids=["not a plugin", "abstract", "wrong name", "settings not a model", "settings allow extras", "required setting"],
)
def test_a_plugin_that_breaks_the_contract_is_rejected_when_it_loads(plugin, complaint):
    with pytest.raises(PluginError, match=complaint):
        _check_contract("acme_idp", plugin)
