"""The identity-provider plugins (Entra ID, Okta, generic SAML, a third-party one) and what each
creates: real synth with the real bindings, inspected resource by resource."""

from __future__ import annotations

import pytest

from hyperpod_teams.plugins import (
    IDENTITY_CENTER_VARIABLES,
    SAML_OUTPUTS,
    SCIM_SWITCH_VARIABLE,
    SCIM_VARIABLES,
    PluginError,
    installed_identity_providers,
    load_identity_provider,
)
from hyperpod_teams.spec import SpecError, validate_spec
from tests.conftest import EXAMPLES, synthesize_stacks

ENTRA_TEMPLATE_ID = "21ed01d2-ec13-4e9e-86c1-cd546719ebc4"
#: Every group of the quickstart, as the IdP names it: a group per team role, and the platform
#: admins' group, which the spec names (so it exists in Entra already).
QUICKSTART_TEAM_GROUPS = {
    f"acme-{team}-{role}" for team in ("nlp", "vision", "research") for role in ("scientists", "admins")
}


def resources(stack: dict, resource_type: str) -> list[dict]:
    return list(stack.get("resource", {}).get(resource_type, {}).values())


def data_sources(stack: dict, data_type: str) -> list[dict]:
    return list(stack.get("data", {}).get(data_type, {}).values())


def address_of(stack: dict, resource_type: str, body: dict, *, data: bool = False) -> str:
    section = stack["data" if data else "resource"][resource_type]
    (name,) = [name for name, candidate in section.items() if candidate is body]
    return f"{'data.' if data else ''}{resource_type}.{name}"


# --- Entra ID --------------------------------------------------------------------------------


def test_entra_application_comes_from_the_identity_center_gallery_template_in_saml_mode(quickstart_stacks):
    identity = quickstart_stacks["acme-identity"]
    (application,) = resources(identity, "azuread_application")
    assert application["template_id"] == ENTRA_TEMPLATE_ID
    assert application["identifier_uris"] == ["${var.identity_center_issuer_url}"]
    assert application["web"]["redirect_uris"] == ["${var.identity_center_acs_url}"]
    (principal,) = resources(identity, "azuread_service_principal")
    assert principal["preferred_single_sign_on_mode"] == "saml"
    assert principal["app_role_assignment_required"] is True
    assert principal["use_existing"] is True
    assert principal["client_id"] == f"${{{address_of(identity, 'azuread_application', application)}.client_id}}"
    (certificate,) = resources(identity, "azuread_service_principal_token_signing_certificate")
    assert (
        certificate["service_principal_id"] == f"${{{address_of(identity, 'azuread_service_principal', principal)}.id}}"
    )


def test_entra_creates_a_security_group_per_team_role_and_looks_up_the_named_admins_group(quickstart_stacks):
    identity = quickstart_stacks["acme-identity"]
    created = {group["display_name"]: group for group in resources(identity, "azuread_group")}
    assert set(created) == QUICKSTART_TEAM_GROUPS
    assert all(group["security_enabled"] and group["prevent_duplicate_names"] for group in created.values())
    (admins,) = data_sources(identity, "azuread_group")
    assert admins["display_name"] == "acme-ml-platform-admins"


def test_entra_assigns_every_group_to_the_application(quickstart_stacks):
    identity = quickstart_stacks["acme-identity"]
    (principal,) = resources(identity, "azuread_service_principal")
    principal_ref = f"${{{address_of(identity, 'azuread_service_principal', principal)}.object_id}}"
    groups = [address_of(identity, "azuread_group", g) for g in resources(identity, "azuread_group")]
    groups += [address_of(identity, "azuread_group", g, data=True) for g in data_sources(identity, "azuread_group")]
    assignments = resources(identity, "azuread_app_role_assignment")
    assert sorted(a["principal_object_id"] for a in assignments) == sorted(f"${{{g}.object_id}}" for g in groups)
    assert {a["resource_object_id"] for a in assignments} == {principal_ref}


