"""The statement as a document, rendered to Markdown (a pull request, an e-mail) or HTML (with its
chart).

Pure layer.
"""

from __future__ import annotations

from decimal import Decimal

from hyperpod_teams.chargeback.statement import ReconciliationLine, Statement
from hyperpod_teams.chargeback.statement_csv import statement_csv
from hyperpod_teams.document import (
    Alert,
    Document,
    Heading,
    Image,
    Items,
    Paragraph,
    Table,
    md_code,
    md_text,
    standalone_svg,
    to_html,
    to_markdown,
)


def _money(amount: Decimal) -> str:
    return f"{amount:,.2f}"


def _hours(value: Decimal) -> str:
    return f"{value:,.2f}"


def build_statement_document(statement: Statement, *, chart: bool = False):
    s = statement
    document = Document(
        f"Chargeback of {md_text(s.cluster)} ({md_text(s.organization)}), {s.first_day} to {s.last_day}"
    )
    document.add(
        Paragraph(
            f"The shared cluster cost **{_money(s.cost)} {s.currency}** ({md_text(s.cost_source)}) over {s.days} "
            f"day{'s' if s.days != 1 else ''}, divided among its instance types {md_text(s.cost_basis)}. Each team "
            f"pays for the hours HyperPod's usage reports measured it using; the {_money(s.unused)} {s.currency} of "
            f"capacity no team used is charged {md_text(s.split_method)}."
        )
    )
    if s.notes:
        document.add(Alert(f"{len(s.notes)} thing{'s' if len(s.notes) != 1 else ''} to check before sending"))
        document.add(Items([md_text(note) for note in s.notes]))
    document.add(Heading("Per team"))
    document.add(
        Table(
            ["team", "share", f"amount ({s.currency})", f"for its use ({s.currency})", f"idle share ({s.currency})"],
            [
                [
                    f"{md_text(c.title)} ({md_code(c.team)})" if c.title != c.team else md_code(c.team),
                    f"{s.share_percent(c)}%",
                    _money(c.amount),
                    _money(c.usage),
                    _money(c.idle),
                ]
                for c in s.teams
            ]
            + [["total", "100%", _money(s.cost), _money(s.cost - s.unused), _money(s.unused)]],
        )
    )
    document.add(Paragraph(_two_views(s)))
    if len(s.reconciliation) > 1:
        document.add(Heading("From the exports to the statement"))
        document.add(
            Table(
                ["", f"amount ({s.currency})"],
                [[_reconciliation_label(line), _money(line.amount)] for line in s.reconciliation],
            )
        )
    if chart:
        document.add(
            Image(
                "Each team's amount: its own use and its share of idle capacity",
                _statement_chart(s),
                on_phone="the Per team table above gives the same figures",
            )
        )
    document.add(Heading("Hours charged, per instance type"))
    rows = []
    for t in s.instance_types:
        for c in s.teams:
            if t.instance_type in c.hours:
                charged, allocated, borrowed = c.hours[t.instance_type]
                rows.append(
                    [md_text(t.instance_type), md_code(c.team), _hours(charged), _hours(allocated), _hours(borrowed)]
                )
        if t.other_hours:
            rows.append([md_text(t.instance_type), "namespaces of no team", _hours(t.other_hours), "-", "-"])
    document.add(
        Paragraph(
            "Charged hours are the reports' total hours of the type's measured resource (GPU hours on GPU instances, "
            "NeuronCore hours on Trainium and Inferentia, vCPU hours on CPU instances): allocated hours fall within "
            "the "
            "team's guaranteed quota, borrowed hours are idle capacity of other teams it borrowed. A team pays for "
            "its charged hours the type's cost over its capacity hours."
        )
    )
    document.add(
        Table(
            ["instance type", "team", "charged hours", "allocated hours", "borrowed hours"],
            rows or [["-", "-", "-", "-", "-"]],
        )
    )
    document.add(Heading("Capacity, per instance type"))
    document.add(
        Table(
            [
                "instance type",
                "nodes",
                f"its part of the cost ({s.currency})",
                "capacity (hours)",
                "used (hours)",
                "idle (hours)",
            ],
            [
                [
                    md_text(t.instance_type),
                    str(t.nodes),
                    _money(t.cost),
                    f"{_hours(t.capacity_hours)} {t.resource}",
                    _hours(sum(t.used_hours.values(), Decimal(0)) + t.other_hours),
                    _hours(t.idle_hours),
                ]
                for t in s.instance_types
            ],
        )
    )
    return document


def _reconciliation_label(line: ReconciliationLine) -> str:
    if line.role == "total":
        return f"**{md_text(line.label)}**"
    if line.role == "less":
        return f"less {md_text(line.label)}"
    if line.role == "plus":
        return f"plus {md_text(line.label)}, which sum to less than zero (credits, discounts)"
    if line.role == "part":
        return f"of which {md_text(line.label)}"
    return f"*{md_text(line.label)}*"


def _two_views(s: Statement) -> str:
    """The statement and the cost category split the same spend two ways: say so, with the
    other view's figures where the rule alone decides them."""
    text = (
        "The cost category's split charge rule divides the same shared spend in Cost Explorer, "
        f"{md_text(s.split_method)}"
        " over all of it. That and this statement are two views of one spend: use one, never add them."
    )
    if s.cost_category_split:
        figures = ", ".join(f"{md_code(t)} {_money(a)}" for t, a in sorted(s.cost_category_split.items()))
        text += f" Of {_money(s.cost)} {s.currency} the rule alone would charge {figures} {s.currency}."
    return text


def _statement_chart(statement: Statement) -> str:
    import pygal
    from pygal.style import Style

    from hyperpod_teams.document import TEAM_COLOURS, UNALLOCATED_COLOUR

    chart = pygal.HorizontalStackedBar(
        js=[],
        width=900,
        height=170 + 34 * len(statement.teams),
        x_title=statement.currency,
        disable_xml_declaration=True,
        # Every name whole: the legend under the chart, the teams' names never cut.
        legend_at_bottom=True,
        truncate_legend=-1,
        truncate_label=-1,
        style=Style(
            colors=(TEAM_COLOURS[0], UNALLOCATED_COLOUR),
            background="white",
            plot_background="white",
            font_family="sans-serif",
        ),
    )
    teams = list(reversed(statement.teams))  # pygal draws bottom up
    chart.x_labels = [c.team for c in teams]
    chart.add("own use", [float(c.usage) for c in teams])
    chart.add("share of idle capacity", [float(c.idle) for c in teams])
    return standalone_svg(chart.render(is_unicode=True), "chargeback-chart")


def render_statement(statement: Statement, *, format: str = "markdown") -> str:
    if format == "csv":
        return statement_csv(statement)
    if format == "html":
        return to_html(build_statement_document(statement, chart=True))
    return to_markdown(build_statement_document(statement))
