"""The split: each instance type's cost (priced, or from the export's lines), the hours each team
measured on it within the capacity billed, what no team used divided by the spec's shared split, and
amounts rounded so they sum exactly to the cost (largest remainder).

Pure layer.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal

from hyperpod_teams import cost as cost_rules
from hyperpod_teams import naming
from hyperpod_teams.chargeback.basis import DEFAULT_CURRENCY
from hyperpod_teams.chargeback.exported_cost import ExportedCost
from hyperpod_teams.chargeback.statement import CENT, ChargebackError, InstanceTypeUse, TeamCharge
from hyperpod_teams.chargeback.usage import HOURS_PER_DAY, measured_resource, units_per_instance
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.usage_report import RESOURCES, UsageRow


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


@dataclass
class MeasuredHours:
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
    ) -> MeasuredHours:
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


def billed_capacity(
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


def instance_type_uses(
    spec: PlatformSpec,
    nodes: dict[str, int],
    days: int,
    type_costs: dict[str, Decimal],
    measured: MeasuredHours,
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


def team_charges(
    spec: PlatformSpec,
    split: cost_rules.SharedSplit,
    rounded: Decimal,
    exact_usage: dict[str, Decimal],
    measured: MeasuredHours,
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


def largest_remainder(exact: dict[str, Decimal], total: Decimal) -> dict[str, Decimal]:
    """The exact amounts cut to cents, the cents still missing to `total` given one each to the
    largest cuts (ties to the name first in order): the result sums to `total` exactly."""
    floored = {k: v.quantize(CENT, rounding=ROUND_DOWN) for k, v in exact.items()}
    missing = int((total - sum(floored.values(), Decimal(0))) / CENT)
    for key in sorted(exact, key=lambda k: (-(exact[k] - floored[k]), k))[: max(missing, 0)]:
        floored[key] += CENT
    return floored
