"""Compose the schema files the stand-ins serve (schemas/<name>-<version>.json.gz) from their
sources, listed in schemas/SOURCES.md. Run by hand with the source repositories at hand (the
search tool's `fetch` brings them); the tests only read the result.

    python -m tests.schema_provider.build_schemas MIRROR_DIR [BINDINGS_SITE_PACKAGES]

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
