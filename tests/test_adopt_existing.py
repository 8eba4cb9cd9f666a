"""Adopting a HyperPod cluster that already runs (cluster.existing_hyperpod_cluster_name): the
stacks look it up and never create, change or replace it; real offline plans against a state
stand-in show it."""

from __future__ import annotations

import json

import pytest
import yaml

from hyperpod_teams import addons, cloudformation, naming, stack_plan
from hyperpod_teams.constructs.hyperpod import TASK_GOVERNANCE_ADDON
from hyperpod_teams.constructs.team import DOMAIN_TYPE
from hyperpod_teams.spec import SpecError, load_spec, validate_spec
from tests.aws_stand_in import World, serving
from tests.conftest import EXAMPLES, synthesize_stacks
from tests.offline_terraform import (
    DATA_STAND_INS,
    STUB_OUTPUT,
    Terraform,
    in_parallel,
    offline_plan_config,
    stub_remote_states,
    terraform_or_skip,
    write_stack,
)

EXAMPLE = EXAMPLES / "existing-hyperpod" / "teams.yaml"


@pytest.fixture(scope="module")
def adopted_stacks(tmp_path_factory):
    return synthesize_stacks(load_spec(EXAMPLE), tmp_path_factory.mktemp("adopt"))


def example_data() -> dict:
    return yaml.safe_load(EXAMPLE.read_text())


def test_an_adopted_cluster_is_looked_up_by_name_and_never_created(adopted_stacks):
    stack = adopted_stacks["initech-cluster"]
    lookups = {(d["type_name"], d["identifier"]) for d in stack["data"]["aws_cloudcontrolapi_resource"].values()}
    # A secondary identifier, as JSON (Cloud Control user guide, "Identifying resources").
    assert ("AWS::SageMaker::Cluster", '{"ClusterName": "ml-prod"}') in lookups
    # The example keeps its scheduler config: nothing in Cloud Control is created.
    assert "aws_cloudcontrolapi_resource" not in stack["resource"]
    for kind in ("aws_s3_bucket", "aws_iam_role", "terraform_data"):
        assert kind not in stack["resource"], f"an adopted cluster needs no {kind}"
    assert "initech-hyperpod-deps" not in adopted_stacks, "the adopted cluster runs its dependency chart already"


def test_team_quotas_point_at_the_adopted_clusters_arn(adopted_stacks):
    stack = adopted_stacks["initech-team-ads"]  # search keeps its quota; ads gets one created
    (quota,) = [
        r
        for r in stack["resource"]["aws_cloudcontrolapi_resource"].values()
        if r["type_name"] == "AWS::SageMaker::ComputeQuota"
    ]
    assert "cross-stack-reference-input-initech-cluster" in quota["desired_state"]


def test_settings_only_a_created_cluster_uses_are_refused_by_name():
    data = example_data()
    data["cluster"]["node_recovery"] = "None"
    data["cluster"]["lifecycle_scripts_s3_uri"] = "s3://initech-lifecycle/scripts/"
    data["cluster"]["instance_groups"][0]["deep_health_checks"] = ["InstanceStress"]
    data["cluster"]["cloudwatch_observability"] = True  # needs the node role, which only a created cluster has
    with pytest.raises(SpecError) as raised:
        validate_spec(data)
    (problem,) = raised.value.problems
    assert problem.location == "cluster.existing_hyperpod_cluster_name"
    for name in (
        "lifecycle_scripts_s3_uri",
        "node_recovery",
        "instance_groups[0].deep_health_checks",
        "cloudwatch_observability",
    ):
        assert name in problem.message


def test_an_adopted_cluster_needs_its_existing_eks_cluster():
    data = example_data()
    data["cluster"]["eks"] = {"create": True}
    with pytest.raises(SpecError) as raised:
        validate_spec(data)
    assert any(p.location == "cluster.eks" and "describe-cluster" in (p.hint or "") for p in raised.value.problems)


def test_stack_plan_says_the_cluster_stack_only_looks_it_up():
    plan = {s.name: s for s in stack_plan.stack_plan(validate_spec(example_data()))}
    assert plan["initech-cluster"].holds.startswith("lookup of the existing HyperPod cluster")


# --- the world the example adopts, as AWS describes it -----------------------------------------

