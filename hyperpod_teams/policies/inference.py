"""The inference operator add-on's controllers: the operator's TLS bucket, KEDA's metric reads and the
Mountpoint S3 CSI driver's role (which grants nothing: teams mount their data with their own
workload role). Their roles as the reference Terraform makes them (awslabs/awsome-distributed-
training, terraform-modules/hyperpod-eks-tf/modules/hyperpod_inference_operator/iam_roles.tf at
0edaf152), held tighter where the reference grants every bucket of the account.

Pure layer: no cdktf.
"""

from __future__ import annotations

from hyperpod_teams.policies.documents import METRIC_READ_ACTIONS, in_region_anywhere


def inference_tls_bucket_policy(bucket: str, account_id: str, partition: str = "aws") -> dict:
    """The operator's own access to the bucket of the endpoints' TLS certificates (sagemaker-hyperpod-cli's
    migration script, TLSBucketsAccess): read, write (with tags) and delete certificates there, in the
    account's own bucket only (the script's `${aws:PrincipalAccount}`, written out: Terraform would read
    `${...}` as its own interpolation)."""
    objects = f"arn:{partition}:s3:::{bucket}/*"
    own = {"StringEquals": {"aws:ResourceAccount": account_id}}
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "ReadCertificates", "Effect": "Allow", "Action": ["s3:GetObject"], "Resource": [objects]},
            {
                "Sid": "WriteCertificates",
                "Effect": "Allow",
                "Action": ["s3:PutObject", "s3:PutObjectTagging", "s3:DeleteObject"],
                "Resource": [objects],
                "Condition": own,
            },
        ],
    }


def keda_policy(*, partition: str, account_id: str, region: str) -> dict:
    """KEDA scales endpoints on CloudWatch or Prometheus metrics (the reference's Keda-Policy): CloudWatch's
    metric reads take no resource (Service Authorization Reference), Prometheus queries are held to the
    account's workspaces in the region."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            in_region_anywhere("ReadCloudWatchMetrics", METRIC_READ_ACTIONS, region),
            {
                "Sid": "QueryPrometheus",
                "Effect": "Allow",
                "Action": ["aps:GetLabels", "aps:GetMetricMetadata", "aps:GetSeries", "aps:QueryMetrics"],
                "Resource": [f"arn:{partition}:aps:{region}:{account_id}:workspace/*"],
            },
        ],
    }


def s3_csi_policy() -> dict:
    """The Mountpoint for S3 CSI driver's own role reads no bucket. One role for every mount would read
    every team's bucket, and its token sits on every node: a team's data is mounted instead with the
    credentials of the pod that mounts it (isolation.team_data_volume_manifests, `authenticationSource:
    pod`), and the inference operator's S3 model source, which mounts with the driver's credentials, is
    refused in a team namespace (rbac._model_source_validation). The reference grants every bucket of
    every account (EKS user guide, "Deploy the Mountpoint for Amazon S3 driver")."""
    return {"Version": "2012-10-17", "Statement": [_NOTHING]}


#: A statement that grants nothing, for a policy whose grants are all conditional on the spec.
_NOTHING = {"Sid": "Nothing", "Effect": "Deny", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::nothing/nothing"}
