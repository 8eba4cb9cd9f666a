"""A team role's permission set with several clusters (policies.several_clusters_permission_set_policy,
#61 in progress): one policy for every account the team is in, judged by what IAM then allows its
members (tests/iam_evaluation.py) and by Identity Center's size limit."""

from __future__ import annotations

import copy
import re

import pytest
import yaml

from hyperpod_teams.policies.documents import policy_size
from hyperpod_teams.policies.several_clusters import (
    PERMISSION_SET_POLICY_MAX,
    joined,
    several_clusters_permission_set_policy,
    several_clusters_platform_admins_policy,
)
from hyperpod_teams.policies.team_roles import permission_set_policy_of
from hyperpod_teams.spec.clusters import SeveralClusters, validate_several_clusters
from hyperpod_teams.spec.problems import SpecError, format_path
from tests.conftest import EXAMPLES
from tests.iam_evaluation import allows
from tests.test_spec_clusters import two_clusters

TAGGED = {"aws:ResourceTag/hyperpod-teams:organization": "acme", "aws:ResourceTag/hyperpod-teams:team": "nlp"}


@pytest.fixture(scope="module")
def several():
    return validate_several_clusters(two_clusters())


def policy_of(several: SeveralClusters, team: str, role: str) -> dict:
    return several_clusters_permission_set_policy(several.views, several.home(team), team, role)


def test_the_identity_center_limit_is_the_one_aws_documents_and_its_api_allows():
    """docs.aws.amazon.com/singlesignon/latest/userguide/limits.html: 10,240 characters but
    whitespace, of the 32,768 the API's model takes."""
    import botocore.session

    model = botocore.session.get_session().get_service_model("sso-admin")
    assert model.shape_for("PermissionSetPolicyDocument").metadata["max"] == 32_768
    assert PERMISSION_SET_POLICY_MAX == 10_240


@pytest.mark.parametrize("team", ["vision", "research"])
def test_a_team_on_one_cluster_gets_its_clusters_one_cluster_policy(several, team):
    home = several.views[several.home(team)]
    for role in ("admins", "scientists"):
        assert policy_of(several, team, role) == permission_set_policy_of(home, home.team(team), role)


def test_a_member_reaches_each_cluster_the_team_is_on_and_its_quota_there(several):
    policy = policy_of(several, "nlp", "scientists")
    for region, eks in (("us-west-2", "train-eks"), ("us-east-1", "infer-eks")):
        assert allows([policy], "eks:DescribeCluster", f"arn:aws:eks:{region}:111122223333:cluster/{eks}")
        quota = f"arn:aws:sagemaker:{region}:111122223333:compute-quota/q-1"
        assert allows([policy], "sagemaker:DescribeComputeQuota", quota, TAGGED)
        assert not allows([policy], "sagemaker:DescribeComputeQuota", quota, {**TAGGED, **_team("vision")})
        # hyp lists the clusters of each Region the team is in, and of no other.
        assert allows([policy], "sagemaker:ListClusters", "*", {"aws:RequestedRegion": region})
    assert not allows([policy], "sagemaker:ListClusters", "*", {"aws:RequestedRegion": "eu-west-1"})
    assert not allows([policy], "eks:DescribeCluster", "arn:aws:eks:eu-west-1:111122223333:cluster/train-eks")


def test_the_teams_studio_images_and_budget_are_its_homes_alone(several):
    policy = policy_of(several, "nlp", "scientists")
    assert allows([policy], "sagemaker:DescribeDomain", "arn:aws:sagemaker:us-west-2:111122223333:domain/d-1", TAGGED)
    assert not allows(
        [policy], "sagemaker:DescribeDomain", "arn:aws:sagemaker:us-east-1:111122223333:domain/d-1", TAGGED
    )
    assert allows([policy], "ecr:BatchGetImage", "arn:aws:ecr:us-west-2:111122223333:repository/acme/nlp/llm")
    assert not allows([policy], "ecr:BatchGetImage", "arn:aws:ecr:us-east-1:111122223333:repository/acme/nlp/llm")


def test_a_cluster_in_another_account_is_granted_in_that_account(several):
    data = two_clusters()
    data["clusters"][1]["account_id"] = "444455556666"
    policy = policy_of(validate_several_clusters(data), "nlp", "admins")
    assert allows([policy], "eks:DescribeCluster", "arn:aws:eks:us-east-1:444455556666:cluster/infer-eks")
    assert not allows([policy], "eks:DescribeCluster", "arn:aws:eks:us-east-1:111122223333:cluster/infer-eks")
    # hyp reads its own Identity Center role in each account it is provisioned into.
    role = "arn:aws:iam::444455556666:role/aws-reserved/sso.amazonaws.com/us-east-1/AWSReservedSSO_acme-nlp-admins_0a1b"
    assert allows([policy], "iam:GetRole", role)


