"""The stacks of a spec with `clusters` (#61), synthesized by the real engine
(`app.add_several_clusters_stacks`): the plan's stacks, each cluster's names its own where AWS holds
a name once per account or Region, a team's permission sets assigned in every account it is placed
in, its workload role bound on each of its clusters in the home's account, and one cost category
that splits each cluster's shared spend by that cluster's quotas."""

from __future__ import annotations

import copy
import json
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

from hyperpod_teams import cost, naming
from hyperpod_teams.policies.several_clusters import several_clusters_permission_set_policy
from hyperpod_teams.spec.clusters import SeveralClusters, validate_several_clusters
from hyperpod_teams.stack_plan import deploy_waves, several_clusters_stack_plan
from tests.conftest import EXAMPLES, synthesize_stacks
from tests.iam_evaluation import allows, trusts
from tests.test_cli import run_command
from tests.test_spec_clusters import two_clusters

#: Resource types whose name is unique only within a parent (a role's inline policy, a database's
#: table): two clusters may hold the same.
NAMED_IN_A_PARENT = {"aws_iam_role_policy", "aws_glue_catalog_table"}
#: Where AWS holds a resource type's name once: in an account (IAM, budgets), in every account (S3),
#: in an Identity Center instance (permission sets), or else in an account's Region.
GLOBAL_NAMES = {"aws_s3_bucket"}
ACCOUNT_NAMES = {"aws_iam_role", "aws_iam_policy", "aws_budgets_budget", "aws_ssoadmin_permission_set"}
NAME_KEYS = ("name", "bucket", "domain_name", "function_name", "alias")
#: The properties of a Cloud Control resource's desired state that name it (HyperPod's cluster,
#: scheduler config and compute quota).
CLOUD_CONTROL_NAME_KEYS = ("ClusterName", "Name")


def team_work_on_two_clusters() -> dict:
    """The team-work example (every add-on) on two clusters in one account and one Region, with
    usage reports: nlp on both (home: train), the other teams on one each."""
    data = yaml.safe_load((EXAMPLES / "team-work" / "teams.yaml").read_text())
    train = data.pop("cluster")
    train["name"] = "train"
    infer = copy.deepcopy(train)
    infer["name"] = "infer"
    data["clusters"] = [train, infer]
    data["cost"] = {"usage_reports": {"enabled": True}}
    for index, team in enumerate(data["teams"]):
        compute = team.pop("compute")
        if index == 0:
            team["placements"] = {"train": compute, "infer": compute}
            team.setdefault("studio", {})["home"] = "train"
        else:
            team["placements"] = {"infer" if index % 2 == 0 else "train": compute}
    return data


def synthesized(tmp_path_factory, name: str, data: dict) -> tuple[SeveralClusters, dict[str, dict]]:
    several = validate_several_clusters(data)
    return several, synthesize_stacks(several, Path(tmp_path_factory.mktemp(name)) / "cdktf.out")


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    """two_clusters(): train in us-west-2, infer in us-east-1, one account."""
    return synthesized(tmp_path_factory, "two-clusters", two_clusters())


@pytest.fixture(scope="module")
def one_region(tmp_path_factory):
    return synthesized(tmp_path_factory, "one-region", team_work_on_two_clusters())


@pytest.fixture(scope="module")
def two_accounts(tmp_path_factory):
    """two_clusters() with infer in account 444455556666."""
    data = two_clusters()
    data["clusters"][1]["account_id"] = "444455556666"
    return synthesized(tmp_path_factory, "two-accounts", data)


#: How a team stack refers to its cluster's EKS name: the EKS stack's output, as with one cluster.
TRAIN_EKS_NAME = (
    "${data.terraform_remote_state.cross-stack-reference-input-acme-train-eks.outputs."
    "cross-stack-output-aws_eks_clustereks_cluster_55B0C966name}"
)


