"""The HyperPod side of the cluster: lifecycle-scripts bucket, instance execution role, the
HyperPod cluster itself, and task governance (add-on and scheduler config)."""

from __future__ import annotations

import json
from importlib import resources

from constructs import Construct

from hyperpod_teams import bindings, cloudformation, naming, policies
from hyperpod_teams.adoption import add_tags_command, cluster_arn_command
from hyperpod_teams.constructs.iam import bounded_role, inline_policy
from hyperpod_teams.constructs.lookups import (
    cloud_control_lookup,
    equals_check,
    property_check,
    same_cluster_check,
    tags_check,
)
from hyperpod_teams.constructs.storage import add_private_bucket, old_versions_expire
from hyperpod_teams.engine import cdk
from hyperpod_teams.spec.models import PlatformSpec

#: Prefix of the lifecycle scripts inside a bucket the project creates.
LIFECYCLE_PREFIX = "lifecycle-scripts/"
#: The lifecycle script uploaded when the spec names no scripts of its own.
DEFAULT_ON_CREATE_SCRIPT = (resources.files("hyperpod_teams") / "lifecycle" / "on_create.sh").read_text()
#: EKS add-on that runs HyperPod task governance (Kueue, quotas, priorities).
TASK_GOVERNANCE_ADDON = "amazon-sagemaker-hyperpod-taskgovernance"


class LifecycleScriptsBucket(Construct):
    """A private, versioned, encrypted, TLS-only bucket for the instance groups' lifecycle scripts."""

    def __init__(self, scope: Construct, id_: str, *, spec: PlatformSpec) -> None:
        super().__init__(scope, id_)
        org = spec.organization
        name = naming.lifecycle_bucket_name(org.name, spec.cluster.name, org.account_id, org.region)
        self.bucket = add_private_bucket(
            self,
            name,
            region=org.region,
            # Old versions of the scripts stay long enough to roll back a bad change.
            lifecycle_rules=[old_versions_expire("expire-old-script-versions")],
        )
        # The cluster runs its entry-point script at creation: the bucket must not start empty.
        self.default_script = bindings.aws_s3_object.S3Object(
            self,
            "on-create",
            bucket=self.bucket.id,
            key=f"{LIFECYCLE_PREFIX}{spec.cluster.lifecycle_on_create}",
            content=DEFAULT_ON_CREATE_SCRIPT,
            content_type="text/x-shellscript",
        )
        self.name = name
        self.s3_uri = f"s3://{name}/{LIFECYCLE_PREFIX}"


class HyperPodExecutionRole(Construct):
    """The instance groups' role: the managed HyperPod instance policy, what nodes of an EKS
    cluster need (network interfaces, image pulls, Pod Identity), and reading its scripts."""

    def __init__(
        self, scope: Construct, id_: str, *, spec: PlatformSpec, lifecycle_s3_uri: str, eks_cluster_name: str
    ) -> None:
        super().__init__(scope, id_)
        org = spec.organization
        partition = policies.aws_partition(org.region)
        name = naming.hyperpod_execution_role_name(org.name, spec.cluster.name)
        self.role = bounded_role(self, "role", name=name, org=org, trust=policies.hyperpod_execution_trust_policy())
        self.attachments = [
            bindings.aws_iam_role_policy_attachment.IamRolePolicyAttachment(
                self, f"managed-{name}", role=self.role.name, policy_arn=policies.managed_policy_arn(name, partition)
            )
            for name in policies.HYPERPOD_INSTANCE_MANAGED_POLICIES
        ]
        network = spec.cluster.network
        self.eks_node_access = inline_policy(
            self,
            "eks-node-access",
            role=self.role,
            name="eks-node-access",
            document=policies.hyperpod_eks_node_policy(
                region=org.region,
                account_id=org.account_id,
                subnet_ids=list(network.subnet_ids),
                security_group_ids=list(network.security_group_ids),
                eks_cluster_name=eks_cluster_name,
                partition=partition,
            ),
        )
        bucket, prefix = policies.split_s3_uri(lifecycle_s3_uri)
        self.read_scripts = inline_policy(
            self,
            "read-lifecycle-scripts",
            role=self.role,
            name="read-lifecycle-scripts",
            document=policies.lifecycle_scripts_read_policy(bucket, prefix, partition),
        )
        # What a node escape yields: AmazonSageMakerClusterInstanceRolePolicy reads every sagemaker-*
        # bucket of the account, a team's among them where the organization is named so.
        teams_buckets = [b for b in naming.teams_data_buckets(org, spec.teams) if b != bucket]
        self.no_team_data = inline_policy(
            self,
            "no-team-data",
            role=self.role,
            name="no-team-data",
            document=policies.no_team_data_policy(teams_buckets, partition),
        )
        self.arn = self.role.arn


