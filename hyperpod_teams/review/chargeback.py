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
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from functools import cached_property

from hyperpod_teams import cost, naming
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
    if instance_type in cost.ACCELERATORS_PER_INSTANCE:
        return "GPU"
    parts = instance_type.split(".")
    if len(parts) == 3 and parts[1] in cost.CPU_FAMILIES and _CPU_SIZE.match(parts[2]):
        return "vCPU"
    return None


def units_per_instance(instance_type: str) -> int | None:
    """How many of its measured resource one instance has, or None when the tables do not know."""
    resource = measured_resource(instance_type)
    if resource == "NeuronCore":
        return NEURON_CORES_PER_INSTANCE[instance_type]
    if resource == "GPU":
        return cost.ACCELERATORS_PER_INSTANCE[instance_type]
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


# --- the cluster's cost -----------------------------------------------------------------------

#: Cost and usage columns of a legacy CUR CSV and of a CUR 2.0 (Data Exports) CSV.
_COST_COLUMNS = ("lineItem/UnblendedCost", "line_item_unblended_cost")
_START_COLUMNS = ("lineItem/UsageStartDate", "line_item_usage_start_date")
#: The shared platform's tag as a legacy CUR column, and as a key of CUR 2.0's resource_tags map.
_LEGACY_TAG_COLUMN = f"resourceTags/user:{naming.TAG_PLATFORM}"
_CUR2_TAG_KEYS = (f"user:{naming.TAG_PLATFORM}", "user_" + re.sub(r"[^A-Za-z0-9]", "_", naming.TAG_PLATFORM))


@dataclass(frozen=True)
class ExportedCost:
    amount: Decimal
    lines_used: int
    lines_read: int
    how: str


