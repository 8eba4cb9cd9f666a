"""The team-centred report for plan review: who gets in and what each role may do, what compute
each team may use, and to which group its spend goes. Pure layer: no cdktf; the HTML chart
imports its plotting library (pygal) only when asked for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from hyperpod_teams import addons, cost, isolation, journeys, naming, policies, rbac
from hyperpod_teams.adoption import existing_resources, ways_explained
from hyperpod_teams.document import (
    Alert,
    Code,
    Document,
    Heading,
    Image,
    Items,
    Paragraph,
    Table,
    md_code,
    md_text,
    standalone_svg,
)
from hyperpod_teams.review.plan_summary import StackPlan, plan_section
from hyperpod_teams.spec.fields import ResourceAmount
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.spec.rules import nodes
from hyperpod_teams.stack_plan import identity_groups, identity_plugin


def _sid_phrase(sid: str) -> str:
    """`SeeTheTeamsStudio` -> `see the team's studio`."""
    words = re.findall(r"[A-Z][a-z]*|[a-z]+|\d+", sid)
    text = " ".join(w.lower() for w in words)
    return text.replace("teams", "team's").replace("eks", "EKS").replace("hyper pod", "HyperPod")


def _kubernetes_phrase(rules: tuple[rbac.Rule, ...]) -> str:
    writes = sorted({r for rule in rules if set(rule.verbs) - set(rbac.READ) for r in rule.resources})
    reads = sorted({r for rule in rules if not set(rule.verbs) - set(rbac.READ) for r in rule.resources})
    return f"change {', '.join(writes)}; read {', '.join(reads)}"


@dataclass(frozen=True)
class RoleAccess:
    """One row of the access matrix: the chain from IdP group to the team's places."""

    team: str
    role: str
    idp_group: str
    permission_set: str
    eks_principal: str
    kubernetes_group: str
    namespace: str
    domain: str | None
    aws_may: list[str]
    kubernetes_may: str


def access_matrix(spec: PlatformSpec) -> list[RoleAccess]:
    org = spec.organization
    groups = identity_groups(spec)
    rows = []
    for team in spec.teams:
        for role in naming.ROLES:
            permission_set = naming.team_permission_set_name(org.name, team, role)
            policy = policies.permission_set_policy_of(spec, team, role)
            rows.append(
                RoleAccess(
                    team=team.name,
                    role=role,
                    idp_group=groups.by_team_role[(team.name, role)],
                    permission_set=permission_set,
                    eks_principal=f"{naming.sso_role_name_prefix(permission_set)}…",
                    kubernetes_group=naming.team_kubernetes_group(team.name, role),
                    namespace=naming.team_namespace(team.name),
                    domain=(team.studio.existing_domain_id or naming.team_domain_name(org.name, team.name))
                    if team.studio.enabled
                    else None,
                    aws_may=[_sid_phrase(s["Sid"]) for s in policy["Statement"]],
                    kubernetes_may=_kubernetes_phrase(
                        rbac.role_rules(
                            role, inference=spec.cluster.inference is not None, spaces=spec.cluster.spaces is not None
                        )
                    ),
                )
            )
    return rows


@dataclass(frozen=True)
class InstanceTypeShares:
    instance_type: str
    capacity: int
    #: team -> nodes, whole or in part (a quota in accelerators or GPU partitions: 0.5 of a p5)
    guaranteed: dict[str, Decimal]

    @property
    def unallocated(self) -> Decimal:
        return self.capacity - sum(self.guaranteed.values(), Decimal(0))


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


#: Teams drawn as their own bar segment; the rest share one, so the chart stays readable (and
#: quick) at hundreds of teams.
CHART_TEAMS = 18


def chart_series(shares: list[InstanceTypeShares], teams: list[str]) -> list[tuple[str, list[float]]]:
    """The chart's segments: (label, nodes per instance type), the largest teams first, then
    the other teams together, then what is unallocated."""
    by_size = sorted(teams, key=lambda t: -sum(s.guaranteed.get(t, 0) for s in shares))
    named, others = by_size[:CHART_TEAMS], set(by_size[CHART_TEAMS:])
    series = [(team, [float(s.guaranteed.get(team, 0)) for s in shares]) for team in named]
    if others:
        series.append(
            (
                f"{len(others)} other teams",
                [float(sum(n for t, n in s.guaranteed.items() if t in others)) for s in shares],
            )
        )
    series.append(("unallocated", [float(s.unallocated) for s in shares]))
    return series


