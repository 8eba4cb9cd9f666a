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


def managed_policy_arn(name: str, partition: str = "aws") -> str:
    return f"arn:{partition}:iam::aws:policy/{name}"
