"""A Cost Explorer download filtered to the shared platform: one total per month, prorated to the
period.

Pure layer.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from hyperpod_teams.chargeback.basis import CostExportError, Period
from hyperpod_teams.chargeback.export_cells import money_of
from hyperpod_teams.chargeback.export_columns import COST_EXPLORER_TOTAL
from hyperpod_teams.chargeback.export_files import Part
from hyperpod_teams.chargeback.exported_cost import ExportedCost


def read_cost_explorer(part: Part, period: Period, out: ExportedCost) -> None:
    total_at = part.header.index(COST_EXPLORER_TOTAL)
    out.note_currency("USD", f"{part.name}, line 1 ({COST_EXPLORER_TOTAL!r})")
    days: dict[date, Decimal] = {}
    for where, row in part.rows:
        out.lines_read += 1
        label = str(row[0]).strip()
        if label.lower().endswith(" total"):
            continue
        try:
            day = date.fromisoformat(label)
        except ValueError:
            raise CostExportError(f"{where}: {label!r} is neither a date nor the total row") from None
        if day in days:
            raise CostExportError(f"{where}: a second row for {day}")
        days[day] = money_of(row[total_at], COST_EXPLORER_TOTAL, where)
    if not days:
        raise CostExportError(f"{part.name}: no row of a day or month")
    ordered = sorted(days)
    one_day = period.first_day == period.last_day
    monthly = all(d.day == 1 for d in ordered) and not (one_day and ordered == [period.first_day])
    monthly = monthly and (
        len(ordered) == 1 or any((b - a).days > 1 for a, b in zip(ordered, ordered[1:], strict=False))
    )
    if monthly:
        months = _months_between(period)
        whole = period.first_day.day == 1 and (period.last_day + timedelta(days=1)).day == 1
        if not whole or any(date(y, m, 1) not in days for y, m in months):
            raise CostExportError(
                f"{part.name}: a monthly Cost Explorer download (one row per month) cannot be divided to the "
                f"statement's {period.first_day} to {period.last_day}: download it with daily granularity for those "
                "days"
            )
        for y, m in months:
            out.amount += days[date(y, m, 1)]
            out.lines_used += 1
        return
    every_day = (period.first_day + timedelta(days=n) for n in range((period.last_day - period.first_day).days + 1))
    missing = [d for d in every_day if d not in days]
    if missing:
        more = f" and {len(missing) - 1} more days" if len(missing) > 1 else ""
        raise CostExportError(
            f"{part.name}: no row for {missing[0]}{more} of the statement's {period.first_day} to {period.last_day}: "
            "download Cost Explorer's daily costs for those days"
        )
    for day, amount in days.items():
        if period.first_day <= day <= period.last_day:
            out.amount += amount
            out.lines_used += 1


def _months_between(period: Period) -> list[tuple[int, int]]:
    months, day = [], period.first_day
    while day <= period.last_day:
        months.append((day.year, day.month))
        day = (day.replace(day=1) + timedelta(days=32)).replace(day=1)
    return months