#: Segment colours of the named teams: Tableau 20 without its two greys, which mark the other
#: teams and unallocated capacity. The nine darker ones first, each of its own hue, then the nine
#: lighter ones in the same order: up to nine teams never share a hue (they did: blue and light blue
#: for the first two).
TEAM_COLOURS = (
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#b6992d",
    "#499894",
    "#e15759",
    "#d37295",
    "#b07aa1",
    "#9d7660",
    "#a0cbe8",
    "#ffbe7d",
    "#8cd17d",
    "#f1ce63",
    "#86bcb6",
    "#ff9d9a",
    "#fabfd2",
    "#d4a6c8",
    "#d7b5a6",
)
OTHER_TEAMS_COLOUR = "#79706e"
UNALLOCATED_COLOUR = "#e8e8e8"
#: Width of the chart, and roughly of one character of its legend, in SVG pixels.
CHART_WIDTH, LEGEND_CHARACTER = 900, 7.5


def chart_colours(series: list[tuple[str, list[float]]]) -> list[str]:
    """One colour per segment, none twice: the named teams', the other teams', unallocated."""
    colours = []
    for i, (label, _) in enumerate(series):
        if label == "unallocated":
            colours.append(UNALLOCATED_COLOUR)
        elif i < CHART_TEAMS:
            colours.append(TEAM_COLOURS[i])
        else:
            colours.append(OTHER_TEAMS_COLOUR)
    return colours


