"""What the HyperPod CLI (`hyp`, sagemaker-hyperpod) calls before any Kubernetes request, for a person
signed in through Identity Center or from a Studio space: the cluster list, the caller's own role
and EKS access entry.

Pure layer: no cdktf.
"""

from __future__ import annotations

from hyperpod_teams import naming
from hyperpod_teams.policies.documents import eks_arn, in_region_anywhere

#: What `hyp set-cluster-context` (sagemaker-hyperpod 3.12.0, as 3.9.0) calls
#: before any Kubernetes request: `ListClusters` (commands/cluster.py, `_get_hyperpod_clusters`),
#: which has no resource type (Service Authorization Reference) and so takes `*`, held to the region;
#: `iam:GetRole` on the caller's own Identity Center role, to turn the assumed-role ARN into the
#: role's ARN with its `/aws-reserved/sso.amazonaws.com/` path (cli/cluster_utils.py,
#: `_get_current_aws_identity`); `eks:DescribeAccessEntry` on the caller's own access entry
#: (`validate_eks_access_before_kubeconfig_update`), which stops the command when refused.
HYP_LIST_ACTIONS = ("sagemaker:ListClusters",)


def hyp_connect_statements(
    *, partition: str, account_id: str, region: str, eks_cluster_name: str, permission_set: str
) -> list[dict]:
    """The grants `hyp set-cluster-context` needs for the role of `permission_set` (see
    HYP_LIST_ACTIONS): its own role and its own access entry only."""
    role = naming.sso_role_name_prefix(permission_set)
    return [
        in_region_anywhere("ListHyperPodClusters", HYP_LIST_ACTIONS, region),
        *_own_role_and_access_entry(
            partition=partition,
            account_id=account_id,
            region=region,
            eks_cluster_name=eks_cluster_name,
            # Identity Center's role: its path and its random suffix are not known before it exists.
            role_resource=f"role{naming.SSO_ROLE_PATH}*{role}*",
            entry_role=f"{role}*",
            sids=("ResolveTheOwnIdentityCenterRole", "CheckTheOwnEksAccessEntry"),
        ),
    ]


def _own_role_and_access_entry(
    *,
    partition: str,
    account_id: str,
    region: str,
    eks_cluster_name: str,
    role_resource: str,
    entry_role: str,
    sids: tuple[str, str],
) -> list[dict]:
    """`iam:GetRole` on the caller's own role (`role_resource`, after `arn:...:iam::<account>:`)
    and `eks:DescribeAccessEntry` on that role's access entry (`entry_role`, its name or a pattern
    of it): what `hyp set-cluster-context` reads of the caller before it writes the kubeconfig."""
    entries = f"{eks_arn(partition, region, account_id)}:access-entry/{eks_cluster_name}/role/{account_id}"
    return [
        {
            "Sid": sids[0],
            "Effect": "Allow",
            "Action": ["iam:GetRole"],
            "Resource": [f"arn:{partition}:iam::{account_id}:{role_resource}"],
        },
        {
            "Sid": sids[1],
            "Effect": "Allow",
            "Action": ["eks:DescribeAccessEntry"],
            # access-entry/${ClusterName}/${IamIdentityType}/${IamIdentityAccountID}/${IamIdentityName}/${UUID}
            "Resource": [f"{entries}/{entry_role}/*"],
        },
    ]


def hyp_from_studio_statements(
    *, partition: str, account_id: str, region: str, eks_cluster_name: str, role_name: str
) -> list[dict]:
    """What `hyp set-cluster-context` needs when it runs in a Studio space, as the team's
    execution role (docs/kubernetes-access.md): `iam:GetRole` on that role itself and
    `eks:DescribeAccessEntry` on its own access entry (HYP_LIST_ACTIONS says where the CLI calls
    them; `sagemaker:ListClusters` is in ListWhatStudioShows). A refusal of the second exits 1."""
    return _own_role_and_access_entry(
        partition=partition,
        account_id=account_id,
        region=region,
        eks_cluster_name=eks_cluster_name,
        role_resource=f"role/{role_name}",
        entry_role=role_name,
        sids=("ResolveTheOwnExecutionRole", "CheckTheOwnEksAccessEntryFromStudio"),
    )