def without_cluster_tag(value):
    """`value` without the cluster tag, wherever a resource or a desired state (JSON text) holds tags."""
    if isinstance(value, dict):
        return {k: without_cluster_tag(v) for k, v in value.items() if k != naming.TAG_CLUSTER}
    if isinstance(value, list):
        return [
            without_cluster_tag(v) for v in value if not (isinstance(v, dict) and v.get("Key") == naming.TAG_CLUSTER)
        ]
    if isinstance(value, str) and value.startswith("{"):
        try:
            return without_cluster_tag(json.loads(value))
        except json.JSONDecodeError:
            return value
    return value


def aws_providers(stack: dict) -> dict[str | None, dict]:
    return {provider.get("alias"): provider for provider in stack.get("provider", {}).get("aws", [])}


def held_names(several: SeveralClusters, stacks: dict[str, dict]) -> dict[tuple, list[str]]:
    """(resource type, where AWS holds its name, the name) -> the stacks that create such a resource."""
    held: dict[tuple, list[str]] = defaultdict(list)
    for stack_name, stack in stacks.items():
        providers = aws_providers(stack)
        if not providers:
            continue
        for resource_type, resources in stack.get("resource", {}).items():
            if resource_type in NAMED_IN_A_PARENT:
                continue
            for resource in resources.values():
                provider = providers[resource["provider"].rsplit(".", 1)[-1] if "provider" in resource else None]
                account = (provider.get("allowed_account_ids") or [several.spec.organization.account_id])[0]
                where = (
                    "everywhere"
                    if resource_type in GLOBAL_NAMES
                    else account
                    if resource_type in ACCOUNT_NAMES
                    else f"{account}/{provider['region']}"
                )
                names = [resource[key] for key in NAME_KEYS if isinstance(resource.get(key), str)]
                if resource_type == "aws_cloudcontrolapi_resource":
                    state = json.loads(resource["desired_state"])
                    names = [state[key] for key in CLOUD_CONTROL_NAME_KEYS if isinstance(state.get(key), str)]
                    resource_type = resource["type_name"]
                for name in names:
                    if "${" not in name:
                        held[(resource_type, where, name)].append(stack_name)
    return held


def test_the_synthesized_stacks_are_the_plans_with_its_dependencies(two):
    several, stacks = two
    plan = several_clusters_stack_plan(several)
    assert sorted(stacks) == sorted(s.name for s in plan)
    for planned in plan:
        stack = stacks[planned.name]
        remote = set(stack.get("data", {}).get("terraform_remote_state", {}))
        read = {name.removeprefix("cross-stack-reference-input-") for name in remote}
        # Every stack a stack reads is one it deploys after.
        assert read <= set(planned.depends_on), (planned.name, read, planned.depends_on)


@pytest.mark.parametrize("fixture", ["two", "one_region", "two_accounts"])
def test_no_two_resources_share_a_name_where_aws_holds_it_once(fixture, request):
    """Two clusters in one account and one Region (every add-on, usage reports), in two Regions, in
    two accounts: every name AWS holds once per account, Region or everywhere is one resource's."""
    several, stacks = request.getfixturevalue(fixture)
    held = held_names(several, stacks)
    assert len(held) > 20
    shared = {key: owners for key, owners in held.items() if len(owners) > 1}
    assert not shared, shared


def test_each_clusters_names_carry_the_cluster_and_a_quota_its_cluster_qualifier(one_region):
    several, stacks = one_region
    held = {(kind, name) for kind, _, name in held_names(several, stacks)}
    assert ("AWS::SageMaker::ComputeQuota", "nlp-train-quota") in held
    assert ("AWS::SageMaker::ComputeQuota", "nlp-infer-quota") in held
    for cluster in ("train", "infer"):
        assert ("aws_prometheus_workspace", f"acme-{cluster}-hyperpod") in held
        assert ("aws_iam_role", f"SageMakerHyperPodInference-acme-{cluster}") in held
        assert ("aws_iam_role", f"acme-{cluster}-hyperpod-usage-operator") in held
        assert ("aws_athena_workgroup", f"acme-{cluster}-hyperpod-usage") in held


