"""What an organization that already runs HyperPod on EKS has before the stacks adopt it
(examples/existing-hyperpod): the HyperPod cluster, its scheduler config, a team's compute quota,
its Studio domain, its permission set assigned to its group, the add-ons the spec says it runs. Seeded
into the emulator as AWS holds them, in AWS's shapes (the registry schemas' properties for Cloud
Control, DescribeDomain's for the domain), from the spec's identifiers.

What is seeded is what the organization runs, not what the stacks write: `differences` changes
it where a spec and the account disagree, so the stacks' checks of an adopted resource (the
postconditions of their lookups) meet a real mismatch.
"""

from __future__ import annotations

import copy
from typing import Any

Json = dict[str, Any]


#: The add-ons a spec says the cluster runs already (`existing_addon`, taken over or left alone).
EXISTING_ADD_ONS = {
    "task_governance": "amazon-sagemaker-hyperpod-taskgovernance",
    "inference": "amazon-sagemaker-hyperpod-inference",
    "spaces": "amazon-sagemaker-spaces",
    "observability": "amazon-sagemaker-hyperpod-observability",
}


def _running_add_ons(cluster: dict) -> list[str]:
    return [name for field, name in EXISTING_ADD_ONS.items() if (cluster.get(field) or {}).get("existing_addon")]


def adopted_world(spec: dict, differences: dict | None = None) -> Json:
    """The adopted resources of `spec`, for `Additions.seed` (its `adopted` key); `differences`
    maps a resource (`cluster`, `scheduler_config`, `quota:<team>`) to properties that replace
    the spec's."""
    org, cluster = spec["organization"], spec["cluster"]
    region, account = org["region"], org["account_id"]
    differences = differences or {}
    prefix = f"arn:aws:sagemaker:{region}:{account}"
    eks_name = cluster["eks"]["existing_cluster_name"]
    cluster_arn = f"{prefix}:cluster/{_id_of(cluster['existing_hyperpod_cluster_name'])}"
    org_tags = [{"Key": "hyperpod-teams:organization", "Value": org["name"]}]
    shared = [*org_tags, {"Key": "hyperpod-teams:platform", "Value": "shared"}]
    world: Json = {
        "region": region,
        "eks_addons": [{"cluster": eks_name, "name": name} for name in _running_add_ons(cluster)],
        "cloud_control": [],
        "domains": [],
        "permission_sets": [],
    }
    hyperpod = {
        "ClusterArn": cluster_arn,
        "ClusterName": cluster["existing_hyperpod_cluster_name"],
        "ClusterStatus": "InService",
        "Orchestrator": {"Eks": {"ClusterArn": f"arn:aws:eks:{region}:{account}:cluster/{eks_name}"}},
        "InstanceGroups": [
            {
                "InstanceGroupName": group["name"],
                "InstanceType": group["instance_type"],
                "InstanceCount": group["count"],
                "CurrentCount": group["count"],
                "ExecutionRole": f"arn:aws:iam::{account}:role/{cluster['name']}-hyperpod-execution",
                "LifeCycleConfig": {"SourceS3Uri": f"s3://{cluster['name']}-lifecycle/", "OnCreate": "on_create.sh"},
            }
            for group in cluster["instance_groups"]
        ],
        "VpcConfig": {
            "SecurityGroupIds": cluster["network"]["security_group_ids"],
            "Subnets": cluster["network"]["subnet_ids"],
        },
        "Tags": shared,
    }
    world["cloud_control"].append(
        _changed("AWS::SageMaker::Cluster", cluster_arn, hyperpod, differences.get("cluster"))
    )
    governance = cluster["task_governance"]
    if governance.get("existing_scheduler_config_arn"):
        arn = governance["existing_scheduler_config_arn"]
        config = {
            "ClusterSchedulerConfigArn": arn,
            "ClusterSchedulerConfigId": arn.rsplit("/", 1)[1],
            "ClusterSchedulerConfigVersion": 1,
            "Status": "Created",
            "Name": f"{cluster['name']}-scheduler",
            "ClusterArn": cluster_arn,
            "SchedulerConfig": {
                "FairShare": governance.get("fair_share", "Enabled"),
                "PriorityClasses": [{"Name": c["name"], "Weight": c["weight"]} for c in governance["priority_classes"]],
            },
            "Tags": shared,
        }
        world["cloud_control"].append(
            _changed("AWS::SageMaker::ClusterSchedulerConfig", arn, config, differences.get("scheduler_config"))
        )
    for team in spec["teams"]:
        compute = team.get("compute", {})
        if compute.get("existing_quota_arn"):
            arn = compute["existing_quota_arn"]
            quota = {
                "ComputeQuotaArn": arn,
                "ComputeQuotaId": arn.rsplit("/", 1)[1],
                "ComputeQuotaVersion": 1,
                "Status": "Created",
                "Name": f"{team['name']}-quota",
                "ClusterArn": cluster_arn,
                "ActivationState": "Enabled",
                "ComputeQuotaTarget": {"TeamName": team["name"], "FairShareWeight": 0},
                "ComputeQuotaConfig": {
                    "ComputeQuotaResources": [
                        {"InstanceType": q["instance_type"], "Count": q["count"]} for q in compute["quota"]
                    ],
                    "ResourceSharingConfig": {"Strategy": compute.get("sharing", "LendAndBorrow"), "BorrowLimit": 50},
                    "PreemptTeamTasks": "LowerPriority",
                },
                "Tags": [*org_tags, {"Key": "hyperpod-teams:team", "Value": team["name"]}],
            }
            world["cloud_control"].append(
                _changed("AWS::SageMaker::ComputeQuota", arn, quota, differences.get(f"quota:{team['name']}"))
            )
        studio = team.get("studio", {})
        if studio.get("existing_domain_id"):
            domain_id = studio["existing_domain_id"]
            world["domains"].append(
                {
                    "DomainArn": f"{prefix}:domain/{domain_id}",
                    "DomainId": domain_id,
                    "DomainName": f"{team['name']}-studio",
                    "AuthMode": "SSO",
                    "AppNetworkAccessType": "VpcOnly",
                    "SubnetIds": cluster["network"]["subnet_ids"],
                    "VpcId": cluster["network"]["vpc_id"],
                    "DefaultUserSettings": {
                        "ExecutionRole": f"arn:aws:iam::{account}:role/{team['name']}-studio-execution",
                        "SecurityGroups": cluster["network"]["security_group_ids"],
                    },
                }
            )
        for role, existing in (team.get("existing_permission_sets") or {}).items():
            world["permission_sets"].append(
                {
                    "arn": existing["arn"],
                    "name": existing["name"],
                    "group": f"{org['name']}-{team['name']}-{role}",
                    "account_id": account,
                }
            )
    return world


