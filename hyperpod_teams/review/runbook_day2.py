"""The runbook's day-2 changes: adding a team, removing one in the order that plans (what is kept, what
leaves the state), and repairing the cost category the provider mangles.

Pure layer.
"""

from __future__ import annotations

import json
import re
import shlex

from hyperpod_teams import cost, naming
from hyperpod_teams.document import Code, Document, Heading, Items, Paragraph, md_code
from hyperpod_teams.review.runbook_base import Runbook, engine_command
from hyperpod_teams.spec.clusters import SeveralClusters, organization_of
from hyperpod_teams.spec.models import PlatformSpec


def add_a_team_section(document: Document, r: Runbook) -> None:
    spec_path, identity, access, cost_stack = r.spec_path, r.identity, r.access, r.cost_stack
    org = r.spec.organization.name
    document.add(Heading("Add a team"))
    example = "<team>"
    creates = r.plugin.creates_identity_center_groups
    if identity:
        before = f"Deploy {md_code(identity)} (the team's groups) and wait until they are provisioned; then deploy "
    elif creates:
        before = "Deploy "
    else:
        before = "Provision the team's groups into Identity Center; then deploy "
    created = " (it creates the team's groups in Identity Center: add their members there)" if creates else ""
    deploy_step = (
        f"{before}{md_code(access)}{created}, the two new stacks and {md_code(cost_stack)} (a new cost category rule)."
    )
    document.add(
        Items(
            [
                f"Add it to `teams` in {md_code(spec_path)}; "
                f"{md_code(f'hyperpod-teams validate {spec_path}')} checks that the "
                "quotas still fit.",
                f"{md_code(f'hyperpod-teams synth {spec_path}')}: two new stacks, "
                f"{md_code(naming.team_stack_name(org, example))} and "
                f"{md_code(naming.team_kubernetes_stack_name(org, example))}; no other team's stack changes.",
                deploy_step,
            ],
            ordered=True,
        )
    )


#: What a team's AWS stack holds that its kept data needs, as patterns of resource types: the domain
#: (home directories on EFS), the data bucket with its settings (versioning, encryption, policy:
#: destroyed alone, they would leave the bucket unencrypted and open to plain HTTP), the keys
#: both are encrypted with and their aliases, and the domain's security group with its rule out (the
#: domain's apps use it: EC2 refuses to delete a group in use). Taken out of the stack's state before
#: the stack is destroyed, they stay in the account (the runbook's "Remove a team").
KEPT_ON_REMOVAL = (
    "aws_sagemaker_domain",
    "aws_s3_bucket[a-z_]*",
    "aws_kms_key",
    "aws_kms_alias",
    "aws_security_group",
    "aws_vpc_security_group_egress_rule",
)


def kept_on_removal(resource_type: str) -> bool:
    """Whether a team stack's resource of this type stays when the team is removed."""
    return any(re.fullmatch(pattern, resource_type) for pattern in KEPT_ON_REMOVAL)


def keep_out_of_state_command(team_stack: str) -> str:
    """The commands that take KEPT_ON_REMOVAL out of a team stack's state (shell, from the app's
    folder after a synth): the destroy that follows leaves them in the account."""
    kept = "|".join(KEPT_ON_REMOVAL)
    return (
        f"cd cdktf.out/stacks/{team_stack} && terraform init -input=false\n"
        f"terraform state list | grep -E '^({kept})\\.' | xargs -r terraform state rm"
    )