def test_a_team_is_assigned_its_permission_sets_in_every_account_it_is_placed_in(two_accounts):
    several, stacks = two_accounts
    access = stacks["acme-access"]["resource"]
    assignments: dict[str, dict[str, str]] = defaultdict(dict)
    for address, assignment in access["aws_ssoadmin_account_assignment"].items():
        key = address.split("_assignment")[0].removeprefix("permission-set-")
        assignments[key][assignment["target_id"]] = address
    # nlp (train in 111122223333, infer in 444455556666): both; research (infer) and vision (train): one.
    for role in naming.ROLES:
        assert set(assignments[f"nlp-{role}"]) == {"111122223333", "444455556666"}
        assert set(assignments[f"research-{role}"]) == {"444455556666"}
        assert set(assignments[f"vision-{role}"]) == {"111122223333"}
        # The home's account keeps the address a one-cluster spec gives the assignment.
        assert "_assignment-" not in assignments[f"nlp-{role}"]["111122223333"]
        assert "_assignment-444455556666" in assignments[f"nlp-{role}"]["444455556666"]
    assert set(assignments["platform-admins"]) == {"111122223333", "444455556666"}
    # Each set's policy is the one over every cluster it serves (policies/several_clusters.py).
    policies = {
        address.split("_inline-policy")[0].removeprefix("permission-set-"): json.loads(p["inline_policy"])
        for address, p in access["aws_ssoadmin_permission_set_inline_policy"].items()
    }
    for team in ("nlp", "research", "vision"):
        for role in naming.ROLES:
            expected = several_clusters_permission_set_policy(several.views, several.home(team), team, role)
            assert policies[f"{team}-{role}"] == expected


def test_a_placement_in_the_homes_account_binds_the_home_workload_role_which_trusts_both_clusters(two):
    several, stacks = two
    home = stacks["acme-team-nlp"]["resource"]
    (role,) = [r for r in home["aws_iam_role"].values() if r["name"] == "acme-nlp-workload"]
    trust = json.loads(role["assume_role_policy"])
    home_eks, infer_eks = trust["Statement"][0]["Condition"]["ArnEquals"]["aws:SourceArn"]
    # The home cluster's as a one-cluster spec gives it (the EKS stack's output), and infer's.
    assert home_eks == f"arn:aws:eks:us-west-2:111122223333:cluster/{TRAIN_EKS_NAME}"
    assert infer_eks == "arn:aws:eks:us-east-1:111122223333:cluster/infer-eks"
    placed = stacks["acme-infer-team-nlp"]["resource"]
    (association,) = placed["aws_eks_pod_identity_association"].values()
    assert association["role_arn"] == "arn:aws:iam::111122223333:role/acme-nlp-workload"
    assert (association["namespace"], association["service_account"]) == ("hyperpod-ns-nlp", "team-workload")
    # Its home (domain, data, roles, budget) is in the home stack alone.
    assert not {"aws_sagemaker_domain", "aws_s3_bucket", "aws_iam_role", "aws_budgets_budget"} & set(placed)
    # vision's role trusts its one cluster, as a one-cluster spec's does.
    (vision,) = [
        r
        for r in stacks["acme-team-vision"]["resource"]["aws_iam_role"].values()
        if r["name"] == "acme-vision-workload"
    ]
    vision_trust = json.loads(vision["assume_role_policy"])["Statement"][0]["Condition"]["ArnEquals"]
    assert vision_trust == {"aws:SourceArn": home_eks}


def test_identity_center_resources_of_a_team_stack_go_to_its_account_and_region(two, two_accounts):
    """The team stacks' Identity Center resources (its domain's application assignments, the
    admins' policy attachment) are managed where the organization's instance is: its account and
    Region, whichever cluster's account and Region the team's home is on."""
    for stacks in (two[1], two_accounts[1]):
        research = stacks["acme-team-research"]  # home: infer, us-east-1
        center = aws_providers(research)["identity_center"]
        assert center["region"] == "us-west-2"
        assert center.get("allowed_account_ids", ["111122223333"]) == ["111122223333"]
        for kind in ("aws_ssoadmin_application_assignment", "aws_ssoadmin_customer_managed_policy_attachment"):
            for resource in research["resource"].get(kind, {}).values():
                assert resource["provider"] == "aws.identity_center", (kind, resource)
        # A home in the organization's account and Region needs no provider of its own for them.
        assert "identity_center" not in aws_providers(stacks["acme-team-vision"])


