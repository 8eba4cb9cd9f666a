"""Whether the exports cover the statement's period: the billing periods they hold, corrections AWS
issued, the last charge they reach; and the statement's figures finished once (discounts given twice
counted once).

Pure layer.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from hyperpod_teams import naming
from hyperpod_teams.chargeback.basis import CENT, CostExportError, Period, amortized
from hyperpod_teams.chargeback.export_cells import instant_of
from hyperpod_teams.chargeback.exported_cost import ExportedCost
from hyperpod_teams.wording import by_count, counted


def billing_period_of(
    out: ExportedCost, row: Sequence[Any], at: tuple[int | None, int | None], where: str
) -> tuple[datetime, datetime] | None:
    """The line's billing period, each distinct one read once and kept in `out`; None where the
    export has no such columns or the line leaves them empty."""
    start_at, end_at = at
    if start_at is None or end_at is None:
        return None
    key = (str(row[start_at] or ""), str(row[end_at] or ""))
    if not all(key):
        return None
    span = out.billing_periods.get(key)
    if span is None:
        span = out.billing_periods[key] = (
            instant_of(row[start_at], "billing period start", where),
            instant_of(row[end_at], "billing period end", where),
        )
    return span


def is_a_correction(
    billed: tuple[datetime, datetime] | None, start: datetime, end: datetime | None, period: Period
) -> bool:
    """A line dated before the period that its export bills in a billing period overlapping it (a
    refund in December's export for Nov 10, stating December): known only where the export says
    each line's billing period."""
    if billed is None or (end or start) > period.start:
        return False
    return billed[0] < period.end and billed[1] > period.start


def _covered(out: ExportedCost, period: Period) -> None:
    """The statement's period within the billing periods the exports hold, without a gap: a
    statement of Nov 25 to Dec 5 from November's export alone charged 11 days of capacity with 6
    days of cost. Exports without billing-period columns say nothing here."""
    if not out.billing_periods:
        return
    spans = sorted(out.billing_periods.values())
    reached, gaps = period.start, []
    for start, end in spans:
        if end <= reached:
            continue
        if start > reached and reached < period.end:
            gaps.append((reached, min(start, period.end)))
        reached = max(reached, end)
    if reached < period.end:
        gaps.append((reached, period.end))
    if gaps:
        held = ", ".join(f"{s.date()} to {(e - timedelta(days=1)).date()}" for s, e in spans)
        missing = ", ".join(f"{s.date()} to {(e - timedelta(days=1)).date()}" for s, e in gaps)
        raise CostExportError(
            f"the exports hold the billing period{'s' if len(spans) != 1 else ''} {held}, but the statement's period "
            f"is {period.first_day} to {period.last_day}: {missing} has no cost in them. Give the export of every "
            "billing period the usage reports cover, or usage reports of the exports' period"
        )


#: How far before the statement's end the last hourly or daily charge may end: an hour without
#: any charge at all, and AWS's rounding of the last hour.
_LAST_CHARGE_SLACK = timedelta(hours=2)


def _reaches_the_end(out: ExportedCost, period: Period) -> None:
    """The exports' charges of an hour or a day run to the statement's end: a month-to-date
    delivery (a CUR refreshed daily through the month) used for the whole month gave 64 % of its
    cost. Refused, naming the last charge and the two ways on."""
    if out.last_charge_end is None or out.last_charge_end >= period.end - _LAST_CHARGE_SLACK:
        return
    last = out.last_charge_end.strftime("%Y-%m-%d %H:%M UTC")
    last_day = (out.last_charge_end - timedelta(seconds=1)).date()
    raise CostExportError(
        f"the exports' charges end at {last} ({out.last_charge_at}), but the statement's period runs to "
        f"{period.last_day}: a delivery of part of its billing period (month to date?) has no cost for the days "
        f"after. Give the export delivered after {period.last_day}, or usage reports up to {last_day}"
    )


def finish_figures(out: ExportedCost, period: Period) -> None:
    _covered(out, period)
    _reaches_the_end(out, period)
    in_net_costs = bool((out.discount_lines or out.untagged_discount_lines) and out.discounts)
    if in_net_costs:
        # Discounts as their own lines and in the lines' own net costs: counted once, in the lines' net
        # costs, which also hold the discounts of lines the statement does not count (an EDP on a Savings
        # Plan's fee is a discount line on the untagged fee, and in its covered lines' net effective cost).
        given = out._discount_line_sums
        out.amount -= given.amount
        out.prorated -= given.prorated
        for kind, amount in given.by_kind.items():
            out.by_kind[kind] -= amount
        for itype, amount in given.by_instance_type.items():
            out.by_instance_type[itype] -= amount
        out.untagged_amount -= out.untagged_discount_amount
        lines = out.discount_lines + out.untagged_discount_lines
        out.notes.append(
            f"the export gives its discounts twice: as {counted(lines, 'discount line')} and in the "
            f"lines' own net costs ({out.discounts.quantize(CENT):,} {out.statement_currency} on the platform's "
            "lines); they count once, in the net costs, which also hold the discounts of lines the statement does "
            "not count (a Savings Plan fee's discount is in its covered lines' net effective cost)"
        )
    elif out.discount_lines:
        out.discounts = out.discount_lines_amount
    if n := out.discount_lines_left:
        out.notes.append(
            f"{counted(n, 'tagged discount line')} in the period "
            f"({out.discount_lines_left_amount.quantize(CENT):,} {out.statement_currency}) {by_count(n, 'is', 'are')} "
            f"not in the {out.basis} cost; --cost-basis net-{out.basis.split('-', 1)[1]} counts "
            f"{by_count(n, 'it', 'them')}"
        )
    if n := out.untagged_lines:
        out.notes.append(
            f"{counted(n, 'line')} of the exports in the period {by_count(n, 'carries', 'carry')} no "
            f"{naming.TAG_PLATFORM}={naming.PLATFORM_SHARED} tag (other workloads, the "
            f"account's own commitments and discounts; {out.untagged_amount.quantize(CENT):,} "
            f"{out.statement_currency} on the {out.basis} basis): not in this statement"
        )
    if out.elsewhere and out.place is not None:
        count = sum(out.elsewhere.values())
        places = "; ".join(
            f"account {account} in {region}: {n:,}" for (account, region), n in sorted(out.elsewhere.items())
        )
        out.notes.append(
            f"{counted(count, 'line')} tagged {naming.TAG_PLATFORM}={naming.PLATFORM_SHARED} in the "
            f"period {by_count(count, 'was', 'were')} used by another account or in another Region than the "
            f"cluster's ({out.place.account}, {out.place.region}): {places} "
            f"({out.elsewhere_amount.quantize(CENT):,} {out.statement_currency} on the {out.basis} basis): not in "
            "this statement (another cluster's, or another organization's of the same payer)"
        )
    if (n := out.untagged_discount_lines) and not in_net_costs:
        out.notes.append(
            f"{counted(n, 'discount line')} in the period {by_count(n, 'carries', 'carry')} no "
            f"{naming.TAG_PLATFORM} tag (a discount on an account's Savings Plans fee, or "
            "on untagged usage): not in this statement"
        )
    if n := out.split_rows:
        out.notes.append(
            f"{counted(n, 'split cost allocation row')} (a pod's share of its node, "
            f"splitLineItem/ParentResourceId) {by_count(n, 'is', 'are')} not counted: the node's own line is, and "
            "counting both would charge the node twice"
        )
    if n := out.corrections:
        out.notes.append(
            f"{counted(n, 'tagged line')} billed in this period {by_count(n, 'is', 'are')} "
            f"dated before {period.first_day} (corrections or refunds of earlier days; first: {out.first_correction}): "
            f"{out.corrections_amount.quantize(Decimal('0.01')):,} {out.statement_currency} in no statement of this "
            "period. Add them to the statement of their days, or to this one by hand"
        )
    if n := out.prorated_lines:
        out.notes.append(
            f"{counted(n, 'line')} of the export charged for more than a day (a month's "
            f"tax, fees or support) {by_count(n, 'counts', 'count')} for the part of "
            f"{by_count(n, 'its', 'their')} charge "
            f"period in {period.first_day} to {period.last_day}: {out.prorated.quantize(Decimal('0.01')):,} "
            f"{out.statement_currency}"
        )
    if out.untagged_commitment_lines and amortized(out.basis):
        out.notes.append(
            f"{counted(out.untagged_commitment_lines, 'Savings Plans or Reserved Instance fee line')} in the period "
            f"carry no {naming.TAG_PLATFORM} tag: "
            "the unused part of those commitments is not in this statement (it stays with the account that bought them)"
        )
