"""The IAM policy to give the pipeline that deploys a spec's AWS stacks: what `terraform apply`, `plan`
and `destroy` of every AWS stack need, and nothing of another organization's.

Pure layer: policy documents only. `hyperpod-teams deploy-policy SPEC` prints them; docs/deploy.md
says how to attach them. The emulator tier applies every AWS stack as a role holding exactly these
documents, IAM evaluated on each request (tests/emulator/authorization.py), so a permission missing
here fails the tier's apply as it would fail a pipeline's.

Where an action takes a resource the stacks name, the statement names it (`<org>-*` roles, buckets,
aliases, domains; the EKS cluster of the spec; `/hyperpod-teams/` policies and parameters); `*` only
where IAM has no resource for the action (Service Authorization Reference: `kms:CreateKey`,
`iam:ListRoles`, the Cloud Control API, Identity Center's and Identity Store's actions as the stacks
call them, Cost Explorer's `ce:*CostCategory*`) or where the resource's name is AWS's (a new
SageMaker cluster's ID, a KMS key's ID). `iam:PassRole` is kept to the organization's roles and the
services that take them.

The pipeline deploys and nothing more (#57): it reads and writes no object but the lifecycle script
it uploads (no team's data), uses and administers only the KMS keys tagged as the organization's
(`aws:ResourceTag/hyperpod-teams:organization`, and `aws:RequestTag` when it creates one), attaches
only the AWS managed policies the stacks attach (`policies.STACKS_AWS_MANAGED_POLICIES`), and every
role it creates or changes carries the organization's permissions boundary (`role_boundary_policy`,
which an administrator creates beside these and the pipeline cannot change): no role it makes may
administer IAM, Identity Center, Organizations or a key's or bucket's policy.

Each document stays under IAM's 6,144-character managed-policy quota (white space not counted).
"""

from __future__ import annotations

from hyperpod_teams import naming
from hyperpod_teams.policies.deploy_actions import (
    BOUNDARY_DENIED_ACTIONS,
    EKS_ACTIONS,
    IAM_POLICY_ACTIONS,
    KMS_ALIAS_ACTIONS,
    KMS_KEY_ACTIONS,
    MANAGED_POLICY_SIZE,
    PASSED_TO,
    S3_BUCKET_ACTIONS,
    S3_OBJECT_ACTIONS,
    UNSCOPED_ACTIONS,
    role_statements,
)
from hyperpod_teams.policies.deploy_addons import (
    add_on_statements,
    studio_security_group_statements,
    usage_report_statements,
)
from hyperpod_teams.policies.documents import (
    STACKS_AWS_MANAGED_POLICIES,
    aws_partition,
    managed_policy_arn,
    policy_size,
)
from hyperpod_teams.policies.several_clusters import joined
from hyperpod_teams.spec.clusters import SeveralClusters
from hyperpod_teams.spec.models import PlatformSpec


