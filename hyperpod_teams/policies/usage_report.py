"""HyperPod usage reporting's roles (awslabs/sagemaker-hyperpod-usage-report): the operator that writes
raw usage, the aggregation that turns it into reports, and the key of their log group.

Pure layer: no cdktf.
"""

from __future__ import annotations

from hyperpod_teams.policies.documents import aws_partition, in_region_anywhere


def usage_operator_policy(bucket: str, raw_prefix: str, partition: str = "aws") -> dict:
    """The operator writes raw usage data, and nothing else (the official template grants
    s3:PutObject on the whole bucket; the operator writes under raw/ only)."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "WriteRawUsageData",
                "Effect": "Allow",
                "Action": "s3:PutObject",
                "Resource": f"arn:{partition}:s3:::{bucket}/{raw_prefix}*",
            }
        ],
    }


#: X-Ray's write actions have no resource-level permissions (Service Authorization Reference):
#: "*" is their only resource, so they are held to the spec's region.
XRAY_WRITE_ACTIONS = ("xray:PutTraceSegments", "xray:PutTelemetryRecords")


def usage_aggregation_policy(
    *,
    bucket: str,
    database: str,
    workgroup: str,
    function: str,
    account_id: str,
    region: str,
    key_arn: str,
    queue_arn: str,
) -> dict:
    """The daily aggregation: queries in its own workgroup, the usage database's tables and their
    partitions (MSCK REPAIR TABLE, INSERT INTO), the report bucket, its own log group, its
    environment's key, its dead-letter queue, X-Ray. The official template grants athena:*
    actions on every resource and AWSGlueServiceRole."""
    partition = aws_partition(region)
    glue = f"arn:{partition}:glue:{region}:{account_id}"
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "QueryInTheUsageWorkgroup",
                "Effect": "Allow",
                "Action": ["athena:StartQueryExecution", "athena:GetQueryExecution"],
                "Resource": f"arn:{partition}:athena:{region}:{account_id}:workgroup/{workgroup}",
            },
            {
                "Sid": "ReadAndPartitionTheUsageTables",
                "Effect": "Allow",
                "Action": [
                    "glue:GetDatabase",
                    "glue:GetTable",
                    "glue:GetPartition",
                    "glue:GetPartitions",
                    "glue:BatchGetPartition",
                    "glue:CreatePartition",
                    "glue:BatchCreatePartition",
                    "glue:UpdatePartition",
                ],
                "Resource": [f"{glue}:catalog", f"{glue}:database/{database}", f"{glue}:table/{database}/*"],
            },
            {
                "Sid": "ReadAndWriteUsageObjects",
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:PutObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"],
                "Resource": f"arn:{partition}:s3:::{bucket}/*",
            },
            {
                "Sid": "ListTheUsageBucket",
                "Effect": "Allow",
                "Action": ["s3:ListBucket", "s3:GetBucketLocation", "s3:ListBucketMultipartUploads"],
                "Resource": f"arn:{partition}:s3:::{bucket}",
            },
            {
                "Sid": "WriteItsOwnLogs",
                "Effect": "Allow",
                "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
                "Resource": f"arn:{partition}:logs:{region}:{account_id}:log-group:/aws/lambda/{function}:*",
            },
            {"Sid": "DecryptItsEnvironment", "Effect": "Allow", "Action": "kms:Decrypt", "Resource": key_arn},
            {"Sid": "SendFailedRunsToItsQueue", "Effect": "Allow", "Action": "sqs:SendMessage", "Resource": queue_arn},
            in_region_anywhere("SendTraces", XRAY_WRITE_ACTIONS, region),
        ],
    }


def logs_key_statements(account_id: str, region: str, log_group: str) -> tuple[dict, ...]:
    """Key-policy statements that let CloudWatch Logs encrypt one log group with the key (CloudWatch
    Logs user guide, "Encrypt log data in CloudWatch Logs using AWS KMS": the regional service
    principal, held to the log group by the encryption context). The guide's ArnLike on the
    context key is StringEquals here (the key is of type String; the value is one exact ARN), and
    DescribeKey, which carries no encryption context, has a statement of its own."""
    partition = aws_partition(region)
    service = {"Service": f"logs.{region}.amazonaws.com"}
    log_group_arn = f"arn:{partition}:logs:{region}:{account_id}:log-group:{log_group}"
    return (
        {
            "Sid": "CloudWatchLogsEncryptsTheAggregationLogs",
            "Effect": "Allow",
            "Principal": service,
            "Action": ["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*"],
            "Resource": "*",
            "Condition": {"StringEquals": {"kms:EncryptionContext:aws:logs:arn": log_group_arn}},
        },
        {
            "Sid": "CloudWatchLogsDescribesTheKey",
            "Effect": "Allow",
            "Principal": service,
            "Action": "kms:DescribeKey",
            "Resource": "*",
        },
    )
