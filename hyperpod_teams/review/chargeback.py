"""The chargeback statement: the shared cluster's cost for a period, divided among the teams by
the hours HyperPod's usage reports measured, with the idle rest charged by the spec's split
method. Pure layer: no cdktf.

How an amount comes about (docs/architecture.md, "Chargeback by measured usage"):

1. The cost is divided among the cluster's instance types by what their nodes are worth (the
   spec's instance groups, count x worth; worth as in the quota split: accelerators per instance,
   or `cost.instance_prices_usd`).
2. Within an instance type, a team pays for the hours it used of the type's measured resource
   (GPU hours on GPU instances, NeuronCore hours on Trainium and Inferentia, vCPU hours on CPU
   instances) over the hours the type's nodes could give in the period.
3. What no team used (idle capacity, and the hours of namespaces that are no team of the spec)
   is charged by `cost.shared_split`: the quota percentages of the cost category, in proportion to
   what each team used, or evenly.
4. Amounts are rounded to cents by largest remainder (ties to the team named first), so they sum
   exactly to the cost given.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, localcontext
from functools import cached_property

from hyperpod_teams import cost as cost_rules
from hyperpod_teams import naming
from hyperpod_teams.install_hint import install_extras
from hyperpod_teams.review.cost_exports import DEFAULT_CURRENCY, KINDS, ExportedCost
from hyperpod_teams.review.document import (
    Alert,
    Document,
    Heading,
    Image,
    Items,
    Paragraph,
    Table,
    md_code,
    md_text,
    spreadsheet_text,
    standalone_svg,
    to_html,
    to_markdown,
)
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.usage_report import RESOURCES, SummaryReport, UsageReportError, UsageRow

CENT = Decimal("0.01")
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


class ChargebackError(ValueError):
    """Input the statement cannot be computed from; the message names the file, line or field."""


# --- the statement ----------------------------------------------------------------------------


@dataclass(frozen=True)
class InstanceTypeUse:
    """One instance type over the period: what it cost, what it could give, who used what."""

    instance_type: str
    resource: str
    nodes: int
    cost: Decimal
    capacity_hours: Decimal
    used_hours: dict[str, Decimal]
    #: Hours of namespaces that are no team of the spec.
    other_hours: Decimal

    @property
    def idle_hours(self) -> Decimal:
        return max(self.capacity_hours - sum(self.used_hours.values(), Decimal(0)) - self.other_hours, Decimal(0))


@dataclass(frozen=True)
class TeamCharge:
    team: str
    title: str
    #: (charged, allocated, borrowed) hours of the measured resource, per instance type: the
    #: charged hours are the report's total, allocated + borrowed within its rounding.
    hours: dict[str, tuple[Decimal, Decimal, Decimal]]
    usage: Decimal
    idle: Decimal

    @property
    def amount(self) -> Decimal:
        return self.usage + self.idle


@dataclass(frozen=True)
class ReconciliationLine:
    """A line of the way from the exports' total to the statement's cost. `role`: "total" (a sum
    the lines after it start from or end at), "less" (taken out: the amount is negative), "plus"
    (lines left out that sum to less than zero, added back: the amount is positive), "part" (of the
    line before the parts), "memo" (said, not in the sum)."""

    label: str
    amount: Decimal
    role: str


@dataclass
class Statement:
    organization: str
    cluster: str
    first_day: date
    last_day: date
    cost: Decimal
    cost_source: str
    split_method: str
    instance_types: list[InstanceTypeUse]
    teams: list[TeamCharge]
    unused: Decimal
    notes: list[str] = field(default_factory=list)
    #: How the cost was divided among the instance types.
    cost_basis: str = ""
    #: What the cost category's split charge rule gives each team of the same spend, when the
    #: rule alone decides it.
    cost_category_split: dict[str, Decimal] | None = None
    #: The currency of every amount (ISO 4217): the bill's, as the export names it; USD for --cost.
    currency: str = DEFAULT_CURRENCY
    #: From the exports' total in the period to the statement's cost, in cents that add up.
    reconciliation: list[ReconciliationLine] = field(default_factory=list)
    #: The exports' cost basis (net-amortized, ...), the files read; none for --cost.
    export_basis: str | None = None
    sources: list[str] = field(default_factory=list)

    @property
    def days(self) -> int:
        return (self.last_day - self.first_day).days + 1

    @cached_property
    def _shares(self) -> dict[str, Decimal]:
        return cost_rules.split_percentages({c.team: c.amount for c in self.teams})

    def share_percent(self, charge: TeamCharge) -> Decimal:
        """The team's share of the cost, two decimals; the shares sum to exactly 100 (largest
        remainder, as the quota split's percentages)."""
        return self._shares.get(charge.team, Decimal("0.00"))


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


def _family(instance_type: str) -> str:
    parts = instance_type.split(".")
    return parts[1] if len(parts) == 3 else instance_type


