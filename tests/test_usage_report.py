"""HyperPod usage reporting (cost.usage_reports) against its reference,
awslabs/sagemaker-hyperpod-usage-report at the pinned commit: the CloudFormation template's
tables, the operator chart's required values, names and RBAC-free AWS side, and the daily
aggregation function."""

from __future__ import annotations

import datetime
import hashlib
import importlib.util
import json

import pytest

from hyperpod_teams import naming, stack_plan, usage_report
from hyperpod_teams.spec import SpecError, validate_spec
from hyperpod_teams.spec.models import USAGE_REPORT_REF
from tests.conftest import ROOT, one_block, synthesize_stacks
from tests.offline_terraform import offline_plan_config, stub_remote_states, terraform_or_skip, write_stack

#: cloudformation/usage-report.yaml, the Glue tables' locations, columns and partition keys as the
#: template lists them (transcribed by hand from the template, apart from usage_report.GLUE_TABLES).
TEMPLATE_TABLES = {
    "clusterqueue": (
        "raw/clusterqueue/",
        "instance_type string, timestamp timestamp, namespace string, resource_version string, team string, "
        "gpu_total double, gpu_borrowed double, cpu_total double, cpu_borrowed double, neuron_core_total double, "
        "neuron_core_borrowed double",
        "year month day hour cluster",
    ),
    "workload": (
        "raw/workload/",
        "workload_name string, timestamp timestamp, namespace string, resource_version string, team string, "
        "status string, task_priority_class string, instance_type string, CPU double, GPU double, "
        "neuron_core double, admitted boolean, finished boolean",
        "year month day hour cluster",
    ),
    "pod": (
        "raw/pod/",
        "pod string, timestamp timestamp, namespace string, resource_version string, status string, owner string, "
        "instance_type string, job_type string, assigned_node string, CPU double, GPU double, neuron_core double, "
        "priority_class string",
        "year month day hour cluster",
    ),
    "heartdub": ("raw/heartdub/", "timestamp timestamp, cluster string", "year month day hour"),
    "detailed_report": (
        "reports/detailed/",
        "report_date date, period_start timestamp, period_end timestamp, namespace string, team string, "
        "task_name string, instance string, instance_count int, status string, utilized_neuron_core_hours double, "
        "utilized_neuron_core_count double, utilized_gpu_hours double, utilized_gpu_count double, "
        "utilized_vcpu_hours double, utilized_vcpu_count double, priority_class string",
        "year month day cluster",
    ),
    "summary_report": (
        "reports/summary/",
        "report_date date, namespace string, team string, instance_type string, "
        "total_neuron_core_utilization_hours double, allocated_neuron_core_utilization_hours double, "
        "borrowed_neuron_core_utilization_hours double, total_gpu_utilization_hours double, "
        "allocated_gpu_utilization_hours double, borrowed_gpu_utilization_hours double, "
        "total_vcpu_utilization_hours double, allocated_vcpu_utilization_hours double, "
        "borrowed_vcpu_utilization_hours double",
        "year month day cluster",
    ),
}
#: helm_chart/.../templates/deployment.yaml `fail`s without these values.
CHART_REQUIRED_VALUES = ("s3BucketName", "clusterName", "region")


@pytest.fixture(scope="module")
def usage_spec_data():
    import yaml

    data = yaml.safe_load((ROOT / "examples" / "quickstart" / "teams.yaml").read_text())
    data["cost"] = {"usage_reports": {"enabled": True, "retention_days": 400}}
    return data


@pytest.fixture(scope="module")
def usage_stacks(usage_spec_data, tmp_path_factory):
    return synthesize_stacks(validate_spec(usage_spec_data), tmp_path_factory.mktemp("usage"))


def resources(stack: dict, kind: str) -> list[dict]:
    return list(stack["resource"].get(kind, {}).values())


def test_glue_tables_are_the_official_templates_column_for_column(usage_stacks):
    stack = usage_stacks["acme-usage-report"]
    bucket = usage_report.bucket_name("acme", "111122223333", "us-west-2")
    tables = {t["name"]: t for t in resources(stack, "aws_glue_catalog_table")}
    assert set(tables) == set(TEMPLATE_TABLES)
    for name, (prefix, columns, partitions) in TEMPLATE_TABLES.items():
        descriptor = tables[name]["storage_descriptor"]
        assert descriptor["location"] == f"s3://{bucket}/{prefix}", name
        assert [f"{c['name']} {c['type']}" for c in descriptor["columns"]] == columns.split(", "), name
        assert [k["name"] for k in tables[name]["partition_keys"]] == partitions.split(), name
        assert descriptor["ser_de_info"]["serialization_library"].endswith("ParquetHiveSerDe")


