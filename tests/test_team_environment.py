"""Each team's own places in AWS: its SageMaker AI domain and execution role, nothing of others."""

from __future__ import annotations

import json

import pytest

from hyperpod_teams import policies
from hyperpod_teams.spec import load_spec, validate_spec
from tests.conftest import QUICKSTART, synthesize_stacks


def only(mapping: dict) -> dict:
    (value,) = mapping.values()
    return value


def test_team_domain_follows_the_spec(quickstart_stacks):
    spec = load_spec(QUICKSTART)
    team = spec.team("research")
    stack = quickstart_stacks["acme-team-research"]
    domain = only(stack["resource"]["aws_sagemaker_domain"])
    assert domain["domain_name"] == "acme-research" and domain["auth_mode"] == "SSO"
    assert domain["app_network_access_type"] == "VpcOnly"
    assert domain["vpc_id"] == spec.cluster.network.vpc_id and domain["subnet_ids"] == spec.cluster.network.subnet_ids
    settings = domain["default_user_settings"]
    assert settings["execution_role"].startswith("${aws_iam_role.")
    lab = settings["jupyter_lab_app_settings"]
    assert lab["default_resource_spec"]["instance_type"] == team.studio.default_instance_type == "ml.t3.large"
    idle = lab["app_lifecycle_management"]["idle_settings"]
    # Members may pick their own between SageMaker's least (IdleSettings MinIdleTimeoutInMinutes,
    # 60 in the API model) and the team's; left unset, the provider would send 0 for both.
    assert idle == {
        "idle_timeout_in_minutes": 120,
        "lifecycle_management": "ENABLED",
        "min_idle_timeout_in_minutes": 60,
        "max_idle_timeout_in_minutes": 120,
    }


def test_domain_keeps_home_directories_and_cannot_be_destroyed_by_accident(quickstart_stacks):
    domain = only(quickstart_stacks["acme-team-nlp"]["resource"]["aws_sagemaker_domain"])
    assert domain["retention_policy"] == {"home_efs_file_system": "Retain"}
    assert domain["lifecycle"]["prevent_destroy"] is True


def test_every_kms_key_of_every_example_cannot_be_destroyed_by_a_plan(example_stacks):
    """A deleted key makes what it encrypted unreadable: a removed team's kept home directories
    (its domain is kept, `retention_policy = Retain`), the EKS cluster's secrets. The runbook's
    "Remove a team" takes the team's key out of the state instead (tests/test_emulator_tier.py)."""
    keys = [
        (example, stack_name, address, resource)
        for example, stacks in example_stacks.items()
        for stack_name, stack in stacks.items()
        for address, resource in stack.get("resource", {}).get("aws_kms_key", {}).items()
    ]
    assert any(stack.startswith("acme-team-") for _, stack, _, _ in keys)
    unguarded = [(e, s, a) for e, s, a, r in keys if r.get("lifecycle", {}).get("prevent_destroy") is not True]
    assert unguarded == []


def test_domain_tags_propagate_to_apps_and_spaces(quickstart_stacks):
    domain = only(quickstart_stacks["acme-team-nlp"]["resource"]["aws_sagemaker_domain"])
    assert domain["tag_propagation"] == "ENABLED"
    assert domain["tags"] == {
        "hyperpod-teams:organization": "acme",
        "owner": "ml-platform",
        "hyperpod-teams:team": "nlp",
        "hyperpod-teams:cost-center": "CC-1001",
    }


def test_team_groups_are_assigned_to_the_domain_application(quickstart_stacks):
    stack = quickstart_stacks["acme-team-vision"]
    assignments = stack["resource"]["aws_ssoadmin_application_assignment"].values()
    assert len(assignments) == 2
    for assignment in assignments:
        assert assignment["principal_type"] == "GROUP"
        assert "single_sign_on_application_arn" in assignment["application_arn"]
        # group IDs come from the access stack, which resolves the groups in Identity Center
        assert "cross-stack-reference-input-acme-access" in assignment["principal_id"]
        assert "group-vision-" in assignment["principal_id"]


def test_a_team_without_studio_gets_no_domain(quickstart_data, tmp_path):
    quickstart_data["teams"][2]["studio"] = {"enabled": False}
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)
    assert "aws_sagemaker_domain" not in stacks["acme-team-research"]["resource"]
    assert "aws_iam_role" in stacks["acme-team-research"]["resource"]  # jobs still need the role


