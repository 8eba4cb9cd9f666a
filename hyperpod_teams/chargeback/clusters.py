"""Chargeback over several clusters (#61): each cluster's statement from its own usage reports and
its own cost, divided among the teams placed on it and reconciled to that cost as one cluster's is
(`compute_statement` on the cluster's view); and one statement per team with a line per cluster.

Pure layer: no cdktf.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal

from hyperpod_teams.chargeback.basis import DEFAULT_CURRENCY
from hyperpod_teams.chargeback.compute import compute_statement
from hyperpod_teams.chargeback.exported_cost import ExportedCost, Place
from hyperpod_teams.chargeback.statement import ChargebackError, Statement
from hyperpod_teams.chargeback.statement_csv import CSV_COLUMNS, statement_metadata
from hyperpod_teams.chargeback.statement_document import build_statement_document
from hyperpod_teams.document import Document, Heading, Paragraph, Table, md_code, md_text, spreadsheet_text, to_html
from hyperpod_teams.document import to_markdown as document_markdown
from hyperpod_teams.spec.clusters import SeveralClusters
from hyperpod_teams.usage_report import SummaryReport


@dataclass(frozen=True)
class ClusterCost:
    """One cluster's cost for the period: given (`--cost CLUSTER=AMOUNT`) or read from the exports
    at the cluster's account and Region (`exported`)."""

    amount: Decimal
    source: str = "given"
    exported: ExportedCost | None = None


@dataclass(frozen=True)
class ClustersStatement:
    """The statements of an organization's clusters for one period, each reconciled to its
    cluster's cost; a team's charge is the sum of its lines on the clusters it is placed on."""

    organization: str
    #: Cluster name -> its statement, in the spec's order of the clusters.
    statements: dict[str, Statement]
    #: (team, title) of every team of the organization, in the spec's order.
    teams: list[tuple[str, str]]

    @property
    def first(self) -> Statement:
        return next(iter(self.statements.values()))

    @property
    def currency(self) -> str:
        return self.first.currency

    @property
    def first_day(self) -> date:
        return self.first.first_day

    @property
    def last_day(self) -> date:
        return self.first.last_day

    @property
    def cost(self) -> Decimal:
        return sum((s.cost for s in self.statements.values()), Decimal(0))

    def amount(self, team: str, cluster: str) -> Decimal | None:
        """The team's charge on the cluster; None where it has no placement there."""
        return next((c.amount for c in self.statements[cluster].teams if c.team == team), None)

    def total(self, team: str) -> Decimal:
        return sum((a for c in self.statements if (a := self.amount(team, c)) is not None), Decimal(0))


def cluster_places(clusters: SeveralClusters) -> dict[str, Place]:
    """Each cluster's account and Region, where an export's lines are its; where two clusters share
    them, each with its name too, which its lines carry as the cluster tag (naming.TAG_CLUSTER)."""
    places = {
        name: Place(view.organization.account_id, view.organization.region) for name, view in clusters.views.items()
    }
    shared = {place for place in places.values() if list(places.values()).count(place) > 1}
    return {name: replace(place, cluster=name) if place in shared else place for name, place in places.items()}


def compute_clusters_statement(
    clusters: SeveralClusters,
    reports: list[SummaryReport],
    costs: Mapping[str, ClusterCost],
    *,
    currency: str = DEFAULT_CURRENCY,
) -> ClustersStatement:
    """Each cluster's statement (`compute_statement` on its view) from the reports whose header
    names it, and its cost in `costs`; every cluster needs reports of the same period."""
    grouped: dict[str, list[SummaryReport]] = {name: [] for name in clusters.views}
    for report in reports:
        if report.cluster not in grouped:
            raise ChargebackError(
                f"{report.path} is a usage report of the cluster {report.cluster!r} (its header), which is none of "
                f"the spec's clusters ({', '.join(grouped)}): its hours are not these teams'. Give the reports of "
                "the spec's clusters"
            )
        grouped[report.cluster].append(report)
    missing = [name for name, held in grouped.items() if not held]
    if missing:
        raise ChargebackError(
            f"no usage report of {'cluster' if len(missing) == 1 else 'clusters'} {', '.join(missing)} is given: "
            "the teams placed there would be charged its whole cost by their quotas alone. Give --usage reports "
            "of every cluster of the spec for the period"
        )
    absent = [name for name in clusters.views if name not in costs]
    if absent:
        raise ChargebackError(f"no cost of {', '.join(absent)} is given: give every cluster's cost")
    statements = {
        name: compute_statement(
            view,
            grouped[name],
            costs[name].amount,
            cost_source=costs[name].source,
            exported=costs[name].exported,
            currency=currency,
        )
        for name, view in clusters.views.items()
    }
    periods = {name: (s.first_day, s.last_day) for name, s in statements.items()}
    if len(set(periods.values())) > 1:
        spans = ", ".join(f"{name} {first} to {last}" for name, (first, last) in periods.items())
        raise ChargebackError(
            f"the reports cover other periods on each cluster ({spans}): one statement is one period. Give the "
            "reports of the same days for every cluster"
        )
    organization = clusters.organization_view
    return ClustersStatement(
        organization.organization.name,
        statements,
        [(team.name, team.display_name or team.name) for team in organization.teams],
    )