ACCOUNT, REGION, INSTANCE = "777788889999", "eu-west-1", "ssoins-7777888899990000"
CLUSTER_ARN = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/offline0stub"
PLATFORM_TAGS = [
    {"Key": "hyperpod-teams:organization", "Value": "initech"},
    {"Key": "hyperpod-teams:platform", "Value": "shared"},
]
SEARCH_TAGS = [
    {"Key": "hyperpod-teams:organization", "Value": "initech"},
    {"Key": "hyperpod-teams:team", "Value": "search"},
]
GROUP_IDS = {
    f"initech-{name}": f"9067d8b3c2-1a2b3c4d-0000-0000-0000-00000000000{i}"
    for i, name in enumerate(
        ["search-scientists", "search-admins", "ads-scientists", "ads-admins", "platform-admins"], 1
    )
}


def adopted_world() -> World:
    """What the example says exists, as Cloud Control's GetResource, SageMaker's DescribeDomain,
    SSO Admin's DescribePermissionSet and EKS's DescribeAddon describe it (API reference
    response syntax), matching the spec: the world the first plan meets."""
    spec = load_spec(EXAMPLE)
    governance = spec.cluster.task_governance
    search = spec.team("search")
    domain_id = search.studio.existing_domain_id
    permission_set = search.existing_permission_set("scientists")
    quota_arn = search.compute.existing_quota_arn
    assert domain_id and permission_set and governance.existing_scheduler_config_arn and quota_arn
    domain_settings = {
        "DomainId": domain_id,
        "DomainName": "search-studio",  # not the name the stacks would give a new domain
        "VpcId": "vpc-0777788889999aaaa",
        "SubnetIds": ["subnet-0777788889999aaaa"],
        "AppNetworkAccessType": "VpcOnly",
        "AuthMode": "SSO",
        # The domain's own customer-managed key, which it keeps (AWS fixes it at creation).
        "KmsKeyId": f"arn:aws:kms:{REGION}:{ACCOUNT}:key/0a1b2c3d-0000-4000-8000-000000000001",
    }
    return World(
        cloud_control={
            (cloudformation.CLUSTER_TYPE, cloudformation.cluster_name_identifier("ml-prod")): {
                "ClusterArn": CLUSTER_ARN,
                "ClusterName": "ml-prod",
                # The EKS cluster's ARN as the EKS stack's stub state gives it.
                "Orchestrator": {"Eks": {"ClusterArn": STUB_OUTPUT}},
                "Tags": PLATFORM_TAGS,
            },
            (cloudformation.SCHEDULER_CONFIG_TYPE, governance.existing_scheduler_config_arn): {
                "ClusterSchedulerConfigArn": governance.existing_scheduler_config_arn,
                "ClusterArn": CLUSTER_ARN,
                "Name": "default-policy",
                "SchedulerConfig": {
                    "FairShare": "Enabled",
                    "PriorityClasses": [{"Name": "training", "Weight": 50}, {"Name": "inference", "Weight": 100}],
                },
                "Tags": PLATFORM_TAGS,
            },
            (cloudformation.COMPUTE_QUOTA_TYPE, quota_arn): {
                "ComputeQuotaArn": quota_arn,
                # The team stack reads the cluster's ARN from the cluster stack's stub state.
                "ClusterArn": STUB_OUTPUT,
                "Name": "search-gpus",
                "ComputeQuotaTarget": {"TeamName": "search", "FairShareWeight": 0},
                "ComputeQuotaConfig": {
                    "ComputeQuotaResources": [{"InstanceType": "ml.p5.48xlarge", "Count": 2}],
                    "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 50},
                    "PreemptTeamTasks": "LowerPriority",
                },
                "ActivationState": "Enabled",
                "Tags": SEARCH_TAGS,
            },
            (DOMAIN_TYPE, domain_id): domain_settings,
        },
        domains={
            domain_id: {
                **domain_settings,
                "DomainArn": f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:domain/{domain_id}",
                "Status": "InService",
                "HomeEfsFileSystemId": "fs-0123456789abcdef0",
                "SingleSignOnApplicationArn": f"arn:aws:sso::{ACCOUNT}:application/{INSTANCE}/apl-0a1b2c3d4e5f6a7b",
                "DefaultUserSettings": {
                    "ExecutionRole": f"arn:aws:iam::{ACCOUNT}:role/search-studio-role",
                    "SecurityGroups": ["sg-0777788889999aaaa"],
                },
            }
        },
        permission_sets={
            permission_set.arn: {
                "Name": permission_set.name,
                "PermissionSetArn": permission_set.arn,
                "Description": "Search team data scientists",
                "SessionDuration": "PT8H",
                "CreatedDate": 1700000000.0,
                "InlinePolicy": json.dumps({"Version": "2012-10-17", "Statement": []}),
            }
        },
        account_assignments=[
            {
                "AccountId": ACCOUNT,
                "PermissionSetArn": permission_set.arn,
                "PrincipalType": "GROUP",
                "PrincipalId": GROUP_IDS["initech-search-scientists"],
            }
        ],
        groups=GROUP_IDS,
        addons={
            (STUB_OUTPUT, TASK_GOVERNANCE_ADDON): {
                "addonName": TASK_GOVERNANCE_ADDON,
                "clusterName": STUB_OUTPUT,
                "status": "ACTIVE",
                "addonVersion": "v1.0.0-eksbuild.1",
                "addonArn": f"arn:aws:eks:{REGION}:{ACCOUNT}:addon/{STUB_OUTPUT}/{TASK_GOVERNANCE_ADDON}/0a1b2c3d",
                "tags": {},
            },
            # SageMaker Spaces, installed by hand (test_an_add_on_taken_over_is_imported_by_the_first_plan).
            (STUB_OUTPUT, addons.SPACES_ADDON): {
                "addonName": addons.SPACES_ADDON,
                "clusterName": STUB_OUTPUT,
                "status": "ACTIVE",
                "addonVersion": "v0.2.0-eksbuild.1",
                "addonArn": f"arn:aws:eks:{REGION}:{ACCOUNT}:addon/{STUB_OUTPUT}/{addons.SPACES_ADDON}/4e5f6a7b",
                "tags": {},
            },
        },
    )


