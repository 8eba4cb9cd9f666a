"""Cost allocation per team: every taggable AWS resource carries the cost tags, the cost category
sends each team's spend to the team, budgets filter on the team tag."""

from __future__ import annotations

import importlib
import inspect
import json
from functools import cache

import pytest

from hyperpod_teams import cost, naming
from hyperpod_teams.spec import load_spec, validate_spec
from tests.conftest import EXAMPLE_SPECS, QUICKSTART, synthesize_stacks

ORG_TAGS = {"hyperpod-teams:organization": "acme", "owner": "ml-platform"}


@cache
def accepts_tags(resource_type: str) -> bool:
    """Whether the AWS bindings' own config of `resource_type` has a `tags` argument."""
    module = importlib.import_module(f"cdktf_cdktf_provider_aws.{resource_type.removeprefix('aws_')}")
    (resource_class,) = [
        c for c in vars(module).values() if inspect.isclass(c) and getattr(c, "TF_RESOURCE_TYPE", None) == resource_type
    ]
    return "tags" in inspect.signature(resource_class.__init__).parameters


def effective_tags(stack: dict, resource_type: str, resource: dict) -> dict[str, str]:
    """Tags a resource ends up with: the provider's default tags plus its own."""
    if resource_type == "aws_cloudcontrolapi_resource":  # default tags do not reach Cloud Control
        return {t["Key"]: t["Value"] for t in json.loads(resource["desired_state"]).get("Tags", [])}
    (provider,) = stack["provider"]["aws"]
    defaults = provider.get("default_tags", [{}])[0].get("tags", {})
    return {**defaults, **resource.get("tags", {})}


def required_tags(spec, stack_name: str) -> dict[str, str]:
    org = spec.organization
    required = naming.organization_tags(org.name, dict(org.tags))
    for team in spec.teams:
        if stack_name == naming.team_stack_name(org.name, team.name):
            required.update(naming.team_tags(org.name, team.name, team.cost_center))
    return required


@pytest.mark.parametrize("path", EXAMPLE_SPECS, ids=lambda p: p.parent.name)
def test_every_taggable_aws_resource_carries_the_cost_tags(path, tmp_path):
    spec = load_spec(path)
    stacks = synthesize_stacks(spec, tmp_path)
    checked = 0
    for stack_name, stack in stacks.items():
        if "aws" not in stack.get("provider", {}):
            continue
        required = required_tags(spec, stack_name)
        for resource_type, resources in stack.get("resource", {}).items():
            if not resource_type.startswith("aws_"):
                continue  # terraform_data: Terraform's own, nothing is billed
            if resource_type != "aws_cloudcontrolapi_resource" and not accepts_tags(resource_type):
                continue
            for address, resource in resources.items():
                tags = effective_tags(stack, resource_type, resource)
                missing = {k: v for k, v in required.items() if tags.get(k) != v}
                assert not missing, f"{stack_name}: {resource_type}.{address} lacks {missing}"
                checked += 1
    assert checked, "the walk found no taggable resource; is it looking in the right place?"


def test_the_walk_knows_which_types_take_tags():
    assert accepts_tags("aws_budgets_budget") and accepts_tags("aws_ce_cost_category")
    assert not accepts_tags("aws_ce_cost_allocation_tag")


def test_cost_stack_activates_the_three_cost_allocation_tags(quickstart_stacks):
    activations = quickstart_stacks["acme-cost"]["resource"]["aws_ce_cost_allocation_tag"].values()
    assert {(a["tag_key"], a["status"]) for a in activations} == {
        ("hyperpod-teams:organization", "Active"),
        ("hyperpod-teams:team", "Active"),
        ("hyperpod-teams:cost-center", "Active"),
    }


def test_cost_category_sends_each_teams_tagged_spend_to_the_team(quickstart_stacks):
    (category,) = quickstart_stacks["acme-cost"]["resource"]["aws_ce_cost_category"].values()
    assert category["name"] == "acme-hyperpod-team"
    assert category["default_value"] == "unattributed"
    assert category["rule_version"] == "CostCategoryExpression.v1"
    rules = {}
    for rule in category["rule"]:
        tags = {c["tags"]["key"]: (c["tags"]["values"], c["tags"]["match_options"]) for c in rule["rule"]["and"]}
        rules[rule["value"]] = tags
    assert set(rules) == {"nlp", "vision", "research"}
    assert rules["vision"] == {
        "hyperpod-teams:organization": (["acme"], ["EQUALS"]),
        "hyperpod-teams:team": (["vision"], ["EQUALS"]),
    }


def test_budget_filters_on_the_team_tag_with_one_notification_per_threshold(quickstart_stacks):
    (budget,) = quickstart_stacks["acme-team-vision"]["resource"]["aws_budgets_budget"].values()
    assert budget["name"] == "acme-vision-monthly" and budget["account_id"] == "111122223333"
    assert (budget["budget_type"], budget["time_unit"]) == ("COST", "MONTHLY")
    assert (budget["limit_amount"], budget["limit_unit"]) == ("18000", "USD")
    assert budget["cost_filter"] == [{"name": "TagKeyValue", "values": ["user:hyperpod-teams:team$vision"]}]
    notifications = sorted(budget["notification"], key=lambda n: n["threshold"])
    assert [n["threshold"] for n in notifications] == [80, 100]  # the spec's default thresholds
    for notification in notifications:
        assert notification["comparison_operator"] == "GREATER_THAN"
        assert (notification["notification_type"], notification["threshold_type"]) == ("ACTUAL", "PERCENTAGE")
        assert notification["subscriber_email_addresses"] == ["vision-leads@example.com", "finance@example.com"]


def test_team_without_budget_gets_none(quickstart_stacks):
    assert "aws_budgets_budget" not in quickstart_stacks["acme-team-research"].get("resource", {})


def test_budget_thresholds_come_from_the_spec(quickstart_data, tmp_path):
    quickstart_data["teams"][0]["budget"]["thresholds_percent"] = [50, 90, 120]
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)
    (budget,) = stacks["acme-team-nlp"]["resource"]["aws_budgets_budget"].values()
    assert sorted(n["threshold"] for n in budget["notification"]) == [50, 90, 120]


@pytest.mark.parametrize(("amount", "text"), [(25000.0, "25000"), (99.5, "99.5"), (1e6, "1000000"), (0.01, "0.01")])
def test_budget_limits_are_written_without_float_noise(amount, text):
    assert cost.budget_limit_amount(amount) == text


def test_cost_rules_are_pure_data():
    spec = load_spec(QUICKSTART)
    assert [r.value for r in cost.cost_category_rules(spec)] == ["nlp", "vision", "research"]
    assert cost.budget_tag_filter(spec.team("nlp")) == "user:hyperpod-teams:team$nlp"