INFER_EKS = (
    "arn:aws:eks:us-east-1:444455556666:cluster/${data.terraform_remote_state.cross-stack-reference-input-"
    "acme-infer-eks.outputs.cross-stack-output-aws_eks_clustereks_cluster_55B0C966name}"
)


def test_a_placement_in_another_account_reaches_the_home_workload_role_through_a_role_of_its_own(two_accounts):
    """EKS Pod Identity binds a role of the cluster's own account (EKS user guide, "Access AWS
    Resources using EKS Pod Identity Target IAM Roles"): on infer (account 444455556666) nlp's
    service account gets a role there whose one grant is to assume nlp's workload role at home,
    named as the association's target. Judged by what IAM then decides (tests/iam_evaluation.py),
    for nlp's pods and for the tenant next door: research, placed on infer too."""
    _, stacks = two_accounts
    placed = stacks["acme-infer-team-nlp"]["resource"]
    (role,) = placed["aws_iam_role"].values()
    assert role["name"] == "acme-infer-nlp-pod-identity"
    assert role["permissions_boundary"] == "arn:aws:iam::444455556666:policy/hyperpod-teams-boundary/acme-role-boundary"
    (association,) = placed["aws_eks_pod_identity_association"].values()
    home_role = "arn:aws:iam::111122223333:role/acme-nlp-workload"
    assert association["target_role_arn"] == home_role
    assert association["role_arn"] == "${aws_iam_role.pod-identity-role.arn}"
    assert (association["namespace"], association["service_account"]) == ("hyperpod-ns-nlp", "team-workload")
    chain_role = "arn:aws:iam::444455556666:role/acme-infer-nlp-pod-identity"

    # Who may assume the role on infer: Pod Identity, for nlp's service account on infer alone.
    trust = json.loads(role["assume_role_policy"])
    pods = {"Service": "pods.eks.amazonaws.com"}

    def pod(namespace="hyperpod-ns-nlp", service_account="team-workload", cluster=INFER_EKS) -> dict:
        return {
            "aws:SourceAccount": "444455556666",
            "aws:SourceArn": cluster,
            "aws:RequestTag/kubernetes-namespace": namespace,
            "aws:RequestTag/kubernetes-service-account": service_account,
        }

    for action in ("sts:AssumeRole", "sts:TagSession"):
        assert trusts(trust, pods, action, pod())
    assert not trusts(trust, pods, "sts:AssumeRole", pod(namespace="hyperpod-ns-research"))
    assert not trusts(trust, pods, "sts:AssumeRole", pod(service_account="default"))
    assert not trusts(trust, pods, "sts:AssumeRole", pod(cluster=INFER_EKS.replace("444455556666", "999988887777")))
    assert not trusts(
        trust, {"AWS": "arn:aws:iam::444455556666:role/acme-infer-research-pod-identity"}, "sts:AssumeRole"
    )
    # What it may do: assume nlp's workload role, not another team's.
    (granted,) = placed["aws_iam_role_policy"].values()
    chain = json.loads(granted["policy"])
    assert allows([chain], "sts:AssumeRole", home_role) and allows([chain], "sts:TagSession", home_role)
    assert not allows([chain], "sts:AssumeRole", "arn:aws:iam::111122223333:role/acme-research-workload")
    assert not allows([chain], "s3:GetObject", "arn:aws:s3:::acme-nlp-data-111122223333-us-west-2/x")

    # nlp's workload role at home trusts that role (by its account, with the caller's ARN as the
    # condition: a trust policy may name a role before it exists that way), and no other of its account.
    (home,) = [
        r for r in stacks["acme-team-nlp"]["resource"]["aws_iam_role"].values() if r["name"] == "acme-nlp-workload"
    ]
    home_trust = json.loads(home["assume_role_policy"])
    for action in ("sts:AssumeRole", "sts:TagSession"):
        assert trusts(home_trust, {"AWS": chain_role}, action)
    for other in ("acme-infer-research-pod-identity", "acme-deploy", "acme-nlp-pod-identity"):
        assert not trusts(home_trust, {"AWS": f"arn:aws:iam::444455556666:role/{other}"}, "sts:AssumeRole"), other
    assert not trusts(home_trust, {"AWS": chain_role.replace("444455556666", "999988887777")}, "sts:AssumeRole")
    # Its Pod Identity on train is as a one-cluster spec writes it.
    assert home_trust["Statement"][0]["Condition"]["ArnEquals"] == {
        "aws:SourceArn": f"arn:aws:eks:us-west-2:111122223333:cluster/{TRAIN_EKS_NAME}"
    }
    # The team next door on infer (research), in its members' roles: it can neither bind that role to
    # a service account of its own nor pass it, nor assume it or nlp's workload role.
    several = two_accounts[0]
    for role in naming.ROLES:
        policy = several_clusters_permission_set_policy(several.views, several.home("research"), "research", role)
        infer_cluster = INFER_EKS.split("/")[0] + "/infer-eks"
        assert allows([policy], "eks:DescribeCluster", infer_cluster), role  # its own cluster it reaches
        assert not allows([policy], "eks:CreatePodIdentityAssociation", infer_cluster), role
        assert not allows([policy], "eks:UpdatePodIdentityAssociation", f"{infer_cluster}/*"), role
        for arn in (chain_role, home_role):
            assert not allows([policy], "iam:PassRole", arn) and not allows([policy], "sts:AssumeRole", arn), role
    # research, at home on infer's account, keeps its own one-account binding; vision (train only) no hop.
    research = stacks["acme-team-research"]["resource"]
    assert "target_role_arn" not in next(iter(research["aws_eks_pod_identity_association"].values()))
    assert (
        len(
            json.loads(
                next(
                    r
                    for r in stacks["acme-team-vision"]["resource"]["aws_iam_role"].values()
                    if r["name"] == "acme-vision-workload"
                )["assume_role_policy"]
            )["Statement"]
        )
        == 1
    )


