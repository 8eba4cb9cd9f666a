"""The shared cluster's own principals and resources: the EKS cluster role, the role HyperPod's
Karpenter autoscaling assumes, the TLS-only bucket policy, and the KMS key policies (the account's
keys, the key of the cluster's Kubernetes secrets).

Pure layer: no cdktf.
"""

from __future__ import annotations

from hyperpod_teams.policies.documents import service_trust_policy


def eks_cluster_trust_policy() -> dict:
    # EKS needs TagSession too since it tags the sessions it opens for the control plane.
    policy = service_trust_policy("eks.amazonaws.com")
    policy["Statement"][0]["Action"] = ["sts:AssumeRole", "sts:TagSession"]
    return policy


#: HyperPod's Karpenter autoscaling: the role HyperPod assumes (CreateCluster `ClusterRole`) and
#: what it may do. Source: SageMaker developer guide, "Create an IAM role for HyperPod autoscaling
#: with Karpenter": trusted by hyperpod.sagemaker.amazonaws.com, BatchAddClusterNodes and
#: BatchDeleteClusterNodes on clusters (held here to the organization's account and region), and
#: KMS grants through SageMaker for encrypted node volumes.
AUTOSCALING_SERVICE = "hyperpod.sagemaker.amazonaws.com"


AUTOSCALING_NODE_ACTIONS = ("sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes")


def hyperpod_autoscaling_trust_policy() -> dict:
    return service_trust_policy(AUTOSCALING_SERVICE)


def hyperpod_autoscaling_policy(*, partition: str, region: str, account_id: str, kms_keys: list[str]) -> dict:
    statements: list[dict] = [
        {
            "Sid": "AddAndRemoveClusterNodes",
            "Effect": "Allow",
            "Action": list(AUTOSCALING_NODE_ACTIONS),
            "Resource": [f"arn:{partition}:sagemaker:{region}:{account_id}:cluster/*"],
        }
    ]
    if kms_keys:
        # The guide's one statement holds DescribeKey to kms:GrantIsForAWSResource, a key only
        # CreateGrant requests carry (parliament: UNKNOWN_CONDITION_FOR_ACTION), which would deny
        # DescribeKey: two statements, each with the keys its action has.
        via = {"kms:ViaService": f"sagemaker.{region}.amazonaws.com"}
        statements += [
            {
                "Sid": "GrantNewNodesVolumesTheirKey",
                "Effect": "Allow",
                "Action": ["kms:CreateGrant"],
                "Resource": sorted(set(kms_keys)),
                "Condition": {"StringLike": via, "Bool": {"kms:GrantIsForAWSResource": "true"}},
            },
            {
                "Sid": "DescribeTheNodesVolumesKey",
                "Effect": "Allow",
                "Action": ["kms:DescribeKey"],
                "Resource": sorted(set(kms_keys)),
                "Condition": {"StringLike": via},
            },
        ]
    return {"Version": "2012-10-17", "Statement": statements}


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


#: What the account's own IAM policies may grant on a customer-managed key: administering and
#: using it, spelled out (no `kms:*`). PutKeyPolicy keeps the account from locking itself out.
KMS_ACCOUNT_ACTIONS = (
    "kms:CancelKeyDeletion",
    "kms:CreateAlias",
    "kms:CreateGrant",
    "kms:Decrypt",
    "kms:DeleteAlias",
    "kms:DescribeKey",
    "kms:DisableKey",
    "kms:DisableKeyRotation",
    "kms:EnableKey",
    "kms:EnableKeyRotation",
    "kms:Encrypt",
    "kms:GenerateDataKey",
    "kms:GenerateDataKeyWithoutPlaintext",
    "kms:GetKeyPolicy",
    "kms:GetKeyRotationStatus",
    "kms:ListAliases",
    "kms:ListGrants",
    "kms:ListResourceTags",
    "kms:PutKeyPolicy",
    "kms:ReEncryptFrom",
    "kms:ReEncryptTo",
    "kms:RetireGrant",
    "kms:RevokeGrant",
    "kms:RotateKeyOnDemand",
    "kms:ScheduleKeyDeletion",
    "kms:TagResource",
    "kms:UntagResource",
    "kms:UpdateAlias",
    "kms:UpdateKeyDescription",
)


def kms_key_policy(account_id: str, partition: str = "aws") -> dict:
    """Key policy that leaves the key to the account's IAM policies, as AWS's default does, but
    with the actions named. In a key policy, Resource "*" means this key and nothing else."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "TheAccountsIamPoliciesGovernTheKey",
                "Effect": "Allow",
                "Principal": {"AWS": f"arn:{partition}:iam::{account_id}:root"},
                "Action": list(KMS_ACCOUNT_ACTIONS),
                "Resource": "*",
            }
        ],
    }


#: What EKS needs of the key that encrypts the cluster's Kubernetes secrets.
EKS_SECRETS_KEY_ACTIONS = ("kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:ListGrants")


def eks_secrets_key_use_policy(key_arn: str) -> dict:
    """The EKS cluster role's use of its secrets key, and of no other key."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "UseTheSecretsKey",
                "Effect": "Allow",
                "Action": list(EKS_SECRETS_KEY_ACTIONS),
                "Resource": [key_arn],
            }
        ],
    }