#: Only the SSO roles' lookup keeps a stand-in value: every other lookup and import asks the stand-in for AWS.
ROLE_STAND_IN = {key: value for key, value in DATA_STAND_INS.items() if key[0] == "aws_iam_roles"}


def plan_against(world: World, stacks: dict, names: list[str], tmp_path, edit=None) -> dict[str, dict | str]:
    """Real `terraform plan` of the named stacks, offline, with imports and lookups answered by the
    stand-in for AWS: each plan's JSON, or terraform's error output. `edit(name, stack)` may
    change a stack's copy first."""
    terraform = terraform_or_skip(tmp_path)
    directories = {}
    for name in names:
        stack = offline_plan_config(stacks[name], ROLE_STAND_IN)
        if edit is not None:
            edit(name, stack)
        directories[name] = (write_stack(tmp_path, name, stack), stack)
    for directory, stack in directories.values():
        stub_remote_states(directory, stack)
    with serving(world) as endpoint:
        runner = Terraform({**terraform.env, "AWS_ENDPOINT_URL": endpoint})
        names_in_order = list(directories)
        found = in_parallel(lambda name: runner.plan(directories[name][0]), names_in_order)
        plans = dict(zip(names_in_order, found, strict=True))
    assert not world.unanswered, f"the plans asked AWS for what the stand-in does not answer: {world.unanswered}"
    return plans


ADOPTING = ["initech-cluster", "initech-team-search", "initech-access", "initech-team-ads"]


@pytest.fixture(scope="module")
def first_plans(adopted_stacks, tmp_path_factory):
    return plan_against(adopted_world(), adopted_stacks, ADOPTING, tmp_path_factory.mktemp("first-plans"))


def changes_of(plan: dict | str) -> list[dict]:
    assert isinstance(plan, dict), plan
    return plan["resource_changes"]


