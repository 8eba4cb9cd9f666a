"""HyperPod usage reporting, as the stacks set it up and as `chargeback` reads its reports. Pure
layer: no cdktf.

The reference is awslabs/sagemaker-hyperpod-usage-report (AWS docs: "Usage reporting for cost
attribution in SageMaker HyperPod"), read at commit `USAGE_REPORT_REF` (2026-01-09):

- `cloudformation/usage-report.yaml` creates the report bucket (retention `DataRententionDays`,
  180 by default), the operator's role through EKS Pod Identity (`s3:PutObject`), the Pod Identity
  agent add-on, a Glue database with the raw tables the operator writes (`raw/<table>/`) and the
  report tables a daily Lambda fills through Athena, and an Athena workgroup.
- `helm_chart/SageMakerHyperPodUsageReportChart` runs the operator (namespace and service account
  `hyperpod-usage-report`) on HyperPod nodes; its image comes from a per-region ECR registry, so
  the chart fails in a region it has no registry for (`REGIONS`).
- `report_generation/.../csv_generator.py` writes the summary CSV that `read_summary_report`
  parses: five header lines, optional filter lines, an optional "Missing data periods" block, two
  header rows, then one row per date, namespace, team and instance type.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation

from hyperpod_teams import naming, regions
from hyperpod_teams.input_files import MAX_LINE_CHARS
from hyperpod_teams.spec.models import (
    USAGE_REPORT_CLONE_DIR,
    USAGE_REPORT_REPOSITORY,
)

#: The chart's namespace and service account (`_helpers.tpl`, `values.yaml`): the Pod Identity
#: association names both.
OPERATOR_NAMESPACE = "hyperpod-usage-report"
OPERATOR_SERVICE_ACCOUNT = "hyperpod-usage-report"
#: Where the operator writes (the raw tables' locations) and Athena its query results.
RAW_PREFIX = "raw/"
ATHENA_RESULTS_PREFIX = "athena-results/"
#: The template's default retention of the report bucket.
DEFAULT_RETENTION_DAYS = 180

#: Regions the chart has an operator image for (regions.py holds the table).
REGIONS = regions.USAGE_REPORT_REGIONS

#: Partition keys of the raw tables, and of the report tables (which have no hour).
_RAW_PARTITIONS = (
    ("year", "string"),
    ("month", "string"),
    ("day", "string"),
    ("hour", "string"),
    ("cluster", "string"),
)
_REPORT_PARTITIONS = (("year", "string"), ("month", "string"), ("day", "string"), ("cluster", "string"))


@dataclass(frozen=True)
class GlueTable:
    """A table of the usage-report database: parquet files under `s3://<bucket>/<prefix>`."""

    name: str
    prefix: str
    columns: tuple[tuple[str, str], ...]
    partitions: tuple[tuple[str, str], ...]


def _columns(text: str) -> tuple[tuple[str, str], ...]:
    pairs = (item.split(":") for item in text.split())
    return tuple((name, kind) for name, kind in pairs)


#: The tables of cloudformation/usage-report.yaml, column by column: the operator writes the raw
#: ones, the aggregation fills summary_report, the official report generator reads both report
#: tables. The names and types are the operator's contract: they must match it exactly.
GLUE_TABLES = (
    GlueTable(
        "clusterqueue",
        "raw/clusterqueue/",
        _columns(
            "instance_type:string timestamp:timestamp namespace:string resource_version:string team:string "
            "gpu_total:double gpu_borrowed:double cpu_total:double cpu_borrowed:double "
            "neuron_core_total:double neuron_core_borrowed:double"
        ),
        _RAW_PARTITIONS,
    ),
    GlueTable(
        "workload",
        "raw/workload/",
        _columns(
            "workload_name:string timestamp:timestamp namespace:string resource_version:string team:string "
            "status:string task_priority_class:string instance_type:string CPU:double GPU:double "
            "neuron_core:double admitted:boolean finished:boolean"
        ),
        _RAW_PARTITIONS,
    ),
    GlueTable(
        "pod",
        "raw/pod/",
        _columns(
            "pod:string timestamp:timestamp namespace:string resource_version:string status:string owner:string "
            "instance_type:string job_type:string assigned_node:string CPU:double GPU:double neuron_core:double "
            "priority_class:string"
        ),
        _RAW_PARTITIONS,
    ),
    GlueTable(
        "heartdub",
        "raw/heartdub/",
        _columns("timestamp:timestamp cluster:string"),
        _RAW_PARTITIONS[:4],
    ),
    GlueTable(
        "detailed_report",
        "reports/detailed/",
        _columns(
            "report_date:date period_start:timestamp period_end:timestamp namespace:string team:string "
            "task_name:string instance:string instance_count:int status:string "
            "utilized_neuron_core_hours:double utilized_neuron_core_count:double utilized_gpu_hours:double "
            "utilized_gpu_count:double utilized_vcpu_hours:double utilized_vcpu_count:double priority_class:string"
        ),
        _REPORT_PARTITIONS,
    ),
    GlueTable(
        "summary_report",
        "reports/summary/",
        _columns(
            "report_date:date namespace:string team:string instance_type:string "
            "total_neuron_core_utilization_hours:double allocated_neuron_core_utilization_hours:double "
            "borrowed_neuron_core_utilization_hours:double total_gpu_utilization_hours:double "
            "allocated_gpu_utilization_hours:double borrowed_gpu_utilization_hours:double "
            "total_vcpu_utilization_hours:double allocated_vcpu_utilization_hours:double "
            "borrowed_vcpu_utilization_hours:double"
        ),
        _REPORT_PARTITIONS,
    ),
)
#: The raw tables whose new partitions the aggregation registers before it queries them.
RAW_TABLES = tuple(t.name for t in GLUE_TABLES if t.prefix.startswith(RAW_PREFIX))
#: The daily aggregation runs at 00:00 UTC for the day before, as the official EventBridge rule.
AGGREGATION_SCHEDULE = "cron(0 0 * * ? *)"


# --- names ------------------------------------------------------------------------------------


def bucket_name(org: str, account_id: str, region: str) -> str:
    """`<org>-hyperpod-usage-<account>-<region>`: S3 names are global, so account and region are in it."""
    return naming.shorten(f"{org}-hyperpod-usage-{account_id}-{region}", 63)


#: A usage-report bucket's name (bucket_name) as a folder of a report's path, where the report was
#: downloaded with its bucket's folders (`aws s3 cp s3://<bucket>/reports/... <bucket>/reports/...`).
_BUCKET_FOLDER = re.compile(r"-hyperpod-usage-(?P<account>\d{12})-(?P<region>[a-z]{2}(?:-[a-z]+)+-\d+)$")


@dataclass(frozen=True)
class ReportOrigin:
    """Where a usage report was written: the usage-report bucket its path names, whose name holds
    the account and Region of the cluster the generator reported on."""

    bucket: str
    account: str
    region: str


def report_origin(path: str) -> ReportOrigin | None:
    """The usage-report bucket a report's path names as one of its folders (the nearest to the
    file), or None: the generator's CSV names the cluster only (`Cluster Name:`), and HyperPod
    cluster names are unique per account and Region only, so the folder is all that tells them apart."""
    for folder in reversed(re.split(r"[\\/]", path)[:-1]):
        found = _BUCKET_FOLDER.search(folder)
        if found:
            return ReportOrigin(folder, found["account"], found["region"])
    return None


def database_name(org: str) -> str:
    """Glue and Athena want lower case, digits and underscores."""
    return naming.shorten(f"{org.replace('-', '_')}_hyperpod_usage", 255, separator="_")


def workgroup_name(org: str) -> str:
    return naming.shorten(f"{org}-hyperpod-usage", 128)


def operator_role_name(org: str) -> str:
    return naming.shorten(f"{org}-hyperpod-usage-operator", naming.IAM_ROLE_MAX)


def aggregation_function_name(org: str) -> str:
    return naming.shorten(f"{org}-hyperpod-usage-aggregation", 64)


def aggregation_role_name(org: str) -> str:
    return naming.shorten(f"{org}-hyperpod-usage-aggregation", naming.IAM_ROLE_MAX)


def clone_command(git_ref: str) -> str:
    """The commands that put the pinned chart where the default `chart` path expects it, run in the
    folder that holds the output folder (a commit cannot be cloned by --branch)."""
    return (
        f"git clone {USAGE_REPORT_REPOSITORY} {USAGE_REPORT_CLONE_DIR} && "
        f"git -C {USAGE_REPORT_CLONE_DIR} checkout --detach {git_ref}"
    )


# --- the summary report CSV -------------------------------------------------------------------

#: The resources a summary row measures, in the order of its columns, as the header names them.
RESOURCES = ("NeuronCore", "GPU", "vCPU")
KINDS = ("total", "allocated", "borrowed")
_FIRST_LINE = "Amazon SageMaker HyperPod"
_REPORT_TYPE = "Report Type: Summary Utilization Report"
_RESOURCE_HEADER = ",,,Instance,NeuronCore,,,GPU,,,vCPU,,"
_COLUMN_HEADER = "Date,Namespace,Team,Type," + ",".join(
    ["Total utilization (hours),Allocated utilization (hours),Borrowed utilization (hours)"] * 3
)
_DATE_RANGE = re.compile(r"^Report Date Range \(UTC\): (\d{4}-\d{2}-\d{2})\S* to (\d{4}-\d{2}-\d{2})")
_CLUSTER = re.compile(r"^Cluster Name: (.*)$")


class UsageReportError(ValueError):
    """A file that is not a summary usage report: names the file and line."""


@dataclass(frozen=True)
class UsageRow:
    day: date
    namespace: str
    team: str
    instance_type: str
    #: Hours by (resource, kind), e.g. ("GPU", "borrowed").
    hours: dict[tuple[str, str], Decimal]
    where: str


@dataclass
class SummaryReport:
    path: str
    cluster: str
    first_day: date
    last_day: date
    missing_periods: list[str] = field(default_factory=list)
    filters: list[str] = field(default_factory=list)
    rows: list[UsageRow] = field(default_factory=list)

    def days(self) -> list[date]:
        return [self.first_day + timedelta(days=n) for n in range((self.last_day - self.first_day).days + 1)]


#: The most hours one row of a day can hold: more is no report of a real cluster.
MAX_ROW_HOURS = 100_000_000

#: Bounds of a summary usage report `chargeback` reads: a month of 100 namespaces on 40 instance
#: types is about 124,000 rows, 12 MiB (docs/architecture.md, "Any input").
MAX_REPORT_BYTES = 32 * 1024 * 1024


def read_summary_report(text: str, path: str) -> SummaryReport:
    """Parse a summary usage report as the official generator writes it; UsageReportError names
    the first line that does not fit."""
    lines = _ReportLines(text.splitlines(), path)
    report = _read_heading(lines)
    number = _read_filters_and_missing_periods(lines, report)
    if lines[number] != _RESOURCE_HEADER:
        raise lines.fail(number, f"expected the resource header {_RESOURCE_HEADER!r}")
    if lines[number + 1] != _COLUMN_HEADER:
        raise lines.fail(
            number + 1, "expected the column header 'Date,Namespace,Team,Type,Total utilization (hours),...'"
        )
    number += 2
    if lines[number] != "No Results":
        _read_rows(lines, number, report)
    return report


@dataclass(frozen=True)
class _ReportLines:
    """A report's lines, each at most MAX_LINE_CHARS long, numbered from 1 (stripped; "" past the end)."""

    lines: list[str]
    path: str

    def __post_init__(self) -> None:
        for number, content in enumerate(self.lines, start=1):
            if len(content) > MAX_LINE_CHARS:
                raise self.fail(
                    number,
                    f"{len(content):,} characters on one line; a usage report's lines have at most {MAX_LINE_CHARS:,}",
                )

    def __getitem__(self, number: int) -> str:
        return self.lines[number - 1].strip() if number <= len(self.lines) else ""

    def fail(self, number: int, problem: str) -> UsageReportError:
        return UsageReportError(f"{self.path}, line {number}: {problem}")