def instance_type_costs(
    spec: PlatformSpec, nodes: dict[str, int], cost: Decimal, exported: ExportedCost | None, notes: list[str]
) -> tuple[dict[str, Decimal], str]:
    """What each instance type of the cluster cost in the period, and how that was found.

    From the export when its lines name instance types: each type its own lines, and the lines
    that name none (the EKS control plane, storage, network) spread over the types in proportion.
    Otherwise by what the nodes are worth (count x accelerators, or `cost.instance_prices_usd`)."""
    measured = {t: a for t, a in (exported.by_instance_type.items() if exported else ()) if a}
    currency = exported.statement_currency if exported else DEFAULT_CURRENCY
    if measured:
        for instance_type, amount in sorted(measured.items()):
            if instance_type not in nodes:
                notes.append(
                    f"{instance_type}: {amount.quantize(CENT, rounding=ROUND_HALF_UP):,} {currency} in the export, "
                    "but no instance group of the spec has this type: spread with the lines of no instance type "
                    "(is cluster.instance_groups up to date?)"
                )
        own = {t: measured.get(t, Decimal(0)) for t in nodes}
        named = sum(own.values(), Decimal(0))
        rest = cost - named
        for instance_type in sorted(t for t in nodes if not own[t]):
            notes.append(f"{instance_type}: no line of the export names this type: its own cost is 0.00 {currency}")
        if named > 0:
            if rest:
                notes.append(
                    f"{rest.quantize(CENT, rounding=ROUND_HALF_UP):,} {currency} of the shared platform's lines "
                    "name no instance group's type (control plane, storage, network, tax): spread over the "
                    "instance types in proportion to their own cost"
                )
            return {t: own[t] + rest * own[t] / named for t in nodes}, "from the export's lines per instance type"
    prices = dict(spec.cost.instance_prices_usd)
    unpriced = sorted(t for t in nodes if cost_rules.instance_worth(t, prices) is None)
    if unpriced:
        raise ChargebackError(
            f"cost.instance_prices_usd: {', '.join(unpriced)} has no accelerators and no price, so chargeback cannot "
            "tell its part of a cost given as one sum (CPU capacity is not free). Price "
            f"{'them' if len(unpriced) > 1 else 'it'} in cost.instance_prices_usd (USD per instance-hour), or give "
            "--cost-from an export whose lines name the instance types (product/instanceType or the usage type)"
        )
    priced = [t for t in nodes if t in prices]
    if priced and len(priced) < len(nodes):
        notes.append(
            f"cost.instance_prices_usd prices {', '.join(sorted(priced))} but not "
            f"{', '.join(sorted(set(nodes) - set(priced)))}: those are weighed by accelerator count beside prices "
            "in USD; price every instance type of the cluster"
        )
    elif len({_family(t) for t in nodes}) > 1 and not priced:
        notes.append(
            f"the cost is divided among {', '.join(sorted(nodes))} by accelerator count (a GPU of one family counted "
            "worth an accelerator of another): price them in cost.instance_prices_usd, or give --cost-from an export "
            "whose lines name the instance types"
        )
    worth = {t: n * (cost_rules.instance_worth(t, prices) or Decimal(0)) for t, n in nodes.items()}
    total = sum(worth.values(), Decimal(0))
    if not total:
        raise ChargebackError("cost.instance_prices_usd: every instance type is priced at 0: nothing to divide by")
    how = "by price" if all(t in prices for t in nodes) else "by accelerators per node"
    return {t: cost * w / total for t, w in worth.items()}, f"by what the nodes are worth ({how})"


def compute_statement(
    spec: PlatformSpec,
    reports: list[SummaryReport],
    cost: Decimal,
    *,
    cost_source: str = "given",
    exported: ExportedCost | None = None,
    currency: str = DEFAULT_CURRENCY,
) -> Statement:
    first_day, last_day, rows, notes = merge_reports(reports)
    if reports[0].cluster != spec.cluster.name:
        raise ChargebackError(
            f"{reports[0].path} is a usage report of the cluster {reports[0].cluster!r} (its header), but the spec's "
            f"cluster is {spec.cluster.name!r} (cluster.name): its hours are not this cluster's teams'. Give the "
            "reports of this cluster, or the spec of that one"
        )
    if exported is not None and exported.lines_used == 0:
        raise ChargebackError(
            f"no line of {', '.join(exported.files)} is tagged {naming.TAG_PLATFORM}={naming.PLATFORM_SHARED} in "
            f"{first_day} to {last_day} ({exported.lines_read:,} lines read): a statement of 0.00 would check "
            "nothing. Is it the export of this period, and was the tag activated as a cost allocation tag before "
            "it (Billing console, Cost allocation tags; AWS tags costs from the activation on)?"
        )
    if exported is not None and cost < 0:
        raise ChargebackError(
            f"{', '.join(exported.files)} give{'s' if len(exported.files) == 1 else ''} "
            f"{cost.quantize(CENT, rounding=ROUND_HALF_UP):,} {currency} for {first_day} to {last_day}: its credits "
            "and refunds exceed its charges, and a statement cannot divide a negative cost among the teams. Give the "
            "exports of a period with charges, or leave the credits with the account that received them"
        )
    if not cost.is_finite() or cost < 0:
        raise ChargebackError(f"the cost {cost} is not an amount of {currency} (0 or more)")
    rounded = cost.quantize(CENT, rounding=ROUND_HALF_UP)
    if rounded != cost and exported is None:
        # A cost given by hand with more than cents is worth a word; an export's sum of fractions
        # of cents is rounded once, as every bill is, and says nothing.
        notes.append(f"the cost {cost} {currency} is rounded to {rounded} {currency}")
    if exported is not None:
        notes.extend(exported.notes)
    nodes = spec.cluster.capacity_by_instance_type()
    unknown = sorted(t for t in nodes if units_per_instance(t) is None)
    if unknown:
        raise ChargebackError(
            f"cluster.instance_groups: chargeback does not know how many GPUs, NeuronCores or vCPUs "
            f"{', '.join(unknown)} has, so it cannot tell used hours from idle ones"
        )
    billed = _billed_capacity(exported, nodes, first_day, last_day, notes)
    measured = _MeasuredHours.of(spec, rows, nodes, notes, billed)
    with localcontext() as context:
        context.prec = 50
        type_costs, cost_basis = instance_type_costs(spec, nodes, rounded, exported, notes)
        types, exact_usage = _instance_type_uses(
            spec, nodes, (last_day - first_day).days + 1, type_costs, measured, billed
        )
        split = cost_rules.shared_split(spec)
        teams = _team_charges(spec, split, rounded, exact_usage, measured, notes)
    return Statement(
        spec.organization.name,
        reports[0].cluster,
        first_day,
        last_day,
        rounded,
        cost_source,
        _method_phrase(split),
        types,
        teams,
        sum((c.idle for c in teams), Decimal(0)),
        notes,
        cost_basis=cost_basis,
        cost_category_split=_cost_category_view(spec, split, rounded),
        currency=currency,
        reconciliation=reconciliation(exported, rounded),
        export_basis=exported.basis if exported else None,
        sources=[*(r.path for r in reports), *(exported.files if exported else [])],
    )


