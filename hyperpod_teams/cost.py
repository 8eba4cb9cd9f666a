"""Cost allocation per team, as plain data: which tags attribute spend, the cost category that
groups it by team, and each team's budget filter. Pure layer: the constructs and the report
both read it from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from hyperpod_teams import naming
from hyperpod_teams.spec.models import PlatformSpec, Team

#: Tag keys activated for cost allocation in the payer account.
COST_ALLOCATION_TAG_KEYS = (naming.TAG_ORGANIZATION, naming.TAG_TEAM, naming.TAG_COST_CENTER)

#: Cost category value of spend that carries no team tag of this organization.
UNATTRIBUTED = "unattributed"

#: Billing prefixes user-defined cost allocation tags with `user:` in filters.
USER_TAG_PREFIX = "user:"


@dataclass(frozen=True)
class CostCategoryRule:
    """Spend tagged with this organization and team goes to `value`."""

    value: str
    organization: str
    team: str


def cost_category_rules(spec: PlatformSpec) -> list[CostCategoryRule]:
    org = spec.organization.name
    return [CostCategoryRule(value=team.name, organization=org, team=team.name) for team in spec.teams]


def budget_tag_filter(team: Team) -> str:
    """The budget's TagKeyValue filter: `user:<key>$<value>`, as the Budgets API wants it."""
    return f"{USER_TAG_PREFIX}{naming.TAG_TEAM}${team.name}"


def budget_limit_amount(monthly_limit_usd: float) -> str:
    """Whole dollars stay whole ("25000"), cents stay exact ("99.5"): no float noise in the plan."""
    amount = Decimal(str(monthly_limit_usd)).normalize()
    return format(amount, "f")
