"""The IAM policy documents of `hyperpod_teams.policies`, read as a reviewer would: pure, no cdktf."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hyperpod_teams import policies

TEAMS = ("nlp", "vision", "nlp-research")
COMMON: dict[str, Any] = dict(
    org="acme", account_id="111122223333", region="us-west-2", eks_cluster_name="ml-shared-eks"
)


def team_policy(team: str, role: str, budget: str | None = "acme-x-monthly") -> dict:
    return policies.team_permission_set_policy(
        team=team, budget_name=budget, permission_set=f"acme-{team}-{role}", **COMMON
    )


def admins_studio_policy(team: str, domain_id: str | None = None) -> dict:
    return policies.team_admins_studio_policy(
        org="acme", team=team, account_id="111122223333", region="us-west-2", domain_id=domain_id or f"d-{team}"
    )


def is_write(action: str) -> bool:
    verb = action.split(":")[1]
    return not verb.startswith(("Describe", "List", "Get", "View", "BatchGet", "BatchCheck"))


def all_team_documents() -> list[tuple[str, dict]]:
    documents = [(f"{t}/{r}", team_policy(t, r)) for t in TEAMS for r in ("scientists", "admins")]
    documents += [
        (
            f"{t}/execution",
            policies.team_execution_policy(
                org="acme",
                team=t,
                account_id="111122223333",
                region="us-west-2",
                eks_cluster_name="ml-shared-eks",
                domain_id=f"d-{t}",
                data_bucket=f"acme-{t}-data-111122223333-us-west-2",
                workload_role=f"acme-{t}-workload",
            ),
        )
        for t in TEAMS
    ]
    documents += [(f"{t}/admins-studio", admins_studio_policy(t)) for t in TEAMS]
    documents += [
        (
            f"{t}/workload",
            policies.team_workload_policy(
                team=t,
                account_id="111122223333",
                region="us-west-2",
                data_bucket=f"acme-{t}-data-111122223333-us-west-2",
            ),
        )
        for t in TEAMS
    ]
    return documents


@pytest.mark.parametrize(("where", "document"), all_team_documents(), ids=lambda v: v if isinstance(v, str) else "")
def test_no_team_policy_names_another_teams_resources(where, document):
    team = where.split("/")[0]
    for statement in document["Statement"]:
        condition = statement.get("Condition", {})
        team_values = [
            value
            for operator in condition.values()
            for key, value in operator.items()
            if key.endswith("/hyperpod-teams:team")
        ]
        assert all(value == team for value in team_values), f"{where} {statement['Sid']}: {team_values}"
        writes = [a for a in statement["Action"] if is_write(a)]
        if writes and "eks:AccessKubernetesApi" not in writes:
            # a write is only ever on the team's own tagged resources, or on resources named as the
            # team's own (its roles, its data bucket)
            named = all(f"acme-{team}-" in r for r in statement["Resource"])
            assert team_values or named, (
                f"{where} {statement['Sid']} writes {writes} on resources of no particular team"
            )


@pytest.mark.parametrize(
    "document",
    [team_policy(t, r) for t in TEAMS for r in ("scientists", "admins")]
    + [admins_studio_policy(t) for t in TEAMS]
    + [policies.platform_admins_permission_set_policy(**COMMON)],
)
def test_no_allow_pairs_a_write_action_or_a_wildcard_action_with_every_resource(document):
    for statement in document["Statement"]:
        assert statement["Effect"] == "Allow"
        assert not [a for a in statement["Action"] if a == "*" or a.endswith(":*")]
        if "*" in statement["Resource"]:  # only actions without a resource type, held to the region
            unscoped = policies.HYP_LIST_ACTIONS + policies.REGISTRY_SIGN_IN_ACTIONS
            assert set(statement["Action"]) <= set(unscoped), statement["Sid"]
            assert statement["Condition"] == {"StringEquals": {"aws:RequestedRegion": "us-west-2"}}


def test_scientists_may_not_manage_profiles_or_spaces_and_admins_may():
    scientists = {a for s in team_policy("nlp", "scientists")["Statement"] for a in s["Action"]}
    admins = {a for s in team_policy("nlp", "admins")["Statement"] for a in s["Action"]} | {
        a for s in admins_studio_policy("nlp")["Statement"] for a in s["Action"]
    }
    managing = {"sagemaker:CreateUserProfile", "sagemaker:DeleteSpace", "sagemaker:UpdateUserProfile"}
    assert not managing & scientists
    assert managing <= admins
    assert scientists <= admins


SAGEMAKER = "arn:aws:sagemaker:us-west-2:111122223333"
NLP_TAGS = {"aws:RequestTag/hyperpod-teams:organization": "acme", "aws:RequestTag/hyperpod-teams:team": "nlp"}


@pytest.mark.parametrize(
    ("action", "resource"),
    [
        ("sagemaker:CreateUserProfile", "user-profile/{domain}/alice"),
        ("sagemaker:CreateSpace", "space/{domain}/shared"),
    ],
)
def test_team_admins_create_profiles_and_spaces_in_their_own_domain_only(action, resource):
    """Tagged as their own team's, in their own domain: allowed; the same request in vision's domain:
    refused (it was allowed when only the tag was checked)."""
    from tests.iam_evaluation import allows

    documents = [team_policy("nlp", "admins"), admins_studio_policy("nlp", "d-nlp0001")]
    context = {**NLP_TAGS, "aws:TagKeys": list(NLP_TAGS)}
    own = f"{SAGEMAKER}:{resource.format(domain='d-nlp0001')}"
    theirs = f"{SAGEMAKER}:{resource.format(domain='d-vision01')}"
    assert allows(documents, action, own, context)
    assert not allows(documents, action, theirs, context)
    assert not allows([team_policy("nlp", "scientists")], action, own, context)


def test_team_admins_change_nothing_in_another_teams_domain_even_tagged_as_their_own():
    from tests.iam_evaluation import allows

    documents = [team_policy("nlp", "admins"), admins_studio_policy("nlp", "d-nlp0001")]
    tagged = {"aws:ResourceTag/hyperpod-teams:organization": "acme", "aws:ResourceTag/hyperpod-teams:team": "nlp"}
    for action, resource in [
        ("sagemaker:DeleteSpace", "space/{domain}/planted"),
        ("sagemaker:UpdateUserProfile", "user-profile/{domain}/alice"),
        ("sagemaker:DeleteApp", "app/{domain}/alice/jupyterlab/default"),
    ]:
        assert allows(documents, action, f"{SAGEMAKER}:{resource.format(domain='d-nlp0001')}", tagged), action
        assert not allows(documents, action, f"{SAGEMAKER}:{resource.format(domain='d-vision01')}", tagged), action


def test_team_members_open_studio_and_reach_the_cluster():
    statements = {s["Sid"]: s for s in team_policy("nlp", "scientists")["Statement"]}
    assert "sagemaker:DescribeDomain" in statements["SeeTheTeamsStudio"]["Action"]
    assert {"sagemaker:DescribeCluster", "sagemaker:ListClusterNodes"} <= set(
        statements["DescribeTheSharedHyperPodCluster"]["Action"]
    )
    eks = statements["ReachTheSharedEksCluster"]
    # ListAddons: `hyp get-monitoring` asks whether the observability add-on is installed.
    assert set(eks["Action"]) == {"eks:DescribeCluster", "eks:AccessKubernetesApi", "eks:ListAddons"}
    assert eks["Resource"] == ["arn:aws:eks:us-west-2:111122223333:cluster/ml-shared-eks"]


def test_a_team_sees_only_its_own_budget():
    statements = {s["Sid"]: s for s in team_policy("nlp", "scientists", budget="acme-nlp-monthly")["Statement"]}
    assert statements["SeeTheTeamsBudget"]["Resource"] == ["arn:aws:budgets::111122223333:budget/acme-nlp-monthly"]
    assert "SeeTheTeamsBudget" not in {s["Sid"] for s in team_policy("nlp", "scientists", budget=None)["Statement"]}


def test_platform_admins_reach_only_the_organizations_resources():
    document = policies.platform_admins_permission_set_policy(**COMMON)
    for statement in document["Statement"]:
        scoped = (
            "acme" in json.dumps(statement.get("Condition", {}))
            or all(
                "ml-shared-eks" in r or "budget/acme-" in r or "AWSReservedSSO_acme-platform-admins_" in r
                for r in statement["Resource"]
            )
            or set(statement["Action"]) <= set(policies.HYP_LIST_ACTIONS)
        )
        assert scoped, statement["Sid"]
    actions = {a for s in document["Statement"] for a in s["Action"]}
    assert "sagemaker:DeleteCluster" not in actions and "sagemaker:DeleteDomain" not in actions


def test_partition_follows_the_region():
    document = policies.team_permission_set_policy(
        org="acme",
        team="nlp",
        account_id="111122223333",
        region="us-gov-west-1",
        eks_cluster_name="e",
        permission_set="acme-nlp-scientists",
    )
    resources = [r for s in document["Statement"] for r in ([s["Resource"]] if s["Resource"] == "*" else s["Resource"])]
    assert all(r.startswith("arn:aws-us-gov:") for r in resources if r != "*")


ECR = "arn:aws:ecr:us-west-2:111122223333:repository"


@pytest.mark.parametrize("role", ["scientists", "admins", "execution"])
def test_a_team_reads_its_own_images_and_no_other_teams(role):
    """The team's repositories are those named under `<org>/<team>/`: nlp's prefix does not take
    nlp-research's repositories."""
    from tests.iam_evaluation import allows

    if role == "execution":
        document = policies.team_execution_policy(
            org="acme", team="nlp", account_id="111122223333", region="us-west-2", eks_cluster_name="ml-shared-eks"
        )
    else:
        document = team_policy("nlp", role)
    region = {"aws:RequestedRegion": "us-west-2"}
    assert allows([document], "ecr:GetAuthorizationToken", "*", region)
    for action in ("ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer", "ecr:DescribeImages"):
        assert allows([document], action, f"{ECR}/acme/nlp/trainer", region), action
        for theirs in ("acme/vision/trainer", "acme/nlp-research/trainer", "trainer", "other-org/nlp/trainer"):
            assert not allows([document], action, f"{ECR}/{theirs}", region), (action, theirs)
    for action in ("ecr:PutImage", "ecr:InitiateLayerUpload", "ecr:DeleteRepository"):
        assert not allows([document], action, f"{ECR}/acme/nlp/trainer", region), action