def reconciliation(exported: ExportedCost | None, cost: Decimal) -> list[ReconciliationLine]:
    """The way from what the exports hold in the period to the statement's cost, each amount in
    cents and the cents adding up (each group rounded to the total it must reach, largest
    remainder first, as the teams' amounts are). By hand, for the worked week of
    tests/test_cost_exports.py (its docstring): every line of the week 2,874.70 (the shared
    platform's 2,074.51, the untagged Savings Plan fee's unused 700.00, RI fee's 1.87 and p5 hour
    98.32), less 800.19 untagged, the platform's 2,074.51 = usage 2,124.51 + credits -50.00."""
    if exported is None:
        return [ReconciliationLine("the cost given (--cost)", cost, "total")]
    if exported.format == "Cost Explorer":
        return [ReconciliationLine("the Cost Explorer download's days in the period", cost, "total")]
    left_out = {"untagged": exported.untagged_amount, "split": exported.split_amount}
    in_period = (exported.untagged_amount + exported.split_amount + exported.amount).quantize(
        CENT, rounding=ROUND_HALF_UP
    )
    left = _rounded_to(left_out, in_period - cost)
    kinds = _rounded_to({k: v for k, v in exported.by_kind.items() if v}, cost)
    lines = [
        ReconciliationLine(f"every line of the exports in the period ({exported.basis})", in_period, "total"),
        _left_out(
            f"not tagged {naming.TAG_PLATFORM}={naming.PLATFORM_SHARED} (other workloads, the account's own)",
            left["untagged"],
        ),
    ]
    if exported.split_rows:
        lines.append(_left_out("split cost allocation rows (a pod's share of its node's line)", left["split"]))
    lines.append(ReconciliationLine("the shared platform's lines: the statement's cost", cost, "total"))
    lines += [ReconciliationLine(kind, kinds[kind], "part") for kind in KINDS if kind in kinds]
    memos = (
        ("discounts in the amounts above (after every discount)", exported.discounts),
        ("of the amounts above, from lines charged for more than a day (prorated)", exported.prorated),
        ("discount lines the gross basis leaves out", exported.discount_lines_left_amount),
        (
            "tagged lines dated before the period (corrections, refunds): in no statement of it",
            exported.corrections_amount,
        ),
    )
    lines += [
        ReconciliationLine(label, amount.quantize(CENT, rounding=ROUND_HALF_UP), "memo")
        for label, amount in memos
        if amount
    ]
    return lines


def _left_out(label: str, amount: Decimal) -> ReconciliationLine:
    """Lines the statement leaves out, as the step from the exports' total: taken out, or, where they
    sum to less than zero, added back, so that every step reads as arithmetic."""
    return ReconciliationLine(label, -amount, "plus" if amount < 0 else "less")


def _rounded_to(exact: dict[str, Decimal], total: Decimal) -> dict[str, Decimal]:
    """Each amount to cents, summing exactly to `total` (itself in cents): rounded half up, then
    the cents still missing (or over) moved one each to (from) the amounts whose rounding erred the
    most that way. A group of one is `total` itself."""
    rounded = {k: v.quantize(CENT, rounding=ROUND_HALF_UP) for k, v in exact.items()}
    step = CENT if total >= sum(rounded.values(), Decimal(0)) else -CENT
    missing = int(abs(total - sum(rounded.values(), Decimal(0))) / CENT)
    for key in sorted(exact, key=lambda k: (-(exact[k] - rounded[k]) * step, k))[:missing]:
        rounded[key] += step
    if missing > len(exact) and exact:  # more cents than amounts: the first takes the rest
        first = next(iter(exact))
        rounded[first] += total - sum(rounded.values(), Decimal(0))
    return rounded


