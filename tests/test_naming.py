"""Derived names fit their resource types at the limits, are deterministic and stay unique."""

from __future__ import annotations

import re

import pytest

from hyperpod_teams import naming

LONGEST_ORG = "a" + "b" * 18 + "c"  # 20 characters, the spec's maximum
LONGEST_TEAMS = [f"{i:02d}" + "x" * 38 for i in range(5)]  # 40 characters each, the maximum
LONGEST_CLUSTER = "C" + "l" * 62  # 63 characters

IAM_NAME = re.compile(r"^[\w+=,.@-]{1,64}$")
PERMISSION_SET = re.compile(r"^[\w+=,.@-]{1,32}$")
SAGEMAKER_NAME = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
S3_BUCKET = re.compile(r"^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$")
EKS_NAME = re.compile(r"^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$")
BUDGET_NAME = re.compile(r"^[^:\\]{1,100}$")
COST_CATEGORY = re.compile(r"^(?! )[\w ]?[\w\-:. ]{0,49}$")
HCP_WORKSPACE = re.compile(r"^[A-Za-z0-9_-]{1,90}$")


def per_team(function, rule: re.Pattern, *extra):
    names = [function(*extra, team) for team in LONGEST_TEAMS]
    for name in names:
        assert rule.match(name), f"{name!r} ({len(name)} characters) breaks {rule.pattern}"
    assert len(set(names)) == len(names), f"{function.__name__} gives two teams one name"
    return names


def test_permission_sets_fit_32_characters_and_stay_unique():
    for role in naming.ROLES:
        per_team(lambda org, team, role=role: naming.permission_set_name(org, team, role), PERMISSION_SET, LONGEST_ORG)
    assert PERMISSION_SET.match(naming.platform_admins_permission_set_name(LONGEST_ORG))


def test_short_names_are_kept_as_they_are():
    assert naming.permission_set_name("acme", "nlp", "scientists") == "acme-nlp-scientists"
    assert naming.team_namespace("nlp") == "hyperpod-ns-nlp"
    assert naming.team_local_queue("nlp") == "hyperpod-ns-nlp-localqueue"
    assert naming.team_kubernetes_group("nlp", "scientists") == "hyperpod-ns-nlp-namespace-level-group"


def test_iam_roles_fit_64_characters():
    per_team(naming.team_execution_role_name, IAM_NAME, LONGEST_ORG)
    assert IAM_NAME.match(naming.eks_cluster_role_name(LONGEST_ORG, LONGEST_CLUSTER))
    assert IAM_NAME.match(naming.hyperpod_execution_role_name(LONGEST_ORG, LONGEST_CLUSTER))


def test_kubernetes_names_fit_dns_labels():
    per_team(naming.team_namespace, DNS_LABEL)
    per_team(naming.team_local_queue, DNS_LABEL)
    per_team(lambda team: naming.team_kubernetes_group(team, "admins"), re.compile(r"^[a-z0-9-]+$"))
    per_team(naming.team_cluster_role, re.compile(r"^[a-z0-9-]{1,253}$"))


def test_sagemaker_domains_and_quotas_fit_63_characters():
    per_team(naming.team_domain_name, SAGEMAKER_NAME, LONGEST_ORG)
    per_team(naming.compute_quota_name, SAGEMAKER_NAME)
    assert SAGEMAKER_NAME.match(naming.scheduler_config_name(LONGEST_CLUSTER))


def test_lifecycle_bucket_is_a_valid_global_bucket_name():
    name = naming.lifecycle_bucket_name(LONGEST_ORG, LONGEST_CLUSTER, "111122223333", "ap-southeast-2")
    assert S3_BUCKET.match(name) and "--" not in name


def test_eks_budget_cost_category_and_workspace_names_fit():
    assert EKS_NAME.match(naming.eks_cluster_name(LONGEST_CLUSTER))
    per_team(naming.team_budget_name, BUDGET_NAME, LONGEST_ORG)
    assert COST_CATEGORY.match(naming.cost_category_name(LONGEST_ORG))
    names = per_team(
        lambda team: naming.remote_workspace_name("hyperpod-teams-prod-", naming.team_stack_name(LONGEST_ORG, team)),
        HCP_WORKSPACE,
    )
    assert all(name.startswith("hyperpod-teams-prod-") for name in names)


def test_stack_names_follow_the_design():
    assert naming.identity_stack_name("acme") == "acme-identity"
    assert naming.access_stack_name("acme") == "acme-access"
    assert naming.cluster_stack_name("acme") == "acme-cluster"
    assert naming.team_stack_name("acme", "nlp") == "acme-team-nlp"
    assert naming.cost_stack_name("acme") == "acme-cost"


@pytest.mark.parametrize("max_length", [8, 32, 64])
def test_shortening_is_deterministic_and_keeps_different_names_apart(max_length):
    a = naming.shorten("x" * 100 + "-alpha", max_length)
    b = naming.shorten("x" * 100 + "-beta", max_length)
    assert a == naming.shorten("x" * 100 + "-alpha", max_length)
    assert len(a) <= max_length and len(b) <= max_length and a != b


def test_team_tags_carry_cost_center_only_when_set():
    assert naming.team_tags("acme", "nlp", None) == {
        "hyperpod-teams:organization": "acme",
        "hyperpod-teams:team": "nlp",
    }
    assert naming.team_tags("acme", "nlp", "CC-1")["hyperpod-teams:cost-center"] == "CC-1"


def test_state_key_adds_the_slash_the_prefix_lacks():
    assert naming.state_key("hyperpod-teams/", "acme-cost") == "hyperpod-teams/acme-cost/terraform.tfstate"
    assert naming.state_key("states", "acme-cost") == "states/acme-cost/terraform.tfstate"