def test_execution_role_policy_names_only_the_teams_own_resources():
    policy = policies.team_execution_policy(
        org="acme",
        team="nlp",
        account_id="111122223333",
        region="us-west-2",
        eks_cluster_name="ml-shared-eks",
        domain_id="d-nlp",
    )
    for statement in policy["Statement"]:
        assert statement["Effect"] == "Allow"
        assert all(action != "*" and not action.endswith(":*") for action in statement["Action"])
        conditions = json.dumps(statement.get("Condition", {}))
        if statement["Sid"] in (
            "CreateOnlyTaggedWithTheTeam",
            "ManageOnlyTheTeamsOwn",
            "TagOnlyWhileCreating",
            "UseTheTeamsKeys",
        ):
            assert '"hyperpod-teams:team": "nlp"' in conditions.replace("aws:RequestTag/", "").replace(
                "aws:ResourceTag/", ""
            )
        elif statement["Sid"] == "ReadTheSharedHyperPodCluster":
            assert all(
                a.startswith("sagemaker:Describe") or a.startswith("sagemaker:List") for a in statement["Action"]
            )
            assert '"aws:ResourceTag/hyperpod-teams:organization": "acme"' in conditions
        elif statement["Sid"] == "DescribeTheTeamsDomainAndProfiles":
            assert '"aws:ResourceTag/hyperpod-teams:team": "nlp"' in conditions
        elif statement["Sid"] == "ListWhatStudioShows":  # list calls have no resource type
            assert all(
                a.split(":")[1].startswith(("List", "Get")) or a.startswith("ec2:Describe") for a in statement["Action"]
            )
            assert statement["Condition"] == {"StringEquals": {"aws:RequestedRegion": "us-west-2"}}
        elif statement["Sid"] == "ResolveTheOwnExecutionRole":  # hyp in a Studio space
            assert statement["Resource"] == ["arn:aws:iam::111122223333:role/acme-nlp-execution"]
        elif statement["Sid"] == "CheckTheOwnEksAccessEntryFromStudio":
            (entry,) = statement["Resource"]
            assert entry.endswith(":access-entry/ml-shared-eks/role/111122223333/acme-nlp-execution/*")
        elif statement["Sid"] == "PassTheTeamsOwnRolesToSageMakerJobs":
            assert statement["Resource"] == ["arn:aws:iam::111122223333:role/acme-nlp-execution"]
            assert statement["Condition"] == {"StringEquals": {"iam:PassedToService": "sagemaker.amazonaws.com"}}
        elif statement["Sid"] == "SignInToTheRegistry":  # docker login has no resource type
            assert statement["Action"] == ["ecr:GetAuthorizationToken"]
            assert statement["Condition"] == {"StringEquals": {"aws:RequestedRegion": "us-west-2"}}
        elif statement["Sid"] == "ReadTheTeamsImages":
            assert statement["Resource"] == ["arn:aws:ecr:us-west-2:111122223333:repository/acme/nlp/*"]
        else:
            assert statement["Sid"] == "ReadTheSharedEksCluster"
            assert statement["Resource"] == [
                "arn:aws:eks:us-west-2:111122223333:cluster/ml-shared-eks",
                "arn:aws:eks:us-west-2:111122223333:addon/ml-shared-eks/*",
            ]


@pytest.mark.parametrize("region", ["us-gov-west-1", "cn-north-1"])
def test_policies_use_the_partition_of_the_region(region):
    policy = policies.team_execution_policy(
        org="acme", team="nlp", account_id="111122223333", region=region, eks_cluster_name="e"
    )
    assert f"arn:{policies.aws_partition(region)}:sagemaker:{region}:" in json.dumps(policy)


def test_removing_a_team_leaves_other_teams_untouched_and_its_stacks_are_not_destroyed(
    quickstart_data, quickstart_stacks, tmp_path
):
    quickstart_data["teams"] = [t for t in quickstart_data["teams"] if t["name"] != "vision"]
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)
    # The team's stacks leave the app: cdktf deploy no longer touches them, their state and the
    # domain (retained home directories, prevent_destroy) stay until someone destroys on purpose.
    assert "acme-team-vision" not in stacks and "acme-k8s-vision" not in stacks
    for name in ("acme-team-nlp", "acme-k8s-nlp", "acme-team-research", "acme-k8s-research"):
        assert stacks[name] == quickstart_stacks[name], f"{name} changed when another team was removed"


