"""`hyperpod-teams chargeback`: a statement from HyperPod's summary usage reports and the cluster's
cost. The reports below are written the way the official generator writes them
(awslabs/sagemaker-hyperpod-usage-report, report_generation/.../csv_generator.py: its header
lines, its two header rows, two decimals per hours cell), and the expected amounts are worked out
by hand in the comments, not by the code under test."""

from __future__ import annotations

import copy
import csv
import io
import json
import subprocess
import sys
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from hyperpod_teams import chargeback
from hyperpod_teams.spec import validate_spec
from hyperpod_teams.usage_report import UsageReportError, read_summary_report
from tests.conftest import _quickstart_data

HEADER_ROWS = (
    ",,,Instance,NeuronCore,,,GPU,,,vCPU,,\n"
    "Date,Namespace,Team,Type,Total utilization (hours),Allocated utilization (hours),Borrowed utilization (hours),"
    "Total utilization (hours),Allocated utilization (hours),Borrowed utilization (hours),"
    "Total utilization (hours),Allocated utilization (hours),Borrowed utilization (hours)\n"
)


def summary_report(rows: list[str], *, start="2026-11-01", end="2026-11-02", missing: Sequence[str] = ()) -> str:
    lines = [
        "Amazon SageMaker HyperPod",
        "Cluster Name: ml-shared",
        "Report Type: Summary Utilization Report",
        "Report Date Generated: 2026-11-03",
        f"Report Date Range (UTC): {start} to {end}",
    ]
    if missing:
        lines += ["Missing data periods", *missing]
    return "\n".join(lines) + "\n" + HEADER_ROWS + "".join(r + "\n" for r in rows)


#: Two days of a cluster of 2 ml.p5.48xlarge (8 GPUs each), 1 ml.trn1.32xlarge (32 NeuronCores)
#: and 1 ml.c5.4xlarge (16 vCPUs). Columns: NeuronCore, GPU, vCPU, each total/allocated/borrowed.
TWO_DAYS = [
    "2026-11-01,hyperpod-ns-nlp,nlp,ml.p5.48xlarge,0.00,0.00,0.00,192.00,160.00,32.00,500.00,500.00,0.00",
    "2026-11-02,hyperpod-ns-nlp,nlp,ml.p5.48xlarge,0.00,0.00,0.00,96.00,96.00,0.00,200.00,200.00,0.00",
    "2026-11-01,hyperpod-ns-vision,vision,ml.trn1.32xlarge,768.00,768.00,0.00,0.00,0.00,0.00,90.00,90.00,0.00",
    "2026-11-02,hyperpod-ns-vision,vision,ml.p5.48xlarge,0.00,0.00,0.00,96.00,48.00,48.00,40.00,20.00,20.00",
    "2026-11-02,default,,ml.p5.48xlarge,0.00,0.00,0.00,48.00,48.00,0.00,10.00,10.00,0.00",
    "2026-11-02,hyperpod-ns-research,research,ml.c5.4xlarge,0.00,0.00,0.00,0.00,0.00,0.00,100.00,0.00,100.00",
]


#: The quickstart's instance types priced (USD per instance-hour, on-demand in us-east-1 as
#: examples; only the ratio matters).
QUICKSTART_PRICES = {"ml.p5.48xlarge": 98.32, "ml.c5.4xlarge": 0.82}

#: USD per instance-hour: only their ratio matters (each type's part of a cost given as one sum).
PRICES = {"ml.p5.48xlarge": 40, "ml.trn1.32xlarge": 20, "ml.c5.4xlarge": 10}


@pytest.fixture
def spec_data(quickstart_data):
    quickstart_data["cluster"]["instance_groups"] = [
        {"name": "gpu", "instance_type": "ml.p5.48xlarge", "count": 2},
        {"name": "trn", "instance_type": "ml.trn1.32xlarge", "count": 1},
        {"name": "cpu", "instance_type": "ml.c5.4xlarge", "count": 1},
    ]
    teams = {t["name"]: t for t in quickstart_data["teams"]}
    teams["nlp"]["compute"]["quota"] = [{"instance_type": "ml.p5.48xlarge", "count": 1}]
    teams["vision"]["compute"]["quota"] = [{"instance_type": "ml.trn1.32xlarge", "count": 1}]
    teams["research"]["compute"]["quota"] = [{"instance_type": "ml.c5.4xlarge", "count": 1}]
    quickstart_data.setdefault("cost", {})["instance_prices_usd"] = dict(PRICES)
    return quickstart_data


