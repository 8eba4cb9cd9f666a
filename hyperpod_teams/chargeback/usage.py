"""HyperPod's usage reports as a statement reads them: merged across periods and report shapes (pod
rows, governed rows, one row per namespace), the resource each instance type is measured in, and the
days no report covers.

Pure layer.
"""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal

from hyperpod_teams import cost as cost_rules
from hyperpod_teams.chargeback.statement import ChargebackError
from hyperpod_teams.usage_report import RESOURCES, SummaryReport, UsageRow

HOURS_PER_DAY = 24


#: NeuronCores per instance as the Neuron device plugin advertises them (the default logical
#: NeuronCore configuration: 2 per Trainium/Inferentia2 chip on Trn1 and Inf2, 4 on Trn2).
#: Source: AWS Neuron documentation, "Trn1/Trn2/Inf2 architecture", read 2026-12-03.
NEURON_CORES_PER_INSTANCE: dict[str, int] = {
    "ml.trn1.2xlarge": 2,
    "ml.trn1.32xlarge": 32,
    "ml.trn1n.32xlarge": 32,
    "ml.trn2.48xlarge": 64,
    "ml.inf2.xlarge": 2,
    "ml.inf2.8xlarge": 2,
    "ml.inf2.24xlarge": 12,
    "ml.inf2.48xlarge": 24,
}


#: vCPUs of an instance size of the CPU families (EC2 instance type specifications): large 2,
#: xlarge 4, <n>xlarge 4n; t3.medium 2.
_CPU_SIZE = re.compile(r"^(?:(\d+)?xlarge|large|medium)$")


def measured_resource(instance_type: str) -> str | None:
    """Which resource's hours measure the use of an instance type: NeuronCore, GPU or vCPU."""
    if instance_type in NEURON_CORES_PER_INSTANCE:
        return "NeuronCore"
    if instance_type in cost_rules.ACCELERATORS_PER_INSTANCE:
        return "GPU"
    parts = instance_type.split(".")
    if len(parts) == 3 and parts[1] in cost_rules.CPU_FAMILIES and _CPU_SIZE.match(parts[2]):
        return "vCPU"
    return None


def units_per_instance(instance_type: str) -> int | None:
    """How many of its measured resource one instance has, or None when the tables do not know."""
    resource = measured_resource(instance_type)
    if resource == "NeuronCore":
        return NEURON_CORES_PER_INSTANCE[instance_type]
    if resource == "GPU":
        return cost_rules.ACCELERATORS_PER_INSTANCE[instance_type]
    if resource == "vCPU":
        size = instance_type.split(".")[2]
        match = _CPU_SIZE.match(size)
        assert match is not None
        if size in ("large", "medium"):
            return 2
        return 4 * int(match.group(1) or 1)
    return None


def merge_reports(reports: list[SummaryReport]) -> tuple[date, date, list[UsageRow], list[str]]:
    """The reports' rows together, their period, and what they say is missing. Reports whose
    periods overlap, or that leave a gap between them, are refused: both would skew the split."""
    if not reports:
        raise ChargebackError("--usage: give at least one summary usage report")
    ordered = sorted(reports, key=lambda r: r.first_day)
    for before, after in zip(ordered, ordered[1:], strict=False):
        if after.first_day <= before.last_day:
            raise ChargebackError(
                f"{after.path} ({after.first_day} to {after.last_day}) overlaps {before.path} "
                f"({before.first_day} to {before.last_day}): its hours would count twice"
            )
        if (after.first_day - before.last_day).days > 1:
            raise ChargebackError(
                f"{before.path} ends {before.last_day} and {after.path} starts {after.first_day}: "
                "the days between have no report; give one, or one statement per period"
            )
    clusters = sorted({r.cluster for r in reports})
    if len(clusters) > 1:
        raise ChargebackError(f"the reports are of different clusters: {', '.join(clusters)}")
    rows: list[UsageRow] = []
    notes = []
    for report in ordered:
        if report.filters:
            raise ChargebackError(
                f"{report.path} is filtered ({'; '.join(report.filters)}): a statement needs every namespace"
            )
        for period in report.missing_periods:
            notes.append(f"{report.path} says data is missing from {period}: its capacity is charged as idle capacity")
        rows.extend(report.rows)
    unbalanced = [row.where for row in rows if row.team and _unbalanced(row)]
    if unbalanced:
        notes.append(
            f"{len(unbalanced)} row{'s' if len(unbalanced) != 1 else ''} of the reports give a total that is not "
            f"allocated + borrowed hours (first: {unbalanced[0]}): the total is charged; ask who made the report"
        )
    rows = _as_aggregated_once(rows, notes)
    first_day, last_day = ordered[0].first_day, ordered[-1].last_day
    notes.extend(_dark_days(first_day, last_day, rows))
    return first_day, last_day, rows, notes