def test_team_roles_reach_kubernetes_as_their_groups_through_access_entries(quickstart_stacks):
    stack = quickstart_stacks["acme-team-nlp"]
    lookups = {body["name_regex"]: body for body in stack["data"]["aws_iam_roles"].values()}
    assert set(lookups) == {
        "^AWSReservedSSO_acme\\-nlp\\-scientists_[0-9a-f]+$",
        "^AWSReservedSSO_acme\\-nlp\\-admins_[0-9a-f]+$",
    }
    assert all(body["path_prefix"] == "/aws-reserved/sso.amazonaws.com/" for body in lookups.values())
    # The Identity Center roles' entries; the Studio execution role's is pinned in test_kubernetes_rbac.
    entries = [e for key, e in stack["resource"]["aws_eks_access_entry"].items() if "studio-access" not in key]
    groups = sorted(group for entry in entries for group in entry["kubernetes_groups"])
    assert groups == ["hyperpod-ns-nlp-namespace-admin-group", "hyperpod-ns-nlp-namespace-level-group"]
    for entry in entries:
        assert entry["type"] == "STANDARD"
        assert entry["principal_arn"].startswith("${one(") and "data.aws_iam_roles." in entry["principal_arn"]
        assert "cross-stack-reference-input-acme-eks" in entry["cluster_name"]
    # the only AWS-managed access policy a member gets is read-only, in the team namespace
    associations = stack["resource"]["aws_eks_access_policy_association"].values()
    assert len(associations) == 3  # scientists, admins, the Studio execution role
    for association in associations:
        assert association["policy_arn"] == "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy"
        assert association["access_scope"] == {"type": "namespace", "namespaces": ["hyperpod-ns-nlp"]}


def test_platform_admins_administer_the_whole_cluster(quickstart_stacks):
    stack = quickstart_stacks["acme-cluster"]
    (lookup,) = stack["data"]["aws_iam_roles"].values()
    assert lookup["name_regex"] == "^AWSReservedSSO_acme\\-platform\\-admins_[0-9a-f]+$"
    (association,) = stack["resource"]["aws_eks_access_policy_association"].values()
    assert association["policy_arn"] == "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
    assert association["access_scope"] == {"type": "cluster"}


def test_library_example_adds_one_team_to_a_cluster_managed_elsewhere(tmp_path):
    import runpy

    from tests.conftest import ROOT

    example = runpy.run_path(str(ROOT / "examples" / "library" / "app.py"))
    example["main"](["app.py", str(QUICKSTART), "vision", str(tmp_path)])
    stack = json.loads((tmp_path / "stacks" / "vision-team" / "cdk.tf.json").read_text())
    assert set(stack["variable"]) == {
        "hyperpod_cluster_arn",
        "eks_cluster_name",
        "scientists_group_id",
        "admins_group_id",
        "admins_permission_set_arn",
    }
    (attachment,) = stack["resource"]["aws_ssoadmin_customer_managed_policy_attachment"].values()
    assert attachment["permission_set_arn"] == "${var.admins_permission_set_arn}"
    (quota,) = stack["resource"]["aws_cloudcontrolapi_resource"].values()
    assert json.loads(quota["desired_state"])["ClusterArn"] == "${var.hyperpod_cluster_arn}"
    assert only(stack["resource"]["aws_sagemaker_domain"])["domain_name"] == "acme-vision"
    assert "aws_budgets_budget" in stack["resource"] and len(stack["resource"]["aws_eks_access_entry"]) == 3
    (aws,) = stack["provider"]["aws"]
    assert aws["default_tags"][0]["tags"]["hyperpod-teams:team"] == "vision"


def test_changing_a_team_leaves_other_teams_stacks_untouched(quickstart_data, quickstart_stacks, tmp_path):
    nlp = quickstart_data["teams"][0]
    nlp["compute"]["quota"][0]["count"] = 2
    nlp["studio"] = {"default_instance_type": "ml.m5.large", "idle_timeout_minutes": 240}
    nlp["budget"]["monthly_limit_usd"] = 30000
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)
    assert stacks["acme-team-nlp"] != quickstart_stacks["acme-team-nlp"]
    for name in ("acme-team-vision", "acme-k8s-vision", "acme-team-research", "acme-k8s-research"):
        assert stacks[name] == quickstart_stacks[name], f"{name} changed when nlp changed"


def test_each_team_domain_is_encrypted_with_the_teams_own_key(quickstart_stacks):
    keys = {}
    for team in ("nlp", "vision", "research"):
        stack = quickstart_stacks[f"acme-team-{team}"]
        # The Studio key; the team's data key is the other (tests/test_team_data.py).
        (key_name,) = [name for name in stack["resource"]["aws_kms_key"] if "studio" in name]
        (domain,) = stack["resource"]["aws_sagemaker_domain"].values()
        assert domain["kms_key_id"] == f"${{aws_kms_key.{key_name}.arn}}"
        aliases = {a["name"] for a in stack["resource"]["aws_kms_alias"].values()}
        assert aliases == {f"alias/acme-{team}-studio", f"alias/acme-{team}-data"}
        keys[team] = stack["resource"]["aws_kms_key"][key_name]["description"]
    assert len(set(keys.values())) == 3  # one key per team, none shared