@pytest.fixture
def spec(spec_data):
    return validate_spec(spec_data)


def statement_of(spec, rows=TWO_DAYS, cost="11000.00", **report):
    return chargeback.compute_statement(
        spec, [read_summary_report(summary_report(rows, **report), "r.csv")], Decimal(cost)
    )


def test_statement_of_a_two_day_report_matches_the_hand_computed_amounts(spec):
    """By hand. Worth (priced): p5 2 nodes x 40 = 80, trn1 1 x 20, c5 1 x 10, of 110; so of
    11,000 USD the p5 nodes cost 8,000, the trn1 node 2,000, the c5 node 1,000.
    Capacity over 48 h: p5 2 x 8 x 48 = 768 GPU hours; trn1 32 x 48 = 1,536 NeuronCore hours;
    c5 16 vCPUs x 48 = 768 vCPU hours.
    nlp used 192 + 96 = 288 p5 GPU hours: 8,000 x 288 / 768 = 3,000.
    vision used 96 p5 GPU hours (1,000) and 768 NeuronCore hours (2,000 x 768 / 1,536 = 1,000): 2,000.
    research used 100 c5 vCPU hours: 1,000 x 100 / 768 = 130.208333...
    Unused: 11,000 - 5,130.208333... = 5,869.791666... (idle hours, and `default`'s 48 GPU hours).
    Quota split by price: nlp 40, vision 20, research 10 of 70: 57.14 / 28.57 / 14.28 cut, the
    missing 0.01 to research (largest remainder): 57.14 / 28.57 / 14.29 %.
    Exact amounts: nlp 3,000 + 5,869.7916 x 0.5714 = 6,353.99895..., vision 2,000 + 1,676.99948...
    = 3,676.99948..., research 130.20833 + 838.79323 = 969.00156...; rounded once, to cents by
    largest remainder: the two missing cents to vision (.00948) and nlp (.00896): 6,354.00,
    3,677.00, 969.00. The own-use parts, rounded: 3,000.00, 2,000.00, 130.21; the idle shares are
    the rest: 3,354.00, 1,677.00, 838.79."""
    statement = statement_of(spec)
    amounts = {c.team: (c.usage, c.idle, c.amount) for c in statement.teams}
    assert amounts == {
        "nlp": (Decimal("3000.00"), Decimal("3354.00"), Decimal("6354.00")),
        "research": (Decimal("130.21"), Decimal("838.79"), Decimal("969.00")),
        "vision": (Decimal("2000.00"), Decimal("1677.00"), Decimal("3677.00")),
    }
    assert statement.unused == Decimal("5869.79")
    hours = {c.team: c.hours for c in statement.teams}
    assert hours["nlp"] == {"ml.p5.48xlarge": (Decimal("288.00"), Decimal("256.00"), Decimal("32.00"))}
    assert hours["vision"] == {
        "ml.p5.48xlarge": (Decimal("96.00"), Decimal("48.00"), Decimal("48.00")),
        "ml.trn1.32xlarge": (Decimal("768.00"), Decimal("768.00"), Decimal("0.00")),
    }
    assert hours["research"] == {"ml.c5.4xlarge": (Decimal("100.00"), Decimal("0.00"), Decimal("100.00"))}


def test_rows_of_a_namespace_that_is_no_team_are_listed_not_dropped(spec):
    statement = statement_of(spec)
    (note,) = [n for n in statement.notes if "default" in n]
    assert "ml.p5.48xlarge" in note and "48 hours" in note and "charged like idle capacity" in note
    markdown = chargeback.render_statement(statement)
    assert "namespaces of no team" in markdown


def test_missing_data_periods_are_reported(spec):
    statement = statement_of(spec, missing=["2026-11-02 03:00:00 to 2026-11-02 05:00:00"])
    assert any("2026-11-02 03:00:00 to 2026-11-02 05:00:00" in n for n in statement.notes)


