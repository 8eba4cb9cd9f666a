"""The team-centred report for plan review: who gets in and what each role may do, what compute
each team may use, and to which group its spend goes. Pure layer: no cdktf; the HTML chart
imports its plotting library (pygal) only when asked for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hyperpod_teams import cost, naming, policies, rbac
from hyperpod_teams.adoption import HOW_MEANING, existing_resources
from hyperpod_teams.document import Document, Heading, Image, Items, Paragraph, Table, standalone_svg
from hyperpod_teams.plan_summary import StackPlan, plan_section
from hyperpod_teams.plugins import IdentityGroups
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.stack_plan import identity_plugin


def _sid_phrase(sid: str) -> str:
    """`OpenStudioInTheTeamsDomain` -> `open studio in the team's domain`."""
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
    groups = IdentityGroups.for_spec(spec)
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
                        rbac.SCIENTIST_RULES if role == "scientists" else rbac.ADMIN_RULES
                    ),
                )
            )
    return rows


@dataclass(frozen=True)
class InstanceTypeShares:
    instance_type: str
    capacity: int
    guaranteed: dict[str, int]  # team -> nodes

    @property
    def unallocated(self) -> int:
        return self.capacity - sum(self.guaranteed.values())


def compute_shares(spec: PlatformSpec) -> list[InstanceTypeShares]:
    return [
        InstanceTypeShares(
            instance_type=instance_type,
            capacity=nodes,
            guaranteed={
                team.name: entry.count
                for team in spec.teams
                for entry in team.compute.quota
                if entry.instance_type == instance_type
            },
        )
        for instance_type, nodes in spec.cluster.capacity_by_instance_type().items()
    ]


def _borrow(team: Team) -> str:
    return f"{team.compute.borrow_limit_percent} %" if team.compute.sharing == "LendAndBorrow" else "–"


#: Teams drawn as their own bar segment; the rest share one, so the chart stays readable (and
#: quick) at hundreds of teams.
CHART_TEAMS = 10


def chart_series(shares: list[InstanceTypeShares], teams: list[str]) -> list[tuple[str, list[int]]]:
    """The chart's segments: (label, nodes per instance type), the largest teams first, then
    the other teams together, then what is unallocated."""
    by_size = sorted(teams, key=lambda t: -sum(s.guaranteed.get(t, 0) for s in shares))
    named, others = by_size[:CHART_TEAMS], set(by_size[CHART_TEAMS:])
    series = [(team, [s.guaranteed.get(team, 0) for s in shares]) for team in named]
    if others:
        series.append(
            (f"{len(others)} other teams", [sum(n for t, n in s.guaranteed.items() if t in others) for s in shares])
        )
    series.append(("unallocated", [s.unallocated for s in shares]))
    return series


#: Segment colours: the teams', then the grey of unallocated capacity.
TEAM_COLOURS = (
    "#0969da",
    "#bf3989",
    "#1a7f37",
    "#bc4c00",
    "#8250df",
    "#0598bc",
    "#cf222e",
    "#4d2d00",
    "#6e7781",
    "#116329",
)
UNALLOCATED_COLOUR = "#d0d7de"


def _chart(shares: list[InstanceTypeShares], teams: list[str]) -> str:
    """Capacity shares per instance type as a stacked bar chart: SVG, with nothing to fetch."""
    import pygal
    from pygal.style import Style

    series = chart_series(shares, teams)
    colours = [
        UNALLOCATED_COLOUR if label == "unallocated" else TEAM_COLOURS[i % len(TEAM_COLOURS)]
        for i, (label, _) in enumerate(series)
    ]
    chart = pygal.HorizontalStackedBar(
        js=[],  # no script from a CDN: the page must stand alone
        width=900,
        height=120 + 60 * len(shares),
        x_title="nodes",
        disable_xml_declaration=True,
        style=Style(colors=tuple(colours), background="white", plot_background="white", font_family="sans-serif"),
    )
    chart.x_labels = [s.instance_type for s in reversed(shares)]  # pygal draws bottom up
    for label, counts in series:
        chart.add(label, list(reversed(counts)))
    return standalone_svg(chart.render(is_unicode=True), "capacity-chart")


def build_report(spec: PlatformSpec, plans: list[StackPlan] | None = None, *, chart: bool = False) -> Document:
    """The report as a document; `chart` adds the capacity chart (HTML only)."""
    org = spec.organization
    plugin = identity_plugin(spec)
    document = Document(f"hyperpod-teams: {org.name} on {spec.cluster.name}")
    document.add(
        Paragraph(
            f"Account `{org.account_id}`, region `{org.region}`, identity provider `{plugin.name}` federated into "
            f"IAM Identity Center `{spec.identity.identity_center.instance_arn}`; {len(spec.teams)} teams."
        )
    )
    existing = existing_resources(spec)
    if existing:
        document.add(Heading("What exists already"))
        document.add(
            Paragraph(
                "; ".join(
                    f"**{how}**: {meaning}"
                    for how, meaning in HOW_MEANING.items()
                    if any(e.how == how for e in existing)
                )
                + "."
            )
        )
        document.add(
            Table(
                ["what", "existing", "the stacks", "spec field", "stack"],
                [[e.what, f"`{e.identifier}`", e.how, f"`{e.field}`", e.stack] for e in existing],
            )
        )
    if plans:
        document.add(*plan_section(plans, spec))

    document.add(Heading("Access matrix"))
    document.add(
        Paragraph(
            "Each row is one chain: the IdP group, provisioned into Identity Center, gets the permission set; "
            "Identity Center's role for it (`AWSReservedSSO_<set>_<hash>`) has an EKS access entry mapping it "
            "to the Kubernetes group, which the team's RBAC binds in the team namespace only."
        )
    )
    document.add(
        Table(
            [
                "team",
                "role",
                "IdP group",
                "permission set",
                "EKS principal → Kubernetes group",
                "namespace",
                "SageMaker domain",
                "may, in AWS",
                "may, in Kubernetes",
            ],
            [
                [
                    row.team,
                    row.role,
                    f"`{row.idp_group}`",
                    f"`{row.permission_set}`",
                    f"`{row.eks_principal}` → `{row.kubernetes_group}`",
                    f"`{row.namespace}`",
                    f"`{row.domain}`" if row.domain else "none (studio off)",
                    "; ".join(row.aws_may),
                    row.kubernetes_may,
                ]
                for row in access_matrix(spec)
            ],
        )
    )
    platform_set = naming.platform_admins_permission_set_name(org.name)
    document.add(
        Paragraph(
            f"Platform admins: IdP group `{IdentityGroups.for_spec(spec).platform_admins}` → permission set "
            f"`{platform_set}` → EKS access entry with `AmazonEKSClusterAdminPolicy` on the whole cluster."
        )
    )

    document.add(Heading("Compute"))
    shares = compute_shares(spec)
    teams_with_quota = [t.name for t in spec.teams if t.compute.quota]
    document.add(
        Table(
            ["instance type", "capacity (nodes)", *[f"{t} (guaranteed)" for t in teams_with_quota], "unallocated"],
            [
                [
                    f"`{s.instance_type}`",
                    str(s.capacity),
                    *[str(s.guaranteed.get(t, 0)) for t in teams_with_quota],
                    str(s.unallocated),
                ]
                for s in shares
            ],
        )
    )
    if chart:
        document.add(
            Image(
                "Guaranteed nodes per team and unallocated capacity, per instance type",
                _chart(shares, teams_with_quota),
            )
        )
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
                for t in spec.teams
            ],
        )
    )
    if governance.enabled:
        classes = (
            ", ".join(f"`{naming.workload_priority_class(p.name)}` ({p.weight})" for p in governance.priority_classes)
            or "none"
        )
        document.add(
            Paragraph(
                f"Task governance on; fair share {governance.fair_share}; priority classes (weight), by the name "
                f"a job gives (`hyp create hyp-pytorch-job --priority`, label `kueue.x-k8s.io/priority-class`): "
                f"{classes}."
            )
        )
    else:
        document.add(Paragraph("Task governance is off: no quotas are enforced."))

    document.add(Heading("Cost attribution"))
    category = naming.cost_category_name(org.name)
    values = {rule.team: rule.value for rule in cost.cost_category_rules(spec)}
    split = cost.shared_split(spec)

    def shared_share(team: str) -> str:
        if team not in split.targets:
            return "none"
        if split.method == "FIXED":
            return f"{split.percentages[team]} %"
        return "in proportion to its own spend" if split.method == "PROPORTIONAL" else "an even part"

    document.add(
        Table(
            [
                "team",
                "tags on every resource",
                f"cost category `{category}`",
                "share of the shared cluster",
                "monthly budget",
                "alerts at",
            ],
            [
                [
                    t.name,
                    ", ".join(f"`{k}={v}`" for k, v in naming.team_tags(org.name, t.name, t.cost_center).items()),
                    f"`{values[t.name]}`",
                    shared_share(t.name),
                    f"{cost.budget_limit_amount(t.budget.monthly_limit_usd)} USD" if t.budget else "none",
                    (
                        ", ".join(f"{p} %" for p in t.budget.thresholds_percent)
                        + " → "
                        + ", ".join(t.budget.notify_emails)
                    )
                    if t.budget
                    else "–",
                ]
                for t in spec.teams
            ],
        )
    )
    document.add(
        Paragraph(
            f"The shared platform's resources (HyperPod and EKS clusters, lifecycle scripts, their roles and "
            f"keys) carry `{naming.TAG_PLATFORM}={naming.PLATFORM_SHARED}`: their spend is the category's value "
            f"`{cost.SHARED_PLATFORM}`, which a split charge rule divides across the teams "
            f"(`cost.shared_split: {spec.cost.shared_split}`"
            + (f"; proportional to each team's own spend, since {split.fallback}" if split.fallback else "")
            + "). The split shows on the cost category's details "
            "page in the Billing console (and its CSV download); elsewhere the shared spend stays under "
            f"`{cost.SHARED_PLATFORM}`. Spend without this organization's tags goes to `{cost.UNATTRIBUTED}`."
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
                f"and vCPU hours per day (`{naming.usage_report_stack_name(org.name)}`, "
                f"`{naming.usage_operator_stack_name(org.name)}`; kept {usage.retention_days} days). "
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

    document.add(Heading("Manual steps still needed"))
    document.add(
        Items(
            [
                "IAM Identity Center: switch the identity source to the external IdP (SAML metadata both ways).",
                "IAM Identity Center: enable automatic provisioning and give its SCIM endpoint and token to the IdP.",
                "Wait until every team group is provisioned before the access stack deploys.",
                "Billing: the cost allocation tags can be activated only once they appear, up to 24 hours "
                "after tagging.",
            ]
        )
    )
    document.add(
        Paragraph("`hyperpod-teams runbook` gives each step with its exact values and its place in the deploy order.")
    )
    return document


def render_report(spec: PlatformSpec, plans: list[StackPlan] | None = None, *, format: str = "markdown") -> str:
    from hyperpod_teams.document import to_html, to_markdown

    if format == "html":
        return to_html(build_report(spec, plans, chart=True))
    return to_markdown(build_report(spec, plans))
