"""The Cost and Usage Report's lines (legacy and CUR 2.0): each line's kind, gross and net cost on the
statement's basis (Savings Plans and Reserved Instances amortized over what they cover), its
discounts, the instance hours it bills, and what the statement leaves out with a note.

Pure layer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from decimal import Decimal, localcontext
from functools import partial
from typing import Any

from hyperpod_teams import naming
from hyperpod_teams.chargeback.basis import (
    KIND_COMMITMENT,
    KIND_CREDITS,
    KIND_DISCOUNTS,
    KIND_OTHER,
    KIND_TAX,
    KIND_USAGE,
    CostExportError,
    Period,
    amortized,
    net,
)
from hyperpod_teams.chargeback.coverage import billing_period_of, is_a_correction
from hyperpod_teams.chargeback.export_cells import (
    ChargePeriods,
    cluster_tag_reader,
    instance_type_of,
    map_says_shared,
    money_of,
    tags_of,
)
from hyperpod_teams.chargeback.export_columns import LEGACY_CUR, SNAKE_CUR, TAG_KEYS, CurColumns
from hyperpod_teams.chargeback.export_files import Part, no_tag_column
from hyperpod_teams.chargeback.exported_cost import ExportedCost, add_line, add_to_sums

#: Line item types of Savings Plans and Reserved Instance fees (their unused commitment).
_COMMITMENT_FEES = frozenset({"SavingsPlanRecurringFee", "SavingsPlanUpfrontFee", "RIFee"})


#: Line item types of discounts given as their own lines (legacy CUR; CUR 2.0 with "manual
#: discount compatibility"): negative amounts, counted on the net bases only.
DISCOUNT_LINE_TYPES = frozenset(
    {"EdpDiscount", "PrivateRateDiscount", "BundledDiscount", "SppDiscount", "DistributorDiscount"}
    | {"RiVolumeDiscount", "Discount"}
)


def read_cur(part: Part, period: Period, out: ExportedCost, names: CurColumns) -> None:
    at = {name: i for i, name in enumerate(part.header)}
    tag_at, map_at = at.get(names.tag_column), at.get(names.tag_map) if names.tag_map else None
    if tag_at is None and map_at is None:
        looked = [names.tag_column, f"{names.tag_map} (a map with the key {TAG_KEYS[2]})"] if names.tag_map else []
        raise no_tag_column(part, looked or [LEGACY_CUR.tag_column, SNAKE_CUR.tag_column, "resource_tags"])
    start_at = at.get(names.start)
    if start_at is None:
        raise CostExportError(f"{part.name}, line 1: no {names.start} column: the lines cannot be placed in the period")
    end_at, type_at = at.get(names.end), at.get(names.line_type)
    if amortized(out.basis) and type_at is None:
        _note_once(
            out,
            f"{part.name} has no {names.line_type} column: Savings Plans and Reserved Instance lines cannot be told "
            "from usage, so every line counts at its unblended cost (an export from AWS has the column)",
        )
    cost_at, period_names = at[names.unblended], (names.start, names.end)
    product_at, usage_type_at = at.get(names.instance_type), at.get(names.usage_type)
    currency_at, split_at = at.get(names.currency), at.get(names.split_parent) if names.split_parent else None
    quantity_at, unit_at = at.get(names.usage_amount), at.get(names.pricing_unit)
    id_at, interval_at = at.get(names.line_id), at.get(names.time_interval)
    billing_at = (at.get(names.billing_start), at.get(names.billing_end))
    account_at = at.get(names.usage_account)
    region_at = next((at[name] for name in names.regions if name in at), None)
    note_unplaced(out, part.name, account_at is None, region_at is None, names.usage_account, names.regions[0])
    cluster_of = cluster_tag_reader(at, names.tag_map, part.name) if out.place and out.place.cluster else None

    def cost(row: Sequence[Any], line_type: str, where: str) -> tuple[Decimal, Decimal]:
        return _cur_line_cost(row, line_type, out.basis, names, cost_at, where, column)

    column = _column_reader(at, type_at, out.basis)
    placed = ChargePeriods(start_at, end_at, period_names, period)

    for where, row in part.rows:
        out.lines_read += 1
        billed = billing_period_of(out, row, billing_at, where)
        out.note_charge_end(row, placed, where)
        shared = _cur_line_shared(row, tag_at, map_at, names, where)
        line_type = str(row[type_at] or "").strip() if type_at is not None else ""
        split = shared and split_at is not None and bool(str(row[split_at] or "").strip())
        used_at = (
            out.used_elsewhere(
                row[account_at] if account_at is not None else None,
                row[region_at] if region_at is not None else None,
                cluster_of(row, where) if cluster_of else None,
            )
            if shared and not split
            else None
        )
        if not shared or split or used_at:
            # Another workload's line, a pod's share of a node whose own line counts, or a line of
            # another account or Region: in the export's total of the period, not in the statement.
            in_period = placed(row, where)[2]
            reason = "untagged" if not shared else ("split" if split else "elsewhere")
            _leave_out(out, reason, line_type, in_period, partial(cost, row, line_type, where),
                       partial(money_of, row[cost_at], names.unblended, where), used_at)  # fmt: skip
            continue
        start, end, fraction = placed(row, where)
        if not fraction:
            if is_a_correction(billed, start, end, period):
                out.note_correction(cost(row, line_type, where)[0], where)
            continue
        if line_type in DISCOUNT_LINE_TYPES and not net(out.basis):
            out.discount_lines_left += 1
            out.discount_lines_left_amount += money_of(row[cost_at], names.unblended, where) * fraction
            continue
        amount, gross_or_line = cost(row, line_type, where)
        identity = (row[id_at], row[interval_at]) if id_at is not None and interval_at is not None else None
        out.note_line(row, part.name, where, identity)
        if currency_at is not None:
            out.note_currency(row[currency_at], where)
        itype = instance_type_of(
            row[product_at] if product_at is not None else None,
            row[usage_type_at] if usage_type_at is not None else None,
        )
        add_line(out, amount, fraction, start, end, itype, gross_or_line, _cur_kind(line_type))
        if line_type in DISCOUNT_LINE_TYPES:
            add_to_sums(out._discount_line_sums, amount * fraction, start, end, itype, _cur_kind(line_type))
        _note_discount(out, line_type, amount, gross_or_line, fraction)
        if line_type in _RUNNING_TYPES and quantity_at is not None:
            unit = row[unit_at] if unit_at is not None else None
            note_instance_hours(out, itype, row[quantity_at], unit, start, end, fraction, where)


def _column_reader(at: dict[str, int], type_at: int | None, basis: str) -> Callable[..., Any]:
    """A row's cell by column name: "" for an optional column the export lacks; a required one
    it lacks is refused, naming the line, the column and the basis that does without it."""

    def column(row: Sequence[Any], name: str, where: str, required: bool = True) -> Any:
        index = at.get(name)
        if index is None and not required:
            return ""
        if index is None:
            raise CostExportError(
                f"{where}: a {row[type_at] if type_at is not None else ''} line, but the export has no {name} column "
                f"for its {basis} cost; give the export with it, or --cost-basis "
                f"{'net' if net(basis) else 'gross'}-unblended"
            )
        return row[index]

    return column


def _note_once(out: ExportedCost, note: str) -> None:
    if note not in out.notes:
        out.notes.append(note)


def _cur_line_cost(
    row, line_type: str, basis: str, names: CurColumns, cost_at: int, where: str, column
) -> tuple[Decimal, Decimal]:
    """A CUR line's cost on the basis, and its cost with discounts counted as lines (its gross
    cost, or a discount line's amount)."""
    if line_type in DISCOUNT_LINE_TYPES:
        amount = money_of(row[cost_at], names.unblended, where) if net(basis) else Decimal(0)
        return amount, amount
    gross = _cur_gross(row, line_type, amortized(basis), names, cost_at, where, column)
    if not net(basis):
        return gross, gross
    return _cur_net(row, line_type, amortized(basis), gross, names, cost_at, where, column), gross


