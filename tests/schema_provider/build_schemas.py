"""Compose the schema files the stand-ins serve (schemas/<name>-<version>.json.gz) from their
sources, listed in schemas/SOURCES.md. Run by hand with the source repositories at hand (the
search tool's `fetch` brings them); the tests only read the result.

    python -m tests.schema_provider.build_schemas MIRROR_DIR [BINDINGS_SITE_PACKAGES]

With BINDINGS_SITE_PACKAGES, the CDK Terrain engine's versions too (build_cdktn_schemas).

MIRROR_DIR holds `<owner>+<repo>/repo` git folders: lonegunmanb/terraform-{aws,kubernetes,azuread,
helm}-schema. The okta resources come from the okta binding's jsii bundle (from_binding.py).
"""

from __future__ import annotations

import copy
import glob
import gzip
import json
import sys
from pathlib import Path

from tests.schema_provider.from_binding import read_binding
from tests.schema_provider.import_published import published_schema

HERE = Path(__file__).resolve().parent
BLOCKS = HERE / "provider_blocks"
SCHEMAS = HERE / "schemas"


def _timeouts(*names: str) -> dict:
    """terraform-plugin-framework-timeouts v0.6.0 `timeouts.Attributes`: an optional single nested
    attribute with an optional string per operation."""
    return {
        "nested_type": {
            "nesting_mode": "single",
            "attributes": {n: {"type": "string", "optional": True} for n in names},
        },
        "optional": True,
    }


def helm_3_1_1(published_3_0_2: dict) -> dict:
    """helm 3.1.1's schema: 3.0.2's as published, with what `git diff v3.0.2 v3.1.1 -- helm/` of
    hashicorp/terraform-provider-helm adds to the schemas (CHANGELOG 3.1.0: take_ownership,
    upgrade_install, timeouts, the manifest experiment's resources, helm_template's set_wo)."""
    schema = copy.deepcopy(published_3_0_2)
    release = schema["resource_schemas"]["helm_release"]["block"]["attributes"]
    release["take_ownership"] = {"type": "bool", "optional": True, "computed": True}
    release["upgrade_install"] = {"type": "bool", "optional": True, "computed": True}
    release["resources"] = {"type": ["map", "string"], "computed": True}
    release["timeouts"] = _timeouts("create", "read", "update", "delete")
    template = schema["data_source_schemas"]["helm_template"]["block"]["attributes"]
    template["set_wo"] = copy.deepcopy(release["set_wo"])
    template["timeouts"] = _timeouts("read")
    return schema


def merged(published: dict, from_binding: dict) -> dict:
    """A resource's schema at the binding's version: the names, types and block nesting the
    binding has (it was generated from that version's schema), with what the binding does not carry
    (descriptions, sensitivity, optional+computed, min/max items) kept from the published schema of
    an earlier version wherever the two agree on the name, type and nesting."""
    out = {k: v for k, v in published.items() if k not in ("attributes", "block_types")}
    attributes = {}
    for name, attribute in from_binding.get("attributes", {}).items():
        earlier = published.get("attributes", {}).get(name)
        same = earlier and (earlier.get("type") == attribute.get("type") or "nested_type" in earlier)
        attributes[name] = earlier if same else attribute
    # A nested attribute (plugin framework) reads back from the binding as a block: kept as published.
    for name in from_binding.get("block_types", {}):
        earlier = published.get("attributes", {}).get(name)
        if earlier and "nested_type" in earlier:
            attributes[name] = earlier
    if attributes:
        out["attributes"] = attributes
    blocks = {}
    for name, block_type in from_binding.get("block_types", {}).items():
        if name in attributes:
            continue
        earlier = published.get("block_types", {}).get(name)
        mode = block_type["nesting_mode"]
        # The generator writes a block of max_items 1 (SDKv2 "list") as one object: "single" here.
        same_shape = earlier and (
            earlier["nesting_mode"] == mode or (mode == "single" and earlier.get("max_items") == 1)
        )
        if same_shape and mode == "list" and earlier.get("max_items") == 1 and block_type.get("max_items") != 1:
            # The binding writes a list where the earlier version's generator wrote one object:
            # the block takes more than one now (Kubernetes 3.x `metadata`); its limits are unknown.
            limits = ("max_items", "min_items")
            blocks[name] = {
                **{k: v for k, v in earlier.items() if k not in limits},
                "block": merged(earlier["block"], block_type["block"]),
            }
        elif same_shape:
            blocks[name] = {**earlier, "block": merged(earlier["block"], block_type["block"])}
        else:
            blocks[name] = {**block_type, "block": merged((earlier or {}).get("block", {}), block_type["block"])}
    if blocks:
        out["block_types"] = blocks
    return out


