"""`hyperpod-teams deploy-policy`: the IAM policies of the deploying pipeline, or the roles'
permissions boundary.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import click

from hyperpod_teams.cli.common import (
    SPEC_ARGUMENT,
    check_out_file,
    file_out_option,
    load_platform_or_exit,
    write_output,
)
from hyperpod_teams.cli.group import cli
from hyperpod_teams.spec.clusters import SeveralClusters, organization_of


@cli.command("deploy-policy")
@SPEC_ARGUMENT
@file_out_option
@click.option(
    "--boundary",
    is_flag=True,
    help="Print the permissions boundary of the stacks' roles instead (create it once at the path "
    "/hyperpod-teams-boundary/; attach it to no role: the stacks set it on theirs).",
)
@click.option(
    "--account",
    metavar="ACCOUNT_ID",
    help="Only the policies of the stacks that run in this account, for its deploy role: needed when "
    'the spec\'s organization.accounts puts stacks in more than one account (docs/deploy.md, "Accounts").',
)
@click.option(
    "--trust",
    "trusted",
    multiple=True,
    metavar="PIPELINE",
    help="Print the trust policy of the account's deploy role instead, for the pipeline identity "
    "PIPELINE: github:OWNER/REPO (its main branch and production environment), gitlab:GROUP/PROJECT "
    "(its main branch), through the account's OIDC provider; or aws:ROLE_ARN, a role that assumes it. "
    "Repeatable.",
)
def deploy_policy(
    spec_path: Path,
    out_file: Path | None,
    force: bool,
    boundary: bool,
    account: str | None,
    trusted: tuple[str, ...],
) -> None:
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
    for pipeline in trusted:
        if not TRUSTED.fullmatch(pipeline):
            raise click.BadParameter(
                f"{pipeline!r}: give github:OWNER/REPO, gitlab:GROUP/PROJECT or "
                "aws:arn:<partition>:iam::<account>:role/NAME",
                param_hint="--trust",
            )
    platform = load_platform_or_exit(spec_path)
    from hyperpod_teams.policies.deploy import (
        deploy_accounts,
        deploy_policies,
        deploy_role_trust_policy,
        role_boundary_policy,
        several_clusters_deploy_accounts,
    )

    spec = organization_of(platform)
    accounts = (
        several_clusters_deploy_accounts(platform) if isinstance(platform, SeveralClusters) else deploy_accounts(spec)
    )
    listed = "; ".join(f"{number} ({', '.join(parts)})" for number, parts in accounts.items())
    if account is not None and account not in accounts:
        raise click.BadParameter(f"the stacks deploy into no account {account}: {listed}", param_hint="--account")
    if account is None and len(accounts) > 1 and not boundary:
        raise click.UsageError(
            f"the spec's stacks deploy into {len(accounts)} accounts, each with a deploy role of its own: "
            f"give --account, one of {listed}"
        )
    if boundary:
        documents = role_boundary_policy(spec)
    elif trusted:
        documents = deploy_role_trust_policy(spec, account or spec.organization.account_id, list(trusted))
    else:
        documents = deploy_policies(platform, account)
    write_output(json.dumps(documents, indent=2) + "\n", out_file)


#: A pipeline identity --trust takes.
TRUSTED = re.compile(
    r"github:[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+|gitlab:[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+"
    r"|aws:arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]{1,512}"
)