def test_one_cost_category_splits_each_clusters_shared_spend_by_that_clusters_quotas(two):
    several, stacks = two
    (category,) = stacks["acme-cost"]["resource"]["aws_ce_cost_category"].values()
    assert [rule["value"] for rule in category["rule"]] == [
        "nlp",
        "vision",
        "research",
        "shared-platform-train",
        "shared-platform-infer",
    ]
    splits = {rule["source"]: rule for rule in category["split_charge_rule"]}
    assert set(splits) == {"shared-platform-train", "shared-platform-infer"}
    for cluster, view in several.views.items():
        rule = splits[naming.cluster_shared_cost_value(cluster)]
        shares = dict(zip(rule["targets"], rule["parameter"][0]["values"], strict=True))
        assert shares == {team: str(share) for team, share in cost.shared_split(view).percentages.items()}
        assert set(shares) == {team.name for team in view.teams}
    # The cluster tag that tells each cluster's shared spend apart is activated, and each
    # cluster's AWS stacks tag everything they create with it.
    tags = {t["tag_key"] for t in stacks["acme-cost"]["resource"]["aws_ce_cost_allocation_tag"].values()}
    assert naming.TAG_CLUSTER in tags
    for planned in several_clusters_stack_plan(several):
        provider = aws_providers(stacks[planned.name]).get(None)
        if provider is None:
            continue
        tagged = provider["default_tags"][0]["tags"]
        if planned.cluster is None:
            assert naming.TAG_CLUSTER not in tagged, planned.name
        else:
            assert tagged[naming.TAG_CLUSTER] == planned.cluster, planned.name


