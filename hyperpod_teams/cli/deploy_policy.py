"""`hyperpod-teams deploy-policy`: the IAM policies of the deploying pipeline, or the roles'
permissions boundary.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from hyperpod_teams.cli.common import (
    SPEC_ARGUMENT,
    check_out_file,
    file_out_option,
    load_or_exit,
    write_output,
)
from hyperpod_teams.cli.group import cli


@cli.command("deploy-policy")
@SPEC_ARGUMENT
@file_out_option
@click.option(
    "--boundary",
    is_flag=True,
    help="Print the permissions boundary of the stacks' roles instead (create it once at the path "
    "/hyperpod-teams-boundary/; attach it to no role: the stacks set it on theirs).",
)
def deploy_policy(spec_path: Path, out_file: Path | None, force: bool, boundary: bool) -> None:
    """Print the IAM policies to give the pipeline that deploys SPEC's AWS stacks (JSON: policy
    name -> document), least privilege, each under IAM's 6,144-character quota.

    \b
    Attach them to a role that is not named <org>-* (docs/deploy.md: hyperpod-teams-deploy-<org>),
    for example:
      hyperpod-teams deploy-policy teams.yaml --out deploy-policies.json
      for name in $(jq -r 'keys[]' deploy-policies.json); do
        aws iam create-policy --policy-name "$name" \
          --policy-document "$(jq -c --arg n "$name" '.[$n]' deploy-policies.json)"
      done
    and, once, the boundary every role of the stacks carries (the pipeline cannot change it):
      hyperpod-teams deploy-policy teams.yaml --boundary --out boundary.json
      aws iam create-policy --path /hyperpod-teams-boundary/ --policy-name "$(jq -r 'keys[0]' boundary.json)" \
        --policy-document "$(jq -c '.[]' boundary.json)"
    """
    check_out_file(out_file, force, spec_path)
    spec = load_or_exit(spec_path)
    from hyperpod_teams.policies.deploy import deploy_policies, role_boundary_policy

    documents = role_boundary_policy(spec) if boundary else deploy_policies(spec)
    write_output(json.dumps(documents, indent=2) + "\n", out_file)
