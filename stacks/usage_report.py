"""`<org>-usage-report` (AWS) and `<org>-usage-operator` (EKS cluster): HyperPod usage reporting,
when `cost.usage_reports.enabled` (hyperpod_teams/usage_report.py says what each piece is for)."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import naming
from hyperpod_teams.constructs.eks import EksCluster
from hyperpod_teams.constructs.usage_report import UsageReportInfrastructure, UsageReportOperator
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.stacks.base import PlatformStack

#: The agent's address when this stack made it.
FORMER_AGENT_ADDRESS = "aws_eks_addon.usage-report_pod-identity-agent_6707E3B9"


class UsageReportStack(PlatformStack):
    def __init__(self, scope: Construct, stack_name: str, *, spec: PlatformSpec, eks: EksCluster) -> None:
        super().__init__(scope, stack_name, spec=spec)
        # Part of the shared platform: its spend is split across the teams like the cluster's.
        self.add_aws_provider(tags=naming.shared_platform_tags(spec.organization), account=spec.organization.account_id)
        self.infrastructure = UsageReportInfrastructure(
            self, "usage-report", spec=spec, eks_cluster_name=eks.name, eks_cluster_arn=eks.arn
        )
        # This stack made the EKS Pod Identity agent before <org>-cluster owned it for the training
        # operator and usage reports alike: the state forgets it, the add-on stays (CHANGELOG says
        # how <org>-cluster takes it over). With nothing at the address, the block does nothing.
        self.add_override("removed", [{"from": FORMER_AGENT_ADDRESS, "lifecycle": {"destroy": False}}])


class UsageOperatorStack(PlatformStack):
    def __init__(self, scope: Construct, stack_name: str, *, spec: PlatformSpec, eks: EksCluster, bucket_name: str):
        super().__init__(scope, stack_name, spec=spec)
        self.add_kubernetes_provider(eks)
        self.add_helm_provider(eks)
        self.operator = UsageReportOperator(self, "usage-operator", spec=spec, bucket_name=bucket_name)
