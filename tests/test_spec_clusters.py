"""A spec of several clusters (hyperpod_teams/spec/clusters.py, #61 in progress): its fields, the
rules only several clusters have, and every one-cluster rule on each cluster's view, reported at
the field of the spec it comes from."""

from __future__ import annotations

import copy

import pytest
import yaml

from hyperpod_teams.spec import validate_spec
from hyperpod_teams.spec.clusters import cluster_view, validate_several_clusters
from hyperpod_teams.spec.problems import SpecError, format_path
from tests.conftest import EXAMPLES, require_module


def two_clusters() -> dict:
    """The quickstart's organization with a training cluster (its cluster, in its account and
    region) and an inference cluster in another region: nlp on both (home: train), vision on
    train, research on infer."""
    data = yaml.safe_load((EXAMPLES / "quickstart" / "teams.yaml").read_text())
    train = data.pop("cluster")
    train["name"] = "train"
    infer = copy.deepcopy(train)
    infer.update(name="infer", region="us-east-1")
    infer["instance_groups"] = [{"name": "g6e", "instance_type": "ml.g6e.12xlarge", "count": 4}]
    data["clusters"] = [train, infer]
    nlp, vision, research = data["teams"]
    nlp["placements"] = {
        "train": nlp.pop("compute"),
        "infer": {"quota": [{"instance_type": "ml.g6e.12xlarge", "count": 2}], "sharing": "Lend"},
    }
    nlp["studio"] = {"home": "train"}
    vision["placements"] = {"train": vision.pop("compute")}
    del research["compute"]
    research["placements"] = {"infer": {"quota": [{"instance_type": "ml.g6e.12xlarge", "count": 1}]}}
    research["studio"]["home"] = "infer"
    return data


def problems(data: dict) -> dict[str, str]:
    with pytest.raises(SpecError) as raised:
        validate_several_clusters(data)
    return {format_path(p.path): p.message for p in raised.value.problems}


def test_each_cluster_is_a_one_cluster_spec_of_the_teams_placed_there():
    several = validate_several_clusters(two_clusters())
    assert list(several.views) == ["train", "infer"]
    train, infer = several.views["train"], several.views["infer"]
    assert [t.name for t in train.teams] == ["nlp", "vision"]
    assert [t.name for t in infer.teams] == ["nlp", "research"]
    # Where each runs: the organization's region, or the cluster's own.
    assert (train.organization.region, infer.organization.region) == ("us-west-2", "us-east-1")
    assert train.organization.account_id == infer.organization.account_id == "111122223333"
    # A team's compute is its placement's; its Studio domain is on its home cluster only.
    nlp_train, nlp_infer = train.team("nlp"), infer.team("nlp")
    assert [q.count for q in nlp_train.compute.quota] == [4, 2]
    assert [(q.instance_type, q.count) for q in nlp_infer.compute.quota] == [("ml.g6e.12xlarge", 2)]
    assert (nlp_train.studio.enabled, nlp_infer.studio.enabled) == (True, False)
    assert infer.team("research").studio.idle_timeout_minutes == 120
    assert several.home("nlp") == "train" and several.home("vision") == "train"


def test_a_cluster_view_of_one_cluster_is_the_one_cluster_spec_it_came_from():
    """`cluster:` specs keep their meaning: the same spec written with one cluster in `clusters`
    (each team's compute as its one placement) has for view the spec itself."""
    data = yaml.safe_load((EXAMPLES / "quickstart" / "teams.yaml").read_text())
    several = copy.deepcopy(data)
    several["clusters"] = [several.pop("cluster")]
    for team in several["teams"]:
        team["placements"] = {"ml-shared": team.pop("compute")}
    view, indexes = cluster_view(several, 0)
    assert indexes == [0, 1, 2]
    assert validate_spec(view) == validate_spec(data)