def test_operator_chart_gets_every_value_its_deployment_requires(usage_stacks):
    stack = usage_stacks["acme-usage-operator"]
    (release,) = resources(stack, "helm_release")
    values = {item["name"]: item["value"] for item in release["set"]}
    assert set(CHART_REQUIRED_VALUES) <= set(values)
    assert values["clusterName"] == "ml-shared"  # the HyperPod cluster, as the README's helm install sets it
    assert values["region"] == "us-west-2"
    assert values["s3BucketName"] == usage_report.bucket_name("acme", "111122223333", "us-west-2")
    (namespace,) = resources(stack, "kubernetes_namespace_v1")
    metadata = one_block(namespace["metadata"])
    annotations = metadata["annotations"]
    # permissions/usage-report-namespace.yaml.template: the namespace Helm may adopt.
    assert metadata["labels"] == {"app.kubernetes.io/managed-by": "Helm"}
    assert annotations == {
        "meta.helm.sh/release-name": release["name"],
        "meta.helm.sh/release-namespace": metadata["name"],
    }
    # The release goes into that namespace, after it exists.
    assert release["namespace"].startswith("${kubernetes_namespace_v1.") and "metadata[0].name" in release["namespace"]
    assert "sagemaker-hyperpod-usage-report" in release["lifecycle"]["precondition"][0]["error_message"]


def test_pod_identity_reaches_the_charts_service_account(usage_stacks, usage_spec_data):
    stack = usage_stacks["acme-usage-report"]
    (association,) = resources(stack, "aws_eks_pod_identity_association")
    # The chart's defaults: namespace from _helpers.tpl, service account from values.yaml.
    assert (association["namespace"], association["service_account"]) == (
        "hyperpod-usage-report",
        "hyperpod-usage-report",
    )
    # The agent that serves the association's credentials, in <org>-cluster (shared with the
    # training operator), before the operator's chart (<org>-usage-operator deploys after it).
    (agent,) = [
        a for a in resources(usage_stacks["acme-cluster"], "aws_eks_addon") if "pod-identity" in a["addon_name"]
    ]
    assert agent["addon_name"] == "eks-pod-identity-agent"
    planned = {s.name: s for s in stack_plan.stack_plan(validate_spec(usage_spec_data))}
    assert "acme-cluster" in planned["acme-usage-operator"].depends_on


