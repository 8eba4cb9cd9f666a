"""The AWS calls a team member's journey makes, as the HyperPod CLI (aws/sagemaker-hyperpod-cli,
v3.9.0, the release the dependency chart is pinned to) makes them, allowed by the team role's
permission set for the own team and refused for another team's (tests/iam_evaluation.py).

`hyp set-cluster-context --cluster-name <hyperpod cluster>` (commands/cluster.py, set_cluster_context):
  1. sts:GetCallerIdentity (cli/cluster_utils.py, _get_current_aws_identity) - needs no grant
  2. sagemaker:DescribeCluster on the HyperPod cluster (commands/cluster.py)
  3. iam:GetRole on the caller's own role, for its ARN with the Identity Center path
     (cluster_utils.py, _get_current_aws_identity; on a refusal it guesses the ARN without the path)
  4. eks:DescribeAccessEntry on the caller's own access entry (cluster_utils.py,
     validate_eks_access_before_kubeconfig_update: a refusal exits 1)
  5. eks:DescribeCluster (`aws eks update-kubeconfig`, commands/cluster.py _update_kube_config)
`hyp list-cluster` adds sagemaker:ListClusters (commands/cluster.py, _get_hyperpod_clusters).
"""

from __future__ import annotations

import re

import pytest

from hyperpod_teams import policies
from tests.iam_evaluation import allows
from tests.test_team_data import data_calls

ACCOUNT = "111122223333"
REGION = "us-west-2"
EKS = "ml-shared-eks"
CLUSTER = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/abcdefghijkl"
PLATFORM_TAGS = {"aws:ResourceTag/hyperpod-teams:organization": "acme", "aws:RequestedRegion": REGION}


def sso_role(permission_set: str) -> str:
    """The role Identity Center creates for a permission set (IAM Identity Center User Guide,
    "Referencing permission sets in resource policies...")."""
    path = f"aws-reserved/sso.amazonaws.com/{REGION}"
    return f"arn:aws:iam::{ACCOUNT}:role/{path}/AWSReservedSSO_{permission_set}_0123456789abcdef"


def access_entry(permission_set: str, eks: str = EKS) -> str:
    """An access entry's ARN (Service Authorization Reference, Amazon EKS, resource type access-entry)."""
    return (
        f"arn:aws:eks:{REGION}:{ACCOUNT}:access-entry/{eks}/role/{ACCOUNT}/"
        f"AWSReservedSSO_{permission_set}_0123456789abcdef/4ec6a8f2-0000-4000-8000-000000000000"
    )


def team_policy(team: str, role: str) -> dict:
    return policies.team_permission_set_policy(
        org="acme",
        team=team,
        account_id=ACCOUNT,
        region=REGION,
        eks_cluster_name=EKS,
        permission_set=f"acme-{team}-{role}",
    )