def deploy_policy_statements(spec: PlatformSpec) -> list[dict]:
    """Every statement the pipeline needs, scoped to the spec's organization."""
    org, region, account = spec.organization.name, spec.organization.region, spec.organization.account_id
    partition = aws_partition(region)
    iam = f"arn:{partition}:iam::{account}"
    eks_cluster = naming.shared_eks_cluster_name(spec.cluster)
    eks = f"arn:{partition}:eks:{region}:{account}"
    ssm = f"arn:{partition}:ssm:{region}:{account}"
    roles = [f"{iam}:role/{org}-*", f"{iam}:role/*/{org}-*"]
    lifecycle_bucket = (
        naming.lifecycle_bucket_name(org, spec.cluster.name, account, region)
        if spec.cluster.lifecycle_scripts_s3_uri is None and spec.cluster.existing_hyperpod_cluster_name is None
        else None
    )
    statements: list[dict] = [
        # IAM authorizes Attach/DetachRolePolicy on the role, the policy in `iam:PolicyARN` (Service
        # Authorization Reference, IAM condition keys): the AWS managed policies the stacks attach and
        # the organization's own only.
        *role_statements(
            ("TheOrganizationsRoles", "TheOrganizationsRolesWithinTheirBoundary", "AttachTheStacksPolicies"),
            roles,
            spec.organization,
            [
                *(managed_policy_arn(name, partition) for name in STACKS_AWS_MANAGED_POLICIES),
                f"{iam}:policy/hyperpod-teams/{org}-*",
            ],
        ),
        {
            "Sid": "PassTheOrganizationsRolesToTheirServices",
            "Effect": "Allow",
            "Action": "iam:PassRole",
            "Resource": [f"{iam}:role/{org}-*", f"{iam}:role/*/{org}-*"],
            "Condition": {"StringEquals": {"iam:PassedToService": PASSED_TO}},
        },
        {
            "Sid": "TheOrganizationsPolicies",
            "Effect": "Allow",
            "Action": IAM_POLICY_ACTIONS,
            "Resource": [f"{iam}:policy/hyperpod-teams/{org}-*", f"{iam}:policy/{org}-*"],
        },
        {
            "Sid": "ReadTheRolesIdentityCenterMakes",
            "Effect": "Allow",
            "Action": ["iam:GetRole", "iam:ListRoleTags"],
            "Resource": f"{iam}:role/aws-reserved/sso.amazonaws.com/*",
        },
        {
            "Sid": "TheOrganizationsBuckets",
            "Effect": "Allow",
            "Action": S3_BUCKET_ACTIONS,
            "Resource": f"arn:{partition}:s3:::{org}-*",
        },
        *(
            [
                {
                    # The default lifecycle script the cluster stack uploads; no other object, no team's data.
                    "Sid": "TheLifecycleScript",
                    "Effect": "Allow",
                    "Action": S3_OBJECT_ACTIONS,
                    "Resource": f"arn:{partition}:s3:::{lifecycle_bucket}/*",
                }
            ]
            if lifecycle_bucket
            else []
        ),
        {
            # Keys the stacks made: tagged as the organization's when created (the provider's default tags).
            "Sid": "TheOrganizationsKeys",
            "Effect": "Allow",
            "Action": KMS_KEY_ACTIONS,
            "Resource": f"arn:{partition}:kms:{region}:{account}:key/*",
            "Condition": {"StringEquals": {f"aws:ResourceTag/{naming.TAG_ORGANIZATION}": org}},
        },
        {
            "Sid": "CreateKeysTaggedAsTheOrganizations",
            "Effect": "Allow",
            "Action": ["kms:CreateKey", "kms:TagResource"],
            "Resource": "*",
            "Condition": {"StringEquals": {f"aws:RequestTag/{naming.TAG_ORGANIZATION}": org}},
        },
        {
            # An alias action is authorized on the alias (no tags: IfExists) and on its key (the tag).
            "Sid": "TheOrganizationsAliases",
            "Effect": "Allow",
            "Action": KMS_ALIAS_ACTIONS,
            "Resource": [
                f"arn:{partition}:kms:{region}:{account}:alias/{org}-*",
                f"arn:{partition}:kms:{region}:{account}:key/*",
            ],
            "Condition": {"StringEqualsIfExists": {f"aws:ResourceTag/{naming.TAG_ORGANIZATION}": org}},
        },
        {
            "Sid": "TheSharedEksCluster",
            "Effect": "Allow",
            "Action": EKS_ACTIONS,
            "Resource": [
                f"{eks}:cluster/{eks_cluster}",
                f"{eks}:access-entry/{eks_cluster}/*",
                f"{eks}:addon/{eks_cluster}/*",
                f"{eks}:podidentityassociation/{eks_cluster}/*",
            ],
        },
        {
            "Sid": "TheOrganizationsParameters",
            "Effect": "Allow",
            "Action": [
                "ssm:PutParameter",
                "ssm:GetParameter",
                "ssm:GetParameters",
                "ssm:GetParametersByPath",
                "ssm:DeleteParameter",
                "ssm:AddTagsToResource",
                "ssm:RemoveTagsFromResource",
                "ssm:ListTagsForResource",
            ],
            "Resource": [f"{ssm}:parameter/hyperpod-teams/{org}", f"{ssm}:parameter/hyperpod-teams/{org}/*"],
        },
        {
            "Sid": "TheOrganizationsBudgets",
            "Effect": "Allow",
            "Action": [
                "budgets:ModifyBudget",
                "budgets:ViewBudget",
                "budgets:TagResource",
                "budgets:UntagResource",
                "budgets:ListTagsForResource",
            ],
            "Resource": f"arn:{partition}:budgets::{account}:budget/{org}-*",
        },
    ]
    if any(team.studio.enabled for team in spec.teams):
        statements += studio_security_group_statements(spec)
    if spec.cost.usage_reports.enabled:
        statements += usage_report_statements(spec)
    statements += add_on_statements(spec)
    for sid, actions in UNSCOPED_ACTIONS.items():
        statements.append({"Sid": sid, "Effect": "Allow", "Action": actions, "Resource": "*"})
    return statements