@dataclass
class _MeasuredHours:
    """The reports' hours of each instance type's measured resource: per team, of namespaces that
    are no team, and of types no instance group has."""

    #: instance type -> team -> charged hours
    used: dict[str, dict[str, Decimal]]
    #: team -> instance type -> [charged, allocated, borrowed]
    hours: dict[str, dict[str, list[Decimal]]]
    #: instance type -> hours of namespaces that are no team
    other: dict[str, Decimal]

    @classmethod
    def of(
        cls,
        spec: PlatformSpec,
        rows: list[UsageRow],
        nodes: dict[str, int],
        notes: list[str],
        billed: _BilledCapacity | None = None,
    ) -> _MeasuredHours:
        by_namespace = {naming.team_namespace(t.name): t.name for t in spec.teams}
        measured = cls(
            defaultdict(lambda: defaultdict(Decimal)),
            defaultdict(lambda: defaultdict(lambda: [Decimal(0)] * 3)),
            defaultdict(Decimal),
        )
        other_namespaces: dict[str, set[str]] = defaultdict(set)
        outside: dict[str, Decimal] = defaultdict(Decimal)
        per_day: dict[tuple[date, str], Decimal] = defaultdict(Decimal)
        for row in rows:
            team = by_namespace.get(row.namespace)
            resource = measured_resource(row.instance_type)
            if row.instance_type in nodes and resource is not None:
                _within_a_days_capacity(row, resource, nodes[row.instance_type], per_day, billed)
            if row.instance_type not in nodes or resource is None:
                outside[row.instance_type] += sum((row.hours[(r, "total")] for r in RESOURCES), Decimal(0))
            elif team is None:
                measured.other[row.instance_type] += row.hours[(resource, "total")]
                other_namespaces[row.instance_type].add(row.namespace)
            else:
                measured.add(team, row, resource)
        for instance_type, spent in sorted(outside.items()):
            notes.append(
                f"{instance_type}: {spent.normalize():f} hours in the reports, but no instance group of the spec has "
                "this type; they are not charged (is cluster.instance_groups up to date?)"
            )
        for instance_type, namespaces in sorted(other_namespaces.items()):
            notes.append(
                f"{instance_type}: {measured.other[instance_type].normalize():f} hours of namespaces that are no team "
                f"of the spec ({', '.join(sorted(namespaces))}) are charged like idle capacity (a namespace counts for "
                "a team only when it is the team's namespace, whatever its Team column says)"
            )
        return measured

    def add(self, team: str, row: UsageRow, resource: str) -> None:
        total = row.hours[(resource, "total")]
        self.used[row.instance_type][team] += total
        counted = self.hours[team][row.instance_type]
        counted[0] += total
        counted[1] += row.hours[(resource, "allocated")]
        counted[2] += row.hours[(resource, "borrowed")]


def _within_a_days_capacity(
    row: UsageRow, resource: str, nodes: int, per_day: dict, billed: _BilledCapacity | None = None
) -> None:
    """The reports' hours of a type on a day cannot exceed what its nodes give in 24 hours (nodes x
    GPUs, NeuronCores or vCPUs each x 24, or the instance-hours the export bills that day where
    that is more): more is a report that is not this cluster's, or a broken one, and charging it
    would move the cost to whoever it names. Refused at the row."""
    hours = row.hours[(resource, "total")]
    per_day[(row.day, row.instance_type)] += hours
    units = units_per_instance(row.instance_type) or 0
    capacity = Decimal(nodes * units * 24)
    billed_that_day = billed.by_day.get((row.day, row.instance_type), Decimal(0)) * units if billed else Decimal(0)
    capacity = max(capacity, billed_that_day)
    if per_day[(row.day, row.instance_type)] > capacity + Decimal("0.01"):
        raise ChargebackError(
            f"{row.where}: {hours:,.2f} {resource} hours of {row.instance_type} on {row.day} bring the day "
            f"to {per_day[(row.day, row.instance_type)]:,.2f}, more than its {nodes} node"
            f"{'s' if nodes != 1 else ''} give in a day ({capacity:,.2f}): is the report this cluster's, and "
            "cluster.instance_groups up to date?"
        )


@dataclass(frozen=True)
class _BilledCapacity:
    """The instance-hours an export bills per instance type, over the period and per day."""

    hours: dict[str, Decimal]
    by_day: dict[tuple[date, str], Decimal]


def _billed_capacity(
    exported: ExportedCost | None, nodes: dict[str, int], first_day: date, last_day: date, notes: list[str]
) -> _BilledCapacity | None:
    """The capacity the export bills, where its lines give instance-hours of the cluster's types:
    a node added or removed during the period is in it, the spec's instance groups (today's) are
    not. Each type whose billed hours differ from the spec's nodes x 24 x days is named."""
    if exported is None or not any(exported.billed_hours.get(t) for t in nodes):
        return None
    days = (last_day - first_day).days + 1
    for instance_type in sorted(nodes):
        billed = exported.billed_hours.get(instance_type, Decimal(0))
        spec_hours = Decimal(nodes[instance_type] * HOURS_PER_DAY * days)
        if billed and abs(billed - spec_hours) > Decimal("0.5"):
            notes.append(
                f"{instance_type}: the export bills {billed.quantize(CENT, rounding=ROUND_HALF_UP):,} instance-hours "
                f"in {first_day} to {last_day}, the spec's {nodes[instance_type]} node"
                f"{'s' if nodes[instance_type] != 1 else ''} give {spec_hours:,} ({nodes[instance_type]} x 24 x {days} "
                f"days): the capacity is the billed hours, {'more' if billed > spec_hours else 'fewer'} "
                f"by {abs(billed - spec_hours).quantize(CENT, rounding=ROUND_HALF_UP):,} (nodes added or removed in "
                "the period? is cluster.instance_groups up to date?)"
            )
        elif not billed:
            notes.append(
                f"{instance_type}: the export bills no instance-hours of this type in the period: its capacity is "
                f"the spec's {nodes[instance_type]} node{'s' if nodes[instance_type] != 1 else ''} x 24 x {days} days"
            )
    return _BilledCapacity(dict(exported.billed_hours), dict(exported.billed_hours_by_day))


