"""Cost allocation constructs: tag activation and the team cost category (payer account), and a
team's monthly budget."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import bindings, cost, naming
from hyperpod_teams.spec.clusters import SeveralClusters, organization_of
from hyperpod_teams.spec.models import Organization, PlatformSpec, Team


class CostAllocation(Construct):
    """Activates the cost allocation tags and groups spend by team in one cost category
    (`cost.cost_category_definition`)."""

    def __init__(self, scope: Construct, id_: str, *, spec: PlatformSpec | SeveralClusters) -> None:
        """`spec` of several clusters: the cost category over every cluster, and the cluster tag,
        which tells each cluster's shared spend apart, activated too."""
        super().__init__(scope, id_)
        ce_tag = bindings.aws_ce_cost_allocation_tag
        several = isinstance(spec, SeveralClusters)
        keys = (*cost.COST_ALLOCATION_TAG_KEYS, naming.TAG_CLUSTER) if several else cost.COST_ALLOCATION_TAG_KEYS
        self.tags = [
            ce_tag.CeCostAllocationTag(self, f"tag-{key.replace(':', '-')}", tag_key=key, status="Active")
            for key in keys
        ]
        definition = cost.cost_category_definition(spec)
        organization = organization_of(spec)
        category = bindings.aws_ce_cost_category
        self.category = category.CeCostCategory(
            self,
            "team-category",
            name=naming.cost_category_name(organization.organization.name),
            rule_version=definition["RuleVersion"],
            default_value=definition["DefaultValue"],
            rule=[_rule(rule) for rule in definition["Rules"]],
            split_charge_rule=[_split_charge_rule(rule) for rule in definition["SplitChargeRules"]],
        )


def _rule(rule: dict):
    """A cost category rule of `cost.cost_category_definition`: spend carrying every tag of its
    `And` is its `Value`."""
    category = bindings.aws_ce_cost_category
    return category.CeCostCategoryRule(
        value=rule["Value"],
        type=rule["Type"],
        rule=category.CeCostCategoryRuleRule(
            and_=[
                category.CeCostCategoryRuleRuleAnd(
                    tags=category.CeCostCategoryRuleRuleAndTags(
                        key=condition["Tags"]["Key"],
                        values=condition["Tags"]["Values"],
                        match_options=condition["Tags"]["MatchOptions"],
                    )
                )
                for condition in rule["Rule"]["And"]
            ]
        ),
    )


def _split_charge_rule(rule: dict):
    """A split charge rule of `cost.cost_category_definition`, its `Values` in the order the
    provider sends `Targets` (cost.provider_set_order): Terraform keeps `targets` as a set and
    `values` as a list."""
    category = bindings.aws_ce_cost_category
    parameters = [
        category.CeCostCategorySplitChargeRuleParameter(type=p["Type"], values=p["Values"])
        for p in rule.get("Parameters", [])
    ]
    return category.CeCostCategorySplitChargeRule(
        source=rule["Source"], targets=rule["Targets"], method=rule["Method"], parameter=parameters or None
    )


class TeamBudget(Construct):
    """A monthly cost budget over the team's tagged spend, one e-mail notification per threshold."""

    def __init__(self, scope: Construct, id_: str, *, organization: Organization, team: Team) -> None:
        super().__init__(scope, id_)
        assert team.budget is not None, "TeamBudget needs a team with a budget"
        budget = team.budget
        budgets = bindings.aws_budgets_budget
        self.budget = budgets.BudgetsBudget(
            self,
            "monthly",
            name=naming.team_budget_name(organization.name, team.name),
            account_id=organization.account_id,
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
