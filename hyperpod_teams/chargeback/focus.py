"""A FOCUS 1.x export of AWS Data Exports: EffectiveCost and BilledCost, after every discount.

Pure layer.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from hyperpod_teams.chargeback.basis import (
    KIND_COMMITMENT,
    KIND_CREDITS,
    KIND_OTHER,
    KIND_TAX,
    KIND_USAGE,
    NET_AMORTIZED,
    NET_UNBLENDED,
    CostExportError,
    Period,
    amortized,
    net,
)
from hyperpod_teams.chargeback.coverage import billing_period_of, is_a_correction
from hyperpod_teams.chargeback.cur import discount_of_map, note_instance_hours, note_unplaced
from hyperpod_teams.chargeback.export_cells import (
    ChargePeriods,
    cluster_tag_reader,
    instance_type_of,
    map_says_shared,
    money_of,
)
from hyperpod_teams.chargeback.export_columns import (
    FOCUS_ACCOUNT,
    FOCUS_BILLED,
    FOCUS_BILLING_END,
    FOCUS_BILLING_START,
    FOCUS_CATEGORY,
    FOCUS_CURRENCY,
    FOCUS_DISCOUNTS,
    FOCUS_EFFECTIVE,
    FOCUS_END,
    FOCUS_QUANTITY,
    FOCUS_REGION,
    FOCUS_START,
    FOCUS_TAGS,
    FOCUS_UNIT,
    FOCUS_USAGE_TYPE,
    TAG_KEYS,
)
from hyperpod_teams.chargeback.export_files import Part, no_tag_column
from hyperpod_teams.chargeback.exported_cost import ExportedCost, add_line

#: FOCUS ChargeCategory values (FOCUS 1.x: Usage, Purchase, Tax, Credit, Adjustment).
_FOCUS_KINDS = {"Usage": KIND_USAGE, "Purchase": KIND_COMMITMENT, "Tax": KIND_TAX, "Credit": KIND_CREDITS}


def _left_elsewhere(
    out: ExportedCost, row: Sequence[Any], at: tuple, cluster: str | None, cost, where: str, fraction: Decimal
) -> bool:
    """Whether a tagged row was used by another account or in another Region than the cluster's
    (`at`: the columns of both, None where the export has none), or is another cluster's there
    (`cluster`: its cluster tag): then counted apart and left out."""
    account_at, region_at = at
    used_at = out.used_elsewhere(
        row[account_at] if account_at is not None else None, row[region_at] if region_at is not None else None, cluster
    )
    if used_at is None:
        return False
    if fraction:
        out.note_elsewhere(used_at, cost(row, where)[0] * fraction)
    return True


def read_focus(part: Part, period: Period, out: ExportedCost) -> None:
    at = {name: i for i, name in enumerate(part.header)}
    if FOCUS_TAGS not in at:
        raise no_tag_column(part, [f"{FOCUS_TAGS} (a map with the key {TAG_KEYS[0]})"])
    tags_at, start_at, end_at = at[FOCUS_TAGS], at[FOCUS_START], at.get(FOCUS_END)
    cost_column = FOCUS_EFFECTIVE if amortized(out.basis) else FOCUS_BILLED
    if cost_column not in at:
        other = NET_UNBLENDED if amortized(out.basis) else NET_AMORTIZED
        raise CostExportError(
            f"{part.name}, line 1: no {cost_column} column for the {out.basis} cost of a FOCUS export; give the export "
            f"with it, or --cost-basis {other}"
        )
    if not net(out.basis):
        # EffectiveCost and BilledCost are after every discount, and FOCUS has no column of the
        # cost before them (AWS's x_Discounts names a row's discounts, not which cost they left).
        raise CostExportError(
            f"{part.name}: a FOCUS export states its costs after every discount ({cost_column}): it has no "
            f"{out.basis} cost. Give a Cost and Usage Report of the same period for the cost before discounts, or "
            f"--cost-basis net-{out.basis.split('-', 1)[1]}"
        )
    discounts_at = at.get(FOCUS_DISCOUNTS)
    placed = ChargePeriods(start_at, end_at, (FOCUS_START, FOCUS_END), period)
    quantity_at, unit_at, category_at = at.get(FOCUS_QUANTITY), at.get(FOCUS_UNIT), at.get(FOCUS_CATEGORY)
    cost_at, usage_type_at, currency_at = at[cost_column], at.get(FOCUS_USAGE_TYPE), at.get(FOCUS_CURRENCY)

    def cost(row: Sequence[Any], where: str) -> tuple[Decimal, Decimal]:
        """The row's cost, and before its discounts as far as AWS's x_Discounts names them."""
        amount = money_of(row[cost_at], cost_column, where)
        if discounts_at is None:
            return amount, amount
        return amount, amount - discount_of_map(row[discounts_at], FOCUS_DISCOUNTS, where)

    billing_at = (at.get(FOCUS_BILLING_START), at.get(FOCUS_BILLING_END))
    account_at, region_at = at.get(FOCUS_ACCOUNT), at.get(FOCUS_REGION)
    note_unplaced(out, part.name, account_at is None, region_at is None, FOCUS_ACCOUNT, FOCUS_REGION)
    cluster_of = cluster_tag_reader(at, FOCUS_TAGS, part.name) if out.place and out.place.cluster else None
    for where, row in part.rows:
        out.lines_read += 1
        billed = billing_period_of(out, row, billing_at, where)
        out.note_charge_end(row, placed, where)
        start, end, fraction = placed(row, where)
        if not map_says_shared(row[tags_at], FOCUS_TAGS, where):
            if fraction:
                out.untagged_lines += 1
                out.untagged_amount += cost(row, where)[0] * fraction
            continue
        cluster = cluster_of(row, where) if cluster_of else None
        if _left_elsewhere(out, row, (account_at, region_at), cluster, cost, where, fraction):
            continue
        if not fraction:
            if is_a_correction(billed, start, end, period):
                out.note_correction(cost(row, where)[0], where)
            continue
        amount, gross = cost(row, where)
        out.note_line(row, part.name, where)
        if currency_at is not None:
            out.note_currency(row[currency_at], where)
        itype = instance_type_of(row[usage_type_at] if usage_type_at is not None else None)
        kind = _FOCUS_KINDS.get(str(row[category_at] or "") if category_at is not None else "Usage", KIND_OTHER)
        add_line(out, amount, fraction, start, end, itype, kind=kind)
        out.discounts += (amount - gross) * fraction
        if quantity_at is not None and (category_at is None or row[category_at] == "Usage"):
            note_instance_hours(out, itype, row[quantity_at], row[unit_at] if unit_at is not None else None,
                                start, end, fraction, where)  # fmt: skip