#: Line item types whose usage amount is a node's running hours (not its negation or a credit).
_RUNNING_TYPES = frozenset({"Usage", "SavingsPlanCoveredUsage", "DiscountedUsage", ""})


#: Units of instance-hours as the exports write them (CUR `pricing/unit` "Hrs"; FOCUS "Hours").
_HOUR_UNITS = frozenset({"hrs", "hr", "hours", "hour", "instance-hours", "instance hours"})


def note_instance_hours(
    out: ExportedCost, itype: str | None, quantity: Any, unit: Any, start: datetime, end: datetime | None,
    fraction: Decimal, where: str,
) -> None:  # fmt: skip
    """A used line's instance-hours of a HyperPod instance type: its usage amount when its unit is
    hours (or the export says no unit), in the period's part of it."""
    if not itype or quantity in (None, "") or (unit not in (None, "") and str(unit).strip().lower() not in _HOUR_UNITS):
        return
    hours = money_of(quantity, "usage amount", where) * fraction
    if hours <= 0:
        return
    out.billed_hours[itype] += hours
    if end is None or end - start <= timedelta(days=1):
        out.billed_hours_by_day[(start.date(), itype)] += hours


_CUR_KINDS = {
    **dict.fromkeys(("Usage", "SavingsPlanCoveredUsage", "SavingsPlanNegation", "DiscountedUsage", ""), KIND_USAGE),
    **dict.fromkeys(_COMMITMENT_FEES, KIND_COMMITMENT),
    **dict.fromkeys(DISCOUNT_LINE_TYPES, KIND_DISCOUNTS),
    **dict.fromkeys(("Credit", "Refund"), KIND_CREDITS),
    "Tax": KIND_TAX,
}


