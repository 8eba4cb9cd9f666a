"""The team roles' IAM Identity Center permission sets: what a person gets when they sign in through
the access portal. Team roles reach only what carries their own team's tag (domains, user profiles,
spaces, apps, compute quotas all do: the team stack tags them and the domain propagates its tags),
plus read access to the shared clusters. Nothing lists across the account: list calls need Resource
"*".

Pure layer: no cdktf.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from hyperpod_teams import addons, naming
from hyperpod_teams.policies.documents import aws_partition, eks_arn, owned_by, studio_resources
from hyperpod_teams.policies.hyp import hyp_connect_statements
from hyperpod_teams.policies.studio_execution import (
    CLUSTER_READ_ACTIONS,
    team_container_logs_statement,
    team_images_statements,
)

if TYPE_CHECKING:  # pragma: no cover
    from hyperpod_teams.spec.models import PlatformSpec, Team

#: What one's own team's Studio holds. A member opens the domain from the access portal: the
#: team's groups are assigned to the domain's Identity Center application (the team stack), which
#: takes no IAM grant of the permission set; `sagemaker:CreatePresignedDomainUrl` serves domains of
#: IAM authentication only (SageMaker API reference, CreatePresignedDomainUrl), and these are SSO.
STUDIO_READ_ACTIONS = (
    "sagemaker:DescribeApp",
    "sagemaker:DescribeDomain",
    "sagemaker:DescribeSpace",
    "sagemaker:DescribeUserProfile",
    "sagemaker:ListTags",
)


#: What team admins manage in their own domain beyond what scientists do.
STUDIO_ADMIN_CREATE_ACTIONS = ("sagemaker:CreateSpace", "sagemaker:CreateUserProfile")


STUDIO_ADMIN_MANAGE_ACTIONS = (
    "sagemaker:DeleteApp",
    "sagemaker:DeleteSpace",
    "sagemaker:DeleteUserProfile",
    "sagemaker:UpdateSpace",
    "sagemaker:UpdateUserProfile",
)


TASK_GOVERNANCE_READ_ACTIONS = ("sagemaker:DescribeComputeQuota",)


SCHEDULER_READ_ACTIONS = ("sagemaker:DescribeClusterSchedulerConfig",)


EKS_MEMBER_ACTIONS = ("eks:AccessKubernetesApi", "eks:DescribeCluster")


#: `hyp get-monitoring` (sagemaker-hyperpod 3.12.0, observability/utils.py): ListAddons on
#: the EKS cluster (is the observability add-on installed?), then DescribeAddon of that add-on for
#: its Prometheus and Grafana workspaces.
HYP_MONITORING_ACTIONS = ("eks:ListAddons",)


OBSERVABILITY_ADDON = addons.OBSERVABILITY_ADDON


#: `hyp invoke hyp-custom-endpoint` (sagemaker-hyperpod 3.12.0, cli/commands/inference.py,
#: custom_invoke): sagemaker_core's `Endpoint.get` (DescribeEndpoint: is it InService?), then
#: sagemaker-runtime InvokeEndpoint; both on the endpoint's ARN (Service Authorization Reference,
#: SageMaker AI: resource type endpoint, `endpoint/${EndpointName}`).
ENDPOINT_ACTIONS = ("sagemaker:DescribeEndpoint", "sagemaker:InvokeEndpoint")


def team_permission_set_policy(
    *,
    org: str,
    team: str,
    account_id: str,
    region: str,
    eks_cluster_name: str,
    permission_set: str,
    budget_name: str | None = None,
    studio: bool = True,
    container_logs: bool = False,
    inference: bool = False,
    spaces: bool = False,
) -> dict:
    """The inline policy of a team role's permission set (`studio`: whether the team has a
    SageMaker AI domain; without one, no Studio grant at all; `container_logs`: whether the
    CloudWatch Observability add-on writes the containers' logs, which the role may then read of
    its own team's namespace).

    Both roles: see their own team's Studio domain and what it holds; describe the HyperPod
    cluster, its nodes and scheduler, and their own team's compute quota; reach the EKS cluster's
    Kubernetes API (what they may do there is the team's RBAC); see their budget. What admins manage
    in their own domain names the domain's ID, which exists only once the team stack has made the
    domain: it is `team_admins_studio_policy`, a customer managed policy the team stack writes and
    attaches to the admins' permission set.
    """
    partition = aws_partition(region)
    sagemaker = f"arn:{partition}:sagemaker:{region}:{account_id}"
    eks = eks_arn(partition, region, account_id)
    see_studio = {
        "Sid": "SeeTheTeamsStudio",
        "Effect": "Allow",
        "Action": list(STUDIO_READ_ACTIONS),
        "Resource": studio_resources(sagemaker),
        "Condition": owned_by(org, team),
    }
    statements: list[dict] = [
        *([see_studio] if studio else []),
        {
            "Sid": "SeeTheTeamsComputeQuota",
            "Effect": "Allow",
            "Action": list(TASK_GOVERNANCE_READ_ACTIONS),
            "Resource": [f"{sagemaker}:compute-quota/*"],
            "Condition": owned_by(org, team),
        },
        {
            "Sid": "DescribeTheSharedHyperPodCluster",
            "Effect": "Allow",
            "Action": list(CLUSTER_READ_ACTIONS + SCHEDULER_READ_ACTIONS),
            "Resource": [f"{sagemaker}:cluster/*", f"{sagemaker}:cluster-scheduler-config/*"],
            "Condition": owned_by(org),
        },
        {
            "Sid": "ReachTheSharedEksCluster",
            "Effect": "Allow",
            "Action": list(EKS_MEMBER_ACTIONS + HYP_MONITORING_ACTIONS),
            "Resource": [f"{eks}:cluster/{eks_cluster_name}"],
        },
        {
            "Sid": "ReadTheMonitoringAddOn",
            "Effect": "Allow",
            "Action": ["eks:DescribeAddon"],
            # hyp's space commands read the Spaces add-on's version (space/utils.py,
            # get_spaces_addon_version) to warn of a template newer than the add-on.
            "Resource": [
                f"{eks}:addon/{eks_cluster_name}/{addon}/*"
                for addon in (OBSERVABILITY_ADDON, *([addons.SPACES_ADDON] if spaces else []))
            ],
        },
        *([team_endpoints_statement(org=org, team=team, account_id=account_id, region=region)] if inference else []),
        *hyp_connect_statements(
            partition=partition,
            account_id=account_id,
            region=region,
            eks_cluster_name=eks_cluster_name,
            permission_set=permission_set,
        ),
        *team_images_statements(org=org, team=team, account_id=account_id, region=region),
    ]
    if container_logs:
        statements.append(
            team_container_logs_statement(
                team=team, account_id=account_id, region=region, eks_cluster_name=eks_cluster_name
            )
        )
    if budget_name:
        statements.append(
            {
                "Sid": "SeeTheTeamsBudget",
                "Effect": "Allow",
                "Action": ["budgets:ViewBudget"],
                "Resource": [f"arn:{partition}:budgets::{account_id}:budget/{budget_name}"],
            }
        )
    return {"Version": "2012-10-17", "Statement": statements}


def team_endpoints_statement(*, org: str, team: str, account_id: str, region: str) -> dict:
    """Describe and invoke the team's own SageMaker endpoints: those named with the team's prefix
    (naming.team_endpoint_prefix), which the team's admission policy holds every endpoint its
    members deploy to (rbac.queue_label_policy_manifests). SageMaker puts the name in lowercase in
    the ARN."""
    partition = aws_partition(region)
    prefix = naming.team_endpoint_prefix(org, team)
    return {
        "Sid": "InvokeTheTeamsEndpoints",
        "Effect": "Allow",
        "Action": list(ENDPOINT_ACTIONS),
        "Resource": [f"arn:{partition}:sagemaker:{region}:{account_id}:endpoint/{prefix}*"],
    }


def team_admins_studio_policy(*, org: str, team: str, account_id: str, region: str, domain_id: str) -> dict:
    """What a team's admins manage in their own team's domain `domain_id` and in no other: create
    user profiles and spaces there (tagged as the team's), and change or delete the profiles, spaces
    and apps of that domain that carry the team's tag. The domain's ID is in every resource: a tag
    is the requester's to write, so a tag condition alone let an admin plant a profile or space,
    tagged as the own team's, in another team's domain and then manage it (the same gap the
    execution role's CreateOnlyTaggedWithTheTeam closes)."""
    partition = aws_partition(region)
    sagemaker = f"arn:{partition}:sagemaker:{region}:{account_id}"
    # space/${DomainId}/${SpaceName}, user-profile/${DomainId}/${UserProfileName},
    # app/${DomainId}/${UserProfileName}/${AppType}/${AppName} (Service Authorization Reference).
    created = [f"{sagemaker}:space/{domain_id}/*", f"{sagemaker}:user-profile/{domain_id}/*"]
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "CreateProfilesAndSpacesInTheTeamsDomain",
                "Effect": "Allow",
                "Action": list(STUDIO_ADMIN_CREATE_ACTIONS),
                "Resource": created,
                "Condition": owned_by(org, team, request=True),
            },
            {
                "Sid": "TagOnlyWhileCreating",
                "Effect": "Allow",
                "Action": ["sagemaker:AddTags"],
                "Resource": created,
                "Condition": {
                    **owned_by(org, team, request=True),
                    "ForAnyValue:StringEquals": {
                        "sagemaker:TaggingAction": [a.split(":")[1] for a in STUDIO_ADMIN_CREATE_ACTIONS]
                    },
                },
            },
            {
                "Sid": "ManageTheTeamsProfilesAndSpaces",
                "Effect": "Allow",
                "Action": list(STUDIO_ADMIN_MANAGE_ACTIONS),
                "Resource": [f"{sagemaker}:app/{domain_id}/*", *created],
                "Condition": owned_by(org, team),
            },
        ],
    }