def remove_a_team_section(document: Document, r: Runbook) -> None:
    spec_path = r.spec_path
    org = r.spec.organization.name
    example = "<team>"
    team_stack, k8s_stack = naming.team_stack_name(org, example), naming.team_kubernetes_stack_name(org, example)
    alias = f"alias/{naming.team_studio_key_alias(org, example)}"
    data_alias = f"alias/{naming.team_data_key_alias(org, example)}"
    account, region = r.spec.organization.account_id, r.spec.organization.region
    bucket = naming.team_data_bucket_name(org, example, account, region)
    document.add(Heading("Remove a team without losing its data"))
    document.add(
        Paragraph(
            "In this order: the team's stacks go while the spec still has the team (they read its groups "
            f"from {md_code(r.access)}, and its EKS access entries name the `AWSReservedSSO_*` roles that "
            "Identity Center deletes once the team's permission sets leave the account); the shared stacks "
            "change last. The team's SageMaker AI domain (home directories on EFS), its data bucket and the KMS "
            "keys they are encrypted with stay in the account: they carry `prevent_destroy`, so no plan can destroy "
            "them (a deleted key makes what it encrypted unreadable once its 30-day window ends)."
        )
    )
    document.add(
        Items(
            [
                "Let the team's running jobs finish (destroying its stack deletes its compute quota, and "
                f"task governance deletes the namespace {md_code(naming.team_namespace(example))} with what "
                "runs in it); copy what it keeps outside its home directories (S3 outputs, model artefacts).",
                f"With the spec still holding the team, {md_code(engine_command(spec_path, 'synth'))}, then take the "
                "domain, the data bucket with its settings, the keys and their aliases and the domain's "
                "security group out of the team stack's state, so that the destroy leaves them where they are "
                "(the commands below the list).",
                f"{md_code(engine_command(spec_path, 'destroy ' + k8s_stack))} and then "
                f"{md_code(engine_command(spec_path, 'destroy ' + team_stack))} (the spec still has the team): its "
                "RBAC, compute quota, EKS access entries, execution role, application assignments and budget "
                "go; the plan must show no `aws_sagemaker_domain`, `aws_s3_bucket` or `aws_kms_key` "
                "(`hyperpod-teams report --plan` names them if it does).",
                f"Remove the team from {md_code(spec_path)}, synthesize, review (`hyperpod-teams report "
                f"--plan`) and deploy {md_code(r.access)}"
                + (f" and {md_code(r.identity)}" if r.identity else "")
                + f" and {md_code(r.cost_stack)}: the team's groups, permission sets (and with them the "
                "`AWSReservedSSO_*` roles) and cost category rule go. No other team's stack changes.",
            ],
            ordered=True,
        )
    )
    document.add(Paragraph("Step 2, from the folder of `cdktf.json`:"))
    document.add(Code(keep_out_of_state_command(team_stack)))
    document.add(
        Paragraph(
            f"What stays: the domain {md_code(naming.team_domain_name(org, example))}, its EFS home "
            f"directories, the bucket {md_code(bucket)}, the keys {md_code(alias)} and {md_code(data_alias)} and "
            f"the security group {md_code(naming.team_studio_security_group_name(org, example))}, "
            "tagged with the team, managed by no stack. When the organization decides to delete the data for "
            "good: delete the domain's spaces, apps and user profiles, then the domain with its home directories "
            "(and then its security group), "
            "empty and delete the bucket (every version), then schedule the keys' deletion (30 days, cancellable "
            "until then with `aws kms cancel-key-deletion`):"
        )
    )
    document.add(
        Code(
            "aws sagemaker delete-domain --domain-id <domain-id> --retention-policy HomeEfsFileSystem=Delete\n"
            f'aws s3api delete-objects --bucket {bucket} --delete "$(aws s3api list-object-versions --bucket '
            f"{bucket} --query '{{Objects: [Versions, DeleteMarkers][][].{{Key: Key, VersionId: VersionId}}}}' "
            '--output json)"  # repeat while versions are left (1,000 a call)\n'
            f"aws s3api delete-bucket --bucket {bucket}\n"
            f"aws kms schedule-key-deletion --key-id {alias} --pending-window-in-days 30\n"
            f"aws kms schedule-key-deletion --key-id {data_alias} --pending-window-in-days 30\n"
            f"aws kms delete-alias --alias-name {alias}\n"
            f"aws kms delete-alias --alias-name {data_alias}"
        )
    )


#: The open AWS provider bug that drops part of the cost category on an in-place update.
COST_CATEGORY_PROVIDER_BUG = "terraform-provider-aws#49410"


def cost_category_repair_command(spec: PlatformSpec | SeveralClusters) -> str:
    """The AWS CLI commands that write the team cost category's whole definition in one
    UpdateCostCategoryDefinition, found by its name (shell; the definition is the spec's, of one
    cluster or of several)."""
    organization = organization_of(spec)
    name = naming.cost_category_name(organization.organization.name)
    definition = json.dumps(cost.cost_category_definition(spec), separators=(",", ":"))
    query = f"CostCategoryReferences[?Name=='{name}'].CostCategoryArn"
    return (
        f'ARN=$(aws ce list-cost-category-definitions --query "{query}" --output text)\n'
        'aws ce update-cost-category-definition --cost-category-arn "$ARN" \\\n'
        f"  --cli-input-json {shlex.quote(definition)}"
    )


def cost_category_repair_section(spec: PlatformSpec | SeveralClusters) -> list:
    organization = organization_of(spec)
    cost_stack = naming.cost_stack_name(organization.organization.name)
    return [
        Heading("After a change to the cost category"),
        Paragraph(
            f"The AWS provider updates the cost category in place, and leaves out of the update its default value "
            f"or its split charge rule when that one did not change; AWS replaces the whole definition and clears "
            f"it ({COST_CATEGORY_PROVIDER_BUG}, open). Adding or removing a team, or changing a quota, does this: "
            f"the plan review warns, and each further apply of {md_code(cost_stack)} clears the other one. After "
            f"such a deploy, write the whole definition once with the AWS CLI (credentials of the payer account); "
            f"the next plan of {md_code(cost_stack)} then shows no change:"
        ),
        Code(cost_category_repair_command(spec)),
    ]
