"""The policy to give the deploying pipeline (hyperpod_teams.deploy_policy, `hyperpod-teams
deploy-policy`): what IAM accepts, what it lets the pipeline do to the organization's resources and
not to its own grants or another organization's. That the policy is enough for every stack is shown
by the emulator tier, which applies as a role holding it (tests/test_emulator_tier.py,
test_every_request_of_the_deploy_role_is_allowed_by_the_deploy_policy)."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from hyperpod_teams import naming, policies
from hyperpod_teams.policies.deploy import deploy_policies, role_boundary_policy
from hyperpod_teams.spec import validate_spec
from tests.conftest import EXAMPLE_SPECS, QUICKSTART, require_module
from tests.iam_evaluation import allows

ACCOUNT = "111122223333"
IAM = f"arn:aws:iam::{ACCOUNT}"
BOUNDARY = f"{IAM}:policy/hyperpod-teams-boundary/acme-role-boundary"
KEY = "arn:aws:kms:us-west-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def _policies(path=QUICKSTART) -> dict[str, dict]:
    return deploy_policies(validate_spec(yaml.safe_load(path.read_text())))


@pytest.mark.parametrize("spec_path", EXAMPLE_SPECS, ids=lambda p: p.parent.name)
def test_every_document_fits_iams_managed_policy_quota(spec_path):
    """IAM refuses a customer managed policy over 6,144 characters, white space not counted (IAM
    user guide, "IAM and AWS STS quotas"): counted here on the JSON as the CLI prints it."""
    for name, document in _policies(spec_path).items():
        assert len(re.sub(r"\s", "", json.dumps(document))) <= 6144, name
        assert len(name) <= 128


def test_the_pipeline_cannot_widen_its_own_grants():
    documents = list(_policies().values())
    assert not allows(documents, "iam:CreatePolicyVersion", f"{IAM}:policy/hyperpod-teams-deploy-acme-1")
    assert not allows(documents, "iam:AttachRolePolicy", f"{IAM}:role/hyperpod-teams-deploy-acme")
    assert not allows(documents, "iam:PutRolePolicy", f"{IAM}:role/hyperpod-teams-deploy-acme")
    # ... while it manages the organization's own, within their boundary.
    assert allows(
        documents, "iam:PutRolePolicy", f"{IAM}:role/acme-nlp-execution", {"iam:PermissionsBoundary": BOUNDARY}
    )
    assert allows(documents, "iam:CreatePolicyVersion", f"{IAM}:policy/hyperpod-teams/acme-nlp-admins-studio")


def test_the_pipeline_passes_the_organizations_roles_to_their_services_only():
    documents = list(_policies().values())
    role = f"{IAM}:role/acme-ml-shared-hyperpod-nodes"
    assert allows(documents, "iam:PassRole", role, {"iam:PassedToService": "sagemaker.amazonaws.com"})
    assert not allows(documents, "iam:PassRole", role, {"iam:PassedToService": "ec2.amazonaws.com"})
    assert not allows(documents, "iam:PassRole", role, {})
    assert not allows(
        documents, "iam:PassRole", f"{IAM}:role/globex-nodes", {"iam:PassedToService": "sagemaker.amazonaws.com"}
    )


def test_another_organizations_buckets_roles_and_parameters_are_out_of_reach():
    documents = list(_policies().values())
    assert allows(documents, "s3:PutBucketPolicy", "arn:aws:s3:::acme-nlp-data-111122223333-us-west-2")
    assert not allows(documents, "s3:PutBucketPolicy", "arn:aws:s3:::globex-nlp-data-111122223333-us-west-2")
    assert not allows(documents, "iam:DeleteRole", f"{IAM}:role/globex-nlp-execution")
    parameter = "arn:aws:ssm:us-west-2:111122223333:parameter/hyperpod-teams/globex/ml/instance-groups"
    assert not allows(documents, "ssm:PutParameter", parameter)
    assert not allows(documents, "eks:DeleteCluster", "arn:aws:eks:us-west-2:111122223333:cluster/another-eks")


def test_parliament_finds_no_unknown_action_or_malformed_statement():
    """Every action is one IAM knows (parliament's table of the Service Authorization Reference),
    every statement well formed. Findings about what a deploy role is for (managing permissions,
    resources `*` where the action has none) are its purpose, named in docs/deploy.md."""
    require_module("parliament")
    from parliament import analyze_policy_string

    purpose = {"PERMISSIONS_MANAGEMENT_ACTIONS", "RESOURCE_STAR", "CREDENTIALS_EXPOSURE", "PRIVILEGE_ESCALATION"}
    # The stacks write the buckets' policies and lifecycle: what remains of the pipeline's reach into
    # them, named in docs/deploy.md ("What the pipeline may do").
    purpose.add("RESOURCE_POLICY_PRIVILEGE_ESCALATION")
    problems = []
    for name, document in _policies().items():
        for finding in analyze_policy_string(json.dumps(document), include_community_auditors=True).findings:
            if finding.issue not in purpose:
                problems.append(f"{name}: {finding.issue} {finding.detail}")
    assert not problems, "\n".join(problems)


# --- the pipeline deploys and nothing more (#57) -------------------------------------------------


def test_the_pipeline_reads_and_writes_no_teams_data_only_the_lifecycle_script():
    documents = list(_policies().values())
    data = "arn:aws:s3:::acme-nlp-data-111122223333-us-west-2/train/shard-0000.parquet"
    for action in ("s3:GetObject", "s3:PutObject", "s3:DeleteObject"):
        assert not allows(documents, action, data), action
    script = "arn:aws:s3:::acme-ml-shared-lifecycle-111122223333-us-west-2/lifecycle-scripts/on_create.sh"
    assert allows(documents, "s3:PutObject", script)
    assert not allows(documents, "s3:GetObject", "arn:aws:s3:::acme-inference-tls-111122223333-us-west-2/cert.pem")


def test_the_pipeline_uses_and_administers_only_the_keys_tagged_as_the_organizations():
    documents = list(_policies().values())
    ours = {"aws:ResourceTag/hyperpod-teams:organization": "acme"}
    for action in ("kms:Decrypt", "kms:PutKeyPolicy", "kms:ScheduleKeyDeletion", "kms:CreateGrant"):
        assert allows(documents, action, KEY, ours), action
        assert not allows(documents, action, KEY, {}), action
        assert not allows(documents, action, KEY, {"aws:ResourceTag/hyperpod-teams:organization": "globex"}), action
    assert allows(documents, "kms:CreateKey", "*", {"aws:RequestTag/hyperpod-teams:organization": "acme"})
    assert not allows(documents, "kms:CreateKey", "*", {})


def test_the_pipeline_attaches_only_the_managed_policies_the_stacks_attach_and_only_within_the_boundary():
    documents = list(_policies().values())
    role = f"{IAM}:role/acme-ml-shared-hyperpod-nodes"
    listed = "arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy"
    bounded = {"iam:PermissionsBoundary": BOUNDARY}
    assert allows(documents, "iam:AttachRolePolicy", role, {"iam:PolicyARN": listed, **bounded})
    assert not allows(documents, "iam:AttachRolePolicy", role, {"iam:PolicyARN": listed})
    for other in ("AdministratorAccess", "IAMFullAccess", "AmazonS3FullAccess", "PowerUserAccess"):
        context = {"iam:PolicyARN": f"arn:aws:iam::aws:policy/{other}", **bounded}
        assert not allows(documents, "iam:AttachRolePolicy", role, context), other
    # A role is created, and its inline policies written, only with the organization's boundary on it.
    assert allows(documents, "iam:CreateRole", role, bounded)
    assert not allows(documents, "iam:CreateRole", role, {})
    assert not allows(documents, "iam:CreateRole", role, {"iam:PermissionsBoundary": f"{IAM}:policy/open"})
    assert not allows(documents, "iam:PutRolePolicy", role, {})
    assert not allows(documents, "iam:DeleteRolePermissionsBoundary", role, bounded)
    # The boundary itself is out of the pipeline's reach.
    for action in ("iam:CreatePolicyVersion", "iam:DeletePolicy", "iam:SetDefaultPolicyVersion"):
        assert not allows(documents, action, BOUNDARY), action


def _boundary_allows(action: str, resource: str = "*") -> bool:
    """Effective permissions of a role holding `*` on `*`, within the boundary (IAM User Guide,
    "Permissions boundaries": the intersection; an explicit deny in the boundary wins)."""
    (boundary,) = role_boundary_policy(validate_spec(yaml.safe_load(QUICKSTART.read_text()))).values()
    return allows([boundary], action, resource)


def test_no_role_the_pipeline_makes_administers_identities_keys_or_bucket_policies():
    for action in (
        "iam:CreateRole",
        "iam:PutRolePolicy",
        "iam:AttachRolePolicy",
        "iam:CreateUser",
        "iam:CreateAccessKey",
        "iam:UpdateAssumeRolePolicy",
        "iam:DeleteRolePermissionsBoundary",
        "sso:CreatePermissionSet",
        "identitystore:CreateGroupMembership",
        "organizations:LeaveOrganization",
        "kms:PutKeyPolicy",
        "s3:PutBucketPolicy",
        "cloudtrail:StopLogging",
    ):
        assert not _boundary_allows(action), action
    # What the stacks' roles do stays allowed.
    for action in (
        "sagemaker:CreateTrainingJob",
        "iam:PassRole",
        "iam:CreateServiceLinkedRole",
        "s3:GetObject",
        "kms:Decrypt",
    ):
        assert _boundary_allows(action), action


@pytest.mark.parametrize("name", sorted(EXAMPLE_SPECS, key=str), ids=lambda p: p.parent.name)
def test_every_role_the_stacks_make_carries_the_boundary_and_only_listed_managed_policies(example_stacks, name):
    spec = validate_spec(yaml.safe_load(name.read_text()))
    boundary = naming.role_boundary_policy_arn(spec.organization)
    listed = {policies.managed_policy_arn(p) for p in policies.STACKS_AWS_MANAGED_POLICIES}
    stacks = example_stacks[name.parent.name]
    roles = attachments = 0
    for stack in stacks.values():
        resources = stack.get("resource", {})
        for address, role in resources.get("aws_iam_role", {}).items():
            assert role.get("permissions_boundary") == boundary, address
            roles += 1
        for address, attachment in resources.get("aws_iam_role_policy_attachment", {}).items():
            arn = attachment["policy_arn"]
            if arn.startswith("arn:aws:iam::aws:"):
                assert arn in listed, (address, arn)
                attachments += 1
    assert roles and (attachments or spec.cluster.existing_hyperpod_cluster_name)


def test_the_boundary_fits_iams_quota_and_is_well_formed():
    require_module("parliament")
    from parliament import analyze_policy_string

    (document,) = role_boundary_policy(validate_spec(yaml.safe_load(QUICKSTART.read_text()))).values()
    assert len(re.sub(r"\s", "", json.dumps(document))) <= 6144
    findings = analyze_policy_string(json.dumps(document), include_community_auditors=True).findings
    # An allow of everything is a boundary's purpose (it only ever narrows a role's own grants).
    purpose = {"PERMISSIONS_MANAGEMENT_ACTIONS", "RESOURCE_STAR", "CREDENTIALS_EXPOSURE", "PRIVILEGE_ESCALATION"}
    assert not [f for f in findings if f.issue not in purpose], findings