def _instance_type_uses(
    spec: PlatformSpec,
    nodes: dict[str, int],
    days: int,
    type_costs: dict[str, Decimal],
    measured: _MeasuredHours,
    billed: _BilledCapacity | None,
) -> tuple[list[InstanceTypeUse], dict[str, Decimal]]:
    """Each instance type's cost, capacity and use; each team's exact charge for its own use."""
    exact_usage: dict[str, Decimal] = {t.name: Decimal(0) for t in spec.teams}
    types = []
    for instance_type in sorted(nodes):
        type_cost = type_costs[instance_type]
        units = units_per_instance(instance_type)
        assert units is not None
        capacity = Decimal(nodes[instance_type] * units * HOURS_PER_DAY * days)
        if billed and billed.hours.get(instance_type):
            capacity = billed.hours[instance_type] * units
        team_hours = dict(measured.used[instance_type])
        # No day counts more hours than the nodes give (_within_a_days_capacity), so neither does the
        # period; billed hours below the measured ones (an export missing some of the type's lines)
        # never make the teams pay more than the type cost.
        denominator = max(capacity, sum(team_hours.values(), Decimal(0)) + measured.other[instance_type])
        for team, spent in team_hours.items():
            exact_usage[team] += type_cost * spent / denominator if denominator else Decimal(0)
        types.append(
            InstanceTypeUse(
                instance_type,
                measured_resource(instance_type) or "",
                nodes[instance_type],
                type_cost.quantize(CENT, rounding=ROUND_HALF_UP),
                capacity,
                {t: h for t, h in sorted(team_hours.items())},
                measured.other[instance_type],
            )
        )
    return types, exact_usage


def _team_charges(
    spec: PlatformSpec,
    split: cost_rules.SharedSplit,
    rounded: Decimal,
    exact_usage: dict[str, Decimal],
    measured: _MeasuredHours,
    notes: list[str],
) -> list[TeamCharge]:
    """Each team's amount: its use plus its share of what no team used, rounded once."""
    unused = rounded - sum(exact_usage.values(), Decimal(0))
    weights = _idle_weights(spec, split, exact_usage, notes)
    exact_total = {t: exact_usage[t] + unused * weights.get(t, Decimal(0)) for t in exact_usage}
    # One rounding: each team's amount from its exact amount; the parts shown follow from it.
    amounts = largest_remainder(exact_total, rounded)
    usage = {
        t: min(max(exact_usage[t].quantize(CENT, rounding=ROUND_HALF_UP), Decimal(0)), amounts[t]) for t in exact_usage
    }
    return [
        TeamCharge(
            team.name,
            team.title,
            {t: (h[0], h[1], h[2]) for t, h in sorted(measured.hours[team.name].items())},
            usage[team.name],
            amounts[team.name] - usage[team.name],
        )
        for team in sorted(spec.teams, key=lambda t: t.name)
    ]


def _idle_weights(
    spec: PlatformSpec, split: cost_rules.SharedSplit, usage: dict[str, Decimal], notes: list[str]
) -> dict[str, Decimal]:
    """Each team's weight in the idle part, by cost.shared_split (summing to 1): the same rule as
    the cost category's split charge rule, applied to this statement's own amounts."""
    if split.method == "FIXED":
        return {team: percent / 100 for team, percent in split.percentages.items()}
    if split.fallback:
        notes.append(f"the quota split cannot be computed ({split.fallback}): idle capacity is charged proportionally")
    total = sum(usage.values(), Decimal(0))
    if split.method == "PROPORTIONAL" and total:
        return {team: amount / total for team, amount in usage.items()}
    if split.method == "PROPORTIONAL":
        notes.append("no team used the cluster in the period: idle capacity is charged evenly")
    return {team.name: Decimal(1) / len(spec.teams) for team in spec.teams}


def _method_phrase(split: cost_rules.SharedSplit) -> str:
    if split.method == "FIXED":
        return "by guaranteed quota (" + ", ".join(f"{t} {p}%" for t, p in split.percentages.items()) + ")"
    if split.method == "PROPORTIONAL":
        return "in proportion to each team's own cost (here: its charge for its own use)"
    return "evenly"


def _cost_category_view(
    spec: PlatformSpec, split: cost_rules.SharedSplit, amount: Decimal
) -> dict[str, Decimal] | None:
    """What the cost category's split charge rule gives each team of the same spend, where the
    rule alone decides it (FIXED, EVEN); None for PROPORTIONAL, which depends on each team's own
    tagged spend in Cost Explorer."""
    if split.method == "FIXED":
        return largest_remainder({t: amount * p / 100 for t, p in split.percentages.items()}, amount)
    if split.method == "EVEN":
        return largest_remainder({t.name: amount / len(spec.teams) for t in spec.teams}, amount)
    return None