LOGS = "arn:aws:logs:us-west-2:111122223333:log-group:/aws/containerinsights/ml-shared-eks/application:log-stream"
NODE = "hyperpod-i-0123456789abcdef0"


def stream(pod: str, namespace: str) -> str:
    """A stream name as the CloudWatch Observability add-on's Fluent Bit writes it."""
    return f"{LOGS}:{NODE}-application.var.log.containers.{pod}_{namespace}_pytorch-0a1b2c3d4e5f.log"


@pytest.mark.parametrize("role", ["scientists", "admins", "execution"])
def test_with_cloudwatch_observability_a_team_reads_its_own_namespaces_container_logs_only(role):
    from tests.iam_evaluation import allows

    def document(container_logs: bool) -> dict:
        if role == "execution":
            return policies.team_execution_policy(
                org="acme", team="nlp", account_id="111122223333", region="us-west-2",
                eks_cluster_name="ml-shared-eks", container_logs=container_logs,
            )  # fmt: skip
        return policies.team_permission_set_policy(
            team="nlp", permission_set=f"acme-nlp-{role}", container_logs=container_logs, **COMMON
        )

    own = stream("bert-pretrain-worker-0", "hyperpod-ns-nlp")
    assert allows([document(True)], "logs:GetLogEvents", own)
    for theirs in (stream("x-worker-0", "hyperpod-ns-vision"), stream("x-worker-0", "hyperpod-ns-nlp-research")):
        assert not allows([document(True)], "logs:GetLogEvents", theirs)
    group = LOGS.rsplit(":log-stream", 1)[0]
    for action in ("logs:FilterLogEvents", "logs:StartQuery", "logs:DescribeLogStreams", "logs:StartLiveTail"):
        assert not allows([document(True)], action, group), action
    assert not allows([document(False)], "logs:GetLogEvents", own)


