"""The report's cost section: each team's tags, cost category value, budget, and where the shared
platform's spend goes.

Pure layer.
"""

from __future__ import annotations

from decimal import Decimal

from hyperpod_teams import cost, naming
from hyperpod_teams.document import Document, Heading, Paragraph, Table, md_code, md_text
from hyperpod_teams.review.report_compute import weight_text
from hyperpod_teams.review.report_shown import hidden_note
from hyperpod_teams.spec.models import PlatformSpec, Team


def cost_section(document: Document, spec: PlatformSpec, shown: list[Team], hidden: list[Team]) -> None:
    org = spec.organization
    document.add(Heading("Cost attribution"))
    category = naming.cost_category_name(org.name)
    values = {rule.team: rule.value for rule in cost.cost_category_rules(spec)}
    split = cost.shared_split(spec)
    weights = cost.guaranteed_weights(spec) if split.method == "FIXED" else {}
    total = sum(weights.values(), Decimal(0))
    unit = "USD an hour of guaranteed capacity" if spec.cost.instance_prices_usd else "accelerators guaranteed"

    def shared_share(team: str) -> str:
        """The team's share, and why: the answer to "to which group does its spend go?"."""
        if team not in split.targets:
            quota = ", ".join(md_text(entry.instance_type) for entry in spec.team(team).compute.quota) or "none"
            return (
                f"none: its quota ({quota}) holds no accelerators, and the quota split weighs instances by them "
                "(`cost.shared_split`; price its types in `cost.instance_prices_usd` to weigh them)"
            )
        if split.method == "FIXED":
            return f"{split.percentages[team]} % ({weight_text(weights[team])} of {weight_text(total)} {unit})"
        if split.method == "PROPORTIONAL":
            why = f"; the quota split cannot be computed: {md_text(split.fallback)}" if split.fallback else ""
            return f"in proportion to its own spend (`cost.shared_split: proportional`{why})"
        return f"an even part, 1 of {len(split.targets)} (`cost.shared_split: even`)"

    document.add(
        Table(
            [
                "team",
                "tags on every resource",
                f"cost category {md_code(category)}",
                "share of the shared cluster",
                "monthly budget",
                "alerts at",
            ],
            [
                [
                    t.name,
                    ", ".join(
                        md_code(f"{k}={v}") for k, v in naming.team_tags(org.name, t.name, t.cost_center).items()
                    ),
                    md_code(values[t.name]),
                    shared_share(t.name),
                    f"{cost.budget_limit_amount(t.budget.monthly_limit_usd)} USD" if t.budget else "none",
                    (
                        ", ".join(f"{p} %" for p in t.budget.thresholds_percent)
                        + " → "
                        + ", ".join(md_code(email) for email in t.budget.notify_emails)
                    )
                    if t.budget
                    else "–",
                ]
                for t in shown
            ],
        )
    )
    if hidden:
        document.add(Paragraph(hidden_note(hidden, "tags, shares and budgets")))
    document.add(
        Paragraph(
            f"The shared platform's resources (HyperPod and EKS clusters, lifecycle scripts, their roles and "
            f"keys) carry `{naming.TAG_PLATFORM}={naming.PLATFORM_SHARED}`: their spend is the category's value "
            f"{md_code(cost.SHARED_PLATFORM)}, which a split charge rule divides across the teams "
            f"(`cost.shared_split: {spec.cost.shared_split}`"
            + (f"; proportional to each team's own spend, since {split.fallback}" if split.fallback else "")
            + "). The split shows on the cost category's details "
            "page in the Billing console (and its CSV download); elsewhere the shared spend stays under "
            f"{md_code(cost.SHARED_PLATFORM)}. Spend without this organization's tags goes to "
            f"{md_code(cost.UNATTRIBUTED)}."
        )
    )
    document.add(
        Paragraph(
            "What a team's budget covers: the spend tagged with its team (its Studio domain, jobs, volumes and keys), "
            "since it filters on the team tag. It does not cover the team's share of the shared cluster above: that "
            "spend carries no team tag, and the split charge is an allocation of the cost category, not a tag, so "
            "GPU hours on the shared HyperPod cluster never reach a team's budget."
        )
    )
    usage = spec.cost.usage_reports
    if usage.enabled:
        document.add(
            Paragraph(
                "Measured usage: HyperPod's usage reports record each team's allocated and borrowed GPU, NeuronCore "
                f"and vCPU hours per day ({md_code(naming.usage_report_stack_name(org.name))}, "
                f"{md_code(naming.usage_operator_stack_name(org.name))}; kept {usage.retention_days} days). "
                "`hyperpod-teams chargeback` turns a month's summary report and the cluster's cost into each team's "
                "amount, the idle part charged as above; the runbook says when the first data appears."
            )
        )
    else:
        document.add(
            Paragraph(
                "Measured usage is off (`cost.usage_reports.enabled: false`): the split above is by guaranteed "
                "share or own spend, not by the hours each team used the cluster."
            )
        )
