"""Where each derived name must be unique, and how many of it an organization has: the naming audit
that several clusters (#61: `clusters:`, several HyperPod clusters, regions and accounts from one
spec) start from. Pure data, read by tests/test_name_scopes.py; docs/architecture.md, "Names across
clusters", explains it.

Every function of `naming` that derives a name is here with:

- `scope`: how many an organization has.
  - `organization`: one, whatever its clusters: the identity layer (IdP groups, Identity Center
    permission sets), the cost layer (cost category, budgets), the deploying pipeline's role.
  - `team`: one per team: its home (domain, data bucket and keys, execution role), wherever its
    compute is placed.
  - `cluster`: one per cluster: what its chain deploys (EKS, HyperPod, its controllers' roles).
  - `team on a cluster`: one per team on each cluster it has a placement on (namespace, queues,
    quota, its stacks of the cluster's chain).
- `unique_in`: the namespace AWS, Kubernetes or Identity Center holds the name in: two names of
  the same `unique_in` must differ, two of different ones may be equal (a Kubernetes namespace is
  the same name on every cluster, on purpose: `hyp` and task governance derive it from the team).

A `cluster` or `team on a cluster` name unique in an account, a region or the deploy must carry the
cluster when an organization has several; `tests/test_name_scopes.py` computes which names do
today and holds this table to it (`qualified_by_cluster`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Scope = Literal["organization", "team", "cluster", "team on a cluster"]

#: Namespaces that hold names, by what AWS or Kubernetes documents.
DEPLOY = "the deploy (stack names, state keys, workspaces)"
IDENTITY_PROVIDER = "the identity provider's groups"
IDENTITY_CENTER = "the Identity Center instance (permission sets)"
IAM = "IAM, per account (roles, policies)"
S3 = "S3, global (bucket names)"
KMS = "KMS, per account and region (aliases)"
EKS = "EKS, per account and region (cluster names)"
SAGEMAKER = "SageMaker, per account and region (domains, clusters, scheduler configs, endpoints)"
SSM = "Systems Manager, per account and region (parameter names)"
LOGS = "CloudWatch Logs, per account and region (log groups)"
ECR = "ECR, per account and region (repositories)"
EC2 = "EC2, per VPC (security group names)"
BILLING = "Billing, per payer account (cost categories, budgets)"
MONITORING = "Amazon Managed Prometheus and Grafana, per account and region (workspace names)"
KUBERNETES = "Kubernetes, per cluster (namespaces, queues, roles, groups, priority classes)"


@dataclass(frozen=True)
class NameScope:
    scope: Scope
    unique_in: str
    #: Whether the name carries the cluster's name where an organization has several (computed by
    #: the test: two clusters' names differ; a name whose function takes `cluster=` keeps a
    #: one-cluster spec's name without it). A `cluster` name unique in IAM, an account, a region or
    #: the deploy without it would collide when a second cluster deploys beside the first.
    qualified_by_cluster: bool = False


SCOPES: dict[str, NameScope] = {
    # --- stacks (the deploy) ---
    "identity_stack_name": NameScope("organization", DEPLOY),
    "access_stack_name": NameScope("organization", DEPLOY),
    "cost_stack_name": NameScope("organization", DEPLOY),
    "eks_stack_name": NameScope("cluster", DEPLOY, qualified_by_cluster=True),
    "hyperpod_dependencies_stack_name": NameScope("cluster", DEPLOY, qualified_by_cluster=True),
    "cluster_stack_name": NameScope("cluster", DEPLOY, qualified_by_cluster=True),
    "usage_report_stack_name": NameScope("cluster", DEPLOY, qualified_by_cluster=True),
    "usage_operator_stack_name": NameScope("cluster", DEPLOY, qualified_by_cluster=True),
    # With one cluster the team stack holds the team's home and its place on the cluster; with
    # several, `team_stack_name(..., cluster=None)` is its home's and one per cluster its place's.
    "team_stack_name": NameScope("team on a cluster", DEPLOY, qualified_by_cluster=True),
    "team_kubernetes_stack_name": NameScope("team on a cluster", DEPLOY, qualified_by_cluster=True),
    # --- identity ---
    "group_name": NameScope("organization", IDENTITY_PROVIDER),
    "team_group_name": NameScope("organization", IDENTITY_PROVIDER),
    "platform_admins_group": NameScope("organization", IDENTITY_PROVIDER),
    "permission_set_name": NameScope("organization", IDENTITY_CENTER),
    "team_permission_set_name": NameScope("organization", IDENTITY_CENTER),
    "platform_admins_permission_set_name": NameScope("organization", IDENTITY_CENTER),
    # --- the pipeline ---
    "deploy_role_name": NameScope("organization", IAM),
    "deploy_policy_name": NameScope("organization", IAM),
    "role_boundary_policy_name": NameScope("organization", IAM),
    # --- a cluster ---
    "eks_cluster_name": NameScope("cluster", EKS, qualified_by_cluster=True),
    "shared_eks_cluster_name": NameScope("cluster", EKS, qualified_by_cluster=True),
    "eks_cluster_role_name": NameScope("cluster", IAM, qualified_by_cluster=True),
    "eks_secrets_key_alias": NameScope("cluster", KMS, qualified_by_cluster=True),
    "hyperpod_execution_role_name": NameScope("cluster", IAM, qualified_by_cluster=True),
    "hyperpod_autoscaling_role_name": NameScope("cluster", IAM, qualified_by_cluster=True),
    "training_operator_role_name": NameScope("cluster", IAM, qualified_by_cluster=True),
    "deployed_instance_groups_parameter": NameScope("cluster", SSM, qualified_by_cluster=True),
    "lifecycle_bucket_name": NameScope("cluster", S3, qualified_by_cluster=True),
    "scheduler_config_name": NameScope("cluster", SAGEMAKER, qualified_by_cluster=True),
    "container_log_group": NameScope("cluster", LOGS, qualified_by_cluster=True),
    "inference_role_name": NameScope("cluster", IAM, qualified_by_cluster=True),
    "inference_tls_bucket_name": NameScope("cluster", S3, qualified_by_cluster=True),
    "spaces_role_name": NameScope("cluster", IAM, qualified_by_cluster=True),
    "observability_role_name": NameScope("cluster", IAM, qualified_by_cluster=True),
    "grafana_role_name": NameScope("cluster", IAM, qualified_by_cluster=True),
    "observability_workspace_name": NameScope("cluster", MONITORING, qualified_by_cluster=True),
    # --- a team's home ---
    "team_domain_name": NameScope("team", SAGEMAKER),
    "team_studio_security_group_name": NameScope("team", EC2),
    "team_studio_key_alias": NameScope("team", KMS),
    "team_data_bucket_name": NameScope("team", S3),
    "team_data_key_alias": NameScope("team", KMS),
    "team_execution_role_name": NameScope("team", IAM),
    "team_admins_studio_policy_name": NameScope("team", IAM),
    "team_repository_prefix": NameScope("team", ECR),
    "team_budget_name": NameScope("organization", BILLING),
    "cost_category_name": NameScope("organization", BILLING),
    "cluster_shared_cost_value": NameScope("cluster", BILLING, qualified_by_cluster=True),
    # The role its jobs' pods get through EKS Pod Identity: one per account the team has compute in.
    "team_workload_role_name": NameScope("team", IAM),
    # Where a placement's cluster is in another account: the role Pod Identity assumes there, which
    # assumes the team's workload role at home (one per such placement).
    "team_pod_identity_role_name": NameScope("team on a cluster", IAM, qualified_by_cluster=True),
    # What the team's endpoints are named after, on every cluster it serves from: the team's grants
    # and its members' names (SageMaker refuses a second endpoint of a name in an account and region).
    "team_endpoint_prefix": NameScope("team", SAGEMAKER),
    # --- a team on a cluster (Kubernetes names: the same on every cluster, on purpose) ---
    "team_namespace": NameScope("team on a cluster", KUBERNETES),
    "team_local_queue": NameScope("team on a cluster", KUBERNETES),
    "team_cluster_queue": NameScope("team on a cluster", KUBERNETES),
    "team_kubernetes_group": NameScope("team on a cluster", KUBERNETES),
    "team_kubernetes_role": NameScope("team on a cluster", KUBERNETES),
    "team_cluster_role": NameScope("team on a cluster", KUBERNETES),
    "workload_priority_class": NameScope("cluster", KUBERNETES),
    "compute_quota_name": NameScope("team on a cluster", SAGEMAKER, qualified_by_cluster=True),
}

#: Functions of `naming` that derive no name of their own: helpers, tags, ARNs and patterns of a
#: name above, names another system gives.
NOT_NAMES = frozenset(
    {
        "shorten",
        "cluster_owner",  # what the names of a cluster start with, not a name
        "aws_partition",
        "derived_name_problems",
        "organization_tags",
        "team_tags",
        "platform_resource_tags",
        "shared_platform_tags",
        "team_resource_tags",
        "assumed_deploy_role_arn",
        "iam_role_arn",
        "role_boundary_policy_arn",
        "sso_role_name_prefix",  # Identity Center's role of a permission set above
        "sso_role_name_regex",
        "state_key",  # of a stack name above
        "remote_workspace_name",
        "team_data_bucket",  # team_data_bucket_name of the spec's organization
        "teams_data_buckets",
    }
)


def collide_across_clusters() -> list[str]:
    """The names a second cluster would collide on today: a `cluster` or `team on a cluster` name,
    unique beyond one Kubernetes cluster, that does not carry the cluster."""
    return sorted(
        name
        for name, scope in SCOPES.items()
        if scope.scope in ("cluster", "team on a cluster")
        and scope.unique_in != KUBERNETES
        and not scope.qualified_by_cluster
    )