def largest_remainder(exact: dict[str, Decimal], total: Decimal) -> dict[str, Decimal]:
    """The exact amounts cut to cents, the cents still missing to `total` given one each to the
    largest cuts (ties to the name first in order): the result sums to `total` exactly."""
    floored = {k: v.quantize(CENT, rounding=ROUND_DOWN) for k, v in exact.items()}
    missing = int((total - sum(floored.values(), Decimal(0))) / CENT)
    for key in sorted(exact, key=lambda k: (-(exact[k] - floored[k]), k))[: max(missing, 0)]:
        floored[key] += CENT
    return floored


# --- rendering --------------------------------------------------------------------------------


def _money(amount: Decimal) -> str:
    return f"{amount:,.2f}"


def _hours(value: Decimal) -> str:
    return f"{value:,.2f}"


def build_statement_document(statement: Statement, *, chart: bool = False):
    s = statement
    document = Document(
        f"Chargeback of {md_text(s.cluster)} ({md_text(s.organization)}), {s.first_day} to {s.last_day}"
    )
    document.add(
        Paragraph(
            f"The shared cluster cost **{_money(s.cost)} {s.currency}** ({md_text(s.cost_source)}) over {s.days} "
            f"day{'s' if s.days != 1 else ''}, divided among its instance types {md_text(s.cost_basis)}. Each team "
            f"pays for the hours HyperPod's usage reports measured it using; the {_money(s.unused)} {s.currency} of "
            f"capacity no team used is charged {md_text(s.split_method)}."
        )
    )
    if s.notes:
        document.add(Alert(f"{len(s.notes)} thing{'s' if len(s.notes) != 1 else ''} to check before sending"))
        document.add(Items([md_text(note) for note in s.notes]))
    document.add(Heading("Per team"))
    document.add(
        Table(
            ["team", "share", f"amount ({s.currency})", f"for its use ({s.currency})", f"idle share ({s.currency})"],
            [
                [
                    f"{md_text(c.title)} ({md_code(c.team)})" if c.title != c.team else md_code(c.team),
                    f"{s.share_percent(c)}%",
                    _money(c.amount),
                    _money(c.usage),
                    _money(c.idle),
                ]
                for c in s.teams
            ]
            + [["total", "100%", _money(s.cost), _money(s.cost - s.unused), _money(s.unused)]],
        )
    )
    document.add(Paragraph(_two_views(s)))
    if len(s.reconciliation) > 1:
        document.add(Heading("From the exports to the statement"))
        document.add(
            Table(
                ["", f"amount ({s.currency})"],
                [[_reconciliation_label(line), _money(line.amount)] for line in s.reconciliation],
            )
        )
    if chart:
        document.add(
            Image(
                "Each team's amount: its own use and its share of idle capacity",
                _statement_chart(s),
                on_phone="the Per team table above gives the same figures",
            )
        )
    document.add(Heading("Hours charged, per instance type"))
    rows = []
    for t in s.instance_types:
        for c in s.teams:
            if t.instance_type in c.hours:
                charged, allocated, borrowed = c.hours[t.instance_type]
                rows.append(
                    [md_text(t.instance_type), md_code(c.team), _hours(charged), _hours(allocated), _hours(borrowed)]
                )
        if t.other_hours:
            rows.append([md_text(t.instance_type), "namespaces of no team", _hours(t.other_hours), "-", "-"])
    document.add(
        Paragraph(
            "Charged hours are the reports' total hours of the type's measured resource (GPU hours on GPU instances, "
            "NeuronCore hours on Trainium and Inferentia, vCPU hours on CPU instances): allocated hours fall within "
            "the "
            "team's guaranteed quota, borrowed hours are idle capacity of other teams it borrowed. A team pays for "
            "its charged hours the type's cost over its capacity hours."
        )
    )
    document.add(
        Table(
            ["instance type", "team", "charged hours", "allocated hours", "borrowed hours"],
            rows or [["-", "-", "-", "-", "-"]],
        )
    )
    document.add(Heading("Capacity, per instance type"))
    document.add(
        Table(
            [
                "instance type",
                "nodes",
                f"its part of the cost ({s.currency})",
                "capacity (hours)",
                "used (hours)",
                "idle (hours)",
            ],
            [
                [
                    md_text(t.instance_type),
                    str(t.nodes),
                    _money(t.cost),
                    f"{_hours(t.capacity_hours)} {t.resource}",
                    _hours(sum(t.used_hours.values(), Decimal(0)) + t.other_hours),
                    _hours(t.idle_hours),
                ]
                for t in s.instance_types
            ],
        )
    )
    return document


def _reconciliation_label(line: ReconciliationLine) -> str:
    if line.role == "total":
        return f"**{md_text(line.label)}**"
    if line.role == "less":
        return f"less {md_text(line.label)}"
    if line.role == "plus":
        return f"plus {md_text(line.label)}, which sum to less than zero (credits, discounts)"
    if line.role == "part":
        return f"of which {md_text(line.label)}"
    return f"*{md_text(line.label)}*"