def _cur_kind(line_type: str) -> str:
    return _CUR_KINDS.get(line_type, KIND_OTHER)


def _leave_out(
    out: ExportedCost,
    reason: str,
    line_type: str,
    in_period: Decimal,
    cost: Callable[[], tuple[Decimal, Decimal]],
    unblended: Callable[[], Decimal],
    used_at: tuple[str, str] | None = None,
) -> None:
    """A line that is not the statement's, another workload's (`reason` "untagged"), a split row
    ("split") or another account's or Region's ("elsewhere", used at `used_at`), counted for the
    notes and the reconciliation: at its cost on the basis, or unblended where the export lacks a
    column of the basis (the statement does not need it, so neither does this line)."""
    if reason == "split":
        out.split_rows += 1
    elif reason == "untagged":
        _note_untagged(out, line_type, in_period)
    if not in_period:
        return
    try:
        amount = cost()[0]
    except CostExportError:
        amount = unblended()
        out.left_out_unblended += 1
    if used_at is not None:
        out.note_elsewhere(used_at, amount * in_period)
    elif reason == "split":
        out.split_amount += amount * in_period
    else:
        out.untagged_amount += amount * in_period
        if line_type in DISCOUNT_LINE_TYPES:
            out.untagged_discount_amount += amount * in_period


def note_unplaced(out: ExportedCost, part: str, no_account: bool, no_region: bool, account: str, region: str) -> None:
    """An export without the usage account's or the Region's column: its lines cannot be told from
    other accounts' or Regions' (a payer's export covers every linked account); said once."""
    if out.place is None or not (no_account or no_region):
        return
    missing = [name for name, gone in ((account, no_account), (region, no_region)) if gone]
    _note_once(
        out,
        f"{part} has no {' and '.join(missing)} column: its tagged lines count whatever account or Region used "
        f"them (an export of the payer account covers every linked account; AWS's exports have the "
        f"column{'s' if len(missing) > 1 else ''})",
    )


def _note_untagged(out: ExportedCost, line_type: str, in_period: Decimal) -> None:
    """A commitment fee or discount line without the platform tag: counted for the notes."""
    if not in_period:
        return
    out.untagged_lines += 1
    if line_type in _COMMITMENT_FEES:
        out.untagged_commitment_lines += 1
    elif line_type in DISCOUNT_LINE_TYPES and net(out.basis):
        out.untagged_discount_lines += 1


def _note_discount(out: ExportedCost, line_type: str, amount: Decimal, gross: Decimal, fraction: Decimal) -> None:
    """The discount a used line brings: a discount line's amount, or its net less its gross."""
    if line_type in DISCOUNT_LINE_TYPES:
        out.discount_lines += 1
        out.discount_lines_amount += amount * fraction
    elif net(out.basis):
        out.discounts += (amount - gross) * fraction


def _cur_line_shared(row: Sequence[Any], tag_at: int | None, map_at: int | None, names: CurColumns, where: str) -> bool:
    """Whether a CUR line carries the platform tag's value `shared`: its own column, or the map."""
    if tag_at is not None:
        return row[tag_at] == naming.PLATFORM_SHARED or str(row[tag_at] or "").strip() == naming.PLATFORM_SHARED
    assert map_at is not None
    return map_says_shared(row[map_at], names.tag_map or "", where)


def _cur_gross(row, line_type: str, amortize: bool, names: CurColumns, cost_at: int, where: str, column) -> Decimal:
    """A CUR line's cost before discounts: FOCUS's EffectiveCost rules for AWS when amortized (the
    FinOps Foundation's converter, effective_cost_S001.yaml), the unblended cost otherwise."""
    unblended = money_of(row[cost_at], names.unblended, where)
    if not amortize:
        return unblended
    if line_type == "SavingsPlanCoveredUsage":
        return money_of(column(row, names.sp_effective, where), names.sp_effective, where)
    if line_type in ("SavingsPlanNegation", "SavingsPlanUpfrontFee"):
        return Decimal(0)
    if line_type == "SavingsPlanRecurringFee":
        committed = money_of(column(row, names.sp_commitment_to_date, where), names.sp_commitment_to_date, where)
        used = money_of(column(row, names.sp_used_commitment, where), names.sp_used_commitment, where)
        return committed - used
    if line_type == "DiscountedUsage":
        return money_of(column(row, names.ri_effective, where), names.ri_effective, where)
    if line_type == "RIFee":
        upfront = money_of(column(row, names.ri_unused_upfront, where), names.ri_unused_upfront, where)
        recurring = money_of(column(row, names.ri_unused_recurring, where), names.ri_unused_recurring, where)
        return upfront + recurring
    # A CUR of an account without Reserved Instances has no ARN column: no Fee line is an RI's.
    if line_type == "Fee" and str(column(row, names.ri_arn, where, False) or "").strip():
        return Decimal(0)  # a Reserved Instance's upfront payment, amortized over its usage
    return unblended


