"""The SageMaker HyperPod training operator on the shared EKS cluster, with what it needs first:
cert-manager, the EKS Pod Identity agent (the cluster stack's, shared with usage reports), and the
role its controller's service account gets through a Pod Identity association
(hyperpod_teams/addons.py names the references)."""

from __future__ import annotations

import json

from constructs import Construct

from hyperpod_teams import addons, bindings, naming
from hyperpod_teams.constructs.addons.contract import AddonCluster, ClusterAddOn
from hyperpod_teams.constructs.pod_identity import Managed, pod_identity_association, pod_identity_role


class TrainingOperator(ClusterAddOn):
    """What `hyp create hyp-pytorch-job` needs in the cluster: the operator add-on (its CRD), after
    the HyperPod cluster's nodes exist (add-on pods have nowhere to run before; EKS would leave the
    add-on degraded and Terraform wait out its timeout)."""

    def __init__(
        self,
        scope: Construct,
        id_: str,
        cluster: AddonCluster,
        *,
        pod_identity_agent: bindings.aws_eks_addon.EksAddon | None,
    ) -> None:
        super().__init__(scope, id_, cluster)
        spec, org, after = cluster.spec, cluster.organization, cluster.after
        eks_cluster_name = cluster.eks_cluster_name
        settings = spec.cluster.training_operator
        prerequisites = list(after)
        self.cert_manager = None
        if settings.install_cert_manager:
            self.cert_manager = bindings.aws_eks_addon.EksAddon(
                self,
                "cert-manager",
                cluster_name=eks_cluster_name,
                addon_name=addons.CERT_MANAGER_ADDON,
                addon_version=settings.cert_manager_version,
                configuration_values=json.dumps(addons.tolerate_every_taint(), sort_keys=True),
                depends_on=after or None,
            )
            prerequisites.append(self.cert_manager)
        if pod_identity_agent is not None:
            prerequisites.append(pod_identity_agent)
        self.role, access = pod_identity_role(
            self,
            role_id="role",
            policy_id="access",
            name=naming.training_operator_role_name(org.name, spec.cluster.name),
            org=org,
            eks_cluster_arn=cluster.eks_cluster_arn,
            policy=Managed(addons.TRAINING_OPERATOR_MANAGED_POLICY),
        )
        # A standalone association, created before the add-on so its controller has credentials on
        # its first start.
        pods = (addons.TRAINING_OPERATOR_NAMESPACE, addons.TRAINING_OPERATOR_SERVICE_ACCOUNT)
        self.association = pod_identity_association(
            self, "pod-identity", eks_cluster_name=eks_cluster_name, pods=pods, role_arn=self.role.arn, after=[access]
        )
        self.addon = self.install(
            addons.TRAINING_OPERATOR_ADDON,
            existing=None,
            addon_version=settings.version,
            depends_on=[self.association, *prerequisites],
        )
