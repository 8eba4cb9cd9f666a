"""The spec's `cost` section: how the shared platform's spend is split, priced and reported (HyperPod
usage reporting).
"""

from __future__ import annotations

from typing import Literal

from pydantic import (
    Field,
)

from hyperpod_teams.spec.field_types import AmountUsd, InstanceType, SpecModel

#: The commit of awslabs/sagemaker-hyperpod-usage-report whose operator chart the stacks install
#: (the repository has no release tags; this one is of 2026-01-09), and that usage_report.py
#: transcribes.
USAGE_REPORT_REF = "e71f39ae9e1152d865451d9873a4ee9e8467dc9c"


USAGE_REPORT_REPOSITORY = "https://github.com/awslabs/sagemaker-hyperpod-usage-report"


#: Where the default chart path expects the clone: beside the output folder.
USAGE_REPORT_CLONE_DIR = "sagemaker-hyperpod-usage-report"


USAGE_REPORT_CHART_PATH = "helm_chart/SageMakerHyperPodUsageReportChart"


class UsageReports(SpecModel):
    """HyperPod's usage reporting (awslabs/sagemaker-hyperpod-usage-report): what the stacks set up
    for it when enabled. Optional addition within spec v1."""

    enabled: bool = Field(
        default=False,
        description="Deploy the report bucket, the operator's role (EKS Pod Identity), the Athena database and "
        "daily aggregation (<org>-usage-report) and the operator's Helm chart (<org>-usage-operator). Needs "
        "task governance.",
    )
    retention_days: int = Field(
        default=180, ge=1, le=3650, description="Days the report bucket keeps usage data (the template's default)."
    )
    install_pod_identity_agent: bool = Field(
        default=True,
        description="Install the EKS Pod Identity agent add-on (in <org>-cluster, shared with the training "
        "operator); set false when the cluster has it already (creating it twice fails).",
    )
    git_ref: str = Field(
        default=USAGE_REPORT_REF,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$",
        description="Commit or tag of awslabs/sagemaker-hyperpod-usage-report to take the operator chart from.",
    )
    chart: str = Field(
        default=f"../../../{USAGE_REPORT_CLONE_DIR}/{USAGE_REPORT_CHART_PATH}",
        min_length=1,
        description="Path of the operator chart, read from the stack's working folder (<out>/stacks/<stack>): the "
        "default is a clone beside the output folder.",
    )


class Cost(SpecModel):
    """How the shared cluster's spend reaches the teams (optional section)."""

    shared_split: Literal["quota", "proportional", "even"] = Field(
        default="quota",
        description="How the shared platform's spend (HyperPod cluster, EKS, lifecycle scripts) is split "
        "across the teams in the cost category: quota, by each team's guaranteed capacity, weighted by "
        "what an instance of each type is worth (fixed percentages; a team without quota gets nothing); "
        "proportional, in proportion to each team's own cost (AWS's PROPORTIONAL: in the cost category each "
        "team's own tagged spend, in a chargeback statement each team's charge for its own use); even. "
        "`hyperpod-teams chargeback` charges idle capacity by the same rule: the cost category's split and a "
        "statement are two views of one spend, never to be added (docs/chargeback.md).",
    )
    instance_prices_usd: dict[InstanceType, AmountUsd] = Field(
        default_factory=dict,
        description="What an instance of a type is worth per hour, for the quota split and for `chargeback` of a "
        "cost given as one sum; default: its accelerators (GPUs, Trainium or Inferentia chips), which every "
        "type of a quota must have or be priced here. chargeback needs a price for a type without "
        "accelerators (CPU capacity is not free) unless its cost export names the instance types.",
    )
    usage_reports: UsageReports = Field(
        default_factory=UsageReports,
        description="HyperPod usage reporting, for `hyperpod-teams chargeback` by measured use.",
    )
