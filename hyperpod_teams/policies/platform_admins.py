"""The platform admins' permission set: the HyperPod cluster and its node operations, task governance,
every team's Studio and the EKS cluster, all of the organization's; every team's budget to view.

Pure layer: no cdktf.
"""

from __future__ import annotations

from hyperpod_teams import naming
from hyperpod_teams.policies.documents import aws_partition, eks_arn, owned_by, studio_resources
from hyperpod_teams.policies.hyp import hyp_connect_statements
from hyperpod_teams.policies.team_roles import STUDIO_ADMIN_MANAGE_ACTIONS, STUDIO_READ_ACTIONS

#: The node operations of the newer API (botocore's SageMaker model: each takes the cluster's
#: name or ARN, so each is held to the organization's clusters): reboot or replace nodes, run
#: deep health checks on demand, read the cluster's events and operations (Continuous
#: provisioning). Platform admins only; no team role has any (tests/test_policies.py).
NODE_OPERATION_ACTIONS = (
    "sagemaker:BatchRebootClusterNodes",
    "sagemaker:BatchReplaceClusterNodes",
    "sagemaker:DescribeClusterEvent",
    "sagemaker:DescribeClusterOperation",
    "sagemaker:ListClusterEvents",
    "sagemaker:ListClusterOperations",
    "sagemaker:StartClusterHealthCheck",
)


#: Platform admins: the cluster, its task governance, every team's Studio, the EKS cluster.
CLUSTER_ADMIN_ACTIONS = (
    "sagemaker:BatchDeleteClusterNodes",
    "sagemaker:DescribeCluster",
    "sagemaker:DescribeClusterNode",
    "sagemaker:ListClusterNodes",
    "sagemaker:UpdateCluster",
    "sagemaker:UpdateClusterSoftware",
    *NODE_OPERATION_ACTIONS,
)


TASK_GOVERNANCE_ADMIN_ACTIONS = (
    "sagemaker:DescribeClusterSchedulerConfig",
    "sagemaker:DescribeComputeQuota",
    "sagemaker:UpdateClusterSchedulerConfig",
    "sagemaker:UpdateComputeQuota",
)


EKS_ADMIN_ACTIONS = (
    "eks:AccessKubernetesApi",
    "eks:DescribeAccessEntry",
    "eks:DescribeAddon",
    "eks:DescribeCluster",
    "eks:DescribeUpdate",
    "eks:ListAccessEntries",
    "eks:ListAddons",
    "eks:ListAssociatedAccessPolicies",
    "eks:ListUpdates",
)


def platform_admins_permission_set_policy(*, org: str, account_id: str, region: str, eks_cluster_name: str) -> dict:
    """The inline policy of the platform admins' permission set: administer the HyperPod cluster,
    its task governance, every team's Studio and the EKS cluster, all of the organization's; view
    every team's budget. Deleting the cluster or a domain is left to the pipeline (Terraform)."""
    partition = aws_partition(region)
    sagemaker = f"arn:{partition}:sagemaker:{region}:{account_id}"
    eks = eks_arn(partition, region, account_id)
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "AdministerTheHyperPodCluster",
                "Effect": "Allow",
                "Action": list(CLUSTER_ADMIN_ACTIONS),
                "Resource": [f"{sagemaker}:cluster/*"],
                "Condition": owned_by(org),
            },
            {
                "Sid": "AdministerTaskGovernance",
                "Effect": "Allow",
                "Action": list(TASK_GOVERNANCE_ADMIN_ACTIONS),
                "Resource": [f"{sagemaker}:cluster-scheduler-config/*", f"{sagemaker}:compute-quota/*"],
                "Condition": owned_by(org),
            },
            {
                "Sid": "AdministerEveryTeamsStudio",
                "Effect": "Allow",
                "Action": sorted(set(STUDIO_READ_ACTIONS + STUDIO_ADMIN_MANAGE_ACTIONS)),
                "Resource": studio_resources(sagemaker),
                "Condition": owned_by(org),
            },
            {
                "Sid": "AdministerTheEksCluster",
                "Effect": "Allow",
                "Action": list(EKS_ADMIN_ACTIONS),
                "Resource": [
                    f"{eks}:cluster/{eks_cluster_name}",
                    f"{eks}:access-entry/{eks_cluster_name}/*",
                    f"{eks}:addon/{eks_cluster_name}/*",
                ],
            },
            *hyp_connect_statements(
                partition=partition,
                account_id=account_id,
                region=region,
                eks_cluster_name=eks_cluster_name,
                permission_set=naming.platform_admins_permission_set_name(org),
            ),
            {
                "Sid": "ViewEveryTeamsBudget",
                "Effect": "Allow",
                "Action": ["budgets:ViewBudget"],
                "Resource": [f"arn:{partition}:budgets::{account_id}:budget/{org}-*"],
            },
        ],
    }