def test_two_cluster_names_that_read_alike_in_a_sid_give_statements_of_their_own_sids():
    """A statement that joins none held follows with the cluster's name in its Sid, capitalized part
    by part in letters and digits: `gpu-1` and `gpu1` read alike there, and IAM refuses a policy
    with two statements of one Sid."""

    def statement(action: str, region: str) -> dict:
        return {"Sid": "ReadTheQueue", "Effect": "Allow", "Action": [action], "Resource": [f"arn:aws:sqs:{region}:1:q"]}

    policy = {"Version": "2012-10-17", "Statement": [statement("sqs:GetQueueUrl", "eu-west-1")]}
    others = {
        "gpu-1": [statement("sqs:ReceiveMessage", "us-east-1")],
        "gpu1": [statement("sqs:SendMessage", "us-east-2")],
    }
    sids = [s["Sid"] for s in joined(policy, others)["Statement"]]
    assert sids == ["ReadTheQueue", "ReadTheQueueOnGpu1", "ReadTheQueueOnGpu12"]
    # A third name that reads as the numbered one is numbered in turn.
    others["gpu12"] = [statement("sqs:DeleteMessage", "us-west-2")]
    sids = [s["Sid"] for s in joined(policy, others)["Statement"]]
    assert len(sids) == len(set(sids)) == 4 and all(re.fullmatch(r"[A-Za-z0-9]+", sid) for sid in sids), sids