def _read_heading(lines: _ReportLines) -> SummaryReport:
    """The five lines the generator starts with: what it is, the cluster, the report type and period."""
    if lines[1].lstrip("\ufeff") != _FIRST_LINE:
        raise lines.fail(1, f"expected {_FIRST_LINE!r}: this is not a HyperPod usage report")
    cluster = _CLUSTER.match(lines[2])
    if not cluster:
        raise lines.fail(2, "expected 'Cluster Name: <name>'")
    if lines[3] != _REPORT_TYPE:
        raise lines.fail(3, f"expected {_REPORT_TYPE!r} (chargeback reads summary reports, not detailed ones)")
    if not lines[4].startswith("Report Date Generated:"):
        raise lines.fail(4, "expected 'Report Date Generated: <date>'")
    period = _DATE_RANGE.match(lines[5])
    if not period:
        raise lines.fail(5, "expected 'Report Date Range (UTC): <YYYY-MM-DD> to <YYYY-MM-DD>'")
    first_day, last_day = (date.fromisoformat(period.group(n)) for n in (1, 2))
    if last_day < first_day:
        raise lines.fail(5, f"the date range ends ({last_day}) before it starts ({first_day})")
    return SummaryReport(lines.path, cluster.group(1).strip(), first_day, last_day)