def _two_views(s: Statement) -> str:
    """The statement and the cost category split the same spend two ways: say so, with the
    other view's figures where the rule alone decides them."""
    text = (
        "The cost category's split charge rule divides the same shared spend in Cost Explorer, "
        f"{md_text(s.split_method)}"
        " over all of it. That and this statement are two views of one spend: use one, never add them."
    )
    if s.cost_category_split:
        figures = ", ".join(f"{md_code(t)} {_money(a)}" for t, a in sorted(s.cost_category_split.items()))
        text += f" Of {_money(s.cost)} {s.currency} the rule alone would charge {figures} {s.currency}."
    return text


def _statement_chart(statement: Statement) -> str:
    import pygal
    from pygal.style import Style

    from hyperpod_teams.review.report import TEAM_COLOURS, UNALLOCATED_COLOUR

    chart = pygal.HorizontalStackedBar(
        js=[],
        width=900,
        height=170 + 34 * len(statement.teams),
        x_title=statement.currency,
        disable_xml_declaration=True,
        # Every name whole: the legend under the chart, the teams' names never cut.
        legend_at_bottom=True,
        truncate_legend=-1,
        truncate_label=-1,
        style=Style(
            colors=(TEAM_COLOURS[0], UNALLOCATED_COLOUR),
            background="white",
            plot_background="white",
            font_family="sans-serif",
        ),
    )
    teams = list(reversed(statement.teams))  # pygal draws bottom up
    chart.x_labels = [c.team for c in teams]
    chart.add("own use", [float(c.usage) for c in teams])
    chart.add("share of idle capacity", [float(c.idle) for c in teams])
    return standalone_svg(chart.render(is_unicode=True), "chargeback-chart")


#: The CSV statement's columns before the per-instance-type hours; amounts are named by the
#: statement's currency (`amount_usd`, `amount_eur`, ...).
CSV_COLUMNS = (
    "team",
    "display_name",
    "share_percent",
    "amount_{currency}",
    "usage_{currency}",
    "idle_share_{currency}",
)


def statement_csv(statement: Statement) -> str:
    """One header row, one row per team; amount_<currency> sums exactly to the cost. Amounts and hours
    have two decimals each, zeros too."""
    types = [t.instance_type for t in statement.instance_types]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = [c.format(currency=statement.currency.lower()) for c in CSV_COLUMNS]
    writer.writerow([*columns, *(f"{t} {kind} hours" for t in types for kind in ("allocated", "borrowed", "charged"))])
    zero = (Decimal(0), Decimal(0), Decimal(0))
    for c in statement.teams:
        writer.writerow(
            [
                spreadsheet_text(c.team),
                spreadsheet_text(c.title),
                f"{statement.share_percent(c):.2f}",
                f"{c.amount:.2f}",
                f"{c.usage:.2f}",
                f"{c.idle:.2f}",
                *(
                    f"{h:.2f}"
                    for t in types
                    for charged, allocated, borrowed in [c.hours.get(t, zero)]
                    for h in (allocated, borrowed, charged)
                ),
            ]
        )
    return out.getvalue()


