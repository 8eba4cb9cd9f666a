"""Cost allocation constructs: tag activation and the team cost category (payer account), and a
team's monthly budget."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import bindings, cost, naming
from hyperpod_teams.spec.models import PlatformSpec, Team

#: The cost category expression grammar the rules are written in.
COST_CATEGORY_RULE_VERSION = "CostCategoryExpression.v1"


class CostAllocation(Construct):
    """Activates the cost allocation tags and groups spend by team in one cost category."""

    def __init__(self, scope: Construct, id_: str, *, spec: PlatformSpec) -> None:
        super().__init__(scope, id_)
        ce_tag = bindings.aws_ce_cost_allocation_tag
        self.tags = [
            ce_tag.CeCostAllocationTag(self, f"tag-{key.replace(':', '-')}", tag_key=key, status="Active")
            for key in cost.COST_ALLOCATION_TAG_KEYS
        ]
        category = bindings.aws_ce_cost_category
        self.category = category.CeCostCategory(
            self,
            "team-category",
            name=naming.cost_category_name(spec.organization.name),
            rule_version=COST_CATEGORY_RULE_VERSION,
            default_value=cost.UNATTRIBUTED,
            rule=[
                *(
                    _all_tags_rule(rule.value, {naming.TAG_ORGANIZATION: rule.organization, naming.TAG_TEAM: rule.team})
                    for rule in cost.cost_category_rules(spec)
                ),
                # The shared platform's spend, before the split charge rule divides it.
                _all_tags_rule(
                    cost.SHARED_PLATFORM,
                    {naming.TAG_ORGANIZATION: spec.organization.name, naming.TAG_PLATFORM: naming.PLATFORM_SHARED},
                ),
            ],
            split_charge_rule=_split_charge_rules(spec),
        )


def _all_tags_rule(value: str, tags: dict[str, str]):
    """A cost category rule: spend carrying every one of `tags` (in this order) is `value`."""
    category = bindings.aws_ce_cost_category
    return category.CeCostCategoryRule(
        value=value,
        type="REGULAR",
        rule=category.CeCostCategoryRuleRule(
            and_=[
                category.CeCostCategoryRuleRuleAnd(
                    tags=category.CeCostCategoryRuleRuleAndTags(key=key, values=[tag], match_options=["EQUALS"])
                )
                for key, tag in tags.items()
            ]
        ),
    )


def _split_charge_rules(spec: PlatformSpec) -> list:
    """The shared platform's spend across the teams, by the spec's method (cost.shared_split)."""
    split = cost.shared_split(spec)
    category = bindings.aws_ce_cost_category
    parameters = None
    if split.method == "FIXED":
        parameters = [
            category.CeCostCategorySplitChargeRuleParameter(
                type="ALLOCATION_PERCENTAGES", values=[str(split.percentages[t]) for t in split.targets]
            )
        ]
    return [
        category.CeCostCategorySplitChargeRule(
            source=cost.SHARED_PLATFORM, targets=list(split.targets), method=split.method, parameter=parameters
        )
    ]


class TeamBudget(Construct):
    """A monthly cost budget over the team's tagged spend, one e-mail notification per threshold."""

    def __init__(self, scope: Construct, id_: str, *, spec: PlatformSpec, team: Team) -> None:
        super().__init__(scope, id_)
        assert team.budget is not None, "TeamBudget needs a team with a budget"
        budget = team.budget
        budgets = bindings.aws_budgets_budget
        self.budget = budgets.BudgetsBudget(
            self,
            "monthly",
            name=naming.team_budget_name(spec.organization.name, team.name),
            account_id=spec.organization.account_id,
            budget_type="COST",
            time_unit="MONTHLY",
            limit_amount=cost.budget_limit_amount(budget.monthly_limit_usd),
            limit_unit="USD",
            cost_filter=[budgets.BudgetsBudgetCostFilter(name="TagKeyValue", values=[cost.budget_tag_filter(team)])],
            notification=[
                budgets.BudgetsBudgetNotification(
                    comparison_operator="GREATER_THAN",
                    notification_type="ACTUAL",
                    threshold=threshold,
                    threshold_type="PERCENTAGE",
                    subscriber_email_addresses=list(budget.notify_emails),
                )
                for threshold in budget.thresholds_percent
            ],
        )