@pytest.mark.terraform
def test_first_plans_import_what_exists_and_replace_nothing(first_plans):
    spec = load_spec(EXAMPLE)
    search = spec.team("search")
    scientists = search.existing_permission_set("scientists")
    assert scientists is not None
    instance = spec.identity.identity_center.instance_arn
    imports = {
        (c["type"], c["change"]["importing"]["id"])
        for plan in first_plans.values()
        for c in changes_of(plan)
        if c["change"].get("importing")
    }
    assert imports == {
        ("aws_eks_addon", f"{STUB_OUTPUT}:{TASK_GOVERNANCE_ADDON}"),
        ("aws_sagemaker_domain", search.studio.existing_domain_id),
        ("aws_ssoadmin_permission_set", f"{scientists.arn},{instance}"),
        ("aws_ssoadmin_permission_set_inline_policy", f"{scientists.arn},{instance}"),
        (
            "aws_ssoadmin_account_assignment",
            f"{GROUP_IDS['initech-search-scientists']},GROUP,{ACCOUNT},AWS_ACCOUNT,{scientists.arn},{instance}",
        ),
    }
    for name, plan in first_plans.items():
        for change in changes_of(plan):
            actions = change["change"]["actions"]
            assert "delete" not in actions, f"{name}: {change['address']} {actions}"
            if change["change"].get("importing"):
                assert actions in (["no-op"], ["update"]), f"{name}: {change['address']} {actions}"
            body = change["change"]["after"] or {}
            assert body.get("type_name") not in (
                cloudformation.CLUSTER_TYPE,
                cloudformation.SCHEDULER_CONFIG_TYPE,
            ), f"{name} would create a HyperPod cluster or a second scheduler config"
            assert not (
                change["type"] == "aws_cloudcontrolapi_resource"
                and name == "initech-team-search"
                and body.get("type_name") == cloudformation.COMPUTE_QUOTA_TYPE
            ), "team search's quota exists: a second one would fail"
    # Team ads is new: its quota and domain are created.
    created = {
        (c["type"], (c["change"]["after"] or {}).get("type_name")) for c in changes_of(first_plans["initech-team-ads"])
    }
    assert ("aws_cloudcontrolapi_resource", cloudformation.COMPUTE_QUOTA_TYPE) in created
    assert ("aws_sagemaker_domain", None) in created


@pytest.mark.terraform
def test_an_imported_domain_keeps_what_aws_fixed_at_its_creation(first_plans):
    (domain,) = [c for c in changes_of(first_plans["initech-team-search"]) if c["type"] == "aws_sagemaker_domain"]
    after = domain["change"]["after"]
    assert (after["domain_name"], after["vpc_id"], after["subnet_ids"], after["kms_key_id"]) == (
        "search-studio",
        "vpc-0777788889999aaaa",
        ["subnet-0777788889999aaaa"],
        f"arn:aws:kms:{REGION}:{ACCOUNT}:key/0a1b2c3d-0000-4000-8000-000000000001",
    )
    # Taking it over points its users at the team's execution role, created in the same plan.
    assert domain["change"]["before"]["default_user_settings"][0]["execution_role"].endswith("/search-studio-role")
    assert domain["change"]["after_unknown"]["default_user_settings"][0]["execution_role"] is True


@pytest.mark.terraform
def test_the_report_shows_imports_as_their_own_kind_of_change(first_plans):
    from hyperpod_teams.review.plan_summary import StackPlan
    from hyperpod_teams.review.report import render_report

    plans = [StackPlan(name, plan) for name, plan in first_plans.items() if isinstance(plan, dict)]
    report = render_report(load_spec(EXAMPLE), plans)
    section = report[report.index("### Imports") :]
    section = section[: section.index("\n#")]
    assert section.count("| initech-") == 5, section
    assert "`d-4f8k2m6n9p1q`" in section and "`description`" in section
    assert "Nothing is deleted or replaced." in report
    header = next(line for line in report.splitlines() if line.startswith("| team | stack |"))
    assert "| import |" in header


@pytest.mark.terraform
def test_an_add_on_taken_over_is_imported_by_the_first_plan(tmp_path):
    """`cluster.spaces.existing_addon: take_over` on the running cluster: the first plan imports the add-on
    (CLUSTER_NAME:ADDON_NAME) and makes its controller's role, replacing and deleting nothing."""
    data = example_data()
    data["cluster"]["spaces"] = {"existing_addon": "take_over", "install_ebs_csi_driver": False}
    stacks = synthesize_stacks(validate_spec(data), tmp_path / "synth")
    (plan,) = plan_against(adopted_world(), stacks, ["initech-cluster"], tmp_path).values()
    imported = {c["change"]["importing"]["id"] for c in changes_of(plan) if c["change"].get("importing")}
    assert f"{STUB_OUTPUT}:{addons.SPACES_ADDON}" in imported
    actions = {tuple(c["change"]["actions"]) for c in changes_of(plan)}
    assert not actions & {("delete",), ("delete", "create"), ("create", "delete")}, actions
    created = {c["change"]["after"].get("name") for c in changes_of(plan) if c["type"] == "aws_iam_role"}
    assert created == {naming.spaces_role_name("initech")}


