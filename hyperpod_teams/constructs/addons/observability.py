"""The HyperPod observability add-on on the shared EKS cluster (cluster.observability): an Amazon Managed
Service for Prometheus workspace its collector writes to (through EKS Pod Identity), an Amazon Managed
Grafana workspace where the region offers one (IAM Identity Center sign-in: the teams' groups view, the
platform admins administer), and the add-on configured with both, which is what `hyp get-monitoring`
reads back (hyperpod_teams/addons.py names the references)."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import addons, bindings, naming, policies
from hyperpod_teams.constructs.addons.contract import AddonCluster, ClusterAddOn
from hyperpod_teams.constructs.iam import service_role
from hyperpod_teams.constructs.pod_identity import Inline, pod_identity_role
from hyperpod_teams.engine import cdk


class HyperPodObservability(ClusterAddOn):
    def __init__(
        self,
        scope: Construct,
        id_: str,
        cluster: AddonCluster,
        *,
        viewer_group_ids: list[str],
        admin_group_ids: list[str],
    ) -> None:
        super().__init__(scope, id_, cluster)
        org, after = cluster.organization, cluster.after
        settings = cluster.spec.cluster.observability
        assert settings is not None and settings.existing_addon != "leave_alone"
        partition = policies.aws_partition(org.region)
        name = naming.observability_workspace_name(org.name, cluster=cluster.spec.cluster_qualifier)
        self.prometheus = bindings.aws_prometheus_workspace.PrometheusWorkspace(self, "prometheus", alias=name)
        self.role, collector = pod_identity_role(
            self,
            role_id="collector-role",
            policy_id="collector-policy",
            name=naming.observability_role_name(org.name, cluster=cluster.spec.cluster_qualifier),
            org=org,
            eks_cluster_arn=cluster.eks_cluster_arn,
            policy=Inline(
                "write-metrics-and-logs",
                policies.observability_collector_policy(
                    partition=partition, account_id=org.account_id, region=org.region, workspace_arn=self.prometheus.arn
                ),
            ),
        )
        self.grafana = None
        grafana = None
        if settings.grafana and org.region in addons.GRAFANA_REGIONS:
            grafana_role, grafana_policy = service_role(
                self,
                ("grafana-role", "grafana-policy"),
                name=naming.grafana_role_name(org.name, cluster=cluster.spec.cluster_qualifier),
                org=org,
                service="grafana.amazonaws.com",
                policy_name="read-metrics",
                document=policies.grafana_workspace_policy(
                    partition=partition, account_id=org.account_id, region=org.region, workspace_arn=self.prometheus.arn
                ),
            )
            self.grafana = bindings.aws_grafana_workspace.GrafanaWorkspace(
                self,
                "grafana",
                name=name,
                account_access_type="CURRENT_ACCOUNT",
                authentication_providers=["AWS_SSO"],
                permission_type="CUSTOMER_MANAGED",
                role_arn=grafana_role.arn,
                data_sources=["PROMETHEUS", "CLOUDWATCH"],
                depends_on=[grafana_policy],
            )
            grafana = (name, self.grafana.arn)
            roles = bindings.aws_grafana_role_association
            for role, group_ids in (("VIEWER", viewer_group_ids), ("ADMIN", admin_group_ids)):
                if group_ids:
                    roles.GrafanaRoleAssociation(
                        self, f"grafana-{role.lower()}s", role=role, workspace_id=self.grafana.id, group_ids=group_ids
                    )
        configuration = addons.observability_configuration(
            prometheus_endpoint=cdk.Fn.trimsuffix(self.prometheus.prometheus_endpoint, "/"),
            prometheus_arn=self.prometheus.arn,
            grafana=grafana,
        )
        self.addon = self.install(
            addons.OBSERVABILITY_ADDON,
            existing=settings.existing_addon,
            configuration_values=cdk.Fn.jsonencode(configuration),
            pod_identity_association=[
                bindings.aws_eks_addon.EksAddonPodIdentityAssociation(
                    role_arn=self.role.arn, service_account=addons.OBSERVABILITY_SERVICE_ACCOUNT
                )
            ],
            depends_on=[collector, *after],
        )