def _cur_net(
    row, line_type: str, amortize: bool, gross: Decimal, names: CurColumns, cost_at: int, where: str, column
) -> Decimal:
    """A CUR line's cost after every discount: the export's net column for the line, where the
    account had a discount in the billing period (AWS writes the Net columns only then); else the
    gross cost plus the line's discounts (CUR 2.0 `discount_total_discount`, or its `discount`
    map); else the gross cost (no discount). A covered line's discounts are on its effective cost:
    unblended, its usage and its negation cancel.

    A Savings Plan's recurring fee has no net column for its unused part: it is the gross unused
    commitment times the plan's net over gross commitment for the billing period (e.g. 3,000.00
    unused of a 43,000.00 fee whose net is 40,850.00: 3,000.00 x 40,850 / 43,000 = 2,850.00)."""

    def cell(name: str) -> Decimal | None:
        value = column(row, name, where, False) if name else ""
        return None if value is None or str(value).strip() == "" else money_of(value, name, where)

    def net_or_discounted(name: str) -> Decimal:
        value = cell(name)
        return gross + _line_discount(row, names, where, column) if value is None else value

    if not amortize or line_type not in _AMORTIZED_TYPES:
        if amortize and line_type == "Fee" and str(column(row, names.ri_arn, where, False) or "").strip():
            return Decimal(0)
        value = cell(names.net_unblended)
        if value is not None:
            return value
        if line_type in ("SavingsPlanCoveredUsage", "DiscountedUsage"):
            return gross  # its discount is on its effective cost; unblended, usage and negation cancel
        return gross + _line_discount(row, names, where, column)
    if line_type == "SavingsPlanCoveredUsage":
        return net_or_discounted(names.sp_net_effective)
    if line_type == "DiscountedUsage":
        return net_or_discounted(names.ri_net_effective)
    if line_type == "RIFee":
        upfront, recurring = cell(names.ri_net_unused_upfront), cell(names.ri_net_unused_recurring)
        if upfront is None and recurring is None:
            return gross
        return (upfront or Decimal(0)) + (recurring or Decimal(0))
    if line_type == "SavingsPlanRecurringFee":
        net_fee = [cell(names.sp_net_upfront_commitment), cell(names.sp_net_recurring_commitment)]
        fee = [cell(names.sp_upfront_commitment), cell(names.sp_recurring_commitment)]
        if all(v is None for v in net_fee) or not sum(v or 0 for v in fee):
            return gross
        with localcontext() as context:
            context.prec = 40
            return gross * sum(v or 0 for v in net_fee) / sum(v or 0 for v in fee)
    return gross  # the negation and upfront fee of a Savings Plan: 0 either way


#: Lines whose amortized cost is not their unblended cost (see _cur_gross).
_AMORTIZED_TYPES = frozenset(
    {"SavingsPlanCoveredUsage", "SavingsPlanNegation", "SavingsPlanUpfrontFee", "SavingsPlanRecurringFee"}
    | {"DiscountedUsage", "RIFee"}
)


def _line_discount(row, names: CurColumns, where: str, column) -> Decimal:
    """The discounts on one line (negative): its total column, else the sum of its map."""
    total = column(row, names.discount_total, where, False) if names.discount_total else ""
    if total is not None and str(total).strip() != "":
        return money_of(total, names.discount_total, where)
    if names.discount_map:
        return discount_of_map(column(row, names.discount_map, where, False), names.discount_map, where)
    return Decimal(0)


def discount_of_map(cell: Any, column: str, where: str) -> Decimal:
    """The total of a map of discounts (CUR 2.0 `discount`, FOCUS `x_Discounts`): its
    `total_discount` key where it has one, else the sum of its amounts (keys of text are not
    amounts: the map may hold e.g. a discount's name)."""
    discounts = tags_of(cell, column, where)
    if "total_discount" in discounts:
        return money_of(discounts["total_discount"], f"{column}.total_discount", where)
    total = Decimal(0)
    for key, value in discounts.items():
        if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
            total += money_of(value, f"{column}.{key}", where)
        elif isinstance(value, str):
            try:
                total += money_of(value, f"{column}.{key}", where)
            except CostExportError:
                continue
    return total