def test_a_spec_grown_from_cluster_to_clusters_keeps_every_resource_and_name(tmp_path_factory, quickstart_stacks):
    """The quickstart with its cluster in `clusters` (keeping its names): every stack holds the
    resources at the same addresses with the same values; only the cluster tag is added (and
    activated for cost allocation), and the cost category names the shared spend after the cluster
    (in place: no name changes)."""
    data = yaml.safe_load((EXAMPLES / "quickstart" / "teams.yaml").read_text())
    cluster = data.pop("cluster")
    data["clusters"] = [{**cluster, "one_cluster_names": True}]
    for team in data["teams"]:
        team["placements"] = {cluster["name"]: team.pop("compute")}
    _, grown = synthesized(tmp_path_factory, "grown", data)
    assert sorted(grown) == sorted(quickstart_stacks)
    for name, stack in quickstart_stacks.items():
        before, after = stack.get("resource", {}), grown[name].get("resource", {})
        added = {(t, a) for t in after for a in after[t]} - {(t, a) for t in before for a in before[t]}
        assert not {(t, a) for t in before for a in before[t]} - {(t, a) for t in after for a in after[t]}, name
        # Added: the activation of the cluster tag alone.
        assert {t for t, _ in added} <= {"aws_ce_cost_allocation_tag"} and len(added) <= 1, added
        for resource_type, resources in before.items():
            if resource_type == "aws_ce_cost_category":
                continue
            for address, resource in resources.items():
                assert without_cluster_tag(after[resource_type][address]) == without_cluster_tag(resource), (
                    name,
                    resource_type,
                    address,
                )
    (before,) = quickstart_stacks["acme-cost"]["resource"]["aws_ce_cost_category"].values()
    (after,) = grown["acme-cost"]["resource"]["aws_ce_cost_category"].values()
    assert before["name"] == after["name"]
    assert [r["value"] for r in after["rule"]][-1] == naming.cluster_shared_cost_value(cluster["name"])


# --- the commands, on a spec file of two clusters -------------------------------------------------

TWO_CLUSTERS = Path(__file__).parent / "data" / "specs" / "two-clusters.yaml"


def test_the_spec_file_of_two_clusters_is_valid_and_its_schema_takes_it():
    import jsonschema

    from hyperpod_teams.cli.common import spec_json_schema

    result = run_command("validate", str(TWO_CLUSTERS))
    assert result.returncode == 0, result.stderr
    assert "3 teams on 2 clusters (train, infer), 16 nodes in 3 instance groups" in result.stdout
    schema = json.loads(spec_json_schema())
    jsonschema.validate(yaml.safe_load(TWO_CLUSTERS.read_text()), schema)
    both = yaml.safe_load(TWO_CLUSTERS.read_text())
    both["cluster"] = both["clusters"][0]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(both, schema)


def test_a_spec_with_cluster_and_clusters_is_refused_at_its_line(tmp_path):
    spec = tmp_path / "teams.yaml"
    spec.write_text(TWO_CLUSTERS.read_text() + "cluster: {name: train}\n")
    result = run_command("validate", str(spec), "--format", "json")
    assert result.returncode == 2
    (problem,) = json.loads(result.stdout)["problems"]
    assert problem["path"] == "clusters" and problem["line"] == 18
    assert "`cluster` (one cluster) or `clusters` (several), not both" in problem["message"]


def test_stacks_lists_each_clusters_stacks_in_waves_a_place_after_the_teams_home():
    result = run_command("stacks", str(TWO_CLUSTERS), "--format", "json")
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    wave = {name: index for index, names in enumerate(listed["waves"]) for name in names}
    assert wave["acme-infer-team-nlp"] > wave["acme-team-nlp"] > wave["acme-train-cluster"]
    assert wave["acme-infer-k8s-nlp"] > wave["acme-infer-team-nlp"]
    assert listed["region"] == "us-west-2"


def test_synth_writes_the_stacks_of_every_cluster(tmp_path):
    result = run_command("synth", str(TWO_CLUSTERS), "--out", str(tmp_path / "cdktf.out"))
    assert result.returncode == 0, result.stderr
    assert "Building the stacks of 3 teams on 2 clusters" in result.stderr
    manifest = json.loads((tmp_path / "cdktf.out" / "manifest.json").read_text())
    several = validate_several_clusters(yaml.safe_load(TWO_CLUSTERS.read_text()))
    assert sorted(manifest["stacks"]) == sorted(s.name for s in several_clusters_stack_plan(several))
    # The inference cluster's stacks run in its Region.
    infer = json.loads((tmp_path / "cdktf.out" / "stacks" / "acme-infer-cluster" / "cdk.tf.json").read_text())
    assert infer["provider"]["aws"][0]["region"] == "us-east-1"