def hyp_connect_calls(permission_set: str, eks: str = EKS) -> list[tuple[str, str, dict]]:
    return [
        ("sagemaker:ListClusters", "*", {"aws:RequestedRegion": REGION}),
        ("sagemaker:DescribeCluster", CLUSTER, PLATFORM_TAGS),
        ("iam:GetRole", sso_role(permission_set), {}),
        ("eks:DescribeAccessEntry", access_entry(permission_set, eks), {}),
        ("eks:DescribeCluster", f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/{eks}", {}),
    ]


@pytest.mark.parametrize("role", ["scientists", "admins"])
def test_a_team_member_connects_with_hyp(role):
    policy = team_policy("nlp", role)
    refused = [c[:2] for c in hyp_connect_calls(f"acme-nlp-{role}") if not allows([policy], *c)]
    assert refused == []


def test_platform_admins_connect_with_hyp():
    policy = policies.platform_admins_permission_set_policy(
        org="acme", account_id=ACCOUNT, region=REGION, eks_cluster_name=EKS
    )
    refused = [c[:2] for c in hyp_connect_calls("acme-platform-admins") if not allows([policy], *c)]
    assert refused == []


def test_a_team_member_reads_no_other_roles_identity_or_access_entry():
    policy = team_policy("nlp", "scientists")
    assert not allows([policy], "iam:GetRole", sso_role("acme-vision-scientists"))
    assert not allows([policy], "iam:GetRole", sso_role("acme-nlp-admins"))
    assert not allows([policy], "iam:GetRole", f"arn:aws:iam::{ACCOUNT}:role/acme-nlp-scientists")
    assert not allows([policy], "eks:DescribeAccessEntry", access_entry("acme-vision-scientists"))
    assert not allows([policy], "eks:DescribeAccessEntry", access_entry("acme-nlp-scientists", eks="other-eks"))
    assert not allows([policy], "sagemaker:ListClusters", "*", {"aws:RequestedRegion": "eu-west-1"})


def test_without_the_grant_the_journey_step_is_refused():
    """A removed grant turns the step red: the check can fail."""
    policy = team_policy("nlp", "scientists")
    policy["Statement"] = [s for s in policy["Statement"] if s["Sid"] != "CheckTheOwnEksAccessEntry"]
    refused = [c[0] for c in hyp_connect_calls("acme-nlp-scientists") if not allows([policy], *c)]
    assert refused == ["eks:DescribeAccessEntry"]


# --- the evaluator refuses what IAM refuses (IAM User Guide, "Policy evaluation logic") ----------


def test_the_evaluator_denies_by_default_and_lets_an_explicit_deny_win():
    allow = {"Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/*"}]}
    deny = {"Statement": [{"Effect": "Deny", "Action": "s3:*", "Resource": "*"}]}
    assert allows([allow], "s3:GetObject", "arn:aws:s3:::b/k")
    assert allows([allow], "S3:getobject", "arn:aws:s3:::b/k")  # actions are case-insensitive
    assert not allows([allow], "s3:PutObject", "arn:aws:s3:::b/k")
    assert not allows([allow], "s3:GetObject", "arn:aws:s3:::other/k")
    assert not allows([allow, deny], "s3:GetObject", "arn:aws:s3:::b/k")


def test_a_condition_on_a_key_the_request_lacks_does_not_hold():
    tagged = {
        "Statement": [
            {
                "Effect": "Allow",
                "Action": "sagemaker:DescribeSpace",
                "Resource": "*",
                "Condition": {"StringEquals": {"aws:ResourceTag/team": "nlp"}},
            }
        ]
    }
    assert allows([tagged], "sagemaker:DescribeSpace", "x", {"aws:ResourceTag/team": "nlp"})
    assert not allows([tagged], "sagemaker:DescribeSpace", "x", {"aws:ResourceTag/team": "vision"})
    assert not allows([tagged], "sagemaker:DescribeSpace", "x", {})


# --- Studio, as the team's execution role -----------------------------------------------------------
#
# Opening a private space (SageMaker developer guide, "Give your users access to spaces": the list
# and describe calls of SMStudioAppPermissionsListAndDescribe; creating a space and its app, tagged
# by the domain's tag propagation) and Studio's HyperPod page (the cluster, its EKS cluster and
# add-ons, its metrics).

SAGEMAKER = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}"


def execution_policy(team: str) -> dict:
    return policies.team_execution_policy(
        org="acme", team=team, account_id=ACCOUNT, region=REGION, eks_cluster_name=EKS, domain_id=f"d-{team}"
    )


