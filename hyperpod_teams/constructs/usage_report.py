"""HyperPod usage reporting on the AWS side and in the cluster (hyperpod_teams/usage_report.py
says what each piece is for, after the official template and chart)."""

from __future__ import annotations

import atexit
import shutil
import tempfile
import zipfile
from importlib import resources
from pathlib import Path

from constructs import Construct

from hyperpod_teams import bindings, naming, policies, usage_report
from hyperpod_teams.constructs.helm import chart_is_cloned
from hyperpod_teams.constructs.iam import service_role
from hyperpod_teams.constructs.kms import EncryptionKey
from hyperpod_teams.constructs.pod_identity import Inline, pod_identity_association, pod_identity_role
from hyperpod_teams.constructs.storage import add_private_bucket
from hyperpod_teams.engine import cdk
from hyperpod_teams.spec.models import Organization, PlatformSpec

#: Runtime of the aggregation function (a Lambda runtime AWS supports; the template's python3.9
#: is deprecated).
AGGREGATION_RUNTIME = "python3.12"
#: Lambda's limit; an aggregation of one day's snapshots takes a few minutes at most.
AGGREGATION_TIMEOUT_SECONDS = 900
AGGREGATION_LOG_RETENTION_DAYS = 365
#: The longest SQS keeps a message: 14 days to notice a failed run and run the day again.
FAILED_RUN_RETENTION_SECONDS = 14 * 24 * 3600
#: Parquet as the operator writes it (the template's SerDe and formats).
PARQUET = {
    "input_format": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
    "output_format": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
    "serialization_library": "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
}


