"""What a statement counts of an export: the cost bases (net or gross of discounts, amortized or
unblended) and their older names, the kinds of spend, the currency when an export names none, the
error every reader raises, and the statement's period with the share of a charge inside it.

Pure layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

#: The currency of a statement whose export names none, and of --cost (AWS bills in USD by default).
DEFAULT_CURRENCY = "USD"


#: The cost bases. Net is after every discount (EDP, private rates, bundled and reseller
#: discounts), gross before them; amortized spreads Savings Plans and Reserved Instance payments
#: over the usage they cover (FOCUS EffectiveCost, when net), unblended is each line as billed
#: (FOCUS BilledCost, when net).
NET_AMORTIZED = "net-amortized"


NET_UNBLENDED = "net-unblended"


GROSS_AMORTIZED = "gross-amortized"


GROSS_UNBLENDED = "gross-unblended"


COST_BASES = (NET_AMORTIZED, NET_UNBLENDED, GROSS_AMORTIZED, GROSS_UNBLENDED)


#: The names of releases before the net bases, which mean the net ones (a statement is what is paid).
AMORTIZED, UNBLENDED = "amortized", "unblended"


BASIS_ALIASES = {AMORTIZED: NET_AMORTIZED, UNBLENDED: NET_UNBLENDED}


def cost_basis(name: str) -> str:
    """The basis a --cost-basis names (the older `amortized` and `unblended` are the net ones)."""
    basis = BASIS_ALIASES.get(name, name)
    if basis not in COST_BASES:
        raise CostExportError(f"--cost-basis {name!r}: give one of {', '.join(COST_BASES)}")
    return basis


def amortized(basis: str) -> bool:
    return basis.endswith(AMORTIZED)


def net(basis: str) -> bool:
    return basis.startswith("net-")


class CostExportError(ValueError):
    """A cost export that cannot be read as one; the message names the file, line and column."""


@dataclass(frozen=True)
class Period:
    """The statement's days as UTC instants: [start, end)."""

    first_day: date
    last_day: date

    @property
    def start(self) -> datetime:
        return datetime(self.first_day.year, self.first_day.month, self.first_day.day, tzinfo=UTC)

    @property
    def end(self) -> datetime:
        return self.start + timedelta(days=(self.last_day - self.first_day).days + 1)


def share_in_period(start: datetime, end: datetime | None, period: Period) -> Decimal:
    """The fraction of a line's charge period inside the statement's period."""
    if end is None or end <= start:
        return Decimal(1) if period.start <= start < period.end else Decimal(0)
    inside = min(end, period.end) - max(start, period.start)
    if inside <= timedelta(0):
        return Decimal(0)
    if inside == end - start:
        return Decimal(1)
    return Decimal(inside.total_seconds()) / Decimal((end - start).total_seconds())


#: The kinds of the shared platform's lines the reconciliation shows, in its order.
KIND_USAGE, KIND_COMMITMENT, KIND_DISCOUNTS = (
    "usage",
    "unused Savings Plans and Reserved Instance commitment",
    "discount lines",
)


KIND_CREDITS, KIND_TAX, KIND_OTHER = "credits and refunds", "tax", "fees and other charges"


KINDS = (KIND_USAGE, KIND_COMMITMENT, KIND_DISCOUNTS, KIND_CREDITS, KIND_TAX, KIND_OTHER)


CENT = Decimal("0.01")