def read_cost_export(text: str | Iterable[str], path: str, first_day: date, last_day: date) -> ExportedCost:
    """The shared platform's cost in the period from a Cost and Usage Report CSV (legacy or 2.0):
    the unblended cost of the lines tagged hyperpod-teams:platform=shared whose usage starts in
    the period. Without a tag column, every line in the period counts (an export filtered to the
    cluster), and the statement says so."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")) if isinstance(text, str) else text)
    header = next(reader, None)
    if not header:
        raise ChargebackError(f"{path}, line 1: empty file; expected a Cost and Usage Report CSV")
    columns = {name.strip(): i for i, name in enumerate(header)}
    if COST_EXPLORER_TOTAL in columns:
        return _read_cost_explorer(reader, path, columns[COST_EXPLORER_TOTAL], len(header), first_day, last_day)
    cost_at = next((columns[c] for c in _COST_COLUMNS if c in columns), None)
    start_at = next((columns[c] for c in _START_COLUMNS if c in columns), None)
    if cost_at is None or start_at is None:
        raise ChargebackError(
            f"{path}, line 1: no {' or '.join(_COST_COLUMNS)} and {' or '.join(_START_COLUMNS)} column, and no "
            f"{COST_EXPLORER_TOTAL!r} column; expected a Cost and Usage Report CSV (legacy or 2.0) or a Cost "
            "Explorer download; give the cost with --cost instead"
        )
    legacy_tag_at = columns.get(_LEGACY_TAG_COLUMN)
    tags_at = columns.get("resource_tags")
    total, used, read = Decimal(0), 0, 0
    for number, row in enumerate(reader, start=2):
        if not row or not "".join(row).strip():
            continue
        read += 1
        if len(row) != len(header):
            raise ChargebackError(f"{path}, line {number}: {len(row)} columns, the header has {len(header)}")
        try:
            started = datetime.fromisoformat(row[start_at].strip().replace("Z", "+00:00")).date()
        except ValueError:
            raise ChargebackError(f"{path}, line {number}: {row[start_at]!r} is not a usage start date") from None
        if not first_day <= started <= last_day:
            continue
        if legacy_tag_at is not None and row[legacy_tag_at].strip() != naming.PLATFORM_SHARED:
            continue
        if tags_at is not None and legacy_tag_at is None and not _cur2_shared(row[tags_at], f"{path}, line {number}"):
            continue
        try:
            total += Decimal(row[cost_at].strip())
        except InvalidOperation:
            raise ChargebackError(f"{path}, line {number}: cost {row[cost_at]!r} is not a number") from None
        used += 1
    tagged = legacy_tag_at is not None or tags_at is not None
    how = (
        f"lines tagged {naming.TAG_PLATFORM}={naming.PLATFORM_SHARED}"
        if tagged
        else "every line (the export has no tag column: it must hold the cluster's spend only)"
    )
    return ExportedCost(total, used, read, how)


#: The Cost Explorer console's CSV download: a first column of the grouping (its header the
#: dimension, e.g. "Service"), a column per value, `Total costs($)`; a "<dimension> total" row,
#: then one row per day (or month) with its date in the first column.
COST_EXPLORER_TOTAL = "Total costs($)"


def _read_cost_explorer(reader, path: str, total_at: int, width: int, first_day: date, last_day: date) -> ExportedCost:
    total, used, read = Decimal(0), 0, 0
    for number, row in enumerate(reader, start=2):
        if not row or not "".join(row).strip():
            continue
        read += 1
        label = row[0].strip()
        if label.lower().endswith(" total"):
            continue
        try:
            day = date.fromisoformat(label)
        except ValueError:
            raise ChargebackError(f"{path}, line {number}: {label!r} is neither a date nor the total row") from None
        if len(row) != width:
            raise ChargebackError(f"{path}, line {number}: {len(row)} columns, the header has {width}")
        if not first_day <= day <= last_day:
            continue
        cell = row[total_at].strip() or "0"
        try:
            total += Decimal(cell)
        except InvalidOperation:
            raise ChargebackError(f"{path}, line {number}: {COST_EXPLORER_TOTAL} {cell!r} is not a number") from None
        used += 1
    how = (
        f"the {COST_EXPLORER_TOTAL} of each day in the period (a Cost Explorer download has no tags: it must be "
        f"filtered to the cost category value {cost.SHARED_PLATFORM} or the tag {naming.TAG_PLATFORM})"
    )
    return ExportedCost(total, used, read, how)


def _cur2_shared(cell: str, where: str) -> bool:
    if not cell.strip():
        return False
    try:
        tags = json.loads(cell)
    except ValueError:
        raise ChargebackError(f"{where}: resource_tags {cell[:60]!r} is not a JSON map") from None
    return isinstance(tags, dict) and any(tags.get(key) == naming.PLATFORM_SHARED for key in _CUR2_TAG_KEYS)


# --- the statement ----------------------------------------------------------------------------


@dataclass(frozen=True)
class InstanceTypeUse:
    """One instance type over the period: what it cost, what it could give, who used what."""

    instance_type: str
    resource: str
    nodes: int
    cost_usd: Decimal
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
    #: (allocated, borrowed) hours of the measured resource, per instance type.
    hours: dict[str, tuple[Decimal, Decimal]]
    usage_usd: Decimal
    idle_usd: Decimal

    @property
    def amount_usd(self) -> Decimal:
        return self.usage_usd + self.idle_usd


@dataclass
class Statement:
    organization: str
    cluster: str
    first_day: date
    last_day: date
    cost_usd: Decimal
    cost_source: str
    split_method: str
    instance_types: list[InstanceTypeUse]
    teams: list[TeamCharge]
    unused_usd: Decimal
    notes: list[str] = field(default_factory=list)

    @property
    def days(self) -> int:
        return (self.last_day - self.first_day).days + 1

    @cached_property
    def _shares(self) -> dict[str, Decimal]:
        return cost.split_percentages({c.team: c.amount_usd for c in self.teams})

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
    seen: dict[tuple[date, str, str], str] = {}
    notes = []
    for report in ordered:
        if report.filters:
            raise ChargebackError(
                f"{report.path} is filtered ({'; '.join(report.filters)}): a statement needs every namespace"
            )
        for period in report.missing_periods:
            notes.append(f"{report.path} says data is missing from {period}: hours in it count as idle")
        for row in report.rows:
            key = (row.day, row.namespace, row.instance_type)
            if key in seen:
                raise ChargebackError(f"{row.where}: the same date, namespace and instance type as {seen[key]}")
            seen[key] = row.where
            rows.append(row)
    return ordered[0].first_day, ordered[-1].last_day, rows, notes


#: Each hours cell of a report is rounded to two decimals: the three of one resource may miss by this.
_ROUNDING = Decimal("0.02")


def _unbalanced(row: UsageRow) -> bool:
    """Whether a row's total hours of some resource are not its allocated plus borrowed hours."""
    return any(
        abs(row.hours[(r, "total")] - row.hours[(r, "allocated")] - row.hours[(r, "borrowed")]) > _ROUNDING
        for r in RESOURCES
    )


