"""The stacks' IAM roles, written one way: every role is bounded by the organization's permissions
boundary (naming.role_boundary_policy_arn: what the pipeline's policy requires of every role it
creates, docs/deploy.md) and trusts the principal its trust document names; an inline policy is a
document on one role. The construct IDs are the callers': the resources keep their addresses."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import bindings, naming, policies
from hyperpod_teams.spec.models import Organization


def bounded_role(scope: Construct, construct_id: str, *, name: str, org: Organization, trust: dict):
    """A role named `name`, under the organization's permissions boundary, trusting `trust`."""
    return bindings.aws_iam_role.IamRole(
        scope,
        construct_id,
        name=name,
        permissions_boundary=naming.role_boundary_policy_arn(org),
        assume_role_policy=policies.policy_json(trust),
    )


def inline_policy(scope: Construct, construct_id: str, *, role, name: str, document: dict):
    """The policy `document`, inline on `role` under `name`."""
    return bindings.aws_iam_role_policy.IamRolePolicy(
        scope, construct_id, name=name, role=role.id, policy=policies.policy_json(document)
    )


def service_role(
    scope: Construct,
    ids: tuple[str, str],
    *,
    name: str,
    org: Organization,
    service: str,
    policy_name: str,
    document: dict,
):
    """A role an AWS service (`service`: its principal, e.g. lambda.amazonaws.com) assumes, with its
    one inline policy; `ids` are the role's and the policy's construct IDs. Answers (role, policy)."""
    role = bounded_role(scope, ids[0], name=name, org=org, trust=policies.service_trust_policy(service))
    return role, inline_policy(scope, ids[1], role=role, name=policy_name, document=document)
