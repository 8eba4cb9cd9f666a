"""`<org>-hyperpod-deps`: the Helm chart HyperPod on EKS needs before its cluster is created
(health-monitoring agent, device plugins, training operator...), with the EKS cluster's
credentials only."""

from __future__ import annotations

import cdktf
from constructs import Construct

from hyperpod_teams import bindings
from hyperpod_teams.constructs.eks import EXEC_API_VERSION, EksCluster, get_token_command
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.stacks.base import PlatformStack


class HyperPodDependenciesStack(PlatformStack):
    credentials = "EKS cluster"

    def __init__(self, scope: Construct, stack_name: str, *, spec: PlatformSpec, eks: EksCluster) -> None:
        super().__init__(scope, stack_name, spec=spec)
        helm = bindings.helm_provider
        helm.HelmProvider(
            self,
            "helm",
            kubernetes=helm.HelmProviderKubernetes(
                host=eks.endpoint,
                cluster_ca_certificate=cdktf.Fn.base64decode(eks.certificate_authority_data),
                exec=helm.HelmProviderKubernetesExec(
                    api_version=EXEC_API_VERSION,
                    command="aws",
                    args=get_token_command(eks.name, spec.organization.region),
                ),
            ),
        )
        chart = spec.cluster.dependencies_chart
        self.release = bindings.helm_release.Release(
            self,
            "hyperpod-dependencies",
            name=chart.release_name,
            chart=chart.chart,
            repository=chart.repository,
            version=chart.version,
            namespace=chart.namespace,
            # A half-installed chart would let the HyperPod cluster start without its agents.
            atomic=True,
            wait=True,
        )