def _id_of(name: str) -> str:
    """A cluster's 12-character ID, the same for the same name on every run."""
    import hashlib

    return hashlib.sha256(name.encode()).hexdigest()[:12]


def _changed(type_name: str, identifier: str, properties: Json, changes: Json | None) -> Json:
    return {"type": type_name, "identifier": identifier, "properties": {**copy.deepcopy(properties), **(changes or {})}}


#: Changes an organization makes to what the stacks adopted, outside them, and the words of the
#: check that must stop the next plan: (resource type, what changes, the refusal's words).
DRIFTS = (
    (
        "AWS::SageMaker::ClusterSchedulerConfig",
        "a priority class's weight",
        "has other priority classes than cluster.task_governance.priority_classes",
    ),
    (
        "AWS::SageMaker::ComputeQuota",
        "the guaranteed instance count",
        "guarantees other instance counts than teams[].compute.quota",
    ),
    ("AWS::SageMaker::Cluster", "the tags", "lacks the tags that let team members see it"),
)


def drifted(world: Json) -> list[Json]:
    """The adopted Cloud Control resources of `world` as DRIFTS changes them."""
    changed = []
    for resource in world["cloud_control"]:
        properties = copy.deepcopy(resource["properties"])
        if resource["type"] == "AWS::SageMaker::ClusterSchedulerConfig":
            properties["SchedulerConfig"]["PriorityClasses"][-1]["Weight"] -= 10
        elif resource["type"] == "AWS::SageMaker::ComputeQuota":
            properties["ComputeQuotaConfig"]["ComputeQuotaResources"][0]["Count"] += 1
        else:
            properties["Tags"] = []
        changed.append({**resource, "properties": properties})
    return changed
