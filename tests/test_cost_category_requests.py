"""What AWS receives for the team cost category's split of the shared spend: the real AWS
provider binary applies the synthesized cost stack against the local AWS API, which records each
CreateCostCategoryDefinition and UpdateCostCategoryDefinition body as it came
(tests/emulator/additions.py, RECORDED), and the pairs AWS makes of it are checked against the
spec.

AWS pairs `Targets[i]` with `Values[i]` (Billing and Cost Management API reference,
CostCategorySplitChargeRuleParameter: "the allocation percentages ... in the same order as the
targets"). The provider keeps `targets` as a set and sends it in the set's order, `values` as a list
in the order written (terraform-provider-aws, internal/service/ce/cost_category.go); Terraform's
state and plan pair them the other way, so only the request shows which team gets which share.
Several splits, the first apply and a day-2 change of every share (an update), are checked; the
emulator tier (tests/test_emulator_tier.py) reads the category back after its own applies.
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from hyperpod_teams import cost, naming
from tests.conftest import QUICKSTART, require_module, synthesize_stacks
from tests.offline_terraform import terraform_or_skip

pytestmark = [pytest.mark.terraform, pytest.mark.xdist_group("cost-category-requests")]

#: Team names of the larger splits: short, long, with digits and hyphens, so that the provider's
#: set order is far from alphabetical.
NAMES = ["nlp", "vision", "research", "speech", "rl", "ml-ops", "genai2", "robotics", "search", "ads", "a", "z9"]


def _split_spec(org: str, teams: int, *, day_two: bool = False) -> dict:
    """The quickstart with `teams` teams, each guaranteeing a different number of p5 nodes (so
    that a swapped pair shows as a wrong share); on day 2 every count changes."""
    data = yaml.safe_load(QUICKSTART.read_text())
    data["organization"]["name"] = org
    data["cluster"]["instance_groups"][0]["count"] = 200
    template = data["teams"][0]
    data["teams"] = []
    for index, name in enumerate(NAMES[:teams]):
        team = copy.deepcopy(template)
        team.update(name=name, display_name=name.title(), cost_center=f"CC-{index}")
        count = (teams - index) if day_two else (index + 1)
        team["compute"]["quota"] = [{"instance_type": "ml.p5.48xlarge", "count": count}]
        team["budget"]["notify_emails"] = [f"{name}@example.com"]
        data["teams"].append(team)
    return data


def _quickstart(org: str, *, day_two: bool = False) -> dict:
    """The quickstart as it is (nlp 4 and vision 3 p5 nodes); on day 2 nlp gives one up."""
    data = yaml.safe_load(QUICKSTART.read_text())
    data["organization"]["name"] = org
    if day_two:
        data["teams"][0]["compute"]["quota"][0]["count"] -= 1
    return data


def _proportional(org: str, *, day_two: bool = False) -> dict:
    data = _split_spec(org, 4, day_two=day_two)
    data["cost"] = {"shared_split": "proportional"}
    if day_two:
        data["teams"] = data["teams"][:3]
    return data


def _five(org: str, *, day_two: bool = False) -> dict:
    return _split_spec(org, 5, day_two=day_two)


def _dozen(org: str, *, day_two: bool = False) -> dict:
    return _split_spec(org, 12, day_two=day_two)


#: org name -> the spec of the first deploy and of day 2. The quickstart's own split (`_quickstart`:
#: nlp 4, vision 3 p5 nodes, one given up on day 2) is applied and read back by the emulator tier's
#: quickstart round after its apply and its day 2 (tests/test_emulator_tier.py), which holds the
#: category AWS keeps from these requests: applied here too, it repeated that proof.
SPLITS = {"five": _five, "dozen": _dozen, "prop": _proportional}


def split_pairs(definition: dict) -> dict[str, str | None]:
    """The team -> share AWS makes of a cost category definition (a request, or what it holds):
    Targets[i] with Values[i]; no share for a PROPORTIONAL or EVEN split."""
    (rule,) = definition["SplitChargeRules"]
    parameters = rule.get("Parameters") or []
    if not parameters:
        return dict.fromkeys(rule["Targets"])
    (parameter,) = parameters
    assert parameter["Type"] == "ALLOCATION_PERCENTAGES"
    assert len(parameter["Values"]) == len(rule["Targets"])
    return dict(zip(rule["Targets"], parameter["Values"], strict=True))


def expected_split(spec) -> dict[str, str | None]:
    split = cost.shared_split(spec)
    if split.method != "FIXED":
        return dict.fromkeys(split.targets)
    return {team: str(share) for team, share in split.percentages.items()}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> dict[str, dict]:
    """Per org: the specs of both days, the requests AWS received for its category, and the
    category as AWS holds it after each day's apply."""
    require_module("moto")
    from hyperpod_teams.spec import validate_spec
    from tests.emulator.deployment import Deployment, emulator_client, running_emulator

    terraform = terraform_or_skip(tmp_path_factory.mktemp("cost-category-terraform"))
    work = tmp_path_factory.mktemp("cost-category-requests")
    found: dict[str, dict] = {}
    with running_emulator(work, "111122223333") as emulator:
        client = emulator_client(emulator.url, "ce")
        for org, make in SPLITS.items():
            found[org] = {"specs": [validate_spec(make(org)), validate_spec(make(org, day_two=True))], "held": []}
            for day, spec in enumerate(found[org]["specs"]):
                synth_dir = work / org / ("cdktf.out" if day == 0 else "cdktf.day-2")
                synth_dir.parent.mkdir(exist_ok=True)
                synthesize_stacks(spec, synth_dir)
                deployment = Deployment(synth_dir, terraform.env, emulator.url)
                stack = naming.cost_stack_name(org)
                outcome = deployment.apply(stack)
                assert outcome.ok, outcome.output[-3000:]
                found[org]["arn"] = _category_arn(deployment.directory(stack) / deployment.state_path(stack))
                found[org]["held"].append(client.describe_cost_category_definition(CostCategoryArn=found[org]["arn"]))
        requests = emulator.requests()
    for entry in found.values():
        entry["creates"] = [
            r["body"]
            for r in requests
            if r["target"].endswith("CreateCostCategoryDefinition")
            and r["body"]["Name"] == naming.cost_category_name(entry["specs"][0].organization.name)
        ]
        entry["updates"] = [r["body"] for r in requests if r["body"].get("CostCategoryArn") == entry["arn"]]
    return found


