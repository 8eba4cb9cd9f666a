"""The naming audit (hyperpod_teams/name_scopes.py): every name `naming` derives is classified, and
whether it carries the cluster is computed here, by deriving it for two clusters of the quickstart's
organization, not taken from the table."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

import pytest

from hyperpod_teams import name_scopes, naming
from hyperpod_teams.spec import load_spec
from tests.conftest import QUICKSTART


def _functions() -> dict[str, Callable[..., str]]:
    return {
        name: function
        for name, function in inspect.getmembers(naming, inspect.isfunction)
        if function.__module__ == naming.__name__ and not name.startswith("_")
    }


def test_every_function_of_naming_is_a_classified_name_or_said_to_be_none():
    functions = set(_functions())
    classified = set(name_scopes.SCOPES) | name_scopes.NOT_NAMES
    assert not functions - classified, f"classify in name_scopes.py: {sorted(functions - classified)}"
    assert not classified - functions, f"gone from naming: {sorted(classified - functions)}"
    assert not set(name_scopes.SCOPES) & name_scopes.NOT_NAMES


@functools.cache
def _quickstart():
    return load_spec(QUICKSTART)


def _derive(function: Callable[..., str], cluster) -> str:
    """`function` of the quickstart's organization, team nlp, on `cluster`."""
    spec = _quickstart()
    org, team = spec.organization, spec.team("nlp")
    values = {
        "org": org.name,
        "organization": org,
        "pattern": spec.identity.group_name_pattern,
        "role": "scientists",
        "account_id": org.account_id,
        "region": org.region,
        "purpose": "controller",
        "index": 0,
        "priority_class": "training",
        "eks_cluster_name": naming.shared_eks_cluster_name(cluster),
    }
    arguments: list[object] = []
    keywords: dict[str, object] = {}
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            # A name of a cluster's that carries it where the organization has several (`cluster`
            # given), and keeps a one-cluster spec's name without it (naming.cluster_owner).
            assert name == "cluster" and parameter.default is None, (function.__name__, name)
            keywords[name] = cluster.name
        elif name == "team":
            arguments.append(team if "Team" in str(parameter.annotation) else team.name)
        elif name == "cluster":
            arguments.append(cluster if "Cluster" in str(parameter.annotation) else cluster.name)
        else:
            arguments.append(values[name])
    return function(*arguments, **keywords)


@pytest.mark.parametrize("name", sorted(name_scopes.SCOPES))
def test_whether_a_name_carries_the_cluster_is_what_the_table_says(name):
    train = _quickstart().cluster
    infer = train.model_copy(update={"name": "infer"})
    function = _functions()[name]
    first, second = _derive(function, train), _derive(function, infer)
    assert first and second
    assert (first != second) == name_scopes.SCOPES[name].qualified_by_cluster, (name, first, second)


def test_no_name_of_a_cluster_collides_with_a_second_clusters():
    """Every name of a cluster, or of a team on a cluster, that AWS, Identity Center or the deploy
    holds beyond one Kubernetes cluster carries the cluster where the organization has several."""
    assert name_scopes.collide_across_clusters() == []


def test_a_one_cluster_spec_keeps_its_names():
    """`cluster` None (a spec with `cluster:`) gives each name as before the cluster could be in it."""
    org = _quickstart().organization.name
    assert naming.eks_stack_name(org) == "acme-eks"
    assert naming.team_stack_name(org, "nlp") == "acme-team-nlp"
    assert naming.team_kubernetes_stack_name(org, "nlp") == "acme-k8s-nlp"
    assert naming.compute_quota_name("nlp") == "nlp-quota"
    assert naming.inference_role_name(org, "operator") == "SageMakerHyperPodInference-acme"
    assert naming.team_stack_name(org, "nlp", cluster="train") == "acme-train-team-nlp"
