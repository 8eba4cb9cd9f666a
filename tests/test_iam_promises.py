"""Promises about the IAM the stacks create, checked on every synthesized policy document."""

from __future__ import annotations

import json

import pytest

from hyperpod_teams import policies
from hyperpod_teams.spec import load_spec
from tests.conftest import EXAMPLE_SPECS, synthesize_stacks

#: Where policy documents stand in the synthesized JSON: resource type -> attribute.
POLICY_ATTRIBUTES = {
    "aws_iam_role": "assume_role_policy",
    "aws_iam_role_policy": "policy",
    "aws_s3_bucket_policy": "policy",
    "aws_ssoadmin_permission_set_inline_policy": "inline_policy",
    "aws_kms_key": "policy",
}
#: In a key policy, Resource "*" means the key itself (KMS key policies allow nothing else).
KEY_POLICY = "aws_kms_key"


def policy_documents(stacks: dict[str, dict]) -> list[tuple[str, dict]]:
    found = []
    for stack_name, stack in stacks.items():
        for resource_type, attribute in POLICY_ATTRIBUTES.items():
            for address, body in stack.get("resource", {}).get(resource_type, {}).items():
                found.append((f"{stack_name}: {resource_type}.{address}", json.loads(body[attribute])))
    return found


@pytest.mark.parametrize("path", EXAMPLE_SPECS, ids=lambda p: p.parent.name)
def test_no_iam_statement_allows_every_action(path, tmp_path):
    documents = policy_documents(synthesize_stacks(load_spec(path), tmp_path))
    assert documents, "no policy documents found: is the walk looking in the right place?"
    for where, document in documents:
        for statement in document["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            if statement["Effect"] == "Allow":
                wide = [a for a in actions if a == "*" or a.endswith(":*")]
                assert not wide, f"{where}: {statement.get('Sid', '')} allows {wide}"
                resources = statement.get("Resource", [])
                resources = [resources] if isinstance(resources, str) else resources
                if f": {KEY_POLICY}." in where:
                    continue
                if set(actions) <= {
                    *policies.NODE_UNSCOPED_ACTIONS,
                    *policies.XRAY_WRITE_ACTIONS,
                    *policies.HYP_LIST_ACTIONS,
                    *policies.STUDIO_LIST_ACTIONS,
                    *policies.STUDIO_METRICS_ACTIONS,
                    *policies.STUDIO_EC2_ACTIONS,
                    *policies.METRIC_READ_ACTIONS,
                    *policies.PROMETHEUS_LIST_ACTIONS,
                    *policies.LOG_GROUP_LIST_ACTIONS,
                    *policies.ALB_DESCRIBE_ACTIONS,
                }:
                    # Actions without resource-level permissions (Service Authorization Reference):
                    # "*" is their only resource, so they are held to the spec's region instead.
                    assert statement["Condition"]["StringEquals"]["aws:RequestedRegion"], where
                    continue
                assert "*" not in resources, f"{where}: allows on every resource"


def test_every_allow_in_a_team_policy_is_scoped_to_the_team_or_read_only(quickstart_stacks):
    for team in ("nlp", "vision", "research"):
        for where, document in policy_documents({f"acme-team-{team}": quickstart_stacks[f"acme-team-{team}"]}):
            if "Principal" in json.dumps(document):
                continue  # a trust policy
            for statement in document["Statement"]:
                condition = json.dumps(statement.get("Condition", {}))
                # eks:AccessKubernetesApi reaches the Kubernetes API, where the team's RBAC decides.
                read_only = all(
                    a.split(":")[1].startswith(("Describe", "List", "Get", "BatchGet", "BatchCheck"))
                    or a == "eks:AccessKubernetesApi"
                    for a in statement["Action"]
                )
                # Or on resources named as the team's own: its roles (PassRole), its data bucket.
                resources = (
                    statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
                )
                named = all(f"acme-{team}-" in r for r in resources)
                assert f'hyperpod-teams:team": "{team}"' in condition or read_only or named, (
                    f"{where}: {statement['Sid']}"
                )
