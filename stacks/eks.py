"""`<org>-eks`: the EKS cluster that orchestrates HyperPod, created or looked up (AWS)."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import naming
from hyperpod_teams.constructs.eks import EksCluster
from hyperpod_teams.engine import cdk
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.stacks.base import PlatformStack


class EksStack(PlatformStack):
    def __init__(self, scope: Construct, stack_name: str, *, spec: PlatformSpec) -> None:
        super().__init__(scope, stack_name, spec=spec)
        self.add_aws_provider(
            tags=naming.shared_platform_tags(spec.organization), account=spec.organization.account_id
        )  # the shared platform
        self.eks = EksCluster(self, "eks", spec=spec)
        cdk.TerraformOutput(self, "eks_cluster_name", value=self.eks.name, description="EKS cluster of HyperPod")
        cdk.TerraformOutput(
            self,
            "eks_cluster_arn",
            value=self.eks.arn,
            description="EKS cluster of HyperPod (aws eks update-kubeconfig)",
        )
