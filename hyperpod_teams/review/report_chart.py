"""The report's capacity chart: each instance type's capacity by team, a hue per team, the rest as one
series.

Pure layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from hyperpod_teams.document import (
    OTHER_TEAMS_COLOUR,
    TEAM_COLOURS,
    UNALLOCATED_COLOUR,
    standalone_svg,
)


@dataclass(frozen=True)
class InstanceTypeShares:
    instance_type: str
    capacity: int
    #: team -> nodes, whole or in part (a quota in accelerators or GPU partitions: 0.5 of a p5)
    guaranteed: dict[str, Decimal]

    @property
    def unallocated(self) -> Decimal:
        return self.capacity - sum(self.guaranteed.values(), Decimal(0))


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


def capacity_chart(shares: list[InstanceTypeShares], teams: list[str]) -> str:
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
