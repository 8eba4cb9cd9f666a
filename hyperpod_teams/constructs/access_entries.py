"""EKS access entries: for the role IAM Identity Center makes for a permission set (a team role's,
the platform admins'), and for a team's Studio execution role; each with its access policies
(cluster admin, or the EKS console's read-only view of one namespace). The team stacks and the
cluster stack both use them."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import addons, bindings, naming
from hyperpod_teams.engine import cdk
from hyperpod_teams.spec.models import Team


class SsoRoleAccessEntry(Construct):
    """An EKS access entry for the role IAM Identity Center made for a permission set.

    That role's name ends in a hash nobody can predict (`AWSReservedSSO_<set>_<hash>`), so it is
    looked up, which works once the permission set is assigned in this account.
    """

    def __init__(
        self,
        scope: Construct,
        id_: str,
        *,
        permission_set: str,
        eks_cluster_name: str,
        kubernetes_groups: list[str] | None = None,
        cluster_admin: bool = False,
        view_namespace: str | None = None,
        spaces_namespace: str | None = None,
        partition: str = "aws",
    ) -> None:
        super().__init__(scope, id_)
        self.roles = bindings.aws_data_iam_roles.DataAwsIamRoles(
            self,
            "sso-role",
            name_regex=naming.sso_role_name_regex(permission_set),
            path_prefix=naming.SSO_ROLE_PATH,
        )
        # Exactly one role matches; `one` fails the plan loudly if the assignment is missing.
        self.principal_arn = cdk.Fn.one(self.roles.arns)
        self.entry = add_access_entry(
            self,
            principal_arn=self.principal_arn,
            eks_cluster_name=eks_cluster_name,
            kubernetes_groups=kubernetes_groups,
            cluster_admin=cluster_admin,
            view_namespace=view_namespace,
            spaces_namespace=spaces_namespace,
            partition=partition,
        )


class StudioAccessEntry(Construct):
    """An EKS access entry for the team's Studio execution role, mapped to the team scientists'
    Kubernetes group: kubectl and the HyperPod CLI in a Studio space reach the team namespace, as
    a scientist does, and nothing else."""

    def __init__(
        self, scope: Construct, id_: str, *, team: Team, execution_role_arn: str, eks_cluster_name: str, partition: str
    ) -> None:
        super().__init__(scope, id_)
        self.entry = add_access_entry(
            self,
            principal_arn=execution_role_arn,
            eks_cluster_name=eks_cluster_name,
            kubernetes_groups=[naming.team_kubernetes_group(team.name, "scientists")],
            view_namespace=naming.team_namespace(team.name),
            partition=partition,
        )


def add_access_entry(
    scope: Construct,
    *,
    principal_arn: str,
    eks_cluster_name: str,
    kubernetes_groups: list[str] | None,
    cluster_admin: bool = False,
    view_namespace: str | None = None,
    spaces_namespace: str | None = None,
    partition: str = "aws",
):
    """An access entry in `scope` and its access policies: cluster admin, or the EKS console's
    read-only view of one namespace; with `spaces_namespace`, SageMaker Spaces' policies as AWS documents
    them for a data scientist (SageMaker developer guide, "Add users and set up service accounts"): the
    space policy scoped to the namespace they create spaces in, the template policy to the shared
    templates' namespace."""
    entry = bindings.aws_eks_access_entry.EksAccessEntry(
        scope,
        "entry",
        cluster_name=eks_cluster_name,
        principal_arn=principal_arn,
        kubernetes_groups=kubernetes_groups,
        type="STANDARD",
    )
    association = bindings.aws_eks_access_policy_association
    policies_by_scope: list[tuple[str, str, list[str] | None]] = []
    if cluster_admin:
        policies_by_scope.append(("cluster-admin", "AmazonEKSClusterAdminPolicy", None))
    if view_namespace:
        # Read-only in the team namespace: what the EKS console shows a member. What they may
        # change comes from the team's RBAC alone.
        policies_by_scope.append(("namespace-view", "AmazonEKSViewPolicy", [view_namespace]))
    if spaces_namespace:
        policies_by_scope.append(("spaces", addons.SPACE_ACCESS_POLICY, [spaces_namespace]))
        policies_by_scope.append(
            ("space-templates", addons.SPACE_TEMPLATE_ACCESS_POLICY, [addons.SPACE_TEMPLATES_NAMESPACE])
        )
    for construct_id, policy, namespaces in policies_by_scope:
        association.EksAccessPolicyAssociation(
            scope,
            construct_id,
            cluster_name=eks_cluster_name,
            principal_arn=entry.principal_arn,
            policy_arn=f"arn:{partition}:eks::aws:cluster-access-policy/{policy}",
            access_scope=association.EksAccessPolicyAssociationAccessScope(
                type="namespace" if namespaces else "cluster", namespaces=namespaces
            ),
        )
    return entry
