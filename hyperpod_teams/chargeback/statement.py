"""What a statement holds: each team's charge for the period with the hours behind it, each instance
type's use, and the reconciliation's lines.

Pure layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from functools import cached_property

from hyperpod_teams import cost as cost_rules
from hyperpod_teams.chargeback.basis import DEFAULT_CURRENCY

CENT = Decimal("0.01")


class ChargebackError(ValueError):
    """Input the statement cannot be computed from; the message names the file, line or field."""


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