def statement_metadata(statement: Statement) -> str:
    """What the CSV's rows do not say, for the file beside it (`<csv>.json`): the period, the
    currency, the cost and how it was read and divided, and every note to check. A finance system
    importing the rows keeps the warnings with them."""
    s = statement
    document = {
        "organization": s.organization,
        "cluster": s.cluster,
        "period": {"first_day": s.first_day.isoformat(), "last_day": s.last_day.isoformat(), "days": s.days},
        "currency": s.currency,
        "cost": f"{s.cost:.2f}",
        "cost_source": s.cost_source,
        "cost_basis": s.export_basis or "given (--cost)",
        "sources": list(s.sources),
        "cost_divided_among_instance_types": s.cost_basis,
        "idle_capacity_charged": s.split_method,
        "idle_capacity": f"{s.unused:.2f}",
        "teams": [{"team": c.team, "amount": f"{c.amount:.2f}"} for c in s.teams],
        # What the Markdown and HTML statements show beside the rows: the total, and the hours of
        # namespaces that are no team of the spec (in no team's row).
        "total": {"amount": f"{s.cost:.2f}", "usage": f"{s.cost - s.unused:.2f}", "idle_share": f"{s.unused:.2f}"},
        "hours_of_no_team": {t.instance_type: f"{t.other_hours:.2f}" for t in s.instance_types if t.other_hours},
        "reconciliation": [{"line": r.label, "role": r.role, "amount": f"{r.amount:.2f}"} for r in s.reconciliation],
        "notes": list(s.notes),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


#: The install that brings the .xlsx writer.
XLSX_INSTALL = install_extras("xlsx")


def statement_xlsx(statement: Statement) -> bytes:
    """The statement as a workbook (XlsxWriter): every amount a number with the currency's format
    (`#,##0.00 "EUR"`: the separators are the reader's locale's, the currency the bill's), shares
    as percentages, hours as numbers; sheets Statement (the context and the teams), Reconciliation,
    Hours, Notes. Text from the spec is written as text, never as a formula."""
    try:
        import xlsxwriter
    except ImportError:
        raise ChargebackError(f"--format xlsx needs XlsxWriter: {XLSX_INSTALL}") from None
    out = io.BytesIO()
    workbook = xlsxwriter.Workbook(out, {"in_memory": True, "strings_to_formulas": False, "strings_to_urls": False})
    currency = f'#,##0.00 "{statement.currency}"'
    formats = {
        "bold": workbook.add_format({"bold": True}),
        "money": workbook.add_format({"num_format": currency}),
        "money bold": workbook.add_format({"num_format": currency, "bold": True}),
        "percent": workbook.add_format({"num_format": "0.00%"}),
        "hours": workbook.add_format({"num_format": "#,##0.00"}),
        "day": workbook.add_format({"num_format": "yyyy-mm-dd"}),
    }
    _xlsx_statement(workbook.add_worksheet("Statement"), statement, formats)
    _xlsx_reconciliation(workbook.add_worksheet("Reconciliation"), statement, formats)
    _xlsx_hours(workbook.add_worksheet("Hours"), statement, formats)
    notes = workbook.add_worksheet("Notes")
    notes.set_column(0, 0, 120)
    notes.write_string(0, 0, "things to check before sending", formats["bold"])
    for row, note in enumerate(statement.notes, start=1):
        notes.write_string(row, 0, note)
    workbook.close()
    return out.getvalue()


def _xlsx_statement(sheet, s: Statement, formats: dict) -> None:
    sheet.set_column(0, 0, 34)
    sheet.set_column(1, 5, 18)
    bold, money = formats["bold"], formats["money"]
    sheet.write_string(0, 0, "first day", bold)
    sheet.write_datetime(0, 1, datetime_of(s.first_day), formats["day"])
    sheet.write_string(1, 0, "last day", bold)
    sheet.write_datetime(1, 1, datetime_of(s.last_day), formats["day"])
    context = [
        ("organization", s.organization),
        ("cluster", s.cluster),
        ("currency", s.currency),
        ("cost from", s.cost_source),
        ("divided among the instance types", s.cost_basis),
        ("idle capacity charged", s.split_method),
    ]
    for row, (label, value) in enumerate(context, start=2):
        sheet.write_string(row, 0, label, bold)
        sheet.write_string(row, 1, value)
    row = len(context) + 3
    for column, title in enumerate(["team", "display name", "share", "amount", "for its use", "idle share"]):
        sheet.write_string(row, column, title, bold)
    for charge in s.teams:
        row += 1
        sheet.write_string(row, 0, charge.team)
        sheet.write_string(row, 1, charge.title)
        sheet.write_number(row, 2, float(s.share_percent(charge) / 100), formats["percent"])
        for column, amount in ((3, charge.amount), (4, charge.usage), (5, charge.idle)):
            sheet.write_number(row, column, float(amount), money)
    row += 1
    sheet.write_string(row, 0, "total", bold)
    sheet.write_number(row, 2, 1.0, formats["percent"])
    for column, amount in ((3, s.cost), (4, s.cost - s.unused), (5, s.unused)):
        sheet.write_number(row, column, float(amount), formats["money bold"])
    # The notes where the reader looks first, under the figures (and on the Notes sheet).
    if s.notes:
        row += 2
        sheet.write_string(row, 0, "things to check before sending", bold)
        for note in s.notes:
            row += 1
            sheet.write_string(row, 0, note)


def _xlsx_reconciliation(sheet, s: Statement, formats: dict) -> None:
    sheet.set_column(0, 0, 80)
    sheet.set_column(1, 2, 18)
    for column, title in enumerate(["line", "role", "amount"]):
        sheet.write_string(0, column, title, formats["bold"])
    for row, line in enumerate(s.reconciliation, start=1):
        total = line.role == "total"
        sheet.write_string(row, 0, line.label, formats["bold"] if total else None)
        sheet.write_string(row, 1, line.role)
        sheet.write_number(row, 2, float(line.amount), formats["money bold" if total else "money"])


def _xlsx_hours(sheet, s: Statement, formats: dict) -> None:
    sheet.set_column(0, 1, 22)
    sheet.set_column(2, 4, 16)
    for column, title in enumerate(["instance type", "team", "charged hours", "allocated hours", "borrowed hours"]):
        sheet.write_string(0, column, title, formats["bold"])
    row = 0
    for use in s.instance_types:
        for charge in s.teams:
            if use.instance_type in charge.hours:
                row += 1
                sheet.write_string(row, 0, use.instance_type)
                sheet.write_string(row, 1, charge.team)
                for column, value in enumerate(charge.hours[use.instance_type], start=2):
                    sheet.write_number(row, column, float(value), formats["hours"])
        if use.other_hours:  # as the Markdown and HTML statements show them
            row += 1
            sheet.write_string(row, 0, use.instance_type)
            sheet.write_string(row, 1, "namespaces of no team")
            sheet.write_number(row, 2, float(use.other_hours), formats["hours"])


def datetime_of(day: date) -> datetime:
    return datetime(day.year, day.month, day.day)


def render_statement(statement: Statement, *, format: str = "markdown") -> str:
    if format == "csv":
        return statement_csv(statement)
    if format == "html":
        return to_html(build_statement_document(statement, chart=True))
    return to_markdown(build_statement_document(statement))


__all__ = [
    "ChargebackError",
    "Statement",
    "UsageReportError",
    "compute_statement",
    "render_statement",
]