def test_entra_scim_provisioning_is_switched_by_a_variable_and_its_credentials_are_sensitive(quickstart_stacks):
    identity = quickstart_stacks["acme-identity"]
    variables = identity["variable"]
    for name in SCIM_VARIABLES:
        assert variables[name]["sensitive"] is True and variables[name]["default"] == ""
    assert variables[SCIM_SWITCH_VARIABLE] == {**variables[SCIM_SWITCH_VARIABLE], "type": "bool", "default": False}
    (secret,) = resources(identity, "azuread_synchronization_secret")
    (job,) = resources(identity, "azuread_synchronization_job")
    switched = f"${{var.{SCIM_SWITCH_VARIABLE} ? 1 : 0}}"
    assert secret["count"] == job["count"] == switched
    assert {c["key"]: c["value"] for c in secret["credential"]} == {
        "BaseAddress": "${var.scim_endpoint}",
        "SecretToken": "${var.scim_access_token}",
    }
    (precondition,) = secret["lifecycle"]["precondition"]
    assert precondition["condition"] == '${var.scim_endpoint != "" && var.scim_access_token != ""}'
    assert job["enabled"] is True and job["depends_on"] == [
        f"azuread_synchronization_secret.{next(iter(identity['resource']['azuread_synchronization_secret']))}"
    ]


def test_identity_center_urls_are_required_https_variables(quickstart_stacks):
    variables = quickstart_stacks["acme-identity"]["variable"]
    for name in IDENTITY_CENTER_VARIABLES:
        assert "default" not in variables[name], f"{name} must be given, not defaulted"
        assert "^https://" in variables[name]["validation"][0]["condition"]


def test_identity_stack_outputs_what_the_operator_pastes_into_identity_center(quickstart_stacks):
    outputs = quickstart_stacks["acme-identity"]["output"]
    assert set(outputs) == set(SAML_OUTPUTS)
    assert outputs["saml_metadata_url"]["value"].startswith(
        "https://login.microsoftonline.com/${data.azuread_client_config."
    )
    assert "federationmetadata.xml?appid=${azuread_application." in outputs["saml_metadata_url"]["value"]
    assert outputs["saml_certificate"]["sensitive"] is True


def test_the_scim_token_never_reaches_the_synthesized_output(quickstart_data, tmp_path, monkeypatch):
    """A pipeline holds the token in its environment for `cdktf deploy`; synth must not copy it."""
    token, endpoint = (
        "scim-token-3f9d2c71-never-in-output",
        "https://scim.us-west-2.amazonaws.com/never-in-output/scim/v2/",
    )
    monkeypatch.setenv("TF_VAR_scim_access_token", token)
    monkeypatch.setenv("TF_VAR_scim_endpoint", endpoint)
    synthesize_stacks(validate_spec(quickstart_data), tmp_path / "out")
    written = [path for path in (tmp_path / "out").rglob("*") if path.is_file()]
    assert any(path.name == "cdk.tf.json" for path in written)
    leaked = [str(path) for path in written if token in path.read_text() or endpoint in path.read_text()]
    assert not leaked


def test_a_scim_token_in_the_spec_is_rejected_as_an_unknown_setting(quickstart_data):
    quickstart_data["identity"]["settings"] = {"scim_access_token": "do-not-put-me-here"}
    with pytest.raises(SpecError) as error:
        validate_spec(quickstart_data)
    (problem,) = error.value.problems
    assert problem.path == ("identity", "settings", "scim_access_token")


def test_entra_settings_are_checked_by_the_plugin_model(quickstart_data):
    quickstart_data["identity"]["settings"] = {"tenant_id": "not-a-guid"}
    with pytest.raises(SpecError) as error:
        validate_spec(quickstart_data)
    assert [p.path for p in error.value.problems] == [("identity", "settings", "tenant_id")]


# --- Okta ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def okta_stacks(tmp_path_factory) -> dict[str, dict]:
    from hyperpod_teams.spec import load_spec

    return synthesize_stacks(load_spec(EXAMPLES / "okta" / "teams.yaml"), tmp_path_factory.mktemp("okta"))


def test_okta_app_is_the_identity_center_integration_with_identity_center_urls(okta_stacks):
    identity = okta_stacks["initech-identity"]
    assert set(identity["provider"]) == {"okta"}
    (app,) = resources(identity, "okta_app_saml")
    assert app["preconfigured_app"] == "amazon_aws_sso"
    assert app["app_settings_json"] == (
        '${jsonencode({"acsURL" = var.identity_center_acs_url, "entityID" = var.identity_center_issuer_url})}'
    )


