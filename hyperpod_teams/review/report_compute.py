"""The report's compute section: each team's guaranteed share of each instance type, what it may
borrow, what its work runs on and where it lands, and why a team's share of the shared cluster is
what it is (or none).

Pure layer.
"""

from __future__ import annotations

from decimal import Decimal

from hyperpod_teams import isolation, naming, rbac
from hyperpod_teams.document import (
    Document,
    Heading,
    Image,
    Paragraph,
    Table,
    md_code,
    md_text,
)
from hyperpod_teams.review.report_chart import InstanceTypeShares, capacity_chart
from hyperpod_teams.review.report_shown import hidden_note, teams_shown
from hyperpod_teams.spec.fields import ResourceAmount
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.spec.rules import nodes


def compute_shares(spec: PlatformSpec) -> list[InstanceTypeShares]:
    return [
        InstanceTypeShares(
            instance_type=instance_type,
            capacity=nodes,
            guaranteed={
                team.name: entry.instances
                for team in spec.teams
                for entry in team.compute.quota
                if entry.instance_type == instance_type
            },
        )
        for instance_type, nodes in spec.cluster.capacity_by_instance_type().items()
    ]


def _borrow(team: Team) -> str:
    compute = team.compute
    if compute.sharing != "LendAndBorrow":
        return "–"
    limits = "; ".join(f"{amount_of(limit)} of {limit.instance_type}" for limit in compute.absolute_borrow_limits)
    return f"{compute.borrow_limit_percent} %" + (f", at most {limits}" if limits else "")


def what_a_team_runs(spec: PlatformSpec, team: Team) -> str:
    """What the team may run on the cluster and under which quota (docs/team-journeys.md): training,
    and where the cluster has them, endpoints (named with the team's prefix) and spaces; with task
    governance each carries the team's queue label, which puts it under the team's quota."""
    cluster = spec.cluster
    kinds = ["training jobs (`hyp create hyp-pytorch-job`)"]
    if cluster.inference is not None:
        prefix = naming.team_endpoint_prefix(spec.organization.name, team.name)
        priority = cluster.inference.priority_class
        kinds.append(
            f"endpoints named {md_code(prefix + '*')}"
            + (f" (priority {md_code(priority)})" if priority and cluster.task_governance.enabled else "")
        )
    if cluster.spaces is not None:
        kinds.append("spaces (`hyp create hyp-space`)")
    text = ", ".join(kinds)
    if not cluster.task_governance.enabled:
        return f"{text}; no quota (task governance is off)"
    quota = "; ".join(f"{amount_of(e)} of {md_code(e.instance_type)}" for e in team.compute.quota)
    queue = md_code(f"{rbac.QUEUE_LABEL}: {naming.team_local_queue(team.name)}")
    text = f"{text}, each labelled {queue}: under its quota ({quota or 'none: it borrows only'})"
    classes = [c.name for c in cluster.task_governance.priority_classes]
    if classes:
        allowed = isolation.team_workload_priorities(team.compute.priority_classes, classes)
        text += f", at priority {' or '.join(md_code(p) for p in allowed) or 'none'}"
    if team.studio.enabled:
        types = team.job_instance_types
        text += "; from Studio, SageMaker training and processing jobs outside the quota on " + (
            ", ".join(md_code(t) for t in types) if types else "no instance type"
        )
    return text


def amount_of(entry: ResourceAmount) -> str:
    """A quota's amount as the spec gives it: "3 nodes", "20 accelerators", "14 x mig-1g.10gb"."""
    parts = []
    if entry.count is not None:
        parts.append(f"{entry.count} node{'s' if entry.count != 1 else ''}")
    if entry.accelerators is not None:
        parts.append(f"{entry.accelerators} accelerators")
    if entry.accelerator_partition is not None:
        parts.append(f"{entry.accelerator_partition.count} x {entry.accelerator_partition.type}")
    if entry.vcpu is not None:
        parts.append(f"{entry.vcpu:g} vCPUs")
    if entry.memory_gib is not None:
        parts.append(f"{entry.memory_gib:g} GiB")
    return ", ".join(parts)