def test_hours_of_an_instance_type_no_group_has_are_reported(spec):
    rows = [*TWO_DAYS, "2026-11-01,hyperpod-ns-nlp,nlp,ml.g5.xlarge,0.00,0.00,0.00,5.00,5.00,0.00,0.00,0.00,0.00"]
    statement = statement_of(spec, rows)
    assert any(n.startswith("ml.g5.xlarge: 5 hours") and "no instance group" in n for n in statement.notes)
    assert sum(c.amount for c in statement.teams) == Decimal("11000.00")


def test_amounts_sum_exactly_to_the_cost_when_cents_do_not_divide(quickstart_data):
    """100.00 USD, no use, split evenly in three: 33.34 + 33.33 + 33.33, the cent to `nlp`, the
    team named first (the rounding rule's tie-break)."""
    quickstart_data["cost"] = {"shared_split": "even", "instance_prices_usd": QUICKSTART_PRICES}
    statement = statement_of(validate_spec(quickstart_data), rows=[], cost="100.00")
    assert [(c.team, c.amount) for c in statement.teams] == [
        ("nlp", Decimal("33.34")),
        ("research", Decimal("33.33")),
        ("vision", Decimal("33.33")),
    ]


@settings(max_examples=60, deadline=None)
@given(
    cost=st.decimals(min_value=0, max_value=10**7, places=2),
    # Within a day's capacity of the quickstart's 8 p5 nodes (1,536 GPU hours): 3 x 500.
    hours=st.lists(st.integers(min_value=0, max_value=500), min_size=3, max_size=3),
    split=st.sampled_from(["quota", "proportional", "even"]),
)
def test_any_statement_sums_exactly_to_the_cost(cost, hours, split):
    quickstart_data = copy.deepcopy(_quickstart_data())
    quickstart_data["cost"] = {"shared_split": split, "instance_prices_usd": QUICKSTART_PRICES}
    rows = [
        f"2026-11-01,hyperpod-ns-{team},{team},ml.p5.48xlarge,0,0,0,{h},{h},0,0,0,0"
        for team, h in zip(("nlp", "vision", "research"), hours, strict=True)
    ]
    statement = statement_of(validate_spec(quickstart_data), rows, cost=str(cost), start="2026-11-01", end="2026-11-30")
    assert sum(c.amount for c in statement.teams) == cost
    assert all(c.amount >= 0 for c in statement.teams)


def test_csv_statement_has_a_header_and_one_row_per_team(spec):
    rows = list(csv.DictReader(io.StringIO(chargeback.render_statement(statement_of(spec), format="csv"))))
    assert [r["team"] for r in rows] == ["nlp", "research", "vision"]
    assert sum(Decimal(r["amount_usd"]) for r in rows) == Decimal("11000.00")
    # 6,354, 969 and 3,677 of 11,000: 57.7636 %, 8.8090 % and 33.4272 %, cut to 57.76, 8.80 and
    # 33.42; the two hundredths missing to the largest cuts (research .0090, vision .0072).
    assert [r["share_percent"] for r in rows] == ["57.76", "8.81", "33.43"]
    assert rows[0]["ml.p5.48xlarge borrowed hours"] == "32.00"
    assert rows[0]["ml.p5.48xlarge charged hours"] == "288.00"
    # Zeros as every other amount: two decimals.
    assert rows[0]["ml.c5.4xlarge allocated hours"] == "0.00" and rows[1]["ml.p5.48xlarge charged hours"] == "0.00"


def test_html_statement_is_one_page_with_a_chart_and_no_script(spec):
    page = chargeback.render_statement(statement_of(spec), format="html")
    assert page.startswith("<!DOCTYPE html>") and "data:image/svg+xml;base64," in page
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org", "")


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("team,amount\nnlp,3\n", 1, "not a HyperPod usage report"),
        (summary_report(TWO_DAYS).replace("Summary Utilization", "Detailed Utilization"), 3, "summary reports"),
        (summary_report(["2026-11-01,hyperpod-ns-nlp,nlp,ml.p5.48xlarge,1,1,0"]), 8, "7 columns"),
        (summary_report(["2026-11-01,hyperpod-ns-nlp,nlp,ml.p5.48xlarge,0,0,0,x,0,0,0,0,0"]), 8, "is not a number"),
        (summary_report(["2026-12-24,hyperpod-ns-nlp,nlp,ml.p5.48xlarge,0,0,0,1,1,0,0,0,0"]), 8, "outside"),
    ],
)
def test_a_malformed_report_names_its_line(text, line, words):
    with pytest.raises(UsageReportError) as raised:
        read_summary_report(text, "r.csv")
    assert f"r.csv, line {line}:" in str(raised.value) and words in str(raised.value)