def test_a_rule_of_one_cluster_is_reported_at_the_field_it_comes_from():
    data = two_clusters()
    # A quota of an instance type the infer cluster does not have (a capacity rule of one cluster),
    # and more of it than the cluster has.
    data["teams"][0]["placements"]["infer"]["quota"][0]["instance_type"] = "ml.p5.48xlarge"
    data["teams"][2]["placements"]["infer"]["quota"][0]["count"] = 5
    found = problems(data)
    assert any(path.startswith("teams[0].placements.infer.quota") for path in found), found
    assert any(path.startswith("teams[2].placements.infer") for path in found), found
    assert not any(path.startswith(("cluster.", "teams[0].compute", "teams[1]")) for path in found), found
    # The train cluster's view has no such problem: each is found once, on its own cluster.
    assert len(found) == len(set(found))


def test_the_rules_of_several_clusters_name_the_field():
    data = two_clusters()
    data["clusters"][1]["name"] = "train"
    found = problems(data)
    assert "clusters[1].name" in found

    data = two_clusters()
    data["teams"][1]["placements"]["predict"] = {"quota": []}
    data["teams"][0]["studio"]["home"] = "elsewhere"
    data["teams"][2]["compute"] = {"quota": []}
    found = problems(data)
    assert "no cluster is named 'predict'" in found["teams[1].placements.predict"]
    assert "not a cluster the team is placed on" in found["teams[0].studio.home"]
    assert "given per cluster" in found["teams[2].compute"]

    data = two_clusters()
    del data["teams"][0]["studio"]["home"]
    assert "needs the one its domain" in problems(data)["teams[0].studio.home"]


def test_two_clusters_cannot_adopt_the_same_eks_cluster_in_one_account_and_region():
    data = two_clusters()
    for cluster in data["clusters"]:
        cluster["eks"] = {"create": False, "existing_cluster_name": "shared-eks"}
    data["clusters"][1]["region"] = "us-west-2"
    assert "clusters[0]'s already" in problems(data)["clusters[1].eks.existing_cluster_name"]
    data["clusters"][1]["region"] = "us-east-1"  # the same name in another region is another cluster
    validate_several_clusters(data)


def test_a_field_error_of_the_spec_itself_keeps_its_path():
    data = two_clusters()
    data["clusters"][0]["region"] = "nowhere"
    data["teams"][0]["placements"]["train"]["sharing"] = "Sometimes"
    found = problems(data)
    assert "clusters[0].region" in found
    assert "teams[0].placements.train.sharing" in found


def test_a_cluster_and_a_team_whose_names_make_one_stack_name_are_refused():
    """Cluster `team` with team `x` placed on it, and team `team-x`: `acme-team-team-x` would be
    both the place of x on the cluster and team-x's home, one state for two stacks."""
    data = two_clusters()
    data["clusters"][1]["name"] = "team"
    data["teams"][0]["placements"]["team"] = data["teams"][0]["placements"].pop("infer")
    data["teams"][2]["placements"] = {"team": data["teams"][2]["placements"].pop("infer")}
    data["teams"][2]["studio"]["home"] = "team"
    data["teams"][1]["name"] = "team-nlp"
    found = problems(data)
    assert "acme-team-team-nlp" in found["teams[1].name"], found


