"""Cost allocation per team, as plain data: which tags attribute spend, the cost category that
groups it by team, and each team's budget filter. Pure layer: the constructs and the report
both read it from here.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from hyperpod_teams import instance_types, naming
from hyperpod_teams import instance_worth as worth
from hyperpod_teams.spec.clusters import SeveralClusters
from hyperpod_teams.spec.models import PlatformSpec, Team

#: Tag keys activated for cost allocation in the payer account.
COST_ALLOCATION_TAG_KEYS = (naming.TAG_ORGANIZATION, naming.TAG_TEAM, naming.TAG_COST_CENTER, naming.TAG_PLATFORM)

#: Cost category value of spend that carries no team tag of this organization.
UNATTRIBUTED = naming.COST_CATEGORY_DEFAULT_VALUE

#: Billing prefixes user-defined cost allocation tags with `user:` in filters.
USER_TAG_PREFIX = "user:"


@dataclass(frozen=True)
class CostCategoryRule:
    """Spend tagged with this organization and team goes to `value`."""

    value: str
    organization: str
    team: str


def cost_category_rules(spec: PlatformSpec) -> list[CostCategoryRule]:
    return _rules_of(spec.organization.name, [team.name for team in spec.teams])


def _rules_of(organization: str, teams: Iterable[str]) -> list[CostCategoryRule]:
    return [CostCategoryRule(value=team, organization=organization, team=team) for team in teams]


#: The cost category expression grammar the rules are written in.
COST_CATEGORY_RULE_VERSION = "CostCategoryExpression.v1"


def cost_category_definition(spec: PlatformSpec | SeveralClusters) -> dict:
    """The team cost category's whole definition, in the shape of the Cost Explorer API's
    UpdateCostCategoryDefinition (what the stacks' `aws_ce_cost_category` is built from, and what
    the runbook writes back in one call after the AWS provider dropped part of it): one rule per
    team (spend carrying the organization's and the team's tag), one for the shared platform,
    spend no rule matches as UNATTRIBUTED, and the split charge rule of the shared spend. A spec of
    several clusters: `several_clusters_cost_category_definition` of its organization and views."""
    if isinstance(spec, SeveralClusters):
        organization = spec.organization_view
        teams = [team.name for team in organization.teams]
        return several_clusters_cost_category_definition(organization.organization.name, teams, spec.views)
    rules = [*_team_rules(cost_category_rules(spec)), _shared_rule(SHARED_PLATFORM, spec.organization.name)]
    return _definition(rules, [_split_rule(SHARED_PLATFORM, shared_split(spec))])


def several_clusters_cost_category_definition(
    organization: str, teams: list[str], views: dict[str, PlatformSpec]
) -> dict:
    """The cost category of an organization of several clusters (#61; `views`: each cluster's
    one-cluster view, spec.clusters.cluster_view): a rule per team over every cluster, and per
    cluster its shared platform's spend (the cluster's tag TAG_CLUSTER with the shared-platform
    tag) as a value of its own, `naming.cluster_shared_cost_value`, split by a split charge rule of
    its own across the teams placed on it, by that cluster's quotas. The Cost Explorer API takes at
    most 10 split charge rules and 500 rules in a cost category: the spec takes at most 10 clusters,
    and teams and clusters together at most 500 (spec.clusters)."""
    rules = _team_rules(_rules_of(organization, teams))
    splits = []
    for cluster, view in views.items():
        source = naming.cluster_shared_cost_value(cluster)
        rules.append(_shared_rule(source, organization, cluster))
        splits.append(_split_rule(source, shared_split(view)))
    return _definition(rules, splits)


def _all_tags(value: str, tags: dict[str, str]) -> dict:
    conditions = [{"Tags": {"Key": k, "Values": [v], "MatchOptions": ["EQUALS"]}} for k, v in tags.items()]
    return {"Value": value, "Type": "REGULAR", "Rule": {"And": conditions}}


def _team_rules(rules: Iterable[CostCategoryRule]) -> list[dict]:
    """A rule per team: spend carrying the organization's and the team's tag."""
    return [
        _all_tags(rule.value, {naming.TAG_ORGANIZATION: rule.organization, naming.TAG_TEAM: rule.team})
        for rule in rules
    ]


def _shared_rule(value: str, organization: str, cluster: str | None = None) -> dict:
    """The shared platform's spend (of one cluster's, with several), before a split charge rule
    divides it."""
    tags = {naming.TAG_ORGANIZATION: organization, naming.TAG_PLATFORM: naming.PLATFORM_SHARED}
    return _all_tags(value, {**tags, naming.TAG_CLUSTER: cluster} if cluster else tags)


def _split_rule(source: str, split: SharedSplit) -> dict:
    # AWS pairs Targets[i] with Values[i]. The provider sends `targets` (a set) in its own order and
    # `values` (a list) as written: both are written here in the provider's order, so the pairs AWS
    # receives are the spec's (the runbook's one-call repair writes the same pairs).
    targets = provider_set_order(split.targets)
    rule: dict = {"Source": source, "Targets": list(targets), "Method": split.method}
    if split.method == "FIXED":
        rule["Parameters"] = [
            {"Type": "ALLOCATION_PERCENTAGES", "Values": [str(split.percentages[t]) for t in targets]}
        ]
    return rule


def _definition(rules: list[dict], splits: list[dict]) -> dict:
    return {
        "RuleVersion": COST_CATEGORY_RULE_VERSION,
        "Rules": rules,
        "DefaultValue": UNATTRIBUTED,
        "SplitChargeRules": splits,
    }


def provider_set_order(items: Iterable[str]) -> tuple[str, ...]:
    """The order in which the AWS provider sends a set of strings to AWS.

    `aws_ce_cost_category`'s `split_charge_rule.targets` is a set of strings with the default hash
    (terraform-provider-aws, internal/service/ce/cost_category.go: `schema.TypeSet`, no `Set`
    function), and the request takes the set's `List()` (`flex.ExpandStringValueSet`).
    terraform-plugin-sdk v2 (helper/schema/set.go, serialize.go) hashes a string as the CRC-32
    (IEEE) of the string followed by ";" and lists a set sorted by the decimal text of those hash
    codes. `parameter.values` is a list, sent as written, and AWS pairs `Targets[i]` with
    `Values[i]`: the values must follow this order, not the spec's. The real provider binary's
    requests hold this order to account (tests/test_cost_category_requests.py).
    """
    return tuple(sorted(items, key=lambda item: str(zlib.crc32(f"{item};".encode()))))


def budget_tag_filter(team: Team) -> str:
    """The budget's TagKeyValue filter: `user:<key>$<value>`, as the Budgets API wants it."""
    return f"{USER_TAG_PREFIX}{naming.TAG_TEAM}${team.name}"


