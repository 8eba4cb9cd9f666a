"""What every principal's policies are built of: the JSON a construct serializes, trust policies (a
service, EKS Pod Identity, IRSA), ARNs and partitions, the AWS managed policies the stacks attach,
the conditions that hold a grant to a region or to an organization's (a team's) tagged resources,
and the deny that keeps roles carrying AWS managed policies from every team's data.

Pure layer: no cdktf.
"""

from __future__ import annotations

import json
import re

from hyperpod_teams import addons, naming
from hyperpod_teams.naming import aws_partition  # noqa: F401 - the policy modules and policies.aws_partition take it from here


def policy_json(document: dict) -> str:
    """Stable, compact JSON: the same document always renders to the same bytes."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"))


def policy_size(document: dict) -> int:
    """What IAM counts of a policy document against its quotas: its characters but whitespace."""
    return len(re.sub(r"\s", "", json.dumps(document)))


def service_trust_policy(service: str) -> dict:
    """Trust policy that lets one AWS service assume the role, and nothing else."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": service},
                "Action": "sts:AssumeRole",
            }
        ],
    }


#: AWS-managed policies the EKS cluster role needs (EKS user guide, "Amazon EKS cluster IAM role").
EKS_CLUSTER_MANAGED_POLICIES = ("AmazonEKSClusterPolicy",)


def eks_arn(partition: str, region: str, account_id: str) -> str:
    """`arn:<partition>:eks:<region>:<account>`, which EKS resource ARNs continue with
    `:cluster/<name>`, `:addon/<cluster>/...`, `:access-entry/<cluster>/...`."""
    return f"arn:{partition}:eks:{region}:{account_id}"


def eks_cluster_arn(partition: str, region: str, account_id: str, name: str) -> str:
    """An EKS cluster's ARN: `arn:<partition>:eks:<region>:<account>:cluster/<name>`."""
    return f"{eks_arn(partition, region, account_id)}:cluster/{name}"


def managed_policy_arn(name: str, partition: str = "aws") -> str:
    return f"arn:{partition}:iam::aws:policy/{name}"


#: AWS-managed policy of HyperPod instance groups (SageMaker developer guide, "IAM role for
#: SageMaker HyperPod").
HYPERPOD_INSTANCE_MANAGED_POLICIES = ("AmazonSageMakerClusterInstanceRolePolicy",)


#: Every AWS managed policy a stack attaches to one of its roles: the deploying pipeline may attach
#: these and no other (policies.deploy; a test holds every synthesized attachment to the list).
STACKS_AWS_MANAGED_POLICIES = (
    *EKS_CLUSTER_MANAGED_POLICIES,
    *HYPERPOD_INSTANCE_MANAGED_POLICIES,
    addons.CLOUDWATCH_AGENT_MANAGED_POLICY,
    addons.TRAINING_OPERATOR_MANAGED_POLICY,
    addons.INFERENCE_MANAGED_POLICY,
    addons.GATED_MODEL_MANAGED_POLICY,
    addons.SPACES_CONTROLLER_MANAGED_POLICY,
    addons.EBS_CSI_MANAGED_POLICY,
)


def split_s3_uri(uri: str) -> tuple[str, str]:
    """`s3://bucket/some/prefix/` -> (`bucket`, `some/prefix/`)."""
    bucket, _, prefix = uri.removeprefix("s3://").partition("/")
    return bucket, prefix


def sagemaker_trust_policy() -> dict:
    return service_trust_policy("sagemaker.amazonaws.com")


def studio_resources(sagemaker: str) -> list[str]:
    return [f"{sagemaker}:{kind}/*" for kind in ("app", "domain", "space", "user-profile")]


def owned_by(org: str, team: str | None = None, *, request: bool = False) -> dict:
    """A condition that the resource (or, with `request`, the new resource) is the org's, and
    with `team` that team's."""
    kind = "RequestTag" if request else "ResourceTag"
    tags = {f"aws:{kind}/{naming.TAG_ORGANIZATION}": org}
    if team:
        tags[f"aws:{kind}/{naming.TAG_TEAM}"] = team
    return {"StringEquals": tags}


