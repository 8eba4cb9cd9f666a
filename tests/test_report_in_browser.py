"""The HTML report as a reviewer sees it: rendered by headless Chromium (Debian's package; .ci/run
installs it) on a twelve-team spec with long names, at a desktop's 1280 px and a phone's 390 px.
The assertions are on what the browser measured; screenshots are kept in test-artifacts/."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from hyperpod_teams.review.report import COMMENT_LIMIT, render_report
from hyperpod_teams.spec import validate_spec
from tests.conftest import QUICKSTART, ROOT

pytestmark = pytest.mark.browser

ARTIFACTS = ROOT / "test-artifacts"
LONG_NAMES = [
    "nlp",
    "vision",
    "research",
    "speech-recognition-and-synthesis",
    "recommendations",
    "fraud-detection-platform",
    "ads",
    "search-ranking-and-retrieval-team",
    "robotics",
    "forecasting",
    "genomics-foundation-models",
    "safety",
    # The longest name a team may have (40): its namespace and queue label in <code> are unbroken words.
    "machine-learning-platform-foundations-ab",
]


def spec_of(teams: list[str]) -> dict:
    data = yaml.safe_load(QUICKSTART.read_text())
    data["cluster"]["instance_groups"] = [
        {"name": "gpu", "instance_type": "ml.p5.48xlarge", "count": min(1000, 4 * len(teams))},
        {"name": "cpu", "instance_type": "ml.c5.4xlarge", "count": min(1000, 2 * len(teams))},
    ]
    data["teams"] = [
        {
            "name": name,
            "display_name": f"{name.replace('-', ' ').title()} Team",
            "cost_center": f"CC-{i:04d}",
            "compute": {
                "quota": [
                    {"instance_type": "ml.p5.48xlarge", "count": 4 if len(teams) <= 250 else 1},
                    {"instance_type": "ml.c5.4xlarge", "count": 2 if len(teams) <= 250 else 1},
                ]
            },
            "budget": {
                "monthly_limit_usd": 10000 + i,
                # An address without a hyphen, where a browser may break only mid-word.
                "notify_emails": [f"{name}-leads@example.com", "financeoperations@example.com"],
            },
        }
        for i, name in enumerate(teams)
    ]
    data.pop("cost", None)
    return data


def chromium_or_skip() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("headless Chromium must be installed under CI (.ci/run installs Debian's chromium)")
        pytest.skip("headless Chromium is not installed (apt-get install chromium); .ci/run installs it")
    return found


#: Added to a copy of the page only (the report itself has no script): what the browser laid out.
MEASURE = r"""<script>
const root = document.documentElement;
const teamRows = [...document.querySelectorAll("h3 + .table tr")].map(r => r.getBoundingClientRect().height);
const chart = document.querySelector("img").getBoundingClientRect();
const boxes = [...document.querySelectorAll(".table")];
// Every cell that is a number (an amount, hours, a percentage): on how many lines it was laid out.
const numbers = [...document.querySelectorAll("td")].filter(
  td => /^-?\d[\d,]*(\.\d+)?%?( [A-Za-z]{1,12})?$/.test(td.textContent.trim()));
const lines = td => { const r = document.createRange(); r.selectNodeContents(td);
  return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; };
const instead = document.querySelector(".phone-only");
// Line breaks inside an element's text that fall elsewhere than after a hyphen: mid-word.
const midWordBreaks = el => { const text = el.firstChild; if (!text || text.nodeType !== 3) return 0;
  const r = document.createRange(); let previous = null, breaks = 0;
  for (let i = 0; i < text.length; i++) { r.setStart(text, i); r.setEnd(text, i + 1);
    const top = Math.round(r.getBoundingClientRect().top);
    if (previous !== null && top > previous && text.data[i - 1] !== "-") breaks++;
    previous = top; }
  return breaks; };
