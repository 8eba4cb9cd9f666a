"""The review of a spec of several clusters (#61): each team on each cluster, what it may use there
and where its spend goes (the report), and how a member reaches each of its team's clusters and in
which order the stacks deploy (the runbook). Each cluster's own sections are those of its
one-cluster view (report_access, report_compute).

Pure layer: no cdktf.
"""

from __future__ import annotations

from hyperpod_teams import cost, naming
from hyperpod_teams.document import Code, Document, Heading, Items, Paragraph, Table, md_code, md_text
from hyperpod_teams.review.plan_summary import StackPlan, plan_section
from hyperpod_teams.review.report import FailedPlan, failed_plans_section, lock_files_section
from hyperpod_teams.review.report_access import access_section
from hyperpod_teams.review.report_compute import compute_section
from hyperpod_teams.review.report_shown import hidden_note, rendered, teams_shown
from hyperpod_teams.review.runbook_day2 import cost_category_repair_section
from hyperpod_teams.spec.clusters import SeveralClusters, home_cluster
from hyperpod_teams.spec.models import PlatformSpec, Team
from hyperpod_teams.stack_plan import deploy_waves, several_clusters_stack_plan


def _where(view: PlatformSpec) -> str:
    return f"account {view.organization.account_id}, {view.organization.region}"


def _hyperpod_name(view: PlatformSpec) -> str:
    return view.cluster.existing_hyperpod_cluster_name or view.cluster.name


def _quota(team: Team) -> str:
    quota = ", ".join(f"{q.count} x {q.instance_type}" for q in team.compute.quota) or "no guaranteed quota"
    return f"{quota} ({team.compute.sharing})"


def _demoted(into: Document, build) -> None:
    """The blocks `build` adds to a document of its own, each heading one level lower, into `into`."""
    own = Document("")
    build(own)
    into.add(*(Heading(b.text, b.level + 1) if isinstance(b, Heading) else b for b in own.blocks))


def build_clusters_report(
    clusters: SeveralClusters,
    plans: list[StackPlan] | None = None,
    *,
    chart: bool = False,
    max_teams: int | None = None,
    failed: list[FailedPlan] | None = None,
    new_lock_files: list[str] | None = None,
) -> Document:
    """The report of several clusters; with `plans`, their changes first (by stack and team, each
    stack's team from the plan of the stacks), as one cluster's report has them."""
    organization = clusters.organization_view
    views = clusters.views
    document = Document(
        f"hyperpod-teams: {md_text(organization.organization.name)} on {len(views)} clusters "
        f"({', '.join(md_text(name) for name in views)})"
    )
    failed_plans_section(document, failed or [], compact=max_teams is not None)
    if new_lock_files:
        lock_files_section(document, new_lock_files)
    if plans:
        team_of = {s.name: s.team for s in several_clusters_stack_plan(clusters) if s.team is not None}
        document.add(*plan_section(plans, organization, team_of=team_of, max_rows=None if max_teams is None else 50))
    document.add(Heading("Clusters"))
    document.add(
        Table(
            ["cluster", "where", "HyperPod cluster", "EKS cluster", "nodes", "teams placed"],
            [
                [
                    md_code(name),
                    _where(view),
                    md_code(_hyperpod_name(view)),
                    md_code(naming.shared_eks_cluster_name(view.cluster)),
                    str(sum(g.count for g in view.cluster.instance_groups)),
                    ", ".join(md_code(t.name) for t in view.teams),
                ]
                for name, view in views.items()
            ],
        )
    )
    document.add(Heading("Each team on each cluster"))
    document.add(
        Paragraph(
            "What each team may use where: its guaranteed quota on each cluster it is placed on (— where it has "
            "none), and its home, where its SageMaker AI domain, data bucket and roles are. One permission set per "
            "team role grants on every cluster of the team, and is assigned in each of their accounts."
        )
    )
    rows = []
    shown_teams, hidden_teams = teams_shown(organization.teams, max_teams)
    placed_teams = {placed.name: placed for placed in clusters.spec.teams}
    for team in shown_teams:
        placed = placed_teams[team.name]
        home = home_cluster(placed.studio.home, placed.placements)
        rows.append(
            [
                md_code(placed.name),
                md_code(home),
                *(_quota(view.team(placed.name)) if name in placed.placements else "—" for name, view in views.items()),
            ]
        )
    document.add(Table(["team", "home", *(f"on {md_code(name)}" for name in views)], rows))
    if hidden_teams:
        document.add(Paragraph(hidden_note(hidden_teams, "places")))
    _spend_section(document, clusters, shown_teams, hidden_teams)
    for name, view in views.items():
        document.add(Heading(f"Cluster {md_text(name)} ({_where(view)})"))
        shown, hidden = teams_shown(view.teams, max_teams)
        _demoted(document, lambda d, v=view, s=shown, h=hidden: access_section(d, v, s, h))
        _demoted(
            document, lambda d, v=view, s=shown, h=hidden: compute_section(d, v, s, h, max_teams=max_teams, chart=chart)
        )
    return document