def _identity(row: UsageRow) -> tuple:
    return (row.day, row.namespace, row.team, row.instance_type, tuple(sorted(row.hours.items())))


def _as_aggregated_once(rows: list[UsageRow], notes: list[str]) -> list[UsageRow]:
    """The reports' rows as one run of the daily aggregation would have written them, one row per
    date, namespace and instance type. What HyperPod's aggregation really writes
    (awslabs/sagemaker-hyperpod-usage-report, cloudformation/usage-report.yaml, at the pinned
    commit) has more:

    - task-governance rows (CRESCENDO_SUMMARY: a team's quota use, from its ClusterQueue) beside pod
      rows (NON_CRESCENDO_SUMMARY: every running pod, team `''`, allocated and borrowed 0.0, one row
      per pod owner); several owners in one namespace, type and day are summed;
    - a day aggregated twice (the function re-run) repeats every row: a task-governance row that
      repeats cell for cell counts once, and the day's pod rows repeated as often count once; the
      same date, namespace, team and type with other hours is refused (two reports of one day);
    - a team's namespace with both: its pods are its workloads, counted once: the larger of the
      two, per resource (pods outside its queue counted, none twice), with a note where the pods
      ran more hours than its queue held."""
    by_day: dict[date, list[UsageRow]] = defaultdict(list)
    for row in rows:
        by_day[row.day].append(row)
    reruns: list[tuple[date, int]] = []
    outside_queue: list[tuple[str, str, Decimal]] = []
    combined: list[UsageRow] = []
    for day in sorted(by_day):
        governed, pods, times = _governed_rows_once(by_day[day])
        pods, times = _pod_rows_once(pods, times)
        if times > 1:
            reruns.append((day, times))
        combined.extend(_one_row_per_namespace(governed, pods, outside_queue))
    if reruns:
        listed = ", ".join(f"{d} ({n} times)" for d, n in reruns[:5]) + (" and more" if len(reruns) > 5 else "")
        notes.append(
            f"the reports repeat the rows of {len(reruns)} day{'s' if len(reruns) != 1 else ''} ({listed}: the daily "
            "aggregation ran again for them and inserted its rows anew): each counted once"
        )
    if outside_queue:
        where, resource, hours = outside_queue[0]
        more = f" ({len(outside_queue) - 1} more)" if len(outside_queue) > 1 else ""
        notes.append(
            f"{where}: the team's pods ran {hours.normalize():f} {resource} hours more than its queue held (pods "
            f"outside task governance in its namespace){more}: charged to the team, as the pod rows measure them"
        )
    return combined


def _pod_row(row: UsageRow) -> bool:
    """A row of the pods aggregation (NON_CRESCENDO_SUMMARY): no team, hours in the totals only
    (it writes 0.0 allocated and borrowed). A row of no team with allocated hours is a queue's
    whose team label was empty, and counts as one."""
    return not row.team and not any(row.hours[(r, k)] for r in RESOURCES for k in ("allocated", "borrowed"))