def budget_limit_amount(monthly_limit_usd: float) -> str:
    """Whole dollars stay whole ("25000"), cents stay exact ("99.5"): no float noise in the plan."""
    amount = Decimal(str(monthly_limit_usd)).normalize()
    return format(amount, "f")


# --- the shared platform's spend, split across the teams ---------------------------------------

#: Cost category value of the shared platform's spend (resources tagged TAG_PLATFORM), which a
#: split charge rule divides across the teams.
SHARED_PLATFORM = naming.COST_CATEGORY_SHARED_VALUE
#: Cost category split charge method per `cost.shared_split`.
SPLIT_METHODS = {"quota": "FIXED", "proportional": "PROPORTIONAL", "even": "EVEN"}
#: The API's limits (Billing and Cost Management API reference, CostCategorySplitChargeRule and
#: CostCategorySplitChargeRuleParameter): targets and parameter values, 1 to 500 each.
MAX_SPLIT_TARGETS = 500
#: Percentages are written with two decimals; the rounding rule makes them sum to exactly 100.
PERCENT_PLACES = Decimal("0.01")

#: Accelerators per HyperPod instance type (GPUs; Trainium or Inferentia devices), what an instance
#: is worth in the quota split unless `cost.instance_prices_usd` prices it: AWS's own figures
#: (hyperpod_teams/instance_types.json names them). A type without accelerators is not in it.
ACCELERATORS_PER_INSTANCE: dict[str, int] = instance_types.ACCELERATORS_PER_INSTANCE