def pod_identity_trust_policy(
    account_id: str,
    eks_cluster_arn: str | list[str],
    *,
    pods: tuple[str, str] | None = None,
    chained_from: tuple[str, ...] = (),
) -> dict:
    """EKS Pod Identity assumes the role for pods of this one cluster, or of these clusters (EKS user
    guide, "Create an IAM role for EKS Pod Identity": the service principal, AssumeRole and
    TagSession; the source account and cluster conditions guard against the confused deputy).

    `pods` (namespace, service account): only for the pods of that service account, by the session
    tags Pod Identity sets (EKS user guide, "Enable or disable session tags"). `chained_from`: the
    roles of other accounts Pod Identity assumes first on the clusters there, which then assume
    this one as their association's target role ("Access AWS Resources using EKS Pod Identity
    Target IAM Roles"); trusted by their accounts with the condition that the caller is the role."""
    policy = service_trust_policy("pods.eks.amazonaws.com")
    statement = policy["Statement"][0]
    statement["Action"] = ["sts:AssumeRole", "sts:TagSession"]
    statement["Condition"] = {
        "StringEquals": {"aws:SourceAccount": account_id},
        "ArnEquals": {"aws:SourceArn": eks_cluster_arn},
    }
    if pods is not None:
        namespace, service_account = pods
        statement["Condition"]["StringEquals"].update(
            {
                "aws:RequestTag/kubernetes-namespace": namespace,
                "aws:RequestTag/kubernetes-service-account": service_account,
            }
        )
    if chained_from:
        accounts = sorted({_account_root(arn) for arn in chained_from})
        policy["Statement"].append(
            {
                "Sid": "PodIdentityOfTheSameTeamInAnotherAccount",
                "Effect": "Allow",
                "Principal": {"AWS": accounts[0] if len(accounts) == 1 else accounts},
                "Action": ["sts:AssumeRole", "sts:TagSession"],
                "Condition": {"ArnEquals": {"aws:PrincipalArn": sorted(chained_from)}},
            }
        )
    return policy


def _account_root(role_arn: str) -> str:
    """The account principal (`arn:aws:iam::ACCOUNT:root`) of a role's ARN. A trust policy names the
    account, not the role, so that it can be written before the role exists (IAM refuses a role
    principal that does not); the condition on aws:PrincipalArn keeps it to the role."""
    partition, account = role_arn.split(":")[1], role_arn.split(":")[4]
    return f"arn:{partition}:iam::{account}:root"


def irsa_trust_policy(
    *, oidc_provider_arn: str, issuer: str, namespace: str, service_account: str, sagemaker: bool = False
) -> dict:
    """A role for a service account through the EKS cluster's OIDC provider (IRSA; EKS user guide,
    "Assign IAM roles to Kubernetes service accounts"): `issuer` is the provider's URL without
    https://. A `*` in `service_account` or `namespace` matches with StringLike. `sagemaker`: the
    role is SageMaker's to assume too (the inference operator's execution and gated-model roles)."""
    test = "StringLike" if "*" in service_account or "*" in namespace else "StringEquals"
    statements: list[dict] = [
        {
            "Sid": "ServiceAccountOfTheCluster",
            "Effect": "Allow",
            "Principal": {"Federated": oidc_provider_arn},
            "Action": "sts:AssumeRoleWithWebIdentity",
            "Condition": {
                test: {
                    f"{issuer}:aud": "sts.amazonaws.com",
                    f"{issuer}:sub": f"system:serviceaccount:{namespace}:{service_account}",
                }
            },
        }
    ]
    if sagemaker:
        statements.insert(
            0,
            {
                "Sid": "SageMaker",
                "Effect": "Allow",
                "Principal": {"Service": "sagemaker.amazonaws.com"},
                "Action": "sts:AssumeRole",
            },
        )
    return {"Version": "2012-10-17", "Statement": statements}


def no_team_data_policy(buckets: list[str], partition: str = "aws") -> dict:
    """A deny of the teams' data, for a platform role that carries an AWS managed policy whose S3 grants
    the stacks cannot narrow (the inference operator's AmazonSageMakerHyperPodInferenceAccess, the gated
    models' AmazonSageMakerHyperPodGatedModelAccess; AWS's own troubleshooting page gives the operator
    s3:GetObject on `*`): nothing of a team's bucket, no key tagged with a team. The operator loads no
    team's model from S3 (rbac._model_source_validation), so it needs none."""
    statements: list[dict] = [
        {
            "Sid": "NoTeamsKeys",
            "Effect": "Deny",
            "Action": ["kms:Decrypt", "kms:GenerateDataKey", "kms:ReEncryptFrom"],
            "Resource": "*",
            "Condition": {"Null": {f"aws:ResourceTag/{naming.TAG_TEAM}": "false"}},
        }
    ]
    if buckets:
        arns = [f"arn:{partition}:s3:::{b}" for b in buckets]
        statements.insert(
            0,
            {"Sid": "NoTeamsData", "Effect": "Deny", "Action": "s3:*", "Resource": [*arns, *(f"{a}/*" for a in arns)]},
        )
    return {"Version": "2012-10-17", "Statement": statements}


#: Reads without a resource type (Service Authorization Reference): `*` is their only resource, so
#: they are held to the spec's region. CloudWatch metric reads (KEDA's triggers, Grafana's panels), the
#: Prometheus workspace list (Grafana), and what the load balancer controller reads of the network.
METRIC_READ_ACTIONS = ("cloudwatch:GetMetricData", "cloudwatch:GetMetricStatistics", "cloudwatch:ListMetrics")


def in_region(region: str) -> dict:
    return {"StringEquals": {"aws:RequestedRegion": region}}


def in_region_anywhere(sid: str, actions: tuple[str, ...], region: str) -> dict:
    """Allow actions that take no resource type (`*` their only resource), held to the region."""
    return {"Sid": sid, "Effect": "Allow", "Action": list(actions), "Resource": "*", "Condition": in_region(region)}