def compute_statement(
    spec: PlatformSpec, reports: list[SummaryReport], cost_usd: Decimal, *, cost_source: str = "given"
) -> Statement:
    first_day, last_day, rows, notes = merge_reports(reports)
    if not cost_usd.is_finite() or cost_usd < 0:
        raise ChargebackError(f"the cost {cost_usd} is not an amount of USD (0 or more)")
    rounded = cost_usd.quantize(CENT, rounding=ROUND_HALF_UP)
    if rounded != cost_usd:
        notes.append(f"the cost {cost_usd} USD is rounded to {rounded} USD")
    days = (last_day - first_day).days + 1
    prices = dict(spec.cost.instance_prices_usd)
    nodes = spec.cluster.capacity_by_instance_type()
    unknown = sorted(t for t in nodes if units_per_instance(t) is None)
    if unknown:
        raise ChargebackError(
            f"cluster.instance_groups: chargeback does not know how many GPUs, NeuronCores or vCPUs "
            f"{', '.join(unknown)} has, so it cannot tell used hours from idle ones"
        )
    worth = {t: n * (cost.instance_worth(t, prices) or Decimal(0)) for t, n in nodes.items()}
    total_worth = sum(worth.values(), Decimal(0))
    if not total_worth:  # only unpriced CPU instances: weigh by node count
        worth = {t: Decimal(n) for t, n in nodes.items()}
        total_worth = sum(worth.values(), Decimal(0))
        notes.append("no instance type has accelerators or a price: the cost is divided by node count")

    unbalanced = [row.where for row in rows if _unbalanced(row)]
    if unbalanced:
        notes.append(
            f"{len(unbalanced)} row{'s' if len(unbalanced) != 1 else ''} of the reports give a total that is not "
            f"allocated + borrowed hours (first: {unbalanced[0]}): the total is charged; ask who made the report"
        )
    by_namespace = {naming.team_namespace(t.name): t.name for t in spec.teams}
    team_names = {t.name for t in spec.teams}
    used: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    hours: dict[str, dict[str, list[Decimal]]] = defaultdict(lambda: defaultdict(lambda: [Decimal(0), Decimal(0)]))
    other: dict[str, Decimal] = defaultdict(Decimal)
    other_namespaces: dict[str, set[str]] = defaultdict(set)
    outside: dict[str, Decimal] = defaultdict(Decimal)
    for row in rows:
        team = by_namespace.get(row.namespace) or (row.team if row.team in team_names else None)
        resource = measured_resource(row.instance_type)
        if row.instance_type not in nodes or resource is None:
            outside[row.instance_type] += sum((row.hours[(r, "total")] for r in RESOURCES), Decimal(0))
            continue
        total = row.hours[(resource, "total")]
        if team is None:
            other[row.instance_type] += total
            other_namespaces[row.instance_type].add(row.namespace)
            continue
        used[row.instance_type][team] += total
        hours[team][row.instance_type][0] += row.hours[(resource, "allocated")]
        hours[team][row.instance_type][1] += row.hours[(resource, "borrowed")]
    for instance_type, spent in sorted(outside.items()):
        notes.append(
            f"{instance_type}: {spent.normalize():f} hours in the reports, but no instance group of the spec has "
            "this type; they are not charged (is cluster.instance_groups up to date?)"
        )
    for instance_type, namespaces in sorted(other_namespaces.items()):
        notes.append(
            f"{instance_type}: {other[instance_type].normalize():f} hours of namespaces that are no team of the spec "
            f"({', '.join(sorted(namespaces))}) are charged like idle capacity"
        )

    with localcontext() as context:
        context.prec = 50
        exact_usage: dict[str, Decimal] = defaultdict(Decimal)
        types = []
        for instance_type in sorted(nodes):
            type_cost = rounded * worth[instance_type] / total_worth
            units = units_per_instance(instance_type)
            assert units is not None
            capacity = Decimal(nodes[instance_type] * units * HOURS_PER_DAY * days)
            team_hours = dict(used[instance_type])
            measured = sum(team_hours.values(), Decimal(0)) + other[instance_type]
            denominator = capacity
            if measured > capacity:
                notes.append(
                    f"{instance_type}: the reports count {measured.normalize():f} {measured_resource(instance_type)} "
                    f"hours, more than its {nodes[instance_type]} nodes could give ({capacity}): the hours are "
                    "scaled to the capacity (is cluster.instance_groups up to date?)"
                )
                denominator = measured
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
                    other[instance_type],
                )
            )
        usage = largest_remainder({**exact_usage, "": rounded - sum(exact_usage.values(), Decimal(0))}, rounded)
        unused = usage.pop("")
        usage = {t.name: usage.get(t.name, Decimal(0)) for t in spec.teams}
        split = cost.shared_split(spec)
        weights = _idle_weights(spec, split, usage, notes)
        idle = largest_remainder({t: unused * w for t, w in weights.items()}, unused)

    teams = [
        TeamCharge(
            team.name,
            team.title,
            {t: (h[0], h[1]) for t, h in sorted(hours[team.name].items())},
            usage[team.name],
            idle.get(team.name, Decimal(0)),
        )
        for team in sorted(spec.teams, key=lambda t: t.name)
    ]
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
        unused,
        notes,
    )


