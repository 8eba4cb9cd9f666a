"""A role EKS Pod Identity assumes, with its policy: the one way the stacks write it (the training
operator's, Spaces' controllers, the observability collector, the usage-report operator, each
team's workload role). Trusted by `pods.eks.amazonaws.com` for the organization's account and the
one EKS cluster (policies.pod_identity_trust_policy), bounded by the organization's permissions
boundary, and given either an AWS managed policy (an attachment) or an inline policy of its own."""

from __future__ import annotations

from dataclasses import dataclass

from constructs import Construct

from hyperpod_teams import bindings, policies
from hyperpod_teams.constructs.iam import bounded_role, inline_policy
from hyperpod_teams.spec.models import Organization


@dataclass(frozen=True)
class Managed:
    """An AWS managed policy to attach, by name (AmazonSageMakerSpacesControllerPolicy)."""

    name: str


@dataclass(frozen=True)
class Inline:
    """An inline policy: its name on the role and its document."""

    name: str
    document: dict


def pod_identity_role(
    scope: Construct,
    *,
    role_id: str,
    policy_id: str,
    name: str,
    org: Organization,
    eks_cluster_arn: str | list[str],
    policy: Managed | Inline,
    pods: tuple[str, str] | None = None,
    chained_from: tuple[str, ...] = (),
):
    """The role and its policy's resource (what an association or add-on waits for), with the
    construct IDs each caller has always used, so the resources keep their addresses. `pods` and
    `chained_from`: policies.pod_identity_trust_policy's."""
    trust = policies.pod_identity_trust_policy(org.account_id, eks_cluster_arn, pods=pods, chained_from=chained_from)
    role = bounded_role(scope, role_id, name=name, org=org, trust=trust)
    if isinstance(policy, Managed):
        granted = bindings.aws_iam_role_policy_attachment.IamRolePolicyAttachment(
            scope,
            policy_id,
            role=role.name,
            policy_arn=policies.managed_policy_arn(policy.name, policies.aws_partition(org.region)),
        )
    else:
        granted = inline_policy(scope, policy_id, role=role, name=policy.name, document=policy.document)
    return role, granted


def pod_identity_association(
    scope: Construct,
    construct_id: str,
    *,
    eks_cluster_name: str,
    pods: tuple[str, str],
    role_arn: str,
    after=None,
    target_role_arn: str | None = None,
):
    """The association that hands `role_arn`'s credentials to the pods of one service account
    (`pods`: its namespace and name) on the EKS cluster, after `after`; with `target_role_arn`,
    the credentials of that role, which `role_arn` assumes (role chaining, for a role of another
    account: EKS user guide, "Access AWS Resources using EKS Pod Identity Target IAM Roles")."""
    namespace, service_account = pods
    return bindings.aws_eks_pod_identity_association.EksPodIdentityAssociation(
        scope,
        construct_id,
        cluster_name=eks_cluster_name,
        namespace=namespace,
        service_account=service_account,
        role_arn=role_arn,
        target_role_arn=target_role_arn,
        depends_on=after,
    )