def permission_set_policy_of(spec: PlatformSpec, team: Team, role: str) -> dict:
    """`team_permission_set_policy` with every value taken from the spec."""
    org = spec.organization
    return team_permission_set_policy(
        org=org.name,
        team=team.name,
        account_id=org.account_id,
        region=org.region,
        eks_cluster_name=naming.shared_eks_cluster_name(spec.cluster),
        permission_set=naming.team_permission_set_name(org.name, team, role),
        budget_name=naming.team_budget_name(org.name, team.name) if team.budget else None,
        studio=team.studio.enabled,
        container_logs=spec.cluster.cloudwatch_observability,
        inference=spec.cluster.inference is not None,
        spaces=spec.cluster.spaces is not None,
    )


#: The statements of a team role's policy that belong to its home (its Studio domain, its images,
#: its budget), not to a cluster it is placed on.
HOME_SIDS = frozenset({"SeeTheTeamsStudio", "SignInToTheRegistry", "ReadTheTeamsImages", "SeeTheTeamsBudget"})

#: IAM Identity Center quotas (docs.aws.amazon.com/singlesignon/latest/userguide/limits.html):
#: "Maximum size of non-whitespace characters in the inline policy per permission set is 10,240
#: bytes" (32,768 bytes in all: botocore's sso-admin model, PermissionSetPolicyDocument).
PERMISSION_SET_POLICY_MAX = 10_240