class HyperPodAutoscalingRole(Construct):
    """The role HyperPod assumes to add and remove nodes for Karpenter (`cluster.autoscaling`)."""

    def __init__(self, scope: Construct, id_: str, *, spec: PlatformSpec) -> None:
        super().__init__(scope, id_)
        org = spec.organization
        partition = policies.aws_partition(org.region)
        kms_keys = [g.volume_kms_key_id for g in spec.cluster.instance_groups if g.volume_kms_key_id]
        name = naming.hyperpod_autoscaling_role_name(org.name, spec.cluster.name)
        self.role = bounded_role(self, "role", name=name, org=org, trust=policies.hyperpod_autoscaling_trust_policy())
        inline_policy(
            self,
            "nodes",
            role=self.role,
            name="add-and-remove-nodes",
            document=policies.hyperpod_autoscaling_policy(
                partition=partition,
                region=org.region,
                account_id=org.account_id,
                kms_keys=[
                    k if k.startswith("arn:") else f"arn:{partition}:kms:{org.region}:{org.account_id}:key/{k}"
                    for k in kms_keys
                ],
            ),
        )
        self.arn = self.role.arn


class CreateOnlyGuards(Construct):
    """One `terraform_data` per create-only property of the cluster, which the cluster is
    replaced with (`replace_triggered_by`).

    Terraform's Cloud Control resource replaces only when a JSON-patch path equals a create-only
    path of the schema exactly (terraform-provider-aws, internal/service/cloudcontrol/resource.go);
    a new subnet patches `/VpcConfig/Subnets/1`, not `/VpcConfig`, so it would plan as an update
    that AWS refuses mid-apply. With these guards such a change plans as a replacement. The
    cluster-level guards carry `prevent_destroy` like the cluster, so the plan stops with an error
    naming the guard, and so the field (`create_only_VpcConfig`...).
    """

    def __init__(self, scope: Construct, id_: str, *, fields: dict[str, object], protect: bool) -> None:
        super().__init__(scope, id_)
        self.guards = []
        #: Terraform reads `replace_triggered_by` as bare references; cdktf would write a resource
        #: as "${...}", which Terraform's JSON syntax rejects there.
        self.references: list[str] = []
        for field, value in fields.items():
            per_group = field.startswith(cloudformation.INSTANCE_GROUP_FIELD_PREFIX)
            guard = cdk.DataResource(
                self,
                field,
                # A changed trigger replaces the guard (an input would only update it), so the
                # guard's own prevent_destroy names the field in Terraform's error.
                triggers_replace={field: value},
                # A removed instance group destroys its guard; only cluster-level guards refuse.
                lifecycle=cdk.TerraformResourceLifecycle(prevent_destroy=protect and not per_group),
            )
            address = f"{cloudformation.CREATE_ONLY_GUARD}{field}"
            guard.override_logical_id(address.partition(".")[2])
            self.guards.append(guard)
            self.references.append(address)


class LifecycleScriptsUploaded(Construct):
    """A plan stops before the cluster is created or grows when its OnCreate script is not where
    the spec's `lifecycle_scripts_s3_uri` points (a bucket the stacks do not make). SageMaker
    would accept the request and then fail every node: "Lifecycle scripts did not run
    successfully. Ensure the scripts exist in provided S3 path..." (awslabs/awsome-distributed-ai#188),
    after the instances were billed. The check lists the objects under the prefix
    (`aws_s3_objects`, s3:ListBucket) and names what to upload where."""

    def __init__(self, scope: Construct, id_: str, *, s3_uri: str, on_create: str) -> None:
        super().__init__(scope, id_)
        bucket, key = policies.lifecycle_script_object(s3_uri, on_create)
        self.listing = bindings.aws_data_s3_objects.DataAwsS3Objects(self, "listing", bucket=bucket, prefix=key)
        self.listing.add_override(
            "lifecycle.postcondition",
            [
                {
                    "condition": f'${{contains(self.keys, "{key}")}}',
                    "error_message": (
                        f"The lifecycle script s3://{bucket}/{key} does not exist: every HyperPod node runs "
                        f"cluster.lifecycle_on_create ({on_create}) from cluster.lifecycle_scripts_s3_uri "
                        f"({s3_uri}) when it starts, and fails without it. Upload it first, e.g. "
                        f"aws s3 cp {on_create} s3://{bucket}/{key} (a starting script: hyperpod_teams/lifecycle/"
                        "on_create.sh), or leave lifecycle_scripts_s3_uri out to have the stacks make the bucket "
                        "and upload the default script."
                    ),
                }
            ],
        )


