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
    def configure_provider(self, stack, idp):
        return None

    def build(self, stack, idp, groups):
        return None

    body = {
        "contract": 2,
        "name": "acme_idp",
        "settings_model": _Settings,
        "configure_provider": configure_provider,
        "build": build,
    }
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
        (_plugin(contract=None), "written for contract 1 .it declares none.; this hyperpod-teams speaks contract 2"),
        (_plugin(contract=3), "written for contract 3"),
        (
            _plugin(build=lambda self, stack, spec, groups: None),
            r"build takes \(stack, spec, groups\); contract 2 calls it with \(stack, idp, groups\)",
        ),
        (_plugin(configure_provider=lambda self, stack: None), r"configure_provider takes \(stack\)"),
    ],
    ids=[
        "not a plugin",
        "abstract",
        "wrong name",
        "settings not a model",
        "settings allow extras",
        "required setting",
        "no contract (a contract-1 plugin)",
        "a contract from the future",
        "build as contract 1 had it",
        "configure_provider without inputs",
    ],
)
def test_a_plugin_that_breaks_the_contract_is_rejected_when_it_loads(plugin, complaint):
    with pytest.raises(PluginError, match=complaint):
        _check_contract("acme_idp", plugin)
