"""`<org>-k8s-<team>`: one team's Kubernetes objects, with the EKS cluster's credentials only.

The provider reaches the cluster through cross-stack references to the cluster stack (endpoint
and CA) and authenticates with `aws eks get-token`, so this stack holds no AWS provider.
"""

from __future__ import annotations

import cdktf
from constructs import Construct

from hyperpod_teams import bindings
from hyperpod_teams.constructs.eks import EksCluster
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.stacks.base import PlatformStack


class TeamKubernetesStack(PlatformStack):
    credentials = "EKS cluster"

    def __init__(
        self, scope: Construct, stack_name: str, *, spec: PlatformSpec, team: Team, eks: EksCluster
    ) -> None:
        super().__init__(scope, stack_name, spec=spec)
        self.team = team
        kubernetes = bindings.kubernetes_provider
        kubernetes.KubernetesProvider(
            self,
            "kubernetes",
            host=eks.endpoint,
            cluster_ca_certificate=cdktf.Fn.base64decode(eks.certificate_authority_data),
            exec=[
                kubernetes.KubernetesProviderExec(
                    api_version="client.authentication.k8s.io/v1beta1",
                    command="aws",
                    args=["eks", "get-token", "--cluster-name", eks.name, "--region", spec.organization.region],
                )
            ],
        )
