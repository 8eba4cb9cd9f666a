"""The stacks of a spec of several clusters (stack_plan.several_clusters_stack_plan, #61 in
progress): which stacks, named how, deployed after what, with which credentials; and the growth
from `cluster` to `clusters` renaming nothing the one-cluster spec deployed."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest
import yaml

from hyperpod_teams.spec import validate_spec
from hyperpod_teams.spec.clusters import validate_several_clusters
from hyperpod_teams.spec.problems import SpecError, format_path
from hyperpod_teams.stack_plan import deploy_waves, several_clusters_stack_plan, stack_plan
from tests.conftest import EXAMPLES
from tests.test_spec_clusters import two_clusters


def _plan(data: dict) -> dict:
    return {s.name: s for s in several_clusters_stack_plan(validate_several_clusters(data))}


def test_each_cluster_has_its_chain_and_each_team_its_home_and_its_other_places():
    plan = _plan(two_clusters())
    assert list(plan) == [
        "acme-identity",
        "acme-access",
        "acme-train-eks",
        "acme-train-hyperpod-deps",
        "acme-train-cluster",
        "acme-infer-eks",
        "acme-infer-hyperpod-deps",
        "acme-infer-cluster",
        # nlp: home on train (its one-cluster names), placed on infer too.
        "acme-team-nlp",
        "acme-k8s-nlp",
        "acme-infer-team-nlp",
        "acme-infer-k8s-nlp",
        "acme-team-vision",
        "acme-k8s-vision",
        "acme-team-research",  # home on infer, its one placement
        "acme-k8s-research",
        "acme-cost",
    ]
    assert {n: (s.kind, s.cluster, s.team) for n, s in plan.items() if s.team == "nlp"} == {
        "acme-team-nlp": ("team", "train", "nlp"),
        "acme-k8s-nlp": ("team-kubernetes", "train", "nlp"),
        "acme-infer-team-nlp": ("team-placement", "infer", "nlp"),
        "acme-infer-k8s-nlp": ("team-kubernetes", "infer", "nlp"),
    }
    assert plan["acme-access"].cluster is None and plan["acme-cost"].cluster is None


def test_a_stack_deploys_after_its_own_clusters_chain_and_a_place_after_the_teams_home():
    plan = _plan(two_clusters())
    assert plan["acme-infer-cluster"].depends_on == (
        "acme-access",
        "acme-infer-eks",
        "acme-infer-hyperpod-deps",
    )
    assert plan["acme-team-research"].depends_on == ("acme-access", "acme-infer-cluster", "acme-infer-eks")
    assert plan["acme-infer-team-nlp"].depends_on == (
        "acme-access",
        "acme-infer-cluster",
        "acme-infer-eks",
        "acme-team-nlp",
    )
    assert plan["acme-infer-k8s-nlp"].depends_on == ("acme-infer-eks", "acme-infer-team-nlp")
    # Every dependency is a stack of the plan, planned before it: the waves hold them all.
    order = list(plan)
    for stack in plan.values():
        assert all(order.index(d) < order.index(stack.name) for d in stack.depends_on), stack
    waves = [[s.name for s in wave] for wave in deploy_waves(list(plan.values()))]
    assert sum(map(len, waves)) == len(plan)
    assert waves[0] == ["acme-identity", "acme-train-eks", "acme-infer-eks", "acme-cost"]


def test_a_clusters_stacks_name_the_account_region_and_eks_cluster_they_reach():
    data = two_clusters()
    data["clusters"][1]["account_id"] = "444455556666"
    plan = _plan(data)
    assert plan["acme-train-eks"].credentials == "AWS account 111122223333, us-west-2 (cluster train)"
    assert plan["acme-infer-cluster"].credentials == "AWS account 444455556666 (workload), us-east-1 (cluster infer)"
    # Identity Center stays the organization's account's: a team stack there says so.
    assert plan["acme-infer-team-nlp"].credentials == (
        "AWS account 444455556666 (workload; Identity Center's in 111122223333), us-east-1 (cluster infer)"
    )
    assert plan["acme-infer-hyperpod-deps"].credentials == "EKS cluster infer-eks, us-east-1 (cluster infer)"
    assert plan["acme-k8s-nlp"].credentials == "EKS cluster train-eks, us-west-2 (cluster train)"
    assert plan["acme-access"].credentials == "AWS (Identity Center account)"
    assert plan["acme-cost"].credentials == "AWS (payer account)"


def test_usage_reports_are_planned_per_cluster():
    data = two_clusters()
    data["cost"] = {"usage_reports": {"enabled": True}}
    for cluster in data["clusters"]:
        cluster["task_governance"] = {"enabled": True}
    plan = _plan(data)
    assert [n for n in plan if "usage" in n] == [
        "acme-train-usage-report",
        "acme-train-usage-operator",
        "acme-infer-usage-report",
        "acme-infer-usage-operator",
    ]
    assert plan["acme-infer-usage-operator"].depends_on == (
        "acme-infer-cluster",
        "acme-infer-eks",
        "acme-infer-usage-report",
    )


@pytest.mark.parametrize("example", ["quickstart", "existing-cluster", "existing-hyperpod"])
def test_a_spec_grown_to_clusters_keeps_every_stack_of_its_one_cluster(example):
    """The one-cluster spec rewritten with its cluster in `clusters` (keeping the one-cluster
    names) and each team's compute as its one placement: the same stacks, names, kinds,
    credentials and dependencies; nothing the deployed platform holds is renamed."""
    data = yaml.safe_load((EXAMPLES / example / "teams.yaml").read_text())
    grown = copy.deepcopy(data)
    cluster = grown.pop("cluster")
    grown["clusters"] = [{**cluster, "one_cluster_names": True}]
    for team in grown["teams"]:
        team["placements"] = {cluster["name"]: team.pop("compute")}
    one = stack_plan(validate_spec(data))
    several = several_clusters_stack_plan(validate_several_clusters(grown))
    assert [replace(s, cluster=None) for s in several] == one


def test_a_second_cluster_beside_the_one_that_keeps_its_names_is_named_after_itself():
    data = two_clusters()
    data["clusters"][0]["one_cluster_names"] = True
    plan = _plan(data)
    assert [n for n in plan if n.endswith(("-eks", "-cluster"))] == [
        "acme-eks",
        "acme-cluster",
        "acme-infer-eks",
        "acme-infer-cluster",
    ]
    assert plan["acme-team-nlp"].depends_on == ("acme-access", "acme-cluster", "acme-eks")


def test_only_one_cluster_keeps_the_one_cluster_names():
    data = two_clusters()
    for cluster in data["clusters"]:
        cluster["one_cluster_names"] = True
    with pytest.raises(SpecError) as raised:
        validate_several_clusters(data)
    found = {format_path(p.path): p.message for p in raised.value.problems}
    assert "clusters[0].one_cluster_names" not in found
    assert "clusters[0] keeps the one-cluster names already" in found["clusters[1].one_cluster_names"]
    assert found["clusters[1].name"] == (
        "the stacks acme-eks, acme-hyperpod-deps, acme-cluster, acme-usage-report, acme-usage-operator "
        "would be both cluster train's and cluster infer's"
    )


def test_a_team_placed_off_home_on_a_cluster_named_like_a_stack_is_refused():
    """Cluster `team` with team x placed there (home elsewhere) plans `acme-team-team-x`, the home
    stack of a team named `team-x`."""
    data = two_clusters()
    data["clusters"][1]["name"] = "team"
    nlp, _, research = data["teams"]
    nlp["placements"]["team"] = nlp["placements"].pop("infer")
    research["placements"] = {"team": research["placements"].pop("infer")}
    research["studio"]["home"] = "team"
    data["teams"][1]["name"] = "team-nlp"
    with pytest.raises(SpecError) as raised:
        validate_several_clusters(data)
    messages = [p.message for p in raised.value.problems]
    assert any("acme-team-team-nlp would be both" in m for m in messages), messages


def test_the_github_workflow_has_a_job_for_every_wave_several_clusters_deploy_in():
    """A team's place off its home deploys after the home, and its Kubernetes stack after the place:
    a sixth wave, which the shipped GitHub workflow must call (it refuses a spec of more waves than
    it has jobs for). Every example's and the several-cluster specs' waves fit."""
    from hyperpod_teams.spec import load_spec
    from tests.pipeline_runner import PIPELINES
    from tests.test_app_clusters import team_work_on_two_clusters

    workflow = yaml.safe_load((PIPELINES / "github-actions.yml").read_text())
    jobs = sorted(name for name in workflow["jobs"] if name.startswith("wave"))
    outputs = sorted(name for name in workflow["jobs"]["changes"]["outputs"] if name.startswith("wave"))
    assert jobs == outputs == [f"wave{i}" for i in range(1, len(jobs) + 1)]
    assert workflow["jobs"]["deployed"]["needs"] == ["changes", *jobs]
    waves = [len(deploy_waves(stack_plan(load_spec(path)))) for path in sorted(EXAMPLES.glob("*/teams.yaml"))]
    for data in (two_clusters(), team_work_on_two_clusters()):
        waves.append(len(deploy_waves(several_clusters_stack_plan(validate_several_clusters(data)))))
    assert max(waves) == 6 and max(waves) <= len(jobs), waves
