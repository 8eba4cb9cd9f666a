"""Run the real terraform binary against the real AWS provider, offline (DESIGN.md).

`.ci/run` finds the provider binary and passes its folder in HYPERPOD_TEAMS_AWS_PROVIDER_DIR; a
CLI config with `dev_overrides` then lets `terraform validate` and `plan` run without `init`.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

AWS_PROVIDER_DIR_ENV = "HYPERPOD_TEAMS_AWS_PROVIDER_DIR"


@dataclass(frozen=True)
class Terraform:
    env: dict[str, str]

    def run(self, stack_dir: Path, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["terraform", *args, "-no-color"], cwd=stack_dir, env=self.env, capture_output=True, text=True
        )


def terraform_or_skip(tmp_dir: Path) -> Terraform:
    """A Terraform runner; skips (fails under CI) when terraform or the provider is missing."""
    provider_dir = os.environ.get(AWS_PROVIDER_DIR_ENV)
    missing = None
    if shutil.which("terraform") is None:
        missing = "terraform is not on the PATH"
    elif not provider_dir or not list(Path(provider_dir).glob("terraform-provider-aws_*")):
        missing = f"{AWS_PROVIDER_DIR_ENV} does not name the folder of a terraform-provider-aws binary"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"offline Terraform checks cannot run under CI: {missing}")
        pytest.skip(f"offline Terraform checks skipped: {missing} (.ci/run sets it up)")
    config = tmp_dir / "terraform.rc"
    config.write_text(
        'provider_installation {\n'
        f'  dev_overrides {{ "hashicorp/aws" = "{provider_dir}" }}\n'
        "  direct {}\n"
        "}\n"
    )
    env = {
        **os.environ,
        "TF_CLI_CONFIG_FILE": str(config),
        "TF_IN_AUTOMATION": "1",
        "CHECKPOINT_DISABLE": "1",
        # Fake credentials: nothing may reach AWS.
        "AWS_ACCESS_KEY_ID": "AKIAOFFLINEFAKE00000",
        "AWS_SECRET_ACCESS_KEY": "offline-fake-secret",
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    return Terraform(env)


def is_aws_only(stack: dict) -> bool:
    return set(stack.get("terraform", {}).get("required_providers", {})) == {"aws"}


def has_data_sources(stack: dict) -> bool:
    return bool(stack.get("data"))


def offline_plan_config(stack: dict) -> dict:
    """The stack as it can plan here: no backend, and an AWS provider that asks AWS nothing.

    `allowed_account_ids` goes too: it needs the account ID that offline planning skips asking for.
    """
    stack = copy.deepcopy(stack)
    stack["terraform"].pop("backend", None)
    for provider in stack["provider"]["aws"]:
        provider.pop("allowed_account_ids", None)
        provider.update(
            skip_credentials_validation=True, skip_requesting_account_id=True, skip_metadata_api_check=True
        )
    return stack


def write_stack(directory: Path, stack: dict) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "cdk.tf.json").write_text(json.dumps(stack, indent=2))
    return directory


def in_parallel(function, items) -> list:
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return list(pool.map(function, items))
