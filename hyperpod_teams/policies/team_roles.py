"""The team roles' IAM Identity Center permission sets: what a person gets when they sign in through
the access portal. Team roles reach only what carries their own team's tag (domains, user profiles,
spaces, apps, compute quotas all do: the team stack tags them and the domain propagates its tags),
plus read access to the shared clusters. Nothing lists across the account: list calls need Resource
"*".

Pure layer: no cdktf.
"""

from __future__ import annotations

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
