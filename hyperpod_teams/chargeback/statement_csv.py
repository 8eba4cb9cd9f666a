"""The statement as CSV for a finance system (a row per team), and its metadata beside it (FILE.json).

Pure layer.
"""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal

from hyperpod_teams.chargeback.statement import Statement
from hyperpod_teams.document import (
    spreadsheet_text,
)

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