document.body.dataset.measured = JSON.stringify({
  viewport: window.innerWidth, pageWidth: root.scrollWidth, tallestTeamRow: Math.max(...teamRows),
  teams: document.querySelectorAll("h3").length, chartWidth: chart.width, chartRight: chart.right,
  tablesWiderThanTheirBox: boxes.filter(t => t.scrollWidth > t.clientWidth + 1).length,
  numbers: numbers.length, numbersBroken: numbers.filter(td => lines(td) > 1).map(td => td.textContent),
  numbersPastTheirCell: numbers.filter(td => td.scrollWidth > td.clientWidth + 1).map(td => td.textContent),
  chartTableShown: instead ? getComputedStyle(instead).display !== "none" : null,
  emailsBroken: [...document.querySelectorAll("td code")].filter(
    c => /^[^@\s]+@[^@\s]+$/.test(c.textContent) && midWordBreaks(c) > 0).map(c => c.textContent),
});
</script>"""

#: Chromium's window is at least 500 px wide: the page is laid out in a frame of the width wanted,
#: which is its viewport (media queries included), and the frame's measurement copied out.
FRAME = """<!DOCTYPE html><html><body style="margin:0">
<iframe src="{src}" style="width:{width}px;height:{height}px;border:0"
 onload="document.body.dataset.measured = this.contentDocument.body.dataset.measured"></iframe></body></html>"""


def measured(chromium: str, page: Path, width: int, name: str = "report") -> dict:
    probe = page.with_name(f"probe-{width}.html")
    probe.write_text(page.read_text().replace("</body>", MEASURE + "</body>"))
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--allow-file-access-from-files"]
    window = f"--window-size={max(width, 500) + 20},"
    frame = page.with_name(f"frame-{width}.html")
    frame.write_text(FRAME.format(src=probe.name, width=width, height=900))
    dom = subprocess.run(
        [chromium, *flags, window + "900", "--dump-dom", frame.as_uri()], capture_output=True, text=True, timeout=120
    ).stdout
    found = re.search(r'data-measured="([^"]+)"', dom)
    assert found, f"Chromium laid out nothing: {dom[:500]}"
    ARTIFACTS.mkdir(exist_ok=True)
    tall = page.with_name(f"tall-{width}.html")
    tall.write_text(FRAME.format(src=page.name, width=width, height=2400))
    screenshot = ARTIFACTS / f"{name}-{width}px.png"
    subprocess.run(
        [chromium, *flags, window + "2400", f"--screenshot={screenshot}", tall.as_uri()],
        capture_output=True,
        timeout=120,
    )
    return json.loads(found[1].replace("&quot;", '"'))


@pytest.fixture(scope="module")
def twelve_team_page(tmp_path_factory) -> Path:
    page = tmp_path_factory.mktemp("browser") / "report.html"
    page.write_text(render_report(validate_spec(spec_of(LONG_NAMES)), format="html"))
    return page


@pytest.mark.parametrize("width", [1280, 390])
def test_the_report_never_scrolls_sideways_and_each_team_reads_at_a_glance(twelve_team_page, width):
    layout = measured(chromium_or_skip(), twelve_team_page, width)
    assert layout["viewport"] == width
    assert layout["pageWidth"] <= width, layout  # no horizontal scrolling of the page
    assert layout["teams"] == len(LONG_NAMES)  # one section per team
    assert layout["numbers"] > 50 and layout["numbersBroken"] == [], layout
    if width == 1280:
        assert layout["chartRight"] <= width and layout["chartWidth"] > 0.8 * min(width, 900) - 40, layout
        assert layout["chartTableShown"] is False
    else:  # a 900 px chart scaled to a phone is unreadable: its table, just above, stands in
        assert layout["chartWidth"] == 0 and layout["chartTableShown"] is True, layout
    if width == 1280:
        # The old single table gave rows of 300-500 px; a team's chain now fits in short rows.
        assert layout["tallestTeamRow"] < 160, layout
        assert layout["tablesWiderThanTheirBox"] == 0, layout
        assert layout["emailsBroken"] == [], layout  # an address broke mid-word with room to spare
    assert (ARTIFACTS / f"report-{width}px.png").stat().st_size > 10_000


def test_the_chart_names_every_team_in_full_each_in_its_own_colour(twelve_team_page):
    import base64

    page = twelve_team_page.read_text()
    embedded = re.search(r"data:image/svg\+xml;base64,([^\"]+)", page)
    assert embedded, "the page has no chart"
    svg = base64.b64decode(embedded[1]).decode()
    for name in LONG_NAMES:
        assert f">{name}<" in svg, name  # the legend, whole
    fills = re.findall(r"\.color-(\d+)[^{]*\{[^}]*?fill:\s*(#[0-9a-f]{6})", svg)
    colours = {index: fill for index, fill in fills}
    assert len(colours) >= len(LONG_NAMES) + 1
    assert len(set(colours.values())) == len(colours), colours  # no two segments alike


def test_the_page_stays_self_contained_and_printable(twelve_team_page):
    page = twelve_team_page.read_text()
    assert "<script" not in page and not re.search(r'(src|href)="(https?:)?//', page)
    assert "@media print" in page and 'name="viewport"' in page


@pytest.mark.parametrize("teams", [12, 100, 499])
def test_the_markdown_report_fits_in_one_pull_request_comment(teams):
    names = LONG_NAMES if teams == 12 else [f"team-{i:03d}" for i in range(teams)]
    text = render_report(validate_spec(spec_of(names)))
    assert len(text) <= COMMENT_LIMIT, len(text)
    widest = max(line.count(" | ") + 1 for line in text.splitlines() if line.startswith("| "))
    assert widest <= 7, widest  # no table too wide for a comment
    if teams == 12:
        assert all(f"(`{name}`)" in text for name in names), "a report that fits names every team"
    else:
        assert "are in the HTML report" in text


def test_a_large_plan_still_fits_in_one_comment_and_keeps_every_replacement():
    from hyperpod_teams.review.plan_summary import StackPlan

    def change(address, actions):
        return {"address": address, "type": address.split(".")[0], "change": {"actions": actions}}

    creates = [change(f"aws_iam_role.r{i}", ["create"]) for i in range(3000)]
    replaced = change("aws_iam_role.replaced", ["delete", "create"])
    plans = [StackPlan("acme-team-nlp", {"resource_changes": [*creates, replaced]})]
    text = render_report(validate_spec(spec_of(LONG_NAMES)), plans)
    assert len(text) <= COMMENT_LIMIT, len(text)
    assert "`aws_iam_role.replaced`" in text and "and 2950 more, counted above" in text


# --- the chargeback statement ------------------------------------------------------------------


@pytest.fixture(scope="module")
def twelve_team_statement(tmp_path_factory) -> Path:
    """A statement of the twelve long-named teams: a week's report in which some of them ran on
    both types, the cost from an export of the platform."""
    from decimal import Decimal

    from hyperpod_teams.chargeback import compute_statement, render_statement
    from hyperpod_teams.usage_report import read_summary_report
    from tests.test_chargeback import summary_report

    data = spec_of(LONG_NAMES)
    data["cluster"]["name"] = "ml-shared"
    data["cost"] = {"instance_prices_usd": {"ml.p5.48xlarge": 98.32, "ml.c5.4xlarge": 0.82}}
    spec = validate_spec(data)
    rows = [
        f"2026-11-0{day},hyperpod-ns-{name},{name},ml.p5.48xlarge,0.00,0.00,0.00,{100 + 7 * i}.25,{90 + 7 * i}.00,"
        f"10.25,{40 + i}.50,{40 + i}.50,0.00"
        for day in (1, 2)
        for i, name in enumerate(LONG_NAMES[::2])
    ]
    report = read_summary_report(summary_report(rows), "r.csv")
    statement = compute_statement(spec, [report], Decimal("1234567.89"), cost_source="given")
    page = tmp_path_factory.mktemp("statement") / "statement.html"
    page.write_text(render_statement(statement, format="html"))
    return page


@pytest.mark.parametrize("width", [1280, 390])
def test_the_statement_reads_on_a_desktop_and_a_phone_numbers_whole(twelve_team_statement, width):
    layout = measured(chromium_or_skip(), twelve_team_statement, width, name="statement")
    assert layout["pageWidth"] <= width, layout  # never scrolls sideways
    assert layout["numbers"] > 40 and layout["numbersBroken"] == [], layout  # "1,234,567.89" on one line
    assert layout["numbersPastTheirCell"] == [], layout
    if width == 1280:
        assert layout["chartWidth"] >= 720 and layout["chartRight"] <= width, layout
        assert layout["chartTableShown"] is False
    else:
        assert layout["chartWidth"] == 0 and layout["chartTableShown"] is True, layout


def test_the_statements_chart_names_every_team_and_its_legend_whole(twelve_team_statement):
    """pygal cuts a name that does not fit its space with an ellipsis, and draws a legend beside
    the plot where the page's width cuts it: every name whole, the legend inside the picture."""
    import base64

    page = twelve_team_statement.read_text()
    embedded = re.search(r"data:image/svg\+xml;base64,([^\"]+)", page)
    assert embedded, "the statement has no chart"
    svg = base64.b64decode(embedded[1]).decode()
    assert "\u2026" not in svg and "..." not in svg  # nothing truncated
    for name in LONG_NAMES:
        assert f">{name}<" in svg, name
    box = re.search(r'<svg[^>]*viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
    legend = re.search(r'translate\(([\d.]+), ([\d.]+)\)" class="legends"', svg)
    assert box and legend, "no viewBox or no legend under the chart"
    width, height = (float(v) for v in box.groups())
    x, y = (float(v) for v in legend.groups())
    labels = re.findall(r'<text x="([\d.]+)" y="[\d.]+">(own use|share of idle capacity)</text>', svg)
    assert len(labels) == 2
    # Inside the picture: below the plot, above its lower edge, every label's end within its width
    # (14 px sans-serif: under 9 px a character).
    assert y + 20 <= height, (y, height)
    assert all(x + float(at) + 9 * len(text) <= width for at, text in labels), (x, labels)