def test_okta_creates_and_assigns_a_group_per_team_role_and_for_platform_admins(okta_stacks):
    identity = okta_stacks["initech-identity"]
    groups = {g["name"]: address_of(identity, "okta_group", g) for g in resources(identity, "okta_group")}
    expected = {f"aws-initech-{t}-{r}" for t in ("recsys", "fraud") for r in ("scientists", "admins")}
    assert set(groups) == expected | {"aws-initech-platform-admins"}
    (app,) = resources(identity, "okta_app_saml")
    app_ref = f"${{{address_of(identity, 'okta_app_saml', app)}.id}}"
    assignments = resources(identity, "okta_app_group_assignment")
    assert {a["app_id"] for a in assignments} == {app_ref}
    assert sorted(a["group_id"] for a in assignments) == sorted(f"${{{ref}.id}}" for ref in groups.values())


def test_okta_outputs_the_saml_metadata_from_the_app(okta_stacks):
    outputs = okta_stacks["initech-identity"]["output"]
    assert set(outputs) == set(SAML_OUTPUTS)
    assert outputs["saml_metadata_url"]["value"].endswith(".metadata_url}")


def test_okta_access_stack_looks_up_the_groups_okta_pushes(okta_stacks):
    access = okta_stacks["initech-access"]
    names = {
        g["alternate_identifier"]["unique_attribute"]["attribute_value"]
        for g in data_sources(access, "aws_identitystore_group")
    }
    assert "aws-initech-recsys-admins" in names and "aws-initech-platform-admins" in names


# --- generic SAML ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def generic_saml_creating_groups(tmp_path_factory) -> dict[str, dict]:
    from hyperpod_teams.spec import load_spec

    spec = load_spec(EXAMPLES / "existing-cluster" / "teams.yaml")
    data = spec.model_dump(mode="json", exclude_unset=True)
    data["identity"]["settings"] = {"create_groups_in_identity_center": True}
    return synthesize_stacks(validate_spec(data), tmp_path_factory.mktemp("generic-create"))


def test_generic_saml_has_no_identity_stack_and_looks_groups_up(tmp_path):
    from hyperpod_teams.spec import load_spec

    stacks = synthesize_stacks(load_spec(EXAMPLES / "existing-cluster" / "teams.yaml"), tmp_path)
    assert "globex-identity" not in stacks
    access = stacks["globex-access"]
    assert len(data_sources(access, "aws_identitystore_group")) == 5  # 2 teams x 2 roles + platform admins
    assert not resources(access, "aws_identitystore_group")


def test_generic_saml_can_create_the_groups_in_identity_center(generic_saml_creating_groups):
    access = generic_saml_creating_groups["globex-access"]
    created = {g["display_name"]: g for g in resources(access, "aws_identitystore_group")}
    assert set(created) == {
        f"GG-globex-{t}-{r}" for t in ("genomics", "materials") for r in ("scientists", "admins")
    } | {"GG-globex-platform-admins"}
    assert {g["identity_store_id"] for g in created.values()} == {"d-9876543210"}
    assert not data_sources(access, "aws_identitystore_group")


def test_groups_the_spec_names_are_looked_up_even_when_the_others_are_created(tmp_path):
    from hyperpod_teams.spec import load_spec

    data = load_spec(EXAMPLES / "existing-cluster" / "teams.yaml").model_dump(mode="json", exclude_unset=True)
    data["identity"]["settings"] = {"create_groups_in_identity_center": True}
    data["teams"][0]["members"] = {"admins": "Genomics Leads"}
    access = synthesize_stacks(validate_spec(data), tmp_path)["globex-access"]
    (looked_up,) = data_sources(access, "aws_identitystore_group")
    assert looked_up["alternate_identifier"]["unique_attribute"]["attribute_value"] == "Genomics Leads"
    assert "Genomics Leads" not in {g["display_name"] for g in resources(access, "aws_identitystore_group")}
    assert len(resources(access, "aws_identitystore_group")) == 4


# --- third-party plugin ----------------------------------------------------------------------


def test_a_third_party_plugin_is_found_through_its_entry_point():
    assert "acme_idp" in installed_identity_providers()
    plugin = load_identity_provider("acme_idp")
    assert plugin.__module__ == "acme_idp_plugin"


def test_a_third_party_plugin_that_breaks_the_contract_is_rejected_when_it_loads(quickstart_data):
    with pytest.raises(PluginError, match="acme_broken.*not a subclass"):
        load_identity_provider("acme_broken")
    quickstart_data["identity"]["provider"] = "acme_broken"
    with pytest.raises(SpecError) as error:
        validate_spec(quickstart_data)
    assert [p.path for p in error.value.problems] == [("identity", "provider")]


