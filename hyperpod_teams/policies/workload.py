"""A team's workload role (its pods' EKS Pod Identity, service account `team-workload`): the team's
data bucket and keys, nothing else. Its statements serve the Studio execution role too.

Pure layer: no cdktf.
"""

from __future__ import annotations

from hyperpod_teams import naming
from hyperpod_teams.policies.documents import aws_partition

#: Using (not administering) the team's Studio key.
STUDIO_KEY_ACTIONS = ("kms:Decrypt", "kms:DescribeKey", "kms:GenerateDataKey")


#: Reading and writing a team's data bucket (S3 object operations; listing is on the bucket).
TEAM_DATA_OBJECT_ACTIONS = (
    "s3:AbortMultipartUpload",
    "s3:DeleteObject",
    "s3:GetObject",
    "s3:ListMultipartUploadParts",
    "s3:PutObject",
)


TEAM_DATA_BUCKET_ACTIONS = ("s3:GetBucketLocation", "s3:ListBucket")


def team_data_statements(bucket: str, partition: str) -> list[dict]:
    """Read and write the team's own bucket, nothing else of S3 (the key it is encrypted with is
    the team's, used through UseTheTeamsKeys)."""
    return [
        {
            "Sid": "ListTheTeamsData",
            "Effect": "Allow",
            "Action": list(TEAM_DATA_BUCKET_ACTIONS),
            "Resource": [f"arn:{partition}:s3:::{bucket}"],
        },
        {
            "Sid": "ReadAndWriteTheTeamsData",
            "Effect": "Allow",
            "Action": list(TEAM_DATA_OBJECT_ACTIONS),
            "Resource": [f"arn:{partition}:s3:::{bucket}/*"],
        },
    ]


def team_keys_statement(team: str, account_id: str, region: str, partition: str) -> dict:
    """Using (not administering) the team's keys: its Studio volumes' and its data's, which carry
    the team's tag (the team stack's default tags)."""
    return {
        "Sid": "UseTheTeamsKeys",
        "Effect": "Allow",
        "Action": list(STUDIO_KEY_ACTIONS),
        "Resource": [f"arn:{partition}:kms:{region}:{account_id}:key/*"],
        "Condition": {"StringEquals": {f"aws:ResourceTag/{naming.TAG_TEAM}": team}},
    }


def team_workload_policy(*, team: str, account_id: str, region: str, data_bucket: str | None) -> dict:
    """What the team's pods may do through their workload role: the team's data, and nothing else."""
    partition = aws_partition(region)
    statements = [team_keys_statement(team, account_id, region, partition)]
    if data_bucket:
        statements = [*team_data_statements(data_bucket, partition), *statements]
    return {"Version": "2012-10-17", "Statement": statements}


def team_pod_identity_chain_policy(workload_role_arn: str) -> dict:
    """What the role Pod Identity assumes on a cluster of another account than the team's home may
    do: assume the team's workload role there (the association's target role, with the session
    tags Pod Identity passes on), and nothing else."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "AssumeTheTeamsWorkloadRole",
                "Effect": "Allow",
                "Action": ["sts:AssumeRole", "sts:TagSession"],
                "Resource": workload_role_arn,
            }
        ],
    }
