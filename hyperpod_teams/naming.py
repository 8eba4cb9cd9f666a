"""Every name the project derives from the spec, in one place.

Each function returns a name that satisfies the length and character rules of its resource type.
A name that would be too long is shortened deterministically: cut, then suffixed with a short hash
of the full name, so the same spec always gives the same name and two different full names stay
different. Pure layer: no cdktf.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable

    from hyperpod_teams.spec.fields import Cluster, Organization, Team

# Limits of the resource types (AWS and Kubernetes API references).
IAM_ROLE_MAX = 64
IAM_POLICY_MAX = 128
PERMISSION_SET_MAX = 32
SAGEMAKER_DOMAIN_MAX = 63
S3_BUCKET_MAX = 63
EKS_CLUSTER_MAX = 100
BUDGET_MAX = 100
COST_CATEGORY_MAX = 50
KUBERNETES_LABEL_MAX = 63  # namespaces and anything used as a label value
KUBERNETES_NAME_MAX = 253
HCP_WORKSPACE_MAX = 90
KMS_ALIAS_MAX = 250  # after the alias/ prefix

HASH_LENGTH = 6

# Cost allocation tag keys (spec-v1.md, "Derived names").
TAG_TEAM = "hyperpod-teams:team"
TAG_COST_CENTER = "hyperpod-teams:cost-center"
TAG_ORGANIZATION = "hyperpod-teams:organization"
#: On the shared platform's resources (HyperPod and EKS clusters, their scripts, roles, keys): the
#: cost category finds them by it and splits their spend across the teams.
TAG_PLATFORM = "hyperpod-teams:platform"
#: The cluster a shared resource serves, in an organization of several (#61): each cluster's shared
#: spend is split across the teams placed on it (cost.several_clusters_cost_category_definition).
TAG_CLUSTER = "hyperpod-teams:cluster"
PLATFORM_SHARED = "shared"

ROLES = ("scientists", "admins")


def shorten(name: str, max_length: int, *, separator: str = "-") -> str:
    """`name` if it fits, else a cut of it plus a hash of the whole: deterministic and unique."""
    if len(name) <= max_length:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:HASH_LENGTH]
    head = name[: max_length - HASH_LENGTH - len(separator)].rstrip("-_.")
    return f"{head}{separator}{digest}"


# --- stacks ----------------------------------------------------------------------------------


def identity_stack_name(org: str) -> str:
    return f"{org}-identity"


def access_stack_name(org: str) -> str:
    return f"{org}-access"


def cluster_owner(org: str, cluster: str | None) -> str:
    """What a cluster's names start with: the organization's name, and with several clusters
    (spec `clusters`, #61) the cluster's after it. `cluster` None: a one-cluster spec's names."""
    return f"{org}-{cluster}" if cluster else org


def eks_stack_name(org: str, *, cluster: str | None = None) -> str:
    return f"{cluster_owner(org, cluster)}-eks"


def hyperpod_dependencies_stack_name(org: str, *, cluster: str | None = None) -> str:
    """The Helm chart HyperPod needs in EKS, between the EKS and the HyperPod cluster."""
    return f"{cluster_owner(org, cluster)}-hyperpod-deps"


def cluster_stack_name(org: str, *, cluster: str | None = None) -> str:
    return f"{cluster_owner(org, cluster)}-cluster"


def team_stack_name(org: str, team: str, *, cluster: str | None = None) -> str:
    """A team's stack: its home and its place on its home cluster (`cluster` None, with one
    cluster or several), or its place on another cluster of several (`cluster` given)."""
    return f"{cluster_owner(org, cluster)}-team-{team}"


def team_kubernetes_stack_name(org: str, team: str, *, cluster: str | None = None) -> str:
    """The Kubernetes side of one team: credentials of the EKS cluster only."""
    return f"{cluster_owner(org, cluster)}-k8s-{team}"


#: The access stack's output naming the identity provider its groups come from (plan review
#: alerts when a plan changes it: review/plan_summary.py).
IDENTITY_PROVIDER_OUTPUT = "identity_provider"


def cost_stack_name(org: str) -> str:
    return f"{org}-cost"


def usage_report_stack_name(org: str, *, cluster: str | None = None) -> str:
    """HyperPod usage reporting on the AWS side (cost.usage_reports)."""
    return f"{cluster_owner(org, cluster)}-usage-report"


def usage_operator_stack_name(org: str, *, cluster: str | None = None) -> str:
    """The usage-report operator's Helm chart: credentials of the EKS cluster only."""
    return f"{cluster_owner(org, cluster)}-usage-operator"


def remote_workspace_name(prefix: str, stack: str) -> str:
    """HCP Terraform workspace of one stack (letters, digits, - and _; at most 90)."""
    return shorten(re.sub(r"[^A-Za-z0-9_-]", "-", f"{prefix}{stack}"), HCP_WORKSPACE_MAX)


def state_key(key_prefix: str, stack: str) -> str:
    """S3 object key of one stack's state."""
    prefix = key_prefix if not key_prefix or key_prefix.endswith("/") else key_prefix + "/"
    return f"{prefix}{stack}/terraform.tfstate"


# --- identity --------------------------------------------------------------------------------


def group_name(pattern: str, org: str, team: str, role: str) -> str:
    """An IdP group's display name from `identity.group_name_pattern`."""
    return pattern.format(org=org, team=team, role=role)


def team_group_name(pattern: str, org: str, team: Team, role: str) -> str:
    """The IdP group of one team role: `members.<role>` when given, else from the pattern."""
    return getattr(team.members, role) or group_name(pattern, org, team.name, role)


def platform_admins_group(pattern: str, organization: Organization) -> str:
    """`organization.platform_admins_group`, else the pattern with team=platform, role=admins."""
    return organization.platform_admins_group or group_name(pattern, organization.name, "platform", "admins")


def permission_set_name(org: str, team: str, role: str) -> str:
    """IAM Identity Center permission set: at most 32 of [A-Za-z0-9+=,.@_-]."""
    return shorten(f"{org}-{team}-{role}", PERMISSION_SET_MAX)


def team_permission_set_name(org: str, team: Team, role: str) -> str:
    """The permission set of a team role: the one the spec takes over, else `permission_set_name`."""
    existing = team.existing_permission_set(role)
    return existing.name if existing is not None else permission_set_name(org, team.name, role)


def platform_admins_permission_set_name(org: str) -> str:
    return shorten(f"{org}-platform-admins", PERMISSION_SET_MAX)


def sso_role_name_prefix(permission_set: str) -> str:
    """Prefix of the role IAM Identity Center creates for a permission set in each account."""
    return f"AWSReservedSSO_{permission_set}_"


def sso_role_name_regex(permission_set: str) -> str:
    """The whole name of that role: the prefix and the hash suffix Identity Center adds."""
    return f"^{re.escape(sso_role_name_prefix(permission_set))}[0-9a-f]+$"


#: Path of the roles IAM Identity Center creates for permission sets.
SSO_ROLE_PATH = "/aws-reserved/sso.amazonaws.com/"


# --- cluster ---------------------------------------------------------------------------------


def eks_cluster_name(cluster: str) -> str:
    """The EKS cluster created for the HyperPod cluster `cluster`."""
    return shorten(f"{cluster}-eks", EKS_CLUSTER_MAX)


def shared_eks_cluster_name(cluster: Cluster) -> str:
    """The EKS cluster HyperPod runs on: the existing one, or the one the project creates."""
    return cluster.eks.existing_cluster_name or eks_cluster_name(cluster.name)


def eks_cluster_role_name(org: str, cluster: str) -> str:
    return shorten(f"{org}-{cluster}-eks-cluster", IAM_ROLE_MAX)


def eks_secrets_key_alias(org: str, cluster: str) -> str:
    """KMS alias (without `alias/`) of the key that encrypts the EKS cluster's Kubernetes secrets."""
    return shorten(f"{org}-{cluster}-eks-secrets", KMS_ALIAS_MAX)


def hyperpod_execution_role_name(org: str, cluster: str) -> str:
    """Execution role of the HyperPod instance groups."""
    return shorten(f"{org}-{cluster}-hyperpod-nodes", IAM_ROLE_MAX)


def hyperpod_autoscaling_role_name(org: str, cluster: str) -> str:
    """The role HyperPod assumes to add and remove nodes for Karpenter (CreateCluster ClusterRole)."""
    return shorten(f"{org}-{cluster}-hyperpod-autoscaling", IAM_ROLE_MAX)


def training_operator_role_name(org: str, cluster: str) -> str:
    """The role the HyperPod training operator's controller gets through EKS Pod Identity."""
    return shorten(f"{org}-{cluster}-training-operator", IAM_ROLE_MAX)


def deployed_instance_groups_parameter(org: str, cluster: str) -> str:
    """The SSM parameter recording the instance groups the last apply left in the HyperPod cluster
    (constructs/hyperpod.py DeployedInstanceGroups): `/hyperpod-teams/<org>/<cluster>/instance-groups`."""
    return f"/hyperpod-teams/{org}/{cluster}/instance-groups"


def lifecycle_bucket_name(org: str, cluster: str, account_id: str, region: str) -> str:
    """S3 bucket names are global: account and region make the name ours."""
    raw = f"{org}-{cluster.lower()}-lifecycle-{account_id}-{region}"
    return shorten(re.sub(r"-+", "-", raw), S3_BUCKET_MAX)


def scheduler_config_name(cluster: str) -> str:
    return shorten(f"{cluster}-scheduler", SAGEMAKER_DOMAIN_MAX)


# --- teams -----------------------------------------------------------------------------------


# Names HyperPod task governance derives from a compute quota's team name. They are never
# shortened: another system creates them, so a shortened name would point at nothing. The limits
# are Kubernetes' and Kueue's own: a namespace is a DNS label (63); a LocalQueue's name goes into
# the `kueue.x-k8s.io/queue-name` label of every job (a label value: 63); a ClusterQueue's name is
# a DNS subdomain (Kueue's ClusterQueueReference, 253). `derived_name_problems` tells which a
# team name breaks; the spec refuses such a team.
KUEUE_CLUSTER_QUEUE_MAX = 253
TASK_GOVERNANCE_PREFIX = "hyperpod-ns-"


def team_namespace(team: str) -> str:
    """The namespace HyperPod task governance creates for a team's compute quota."""
    return f"{TASK_GOVERNANCE_PREFIX}{team}"


def team_local_queue(team: str) -> str:
    """The Kueue LocalQueue task governance creates in the team namespace."""
    return f"{TASK_GOVERNANCE_PREFIX}{team}-localqueue"


def team_cluster_queue(team: str) -> str:
    """The Kueue ClusterQueue task governance creates for a team's compute quota."""
    return f"{TASK_GOVERNANCE_PREFIX}{team}-clusterqueue"


def derived_name_problems(team: str) -> list[str]:
    """What task governance could not create for this team name: each too-long derived name."""
    limits = (
        ("namespace", team_namespace(team), KUBERNETES_LABEL_MAX),
        ("LocalQueue (a label value on every job)", team_local_queue(team), KUBERNETES_LABEL_MAX),
        ("ClusterQueue", team_cluster_queue(team), KUEUE_CLUSTER_QUEUE_MAX),
    )
    return [
        f"the {what} {name!r} would have {len(name)} characters, over Kubernetes' {limit}"
        for what, name, limit in limits
        if len(name) > limit
    ]


def workload_priority_class(priority_class: str) -> str:
    """The Kueue WorkloadPriorityClass task governance creates for a scheduler-config priority
    class, and the name a user passes (`hyp create hyp-pytorch-job --priority`, the
    `kueue.x-k8s.io/priority-class` label): `<name>-priority`."""
    return f"{priority_class}-priority"


def team_kubernetes_group(team: str, role: str) -> str:
    """Kubernetes group a role's members are mapped to by their EKS access entry."""
    if role == "scientists":
        return f"hyperpod-ns-{team}-namespace-level-group"
    return f"hyperpod-ns-{team}-namespace-admin-group"


def team_kubernetes_role(role: str) -> str:
    """Role (namespaced) that a team role is bound to inside the team namespace."""
    return f"hyperpod-teams-{role}"


def team_cluster_role(team: str) -> str:
    """ClusterRole letting a team read its own ClusterQueue, priority classes and nodes."""
    return shorten(f"hyperpod-teams-{team}-cluster-read", KUBERNETES_NAME_MAX)


def compute_quota_name(team: str, *, cluster: str | None = None) -> str:
    return shorten(f"{team}-{cluster}-quota" if cluster else f"{team}-quota", SAGEMAKER_DOMAIN_MAX)


def team_domain_name(org: str, team: str) -> str:
    return shorten(f"{org}-{team}", SAGEMAKER_DOMAIN_MAX)


def team_studio_security_group_name(org: str, team: str) -> str:
    """The security group of a team's Studio apps (EC2 group names: up to 255 characters)."""
    return f"{org}-{team}-studio"


def team_studio_key_alias(org: str, team: str) -> str:
    """KMS alias (without `alias/`) of the key of a team's Studio home directories and volumes."""
    return shorten(f"{org}-{team}-studio", KMS_ALIAS_MAX)


def team_data_bucket_name(org: str, team: str, account_id: str, region: str) -> str:
    """The team's data bucket: S3 bucket names are global, account and region make it ours."""
    return shorten(re.sub(r"-+", "-", f"{org}-{team}-data-{account_id}-{region}"), S3_BUCKET_MAX)


def team_data_key_alias(org: str, team: str) -> str:
    """KMS alias (without `alias/`) of the key the team's data bucket is encrypted with."""
    return shorten(f"{org}-{team}-data", KMS_ALIAS_MAX)


def team_workload_role_name(org: str, team: str) -> str:
    """The role the team's pods get through EKS Pod Identity (TEAM_SERVICE_ACCOUNT)."""
    return shorten(f"{org}-{team}-workload", IAM_ROLE_MAX)


def team_pod_identity_role_name(org: str, team: str, *, cluster: str | None = None) -> str:
    """On a cluster in another account than the team's home (spec `clusters`): the role EKS Pod
    Identity assumes there for the team's service account, only to assume the team's workload role
    in its home account (the association's target role: EKS user guide, "Access AWS Resources using
    EKS Pod Identity Target IAM Roles")."""
    return shorten(f"{cluster_owner(org, cluster)}-{team}-pod-identity", IAM_ROLE_MAX)


#: The service account in a team's namespace that EKS Pod Identity binds to the team's workload
#: role: `hyp create hyp-pytorch-job --service-account-name team-workload`.
TEAM_SERVICE_ACCOUNT = "team-workload"
#: The cost category values of spend that is no single team's (cost.py): the shared platform's,
#: which the split charge rule divides, and the default of spend without this organization's tags.
#: A team's value is its name, so no team may be named either (spec/rules.py).
COST_CATEGORY_SHARED_VALUE = "shared-platform"
COST_CATEGORY_DEFAULT_VALUE = "unattributed"

#: The PersistentVolumeClaim in a team's namespace that mounts the team's data bucket with the
#: credentials of the pod that mounts it (isolation.team_data_volume_manifests).
TEAM_DATA_CLAIM = "team-data"


#: Path of the IAM policies the stacks write for Identity Center permission sets to reference.
TEAM_POLICY_PATH = "/hyperpod-teams/"


def team_admins_studio_policy_name(org: str, team: str) -> str:
    """The customer managed policy with what the team's admins manage in the team's own domain,
    referenced by the admins' permission set (policies.team_admins_studio_policy)."""
    return shorten(f"{org}-{team}-admins-studio", IAM_POLICY_MAX)


def team_repository_prefix(org: str, team: str) -> str:
    """The ECR repositories that are the team's: named under `<org>/<team>/`."""
    return f"{org}/{team}/"


def container_log_group(eks_cluster_name: str) -> str:
    """Where the Amazon CloudWatch Observability add-on writes the containers' logs."""
    return f"/aws/containerinsights/{eks_cluster_name}/application"


def team_execution_role_name(org: str, team: str) -> str:
    return shorten(f"{org}-{team}-execution", IAM_ROLE_MAX)


def team_budget_name(org: str, team: str) -> str:
    return shorten(f"{org}-{team}-monthly", BUDGET_MAX)


def cost_category_name(org: str) -> str:
    """One cost category per organization (several may share a payer account)."""
    return shorten(f"{org}-hyperpod-team", COST_CATEGORY_MAX)


def cluster_shared_cost_value(cluster: str) -> str:
    """The cost category value of one cluster's shared spend, in an organization of several (#61;
    cost.several_clusters_cost_category_definition): no team may be named so."""
    return f"{COST_CATEGORY_SHARED_VALUE}-{cluster}"


def team_tags(org: str, team: str, cost_center: str | None) -> dict[str, str]:
    tags = {TAG_ORGANIZATION: org, TAG_TEAM: team}
    if cost_center:
        tags[TAG_COST_CENTER] = cost_center
    return tags


def organization_tags(org: str, extra: dict[str, str]) -> dict[str, str]:
    return {**extra, TAG_ORGANIZATION: org}


def platform_resource_tags(organization: Organization) -> dict[str, str]:
    """Tags of every AWS resource of the platform: the spec's tags and the organization tag."""
    return organization_tags(organization.name, dict(organization.tags))


def shared_platform_tags(organization: Organization) -> dict[str, str]:
    """Tags of the shared platform's resources: the platform's plus the shared-platform tag."""
    return {**platform_resource_tags(organization), TAG_PLATFORM: PLATFORM_SHARED}


def team_resource_tags(organization: Organization, team: Team) -> dict[str, str]:
    """Tags of every AWS resource of one team: the platform's plus team and cost center."""
    return {**platform_resource_tags(organization), **team_tags(organization.name, team.name, team.cost_center)}


def deploy_policy_name(org: str, index: int) -> str:
    """The customer managed policies that hold what the deploying pipeline may do
    (hyperpod_teams.policies.deploy): `hyperpod-teams-deploy-<org>-1`, `-2`, ... Not `<org>-*` and
    not under the path `/hyperpod-teams/`, which the policies grant changes on: the pipeline cannot
    rewrite what it may do."""
    return f"hyperpod-teams-deploy-{org}-{index}"


#: The path of the roles' permissions boundary: outside `/hyperpod-teams/` and `<org>-*`, which the
#: deploy policy grants changes on.
ROLE_BOUNDARY_PATH = "/hyperpod-teams-boundary/"


def role_boundary_policy_name(org: str) -> str:
    """The permissions boundary every role of the stacks carries (policies.deploy.role_boundary_policy)."""
    return f"{org}-role-boundary"


def aws_partition(region: str) -> str:
    """The ARN partition of a region: aws, aws-us-gov or aws-cn."""
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    if region.startswith("cn-"):
        return "aws-cn"
    return "aws"


def iam_role_arn(region: str, account: str, name: str) -> str:
    """The ARN of the role `name` in `account`, in the partition of `region`."""
    return f"arn:{aws_partition(region)}:iam::{account}:role/{name}"


def assumed_deploy_role_arn(organization: Organization, account: str) -> str | None:
    """The role the stacks' providers assume in `account` (organization.deploy_role_name), or None."""
    if organization.deploy_role_name is None:
        return None
    return iam_role_arn(organization.region, account, organization.deploy_role_name)


def role_boundary_policy_arn(organization: Organization) -> str:
    partition = aws_partition(organization.region)
    return (
        f"arn:{partition}:iam::{organization.account_id}:policy{ROLE_BOUNDARY_PATH}"
        f"{role_boundary_policy_name(organization.name)}"
    )


def deploy_role_name(org: str) -> str:
    """The role docs/deploy.md has a pipeline deploy as: outside the `<org>-*` names the deploy
    policy grants changes on, so the pipeline cannot widen its own grants."""
    return f"hyperpod-teams-deploy-{org}"


# --- inference, Spaces and observability ---------------------------------------------------------------

#: SageMaker endpoint names: letters, digits and hyphens, at most 63 (the inference operator's CRDs,
#: `endpointName` / `sageMakerEndpoint.name`: `^$|^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$`).
ENDPOINT_NAME_MAX = 63
#: A team's endpoint names leave at least this much after its prefix.
ENDPOINT_NAME_ROOM = 8


def team_endpoint_prefix(org: str, team: str) -> str:
    """How a SageMaker endpoint is known as a team's: its name starts with `<org>-<team>--`. The
    double hyphen ends the team's name (spec.rules refuses a team named `<other team>--...`, the one
    way another team's endpoints could start with this prefix); SageMaker writes endpoint names in
    lowercase in ARNs, and org and team names are lowercase."""
    return f"{org}-{team}--"


def inference_role_name(org: str, purpose: str, *, cluster: str | None = None) -> str:
    """The inference operator's roles. The operator's own must start with SageMakerHyperPodInference
    (addons.INFERENCE_ROLE_NAME_PREFIX); the others say what they serve."""
    if purpose == "operator":
        return shorten(f"SageMakerHyperPodInference-{cluster_owner(org, cluster)}", IAM_ROLE_MAX)
    return shorten(f"{cluster_owner(org, cluster)}-inference-{purpose}", IAM_ROLE_MAX)


def inference_tls_bucket_name(org: str, account_id: str, region: str, *, cluster: str | None = None) -> str:
    """Where the inference operator keeps the endpoints' TLS certificates."""
    return shorten(
        re.sub(r"-+", "-", f"{cluster_owner(org, cluster)}-inference-tls-{account_id}-{region}"), S3_BUCKET_MAX
    )


def spaces_role_name(org: str, purpose: str = "controller", *, cluster: str | None = None) -> str:
    """The Spaces controller's role, or the EBS CSI driver's it needs (`purpose` ebs-csi)."""
    return shorten(f"{cluster_owner(org, cluster)}-spaces-{purpose}", IAM_ROLE_MAX)


def observability_role_name(org: str, *, cluster: str | None = None) -> str:
    return shorten(f"{cluster_owner(org, cluster)}-hyperpod-observability", IAM_ROLE_MAX)


def grafana_role_name(org: str, *, cluster: str | None = None) -> str:
    return shorten(f"{cluster_owner(org, cluster)}-hyperpod-grafana", IAM_ROLE_MAX)


def observability_workspace_name(org: str, *, cluster: str | None = None) -> str:
    """The Prometheus workspace's alias and the Grafana workspace's name."""
    return f"{cluster_owner(org, cluster)}-hyperpod"


def teams_data_buckets(organization: Organization, teams: Iterable[Team]) -> list[str]:
    """Every team's data bucket (team_data_bucket), sorted, each once."""
    return sorted({bucket for team in teams if (bucket := team_data_bucket(organization, team))})


def team_data_bucket(organization: Organization, team: Team) -> str | None:
    """The team's data bucket: the existing one the spec names, the one the team stack makes, or none
    (`data.enabled: false`)."""
    if not team.data.enabled:
        return None
    return team.data.existing_bucket or team_data_bucket_name(
        organization.name, team.name, organization.account_id, organization.region
    )
