"""What a spec says exists already, and what the stacks do with each: look it up, import it
(take it over), keep it as it is (checked at every plan), or leave it alone. The report and the
runbook read this list. Pure layer.

How each is done follows what Terraform's AWS provider can import (its resource pages' Import
sections): `aws_eks_addon` (CLUSTER:ADDON), `aws_sagemaker_domain` (domain ID),
`aws_ssoadmin_permission_set` and its inline policy (PERMISSION_SET_ARN,INSTANCE_ARN),
`aws_ssoadmin_account_assignment` (six comma-separated parts). `aws_cloudcontrolapi_resource`,
which the stacks use for scheduler configs and compute quotas, cannot be imported ("resource
aws_cloudcontrolapi_resource doesn't support import", provider 5.100).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hyperpod_teams import addons, naming
from hyperpod_teams.document import md_code
from hyperpod_teams.spec.models import PlatformSpec

How = Literal["looked up", "imported", "kept as it is", "left alone"]

#: What each way means, for readers of the report and the runbook.
HOW_MEANING: dict[str, str] = {
    "looked up": "read at every plan; nothing of it is created or changed",
    "imported": "an `import` block takes it over at the first apply; from then on the stacks manage it and "
    "never destroy it (prevent_destroy)",
    "kept as it is": "not managed; read at every plan, which stops when it says other than the spec",
    "left alone": "not managed and not read",
}


def ways_explained(existing: list[Existing], emphasis: str = "*") -> str:
    """What each way the stacks treat `existing` means, for the ways it uses: one sentence."""
    used = {e.how for e in existing}
    return (
        "; ".join(f"{emphasis}{how}{emphasis}: {meaning}" for how, meaning in HOW_MEANING.items() if how in used) + "."
    )


@dataclass(frozen=True)
class Existing:
    """One thing the spec says exists already."""

    what: str
    identifier: str
    how: How
    field: str
    stack: str
    #: The AWS CLI command that prints the identifier, and what to check next (Markdown).
    lookup: str
    then: str = ""


def add_tags_command(resource_arn: str, tags: dict[str, str], region: str) -> str:
    """The AWS CLI command that puts `tags` on a SageMaker resource."""
    pairs = " ".join(f"Key={key},Value={value}" for key, value in tags.items())
    return f"aws sagemaker add-tags --region {region} --resource-arn {resource_arn} --tags {pairs}"


def cluster_arn_command(name: str, region: str) -> str:
    """A shell substitution that prints a HyperPod cluster's ARN."""
    return f"$(aws sagemaker describe-cluster --cluster-name {name} --region {region} --query ClusterArn --output text)"


def _tag_it(resource_arn: str, tags: dict[str, str], region: str) -> str:
    return (
        "tag it (the stacks do not manage it; team members see it and its spend is allocated by these tags, and "
        f"the plan stops until they are on it): {md_code(add_tags_command(resource_arn, tags, region))}"
    )