def _governed_rows_once(rows: list[UsageRow]) -> tuple[list[UsageRow], list[UsageRow], int]:
    """A day's task-governance rows once each, its pod rows, and how many times the day's rows
    were written (1, or the times a re-run repeated them)."""
    governed: dict[tuple, UsageRow] = {}
    counts: dict[tuple, int] = defaultdict(int)
    pods = []
    for row in rows:
        if _pod_row(row):
            pods.append(row)
            continue
        key = (row.namespace, row.team, row.instance_type)
        first = governed.setdefault(key, row)
        if first.hours != row.hours:
            raise ChargebackError(
                f"{row.where}: the same date, namespace, team and instance type as {first.where}, with other hours: "
                "two reports of one day? Give each day once"
            )
        counts[key] += 1
    times = min(counts.values()) if counts else 1
    return list(governed.values()), pods, times


def _pod_rows_once(pods: list[UsageRow], times: int) -> tuple[list[UsageRow], int]:
    """A day's pod rows without the repeats of a re-run, and how many times the day was written:
    `times` as its task-governance rows tell, else (1) every pod row repeating as often."""
    counts: dict[tuple, int] = defaultdict(int)
    first: dict[tuple, UsageRow] = {}
    for row in pods:
        counts[_identity(row)] += 1
        first.setdefault(_identity(row), row)
    if times == 1 and len(counts) and min(counts.values()) > 1 and len(set(counts.values())) == 1:
        times = min(counts.values())
    out = []
    for key, n in counts.items():
        out.extend([first[key]] * max(n // times, 1))
    return out, times


def _one_row_per_namespace(
    governed: list[UsageRow], pods: list[UsageRow], outside_queue: list[tuple[str, str, Decimal]]
) -> list[UsageRow]:
    """One row per namespace and instance type: a team's queue row, its pods' hours where they
    are more; the pod rows of one namespace and type summed (several owners)."""
    summed: dict[tuple[str, str], UsageRow] = {}
    for row in pods:
        key = (row.namespace, row.instance_type)
        before = summed.get(key)
        if before is None:
            summed[key] = row
            continue
        hours = {k: before.hours.get(k, Decimal(0)) + v for k, v in row.hours.items()}
        summed[key] = UsageRow(row.day, row.namespace, "", row.instance_type, hours, before.where)
    out = list(governed)
    for at, row in enumerate(governed):
        pod_row = summed.pop((row.namespace, row.instance_type), None)
        if pod_row is None:
            continue
        queues = [r for r in governed if (r.namespace, r.instance_type) == (row.namespace, row.instance_type)]
        hours = dict(row.hours)
        for resource in RESOURCES:
            held = sum((r.hours[(resource, "total")] for r in queues), Decimal(0))
            extra = pod_row.hours[(resource, "total")] - held
            if extra > _ROUNDING:
                hours[(resource, "total")] += extra
                outside_queue.append((row.where, resource, extra))
        out[at] = UsageRow(row.day, row.namespace, row.team, row.instance_type, hours, row.where)
    return out + list(summed.values())


def _dark_days(first_day: date, last_day: date, rows: list[UsageRow]) -> list[str]:
    """A day without any row: HyperPod's generator lists missing periods only inside days that
    have heartbeats, so a day without data at all appears nowhere in its report."""
    seen = {row.day for row in rows}
    dark = [d for d in (first_day + timedelta(days=n) for n in range((last_day - first_day).days + 1)) if d not in seen]
    if not dark:
        return []
    listed = ", ".join(str(d) for d in dark[:10]) + (f" and {len(dark) - 10} more" if len(dark) > 10 else "")
    return [
        f"no usage data at all for {len(dark)} day{'s' if len(dark) != 1 else ''} of the period ({listed}): "
        "the reports "
        "have no row for "
        f"{'them' if len(dark) != 1 else 'it'} (the report generator does not list a day without data under missing "
        "periods); its capacity is charged as idle capacity. Check the usage-report operator if the cluster ran"
    ]


#: Each hours cell of a report is rounded to two decimals: the three of one resource may miss by this.
_ROUNDING = Decimal("0.02")


def _unbalanced(row: UsageRow) -> bool:
    """Whether a row's total hours of some resource are not its allocated plus borrowed hours."""
    return any(
        abs(row.hours[(r, "total")] - row.hours[(r, "allocated")] - row.hours[(r, "borrowed")]) > _ROUNDING
        for r in RESOURCES
    )