@pytest.mark.terraform
def test_setting_retention_policy_on_an_imported_domain_would_replace_it_and_stops_the_plan(adopted_stacks, tmp_path):
    """Why an imported domain leaves retention_policy unset: provider 5.100 cannot read it back
    and replaces the domain to set it; prevent_destroy turns that into a stopped plan."""

    def set_retention(name, stack):
        for domain in stack["resource"]["aws_sagemaker_domain"].values():
            domain["retention_policy"] = {"home_efs_file_system": "Retain"}

    (plan,) = plan_against(adopted_world(), adopted_stacks, ["initech-team-search"], tmp_path, set_retention).values()
    assert isinstance(plan, str) and "Instance cannot be destroyed" in plan, plan


def _world_with(change) -> World:
    world = adopted_world()
    change(world)
    return world


@pytest.mark.terraform
@pytest.mark.parametrize(
    ("stack", "change", "message"),
    [
        (
            "initech-cluster",
            lambda w: w.described(cloudformation.CLUSTER_TYPE)["Orchestrator"]["Eks"].update(
                ClusterArn="arn:aws:eks:eu-west-1:777788889999:cluster/other"
            ),
            "is not orchestrated by the spec's EKS cluster",
        ),
        (
            "initech-cluster",
            lambda w: w.described(cloudformation.SCHEDULER_CONFIG_TYPE)["SchedulerConfig"]["PriorityClasses"][0].update(
                Weight=60
            ),
            "other priority classes than cluster.task_governance.priority_classes",
        ),
        (
            "initech-cluster",
            lambda w: w.described(cloudformation.CLUSTER_TYPE).update(Tags=[]),
            "aws sagemaker add-tags --region eu-west-1 --resource-arn $(aws sagemaker describe-cluster",
        ),
        (
            "initech-team-search",
            lambda w: w.described(cloudformation.COMPUTE_QUOTA_TYPE)["ComputeQuotaTarget"].update(TeamName="ads"),
            "is another team's",
        ),
        (
            "initech-team-search",
            lambda w: w.described(cloudformation.COMPUTE_QUOTA_TYPE)["ComputeQuotaConfig"]["ComputeQuotaResources"][
                0
            ].update(Count=3),
            "guarantees other instance counts than teams[].compute.quota",
        ),
        (
            "initech-team-search",
            lambda w: w.described(cloudformation.COMPUTE_QUOTA_TYPE)["ComputeQuotaConfig"]["ComputeQuotaResources"][
                0
            ].update(Accelerators=8),
            "guarantees other amounts than teams[].compute.quota (accelerators",
        ),
        (
            "initech-team-search",
            lambda w: w.described(DOMAIN_TYPE).update(AuthMode="IAM"),
            "does not use IAM Identity Center",
        ),
    ],
    ids=[
        "other-eks",
        "other-priorities",
        "untagged-cluster",
        "other-team",
        "other-counts",
        "other-accelerators",
        "iam-domain",
    ],
)
def test_what_exists_but_differs_from_the_spec_stops_the_plan(adopted_stacks, tmp_path, stack, change, message):
    (plan,) = plan_against(_world_with(change), adopted_stacks, [stack], tmp_path).values()
    assert isinstance(plan, str), "the plan went through"
    assert message in " ".join(plan.split()), plan