def _read_filters_and_missing_periods(lines: _ReportLines, report: SummaryReport) -> int:
    """The optional filter lines and "Missing data periods" block; the number of the line after them."""
    number = 6
    while re.match(r"^(Namespace|Task): ", lines[number]):
        report.filters.append(lines[number])
        number += 1
    if lines[number].lower() == "missing data periods":
        number += 1
        while number <= len(lines.lines) and " to " in lines[number] and lines[number] != _RESOURCE_HEADER:
            report.missing_periods.append(lines[number])
            number += 1
    return number


def _read_rows(lines: _ReportLines, number: int, report: SummaryReport) -> None:
    """The usage rows, from line `number` on."""
    rows = csv.reader(io.StringIO("\n".join(lines.lines[number - 1 :])))
    at = number
    try:
        for cells in rows:
            at = number + rows.line_num - 1
            if not cells or not "".join(cells).strip():
                continue
            report.rows.append(_usage_row(cells, f"{report.path}, line {at}", report.first_day, report.last_day))
    except csv.Error as error:
        raise lines.fail(at, f"not CSV as a usage report writes it ({error})") from None


def _usage_row(cells: list[str], where: str, first_day: date, last_day: date) -> UsageRow:
    if len(cells) != 13:
        raise UsageReportError(f"{where}: {len(cells)} columns, a summary row has 13")
    try:
        day = date.fromisoformat(cells[0])
    except ValueError:
        raise UsageReportError(f"{where}: {cells[0]!r} is not a date (YYYY-MM-DD)") from None
    if not first_day <= day <= last_day:
        raise UsageReportError(f"{where}: {day} is outside the report's date range {first_day} to {last_day}")
    hours: dict[tuple[str, str], Decimal] = {}
    for index, key in enumerate((r, k) for r in RESOURCES for k in KINDS):
        cell = cells[4 + index].strip()
        try:
            value = Decimal(cell)
        except InvalidOperation:
            raise UsageReportError(f"{where}: {key[0]} {key[1]} hours {cell!r} is not a number") from None
        if not value.is_finite() or value < 0:
            raise UsageReportError(f"{where}: {key[0]} {key[1]} hours {cell!r} is not a number of hours")
        if value > MAX_ROW_HOURS:
            raise UsageReportError(
                f"{where}: {key[0]} {key[1]} hours {cell[:24]!r} are more than a day of any cluster holds (at most "
                f"{MAX_ROW_HOURS:,}: 10,000 nodes of 192 vCPUs for 24 hours is 46,080,000)"
            )
        hours[key] = value
    namespace, team, instance_type = (c.strip() for c in cells[1:4])
    if not namespace or not instance_type:
        raise UsageReportError(f"{where}: the row has no namespace or no instance type")
    return UsageRow(day, namespace, team, instance_type, hours, where)


def operator_chart_values(spec, bucket_name: str) -> dict[str, str]:
    """The chart's required values (deployment.yaml fails without them), as the official install
    command sets them: clusterName is the HyperPod cluster's name, the partition the reports are
    queried by (run.py --cluster-name)."""
    return {
        "region": spec.organization.region,
        "clusterName": spec.cluster.name,
        "s3BucketName": bucket_name,
        "serviceAccount.name": OPERATOR_SERVICE_ACCOUNT,
    }
