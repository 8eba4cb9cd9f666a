"""A private bucket as the platform creates them: versioned, encrypted with the account's S3 key
and bucket keys, public access blocked, TLS only."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import bindings, policies
from hyperpod_teams.engine import cdk


def add_private_bucket(
    scope: Construct,
    name: str,
    *,
    region: str,
    lifecycle_rules: list,
    kms_key_arn: str | None = None,
    protect: bool = False,
):
    """Add the bucket and its settings to `scope` (ids bucket, versioning, encryption, expiry,
    public-access, tls-only: the Terraform addresses of buckets that exist already depend on
    them). `lifecycle_rules` are S3BucketLifecycleConfigurationRule objects; `kms_key_arn` a key
    of one's own (else the account's S3 key); `protect`: no plan may destroy the bucket."""
    bucket = bindings.aws_s3_bucket.S3Bucket(
        scope,
        "bucket",
        bucket=name,
        lifecycle=cdk.TerraformResourceLifecycle(prevent_destroy=True) if protect else None,
    )
    versioning = bindings.aws_s3_bucket_versioning
    versioning.S3BucketVersioningA(
        scope,
        "versioning",
        bucket=bucket.id,
        versioning_configuration=versioning.S3BucketVersioningVersioningConfiguration(status="Enabled"),
    )
    encryption = bindings.aws_s3_bucket_server_side_encryption_configuration
    encryption.S3BucketServerSideEncryptionConfigurationA(
        scope,
        "encryption",
        bucket=bucket.id,
        rule=[
            encryption.S3BucketServerSideEncryptionConfigurationRuleA(
                apply_server_side_encryption_by_default=encryption.S3BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultA(
                    sse_algorithm="aws:kms", kms_master_key_id=kms_key_arn
                ),
                bucket_key_enabled=True,
            )
        ],
    )
    bindings.aws_s3_bucket_lifecycle_configuration.S3BucketLifecycleConfiguration(
        scope, "expiry", bucket=bucket.id, rule=lifecycle_rules
    )
    public_access = bindings.aws_s3_bucket_public_access_block.S3BucketPublicAccessBlock(
        scope,
        "public-access",
        bucket=bucket.id,
        block_public_acls=True,
        block_public_policy=True,
        ignore_public_acls=True,
        restrict_public_buckets=True,
    )
    bindings.aws_s3_bucket_policy.S3BucketPolicy(
        scope,
        "tls-only",
        bucket=bucket.id,
        policy=policies.policy_json(policies.tls_only_bucket_policy(name, policies.aws_partition(region))),
        depends_on=[public_access],
    )
    return bucket


def old_versions_expire(rule_id: str, *, noncurrent_days: int = 90, abandoned_upload_days: int = 7):
    """A lifecycle rule of a versioned bucket: versions no longer current go after
    `noncurrent_days`, uploads left incomplete after `abandoned_upload_days`."""
    lifecycle = bindings.aws_s3_bucket_lifecycle_configuration
    return lifecycle.S3BucketLifecycleConfigurationRule(
        id=rule_id,
        status="Enabled",
        filter=[lifecycle.S3BucketLifecycleConfigurationRuleFilter(prefix="")],
        noncurrent_version_expiration=[
            lifecycle.S3BucketLifecycleConfigurationRuleNoncurrentVersionExpiration(noncurrent_days=noncurrent_days)
        ],
        abort_incomplete_multipart_upload=[
            lifecycle.S3BucketLifecycleConfigurationRuleAbortIncompleteMultipartUpload(
                days_after_initiation=abandoned_upload_days
            )
        ],
    )
