"""`<org>-hyperpod-deps`: the Helm chart HyperPod on EKS needs before its cluster is created
(health-monitoring agent, device plugins, training operator...), with the EKS cluster's
credentials only."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import bindings, dependencies_chart
from hyperpod_teams.constructs.eks import EksCluster
from hyperpod_teams.constructs.helm import chart_is_cloned
from hyperpod_teams.engine import cdk
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.stacks.base import PlatformStack


class HyperPodDependenciesStack(PlatformStack):
    def __init__(self, scope: Construct, stack_name: str, *, spec: PlatformSpec, eks: EksCluster) -> None:
        super().__init__(scope, stack_name, spec=spec)
        self.add_helm_provider(eks)
        chart = spec.cluster.dependencies_chart
        region = spec.organization.region
        release = bindings.helm_release
        values: list[str] = []
        preconditions = []
        if dependencies_chart.uses_local_clone(chart):
            regional = dependencies_chart.regional_values_file(chart, region)
            values.append(
                cdk.Token.as_string(cdk.Fn.conditional(cdk.Fn.fileexists(regional), cdk.Fn.file(regional), ""))
            )
            preconditions.append(
                chart_is_cloned(
                    chart.chart,
                    f"HyperPod's dependency chart is not at {chart.chart} (relative to this stack's folder). "
                    f"Next to the output folder, run: {dependencies_chart.clone_command(chart)}",
                )
            )
        self.release = release.Release(
            self,
            "hyperpod-dependencies",
            name=chart.release_name,
            chart=chart.chart,
            repository=chart.repository,
            version=chart.version,
            namespace=chart.namespace,
            # The chart's remote dependencies are not in a clone: helm fetches them first.
            dependency_update=True,
            values=values or None,
            set=[
                release.ReleaseSet(name=name, value=value)
                for name, value in dependencies_chart.chart_values(chart, region).items()
            ],
            # A half-installed chart would let the HyperPod cluster start without its agents.
            atomic=True,
            wait=True,
            lifecycle=cdk.TerraformResourceLifecycle(precondition=preconditions) if preconditions else None,
        )