def test_overlapping_reports_are_refused(spec):
    first = read_summary_report(summary_report(TWO_DAYS), "a.csv")
    second = read_summary_report(summary_report([], start="2026-11-02", end="2026-11-03"), "b.csv")
    with pytest.raises(chargeback.ChargebackError, match="overlaps"):
        chargeback.compute_statement(spec, [first, second], Decimal(1))


def test_consecutive_reports_make_one_period_with_the_same_amounts(spec):
    day_one = [r for r in TWO_DAYS if r.startswith("2026-11-01")]
    day_two = [r for r in TWO_DAYS if r.startswith("2026-11-02")]
    reports = [
        read_summary_report(summary_report(day_two, start="2026-11-02", end="2026-11-02"), "b.csv"),
        read_summary_report(summary_report(day_one, start="2026-11-01", end="2026-11-01"), "a.csv"),
    ]
    split = chargeback.compute_statement(spec, reports, Decimal("11000.00"))
    whole = statement_of(spec)
    assert split.days == 2
    assert [c.amount for c in split.teams] == [c.amount for c in whole.teams]


# --- the command ------------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hyperpod_teams", *args], capture_output=True, text=True, timeout=60)


def test_chargeback_command_writes_a_csv_whose_amounts_sum_to_the_cost(tmp_path: Path, spec_data):
    spec_file = tmp_path / "teams.json"
    spec_file.write_text(json.dumps(spec_data))
    report = tmp_path / "summary.csv"
    report.write_text(summary_report(TWO_DAYS))
    result = run_cli("chargeback", str(spec_file), "--usage", str(report), "--cost", "11,000.00", "--format", "csv")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert {r["team"]: r["amount_usd"] for r in rows} == {"nlp": "6354.00", "research": "969.00", "vision": "3677.00"}


@pytest.mark.parametrize(
    "extra, words",
    [
        ([], "exactly one of --cost AMOUNT and --cost-from"),
        (["--cost", "lots"], "--cost 'lots' is not an amount"),
        (["--cost", "5", "--cost-from", "x.csv"], "exactly one of"),
    ],
)
def test_chargeback_command_refuses_a_missing_or_bad_cost_with_exit_2(tmp_path, extra, words):
    report = tmp_path / "summary.csv"
    report.write_text(summary_report(TWO_DAYS))
    quickstart = Path(__file__).resolve().parent.parent / "examples" / "quickstart" / "teams.yaml"
    result = run_cli("chargeback", str(quickstart), "--usage", str(report), *extra)
    assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr


def test_chargeback_command_names_the_line_of_a_file_that_is_no_report(tmp_path):
    not_a_report = tmp_path / "costs.csv"
    not_a_report.write_text("Service,Total costs($)\nService total,12\n")
    quickstart = Path(__file__).resolve().parent.parent / "examples" / "quickstart" / "teams.yaml"
    result = run_cli("chargeback", str(quickstart), "--usage", str(not_a_report), "--cost", "1")
    assert result.returncode == 2
    assert f"{not_a_report}, line 1:" in result.stderr and "Traceback" not in result.stderr


# --- the smaller promises ---------------------------------------------------------------------


def test_a_namespace_that_is_no_team_stays_apart_whatever_its_team_column_says(spec):
    """`default` labelled nlp in the Team column is still no team's namespace: charged like idle
    capacity, not merged into nlp (it was)."""
    rows = [*TWO_DAYS[:-2], "2026-11-02,default,nlp,ml.p5.48xlarge,0.00,0.00,0.00,48.00,48.00,0.00,10.00,10.00,0.00"]
    statement = statement_of(spec, rows)
    nlp = next(c for c in statement.teams if c.team == "nlp")
    assert nlp.hours["ml.p5.48xlarge"][0] == Decimal("288.00")
    assert any("(default)" in n and "charged like idle capacity" in n for n in statement.notes)