def test_operator_may_only_put_raw_usage_data_and_only_its_cluster_may_assume_it(usage_stacks):
    stack = usage_stacks["acme-usage-report"]
    roles = {r["name"]: r for r in resources(stack, "aws_iam_role")}
    trust = json.loads(roles["acme-hyperpod-usage-operator"]["assume_role_policy"])
    (statement,) = trust["Statement"]
    assert statement["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    assert sorted(statement["Action"]) == ["sts:AssumeRole", "sts:TagSession"]
    assert statement["Condition"]["StringEquals"] == {"aws:SourceAccount": "111122223333"}
    policies = {p["name"]: json.loads(p["policy"]) for p in resources(stack, "aws_iam_role_policy")}
    (grant,) = policies["write-raw-usage-data"]["Statement"]
    bucket = usage_report.bucket_name("acme", "111122223333", "us-west-2")
    assert (grant["Action"], grant["Resource"]) == ("s3:PutObject", f"arn:aws:s3:::{bucket}/raw/*")


def test_report_bucket_keeps_usage_data_for_the_retention_days(usage_stacks):
    stack = usage_stacks["acme-usage-report"]
    (lifecycle,) = resources(stack, "aws_s3_bucket_lifecycle_configuration")
    assert lifecycle["rule"][0]["expiration"][0]["days"] == 400
    (policy,) = resources(stack, "aws_s3_bucket_policy")
    assert "aws:SecureTransport" in policy["policy"]


def test_usage_stacks_deploy_after_what_they_need(usage_spec_data):
    plan = {s.name: s for s in stack_plan.stack_plan(validate_spec(usage_spec_data))}
    assert plan["acme-usage-report"].depends_on == ("acme-eks",)
    assert plan["acme-usage-operator"].depends_on == ("acme-cluster", "acme-eks", "acme-usage-report")
    assert plan["acme-usage-operator"].credentials == "EKS cluster"


@pytest.mark.terraform
def test_usage_report_stack_plans_offline_and_only_creates(usage_stacks, tmp_path):
    terraform = terraform_or_skip(tmp_path)
    stack = offline_plan_config(usage_stacks["acme-usage-report"])
    directory = write_stack(tmp_path, "acme-usage-report", stack)
    stub_remote_states(directory, stack)
    plan = terraform.plan(directory)
    assert isinstance(plan, dict), plan
    created = {c["type"] for c in plan["resource_changes"] if c["change"]["actions"] == ["create"]}
    assert {"aws_lambda_function", "aws_glue_catalog_table", "aws_athena_workgroup", "aws_s3_bucket"} <= created
    assert all(c["change"]["actions"] == ["create"] for c in plan["resource_changes"])


def test_aggregation_package_is_the_same_bytes_on_every_synth(usage_spec_data, tmp_path):
    """The zip holds no file times: a fresh checkout's synth must not plan an update of the function."""
    hashes = set()
    for run in ("one", "two"):
        stacks = synthesize_stacks(validate_spec(usage_spec_data), tmp_path / run)
        (function,) = resources(stacks["acme-usage-report"], "aws_lambda_function")
        package = tmp_path / run / "stacks" / "acme-usage-report" / function["filename"]
        hashes.add(hashlib.sha256(package.read_bytes()).hexdigest())
    assert len(hashes) == 1


def test_usage_reports_need_task_governance_and_a_region_the_chart_has(usage_spec_data):
    import copy

    data = copy.deepcopy(usage_spec_data)
    data["cluster"]["task_governance"]["enabled"] = False
    data["organization"]["region"] = "ca-central-1"
    data["cluster"]["task_governance"]["allow_unlisted_region"] = True
    with pytest.raises(SpecError) as raised:
        validate_spec(data)
    messages = [p.message for p in raised.value.problems if p.location == "cost.usage_reports.enabled"]
    assert any("task_governance.enabled is false" in m for m in messages)
    assert any("no image in ca-central-1" in m for m in messages)


# --- the aggregation function -------------------------------------------------------------------


def aggregation_module():
    path = ROOT / "hyperpod_teams" / "functions" / "usage_aggregation" / "index.py"
    spec = importlib.util.spec_from_file_location("usage_aggregation_index", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class RecordingAthena:
    """Answers as Athena's StartQueryExecution/GetQueryExecution do: an id, then SUCCEEDED."""

    def __init__(self):
        self.started = []

    def start_query_execution(self, **request):
        self.started.append(request)
        return {"QueryExecutionId": f"q{len(self.started)}"}

    def get_query_execution(self, QueryExecutionId):
        return {"QueryExecution": {"Status": {"State": "SUCCEEDED"}}}


def test_aggregation_repairs_the_raw_tables_then_summarises_yesterday(monkeypatch):
    module = aggregation_module()
    monkeypatch.setenv("DATABASE", "acme_hyperpod_usage")
    monkeypatch.setenv("WORKGROUP", "acme-hyperpod-usage")
    monkeypatch.setenv("RAW_TABLES", ",".join(usage_report.RAW_TABLES))
    athena = RecordingAthena()
    now = datetime.datetime(2026, 11, 3, 0, 5, tzinfo=datetime.UTC)
    result = module.handler({}, None, athena=athena, now=now)
    assert result["day"] == "2026-11-02"
    queries = [r["QueryString"].strip() for r in athena.started]
    assert queries[:4] == [f"MSCK REPAIR TABLE `{t}`" for t in ("clusterqueue", "workload", "pod", "heartdub")]
    assert queries[4].startswith('INSERT INTO "acme_hyperpod_usage".summary_report')
    assert queries[5].startswith('INSERT INTO "acme_hyperpod_usage".detailed_report')
    assert all("year = '2026' AND month = '11' AND day = '02'" in q for q in queries[4:])
    assert len(queries) == 6
    assert {r["WorkGroup"] for r in athena.started} == {"acme-hyperpod-usage"}


def test_aggregation_refuses_a_day_that_is_not_a_date():
    module = aggregation_module()
    with pytest.raises(ValueError, match="event.day"):
        module.day_to_aggregate({"day": "yesterday"}, datetime.datetime.now(datetime.UTC))
    assert module.day_to_aggregate({"day": "2026-02-28"}, None) == datetime.date(2026, 2, 28)


def test_names_fit_the_services_limits():
    long_org = "a" * 40
    assert len(usage_report.bucket_name(long_org, "111122223333", "ap-southeast-4")) <= 63
    assert len(usage_report.operator_role_name(long_org)) <= naming.IAM_ROLE_MAX
    assert len(usage_report.aggregation_function_name(long_org)) <= 64
    assert usage_report.database_name("acme-ml") == "acme_ml_hyperpod_usage"


def test_runbook_says_when_usage_data_first_appears_and_how_to_clone_the_chart(usage_spec_data):
    from hyperpod_teams.review.runbook import render_runbook

    runbook = render_runbook(validate_spec(usage_spec_data), spec_path="teams.yaml")
    assert "## Usage reports and chargeback" in runbook
    assert "the first summary appears the first midnight (UTC) after a whole day of data" in runbook
    assert usage_report.clone_command(USAGE_REPORT_REF) in runbook
    assert "--database-name acme_hyperpod_usage --database-workgroup-name acme-hyperpod-usage" in runbook


def test_report_says_what_a_budget_covers_and_where_measured_usage_comes_from(usage_spec_data):
    from hyperpod_teams.review.report import render_report

    report = render_report(validate_spec(usage_spec_data))
    assert "What a team's budget covers" in report and "never reach a team's budget" in report
    assert "`hyperpod-teams chargeback`" in report
