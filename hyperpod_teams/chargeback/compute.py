"""A statement computed: the usage reports merged, the cost split among instance types and teams, its
reconciliation from every line of the export to the statement's cost, and how the split is said in
words.

Pure layer.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext

from hyperpod_teams import cost as cost_rules
from hyperpod_teams import naming, usage_report
from hyperpod_teams.chargeback.basis import DEFAULT_CURRENCY, KINDS
from hyperpod_teams.chargeback.export_columns import COST_EXPLORER
from hyperpod_teams.chargeback.exported_cost import ExportedCost
from hyperpod_teams.chargeback.split import (
    MeasuredHours,
    billed_capacity,
    instance_type_costs,
    instance_type_uses,
    largest_remainder,
    team_charges,
)
from hyperpod_teams.chargeback.statement import CENT, ChargebackError, ReconciliationLine, Statement
from hyperpod_teams.chargeback.usage import merge_reports, units_per_instance
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.usage_report import SummaryReport


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
    _refuse_another_accounts_report(spec, reports)
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
    billed = billed_capacity(exported, nodes, first_day, last_day, notes)
    measured = MeasuredHours.of(spec, rows, nodes, notes, billed)
    with localcontext() as context:
        context.prec = 50
        type_costs, cost_basis = instance_type_costs(spec, nodes, rounded, exported, notes)
        types, exact_usage = instance_type_uses(
            spec, nodes, (last_day - first_day).days + 1, type_costs, measured, billed
        )
        split = cost_rules.shared_split(spec)
        teams = team_charges(spec, split, rounded, exact_usage, measured, notes)
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
    if exported.format == COST_EXPLORER:
        return [ReconciliationLine("the Cost Explorer download's days in the period", cost, "total")]
    left_out = {
        "untagged": exported.untagged_amount,
        "split": exported.split_amount,
        "elsewhere": exported.elsewhere_amount,
    }
    in_period = (sum(left_out.values(), Decimal(0)) + exported.amount).quantize(CENT, rounding=ROUND_HALF_UP)
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
    if exported.elsewhere:
        place = exported.place
        assert place is not None
        lines.append(
            _left_out(
                f"tagged {naming.TAG_PLATFORM}={naming.PLATFORM_SHARED}, used by another account or in another Region "
                f"than the cluster's ({place.account}, {place.region})",
                left["elsewhere"],
            )
        )
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


def _refuse_another_accounts_report(spec: PlatformSpec, reports: list[SummaryReport]) -> None:
    """A report whose path names the usage-report bucket of another account or Region: a cluster of
    the same name there is another cluster (usage_report.report_origin)."""
    org = spec.organization
    for report in reports:
        origin = usage_report.report_origin(report.path)
        if origin is not None and (origin.account, origin.region) != (org.account_id, org.region):
            raise ChargebackError(
                f"{report.path} comes from the usage-report bucket {origin.bucket} of account {origin.account} in "
                f"{origin.region} (its folder), but the cluster {spec.cluster.name!r} runs in account "
                f"{org.account_id} in {org.region} (organization.account_id, organization.region): a cluster of "
                "the same name there is another cluster, and its hours are not these teams'. Give the reports "
                f"in s3://{_bucket(spec)}/"
            )


def _bucket(spec: PlatformSpec) -> str:
    """The usage-report bucket of the spec's cluster (usage_report.bucket_name)."""
    org = spec.organization
    return usage_report.bucket_name(naming.cluster_owner(org.name, spec.cluster_qualifier), org.account_id, org.region)