def test_two_rows_differing_only_in_their_team_column_both_count(spec):
    """The generator groups by date, namespace, team and instance type: a namespace whose team
    label changed during a day has two rows. Both are its hours (they were refused)."""
    rows = [
        "2026-11-01,hyperpod-ns-nlp,nlp,ml.p5.48xlarge,0.00,0.00,0.00,10.00,10.00,0.00,0.00,0.00,0.00",
        "2026-11-01,hyperpod-ns-nlp,,ml.p5.48xlarge,0.00,0.00,0.00,5.00,5.00,0.00,0.00,0.00,0.00",
    ]
    statement = statement_of(spec, rows)
    nlp = next(c for c in statement.teams if c.team == "nlp")
    assert nlp.hours["ml.p5.48xlarge"][0] == Decimal("15.00")
    other_hours = rows[0].replace("10.00,10.00", "12.00,12.00")
    with pytest.raises(chargeback.ChargebackError, match="same date, namespace, team and instance type.*other hours"):
        statement_of(spec, [rows[0], other_hours])


def test_the_hours_charged_reconcile_with_the_capacity_table(spec):
    """Per instance type, the teams' charged hours and the no-team namespaces' make the "used"
    hours of the capacity table, and used + idle the capacity."""
    statement = statement_of(spec)
    for use in statement.instance_types:
        charged = sum((c.hours[use.instance_type][0] for c in statement.teams if use.instance_type in c.hours),
                      Decimal(0))  # fmt: skip
        assert charged + use.other_hours == sum(use.used_hours.values(), Decimal(0)) + use.other_hours
        assert charged + use.other_hours + use.idle_hours == use.capacity_hours


def test_the_generators_detailed_and_filtered_reports_are_refused_and_its_consecutive_weeks_joined(spec_data):
    reports = Path(__file__).resolve().parent / "data" / "usage-reports"
    with pytest.raises(UsageReportError, match="summary"):
        read_summary_report((reports / "detailed--detailed-report-2026-11-01-2026-11-07.csv").read_text(), "d.csv")
    initech = validate_spec(yaml.safe_load((reports / "teams.yaml").read_text()))
    filtered = read_summary_report(
        (reports / "filtered--summary-report-2026-11-01-2026-11-07-hyperpod-ns-nlp.csv").read_text(), "f.csv"
    )
    with pytest.raises(chargeback.ChargebackError, match="is filtered"):
        chargeback.compute_statement(initech, [filtered], Decimal(1))
    weeks = [
        read_summary_report((reports / name).read_text(), name)
        for name in ("b--summary-report-2026-11-08-2026-11-14.csv", "a--summary-report-2026-11-01-2026-11-07.csv")
    ]
    priced = validate_spec(
        {**yaml.safe_load((reports / "teams.yaml").read_text()), "cost": {"instance_prices_usd": PRICES}}
    )
    statement = chargeback.compute_statement(priced, weeks, Decimal("99999.99"))
    assert (statement.first_day.isoformat(), statement.days) == ("2026-11-01", 14)
    assert sum(c.amount for c in statement.teams) == Decimal("99999.99")


def test_each_amount_is_rounded_once_so_the_cent_goes_to_the_team_that_used_the_cluster(quickstart_data):
    """By hand: 1.00 USD for a day of one ml.p5.48xlarge (8 GPUs: 192 GPU hours), split evenly;
    vision used 0.64 GPU hours. Exact amounts: vision 1.00 x 0.64 / 192 = 0.003333 for its use
    plus a third of the 0.996667 idle, 0.335556; nlp and research 0.332222 each. Rounded once,
    the cents cut to 0.33 each leave one cent, which goes to the largest remainder: vision's
    (0.005556). Rounding the use first (vision 0.00, idle 1.00) and then the idle thirds gave that
    cent to nlp, the team named first, which used nothing."""
    quickstart_data["cluster"]["instance_groups"] = [{"name": "gpu", "instance_type": "ml.p5.48xlarge", "count": 1}]
    for team in quickstart_data["teams"]:
        team["compute"]["quota"] = [{"instance_type": "ml.p5.48xlarge", "count": 1}] if team["name"] == "nlp" else []
    quickstart_data["cost"] = {"shared_split": "even"}
    row = "2026-11-01,hyperpod-ns-vision,vision,ml.p5.48xlarge,0.00,0.00,0.00,0.64,0.64,0.00,0.00,0.00,0.00"
    statement = statement_of(validate_spec(quickstart_data), [row], cost="1.00", end="2026-11-01")
    assert {c.team: c.amount for c in statement.teams} == {
        "nlp": Decimal("0.33"),
        "research": Decimal("0.33"),
        "vision": Decimal("0.34"),
    }


