"""Lay the schema stand-ins out as Terraform's filesystem mirror, so that `terraform init` installs
each at exactly the version the stacks pin (and refuses a stack that pins another), with a CLI
config for it.

A stand-in is an executable launcher `terraform-provider-<name>_v<version>` in the unpacked mirror
layout (`registry.terraform.io/<namespace>/<name>/<version>/<os_arch>/`) that starts
`tests.schema_provider.plugin` with the schema file of that exact version.
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = Path(__file__).resolve().parent / "schemas"


@dataclass(frozen=True)
class StandIn:
    namespace: str
    name: str
    version: str

    @property
    def source(self) -> str:
        return f"registry.terraform.io/{self.namespace}/{self.name}"

    @property
    def schema_file(self) -> Path:
        return SCHEMAS / f"{self.name}-{self.version}.json.gz"

    def __str__(self) -> str:
        return f"{self.name} {self.version}"


def available() -> list[StandIn]:
    """Every stand-in whose schema is kept (schemas/SOURCES.md says where each came from)."""
    sources = json.loads((SCHEMAS / "sources.json").read_text())
    return [StandIn(entry["namespace"], entry["name"], entry["version"]) for entry in sources]


def lay_out(root: Path, stand_ins: list[StandIn], *, dev_overrides: dict[str, str] | None = None) -> Path:
    """Write the mirror under `root/mirror` and a CLI config `root/terraform.rc` that installs these
    providers from it only (nothing from a network); `dev_overrides` (source -> folder) adds real
    binaries that run without `init`. Returns the CLI config's path."""
    mirror = root / "mirror"
    for stand_in in stand_ins:
        folder = mirror / stand_in.source / stand_in.version / "linux_amd64"
        folder.mkdir(parents=True, exist_ok=True)
        launcher = folder / f"terraform-provider-{stand_in.name}_v{stand_in.version}"
        launcher.write_text(
            "#!/bin/sh\n"
            f"export PYTHONPATH={shlex.quote(str(ROOT))}\n"
            f"exec {shlex.quote(sys.executable)} -m tests.schema_provider.plugin "
            f"{shlex.quote(str(stand_in))} {shlex.quote(str(stand_in.schema_file))}\n"
        )
        launcher.chmod(0o755)
    overrides = "".join(f'    "{source}" = "{folder}"\n' for source, folder in (dev_overrides or {}).items())
    config = root / "terraform.rc"
    config.write_text(
        "provider_installation {\n"
        + (f"  dev_overrides {{\n{overrides}  }}\n" if overrides else "")
        + f'  filesystem_mirror {{\n    path = "{mirror}"\n  }}\n'
        + "}\n"
    )
    return config