class HyperPodCluster(Construct):
    """The HyperPod cluster (Cloud Control), protected from destroy unless the spec allows it."""

    def __init__(
        self,
        scope: Construct,
        id_: str,
        *,
        spec: PlatformSpec,
        eks_cluster_arn: str,
        execution_role: HyperPodExecutionRole,
        lifecycle_s3_uri: str,
        depends_on: list | None = None,
        autoscaling_role: HyperPodAutoscalingRole | None = None,
    ) -> None:
        super().__init__(scope, id_)
        checks = []
        if spec.cluster.lifecycle_scripts_s3_uri is not None:
            uploaded = LifecycleScriptsUploaded(
                self,
                "lifecycle-scripts-uploaded",
                s3_uri=spec.cluster.lifecycle_scripts_s3_uri,
                on_create=spec.cluster.lifecycle_on_create,
            )
            checks.append(uploaded.listing)
        state = cloudformation.hyperpod_cluster(
            spec,
            eks_cluster_arn=eks_cluster_arn,
            execution_role_arn=execution_role.arn,
            lifecycle_s3_uri=lifecycle_s3_uri,
            cluster_role_arn=autoscaling_role.arn if autoscaling_role else None,
        )
        protect = not spec.cluster.allow_destroy
        self.create_only = CreateOnlyGuards(
            self, "create-only", fields=cloudformation.create_only_fields(state), protect=protect
        )
        cloudcontrol = bindings.aws_cloudcontrolapi_resource
        timeouts = spec.cluster.timeouts
        self.resource = cloudcontrol.CloudcontrolapiResource(
            self,
            "cluster",
            type_name=cloudformation.CLUSTER_TYPE,
            desired_state=state.desired_state(),
            timeouts=cloudcontrol.CloudcontrolapiResourceTimeouts(
                create=timeouts.create, update=timeouts.update, delete=timeouts.delete
            ),
            lifecycle=cdk.TerraformResourceLifecycle(
                prevent_destroy=protect, replace_triggered_by=self.create_only.references
            ),
            depends_on=[
                *execution_role.attachments,
                execution_role.read_scripts,
                execution_role.eks_node_access,
                *checks,
                *(depends_on or []),
            ],
        )
        #: The cluster's primary identifier in Cloud Control is its ARN.
        self.arn: str = self.resource.id
        DeployedInstanceGroups(self, "deployed-instance-groups", spec=spec, cluster=self.resource)


#: The address (after `data.aws_ssm_parameters_by_path.`) of the record's lookup.
RECORDED_GROUPS_ID = "deployed_instance_groups"


class DeployedInstanceGroups(Construct):
    """A deployed instance group leaves the cluster only when the spec says so on purpose.

    SageMaker knows an instance group by its name (UpdateCluster deletes a group its
    InstanceGroups no longer lists): a renamed or removed group's nodes are terminated with every
    job on them, which a plan shows as a one-line in-place update of the cluster. Each apply
    records the groups it left in an SSM parameter (after the cluster); the next plan reads the
    record (before any change) and stops, naming `cluster.retired_instance_groups`, when a recorded
    group is neither in the spec's instance groups nor retired there. No record yet (a first
    deploy, or a platform deployed before this check) passes.
    """

    def __init__(self, scope: Construct, id_: str, *, spec: PlatformSpec, cluster) -> None:
        super().__init__(scope, id_)
        cluster_spec, org = spec.cluster, spec.organization
        name = naming.deployed_instance_groups_parameter(org.name, cluster_spec.name)
        groups = {group.name: group.count for group in cluster_spec.instance_groups}
        recorded = bindings.aws_data_ssm_parameters_by_path.DataAwsSsmParametersByPath(
            self, "recorded", path=name.rpartition("/")[0]
        )
        recorded.override_logical_id(RECORDED_GROUPS_ID)
        source = f"data.aws_ssm_parameters_by_path.{RECORDED_GROUPS_ID}"
        # The record's value as a map; {} without a record. The path holds the record alone (its
        # name is the path's only child); the provider marks `values` sensitive.
        deployed = f"try(jsondecode(nonsensitive({source}.values[0])), {{}})"
        allowed = json.dumps(sorted(groups) + sorted(cluster_spec.retired_instance_groups))
        dropped = f'[for group, nodes in {deployed} : "${{group}} (${{nodes}} nodes)" if !contains({allowed}, group)]'
        cluster.add_override(
            "lifecycle.precondition",
            [
                {
                    "condition": f"${{length({dropped}) == 0}}",
                    "error_message": (
                        f"Deployed instance groups would leave the HyperPod cluster {cluster_spec.name}: "
                        f'${{join(", ", {dropped})}}. SageMaker knows a group by its name: one missing from '
                        "cluster.instance_groups is deleted, its nodes terminated with every job on them (a "
                        "renamed group is a new one, provisioned from zero). If that is meant, list the group in "
                        "cluster.retired_instance_groups; else put it back under its deployed name."
                    ),
                }
            ],
        )
        self.record = bindings.aws_ssm_parameter.SsmParameter(
            self,
            "record",
            name=name,
            # Group names and node counts, nothing secret: a plain String (.checkov.yaml says why).
            type="String",
            value=json.dumps(groups, sort_keys=True, separators=(",", ":")),
            description=f"Instance groups of the HyperPod cluster {cluster_spec.name} as last applied (hyperpod-teams)",
            depends_on=[cluster],
        )