def test_platform_admins_run_the_newer_node_operations_and_no_team_role_does():
    """BatchRebootClusterNodes, BatchReplaceClusterNodes, StartClusterHealthCheck and the cluster's
    events and operations (botocore's SageMaker model; each takes the cluster's name or ARN): the
    platform admins', on the organization's clusters; no document of a team grants any, nor a
    wildcard that would cover them."""
    import fnmatch

    document = policies.platform_admins_permission_set_policy(**COMMON)
    granted = {
        action: statement
        for statement in document["Statement"]
        for action in statement["Action"]
        if action in policies.NODE_OPERATION_ACTIONS
    }
    assert set(granted) == set(policies.NODE_OPERATION_ACTIONS)
    for statement in granted.values():
        assert statement["Resource"] == [f"arn:aws:sagemaker:{COMMON['region']}:{COMMON['account_id']}:cluster/*"]
        assert "acme" in json.dumps(statement["Condition"])
    for where, team_document in all_team_documents():
        for statement in team_document["Statement"]:
            if statement.get("Effect") != "Allow":
                continue
            actions = statement.get("Action", [])
            actions = [actions] if isinstance(actions, str) else actions
            for operation in policies.NODE_OPERATION_ACTIONS:
                assert not any(fnmatch.fnmatchcase(operation, a) for a in actions), (where, operation, actions)


def test_a_team_without_studio_gets_no_app_or_space_action_in_its_execution_role():
    """Without a domain the statement names job ARNs only: an app's or a space's action there names no
    resource of the statement (parliament's RESOURCE_MISMATCH)."""
    from hyperpod_teams import policies

    policy = policies.team_execution_policy(
        org="acme", team="nlp", account_id="111122223333", region="us-west-2", eks_cluster_name="eks",
        domain_id=None, data_bucket=None, workload_role=None,
    )  # fmt: skip
    (manage,) = [s for s in policy["Statement"] if s["Sid"] == "ManageOnlyTheTeamsOwn"]
    assert manage["Action"] and all(action.endswith("Job") for action in manage["Action"])
    with_domain = policies.team_execution_policy(
        org="acme", team="nlp", account_id="111122223333", region="us-west-2", eks_cluster_name="eks",
        domain_id="d-1", data_bucket=None, workload_role=None,
    )  # fmt: skip
    (manage,) = [s for s in with_domain["Statement"] if s["Sid"] == "ManageOnlyTheTeamsOwn"]
    assert "sagemaker:DeleteSpace" in manage["Action"]
