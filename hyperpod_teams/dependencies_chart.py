"""HyperPod's dependency Helm chart as the stacks install it. Pure layer: no cdktf.

The chart lives in aws/sagemaker-hyperpod-cli (`helm_chart/HyperPodHelmChart`), not in a Helm
repository; its `Chart.yaml` declares remote dependencies (cert-manager, the NVIDIA and EFA device
plugins) that a clone does not hold, so the release runs `helm dependency update` first
(`dependency_update`), as the chart's readme (`helm_chart/readme.md`, "Step One") says. Region-
specific images come from the chart's `regional-values/values-<region>.yaml`, and the
health-monitoring agent's region is set explicitly (the readme's "Manual Region Override") rather
than left to detection from the cluster.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hyperpod_teams.spec.models import (
    DEPENDENCIES_CHART_CLONE_DIR,
    DEPENDENCIES_CHART_COMPONENTS,
    DEPENDENCIES_CHART_REPOSITORY,
)

if TYPE_CHECKING:  # pragma: no cover
    from hyperpod_teams.spec.models import DependenciesChart


def chart_values(chart: DependenciesChart, region: str) -> dict[str, str]:
    """The `--set` values of the release: the agent's region and each component the spec turns
    on or off, by the chart's own condition values."""
    values = {"health-monitoring-agent.region": region}
    for component, enabled in sorted(chart.components.items()):
        values[DEPENDENCIES_CHART_COMPONENTS[component]] = "true" if enabled else "false"
    return values


def regional_values_file(chart: DependenciesChart, region: str) -> str:
    """The chart's values file for the region (absent for some regions: then nothing is added)."""
    return f"{chart.chart.rstrip('/')}/regional-values/values-{region}.yaml"


def uses_local_clone(chart: DependenciesChart) -> bool:
    return chart.repository is None


def clone_command(chart: DependenciesChart) -> str:
    """The command that puts the pinned chart where the default `chart` path expects it, run in
    the folder that holds the output folder."""
    return (
        f"git clone --depth 1 --branch {chart.git_ref} {DEPENDENCIES_CHART_REPOSITORY} {DEPENDENCIES_CHART_CLONE_DIR}"
    )