def test_statements_of_one_resource_each_join_into_a_list_of_both():
    """IAM takes a statement's Resource as one string or a list: two strings join as a list of
    the two, never as the characters of one."""
    policy = {"Statement": [{"Sid": "S", "Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::a/*"}]}
    other = {"Sid": "S", "Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}
    (joined_statement,) = joined(policy, {"infer": [other]})["Statement"]
    assert joined_statement["Resource"] == ["arn:aws:s3:::a/*", "arn:aws:s3:::b/*"]
    # A Deny never joins an Allow of the same Sid and actions.
    deny = {**other, "Effect": "Deny"}
    assert [s["Sid"] for s in joined(policy, {"infer": [deny]})["Statement"]] == ["S", "SOnInfer"]


def _team(name: str) -> dict:
    return {"aws:ResourceTag/hyperpod-teams:team": name}


#: Ten Regions where the p5 and c5 instance types of the team-work example are offered.
REGIONS = [
    "us-east-1", "us-east-2", "us-west-2", "eu-west-1", "eu-west-2",
    "eu-central-1", "eu-north-1", "ap-northeast-1", "ap-south-1", "ap-southeast-2",
]  # fmt: skip


def many_clusters(name_of, count: int = 10) -> dict:
    """The team-work example's first team on `count` clusters (ten: the cost category's limit), each
    in a Region of its own (no statement of one Region joins another's), each running inference,
    Spaces and container logs: the largest policy that many clusters of names `name_of(index)` make."""
    data = yaml.safe_load((EXAMPLES / "team-work" / "teams.yaml").read_text())
    cluster = data.pop("cluster")
    cluster["cloudwatch_observability"] = True
    data["clusters"] = []
    for index, region in enumerate(REGIONS[:count]):
        placed = copy.deepcopy(cluster)
        placed.update(name=name_of(index), region=region)
        data["clusters"].append(placed)
    team = data["teams"][0]
    compute = team.pop("compute")
    team["placements"] = {c["name"]: compute for c in data["clusters"]}
    team["studio"] = {**team.get("studio", {}), "home": data["clusters"][0]["name"]}
    data["teams"] = [team]
    return data


def test_a_team_on_eight_clusters_in_eight_regions_with_every_add_on_fits_identity_centers_limit():
    """With names as short as `gpu-us-east-1`, eight clusters of every add-on fit (about 830
    characters a cluster more; ten do not: the test below)."""
    several = validate_several_clusters(many_clusters(lambda index: f"gpu-{REGIONS[index]}", 8))
    for role in ("admins", "scientists"):
        policy = policy_of(several, "nlp", role)
        sids = [s["Sid"] for s in policy["Statement"]]
        assert len(sids) == len(set(sids)) and all(re.fullmatch(r"[A-Za-z0-9]+", sid) for sid in sids), sids
        assert policy_size(policy) <= PERMISSION_SET_POLICY_MAX, (role, policy_size(policy))
        # hyp lists clusters in the ten Regions, by one statement.
        (listing,) = [s for s in policy["Statement"] if s["Sid"].startswith("ListHyperPodClusters")]
        assert listing["Condition"] == {"StringEquals": {"aws:RequestedRegion": REGIONS[:8]}}
        for region in REGIONS[:8]:
            eks = f"arn:aws:eks:{region}:111122223333:cluster/gpu-{region}-eks"
            assert allows([policy], "eks:DescribeCluster", eks)


@pytest.mark.parametrize(
    "name_of",
    [lambda index: f"gpu-{REGIONS[index]}", lambda index: f"{'a-cluster-of-long-name-' * 2}shared-by-teams{index}"],
    ids=["short names", "61-character names"],
)
def test_a_team_whose_policy_would_pass_the_limit_is_refused_naming_its_placements(name_of):
    """Ten clusters of every add-on in ten Regions: the policy would pass Identity Center's limit."""
    data = many_clusters(name_of)
    with pytest.raises(SpecError) as raised:
        validate_several_clusters(data)
    (problem,) = [p for p in raised.value.problems if format_path(p.path) == "teams[0].placements"]
    assert re.fullmatch(
        r"on 10 clusters, the policy of team nlp's (admins|scientists) permission set would hold 1\d,\d{3} "
        r"characters \(whitespace aside\), and IAM Identity Center takes at most 10,240",
        problem.message,
    ), problem.message
    assert problem.hint == "place the team on fewer clusters, or give the clusters shorter names"


def test_the_platform_admins_administer_every_cluster_of_the_organization(several):
    policy = several_clusters_platform_admins_policy(several.views)
    for region, eks in (("us-west-2", "train-eks"), ("us-east-1", "infer-eks")):
        arn = f"arn:aws:eks:{region}:111122223333"
        assert allows([policy], "eks:DescribeCluster", f"{arn}:cluster/{eks}")
        assert allows([policy], "eks:DescribeAccessEntry", f"{arn}:access-entry/{eks}/role/x")
        assert allows([policy], "sagemaker:ListClusters", "*", {"aws:RequestedRegion": region})
    assert not allows([policy], "eks:DescribeCluster", "arn:aws:eks:us-east-1:111122223333:cluster/train-eks")
    sids = [s["Sid"] for s in policy["Statement"]]
    assert len(sids) == len(set(sids))


def test_the_platform_admins_policy_over_ten_clusters_in_ten_regions_fits():
    data = many_clusters(lambda index: f"gpu-{REGIONS[index]}")
    team = data["teams"].pop()  # a team of its own on each cluster
    del team["studio"]["home"]
    for index, (cluster, compute) in enumerate(team.pop("placements").items()):
        data["teams"].append({**copy.deepcopy(team), "name": f"team{index}", "placements": {cluster: compute}})
    several = validate_several_clusters(data)
    assert len(several.views) == 10
    assert policy_size(several_clusters_platform_admins_policy(several.views)) <= PERMISSION_SET_POLICY_MAX


# --- the deploy role's policy over several clusters ---------------------------------------------------


def _concrete(pattern: str) -> str:
    return pattern.replace("*", "x").replace("?", "x")


def _context_meeting(condition: dict) -> dict | None:
    """A request context that meets `condition` (its first value of each key), or None where it
    holds an operator this sketch does not meet (a negated one)."""
    context: dict = {}
    for operator, keys in condition.items():
        set_operator, _, base = operator.rpartition(":")
        for key, expected in keys.items():
            first = expected[0] if isinstance(expected, list) else expected
            if base == "Null":
                if str(first).lower() == "false":
                    context[key] = "x"
            elif base.removesuffix("IfExists") in ("StringEquals", "StringLike", "ArnEquals", "ArnLike", "Bool"):
                value = _concrete(str(first))
                context[key] = [value] if set_operator else value
            else:
                return None
    return context


def test_the_deploy_policy_of_two_clusters_allows_what_each_clusters_own_allows():
    """Every grant of each cluster's one-cluster deploy policy (its view's: `deploy_policies` of
    it), judged by IAM's evaluation against the policy of both clusters: allowed."""
    from hyperpod_teams.policies.deploy import deploy_policies

    several = validate_several_clusters(two_clusters())
    both = list(deploy_policies(several).values())
    checked = 0
    for view in several.views.values():
        for document in deploy_policies(view).values():
            for statement in document["Statement"]:
                if statement["Effect"] != "Allow" or "Resource" not in statement:
                    continue
                context = _context_meeting(statement.get("Condition", {}))
                if context is None:
                    continue
                for action in _listed(statement["Action"])[:3]:
                    for resource in _listed(statement["Resource"]):
                        concrete = _concrete(action), _concrete(resource)
                        assert allows(both, *concrete, context), (statement["Sid"], concrete, context)
                        checked += 1
    assert checked > 100
    # And no cluster's grants reach a Region of none of them.
    assert not allows(both, "eks:DeleteCluster", "arn:aws:eks:eu-west-1:111122223333:cluster/infer-eks")
    assert allows(both, "eks:DeleteCluster", "arn:aws:eks:us-east-1:111122223333:cluster/infer-eks")


def _listed(value) -> list:
    return value if isinstance(value, list) else [value]