def _money(amount: Decimal | None) -> str:
    return "" if amount is None else f"{amount:,.2f}"


def build_clusters_document(statement: ClustersStatement, *, chart: bool = False) -> Document:
    """The statement per team (a line per cluster, its total), then each cluster's own statement."""
    s = statement
    clusters = list(s.statements)
    document = Document(
        f"Chargeback of {md_text(s.organization)}'s {len(clusters)} clusters, {s.first_day} to {s.last_day}"
    )
    document.add(
        Paragraph(
            f"The shared clusters cost **{_money(s.cost)} {s.currency}** in all: each cluster's cost is divided "
            "among the teams placed on it by the hours its usage reports measured, and what no team used by its "
            "own split (each cluster's statement below, reconciled to that cluster's cost). A team pays the sum "
            "of its lines."
        )
    )
    document.add(Heading("Per team"))
    rows = [
        [
            f"{md_text(title)} ({md_code(team)})" if title != team else md_code(team),
            *(_money(s.amount(team, cluster)) or "—" for cluster in clusters),
            _money(s.total(team)),
        ]
        for team, title in s.teams
    ]
    rows.append(["total", *(_money(s.statements[c].cost) for c in clusters), _money(s.cost)])
    document.add(Table(["team", *(f"{md_text(c)} ({s.currency})" for c in clusters), f"total ({s.currency})"], rows))
    for cluster, one in s.statements.items():
        own = build_statement_document(one, chart=chart)
        document.add(Heading(f"Cluster {md_text(cluster)}: {own.title}"))
        document.add(*(Heading(b.text, b.level + 1) if isinstance(b, Heading) else b for b in own.blocks))
    return document


def clusters_csv(statement: ClustersStatement) -> str:
    """A row per team and cluster it is placed on (the columns of one cluster's CSV, and the
    cluster); a team's rows sum to its charge, and each cluster's rows to that cluster's cost."""
    s = statement
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = [c.format(currency=s.currency.lower()) for c in CSV_COLUMNS]
    writer.writerow([columns[0], "cluster", *columns[1:]])
    for team, _ in s.teams:
        for cluster, one in s.statements.items():
            for c in one.teams:
                if c.team == team:
                    writer.writerow(
                        [
                            spreadsheet_text(c.team),
                            spreadsheet_text(cluster),
                            spreadsheet_text(c.title),
                            f"{one.share_percent(c):.2f}",
                            f"{c.amount:.2f}",
                            f"{c.usage:.2f}",
                            f"{c.idle:.2f}",
                        ]
                    )
    return out.getvalue()


def clusters_metadata(statement: ClustersStatement) -> str:
    """The CSV's FILE.json: the period, the currency, the total, each team's, and each cluster's
    metadata as one cluster's statement has it (its cost, sources, reconciliation and notes)."""
    s = statement
    document = {
        "organization": s.organization,
        "period": {"first_day": s.first_day.isoformat(), "last_day": s.last_day.isoformat()},
        "currency": s.currency,
        "cost": f"{s.cost:.2f}",
        "teams": [{"team": team, "amount": f"{s.total(team):.2f}"} for team, _ in s.teams],
        "clusters": {name: json.loads(statement_metadata(one)) for name, one in s.statements.items()},
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def render_clusters_statement(statement: ClustersStatement, *, format: str = "markdown") -> str:
    if format == "csv":
        return clusters_csv(statement)
    if format == "html":
        return to_html(build_clusters_document(statement, chart=True))
    return document_markdown(build_clusters_document(statement))