def aggregation_package() -> Path:
    """The aggregation function as a zip whose bytes depend on its source only (fixed times and
    modes), so the plan shows no change to the function until its code changes."""
    source = resources.files("hyperpod_teams") / "functions" / "usage_aggregation" / "index.py"
    folder = Path(tempfile.mkdtemp(prefix="hyperpod-teams-usage-aggregation-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    package = folder / "usage-aggregation.zip"
    entry = zipfile.ZipInfo("index.py", date_time=(1980, 1, 1, 0, 0, 0))
    entry.external_attr = 0o644 << 16
    entry.compress_type = zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(package, "w") as archive:
        archive.writestr(entry, source.read_bytes())
    return package


class UsageReportInfrastructure(Construct):
    """Report bucket, the operator's role through Pod Identity, the Glue database and tables, the
    Athena workgroup, and the daily aggregation."""

    def __init__(self, scope: Construct, id_: str, *, spec: PlatformSpec, eks_cluster_name: str, eks_cluster_arn: str):
        super().__init__(scope, id_)
        org = spec.organization
        #: What the usage reporting's names start with: the organization's, and with several clusters the
        #: cluster's qualifier after it (naming.cluster_owner), as every cluster has its own.
        self._owner = naming.cluster_owner(org.name, spec.cluster_qualifier)
        self.bucket_name = usage_report.bucket_name(self._owner, org.account_id, org.region)
        self._report_bucket(org, spec.cost.usage_reports.retention_days)
        self._operator_access(org, eks_cluster_name, eks_cluster_arn)
        self._query_side(org)
        function = self._aggregation(org)
        self._daily_schedule(function, usage_report.aggregation_function_name(self._owner))

    def _report_bucket(self, org: Organization, retention_days: int) -> None:
        """Versioned, private; usage data expires after the retention days."""
        lifecycle = bindings.aws_s3_bucket_lifecycle_configuration
        self.bucket = add_private_bucket(
            self,
            self.bucket_name,
            region=org.region,
            lifecycle_rules=[
                lifecycle.S3BucketLifecycleConfigurationRule(
                    id="usage-data-retention",
                    status="Enabled",
                    filter=[lifecycle.S3BucketLifecycleConfigurationRuleFilter(prefix="")],
                    expiration=[lifecycle.S3BucketLifecycleConfigurationRuleExpiration(days=retention_days)],
                    # Versioning keeps what expires as a noncurrent version: drop those too.
                    noncurrent_version_expiration=[
                        lifecycle.S3BucketLifecycleConfigurationRuleNoncurrentVersionExpiration(noncurrent_days=7)
                    ],
                    abort_incomplete_multipart_upload=[
                        lifecycle.S3BucketLifecycleConfigurationRuleAbortIncompleteMultipartUpload(
                            days_after_initiation=7
                        )
                    ],
                )
            ],
        )

    def _operator_access(self, org: Organization, eks_cluster_name: str, eks_cluster_arn: str) -> None:
        partition = policies.aws_partition(org.region)
        # The operator: a role only its service account in this cluster gets, through Pod Identity.
        role, _ = pod_identity_role(
            self,
            role_id="operator-role",
            policy_id="operator-writes-raw-data",
            name=usage_report.operator_role_name(self._owner),
            org=org,
            eks_cluster_arn=eks_cluster_arn,
            policy=Inline(
                "write-raw-usage-data",
                policies.usage_operator_policy(self.bucket_name, usage_report.RAW_PREFIX, partition),
            ),
        )
        pods = (usage_report.OPERATOR_NAMESPACE, usage_report.OPERATOR_SERVICE_ACCOUNT)
        self.association = pod_identity_association(
            self, "operator-pod-identity", eks_cluster_name=eks_cluster_name, pods=pods, role_arn=role.arn
        )

    def _query_side(self, org: Organization) -> None:
        # Querying: the database and tables the operator's data lands in, Athena's workgroup.
        self.database_name = usage_report.database_name(self._owner)
        database = bindings.aws_glue_catalog_database.GlueCatalogDatabase(
            self, "database", name=self.database_name, description="HyperPod usage reports (hyperpod-teams)"
        )
        table = bindings.aws_glue_catalog_table
        for spec_table in usage_report.GLUE_TABLES:
            table.GlueCatalogTable(
                self,
                f"table-{spec_table.name}",
                database_name=database.name,
                name=spec_table.name,
                table_type="EXTERNAL_TABLE",
                parameters={"classification": "parquet", "parquet.compression": "SNAPPY"},
                storage_descriptor=table.GlueCatalogTableStorageDescriptor(
                    location=f"s3://{self.bucket_name}/{spec_table.prefix}",
                    input_format=PARQUET["input_format"],
                    output_format=PARQUET["output_format"],
                    ser_de_info=table.GlueCatalogTableStorageDescriptorSerDeInfo(
                        serialization_library=PARQUET["serialization_library"]
                    ),
                    columns=[
                        table.GlueCatalogTableStorageDescriptorColumns(name=name, type=kind)
                        for name, kind in spec_table.columns
                    ],
                ),
                partition_keys=[
                    table.GlueCatalogTablePartitionKeys(name=name, type=kind) for name, kind in spec_table.partitions
                ],
            )
        workgroup = bindings.aws_athena_workgroup
        self.workgroup_name = usage_report.workgroup_name(self._owner)
        workgroup.AthenaWorkgroup(
            self,
            "workgroup",
            name=self.workgroup_name,
            # Query results are temporary: like the template's RecursiveDeleteOption.
            force_destroy=True,
            configuration=workgroup.AthenaWorkgroupConfiguration(
                enforce_workgroup_configuration=True,
                result_configuration=workgroup.AthenaWorkgroupConfigurationResultConfiguration(
                    output_location=f"s3://{self.bucket_name}/{usage_report.ATHENA_RESULTS_PREFIX}",
                    encryption_configuration=workgroup.AthenaWorkgroupConfigurationResultConfigurationEncryptionConfiguration(
                        encryption_option="SSE_KMS"
                    ),
                ),
            ),
        )

    def _aggregation(self, org: Organization) -> bindings.aws_lambda_function.LambdaFunction:
        # The daily aggregation into summary_report and detailed_report: its logs and environment under its own key,
        # failed runs kept in a queue (the event names the day, to run it again).
        function_name = usage_report.aggregation_function_name(self._owner)
        log_group_name = f"/aws/lambda/{function_name}"
        key = EncryptionKey(
            self,
            "aggregation-key",
            alias=usage_report.aggregation_function_name(self._owner),
            description=f"Logs and environment of the HyperPod usage aggregation (hyperpod-teams, {org.name})",
            organization=org,
            service_statements=policies.logs_key_statements(org.account_id, org.region, log_group_name),
        )
        log_group = bindings.aws_cloudwatch_log_group.CloudwatchLogGroup(
            self,
            "aggregation-logs",
            name=log_group_name,
            retention_in_days=AGGREGATION_LOG_RETENTION_DAYS,
            kms_key_id=key.arn,
        )
        failures = bindings.aws_sqs_queue.SqsQueue(
            self,
            "aggregation-failures",
            name=f"{function_name}-failures",
            sqs_managed_sse_enabled=True,
            message_retention_seconds=FAILED_RUN_RETENTION_SECONDS,
        )
        aggregation_role, access = service_role(
            self,
            ("aggregation-role", "aggregation-access"),
            name=usage_report.aggregation_role_name(self._owner),
            org=org,
            service="lambda.amazonaws.com",
            policy_name="aggregate-usage",
            document=policies.usage_aggregation_policy(
                bucket=self.bucket_name,
                database=self.database_name,
                workgroup=self.workgroup_name,
                function=function_name,
                account_id=org.account_id,
                region=org.region,
                key_arn=key.arn,
                queue_arn=failures.arn,
            ),
        )
        code = cdk.TerraformAsset(self, "aggregation-code", path=str(aggregation_package()), type=cdk.AssetType.FILE)
        function = bindings.aws_lambda_function.LambdaFunction(
            self,
            "aggregation",
            function_name=function_name,
            role=aggregation_role.arn,
            runtime=AGGREGATION_RUNTIME,
            handler="index.handler",
            filename=code.path,
            source_code_hash=cdk.Fn.filebase64sha256(code.path),
            timeout=AGGREGATION_TIMEOUT_SECONDS,
            # One run at a time: two at once would insert the same day twice.
            reserved_concurrent_executions=1,
            kms_key_arn=key.arn,
            dead_letter_config=bindings.aws_lambda_function.LambdaFunctionDeadLetterConfig(target_arn=failures.arn),
            tracing_config=bindings.aws_lambda_function.LambdaFunctionTracingConfig(mode="Active"),
            environment=bindings.aws_lambda_function.LambdaFunctionEnvironment(
                variables={
                    "DATABASE": self.database_name,
                    "WORKGROUP": self.workgroup_name,
                    "RAW_TABLES": ",".join(usage_report.RAW_TABLES),
                }
            ),
            depends_on=[log_group, access],
        )
        return function

    def _daily_schedule(self, function: bindings.aws_lambda_function.LambdaFunction, function_name: str) -> None:
        """The aggregation runs every day at 00:00 UTC, as the reference's EventBridge rule."""
        rule = bindings.aws_cloudwatch_event_rule.CloudwatchEventRule(
            self,
            "daily",
            name=function_name,
            description="Aggregate yesterday's HyperPod usage into summary_report and detailed_report (hyperpod-teams)",
            schedule_expression=usage_report.AGGREGATION_SCHEDULE,
        )
        bindings.aws_cloudwatch_event_target.CloudwatchEventTarget(
            self, "daily-target", rule=rule.name, arn=function.arn, target_id="usage-aggregation"
        )
        bindings.aws_lambda_permission.LambdaPermission(
            self,
            "daily-invoke",
            statement_id="daily-usage-aggregation",
            action="lambda:InvokeFunction",
            function_name=function.function_name,
            principal="events.amazonaws.com",
            source_arn=rule.arn,
        )


class UsageReportOperator(Construct):
    """The operator's Helm chart from the pinned clone, in a namespace Helm may adopt (the chart
    templates its own Namespace: the official instructions create it first with Helm's ownership
    label and annotations, as here)."""

    def __init__(self, scope: Construct, id_: str, *, spec: PlatformSpec, bucket_name: str):
        super().__init__(scope, id_)
        settings = spec.cost.usage_reports
        release_name = usage_report.OPERATOR_NAMESPACE
        namespace = bindings.kubernetes_namespace
        created = namespace.NamespaceV1(
            self,
            "namespace",
            metadata=bindings.block(
                "kubernetes_namespace",
                "metadata",
                namespace.NamespaceV1Metadata(
                    name=usage_report.OPERATOR_NAMESPACE,
                    labels={"app.kubernetes.io/managed-by": "Helm"},
                    annotations={
                        "meta.helm.sh/release-name": release_name,
                        "meta.helm.sh/release-namespace": usage_report.OPERATOR_NAMESPACE,
                    },
                ),
            ),
            # Helm adds the chart's labels when it adopts the namespace.
            lifecycle=cdk.TerraformResourceLifecycle(ignore_changes=["metadata[0].labels"]),
        )
        chart = settings.chart.rstrip("/")
        release = bindings.helm_release
        self.release = release.Release(
            self,
            "operator",
            name=release_name,
            chart=chart,
            namespace=bindings.read_block("kubernetes_namespace", "metadata", created.metadata).name,
            set=[
                release.ReleaseSet(name=name, value=value)
                for name, value in usage_report.operator_chart_values(spec, bucket_name).items()
            ],
            atomic=True,
            wait=True,
            lifecycle=cdk.TerraformResourceLifecycle(
                precondition=[
                    chart_is_cloned(
                        chart,
                        f"HyperPod's usage-report chart is not at {chart} (relative to this stack's folder). "
                        f"Next to the output folder, run: {usage_report.clone_command(settings.git_ref)}",
                    )
                ]
            ),
        )
