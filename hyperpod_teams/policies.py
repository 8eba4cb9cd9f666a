"""IAM policy documents as plain dicts: a reviewer reads here what each role receives.

Pure layer: no cdktf. Constructs serialize these with `policy_json`.
"""

from __future__ import annotations

import json



def policy_json(document: dict) -> str:
    """Stable, compact JSON: the same document always renders to the same bytes."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"))


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


def eks_cluster_trust_policy() -> dict:
    # EKS needs TagSession too since it tags the sessions it opens for the control plane.
    policy = service_trust_policy("eks.amazonaws.com")
    policy["Statement"][0]["Action"] = ["sts:AssumeRole", "sts:TagSession"]
    return policy


#: AWS-managed policies the EKS cluster role needs (EKS user guide, "Amazon EKS cluster IAM role").
EKS_CLUSTER_MANAGED_POLICIES = ("AmazonEKSClusterPolicy",)


def aws_partition(region: str) -> str:
    """The ARN partition of a region: aws, aws-us-gov or aws-cn."""
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    if region.startswith("cn-"):
        return "aws-cn"
    return "aws"


def managed_policy_arn(name: str, partition: str = "aws") -> str:
    return f"arn:{partition}:iam::aws:policy/{name}"


#: AWS-managed policy of HyperPod instance groups (SageMaker developer guide, "IAM role for
#: SageMaker HyperPod").
HYPERPOD_INSTANCE_MANAGED_POLICIES = ("AmazonSageMakerClusterInstanceRolePolicy",)


def hyperpod_execution_trust_policy() -> dict:
    return service_trust_policy("sagemaker.amazonaws.com")


def split_s3_uri(uri: str) -> tuple[str, str]:
    """`s3://bucket/some/prefix/` -> (`bucket`, `some/prefix/`)."""
    bucket, _, prefix = uri.removeprefix("s3://").partition("/")
    return bucket, prefix


def lifecycle_scripts_read_policy(bucket: str, prefix: str, partition: str = "aws") -> dict:
    """Read access to the lifecycle scripts, and nothing else of the bucket."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "ReadLifecycleScripts",
                "Effect": "Allow",
                "Action": ["s3:GetObject"],
                "Resource": [f"arn:{partition}:s3:::{bucket}/{prefix}*"],
            },
            {
                "Sid": "ListLifecycleScripts",
                "Effect": "Allow",
                "Action": ["s3:ListBucket"],
                "Resource": [f"arn:{partition}:s3:::{bucket}"],
                "Condition": {"StringLike": {"s3:prefix": [f"{prefix}*"]}},
            },
        ],
    }


def tls_only_bucket_policy(bucket: str, partition: str = "aws") -> dict:
    """Deny every request to the bucket that does not use TLS."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "DenyInsecureTransport",
                "Effect": "Deny",
                "Principal": "*",
                "Action": "s3:*",
                "Resource": [f"arn:{partition}:s3:::{bucket}", f"arn:{partition}:s3:::{bucket}/*"],
                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
            }
        ],
    }


def sagemaker_trust_policy() -> dict:
    return service_trust_policy("sagemaker.amazonaws.com")


#: SageMaker jobs and Studio apps a team member starts from the team's domain.
TEAM_CREATE_ACTIONS = (
    "sagemaker:CreateApp",
    "sagemaker:CreateProcessingJob",
    "sagemaker:CreateSpace",
    "sagemaker:CreateTrainingJob",
)
TEAM_MANAGE_ACTIONS = (
    "sagemaker:DeleteApp",
    "sagemaker:DeleteSpace",
    "sagemaker:DescribeApp",
    "sagemaker:DescribeProcessingJob",
    "sagemaker:DescribeSpace",
    "sagemaker:DescribeTrainingJob",
    "sagemaker:StopProcessingJob",
    "sagemaker:StopTrainingJob",
    "sagemaker:UpdateSpace",
)
CLUSTER_READ_ACTIONS = (
    "sagemaker:DescribeCluster",
    "sagemaker:DescribeClusterNode",
    "sagemaker:ListClusterNodes",
)


def team_execution_policy(
    *, org: str, team: str, account_id: str, region: str, eks_cluster_name: str
) -> dict:
    """What a team's domain apps and jobs may do: create and manage SageMaker resources tagged
    with their own team, read the shared HyperPod and EKS clusters, and nothing of other teams."""
    partition = aws_partition(region)
    sagemaker = f"arn:{partition}:sagemaker:{region}:{account_id}"
    team_tag = "hyperpod-teams:team"
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "CreateOnlyTaggedWithTheTeam",
                "Effect": "Allow",
                "Action": list(TEAM_CREATE_ACTIONS),
                "Resource": [
                    f"{sagemaker}:app/*",
                    f"{sagemaker}:processing-job/*",
                    f"{sagemaker}:space/*",
                    f"{sagemaker}:training-job/*",
                ],
                "Condition": {"StringEquals": {f"aws:RequestTag/{team_tag}": team}},
            },
            {
                "Sid": "TagOnlyWhileCreating",
                "Effect": "Allow",
                "Action": ["sagemaker:AddTags"],
                "Resource": [f"{sagemaker}:*/*"],
                "Condition": {
                    "StringEquals": {f"aws:RequestTag/{team_tag}": team},
                    "ForAnyValue:StringEquals": {
                        "sagemaker:TaggingAction": [action.split(":")[1] for action in TEAM_CREATE_ACTIONS]
                    },
                },
            },
            {
                "Sid": "ManageOnlyTheTeamsOwn",
                "Effect": "Allow",
                "Action": list(TEAM_MANAGE_ACTIONS),
                "Resource": [
                    f"{sagemaker}:app/*",
                    f"{sagemaker}:processing-job/*",
                    f"{sagemaker}:space/*",
                    f"{sagemaker}:training-job/*",
                ],
                "Condition": {"StringEquals": {f"aws:ResourceTag/{team_tag}": team}},
            },
            {
                "Sid": "ReadTheSharedHyperPodCluster",
                "Effect": "Allow",
                "Action": list(CLUSTER_READ_ACTIONS),
                "Resource": [f"{sagemaker}:cluster/*"],
                "Condition": {"StringEquals": {"aws:ResourceTag/hyperpod-teams:organization": org}},
            },
            {
                "Sid": "ReadTheSharedEksCluster",
                "Effect": "Allow",
                "Action": ["eks:DescribeCluster"],
                "Resource": [f"arn:{partition}:eks:{region}:{account_id}:cluster/{eks_cluster_name}"],
            },
        ],
    }