#: Condition operators under which a key's values are alternatives: one statement with the values
#: of two is the two statements (IAM User Guide, "Creating a condition with multiple keys or values").
ALTERNATIVE_VALUES = ("StringEquals", "StringLike", "ArnEquals", "ArnLike")


def several_clusters_permission_set_policy(views: Mapping[str, PlatformSpec], home: str, team: str, role: str) -> dict:
    """The inline policy of a team role's permission set with several clusters (#61), `views` the
    one-cluster views of the clusters (spec.clusters.SeveralClusters.views) and `home` the team's
    home cluster: one permission set, provisioned into every account the team is in, so one
    policy. Its home cluster's (`permission_set_policy_of`), and from each other cluster's view that
    holds the team, what it grants there besides the home's statements (HOME_SIDS): its quota, the
    HyperPod and EKS clusters, hyp's reads, its endpoints and container logs. A statement of the
    same Sid and actions on another cluster joins the home's where the two are one grant (the same
    conditions: the resources of both; the same resources: the values of the one condition key
    they differ in); otherwise it follows as a statement of its own, its Sid ending with the
    cluster's name (`...OnInfer`)."""
    policy = permission_set_policy_of(views[home], views[home].team(team), role)
    statements: list[dict] = [dict(s) for s in policy["Statement"]]
    for cluster, view in views.items():
        if cluster == home or not any(t.name == team for t in view.teams):
            continue
        for statement in permission_set_policy_of(view, view.team(team), role)["Statement"]:
            if statement["Sid"] not in HOME_SIDS:
                _add_statement(statements, statement, cluster)
    return {**policy, "Statement": statements}


def policy_size(policy: dict) -> int:
    """What IAM counts of a policy against its quotas: its characters but whitespace."""
    return len(re.sub(r"\s", "", json.dumps(policy)))


def _add_statement(statements: list[dict], statement: dict, cluster: str) -> None:
    for held in statements:
        if held["Sid"] != statement["Sid"] or held["Action"] != statement["Action"]:
            continue
        if held.get("Condition") == statement.get("Condition"):
            if held["Resource"] != statement["Resource"]:  # "*" and "*": the same grant already
                held["Resource"] = [*held["Resource"], *(r for r in statement["Resource"] if r not in held["Resource"])]
            return
        condition = _one_condition(held.get("Condition"), statement.get("Condition"))
        if held["Resource"] == statement["Resource"] and condition is not None:
            held["Condition"] = condition
            return
    suffix = "".join(part.capitalize() for part in cluster.split("-"))
    statements.append({**statement, "Sid": f"{statement['Sid']}On{suffix}"})


def _one_condition(first: dict | None, second: dict | None) -> dict | None:
    """The two conditions as one, where they differ only in the values of one key under an
    operator of alternatives (ALTERNATIVE_VALUES); None where they cannot be one."""
    if not first or not second or first.keys() != second.keys():
        return None
    differing = [
        (operator, key)
        for operator in first
        for key in first[operator].keys() | second[operator].keys()
        if first[operator].get(key) != second[operator].get(key)
    ]
    if len(differing) != 1:
        return None
    operator, key = differing[0]
    if operator not in ALTERNATIVE_VALUES or key not in first[operator] or key not in second[operator]:
        return None
    values = [*_listed(first[operator][key]), *_listed(second[operator][key])]
    return {**first, operator: {**first[operator], key: list(dict.fromkeys(values))}}


def _listed(value: object) -> list:
    return value if isinstance(value, list) else [value]
