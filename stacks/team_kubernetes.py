"""`<org>-k8s-<team>`: one team's Kubernetes RBAC, with the EKS cluster's credentials only.

The provider reaches the cluster through cross-stack references to the EKS stack (endpoint and
CA) and authenticates with `aws eks get-token`, so this stack holds no AWS provider.
"""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import bindings, isolation, naming, rbac
from hyperpod_teams.constructs.eks import EksCluster
from hyperpod_teams.constructs.kubernetes import TeamAdmission, TeamDataVolume, TeamIsolation, TeamRbac
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.stacks.base import PlatformStack

#: The namespace's construct ID at the stack's root: its Terraform address is
#: `kubernetes_namespace_v1.namespace`, which the `removed` block names once task governance owns it.
NAMESPACE_ID = "namespace"


class TeamKubernetesStack(PlatformStack):
    def __init__(self, scope: Construct, stack_name: str, *, spec: PlatformSpec, team: Team, eks: EksCluster) -> None:
        super().__init__(scope, stack_name, spec=spec)
        self.team = team
        self.add_kubernetes_provider(eks)
        self.namespace_name = naming.team_namespace(team.name)
        self.namespace = None
        cluster = spec.cluster
        platform = cluster.platform_instance_group
        namespace_labels = isolation.namespace_labels(team.name, cluster.eks.kubernetes_version)
        workload_priorities = isolation.team_workload_priorities(
            team.compute.priority_classes, [c.name for c in cluster.task_governance.priority_classes]
        )
        if not spec.cluster.task_governance.enabled:
            # Without task governance nobody else creates the team namespace; with it, task
            # governance owns the namespace and this stack must never create it too.
            namespace = bindings.kubernetes_namespace
            self.namespace = namespace.NamespaceV1(
                self,
                NAMESPACE_ID,
                metadata=bindings.block(
                    "kubernetes_namespace",
                    "metadata",
                    namespace.NamespaceV1Metadata(
                        name=self.namespace_name,
                        labels={**rbac.team_labels(team.name), **namespace_labels},
                    ),
                ),
            )
        else:
            # Task governance switched on after the stack created the namespace: the namespace stays
            # (with everything the team runs in it); the stack forgets it instead of destroying it.
            # With no such namespace in the state, the block does nothing.
            self.add_override(
                "removed",
                [
                    {
                        "from": f"{bindings.kubernetes_namespace.NamespaceV1.TF_RESOURCE_TYPE}.{NAMESPACE_ID}",
                        "lifecycle": {"destroy": False},
                    }
                ],
            )
        # What creates a namespaced object waits for: the namespace, when this stack creates it.
        after_namespace = [self.namespace] if self.namespace is not None else None
        inference, spaces = spec.cluster.inference is not None, spec.cluster.spaces is not None
        self.rbac = TeamRbac(
            self,
            "rbac",
            team=team.name,
            depends_on=after_namespace,
            inference=inference,
            spaces=spaces,
        )
        self.service_account = None
        if team.workload_identity.enabled:
            # What the team's pods run as: EKS Pod Identity binds it to the team's workload role
            # (the team stack's association); team members cannot create service accounts.
            account = bindings.kubernetes_service_account
            self.service_account = account.ServiceAccountV1(
                self,
                "workload",
                metadata=account.ServiceAccountV1Metadata(
                    name=naming.TEAM_SERVICE_ACCOUNT,
                    namespace=self.namespace_name,
                    labels=rbac.team_labels(team.name),
                ),
                depends_on=after_namespace,
            )
        # Every pod of the namespace, whoever creates it, and the pod network (hyperpod_teams.isolation).
        self.isolation = TeamIsolation(
            self,
            "isolation",
            team=team.name,
            namespace_labels=namespace_labels if self.namespace is None else None,
            workload_priorities=workload_priorities,
            pod_priority_classes=list(cluster.pod_priority_classes),
            platform_namespaces=isolation.platform_namespaces(
                inference=inference, spaces=spaces, observability=cluster.observability is not None
            ),
            load_balancer_cidrs=list(cluster.inference.load_balancer_cidrs) if cluster.inference else [],
            platform_taint_keys=sorted({t.key for t in platform.platform_taints}) if platform else None,
            depends_on=after_namespace,
        )
        # The team's bucket as a volume its pods mount with their own credentials (with inference, the
        # cluster has the Mountpoint for S3 CSI driver; its own role reads no team's bucket).
        bucket = naming.team_data_bucket(spec.organization, team)
        self.data_volume = None
        if inference and bucket and self.service_account is not None:
            self.data_volume = TeamDataVolume(
                self,
                "data-volume",
                team=team.name,
                bucket=bucket,
                region=spec.organization.region,
                depends_on=after_namespace,
            )
        self.admission = None
        if spec.cluster.task_governance.enabled:
            # The team's quota is Kueue's, which admits only what carries the team's queue label:
            # the namespace refuses the rest (rbac.queue_label_policy_manifests).
            self.admission = TeamAdmission(
                self,
                "admission",
                team=team.name,
                endpoint_prefix=naming.team_endpoint_prefix(spec.organization.name, team.name) if inference else None,
                model_bucket=bucket if self.data_volume is not None else None,
                spaces=spaces,
                workload_priorities=workload_priorities,
            )
