"""`<org>-access`: a permission set per team role and for platform admins, each with the inline
policy of `policies.team_roles`, the spec's session duration and tags, assigned to its group in the spec's
account. Real synth with the real bindings."""

from __future__ import annotations

import json

from hyperpod_teams import naming, policies
from tests.test_identity_providers import address_of, data_sources, resources

TEAMS = ("nlp", "vision", "research")


def permission_sets_by_name(access: dict) -> dict[str, tuple[str, dict]]:
    return {
        body["name"]: (f"${{{address_of(access, 'aws_ssoadmin_permission_set', body)}.arn}}", body)
        for body in resources(access, "aws_ssoadmin_permission_set")
    }


def test_a_permission_set_per_team_role_and_one_for_platform_admins(quickstart_stacks):
    names = set(permission_sets_by_name(quickstart_stacks["acme-access"]))
    assert names == {naming.permission_set_name("acme", t, r) for t in TEAMS for r in naming.ROLES} | {
        naming.platform_admins_permission_set_name("acme")
    }


def test_permission_sets_carry_the_session_duration_and_the_teams_tags(quickstart_stacks):
    sets = permission_sets_by_name(quickstart_stacks["acme-access"])
    _, nlp_admins = sets["acme-nlp-admins"]
    assert nlp_admins["session_duration"] == "PT8H"
    assert nlp_admins["instance_arn"] == "arn:aws:sso:::instance/ssoins-0123456789abcdef"
    assert nlp_admins["tags"]["hyperpod-teams:team"] == "nlp"
    assert nlp_admins["tags"]["hyperpod-teams:cost-center"] == "CC-1001"
    _, platform = sets["acme-platform-admins"]
    assert "hyperpod-teams:team" not in platform["tags"]


def test_each_permission_set_has_the_inline_policy_of_its_role(quickstart_stacks):
    access = quickstart_stacks["acme-access"]
    sets = permission_sets_by_name(access)
    inline = {
        body["permission_set_arn"]: json.loads(body["inline_policy"])
        for body in resources(access, "aws_ssoadmin_permission_set_inline_policy")
    }
    arn, _ = sets["acme-vision-scientists"]
    assert inline[arn] == policies.team_permission_set_policy(
        org="acme",
        team="vision",
        account_id="111122223333",
        region="us-west-2",
        eks_cluster_name="ml-shared-eks",
        permission_set="acme-vision-scientists",
        budget_name="acme-vision-monthly",
    )
    arn, _ = sets["acme-platform-admins"]
    assert inline[arn] == policies.platform_admins_permission_set_policy(
        org="acme", account_id="111122223333", region="us-west-2", eks_cluster_name="ml-shared-eks"
    )
    research_arn, _ = sets["acme-research-scientists"]
    assert "SeeTheTeamsBudget" not in {s["Sid"] for s in inline[research_arn]["Statement"]}  # research has no budget


def test_each_group_is_assigned_its_permission_set_in_the_specs_account(quickstart_stacks):
    access = quickstart_stacks["acme-access"]
    sets = permission_sets_by_name(access)
    groups = {
        g["alternate_identifier"]["unique_attribute"][
            "attribute_value"
        ]: f"${{{address_of(access, 'aws_identitystore_group', g, data=True)}.group_id}}"
        for g in data_sources(access, "aws_identitystore_group")
    }
    assignments = {a["principal_id"]: a for a in resources(access, "aws_ssoadmin_account_assignment")}
    assert len(assignments) == len(sets) == 7
    expected = {f"acme-{t}-{r}": f"acme-{t}-{r}" for t in TEAMS for r in naming.ROLES}
    expected["acme-ml-platform-admins"] = "acme-platform-admins"
    for group_name, permission_set in expected.items():
        assignment = assignments[groups[group_name]]
        assert assignment["permission_set_arn"] == sets[permission_set][0]
        assert (assignment["target_id"], assignment["target_type"], assignment["principal_type"]) == (
            "111122223333",
            "AWS_ACCOUNT",
            "GROUP",
        )


def test_team_stacks_receive_the_group_ids_from_the_access_stack(quickstart_stacks):
    team = json.dumps(quickstart_stacks["acme-team-nlp"])
    assert "cross-stack-reference-input-acme-access" in team