class ExistingHyperPodCluster(Construct):
    """A HyperPod cluster the spec adopts: looked up through Cloud Control by its name (the
    AWS::SageMaker::Cluster schema lists ClusterName among its additionalIdentifiers, given as JSON:
    cloudformation.cluster_name_identifier), nothing of it created or changed."""

    def __init__(self, scope: Construct, id_: str, *, spec: PlatformSpec, name: str, eks_cluster_arn: str) -> None:
        super().__init__(scope, id_)
        org = spec.organization
        cluster_arn = cluster_arn_command(name, org.region)
        self.lookup = cloud_control_lookup(
            self,
            "cluster",
            type_name=cloudformation.CLUSTER_TYPE,
            identifier=cloudformation.cluster_name_identifier(name),
            checks=[
                equals_check(
                    ("Orchestrator", "Eks", "ClusterArn"),
                    eks_cluster_arn,
                    f"The HyperPod cluster {name} is not orchestrated by the spec's EKS cluster "
                    "(cluster.eks.existing_cluster_name): see `aws sagemaker describe-cluster --cluster-name "
                    f"{name} --query Orchestrator.Eks.ClusterArn`.",
                ),
                tags_check(
                    naming.shared_platform_tags(org),
                    f"The HyperPod cluster {name}",
                    add_tags_command(cluster_arn, naming.shared_platform_tags(org), org.region),
                ),
            ],
        )
        # A local, so that other stacks read the ARN itself, not the whole description to decode.
        arn = cdk.TerraformLocal(self, "arn", cdk.Fn.lookup(cdk.Fn.jsondecode(self.lookup.properties), "ClusterArn"))
        self.arn: str = arn.as_string
        #: What task governance waits for: nothing to create here.
        self.resource = None


class ExistingSchedulerConfig(Construct):
    """The cluster's scheduler config that runs already: looked up by its ARN (the primary
    identifier of AWS::SageMaker::ClusterSchedulerConfig) and kept as it is.

    Terraform's AWS provider cannot import `aws_cloudcontrolapi_resource` ("resource
    aws_cloudcontrolapi_resource doesn't support import", provider 5.100), and a cluster has one
    scheduler config, so creating another fails: the plan instead stops when the config is not the
    cluster's or says other than the spec, so that the spec and the report say what runs.
    """

    def __init__(self, scope: Construct, id_: str, *, spec: PlatformSpec, arn: str, cluster_arn: str) -> None:
        super().__init__(scope, id_)
        governance = spec.cluster.task_governance
        where = f"The scheduler config {arn}"
        config_id = arn.rpartition("/")[2]
        fix = f"see `aws sagemaker describe-cluster-scheduler-config --cluster-scheduler-config-id {config_id}`"
        priorities = {c.name: c.weight for c in governance.priority_classes}
        self.lookup = cloud_control_lookup(
            self,
            "scheduler-config",
            type_name=cloudformation.SCHEDULER_CONFIG_TYPE,
            identifier=arn,
            checks=[
                same_cluster_check(cluster_arn, where, fix),
                property_check(
                    "SchedulerConfig.FairShare",
                    governance.fair_share,
                    f"{where} has another fair share than cluster.task_governance.fair_share "
                    f"({governance.fair_share}): {fix}, and make the spec say what runs.",
                ),
                property_check(
                    "SchedulerConfig.PriorityClasses",
                    priorities,
                    f"{where} has other priority classes than cluster.task_governance.priority_classes "
                    f"({priorities or 'none'}): {fix}, and make the spec say what runs.",
                    iterate="item.Name => item.Weight",
                ),
                *(
                    [
                        property_check(
                            "SchedulerConfig.IdleResourceSharing",
                            governance.idle_resource_sharing,
                            f"{where} shares idle capacity otherwise than cluster.task_governance."
                            f"idle_resource_sharing ({governance.idle_resource_sharing}): {fix}, and make the spec "
                            "say what runs.",
                        )
                    ]
                    if governance.idle_resource_sharing
                    else []
                ),
                tags_check(
                    naming.shared_platform_tags(spec.organization),
                    where,
                    add_tags_command(arn, naming.shared_platform_tags(spec.organization), spec.organization.region),
                ),
            ],
        )
