"""The HyperPod instance groups' role (every node's): what an EKS-orchestrated node needs beyond the
AWS managed instance policy, and reading the lifecycle scripts.

Pure layer: no cdktf.
"""

from __future__ import annotations

from hyperpod_teams.policies.documents import eks_cluster_arn, in_region_anywhere, service_trust_policy, split_s3_uri


def hyperpod_execution_trust_policy() -> dict:
    return service_trust_policy("sagemaker.amazonaws.com")


#: What nodes of an EKS-orchestrated HyperPod cluster need beyond the managed instance policy:
#: the VPC CNI manages the nodes' network interfaces, the kubelet pulls images from ECR, and the
#: EKS Pod Identity agent exchanges tokens. Sources: the SageMaker developer guide, "IAM role for
#: SageMaker HyperPod" (EKS-orchestrated clusters), and the reference module in
#: awslabs/awsome-distributed-training (terraform-modules/hyperpod-eks-tf/modules/sagemaker_iam_role),
#: which grant these same actions on `*`; here each is scoped as tightly as the action allows.
NODE_NETWORK_INTERFACE_ACTIONS = (
    "ec2:AssignPrivateIpAddresses",
    "ec2:CreateNetworkInterfacePermission",
    "ec2:DeleteNetworkInterface",
    "ec2:ModifyNetworkInterfaceAttribute",
    "ec2:UnassignPrivateIpAddresses",
)


#: Actions without resource-level permissions (Service Authorization Reference): `*`, held to the region.
NODE_UNSCOPED_ACTIONS = (
    "ec2:DeleteNetworkInterfacePermission",
    "ec2:DescribeDhcpOptions",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeInstances",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSubnets",
    "ec2:DescribeTags",
    "ec2:DescribeVpcs",
    "ecr:GetAuthorizationToken",
)


NODE_IMAGE_PULL_ACTIONS = ("ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer")


NODE_POD_IDENTITY_ACTIONS = ("eks-auth:AssumeRoleForPodIdentity",)


def hyperpod_eks_node_policy(
    *,
    region: str,
    account_id: str,
    subnet_ids: list[str],
    security_group_ids: list[str],
    eks_cluster_name: str,
    partition: str = "aws",
) -> dict:
    """The instance groups' access for EKS: network interfaces in the cluster's own subnets and
    security groups, image pulls in the region, Pod Identity on the shared EKS cluster only."""
    ec2 = f"arn:{partition}:ec2:{region}:{account_id}"
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "CreateNodeNetworkInterfaces",
                "Effect": "Allow",
                "Action": ["ec2:CreateNetworkInterface"],
                "Resource": [
                    f"{ec2}:network-interface/*",
                    *(f"{ec2}:subnet/{subnet}" for subnet in subnet_ids),
                    *(f"{ec2}:security-group/{group}" for group in security_group_ids),
                ],
            },
            {
                # Only interfaces in the cluster's own subnets (condition key ec2:Subnet of the
                # network-interface resource type), never another workload's in the region.
                "Sid": "ManageNodeNetworkInterfaces",
                "Effect": "Allow",
                "Action": list(NODE_NETWORK_INTERFACE_ACTIONS),
                "Resource": [f"{ec2}:network-interface/*"],
                "Condition": {"ArnEquals": {"ec2:Subnet": [f"{ec2}:subnet/{subnet}" for subnet in subnet_ids]}},
            },
            {
                # Attaching names an instance too, which carries no ec2:Subnet: held to network interfaces
                # and instances of the account and region only (docs/security.md, "What is still shared").
                "Sid": "AttachAndDetachNodeNetworkInterfaces",
                "Effect": "Allow",
                "Action": ["ec2:AttachNetworkInterface", "ec2:DetachNetworkInterface"],
                "Resource": [f"{ec2}:network-interface/*", f"{ec2}:instance/*"],
            },
            {
                "Sid": "TagNewNetworkInterfaces",
                "Effect": "Allow",
                "Action": ["ec2:CreateTags"],
                "Resource": [f"{ec2}:network-interface/*"],
                "Condition": {"StringEquals": {"ec2:CreateAction": "CreateNetworkInterface"}},
            },
            in_region_anywhere("DescribeNetworkAndAuthenticateToEcr", NODE_UNSCOPED_ACTIONS, region),
            {
                "Sid": "PullImages",
                "Effect": "Allow",
                "Action": list(NODE_IMAGE_PULL_ACTIONS),
                # Images come from AWS-owned accounts too (EKS add-ons, HyperPod agents).
                "Resource": [f"arn:{partition}:ecr:{region}:*:repository/*"],
            },
            {
                "Sid": "PodIdentity",
                "Effect": "Allow",
                "Action": list(NODE_POD_IDENTITY_ACTIONS),
                "Resource": [eks_cluster_arn(partition, region, account_id, eks_cluster_name)],
            },
        ],
    }


def lifecycle_script_object(s3_uri: str, script: str) -> tuple[str, str]:
    """(bucket, key) of the lifecycle script `script` under `s3_uri`, as a node fetches
    ClusterLifeCycleConfig's OnCreate from its SourceS3Uri."""
    bucket, prefix = split_s3_uri(s3_uri)
    return bucket, f"{prefix.rstrip('/')}/{script}" if prefix.strip("/") else script


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