#: The statements of the stacks that run in the Identity Center account (`<org>-access`, the team
#: stacks' `aws.identity_center` provider) and in the payer account (`<org>-cost`), by Sid; every
#: other statement is the workload account's.
IDENTITY_CENTER_SIDS = ("IdentityCenter",)
PAYER_SIDS = ("CostCategoriesAndTags",)
#: What every account's role needs whatever runs there: the provider asks who it is.
WHO_AM_I = {"Sid": "ReadAccount", "Effect": "Allow", "Action": "sts:GetCallerIdentity", "Resource": "*"}


def deploy_accounts(spec: PlatformSpec) -> dict[str, list[str]]:
    """The accounts the stacks deploy into, each with the parts it plays ("workload", "Identity
    Center", "payer"), the workload account first. One account, unless `organization.accounts` names
    others (docs/deploy.md, "Accounts")."""
    org = spec.organization
    parts: dict[str, list[str]] = {org.account_id: ["workload"]}
    parts.setdefault(org.identity_center_account, []).append("Identity Center")
    parts.setdefault(org.cost_account, []).append("payer")
    return parts


def _statements_of(spec: PlatformSpec, account: str | None) -> list[dict]:
    """The statements of the stacks that run in `account` (None: of every stack, in one set)."""
    statements = deploy_policy_statements(spec)
    if account is None:
        return statements
    org = spec.organization
    plays = deploy_accounts(spec).get(account)
    if plays is None:
        raise ValueError(f"the stacks deploy into no account {account}")

    def runs_here(sid: str) -> bool:
        if sid in IDENTITY_CENTER_SIDS:
            return account == org.identity_center_account
        if sid in PAYER_SIDS:
            return account == org.cost_account
        return account == org.account_id

    kept = [statement for statement in statements if runs_here(statement["Sid"])]
    return kept if "workload" in plays else [WHO_AM_I, *kept]


def several_clusters_deploy_accounts(clusters: SeveralClusters) -> dict[str, list[str]]:
    """The accounts the stacks of several clusters deploy into, each with the parts it plays: every
    cluster's (`deploy_accounts` of its view), the first cluster's workload account first."""
    parts: dict[str, list[str]] = {}
    for view in clusters.views.values():
        for account, plays in deploy_accounts(view).items():
            held = parts.setdefault(account, [])
            held += [play for play in plays if play not in held]
    return parts


def _several_clusters_statements(clusters: SeveralClusters, account: str | None) -> list[dict]:
    """The statements of every cluster's stacks that run in `account` (None: all, one account), one
    cluster's joined into another's where they are one grant (policies.several_clusters.joined: the
    same Sid and actions), the others with the cluster's name in their Sid."""
    per_cluster = {
        name: _statements_of(view, account)
        for name, view in clusters.views.items()
        if account is None or account in deploy_accounts(view)
    }
    first, *rest = per_cluster
    return joined({"Statement": per_cluster[first]}, {name: per_cluster[name] for name in rest})["Statement"]