def _chart(shares: list[InstanceTypeShares], teams: list[str]) -> str:
    """Capacity shares per instance type as a stacked bar chart: SVG, with nothing to fetch."""
    import pygal
    from pygal.style import Style

    series = chart_series(shares, teams)
    colours = chart_colours(series)
    # The legend under the chart, every name whole: as many columns as the longest name allows.
    longest = max(len(label) for label, _ in series)
    columns = max(1, min(4, int(CHART_WIDTH // (longest * LEGEND_CHARACTER + 40))))
    legend_rows = -(-len(series) // columns)
    chart = pygal.HorizontalStackedBar(
        js=[],  # no script from a CDN: the page must stand alone
        width=CHART_WIDTH,
        height=120 + 60 * len(shares) + 26 * legend_rows,
        x_title="nodes",
        disable_xml_declaration=True,
        legend_at_bottom=True,
        legend_at_bottom_columns=columns,
        truncate_legend=-1,
        style=Style(
            colors=tuple(colours),
            opacity="1",
            opacity_hover="1",
            background="white",
            plot_background="white",
            font_family="sans-serif",
        ),
    )
    chart.x_labels = [s.instance_type for s in reversed(shares)]  # pygal draws bottom up
    for label, counts in series:
        chart.add(label, list(reversed(counts)))
    return standalone_svg(chart.render(is_unicode=True), "capacity-chart")


def roles_header(roles: list[RoleAccess]) -> list[str]:
    return [role.role for role in roles]


def _teams_shown(teams: list[Team], max_teams: int | None) -> tuple[list[Team], list[Team]]:
    if max_teams is None or len(teams) <= max_teams:
        return list(teams), []
    return list(teams[:max_teams]), list(teams[max_teams:])


def _hidden_note(hidden: list[Team], what: str) -> str:
    return (
        f"The {what} of {len(hidden)} more teams ({', '.join(t.name for t in hidden[:5])}"
        + (", …" if len(hidden) > 5 else "")
        + f") are in the HTML report (`--format html`): a pull-request comment holds at most "
        f"{COMMENT_LIMIT:,} characters."
    )


#: GitHub's limit on the body of a pull-request comment, in characters.
COMMENT_LIMIT = 65_536
#: Teams shown in full in a Markdown report that would not fit in one comment, in each fallback.
COMPACT_TEAMS = (25, 10, 0)


#: A failed plan's output shown in the report: its last lines, at most this many characters.
FAILED_PLAN_TAIL = 2_000
#: Failed plans shown with their output; those after these are named only.
FAILED_PLANS_SHOWN = 10


@dataclass(frozen=True)
class FailedPlan:
    """A stack whose plan failed in the pipeline, with what Terraform said."""

    stack: str
    output: str

    @property
    def tail(self) -> str:
        """The output's last lines as text a reader sees: terminal colour sequences and other control
        characters (which a report would carry raw into a terminal or a page) taken out."""
        lines = _printable(self.output).rstrip().splitlines()[-40:]
        text = "\n".join(lines)
        return text[-FAILED_PLAN_TAIL:]


#: ANSI escape sequences (CSI and OSC, as Terraform's coloured output writes them), then any other
#: control character but tab and line ends.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?")
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _printable(text: str) -> str:
    return _CONTROLS.sub("", _ESCAPES.sub("", text.replace("\r\n", "\n")))


def build_report(
    spec: PlatformSpec,
    plans: list[StackPlan] | None = None,
    *,
    chart: bool = False,
    max_teams: int | None = None,
    failed: list[FailedPlan] | None = None,
    new_lock_files: list[str] | None = None,
) -> Document:
    """The report as a document; `chart` adds the capacity chart (HTML only); `max_teams` keeps the
    per-team details to the first teams (a Markdown report that must fit in a comment); `failed`
    lists the plans that failed first, `new_lock_files` the provider lock files to commit."""
    document = Document(f"hyperpod-teams: {spec.organization.name} on {spec.cluster.name}")
    _failed_plans_section(document, failed or [], compact=max_teams is not None)
    _overview_section(document, spec)
    if new_lock_files:
        document.add(
            Heading("Provider lock files to commit"),
            Paragraph(
                "These stacks' first plans wrote a lock file; commit each to `ci/terraform-locks/` (from the "
                "pipeline's plan artifacts) so that later runs install exactly these providers:"
            ),
            Items([md_code(name) for name in new_lock_files]),
        )
    _existing_section(document, spec)
    if plans:
        document.add(*plan_section(plans, spec, max_rows=None if max_teams is None else 50))
    shown, hidden = _teams_shown(spec.teams, max_teams)
    _access_section(document, spec, shown, hidden)
    _journeys_section(document, spec)
    _compute_section(document, spec, shown, hidden, max_teams=max_teams, chart=chart)
    _cost_section(document, spec, shown, hidden)
    _manual_steps_section(document, spec)
    return document


def _failed_plans_section(document: Document, failed: list[FailedPlan], *, compact: bool) -> None:
    if not failed:
        return
    count = len(failed)
    document.add(
        Heading(f"{count} plan{'s' if count != 1 else ''} failed"),
        Alert(
            f"No plan for {', '.join(md_code(f.stack) for f in failed)}: what this report says of "
            f"{'these stacks' if count != 1 else 'this stack'} is not checked against a plan."
        ),
    )
    for shown in failed[: 0 if compact else FAILED_PLANS_SHOWN]:
        document.add(Paragraph(md_code(shown.stack)), Code(shown.tail, language="text"))


def _overview_section(document: Document, spec: PlatformSpec) -> None:
    org = spec.organization
    plugin = identity_plugin(spec)
    document.add(
        Paragraph(
            f"Account {md_code(org.account_id)}, region {md_code(org.region)}, identity provider "
            f"{md_code(plugin.name)} federated into "
            f"IAM Identity Center {md_code(spec.identity.identity_center.instance_arn)}; {len(spec.teams)} teams."
        )
    )


def _existing_section(document: Document, spec: PlatformSpec) -> None:
    existing = existing_resources(spec)
    if existing:
        document.add(Heading("What exists already"))
        document.add(Paragraph(ways_explained(existing, emphasis="**")))
        document.add(
            Table(
                ["what", "existing", "the stacks", "spec field", "stack"],
                [[e.what, md_code(e.identifier), e.how, md_code(e.field), e.stack] for e in existing],
            )
        )


def _access_section(document: Document, spec: PlatformSpec, shown: list[Team], hidden: list[Team]) -> None:
    """Each team role's chain from the IdP group to the namespace."""
    document.add(Heading("Access, team by team"))
    document.add(
        Paragraph(
            "For each team role, the chain from top to bottom: the "
            + (
                "group the access stack creates in Identity Center"
                if identity_plugin(spec).creates_identity_center_groups
                else "IdP group, provisioned into Identity Center,"
            )
            + " gets the permission set; Identity Center's role for it (`AWSReservedSSO_<set>_<hash>`) has an EKS "
            "access entry mapping it to the Kubernetes group, which the team's RBAC binds in the team namespace only."
        )
    )
    by_team: dict[str, list[RoleAccess]] = {}
    for row in access_matrix(spec):
        by_team.setdefault(row.team, []).append(row)
    for team in shown:
        roles = by_team[team.name]
        title = f"{md_text(team.title)} ({md_code(team.name)})" if team.display_name else md_code(team.name)
        document.add(Heading(f"Team {title}", level=3))
        document.add(
            Table(
                ["", *roles_header(roles)],
                [
                    ["IdP group", *[md_code(r.idp_group) for r in roles]],
                    ["permission set", *[md_code(r.permission_set) for r in roles]],
                    ["EKS principal", *[md_code(r.eks_principal) for r in roles]],
                    ["Kubernetes group", *[md_code(r.kubernetes_group) for r in roles]],
                    ["namespace", *[md_code(r.namespace) for r in roles]],
                    ["SageMaker domain", *[md_code(r.domain) if r.domain else "none (studio off)" for r in roles]],
                    ["may, in AWS", *["; ".join(r.aws_may) for r in roles]],
                    ["may, in Kubernetes", *[r.kubernetes_may for r in roles]],
                ],
            )
        )
        document.add(Paragraph(f"Runs: {what_a_team_runs(spec, team)}." + _dashboards(spec)))
    if hidden:
        document.add(Paragraph(_hidden_note(hidden, "chains")))


def _dashboards(spec: PlatformSpec) -> str:
    observability = spec.cluster.observability
    if observability is None:
        return ""
    grafana = observability.grafana and spec.organization.region in addons.GRAFANA_REGIONS
    where = "the Grafana workspace (viewer, from the access portal) and " if grafana else ""
    return f" Watches: {where}`hyp get-monitoring`, every team's series alike (docs/team-journeys.md)."


def _journeys_section(document: Document, spec: PlatformSpec) -> None:
    org = spec.organization
    document.add(Heading("How a team member gets in"))
    document.add(
        Paragraph(
            f"The steps of each role's journeys (HyperPod CLI {journeys.HYP_RELEASE} and Studio), the calls "
            "they make and what allows them; every step is refused against another team's resources "
            "(docs/team-journeys.md)."
        )
    )
    document.add(
        Table(
            ["journey", "step", "calls", "allowed by"],
            [
                [
                    s.journey,
                    md_code(s.step) if s.journey == "hyp" else md_text(s.step),
                    ", ".join(md_code(c) for c in s.calls),
                    s.allowed_by,
                ]
                for s in journeys.steps_of(spec.cluster)
            ],
        )
    )
    platform_set = naming.platform_admins_permission_set_name(org.name)
    document.add(
        Paragraph(
            f"Platform admins: IdP group {md_code(identity_groups(spec).platform_admins)} → permission set "
            f"{md_code(platform_set)} → EKS access entry with `AmazonEKSClusterAdminPolicy` on the whole cluster."
        )
    )


def _compute_section(
    document: Document, spec: PlatformSpec, shown: list[Team], hidden: list[Team], *, max_teams: int | None, chart: bool
) -> None:
    document.add(Heading("Compute"))
    shares = compute_shares(spec)
    teams_with_quota = [t.name for t in spec.teams if t.compute.quota]
    types = [md_code(s.instance_type) for s in shares]
    quota_shown, quota_hidden = _teams_shown([t for t in spec.teams if t.compute.quota], max_teams)
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
                _chart(shares, teams_with_quota),
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
        document.add(Paragraph(_hidden_note(hidden, "sharing settings")))
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


def _amount(value: Decimal) -> str:
    """A weight as written: 32, 2.5, 1,234.56."""
    text = f"{value.normalize():,f}"
    return text


def _cost_section(document: Document, spec: PlatformSpec, shown: list[Team], hidden: list[Team]) -> None:
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
            return f"{split.percentages[team]} % ({_amount(weights[team])} of {_amount(total)} {unit})"
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
        document.add(Paragraph(_hidden_note(hidden, "tags, shares and budgets")))
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


def _manual_steps_section(document: Document, spec: PlatformSpec) -> None:
    document.add(Heading("Manual steps still needed"))
    if identity_plugin(spec).creates_identity_center_groups:
        groups = [
            "IAM Identity Center: the access stack creates the team roles' groups itself; after its deploy, add "
            "their members there (and provision the users, by SCIM from the IdP or by hand).",
        ]
    else:
        groups = [
            "IAM Identity Center: enable automatic provisioning and give its SCIM endpoint and token to the IdP.",
            "Wait until every team group is provisioned before the access stack deploys.",
        ]
    document.add(
        Items(
            [
                "IAM Identity Center: switch the identity source to the external IdP (SAML metadata both ways).",
                *groups,
                "Billing: the cost allocation tags can be activated only once they appear, up to 24 hours "
                "after tagging.",
            ]
        )
    )
    document.add(
        Paragraph("`hyperpod-teams runbook` gives each step with its exact values and its place in the deploy order.")
    )


def render_report(
    spec: PlatformSpec,
    plans: list[StackPlan] | None = None,
    *,
    format: str = "markdown",
    failed: list[FailedPlan] | None = None,
    new_lock_files: list[str] | None = None,
) -> str:
    from hyperpod_teams.document import to_html, to_markdown

    if format == "html":
        return to_html(build_report(spec, plans, chart=True, failed=failed, new_lock_files=new_lock_files))
    text = to_markdown(build_report(spec, plans, failed=failed, new_lock_files=new_lock_files))
    for max_teams in COMPACT_TEAMS:
        if len(text) <= COMMENT_LIMIT:
            break
        text = to_markdown(build_report(spec, plans, max_teams=max_teams, failed=failed, new_lock_files=new_lock_files))
    return text