def test_more_hours_than_the_nodes_give_in_a_day_are_refused_at_the_row(spec):
    """The c5 node gives 16 vCPUs x 24 h = 384 vCPU hours a day; a row of 1,000 on one day is a
    report of another cluster or a broken one: charging it would move the cost to whoever it
    names (a row of 1e308 GPU hours made one team pay 80 %). Refused, naming the row."""
    rows = [
        "2026-11-01,hyperpod-ns-research,research,ml.c5.4xlarge,0.00,0.00,0.00,0.00,0.00,0.00,1000.00,1000.00,0.00",
        "2026-11-01,default,,ml.c5.4xlarge,0.00,0.00,0.00,0.00,0.00,0.00,536.00,536.00,0.00",
    ]
    with pytest.raises(
        chargeback.ChargebackError, match=r"1,000.00 vCPU hours of ml.c5.4xlarge on 2026-11-01"
    ) as refused:
        statement_of(spec, rows)
    assert "more than its 1 node give in a day (384.00)" in str(refused.value)
    huge = ["2026-11-01,hyperpod-ns-nlp,nlp,ml.p5.48xlarge,0,0,0,1e308,1e308,0,0,0,0"]
    with pytest.raises(
        UsageReportError, match=r"GPU total hours '1e308' are more than a day of any cluster holds"
    ) as big:
        statement_of(spec, huge)
    assert len(str(big.value)) < 300  # the number as written, not its 309 digits


@given(
    st.lists(st.decimals(min_value=-(10**6), max_value=10**6, places=6, allow_nan=False), min_size=1, max_size=8),
)
def test_a_reconciliations_rounded_parts_add_up_to_their_total_to_the_cent(values):
    """Whatever the parts (credits negative), rounded to cents they sum to their rounded total,
    and each stays within a cent of its exact amount: a table finance adds up by hand agrees."""
    exact = {f"part {i}": v for i, v in enumerate(values)}
    total = sum(values, Decimal(0)).quantize(Decimal("0.01"), rounding="ROUND_HALF_UP")
    rounded = chargeback.compute._rounded_to(exact, total)
    assert sum(rounded.values(), Decimal(0)) == total
    assert all(abs(rounded[k] - exact[k]) < Decimal("0.02") for k in exact)


def test_the_csv_sidecar_and_the_workbook_keep_the_total_and_the_hours_of_no_team(spec, tmp_path):
    """The Markdown statement's total row and its hours of namespaces of no team (48 p5 GPU hours of
    `default`) were in neither the CSV's sidecar nor the workbook; the notes were on a sheet read last."""
    import json as json_module

    openpyxl = pytest.importorskip("openpyxl")
    statement = statement_of(spec)
    sidecar = json_module.loads(chargeback.statement_metadata(statement))
    assert sidecar["total"]["amount"] == f"{statement.cost:.2f}"
    assert sidecar["hours_of_no_team"] == {"ml.p5.48xlarge": "48.00"}
    path = tmp_path / "s.xlsx"
    path.write_bytes(chargeback.statement_xlsx(statement))
    book = openpyxl.load_workbook(path)
    hours = [row for row in book["Hours"].iter_rows(values_only=True) if row[1] == "namespaces of no team"]
    assert hours == [("ml.p5.48xlarge", "namespaces of no team", 48.0, None, None)]
    first = [row[0] for row in book["Statement"].iter_rows(values_only=True)]
    assert "things to check before sending" in first
    assert all(note in first for note in statement.notes)