def test_the_report_shows_each_team_on_each_cluster_and_where_its_spend_goes():
    result = run_command("report", str(TWO_CLUSTERS))
    assert result.returncode == 0, result.stderr
    text = result.stdout
    several = validate_several_clusters(yaml.safe_load(TWO_CLUSTERS.read_text()))
    assert "| team | home | on `train` | on `infer` |" in text
    assert "| `research` | `infer` | — | 1 x ml.g6e.12xlarge (LendAndBorrow) |" in text
    # Each team's share of each cluster's shared spend: that cluster's split charge rule.
    train, infer = (cost.shared_split(several.views[c]).percentages for c in ("train", "infer"))
    assert f"| `nlp` | `nlp` | {train['nlp']} % | {infer['nlp']} % | 25,000 USD |" in text
    assert f"| `vision` | `vision` | {train['vision']} % | — | none |" in text
    # Each cluster's own sections, from its view: its teams only.
    infer_part = text.split("## Cluster infer (account 111122223333, us-east-1)")[1]
    assert "#### Team `research`" in infer_part and "#### Team `vision`" not in infer_part


def test_the_runbook_reaches_each_cluster_of_a_team_in_its_region_and_deploys_in_the_plans_waves():
    """`hyp set-cluster-context --cluster-name NAME --region REGION` (hyp 3.12.0's options)."""
    result = run_command("runbook", str(TWO_CLUSTERS))
    assert result.returncode == 0, result.stderr
    text = result.stdout
    nlp = text.split("Team `nlp`")[1].split("Team `vision`")[0]
    assert "hyp set-cluster-context --cluster-name train --region us-west-2" in nlp
    assert "hyp set-cluster-context --cluster-name infer --region us-east-1" in nlp
    research = text.split("Team `research`")[1]
    assert "--cluster-name infer --region us-east-1" in research and "--cluster-name train" not in research
    several = validate_several_clusters(yaml.safe_load(TWO_CLUSTERS.read_text()))
    waves = deploy_waves(several_clusters_stack_plan(several))
    assert f"- wave {len(waves)}: `{waves[-1][0].name}`" in text
    # The repair after an update of the cost category writes the several clusters' definition.
    repair = text.split("## After a change to the cost category")[1]
    assert '"Source":"shared-platform-train"' in repair and '"Source":"shared-platform-infer"' in repair


def test_deploy_policy_of_several_clusters_in_two_accounts_is_given_per_account(tmp_path):
    data = yaml.safe_load(TWO_CLUSTERS.read_text())
    data["clusters"][1]["account_id"] = "444455556666"
    spec = tmp_path / "two-accounts.yaml"
    spec.write_text(yaml.safe_dump(data))
    result = run_command("deploy-policy", str(spec))
    assert result.returncode == 2 and "give --account, one of 111122223333" in result.stderr.replace("\n", " ")
    result = run_command("deploy-policy", str(spec), "--account", "444455556666")
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "arn:aws:eks:us-east-1:444455556666:cluster/infer-eks" in text and "us-west-2" not in text


def test_the_report_of_plans_of_several_clusters_names_each_change_with_its_stack_and_team(tmp_path):
    """A plan of nlp's place on infer that deletes its compute quota there: the report alerts on it
    and counts it as nlp's, though the stack is no one-cluster spec's team stack."""
    quota = {"type_name": "AWS::SageMaker::ComputeQuota", "desired_state": "{}"}
    plan = {
        "format_version": "1.2",
        "resource_changes": [
            {
                "address": "aws_cloudcontrolapi_resource.compute-quota",
                "type": "aws_cloudcontrolapi_resource",
                "change": {"actions": ["delete"], "before": quota, "after": None},
            }
        ],
    }
    path = tmp_path / "acme-infer-team-nlp" / "plan.json"
    path.parent.mkdir()
    path.write_text(json.dumps(plan))
    result = run_command("report", str(TWO_CLUSTERS), "--plan", str(path))
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "acme-infer-team-nlp: the compute quota (task governance deletes the team's namespace" in text
    (row,) = [
        line for line in text.splitlines() if "aws_cloudcontrolapi_resource.compute-quota" in line and "|" in line
    ]
    assert "nlp" in row, row


