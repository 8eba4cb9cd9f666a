"""HyperPod task governance: the EKS add-on and the cluster's scheduler config (priorities, fair
share), created, or, for an adopted cluster, taken over or left as they are."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import bindings, cloudformation
from hyperpod_teams.constructs.addons.contract import AddonCluster, ClusterAddOn
from hyperpod_teams.constructs.hyperpod import TASK_GOVERNANCE_ADDON, ExistingSchedulerConfig


class TaskGovernance(ClusterAddOn):
    """The task-governance add-on and the cluster's scheduler config (priorities, fair share):
    created, or, for an adopted cluster, taken over or left as they are (task_governance.existing_*)."""

    def __init__(self, scope: Construct, id_: str, cluster: AddonCluster) -> None:
        """`cluster.after`: the HyperPod cluster's resource, when the stacks make it."""
        super().__init__(scope, id_, cluster)
        spec = cluster.spec
        assert cluster.hyperpod_cluster_arn is not None, "task governance is the HyperPod cluster's"
        governance = spec.cluster.task_governance
        if governance.existing_addon != "leave_alone":
            self.addon = self.install(
                TASK_GOVERNANCE_ADDON, existing=governance.existing_addon, depends_on=cluster.after or None
            )
        self.scheduler_config = None
        self.existing_scheduler_config = None
        if governance.existing_scheduler_config_arn is not None:
            self.existing_scheduler_config = ExistingSchedulerConfig(
                self,
                "existing",
                spec=spec,
                arn=governance.existing_scheduler_config_arn,
                cluster_arn=cluster.hyperpod_cluster_arn,
            )
        else:
            self.scheduler_config = bindings.aws_cloudcontrolapi_resource.CloudcontrolapiResource(
                self,
                "scheduler-config",
                type_name=cloudformation.SCHEDULER_CONFIG_TYPE,
                desired_state=cloudformation.scheduler_config(
                    spec, cluster_arn=cluster.hyperpod_cluster_arn
                ).desired_state(),
                depends_on=[self.addon] if self.addon is not None else None,
            )