def _landing(spec: PlatformSpec) -> Table | None:
    """Which team may land where: each instance group with its node labels and taints, and the
    teams whose quota holds its instance type, with the amount as the spec gives it."""
    groups = spec.cluster.instance_groups
    special = any(g.kubernetes for g in groups) or any(
        e.count is None or not t.compute.active for t in spec.teams for e in t.compute.quota
    )
    if not special:
        return None
    rows = []
    for group in groups:
        nodes_of = group.kubernetes
        labels = ", ".join(f"{md_code(f'{k}={v}')}" for k, v in sorted((nodes_of.labels if nodes_of else {}).items()))
        taints = ", ".join(
            md_code(f"{t.key}{'=' + t.value if t.value else ''}:{t.effect}")
            for t in (nodes_of.taints if nodes_of else [])
        )
        teams = "; ".join(
            f"{t.name} {amount_of(e)}" + ("" if t.compute.active else " (paused)")
            for t in spec.teams
            for e in t.compute.quota
            if e.instance_type == group.instance_type
        )
        rows.append([md_text(group.name), md_code(group.instance_type), labels or "–", taints or "–", teams or "–"])
    return Table(["instance group", "type", "node labels (select with)", "taints (tolerate)", "teams' quota"], rows)


def compute_section(
    document: Document, spec: PlatformSpec, shown: list[Team], hidden: list[Team], *, max_teams: int | None, chart: bool
) -> None:
    document.add(Heading("Compute"))
    shares = compute_shares(spec)
    teams_with_quota = [t.name for t in spec.teams if t.compute.quota]
    types = [md_code(s.instance_type) for s in shares]
    quota_shown, quota_hidden = teams_shown([t for t in spec.teams if t.compute.quota], max_teams)
    rows = [[t.name, *[nodes(s.guaranteed.get(t.name, Decimal(0))) for s in shares]] for t in quota_shown]
    if quota_hidden:
        hidden_names = {t.name for t in quota_hidden}
        rows.append(
            [
                f"{len(quota_hidden)} other teams",
                *[
                    nodes(sum((n for team, n in s.guaranteed.items() if team in hidden_names), Decimal(0)))
                    for s in shares
                ],
            ]
        )
    rows.append(["**unallocated**", *[nodes(s.unallocated) for s in shares]])
    rows.append(["**capacity**", *[str(s.capacity) for s in shares]])
    document.add(Paragraph("Nodes each team is guaranteed, per instance type (task governance's compute quotas):"))
    document.add(Table(["team", *types], rows))
    if chart:
        document.add(
            Image(
                "Guaranteed nodes per team and unallocated capacity, per instance type",
                capacity_chart(shares, teams_with_quota),
                on_phone="the table above gives the same figures",
            )
        )
    landing = _landing(spec)
    if landing is not None:
        document.add(
            Paragraph(
                "Where each team's work may land: a group's node labels select it (`nodeSelector`, or `hyp create "
                "hyp-pytorch-job --node-selector`), its taints keep out what does not tolerate them; task governance "
                "admits the work against the team's quota of the group's type:"
            )
        )
        document.add(landing)
    governance = spec.cluster.task_governance
    document.add(
        Table(
            ["team", "sharing", "borrow limit", "fair-share weight", "preempts own lower-priority tasks"],
            [
                [
                    t.name,
                    t.compute.sharing,
                    _borrow(t),
                    str(t.compute.fair_share_weight),
                    "yes" if t.compute.preempt_team_tasks == "LowerPriority" else "never",
                ]
                for t in shown
            ],
        )
    )
    if hidden:
        document.add(Paragraph(hidden_note(hidden, "sharing settings")))
    if governance.enabled:
        classes = (
            ", ".join(
                f"{md_code(naming.workload_priority_class(p.name))} ({p.weight})" for p in governance.priority_classes
            )
            or "none"
        )
        document.add(
            Paragraph(
                f"Task governance on; fair share {governance.fair_share}; priority classes (weight), by the name "
                f"a job gives (`hyp create hyp-pytorch-job --priority`, label `kueue.x-k8s.io/priority-class`): "
                f"{classes}."
            )
        )
        example = shown[0].name if shown else "<team>"
        document.add(
            Paragraph(
                "What each team may use and uses now: its team stack's outputs `compute_quota` (the "
                "instance counts, sharing and borrow limit AWS holds), `compute_quota_id` (for "
                f"`aws sagemaker describe-compute-quota --compute-quota-id <id>`, e.g. `cdktn output "
                f"{naming.team_stack_name(spec.organization.name, example)}`) and `cluster_queue`; "
                f"`kubectl get clusterqueue {naming.team_cluster_queue(example)}` shows the nodes its workloads "
                "hold against the quota, borrowed ones included."
            )
        )
    else:
        document.add(Paragraph("Task governance is off: no quotas are enforced."))


def weight_text(value: Decimal) -> str:
    """A weight as written: 32, 2.5, 1,234.56."""
    text = f"{value.normalize():,f}"
    return text