@pytest.mark.terraform
def test_a_paused_quota_stops_the_plan_only_where_the_spec_says_active(adopted_stacks, tmp_path):
    """`teams[].compute.active` is an addition to version 1 (default true): a spec silent on it, as every
    spec before it, adopts a quota paused in AWS as it is (it planned clean at 0.2.0); a spec that says
    `active: true` is held to it."""
    paused = lambda w: w.described(cloudformation.COMPUTE_QUOTA_TYPE).update(ActivationState="Disabled")  # noqa: E731
    for folder in ("silent", "said", "plan"):
        (tmp_path / folder).mkdir()
    (plan,) = plan_against(_world_with(paused), adopted_stacks, ["initech-team-search"], tmp_path / "silent").values()
    assert isinstance(plan, dict), plan
    data = example_data()
    search = next(t for t in data["teams"] if t["name"] == "search")
    search["compute"]["active"] = True
    said = synthesize_stacks(validate_spec(data), tmp_path / "said")
    (plan,) = plan_against(_world_with(paused), said, ["initech-team-search"], tmp_path / "plan").values()
    assert isinstance(plan, str) and "is paused, but teams[].compute.active is true" in " ".join(plan.split())


def test_runbook_prints_the_command_that_lists_the_adopted_clusters_groups():
    from hyperpod_teams.review.runbook import render_runbook

    runbook = render_runbook(load_spec(EXAMPLE), spec_path=str(EXAMPLE))
    assert "aws sagemaker describe-cluster --cluster-name ml-prod --region eu-west-1" in runbook
    assert "InstanceGroups[].[InstanceGroupName,InstanceType,CurrentCount]" in runbook
    assert "hyperpod-deps" not in runbook


# --- what the spec may say exists ------------------------------------------------------------


def problems_of(data: dict) -> list:
    with pytest.raises(SpecError) as raised:
        validate_spec(data)
    return raised.value.problems


def test_a_kept_quota_or_scheduler_config_needs_an_adopted_cluster():
    data = example_data()
    del data["cluster"]["existing_hyperpod_cluster_name"]
    locations = {p.location for p in problems_of(data)}
    assert {
        "cluster.task_governance.existing_addon",
        "cluster.task_governance.existing_scheduler_config_arn",
        "teams[0].compute.existing_quota_arn",
    } <= locations


def test_an_existing_arn_in_another_region_or_account_is_refused_by_name():
    data = example_data()
    data["teams"][0]["compute"]["existing_quota_arn"] = (
        "arn:aws:sagemaker:us-east-1:777788889999:compute-quota/s8d2f6g1h5j9"
    )
    data["cluster"]["task_governance"]["existing_scheduler_config_arn"] = (
        "arn:aws:sagemaker:eu-west-1:111122223333:cluster-scheduler-config/k3x9q2w7m1p4"
    )
    problems = {p.location: p.message for p in problems_of(data)}
    assert (
        "not in the organization's region and account (eu-west-1, 777788889999)"
        in problems["teams[0].compute.existing_quota_arn"]
    )
    assert "cluster.task_governance.existing_scheduler_config_arn" in problems


def test_a_permission_set_of_another_identity_center_instance_is_refused():
    data = example_data()
    existing = data["teams"][0]["existing_permission_sets"]["scientists"]
    existing["arn"] = existing["arn"].replace("ssoins-7777888899990000", "ssoins-0000111122223333")
    (problem,) = problems_of(data)
    assert problem.location == "teams[0].existing_permission_sets.scientists.arn"
    assert "ssoins-0000111122223333" in problem.message


def test_one_existing_resource_cannot_be_taken_over_twice():
    data = example_data()
    data["teams"][1]["existing_permission_sets"] = data["teams"][0]["existing_permission_sets"]
    (problem,) = problems_of(data)
    assert problem.location == "teams[1].existing_permission_sets.scientists.arn"
    assert "teams.0.existing_permission_sets.scientists.arn already" in problem.message


def test_a_domain_to_take_over_needs_studio():
    data = example_data()
    data["teams"][0]["studio"]["enabled"] = False
    (problem,) = problems_of(data)
    assert problem.location == "teams[0].studio.existing_domain_id"


def test_a_malformed_identifier_names_the_rule():
    data = example_data()
    data["teams"][0]["studio"]["existing_domain_id"] = "search-studio"
    (problem,) = problems_of(data)
    assert problem.location == "teams[0].studio.existing_domain_id"
    assert "domain ID such as d-" in problem.message + (problem.hint or "")


# --- plan summary, report and runbook (pure) ------------------------------------------------------


