"""Copy the CloudFormation registry's resource schemas of the three HyperPod types the stacks
manage through Cloud Control into hyperpod_teams/registry_schemas/, from the copies cfn-lint
bundles (cfn-lint is pinned in the dev extra; its schemas are a snapshot of the us-east-1
registry, with cfn-lint's patches).

    python -m tests.aws_models.copy_registry_schemas

tests/test_registry_schemas.py checks that the copies equal the pinned cfn-lint's.
"""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

from hyperpod_teams import registry


def bundled_schema(type_name: str) -> dict:
    from cfnlint.schema.manager import PROVIDER_SCHEMA_MANAGER

    return PROVIDER_SCHEMA_MANAGER.get_resource_schema("us-east-1", type_name).schema


def main() -> None:
    folder = Path(registry.__file__).parent / "registry_schemas"
    for type_name, file_name in registry.SCHEMA_FILES.items():
        text = json.dumps(bundled_schema(type_name), indent=1, ensure_ascii=False) + "\n"
        (folder / file_name).write_text(text, encoding="utf-8")
    print(f"copied {len(registry.SCHEMA_FILES)} schemas from cfn-lint {version('cfn-lint')}")


if __name__ == "__main__":
    main()