def test_one_cost_category_splits_each_clusters_shared_spend_across_the_teams_placed_there():
    from decimal import Decimal

    from hyperpod_teams import cost, naming

    several = validate_several_clusters(two_clusters())
    definition = cost.several_clusters_cost_category_definition(
        "acme", [t.name for t in several.spec.teams], several.views
    )
    values = [rule["Value"] for rule in definition["Rules"]]
    assert values == ["nlp", "vision", "research", "shared-platform-train", "shared-platform-infer"]
    train_shared = definition["Rules"][3]["Rule"]["And"]
    assert {"Tags": {"Key": naming.TAG_CLUSTER, "Values": ["train"], "MatchOptions": ["EQUALS"]}} in train_shared
    splits = {rule["Source"]: rule for rule in definition["SplitChargeRules"]}
    assert set(splits["shared-platform-train"]["Targets"]) == {"nlp", "vision"}
    assert set(splits["shared-platform-infer"]["Targets"]) == {"nlp", "research"}
    # Each cluster's split is its own quotas': on infer, nlp's 2 g6e nodes and research's 1.
    infer = splits["shared-platform-infer"]
    shares = dict(zip(infer["Targets"], infer["Parameters"][0]["Values"], strict=True))
    assert sum(Decimal(v) for v in shares.values()) == 100
    assert abs(Decimal(shares["nlp"]) - 2 * Decimal(shares["research"])) <= Decimal("0.02"), shares
    # The one-cluster definition is its view's: train alone gives train's split.
    one = cost.cost_category_definition(several.views["train"])["SplitChargeRules"][0]
    assert (one["Targets"], one["Parameters"]) == (
        splits["shared-platform-train"]["Targets"],
        splits["shared-platform-train"]["Parameters"],
    )


def test_a_team_named_after_a_clusters_shared_spend_is_refused():
    data = two_clusters()
    data["teams"][1]["name"] = "shared-platform-infer"
    assert "cluster infer's shared spend" in problems(data)["teams[1].name"]


def test_the_limits_of_several_clusters_are_the_cost_explorer_apis():
    """At most 10 clusters: one split charge rule each, and the Cost Explorer API takes at most 10;
    teams and clusters at most 500 rules (botocore's ce model, which the emulator checks every
    request against)."""
    from tests.emulator.input_shapes import load_session

    session, _ = load_session()
    shapes = session.get_service_model("ce").shape_for
    from hyperpod_teams.spec.clusters import MAX_COST_CATEGORY_RULES, SeveralClustersSpec

    clusters_max = next(
        m.max_length for m in SeveralClustersSpec.model_fields["clusters"].metadata if hasattr(m, "max_length")
    )
    assert clusters_max == shapes("CostCategorySplitChargeRulesList").metadata["max"] == 10
    assert MAX_COST_CATEGORY_RULES == shapes("CostCategoryRulesList").metadata["max"] == 500


def test_a_cluster_no_team_is_placed_on_is_named():
    data = two_clusters()
    data["teams"][2]["placements"] = {"train": data["teams"][2]["placements"].pop("infer")}
    data["teams"][2]["studio"]["home"] = "train"
    data["teams"][0]["placements"].pop("infer")
    with pytest.raises(SpecError) as raised:
        validate_several_clusters(data)
    assert [(format_path(p.path), p.message) for p in raised.value.problems] == [
        ("clusters[1].name", "no team is placed on cluster infer")
    ]


def test_a_spec_of_two_clusters_with_any_field_replaced_is_valid_or_a_spec_error():
    """Whatever a field holds, the checks end in a valid spec or in SpecError's problems, each at a
    path of the spec, never in another exception (what the commands turn into exit 0 or 2)."""
    require_module("hypothesis")
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from tests.test_untrusted_input import _paths, _structures

    base = two_clusters()
    paths = [p for p in _paths(base) if p]

    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.sampled_from(paths), _structures())
    def check(path, value) -> None:
        data = copy.deepcopy(base)
        node = data
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value
        try:
            validate_several_clusters(data)
        except SpecError as error:
            assert error.problems
            assert all(isinstance(p.path, tuple) for p in error.problems)

    check()


def test_with_clusters_the_organization_keeps_a_tag_for_the_clusters_own():
    """Every resource of a cluster carries its cluster's tag (the cost category splits each
    cluster's shared spend by it): of AWS's 50 tags a resource takes, the organization keeps 46."""
    data = two_clusters()
    data["organization"]["tags"] = {f"key{index}": "value" for index in range(47)}
    found = problems(data)
    assert found["organization.tags"].startswith("47 tags, and with clusters every resource carries one more")
    data["organization"]["tags"].pop("key46")
    several = validate_several_clusters(data)
    assert len(several.views["infer"].organization.tags) == 47
