"""`<org>-cluster`: the HyperPod cluster on the shared EKS cluster, its lifecycle scripts and
execution role, and task governance (AWS)."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import addons, bindings, naming, policies
from hyperpod_teams.constructs.access_entries import SsoRoleAccessEntry
from hyperpod_teams.constructs.addons import (
    AddonCluster,
    HyperPodObservability,
    InferenceOperator,
    SageMakerSpaces,
    TaskGovernance,
    TrainingOperator,
)
from hyperpod_teams.constructs.eks import EksCluster
from hyperpod_teams.constructs.hyperpod import (
    ExistingHyperPodCluster,
    HyperPodAutoscalingRole,
    HyperPodCluster,
    HyperPodExecutionRole,
    LifecycleScriptsBucket,
)
from hyperpod_teams.engine import cdk
from hyperpod_teams.spec.fields import installs
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.stacks.base import PlatformStack

POD_IDENTITY_AGENT_ID = "pod-identity-agent"
#: The agent's address when the training operator's construct made it (before it was shared).
TRAINING_OPERATOR_AGENT_ADDRESS = "aws_eks_addon.training-operator_pod-identity-agent_B1574060"


class ClusterStack(PlatformStack):
    def __init__(
        self,
        scope: Construct,
        stack_name: str,
        *,
        spec: PlatformSpec,
        eks: EksCluster,
        grafana_groups: tuple[list[str], list[str]] = ([], []),
    ) -> None:
        """`grafana_groups`: the Identity Center group IDs of the teams (viewers) and of the platform
        admins (admins) of the observability add-on's Grafana workspace."""
        super().__init__(scope, stack_name, spec=spec)
        # The shared platform: its spend is split across the teams (cost category, cost.py).
        self.add_aws_provider(tags=naming.shared_platform_tags(spec.organization), account=spec.organization.account_id)
        cluster = spec.cluster
        self.lifecycle_bucket = None
        self.execution_role = None
        self.autoscaling_role: HyperPodAutoscalingRole | None = None
        lifecycle_s3_uri = None
        self.hyperpod: HyperPodCluster | ExistingHyperPodCluster
        if cluster.existing_hyperpod_cluster_name is not None:
            self.hyperpod = ExistingHyperPodCluster(
                self, "hyperpod", spec=spec, name=cluster.existing_hyperpod_cluster_name, eks_cluster_arn=eks.arn
            )
        else:
            lifecycle_s3_uri = cluster.lifecycle_scripts_s3_uri
            if lifecycle_s3_uri is None:
                self.lifecycle_bucket = LifecycleScriptsBucket(self, "lifecycle-scripts", spec=spec)
                lifecycle_s3_uri = self.lifecycle_bucket.s3_uri
            self.execution_role = HyperPodExecutionRole(
                self, "execution-role", spec=spec, lifecycle_s3_uri=lifecycle_s3_uri, eks_cluster_name=eks.name
            )
            self.autoscaling_role = (
                HyperPodAutoscalingRole(self, "autoscaling-role", spec=spec) if cluster.autoscaling else None
            )
            self.hyperpod = HyperPodCluster(
                self,
                "hyperpod",
                spec=spec,
                eks_cluster_arn=eks.arn,
                execution_role=self.execution_role,
                lifecycle_s3_uri=lifecycle_s3_uri,
                depends_on=[self.lifecycle_bucket.default_script] if self.lifecycle_bucket else [],
                autoscaling_role=self.autoscaling_role,
            )
        if cluster.cloudwatch_observability and self.execution_role is not None:
            # The agent runs on the HyperPod nodes: their role may publish metrics and logs first.
            agent_policy = bindings.aws_iam_role_policy_attachment.IamRolePolicyAttachment(
                self,
                "cloudwatch-agent-policy",
                role=self.execution_role.role.name,
                policy_arn=policies.managed_policy_arn(
                    addons.CLOUDWATCH_AGENT_MANAGED_POLICY, policies.aws_partition(spec.organization.region)
                ),
            )
            bindings.aws_eks_addon.EksAddon(
                self,
                "cloudwatch-observability",
                cluster_name=eks.name,
                addon_name=addons.CLOUDWATCH_OBSERVABILITY_ADDON,
                depends_on=[agent_policy, self.hyperpod.resource],
            )
        # What the add-ons whose pods run on the HyperPod nodes wait for: the nodes.
        nodes = [self.hyperpod.resource] if self.hyperpod.resource is not None else []
        self.pod_identity_agent = None
        if spec.installs_pod_identity_agent:
            self.pod_identity_agent = self._pod_identity_agent(eks)
        self.training_operator = None
        if cluster.installs_training_operator:
            self.training_operator = TrainingOperator(
                self,
                "training-operator",
                AddonCluster(spec, eks.name, eks.arn, after=nodes),
                pod_identity_agent=self.pod_identity_agent,
            )
        self._add_ons_for_teams(spec, eks, grafana_groups)
        self.task_governance = None
        if cluster.task_governance.enabled:
            self.task_governance = TaskGovernance(
                self, "task-governance", AddonCluster(spec, eks.name, eks.arn, self.hyperpod.arn, after=nodes)
            )
        # Platform admins administer the whole EKS cluster through their permission set's role.
        self.platform_admins = SsoRoleAccessEntry(
            self,
            "platform-admins-access",
            permission_set=naming.platform_admins_permission_set_name(spec.organization.name),
            eks_cluster_name=eks.name,
            cluster_admin=True,
            partition=policies.aws_partition(spec.organization.region),
        )
        cdk.TerraformOutput(
            self,
            "hyperpod_cluster_arn",
            value=self.hyperpod.arn,
            description="The shared HyperPod cluster (hyp set-cluster-context --cluster-name takes its name)",
        )
        if lifecycle_s3_uri is not None:
            cdk.TerraformOutput(
                self,
                "lifecycle_scripts_s3_uri",
                value=lifecycle_s3_uri,
                description="Where the instance groups' lifecycle scripts are uploaded (on_create.sh)",
            )

    def _add_ons_for_teams(self, spec: PlatformSpec, eks: EksCluster, grafana_groups: tuple[list, list]) -> None:
        """The inference operator, SageMaker Spaces and the observability add-on, each where the spec
        asks for it and does not say the cluster has it already (`install: false`). Their pods run on
        the HyperPod nodes; the inference operator's webhooks need cert-manager (the training
        operator's, where the stacks install it)."""
        cluster = spec.cluster
        after = [self.hyperpod.resource] if self.hyperpod.resource is not None else []
        if self.pod_identity_agent is not None:
            after.append(self.pod_identity_agent)
        self.inference = None
        if installs(cluster.inference):
            cert_manager = []
            if self.training_operator is not None and self.training_operator.cert_manager is not None:
                cert_manager = [self.training_operator.cert_manager]
            self.inference = InferenceOperator(
                self,
                "inference-operator",
                AddonCluster(spec, eks.name, eks.arn, self.hyperpod.arn, after + cert_manager),
            )
        self.spaces = None
        if installs(cluster.spaces):
            self.spaces = SageMakerSpaces(self, "spaces", AddonCluster(spec, eks.name, eks.arn, after=after))
        self.observability = None
        if installs(cluster.observability):
            self.observability = HyperPodObservability(
                self,
                "observability",
                AddonCluster(spec, eks.name, eks.arn, after=after),
                viewer_group_ids=grafana_groups[0],
                admin_group_ids=grafana_groups[1],
            )
            cdk.TerraformOutput(
                self,
                "prometheus_workspace",
                value=self.observability.prometheus.prometheus_endpoint,
                description="Where the observability add-on's metrics are (hyp get-monitoring --prometheus)",
            )
            if self.observability.grafana is not None:
                cdk.TerraformOutput(
                    self,
                    "grafana_workspace",
                    value=self.observability.grafana.endpoint,
                    description="The teams' dashboards (hyp get-monitoring --grafana), from the access portal",
                )

    def _pod_identity_agent(self, eks: EksCluster) -> bindings.aws_eks_addon.EksAddon:
        """The EKS Pod Identity agent, for the training operator and the usage-report operator
        alike (PlatformSpec.installs_pod_identity_agent). Its pods run on the HyperPod nodes."""
        agent = bindings.aws_eks_addon.EksAddon(
            self,
            POD_IDENTITY_AGENT_ID,
            cluster_name=eks.name,
            addon_name=addons.POD_IDENTITY_AGENT_ADDON,
            depends_on=[self.hyperpod.resource] if self.hyperpod.resource is not None else None,
        )
        # Where the training operator had it before it was shared: the state moves, the add-on stays.
        # With nothing at the old address, the block does nothing.
        address = f"{agent.terraform_resource_type}.{self.get_logical_id(agent)}"
        self.add_override("moved", [{"from": TRAINING_OPERATOR_AGENT_ADDRESS, "to": address}])
        return agent