def studio_calls(team: str) -> list[tuple[str, str, dict]]:
    in_region = {"aws:RequestedRegion": REGION}
    own = {"aws:ResourceTag/hyperpod-teams:team": team, **in_region}
    creating = {"aws:RequestTag/hyperpod-teams:team": team, **in_region}
    return [
        *((action, "*", in_region) for action in ("sagemaker:ListDomains", "sagemaker:ListUserProfiles",
                                                  "sagemaker:ListSpaces", "sagemaker:ListApps")),
        ("sagemaker:DescribeDomain", f"{SAGEMAKER}:domain/d-{team}", own),
        ("sagemaker:DescribeUserProfile", f"{SAGEMAKER}:user-profile/d-{team}/someone", own),
        ("sagemaker:CreateSpace", f"{SAGEMAKER}:space/d-{team}/mine", creating),
        ("sagemaker:DescribeSpace", f"{SAGEMAKER}:space/d-{team}/mine", own),
        ("sagemaker:CreateApp", f"{SAGEMAKER}:app/d-{team}/mine/jupyterlab/default", creating),
        ("sagemaker:ListClusters", "*", in_region),
        ("sagemaker:DescribeCluster", CLUSTER, PLATFORM_TAGS),
        ("eks:DescribeCluster", f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/{EKS}", {}),
        ("eks:DescribeAddon", f"arn:aws:eks:{REGION}:{ACCOUNT}:addon/{EKS}/amazon-cloudwatch-observability/x", {}),
        ("eks:AccessKubernetesApi", f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/{EKS}", {}),
        ("cloudwatch:GetMetricData", "*", in_region),
        *((action, "*", in_region) for action in ("ec2:DescribeSubnets", "ec2:DescribeSecurityGroups",
                                                  "ec2:DescribeVpcs", "ec2:DescribeInstanceTypes")),
    ]  # fmt: skip


def test_a_team_opens_its_private_space_and_sees_the_cluster_in_studio():
    refused = [c[:2] for c in studio_calls("nlp") if not allows([execution_policy("nlp")], *c)]
    assert refused == []


def test_studio_refuses_another_teams_domain_spaces_and_apps():
    policy = execution_policy("nlp")
    vision = [c for c in studio_calls("vision") if c[1] != "*" and "vision" in str(c)]
    assert vision, "no call names the other team"
    allowed = [c[:2] for c in vision if allows([policy], *c)]
    assert allowed == []


def test_studio_plants_no_space_or_app_in_another_teams_domain_even_tagged_as_its_own():
    """The team tag is the requester's to write: only the domain in the ARN holds a space to the
    team's own domain (before, the role could create one in another team's domain)."""
    policy = execution_policy("nlp")
    tagged_nlp = {"aws:RequestTag/hyperpod-teams:team": "nlp", "aws:RequestedRegion": REGION}
    assert allows([policy], "sagemaker:CreateSpace", f"{SAGEMAKER}:space/d-nlp/mine", tagged_nlp)
    assert not allows([policy], "sagemaker:CreateSpace", f"{SAGEMAKER}:space/d-vision/planted", tagged_nlp)
    app = f"{SAGEMAKER}:app/d-vision/theirs/jupyterlab/default"
    assert not allows([policy], "sagemaker:CreateApp", app, tagged_nlp)
    without_domain = policies.team_execution_policy(
        org="acme",
        team="nlp",
        account_id=ACCOUNT,
        region=REGION,
        eks_cluster_name=EKS,
        job_instance_types=["ml.p5.48xlarge"],
    )
    assert not allows([without_domain], "sagemaker:CreateSpace", f"{SAGEMAKER}:space/d-nlp/mine", tagged_nlp)
    on_p5 = {**tagged_nlp, "sagemaker:InstanceTypes": ["ml.p5.48xlarge"]}
    assert allows([without_domain], "sagemaker:CreateTrainingJob", f"{SAGEMAKER}:training-job/x", on_p5)


def test_studio_starts_jobs_outside_the_quota_only_on_the_teams_instance_types():
    """SageMaker training and processing jobs run outside HyperPod's quota (#57): the execution role
    starts them only on the spec's instance types; a request naming another, or none, is refused."""
    policy = policies.team_execution_policy(
        org="acme", team="nlp", account_id=ACCOUNT, region=REGION, eks_cluster_name=EKS,
        job_instance_types=["ml.g5.xlarge"],
    )  # fmt: skip
    tagged = {"aws:RequestTag/hyperpod-teams:team": "nlp", "aws:RequestedRegion": REGION}
    for action, resource in (("CreateTrainingJob", "training-job/x"), ("CreateProcessingJob", "processing-job/x")):
        arn = f"{SAGEMAKER}:{resource}"
        assert allows([policy], f"sagemaker:{action}", arn, {**tagged, "sagemaker:InstanceTypes": ["ml.g5.xlarge"]})
        for types in (["ml.p5.48xlarge"], ["ml.g5.xlarge", "ml.p4d.24xlarge"]):
            assert not allows([policy], f"sagemaker:{action}", arn, {**tagged, "sagemaker:InstanceTypes": types})
        assert not allows([policy], f"sagemaker:{action}", arn, tagged)
    none = policies.team_execution_policy(
        org="acme", team="nlp", account_id=ACCOUNT, region=REGION, eks_cluster_name=EKS
    )
    arn = f"{SAGEMAKER}:training-job/x"
    assert not allows(
        [none], "sagemaker:CreateTrainingJob", arn, {**tagged, "sagemaker:InstanceTypes": ["ml.g5.xlarge"]}
    )


def test_studio_changes_and_deletes_nothing_in_another_teams_domain_even_tagged_as_its_own():
    """Managing spaces and apps is held to the own domain's ARN too: a space tagged as nlp's in
    vision's domain (which no team role can make any more, but a tag is no proof) stays vision's."""
    policy = execution_policy("nlp")
    tagged_nlp = {"aws:ResourceTag/hyperpod-teams:team": "nlp", "aws:RequestedRegion": REGION}
    for action, resource in [
        ("sagemaker:DeleteSpace", "space/{domain}/shared"),
        ("sagemaker:UpdateSpace", "space/{domain}/shared"),
        ("sagemaker:DeleteApp", "app/{domain}/shared/jupyterlab/default"),
    ]:
        assert allows([policy], action, f"{SAGEMAKER}:{resource.format(domain='d-nlp')}", tagged_nlp), action
        assert not allows([policy], action, f"{SAGEMAKER}:{resource.format(domain='d-vision')}", tagged_nlp), action
    # Jobs belong to no domain: the team's tag holds them.
    assert allows([policy], "sagemaker:StopTrainingJob", f"{SAGEMAKER}:training-job/x", tagged_nlp)


def execution_role(team: str) -> str:
    return f"arn:aws:iam::{ACCOUNT}:role/acme-{team}-execution"


def execution_access_entry(team: str) -> str:
    return (
        f"arn:aws:eks:{REGION}:{ACCOUNT}:access-entry/{EKS}/role/{ACCOUNT}/acme-{team}-execution/"
        "4ec6a8f2-0000-4000-8000-000000000000"
    )


def hyp_from_studio_calls(team: str) -> list[tuple[str, str, dict]]:
    """`hyp set-cluster-context` in a Studio space: the calls of hyp_connect_calls, made as the
    team's execution role (the space's credentials), on that role and its access entry (#45)."""
    return [
        ("sagemaker:ListClusters", "*", {"aws:RequestedRegion": REGION}),
        ("sagemaker:DescribeCluster", CLUSTER, PLATFORM_TAGS),
        ("iam:GetRole", execution_role(team), {}),
        ("eks:DescribeAccessEntry", execution_access_entry(team), {}),
        ("eks:DescribeCluster", f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/{EKS}", {}),
    ]


def test_hyp_connects_from_a_studio_space_as_the_execution_role_and_to_nothing_of_another_team():
    policy = execution_policy("nlp")
    assert [c[:2] for c in hyp_from_studio_calls("nlp") if not allows([policy], *c)] == []
    assert not allows([policy], "iam:GetRole", execution_role("vision"))
    assert not allows([policy], "eks:DescribeAccessEntry", execution_access_entry("vision"))
    # Without the grant, the CLI's access-entry check refuses and `hyp` exits 1.
    policy["Statement"] = [s for s in policy["Statement"] if s["Sid"] != "CheckTheOwnEksAccessEntryFromStudio"]
    refused = [c[0] for c in hyp_from_studio_calls("nlp") if not allows([policy], *c)]
    assert refused == ["eks:DescribeAccessEntry"]


# --- the Kubernetes steps of `hyp`, against the team's RBAC -------------------------------------------
#
# What the HyperPod CLI 3.12.0 asks the Kubernetes API in a PyTorch job's week, as the journey tier
# recorded it (tests/emulator/kubernetes_api.py; the code: training/hyperpod_pytorch_job.py,
# common/cli_decorators.py, cli/clients/kubernetes_client.py): get the namespace (every command but
# create), get the job CRD (create), create, list and get the job, list its pods (label HPJob=<job>),
# read a pod's log, delete the job and then its ConfigMap training-config-<job>, errors ignored.
# The job names its queue with the label kueue.x-k8s.io/queue-name (--queue-name) and its priority
# class with kueue.x-k8s.io/priority-class; Kueue, not the user, resolves them.

JOB_GROUP = "sagemaker.amazonaws.com"


def k8s_steps(namespace: str) -> list[tuple[str, str, str, str | None, str | None]]:
    """(verb, api group, resource, namespace, name) of each request, in the order the CLI makes them."""
    return [
        # A namespace's own name is its request's namespace (the API server's RequestInfo).
        ("get", "", "namespaces", namespace, namespace),
        ("get", "apiextensions.k8s.io", "customresourcedefinitions", None, f"hyperpodpytorchjobs.{JOB_GROUP}"),
        ("create", JOB_GROUP, "hyperpodpytorchjobs", namespace, None),
        ("list", JOB_GROUP, "hyperpodpytorchjobs", namespace, None),
        ("get", JOB_GROUP, "hyperpodpytorchjobs", namespace, "bert-pretrain"),
        ("list", "", "pods", namespace, None),
        ("get", "", "pods/log", namespace, "bert-pretrain-pod-0"),
        ("delete", JOB_GROUP, "hyperpodpytorchjobs", namespace, "bert-pretrain"),
    ]  # fmt: skip


#: `hyp delete` then removes the ConfigMap a recipe job was submitted with, ignoring any error
#: (hyperpod_pytorch_job.py, delete: `except Exception: pass`): scientists, who manage no ConfigMaps
#: (rbac.CHART_DIFFERENCES), are refused it without the command failing; admins may.
CLEANUP = ("delete", "", "configmaps", "hyperpod-ns-nlp", "training-config-bert-pretrain")


def rbac_allows(manifests: list[dict], group: str, request: tuple) -> bool:
    """Kubernetes' RBAC authorizer (tests/emulator/kubernetes_api.py, ported from Kubernetes) on a
    request of a member of `group`: (verb, API group, resource or resource/subresource, namespace, name)."""
    from tests.emulator.kubernetes_api import Rbac, RequestInfo, User

    verb, api_group, resource, namespace, name = request
    resource, _, subresource = resource.partition("/")
    info = RequestInfo(
        path="", verb=verb, is_resource_request=True, api_group=api_group, namespace=namespace or "",
        resource=resource, subresource=subresource, name=name or "",
    )  # fmt: skip
    return Rbac(manifests).authorize(User("member", (group, "system:authenticated")), info)[0]


@pytest.fixture(scope="module")
def quickstart_rbac(quickstart_stacks) -> list[dict]:
    from tests.test_kubernetes_rbac import rbac_manifests

    return rbac_manifests(quickstart_stacks)


@pytest.mark.parametrize("role", ["scientists", "admins"])
def test_a_team_runs_a_pytorch_job_with_hyp_in_its_own_namespace(quickstart_rbac, role):
    from hyperpod_teams import naming

    group = naming.team_kubernetes_group("nlp", role)
    refused = [
        step for step in k8s_steps(naming.team_namespace("nlp")) if not rbac_allows(quickstart_rbac, group, step)
    ]
    assert refused == []
    assert rbac_allows(quickstart_rbac, group, CLEANUP) == (role == "admins")


def test_hyp_in_another_teams_namespace_is_refused_at_every_step(quickstart_rbac):
    from hyperpod_teams import naming

    group = naming.team_kubernetes_group("nlp", "admins")
    steps = k8s_steps(naming.team_namespace("vision"))
    allowed = [step for step in steps if step[3] is not None or step[2] == "namespaces"]
    allowed = [step for step in allowed if rbac_allows(quickstart_rbac, group, step)]
    assert allowed == []


def test_a_removed_rbac_rule_turns_its_hyp_step_red(quickstart_rbac):
    import copy

    from hyperpod_teams import naming

    manifests = copy.deepcopy(quickstart_rbac)
    for m in manifests:
        for rule in m.get("rules", []):
            if "hyperpodpytorchjobs" in rule["resources"]:
                rule["verbs"] = [v for v in rule["verbs"] if v != "create"]
    group = naming.team_kubernetes_group("nlp", "scientists")
    refused = [s[:3] for s in k8s_steps(naming.team_namespace("nlp")) if not rbac_allows(manifests, group, s)]
    assert refused == [("create", JOB_GROUP, "hyperpodpytorchjobs")]


def studio_k8s_reads(team: str) -> list[tuple[str, str, str, str | None, str | None]]:
    """What Studio's HyperPod page reads of the cluster through the execution role's access entry
    (SageMaker developer guide, "Set up an Amazon EKS cluster in Studio"): its nodes, the team's
    namespace and ClusterQueue, Kueue's flavors and priority classes."""
    from hyperpod_teams import naming

    return [
        ("list", "", "nodes", None, None),
        ("get", "", "namespaces", None, naming.team_namespace(team)),
        ("get", "kueue.x-k8s.io", "clusterqueues", None, naming.team_cluster_queue(team)),
        ("list", "kueue.x-k8s.io", "resourceflavors", None, None),
        ("list", "kueue.x-k8s.io", "workloadpriorityclasses", None, None),
    ]


def test_studio_reads_the_nodes_and_the_teams_own_namespace_and_queue_and_no_other(quickstart_stacks, quickstart_rbac):
    from hyperpod_teams import naming

    # The execution role's access entry, as the team stack writes it: which Kubernetes group it maps to.
    entries = quickstart_stacks["acme-team-nlp"]["resource"]["aws_eks_access_entry"].values()
    (group,) = [g for e in entries if "execution-role" in e["principal_arn"] for g in e["kubernetes_groups"]]
    assert [s for s in studio_k8s_reads("nlp") if not rbac_allows(quickstart_rbac, group, s)] == []
    others = [
        ("list", "", "namespaces", None, None),
        ("list", "kueue.x-k8s.io", "clusterqueues", None, None),
        ("get", "", "namespaces", None, naming.team_namespace("vision")),
        ("get", "kueue.x-k8s.io", "clusterqueues", None, naming.team_cluster_queue("vision")),
    ]
    assert [s for s in others if rbac_allows(quickstart_rbac, group, s)] == []


def portal_calls(team: str) -> list[tuple[str, str, dict]]:
    """Opening the team's domain from the access portal, as the team role: the portal opens the
    domain's Identity Center application (the group's assignment, no IAM call); the role then sees
    the domain and the user profiles the domain's tag propagation tags."""
    own = {"aws:ResourceTag/hyperpod-teams:organization": "acme", "aws:ResourceTag/hyperpod-teams:team": team}
    return [
        ("sagemaker:DescribeDomain", f"{SAGEMAKER}:domain/d-{team}", own),
        ("sagemaker:DescribeUserProfile", f"{SAGEMAKER}:user-profile/d-{team}/someone", own),
    ]


def test_no_team_role_gets_a_presigned_domain_url_and_a_team_without_studio_gets_no_studio_grant():
    """CreatePresignedDomainUrl serves domains of IAM authentication only; the teams' are SSO (#45).
    A team whose studio is off has no domain: no Studio action is granted at all."""
    for role in ("scientists", "admins"):
        policy = team_policy("nlp", role)
        assert "CreatePresignedDomainUrl" not in str(policy)
        without = policies.team_permission_set_policy(
            org="acme",
            team="nlp",
            account_id=ACCOUNT,
            region=REGION,
            eks_cluster_name=EKS,
            permission_set=f"acme-nlp-{role}",
            studio=False,
        )
        studio_actions = [a for st in without["Statement"] for a in st["Action"] if a.startswith("sagemaker:") and any(
            word in a for word in ("Domain", "UserProfile", "Space", "App"))]  # fmt: skip
        assert studio_actions == [], (role, studio_actions)
        assert [c[:2] for c in portal_calls("nlp") if allows([without], *c)] == []


def monitoring_calls() -> list[tuple[str, str, dict]]:
    """`hyp get-monitoring` (observability/utils.py): is the observability add-on there, and its config."""
    eks = f"arn:aws:eks:{REGION}:{ACCOUNT}"
    return [
        ("eks:ListAddons", f"{eks}:cluster/{EKS}", {}),
        ("eks:DescribeAddon", f"{eks}:addon/{EKS}/amazon-sagemaker-hyperpod-observability/0ec6a8f2", {}),
    ]


@pytest.mark.parametrize("role", ["scientists", "admins"])
def test_a_team_member_reads_the_monitoring_config_and_no_other_add_on(role):
    policy = team_policy("nlp", role)
    assert [c[:2] for c in monitoring_calls() if not allows([policy], *c)] == []
    other = f"arn:aws:eks:{REGION}:{ACCOUNT}:addon/{EKS}/amazon-cloudwatch-observability/1"
    assert not allows([policy], "eks:DescribeAddon", other)
    assert not allows([policy], "eks:ListAddons", f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/other-eks")


@pytest.mark.parametrize("role", ["scientists", "admins"])
def test_a_team_member_opens_the_teams_domain_from_the_portal_and_no_other(role):
    policy = team_policy("nlp", role)
    assert [c[:2] for c in portal_calls("nlp") if not allows([policy], *c)] == []
    assert [c[:2] for c in portal_calls("vision") if allows([policy], *c)] == []


# --- one list of steps: the report shows it, the tests above evaluate it, the docs explain it ---------


def image_and_log_calls(team: str) -> list[tuple[str, str, dict]]:
    """docker login and pull of the team's image, and a container log's events read in CloudWatch."""
    ecr = f"arn:aws:ecr:us-west-2:{ACCOUNT}:repository/acme/{team}/trainer"
    region = {"aws:RequestedRegion": "us-west-2"}
    group = f"arn:aws:logs:us-west-2:{ACCOUNT}:log-group:/aws/containerinsights/{EKS}/application"
    log = (
        f"{group}:log-stream:hyperpod-i-0123456789abcdef0-application.var.log.containers."
        f"bert-pretrain-worker-0_hyperpod-ns-{team}_pytorch-0a1b2c3d.log"
    )
    return [
        ("ecr:GetAuthorizationToken", "*", region),
        ("ecr:BatchGetImage", ecr, region),
        ("ecr:GetDownloadUrlForLayer", ecr, region),
        ("logs:GetLogEvents", log, {}),
    ]


@pytest.mark.parametrize("role", ["scientists", "admins"])
def test_a_team_member_pulls_the_teams_images_and_reads_its_container_logs_and_not_another_teams(role):
    policy = policies.team_permission_set_policy(
        org="acme", team="nlp", account_id=ACCOUNT, region="us-west-2", eks_cluster_name=EKS,
        permission_set=f"acme-nlp-{role}", container_logs=True,
    )  # fmt: skip
    assert [c for c in image_and_log_calls("nlp") if not allows([policy], *c)] == []
    theirs = [c for c in image_and_log_calls("vision") if c[1] != "*"]
    assert [c for c in theirs if allows([policy], *c)] == []


def test_every_step_the_report_lists_is_evaluated_here_and_explained_in_the_docs():
    from pathlib import Path

    from hyperpod_teams import journeys
    from tests.test_team_inference_spaces_monitoring import ENDPOINT_CALLS

    evaluated = {
        call for calls in (hyp_connect_calls("acme-nlp-scientists"), studio_calls("nlp"), portal_calls("nlp"),
                           hyp_from_studio_calls("nlp"), data_calls("nlp"), monitoring_calls(),
                           image_and_log_calls("nlp"))
        for call, _, _ in calls
    } | set(ENDPOINT_CALLS)  # fmt: skip
    docs = (Path(__file__).resolve().parents[1] / "docs" / "team-journeys.md").read_text()
    for step in journeys.STEPS:
        for call in step.calls:
            action = call.split(" ")[0]
            if ":" in action:  # an AWS call; the Kubernetes ones are the k8s_steps above
                assert action in evaluated, (step.step, action)
            assert action in docs or call.split(" ", 1)[-1].split("/")[0] in docs, (step.step, call)
        for sid in re.split(r"[,;] ", re.sub(r" \((execution|workload) role\)", "", step.allowed_by)):
            if sid[0].isupper():
                assert f"`{sid}`" in docs, (step.step, sid)


def test_the_report_shows_how_each_role_gets_in():
    """As a pull-request comment shows it (GitHub's cmark-gfm): a table under its heading with a row
    per step of journeys.STEPS."""
    from html.parser import HTMLParser

    from hyperpod_teams import journeys
    from hyperpod_teams.review.report import render_report
    from hyperpod_teams.spec import load_spec
    from tests.conftest import QUICKSTART, require_module

    require_module("cmarkgfm")
    import cmarkgfm

    page = cmarkgfm.github_flavored_markdown_to_html(render_report(load_spec(QUICKSTART)))
    section = page[page.index("<h2>How a team member gets in</h2>") :]
    table = section[section.index("<table>") : section.index("</table>")]

    class Rows(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.rows: list[list[str]] = []
            self.cell: list[str] | None = None

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self.rows.append([])
            elif tag in ("td", "th"):
                self.cell = []

        def handle_endtag(self, tag):
            if tag in ("td", "th") and self.cell is not None:
                self.rows[-1].append("".join(self.cell))
                self.cell = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell.append(data)

    parser = Rows()
    parser.feed(table)
    header, *rows = parser.rows
    assert header == ["journey", "step", "calls", "allowed by"]
    spec = load_spec(QUICKSTART)
    assert [(r[0], r[1]) for r in rows] == [(s.journey, s.step) for s in journeys.steps_of(spec.cluster)]
    # The quickstart has no inference operator or Spaces: no step of theirs is listed.
    assert not any("jumpstart" in r[1] or "hyp-space" in r[1] for r in rows)
    (connect,) = [r for r in rows if r[0] == "hyp" and r[1].startswith("hyp set-cluster-context")]
    assert "eks:DescribeAccessEntry (own entry)" in connect[2] and "CheckTheOwnEksAccessEntry" in connect[3]
    (from_studio,) = [r for r in rows if r[0] == "Studio" and r[1].startswith("hyp set-cluster-context")]
    assert "CheckTheOwnEksAccessEntryFromStudio" in from_studio[3]


def test_the_journey_tier_runs_the_cli_release_the_steps_are_read_from_with_every_package_pinned():
    """The HyperPod CLI the journey tier installs (tests/journey-requirements.txt) is the release
    journeys.py reads the calls from, and the constraints file pins it and every other package the
    install takes (`name==version`), so a dependency's new release cannot change the tier."""
    import re
    from pathlib import Path

    from hyperpod_teams import journeys

    requirements = (Path(__file__).parent / "journey-requirements.txt").read_text()
    (pin,) = [line for line in requirements.splitlines() if line.startswith("sagemaker-hyperpod==")]
    assert pin.split("==")[1] == journeys.HYP_RELEASE
    constraints = [
        line for line in (Path(__file__).parent / "journey-constraints.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]  # fmt: skip
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+==[0-9][A-Za-z0-9.+!-]*", line) for line in constraints), constraints
    pinned = {line.split("==")[0].lower().replace("_", "-"): line.split("==")[1] for line in constraints}
    assert pinned["sagemaker-hyperpod"] == journeys.HYP_RELEASE
    # what the CLI itself needs, and what it brings for the tier's Studio steps
    assert {"awscli", "boto3", "botocore", "kubernetes"} <= set(pinned)


def test_the_journey_tiers_installed_cli_is_the_pinned_release():
    """What `make test` installed in .venv-journey is what the files pin (skipped without it)."""
    from importlib.metadata import distributions

    from tests.emulator.journeys import hyp_cli_bin

    cli_bin = hyp_cli_bin()
    if cli_bin is None:
        pytest.skip("the journey tier's CLIs are not installed (make test installs them)")
    site = sorted((cli_bin.parent / "lib").glob("python3*/site-packages"))
    installed = {
        d.metadata["Name"].lower().replace("_", "-"): d.version for d in distributions(path=[str(p) for p in site])
    }
    from pathlib import Path

    for line in (Path(__file__).parent / "journey-constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            assert installed.get(name.lower().replace("_", "-")) == version, line