def _idle_weights(
    spec: PlatformSpec, split: cost.SharedSplit, usage: dict[str, Decimal], notes: list[str]
) -> dict[str, Decimal]:
    """Each team's weight in the idle part, by cost.shared_split (summing to 1)."""
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


def _method_phrase(split: cost.SharedSplit) -> str:
    if split.method == "FIXED":
        return "by guaranteed quota (" + ", ".join(f"{t} {p}%" for t, p in split.percentages.items()) + ")"
    if split.method == "PROPORTIONAL":
        return "in proportion to each team's measured use"
    return "evenly"


def largest_remainder(exact: dict[str, Decimal], total: Decimal) -> dict[str, Decimal]:
    """The exact amounts cut to cents, the cents still missing to `total` given one each to the
    largest cuts (ties to the name first in order): the result sums to `total` exactly."""
    floored = {k: v.quantize(CENT, rounding=ROUND_DOWN) for k, v in exact.items()}
    missing = int((total - sum(floored.values(), Decimal(0))) / CENT)
    for key in sorted(exact, key=lambda k: (-(exact[k] - floored[k]), k))[: max(missing, 0)]:
        floored[key] += CENT
    return floored


# --- rendering --------------------------------------------------------------------------------


def _usd(amount: Decimal) -> str:
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
            f"The shared cluster cost **{_usd(s.cost_usd)} USD** ({md_text(s.cost_source)}) over {s.days} day"
            f"{'s' if s.days != 1 else ''}. Each team pays for the hours HyperPod's usage reports measured it "
            f"using; the {_usd(s.unused_usd)} USD of capacity no team used is charged {s.split_method}."
        )
    )
    if s.notes:
        document.add(Alert(f"{len(s.notes)} thing{'s' if len(s.notes) != 1 else ''} to check before sending"))
        document.add(Items([md_text(note) for note in s.notes]))
    document.add(Heading("Per team"))
    document.add(
        Table(
            ["team", "share", "amount (USD)", "for its use (USD)", "idle share (USD)"],
            [
                [
                    f"{md_text(c.title)} ({md_code(c.team)})" if c.title != c.team else md_code(c.team),
                    f"{s.share_percent(c)}%",
                    _usd(c.amount_usd),
                    _usd(c.usage_usd),
                    _usd(c.idle_usd),
                ]
                for c in s.teams
            ]
            + [["total", "100%", _usd(s.cost_usd), _usd(s.cost_usd - s.unused_usd), _usd(s.unused_usd)]],
        )
    )
    if chart:
        document.add(Image("Each team's amount: its own use and its share of idle capacity", _statement_chart(s)))
    document.add(Heading("Hours used, per instance type"))
    rows = []
    for t in s.instance_types:
        for c in s.teams:
            if t.instance_type in c.hours:
                allocated, borrowed = c.hours[t.instance_type]
                rows.append([md_text(t.instance_type), md_code(c.team), _hours(allocated), _hours(borrowed)])
        if t.other_hours:
            rows.append([md_text(t.instance_type), "namespaces of no team", _hours(t.other_hours), "-"])
    document.add(
        Paragraph(
            "Allocated hours fall within the team's guaranteed quota, borrowed hours are idle capacity of other "
            "teams it borrowed (measured in GPU hours on GPU instances, NeuronCore hours on Trainium and "
            "Inferentia, vCPU hours on CPU instances)."
        )
    )
    document.add(Table(["instance type", "team", "allocated hours", "borrowed hours"], rows or [["-", "-", "-", "-"]]))
    document.add(Heading("Capacity, per instance type"))
    document.add(
        Table(
            [
                "instance type",
                "nodes",
                "its part of the cost (USD)",
                "capacity (hours)",
                "used (hours)",
                "idle (hours)",
            ],
            [
                [
                    md_text(t.instance_type),
                    str(t.nodes),
                    _usd(t.cost_usd),
                    f"{_hours(t.capacity_hours)} {t.resource}",
                    _hours(sum(t.used_hours.values(), Decimal(0)) + t.other_hours),
                    _hours(t.idle_hours),
                ]
                for t in s.instance_types
            ],
        )
    )
    return document