def deploy_policies(spec: PlatformSpec | SeveralClusters, account: str | None = None) -> dict[str, dict]:
    """The statements as customer managed policies, each under IAM's size quota: policy name ->
    document (`<org>-deploy-1`, `-2`, ...). `account`: only the statements of the stacks that run
    there (deploy_accounts), for that account's deploy role; None: every stack's (one account).
    `spec` of several clusters (spec.clusters.SeveralClusters): every cluster's stacks'."""
    documents: list[dict] = []
    if isinstance(spec, SeveralClusters):
        statements = _several_clusters_statements(spec, account)
        spec = spec.organization_view
    else:
        statements = _statements_of(spec, account)
    for statement in statements:
        if (
            documents
            and policy_size({**documents[-1], "Statement": [*documents[-1]["Statement"], statement]})
            <= MANAGED_POLICY_SIZE
        ):
            documents[-1]["Statement"].append(statement)
        else:
            documents.append({"Version": "2012-10-17", "Statement": [statement]})
    return {naming.deploy_policy_name(spec.organization.name, index): doc for index, doc in enumerate(documents, 1)}


def role_boundary_policy(spec: PlatformSpec) -> dict[str, dict]:
    """The permissions boundary of every role the stacks make (`naming.role_boundary_policy_arn`):
    policy name -> document, for an administrator to create once beside the deploy policies, at the
    path `/hyperpod-teams-boundary/`, which the pipeline's grants do not reach. Not attached to the
    pipeline's role."""
    document = {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "WhatTheStacksRolesMayDo", "Effect": "Allow", "Action": "*", "Resource": "*"},
            {"Sid": "NoAdministration", "Effect": "Deny", "Action": BOUNDARY_DENIED_ACTIONS, "Resource": "*"},
        ],
    }
    return {naming.role_boundary_policy_name(spec.organization.name): document}


#: The OIDC providers a pipeline's identity comes from: `--trust <kind>:<path>` -> (the issuer's
#: host, as IAM names the provider and its condition keys; the audience the pipelines ask for; the
#: `sub` claims of the jobs that deploy, from the path). GitHub: "Configuring OpenID Connect in
#: Amazon Web Services" (the `sub` of a job in an environment, and of a push to a branch); GitLab:
#: "Configure OpenID Connect in AWS" (`project_path:<path>:ref_type:branch:ref:<branch>`).
OIDC_ISSUERS = {
    "github": (
        "token.actions.githubusercontent.com",
        "sts.amazonaws.com",
        ("repo:{path}:ref:refs/heads/main", "repo:{path}:environment:production"),
    ),
    "gitlab": ("gitlab.com", "sts.amazonaws.com", ("project_path:{path}:ref_type:branch:ref:main",)),
}


def deploy_role_trust_policy(spec: PlatformSpec, account: str, pipelines: list[str]) -> dict:
    """The trust policy of the deploy role in `account`: `pipelines` are `github:OWNER/REPO` (jobs
    of the main branch and of the `production` environment, which the example pipelines deploy
    from), `gitlab:GROUP/PROJECT` (jobs of the protected main branch), through the account's OIDC
    provider of that issuer; or `aws:<role ARN>`, a role that assumes this one (the pipeline's own,
    in another account: the stacks' providers assume each account's role from it). A pull
    request's jobs are not trusted: whoever opens one could run anything as the role."""
    partition = aws_partition(spec.organization.region)
    statements = []
    for pipeline in pipelines:
        kind, _, path = pipeline.partition(":")
        if kind == "aws":
            statements.append({"Effect": "Allow", "Principal": {"AWS": path}, "Action": "sts:AssumeRole"})
            continue
        host, audience, subjects = OIDC_ISSUERS[kind]
        statements.append(
            {
                "Effect": "Allow",
                "Principal": {"Federated": f"arn:{partition}:iam::{account}:oidc-provider/{host}"},
                "Action": "sts:AssumeRoleWithWebIdentity",
                "Condition": {
                    "StringEquals": {
                        f"{host}:aud": audience,
                        f"{host}:sub": [subject.format(path=path) for subject in subjects],
                    }
                },
            }
        )
    return {"Version": "2012-10-17", "Statement": statements}