def test_a_third_party_plugin_builds_the_identity_stack_and_names_the_groups(quickstart_data, tmp_path):
    quickstart_data["identity"].update(provider="acme_idp", settings={"tenant": "acme-prod"})
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)
    outputs = stacks["acme-identity"]["output"]
    assert outputs["saml_metadata_url"]["value"] == "https://acme-prod.idp.example.com/saml/metadata"
    names = {
        g["alternate_identifier"]["unique_attribute"]["attribute_value"]
        for g in data_sources(stacks["acme-access"], "aws_identitystore_group")
    }
    assert "ACME acme-nlp-scientists" in names and "ACME acme-ml-platform-admins" in names


def test_a_third_party_plugins_settings_are_validated_by_its_own_model(quickstart_data):
    quickstart_data["identity"].update(provider="acme_idp", settings={"tenant": "Bad Tenant", "colour": "red"})
    with pytest.raises(SpecError) as error:
        validate_spec(quickstart_data)
    assert sorted(p.path for p in error.value.problems) == [
        ("identity", "settings", "colour"),
        ("identity", "settings", "tenant"),
    ]


@pytest.mark.parametrize("plugin", ["entra_id", "okta", "generic_saml", "acme_idp"])
def test_validating_a_plugins_settings_imports_no_cdktf_and_no_bindings(plugin):
    import subprocess
    import sys

    code = (
        "import sys; from hyperpod_teams.plugins import load_identity_provider;"
        f"p = load_identity_provider({plugin!r}); p.settings_model.model_validate({{}});"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('cdktf', 'constructs', 'jsii') "
        "or m.startswith('cdktf_cdktf_provider')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


@pytest.mark.terraform
def test_an_access_stack_that_creates_its_groups_passes_terraform_plan(generic_saml_creating_groups, tmp_path):
    """With no lookup left, the access stack plans offline: permission sets, inline policies,
    assignments and groups, all accepted by the real AWS provider."""
    from tests.offline_terraform import needs_aws_to_plan, offline_plan_config, terraform_or_skip, write_stack

    terraform = terraform_or_skip(tmp_path)
    access = generic_saml_creating_groups["globex-access"]
    assert not needs_aws_to_plan(access)
    directory = write_stack(tmp_path, "globex-access", offline_plan_config(access))
    plan = terraform.plan(directory)
    assert isinstance(plan, dict), plan
    created = sorted({change["type"] for change in plan["resource_changes"]})
    assert created == [
        "aws_identitystore_group",
        "aws_ssoadmin_account_assignment",
        "aws_ssoadmin_permission_set",
        "aws_ssoadmin_permission_set_inline_policy",
    ]


def test_every_okta_argument_the_stack_writes_is_in_the_okta_provider_schema(example_stacks):
    """The okta resources are written without a binding (providers/okta/terraform.py): what a
    binding would check at build time, each argument's name and that required ones are there,
    is checked against okta 4.20.0's schema (tests/schema_provider/schemas, SOURCES.md)."""
    import gzip
    import json

    from tests.schema_provider import mirror

    (okta,) = [s for s in mirror.available() if s.name == "okta" and s.version == "4.20.0"]
    schema = json.loads(gzip.decompress(okta.schema_file.read_bytes()))
    (identity,) = [stack for name, stack in example_stacks["okta"].items() if name.endswith("-identity")]
    checked = 0
    for kind, schemas in (("resource", schema["resource_schemas"]), ("data", schema.get("data_source_schemas", {}))):
        for type_name, elements in identity.get(kind, {}).items():
            attributes = schemas[type_name]["block"]["attributes"]
            required = {name for name, spec in attributes.items() if spec.get("required")}
            for element in elements.values():
                arguments = {name for name in element if name not in ("//", "depends_on", "lifecycle", "provider")}
                assert arguments <= set(attributes), (type_name, arguments - set(attributes))
                assert required <= arguments, (type_name, required - arguments)
                assert not [a for a in arguments if attributes[a].get("computed") and not attributes[a].get("optional")]
                checked += 1
    provider_arguments = set(identity["provider"]["okta"][0])
    assert provider_arguments <= set(schema["provider"]["block"]["attributes"])
    assert checked >= 11  # the app, five groups, five assignments