def _statement_chart(statement: Statement) -> str:
    import pygal
    from pygal.style import Style

    from hyperpod_teams.review.report import TEAM_COLOURS, UNALLOCATED_COLOUR

    chart = pygal.HorizontalStackedBar(
        js=[],
        width=900,
        height=140 + 34 * len(statement.teams),
        x_title="USD",
        disable_xml_declaration=True,
        style=Style(
            colors=(TEAM_COLOURS[0], UNALLOCATED_COLOUR),
            background="white",
            plot_background="white",
            font_family="sans-serif",
        ),
    )
    teams = list(reversed(statement.teams))  # pygal draws bottom up
    chart.x_labels = [c.team for c in teams]
    chart.add("own use", [float(c.usage_usd) for c in teams])
    chart.add("share of idle capacity", [float(c.idle_usd) for c in teams])
    return standalone_svg(chart.render(is_unicode=True), "chargeback-chart")


#: The CSV statement's columns before the per-instance-type hours.
CSV_COLUMNS = ("team", "display_name", "share_percent", "amount_usd", "usage_usd", "idle_share_usd")


def statement_csv(statement: Statement) -> str:
    """One header row, one row per team; amount_usd sums exactly to the cost."""
    types = [t.instance_type for t in statement.instance_types]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*CSV_COLUMNS, *(f"{t} {kind} hours" for t in types for kind in ("allocated", "borrowed"))])
    for c in statement.teams:
        writer.writerow(
            [
                spreadsheet_text(c.team),
                spreadsheet_text(c.title),
                str(statement.share_percent(c)),
                str(c.amount_usd),
                str(c.usage_usd),
                str(c.idle_usd),
                *(str(h) for t in types for h in c.hours.get(t, (Decimal(0), Decimal(0)))),
            ]
        )
    return out.getvalue()


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
    "read_cost_export",
    "render_statement",
]