def _category_arn(state_file: Path) -> str:
    state = json.loads(state_file.read_text())
    (resource,) = [r for r in state["resources"] if r["type"] == "aws_ce_cost_category"]
    return resource["instances"][0]["attributes"]["arn"]


@pytest.mark.parametrize("org", SPLITS)
def test_the_first_apply_sends_each_team_its_own_share(recorded, org):
    entry = recorded[org]
    # One request; the SDK's retry of it (an answer lost on this loaded machine) sends the same body.
    (create,) = {json.dumps(body, sort_keys=True): body for body in entry["creates"]}.values()
    assert split_pairs(create) == expected_split(entry["specs"][0])


@pytest.mark.parametrize("org", SPLITS)
def test_a_day_two_change_of_the_split_sends_each_team_its_new_share(recorded, org):
    entry = recorded[org]
    updates = [u for u in entry["updates"] if u.get("SplitChargeRules")]
    assert updates, "day 2 sent no split charge rule: the split did not change?"
    assert split_pairs(updates[-1]) == expected_split(entry["specs"][1])
    assert expected_split(entry["specs"][1]) != expected_split(entry["specs"][0])


@pytest.mark.parametrize("org", SPLITS)
def test_the_category_aws_holds_after_each_apply_pairs_each_team_with_its_share(recorded, org):
    entry = recorded[org]
    for spec, held in zip(entry["specs"], entry["held"], strict=True):
        assert split_pairs(held["CostCategory"]) == expected_split(spec)


def test_the_larger_splits_are_far_from_alphabetical_in_the_order_the_provider_sends():
    """The check above is only as good as its cases: in each FIXED case (and the quickstart's, which
    the emulator tier applies) the provider's order must differ from the spec's (alphabetical)
    order, else a values list in the spec's order would pass too."""
    for org, make in (("acme", _quickstart), ("five", _five), ("dozen", _dozen)):
        teams = sorted(expected_split(_validated(make(org))))
        assert list(cost.provider_set_order(teams)) != teams, org


def _validated(data: dict):
    from hyperpod_teams.spec import validate_spec

    return validate_spec(data)


def test_the_split_percentages_of_each_case_differ_between_teams():
    for org in ("five", "dozen"):
        shares = expected_split(_validated(SPLITS[org](org)))
        assert len(set(shares.values())) == len(shares) and sum(Decimal(v or 0) for v in shares.values()) == 100