def render_clusters_report(
    clusters: SeveralClusters,
    plans: list[StackPlan] | None = None,
    *,
    format: str = "markdown",
    failed: list[FailedPlan] | None = None,
    new_lock_files: list[str] | None = None,
) -> str:
    """The report of several clusters as report.render_report renders one cluster's: HTML, or
    Markdown that fits a pull-request comment."""

    def build(*, chart: bool = False, max_teams: int | None = None) -> Document:
        return build_clusters_report(
            clusters, plans, chart=chart, max_teams=max_teams, failed=failed, new_lock_files=new_lock_files
        )

    return rendered(build, format)


def _spend_section(document: Document, clusters: SeveralClusters, shown: list[Team], hidden: list[Team]) -> None:
    """Where each team's spend goes: its own value of the one cost category, and its share of each
    cluster's shared spend (that cluster's split charge rule)."""
    organization = clusters.organization_view
    category = naming.cost_category_name(organization.organization.name)
    document.add(Heading("Where each team's spend goes"))
    document.add(
        Paragraph(
            f"One cost category, {md_code(category)}, over every cluster: spend tagged with a team is that team's "
            f"value; each cluster's shared spend (tagged {md_code(naming.TAG_PLATFORM + '=' + naming.PLATFORM_SHARED)}"
            f" and {md_code(naming.TAG_CLUSTER + '=<cluster>')}) is a value of its own, "
            f"{md_code(naming.cluster_shared_cost_value('<cluster>'))}, split among the teams placed on that cluster "
            "by its own split charge rule."
        )
    )
    splits = {name: cost.shared_split(view) for name, view in clusters.views.items()}

    def share(team: str, name: str) -> str:
        split = splits[name]
        if team not in split.targets:
            return "—"
        if split.method == "FIXED":
            return f"{split.percentages[team]} %"
        return "in proportion to its own spend" if split.method == "PROPORTIONAL" else f"1 of {len(split.targets)}"

    rows = [
        [
            md_code(team.name),
            md_code(team.name),
            *(share(team.name, name) for name in clusters.views),
            f"{team.budget.monthly_limit_usd:,.0f} USD" if team.budget else "none",
        ]
        for team in shown
    ]
    headers = [
        "team",
        f"its value of {md_code(category)}",
        *(f"share of {md_code(naming.cluster_shared_cost_value(name))}" for name in clusters.views),
        "monthly budget",
    ]
    document.add(Table(headers, rows))
    if hidden:
        document.add(Paragraph(hidden_note(hidden, "spend")))


def build_clusters_runbook(clusters: SeveralClusters) -> Document:
    """The order the stacks deploy in, and how a member reaches each cluster of its team."""
    organization = clusters.organization_view
    views = clusters.views
    document = Document(f"Runbook: {md_text(organization.organization.name)} on {len(views)} clusters")
    document.add(Heading("Deploy order"))
    document.add(
        Paragraph(
            "The stacks deploy in waves: a wave's stacks in parallel, after the waves before it "
            "(`hyperpod-teams stacks` lists them; each with the credentials it names):"
        )
    )
    waves = deploy_waves(several_clusters_stack_plan(clusters))
    document.add(
        Items(
            [
                f"wave {index}: " + "; ".join(f"{md_code(s.name)} ({md_text(s.credentials)})" for s in wave)
                for index, wave in enumerate(waves, 1)
            ],
            ordered=False,
        )
    )
    document.add(Heading("Reach each cluster of your team (a team's members)"))
    for placed in clusters.spec.teams:
        lines = []
        permission_set = naming.team_permission_set_name(organization.organization.name, placed, "scientists")
        namespace, queue = naming.team_namespace(placed.name), naming.team_local_queue(placed.name)
        for name in placed.placements:
            view = views[name]
            region = view.organization.region
            lines += [
                f"# {name}: account {view.organization.account_id}, {region}; a profile of that account with "
                f"the permission set {permission_set} (or the admins')",
                f"hyp set-cluster-context --cluster-name {_hyperpod_name(view)} --region {region}",
                f"kubectl get clusterqueue {naming.team_cluster_queue(placed.name)}",
                "hyp create hyp-pytorch-job --job-name my-job --image <image> \\\n"
                f"  --namespace {namespace} --queue-name {queue}",
            ]
        document.add(Paragraph(f"Team {md_code(placed.name)}, signed in with `aws sso login`:"))
        document.add(Code("\n".join(lines)))
    document.add(*cost_category_repair_section(clusters))
    return document