def test_the_plan_summary_counts_an_import_apart_from_updates_and_creates():
    from hyperpod_teams.review.plan_summary import StackPlan, changes

    def change(address, actions, importing=None, before=None, after=None):
        body = {"actions": actions, "before": before, "after": after, "after_unknown": {}}
        if importing:
            body["importing"] = {"id": importing}
        return {"address": address, "type": address.split(".")[0], "change": body}

    plan = {
        "resource_changes": [
            change("aws_sagemaker_domain.d", ["update"], "d-4f8k2m6n9p1q", {"tags": {}}, {"tags": {"a": "b"}}),
            change("aws_eks_addon.a", ["no-op"], "c:a"),
            change("aws_iam_role.r", ["create"]),
            change("aws_iam_role.s", ["update"], None, {"x": 1}, {"x": 2}),
        ]
    }
    found = {c.address: c for c in changes([StackPlan("initech-team-search", plan)], load_spec(EXAMPLE))}
    assert found["aws_sagemaker_domain.d"].action == "import"
    assert found["aws_sagemaker_domain.d"].updates == ("tags",)
    assert found["aws_eks_addon.a"].action == "import" and found["aws_eks_addon.a"].updates == ()
    assert (found["aws_iam_role.r"].action, found["aws_iam_role.s"].action) == ("create", "update")


def test_runbook_prints_the_command_behind_every_identifier_the_spec_gives():
    from hyperpod_teams.adoption import existing_resources
    from hyperpod_teams.review.runbook import render_runbook

    spec = load_spec(EXAMPLE)
    runbook = render_runbook(spec, spec_path="teams.yaml")
    section = runbook[runbook.index("## Adopting what runs already") :]
    existing = existing_resources(spec)
    assert {e.how for e in existing} == {"looked up", "imported", "kept as it is", "left alone"}
    for item in existing:
        row = next(line for line in section.splitlines() if f"`{item.field}`" in line)
        assert f"`{item.lookup}`" in row
        # Each cell's code spans close: an odd count of backticks would break the table in a PR comment.
        assert all(cell.count("`") % 2 == 0 for cell in row.split("|")), row
    assert "aws sagemaker list-compute-quotas" in section and "aws sso-admin list-permission-sets" in section
    assert "`initech-access`, `initech-cluster`, `initech-team-search`" in section
    assert "terraform show -json plan.tfplan" in section and "Nothing is deleted or replaced" in section


def test_the_report_says_what_exists_and_how_each_is_treated():
    from hyperpod_teams.review.report import render_report

    report = render_report(load_spec(EXAMPLE))
    section = report[report.index("## What exists already") : report.index("## Access, team by team")]
    for identifier, how in [
        ("ml-prod", "looked up"),
        ("d-4f8k2m6n9p1q", "imported"),
        ("compute-quota/s8d2f6g1h5j9", "kept as it is"),
        ("ml-prod-eks:amazon-sagemaker-hyperpod-taskgovernance", "imported"),
        ("ml-prod-eks:amazon-sagemaker-spaces", "left alone"),
        ("ml-prod-eks:amazon-sagemaker-hyperpod-inference", "left alone"),
        ("ml-prod-eks:amazon-sagemaker-hyperpod-observability", "left alone"),
    ]:
        row = next(line for line in section.splitlines() if identifier in line)
        assert f"| {how} |" in row, row
    # The access matrix shows the permission set the team's scientists keep, and the domain taken over.
    assert "`SearchScientists`" in report and "`AWSReservedSSO_SearchScientists_…`" in report


def test_leaving_the_addon_alone_keeps_it_out_of_the_stacks(tmp_path):
    data = example_data()
    data["cluster"]["task_governance"]["existing_addon"] = "leave_alone"
    del data["cluster"]["task_governance"]["existing_scheduler_config_arn"]
    stacks = synthesize_stacks(validate_spec(data), tmp_path)
    cluster = stacks["initech-cluster"]
    assert "aws_eks_addon" not in cluster["resource"] and "aws_iam_role" not in cluster["resource"]
    (config,) = cluster["resource"]["aws_cloudcontrolapi_resource"].values()
    assert config["type_name"] == "AWS::SageMaker::ClusterSchedulerConfig" and "depends_on" not in config
    assert "import" not in cluster