def at_binding_version(published: dict, tgz: str, provider: str, modules: list[str]) -> dict:
    """`published` (an earlier version's whole schema) with every resource and data source the
    stacks use (`modules`: bindings submodules, hyperpod_teams.bindings) as the binding has it."""
    schema = copy.deepcopy(published)
    for module in modules:
        if module == "provider":
            continue
        folder = module.replace("_", "-")
        if module.startswith("data_"):
            kind, type_name = "data_source_schemas", module.removeprefix("data_")
        else:
            kind, type_name = "resource_schemas", f"{provider}_{module}"
        read = read_binding(tgz, folder).resource(type_name)
        earlier = schema[kind].get(type_name, {"version": 0, "block": {}})
        schema[kind][type_name] = {
            **earlier,
            "version": earlier["version"],
            "block": merged(earlier["block"], read["block"]),
        }
    return schema


def engine_modules() -> dict[str, list[str]]:
    """Per provider, the bindings submodules the core stacks and the built-in plugins use."""
    from hyperpod_teams import bindings
    from hyperpod_teams.plugins import load_identity_provider

    load_identity_provider("entra_id")
    found: dict[str, list[str]] = {}
    for module in [*bindings.MODULES.values(), *bindings.PLUGIN_MODULES.values()]:
        provider, _, submodule = module.partition(".")
        found.setdefault(provider, []).append(submodule)
    return found


def build_cdktn_schemas(mirror: Path, site: Path) -> None:
    """The stand-ins of the CDK Terrain engine's pinned providers (schemas/SOURCES.md): no published
    schema of these versions is in the copies at hand, so each is the latest published one there,
    with the stacks' resources as the binding generated from the pinned version has them."""

    def repo(name: str) -> Path:
        return mirror / f"lonegunmanb+terraform-{name}-schema" / "repo"

    def tgz(provider: str) -> str:
        (found,) = glob.glob(str(site / f"cdktn_provider_{provider}" / "_jsii" / "*.jsii.tgz"))
        return found

    modules = engine_modules()
    bases = {
        "aws": (published_schema(repo("aws"), "v6.47.0"), "6.69.1", "aws-6.25.0"),
        "kubernetes": (published_schema(repo("kubernetes"), "v2.38.0"), "3.4.0", "kubernetes-2.38.0"),
        "azuread": (published_schema(repo("azuread"), "v3.7.0"), "3.10.0", "azuread-3.7.0"),
        "helm": (helm_3_1_1(published_schema(repo("helm"), "v3.0.2")), "3.3.0", "helm-3.1.1"),
    }
    for provider, (base, version, earlier_block) in bases.items():
        schema = at_binding_version(base, tgz(provider), provider, modules[provider])
        schema["provider"] = _provider_block(earlier_block)
        if provider == "aws":
            schema["functions"] = json.loads((BLOCKS / "aws-6.25.0.functions.json").read_text())
        _write(f"{provider}-{version}", schema)


def _provider_block(name: str) -> dict:
    return json.loads((BLOCKS / f"{name}.json").read_text())


def _write(name: str, schema: dict) -> None:
    with gzip.GzipFile(SCHEMAS / f"{name}.json.gz", "wb", mtime=0) as handle:
        handle.write(json.dumps(schema, sort_keys=True, separators=(",", ":")).encode())


def main(argv: list[str]) -> None:
    mirror = Path(argv[0])
    site = Path(argv[1]) if len(argv) > 1 else None

    def repo(name: str) -> Path:
        return mirror / f"lonegunmanb+terraform-{name}-schema" / "repo"

    aws = published_schema(repo("aws"), "v6.25.0")
    aws["provider"] = _provider_block("aws-6.25.0")
    aws["functions"] = json.loads((BLOCKS / "aws-6.25.0.functions.json").read_text())
    _write("aws-6.25.0", aws)
    for name, tag in (("kubernetes", "v2.38.0"), ("azuread", "v3.7.0")):
        schema = published_schema(repo(name), tag)
        schema["provider"] = _provider_block(f"{name}-{tag[1:]}")
        _write(f"{name}-{tag[1:]}", schema)
    helm = helm_3_1_1(published_schema(repo("helm"), "v3.0.2"))
    helm["provider"] = _provider_block("helm-3.1.1")
    _write("helm-3.1.1", helm)
    if site:
        build_cdktn_schemas(mirror, site)
        (tgz,) = glob.glob(str(site / "cdktf_cdktf_provider_okta" / "_jsii" / "*.jsii.tgz"))
        okta = {
            "provider": _provider_block("okta-4.20.0"),
            "resource_schemas": {
                name: read_binding(tgz, folder).resource(name)
                for name, folder in (
                    ("okta_app_saml", "app-saml"),
                    ("okta_group", "group"),
                    ("okta_app_group_assignment", "app-group-assignment"),
                )
            },
        }
        _write("okta-4.20.0", okta)


if __name__ == "__main__":
    main(sys.argv[1:])