#: Instance families whose usage the chargeback measures in vCPU hours (chargeback/usage.py).
CPU_FAMILIES = frozenset({"c5", "c5n", "c6i", "c6in", "c7i", "m5", "m6i", "m7i", "r5", "r6i", "r7i", "t3"})


#: The weighing of an instance type (instance_worth.py), as this module has always offered it.
worth_is_known = worth.worth_is_known
instance_worth = worth.instance_worth


def guaranteed_weights(spec: PlatformSpec) -> dict[str, Decimal]:
    """Each team's guaranteed capacity, weighted: sum over its quota of count x worth."""
    return team_weights(spec.teams, dict(spec.cost.instance_prices_usd))


def team_weights(teams: Iterable[Team], prices: dict[str, float]) -> dict[str, Decimal]:
    """guaranteed_weights of these teams (validate calls it on the teams that are valid)."""
    return {team.name: worth.quota_worth(_quota(team), prices) for team in teams}


def _quota(team: Team) -> list[tuple[str, Decimal]]:
    """The team's quota in instances: a team with half a p5's GPUs weighs half a p5."""
    return [(entry.instance_type, entry.instances) for entry in team.compute.quota]


def split_percentages(weights: dict[str, Decimal]) -> dict[str, Decimal]:
    """Percentages with two decimals, proportional to the weights, summing to exactly 100.

    The rounding rule (largest remainder): each share is cut to 0.01, then the hundredths still
    missing go one each to the shares that lost most in the cut, ties to the team named first in
    alphabetical order. A team of weight 0 gets nothing and is left out.
    """
    positive = {team: weight for team, weight in weights.items() if weight > 0}
    total = sum(positive.values(), Decimal(0))
    if not positive:
        return {}
    exact = {team: weight * 100 / total for team, weight in positive.items()}
    floored = {team: share.quantize(PERCENT_PLACES, rounding="ROUND_DOWN") for team, share in exact.items()}
    missing = int((Decimal(100) - sum(floored.values(), Decimal(0))) / PERCENT_PLACES)
    by_loss = sorted(exact, key=lambda team: (-(exact[team] - floored[team]), team))
    for team in by_loss[:missing]:
        floored[team] += PERCENT_PLACES
    return dict(sorted(floored.items()))


@dataclass(frozen=True)
class SharedSplit:
    """The split charge rule: the shared platform's spend across `targets` by `method`."""

    method: str
    targets: tuple[str, ...]
    percentages: dict[str, Decimal]
    #: Why the default quota split gave way to a proportional one, when it did.
    fallback: str | None = None


def quota_split_problem(teams: list[Team], prices: dict[str, float]) -> str | None:
    """Why the quota split cannot be computed for these teams, or None when it can."""
    return worth.quota_split_problem([_quota(team) for team in teams], prices)


def shared_split(spec: PlatformSpec) -> SharedSplit:
    """The split of the shared platform's spend across the teams.

    A spec that chose `shared_split: quota` must allow it (validate says so otherwise); one that
    left the default gets a proportional split where the quota split cannot be computed, so a
    spec valid before the cost section stays valid."""
    choice = spec.cost.shared_split
    every_team = tuple(sorted(t.name for t in spec.teams))
    if choice == "quota":
        problem = quota_split_problem(spec.teams, dict(spec.cost.instance_prices_usd))
        if problem is None:
            percentages = split_percentages(guaranteed_weights(spec))
            return SharedSplit("FIXED", tuple(percentages), percentages)
        return SharedSplit("PROPORTIONAL", every_team, {}, fallback=problem)
    return SharedSplit(SPLIT_METHODS[choice], every_team, {})