def test_load_spec_names_the_function_that_reads_several_clusters():
    from hyperpod_teams import load_platform, load_spec
    from hyperpod_teams.spec.problems import SpecError

    with pytest.raises(SpecError) as raised:
        load_spec(TWO_CLUSTERS)
    (problem,) = raised.value.problems
    assert "hyperpod_teams.load_platform" in (problem.hint or "")
    assert isinstance(load_platform(TWO_CLUSTERS), SeveralClusters)


def test_a_plan_that_drops_a_clusters_shared_spend_alerts_that_the_cluster_leaves(tmp_path):
    """Day 2 with infer removed from the spec (its stacks leave the app, nothing destroys them): the
    cost stack's plan updates the cost category from the one of both clusters to the one of train
    alone (each as the stacks synthesize it), and the review says infer leaves and what to do."""
    from hyperpod_teams.spec import validate_platform

    def category(data: dict, folder: str) -> dict:
        (tmp_path / folder).mkdir()
        stacks = synthesize_stacks(validate_platform(data), tmp_path / folder / "cdktf.out")
        (resource,) = stacks["acme-cost"]["resource"]["aws_ce_cost_category"].values()
        return resource

    data = yaml.safe_load(TWO_CLUSTERS.read_text())
    before = category(data, "both")
    shrunk = copy.deepcopy(data)  # infer gone; research, which was there alone, moved to train
    shrunk["clusters"] = shrunk["clusters"][:1]
    for team in shrunk["teams"]:
        team["placements"] = {"train": team["placements"].get("train", {"quota": []})}
        team.get("studio", {}).pop("home", None)
    after = category(shrunk, "shrunk")
    spec = tmp_path / "shrunk.yaml"
    spec.write_text(yaml.safe_dump(shrunk))
    plan = {
        "format_version": "1.2",
        "resource_changes": [
            {
                "address": "aws_ce_cost_category.cost-category",
                "type": "aws_ce_cost_category",
                "change": {"actions": ["update"], "before": before, "after": after},
            }
        ],
    }
    path = tmp_path / "acme-cost" / "plan.json"
    path.parent.mkdir()
    path.write_text(json.dumps(plan))
    result = run_command("report", str(spec), "--plan", str(path))
    assert result.returncode == 0, result.stderr
    assert "Cluster `infer` leaves: this plan drops its shared spend from the cost category" in result.stdout
    assert "`acme-infer-*`" in result.stdout and "Cluster `train` leaves" not in result.stdout


@pytest.mark.parametrize("teams", [120, 498])  # teams and clusters: at most 500 (the cost category)
def test_the_markdown_report_of_several_clusters_fits_in_one_pull_request_comment(teams):
    """As one cluster's: the report of many teams on two clusters is cut to fewer teams per
    section until it fits GitHub's comment (every team's line on each cluster, and where its spend
    goes, stay in the HTML report)."""
    from hyperpod_teams.document import to_markdown
    from hyperpod_teams.review.report import COMMENT_LIMIT
    from hyperpod_teams.review.report_clusters import build_clusters_report, render_clusters_report

    data = two_clusters()
    template = data["teams"][0]
    data["teams"] = [
        {
            **{k: v for k, v in template.items() if k not in ("placements", "studio", "name", "display_name")},
            "name": f"team-{i:03d}",
            "placements": {"train": {"quota": []}, **({"infer": {"quota": []}} if i % 2 else {})},
            "studio": {"home": "train"} if i % 2 else {},
        }
        for i in range(teams)
    ]
    several = validate_several_clusters(data)
    whole = to_markdown(build_clusters_report(several))
    assert len(whole) > COMMENT_LIMIT, len(whole)  # it needs the cut
    text = render_clusters_report(several)
    assert len(text) <= COMMENT_LIMIT, len(text)
    assert "are in the HTML report" in text
