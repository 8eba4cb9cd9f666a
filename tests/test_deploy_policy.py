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

from hyperpod_teams.deploy_policy import deploy_policies
from hyperpod_teams.spec import validate_spec
from tests.conftest import EXAMPLE_SPECS, QUICKSTART, require_module
from tests.iam_evaluation import allows

ACCOUNT = "111122223333"
IAM = f"arn:aws:iam::{ACCOUNT}"


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
    # ... while it manages the organization's own.
    assert allows(documents, "iam:PutRolePolicy", f"{IAM}:role/acme-nlp-execution")
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
    problems = []
    for name, document in _policies().items():
        for finding in analyze_policy_string(json.dumps(document), include_community_auditors=True).findings:
            if finding.issue not in purpose:
                problems.append(f"{name}: {finding.issue} {finding.detail}")
    assert not problems, "\n".join(problems)