def existing_resources(spec: PlatformSpec) -> list[Existing]:
    org, cluster = spec.organization.name, spec.cluster
    region = spec.organization.region
    cluster_stack = naming.cluster_stack_name(org)
    found: list[Existing] = []
    platform_tags = naming.shared_platform_tags(spec.organization)
    cluster_arn = cluster_arn_command(str(cluster.existing_hyperpod_cluster_name), region)
    if cluster.existing_hyperpod_cluster_name is not None:
        name = cluster.existing_hyperpod_cluster_name
        found.append(
            Existing(
                "HyperPod cluster",
                name,
                "looked up",
                "cluster.existing_hyperpod_cluster_name",
                cluster_stack,
                f"aws sagemaker list-clusters --region {region} --query 'ClusterSummaries[].ClusterName'",
                _tag_it(cluster_arn, platform_tags, region),
            )
        )
    governance = cluster.task_governance
    if governance.enabled and governance.existing_addon is not None:
        eks = naming.shared_eks_cluster_name(cluster)
        found.append(
            Existing(
                "task-governance add-on",
                f"{eks}:amazon-sagemaker-hyperpod-taskgovernance",
                "imported" if governance.existing_addon == "take_over" else "left alone",
                "cluster.task_governance.existing_addon",
                cluster_stack,
                f"aws eks describe-addon --cluster-name {eks} --addon-name amazon-sagemaker-hyperpod-taskgovernance "
                f"--region {region} --query 'addon.[addonName,status,addonVersion]'",
            )
        )
    eks = naming.shared_eks_cluster_name(cluster)
    for field, add_on, name in (
        ("inference", cluster.inference, addons.INFERENCE_OPERATOR_ADDON),
        ("spaces", cluster.spaces, addons.SPACES_ADDON),
        ("observability", cluster.observability, addons.OBSERVABILITY_ADDON),
    ):
        if add_on is not None and add_on.existing_addon is not None:
            found.append(
                Existing(
                    f"{field} add-on",
                    f"{eks}:{name}",
                    "imported" if add_on.existing_addon == "take_over" else "left alone",
                    f"cluster.{field}.existing_addon",
                    cluster_stack,
                    f"aws eks describe-addon --cluster-name {eks} --addon-name {name} "
                    f"--region {region} --query 'addon.[addonName,status,addonVersion]'",
                )
            )
    if governance.enabled and governance.existing_scheduler_config_arn is not None:
        found.append(
            Existing(
                "scheduler config",
                governance.existing_scheduler_config_arn,
                "kept as it is",
                "cluster.task_governance.existing_scheduler_config_arn",
                cluster_stack,
                f"aws sagemaker list-cluster-scheduler-configs --cluster-arn {cluster_arn} --region {region} "
                "--query 'ClusterSchedulerConfigSummaries[].[ClusterSchedulerConfigArn,Name,Status]'",
                _tag_it(governance.existing_scheduler_config_arn, platform_tags, region),
            )
        )
    instance_arn = spec.identity.identity_center.instance_arn
    for t, team in enumerate(spec.teams):
        team_stack = naming.team_stack_name(org, team.name)
        if governance.enabled and team.compute.existing_quota_arn is not None:
            found.append(
                Existing(
                    f"compute quota of team {team.name}",
                    team.compute.existing_quota_arn,
                    "kept as it is",
                    f"teams[{t}].compute.existing_quota_arn",
                    team_stack,
                    f"aws sagemaker list-compute-quotas --cluster-arn {cluster_arn} --region {region} --query "
                    "'ComputeQuotaSummaries[].[ComputeQuotaTarget.TeamName,ComputeQuotaArn,Name]'",
                    _tag_it(
                        team.compute.existing_quota_arn, naming.team_resource_tags(spec.organization, team), region
                    ),
                )
            )
        if team.studio.enabled and team.studio.existing_domain_id is not None:
            found.append(
                Existing(
                    f"Studio domain of team {team.name}",
                    team.studio.existing_domain_id,
                    "imported",
                    f"teams[{t}].studio.existing_domain_id",
                    team_stack,
                    f"aws sagemaker list-domains --region {region} --query 'Domains[].[DomainId,DomainName]'",
                    f"`aws sagemaker describe-domain --domain-id ID --region {region} --query AuthMode` must say SSO",
                )
            )
        for role in naming.ROLES:
            existing = team.existing_permission_set(role)
            if existing is None:
                continue
            found.append(
                Existing(
                    f"permission set of team {team.name}'s {role}",
                    existing.arn,
                    "imported",
                    f"teams[{t}].existing_permission_sets.{role}",
                    naming.access_stack_name(org),
                    f"aws sso-admin list-permission-sets --instance-arn {instance_arn}",
                    f"its name: `aws sso-admin describe-permission-set --instance-arn {instance_arn} "
                    "--permission-set-arn ARN --query PermissionSet.Name`",
                )
            )
    return found
