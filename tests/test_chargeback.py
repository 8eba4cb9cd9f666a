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
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hyperpod_teams.review import chargeback
from hyperpod_teams.spec import validate_spec
from hyperpod_teams.usage_report import UsageReportError, read_summary_report
from tests.conftest import _quickstart_data

HEADER_ROWS = (
    ",,,Instance,NeuronCore,,,GPU,,,vCPU,,\n"
    "Date,Namespace,Team,Type,Total utilization (hours),Allocated utilization (hours),Borrowed utilization (hours),"
    "Total utilization (hours),Allocated utilization (hours),Borrowed utilization (hours),"
    "Total utilization (hours),Allocated utilization (hours),Borrowed utilization (hours)\n"
)


def summary_report(rows: list[str], *, start="2026-11-01", end="2026-11-02", missing: list[str] = ()) -> str:
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
    return quickstart_data


@pytest.fixture
def spec(spec_data):
    return validate_spec(spec_data)


def statement_of(spec, rows=TWO_DAYS, cost="10000.00", **report):
    return chargeback.compute_statement(
        spec, [read_summary_report(summary_report(rows, **report), "r.csv")], Decimal(cost)
    )


def test_statement_of_a_two_day_report_matches_the_hand_computed_amounts(spec):
    """By hand. Worth: p5 2 nodes x 8 GPUs = 16, trn1 1 x 16 chips = 16, c5 no accelerators = 0;
    so of 10,000 USD the p5 nodes cost 5,000, the trn1 node 5,000, the c5 node nothing.
    Capacity over 48 h: p5 2 x 8 x 48 = 768 GPU hours; trn1 32 x 48 = 1,536 NeuronCore hours.
    nlp used 192 + 96 = 288 p5 GPU hours: 5,000 x 288 / 768 = 1,875.00.
    vision used 768 NeuronCore hours (5,000 x 768 / 1,536 = 2,500) and 96 p5 GPU hours (625): 3,125.00.
    research used c5 vCPU hours, which cost nothing: 0.
    Unused: 10,000 - 5,000 = 5,000 (idle p5 hours, the namespace `default`'s 48 GPU hours, idle trn1).
    Quota split: nlp 8 GPUs, vision 16 chips, research none: 33.33 % / 66.67 % (largest remainder),
    so idle 1,666.50 to nlp and 3,333.50 to vision.
    Totals: nlp 3,541.50, vision 6,458.50, research 0.00; they sum to 10,000.00."""
    statement = statement_of(spec)
    amounts = {c.team: (c.usage_usd, c.idle_usd, c.amount_usd) for c in statement.teams}
    assert amounts == {
        "nlp": (Decimal("1875.00"), Decimal("1666.50"), Decimal("3541.50")),
        "research": (Decimal("0.00"), Decimal("0"), Decimal("0.00")),
        "vision": (Decimal("3125.00"), Decimal("3333.50"), Decimal("6458.50")),
    }
    assert statement.unused_usd == Decimal("5000.00")
    hours = {c.team: c.hours for c in statement.teams}
    assert hours["nlp"] == {"ml.p5.48xlarge": (Decimal("256.00"), Decimal("32.00"))}
    assert hours["vision"] == {
        "ml.p5.48xlarge": (Decimal("48.00"), Decimal("48.00")),
        "ml.trn1.32xlarge": (Decimal("768.00"), Decimal("0.00")),
    }
    assert hours["research"] == {"ml.c5.4xlarge": (Decimal("0.00"), Decimal("100.00"))}


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
    assert sum(c.amount_usd for c in statement.teams) == Decimal("10000.00")


def test_amounts_sum_exactly_to_the_cost_when_cents_do_not_divide(quickstart_data):
    """100.00 USD, no use, split evenly in three: 33.34 + 33.33 + 33.33, the cent to `nlp`, the
    team named first (the rounding rule's tie-break)."""
    quickstart_data["cost"] = {"shared_split": "even"}
    statement = statement_of(validate_spec(quickstart_data), rows=[], cost="100.00")
    assert [(c.team, c.amount_usd) for c in statement.teams] == [
        ("nlp", Decimal("33.34")),
        ("research", Decimal("33.33")),
        ("vision", Decimal("33.33")),
    ]


@settings(max_examples=60, deadline=None)
@given(
    cost=st.decimals(min_value=0, max_value=10**7, places=2),
    hours=st.lists(st.integers(min_value=0, max_value=800), min_size=3, max_size=3),
    split=st.sampled_from(["quota", "proportional", "even"]),
)
def test_any_statement_sums_exactly_to_the_cost(cost, hours, split):
    quickstart_data = copy.deepcopy(_quickstart_data())
    quickstart_data["cost"] = {"shared_split": split}
    rows = [
        f"2026-11-01,hyperpod-ns-{team},{team},ml.p5.48xlarge,0,0,0,{h},{h},0,0,0,0"
        for team, h in zip(("nlp", "vision", "research"), hours, strict=True)
    ]
    statement = statement_of(validate_spec(quickstart_data), rows, cost=str(cost), start="2026-11-01", end="2026-11-30")
    assert sum(c.amount_usd for c in statement.teams) == cost
    assert all(c.amount_usd >= 0 for c in statement.teams)


def test_csv_statement_has_a_header_and_one_row_per_team(spec):
    rows = list(csv.DictReader(io.StringIO(chargeback.render_statement(statement_of(spec), format="csv"))))
    assert [r["team"] for r in rows] == ["nlp", "research", "vision"]
    assert sum(Decimal(r["amount_usd"]) for r in rows) == Decimal("10000.00")
    # 3,541.50 and 6,458.50 of 10,000: 35.415 % and 64.585 %, cut to 35.41 and 64.58, the last
    # hundredth to the larger cut (a tie: to the team named first), so the shares sum to 100.
    assert [r["share_percent"] for r in rows] == ["35.42", "0.00", "64.58"]
    assert rows[0]["ml.p5.48xlarge borrowed hours"] == "32.00"


def test_html_statement_is_one_page_with_a_chart_and_no_script(spec):
    page = chargeback.render_statement(statement_of(spec), format="html")
    assert page.startswith("<!DOCTYPE html>") and "data:image/svg+xml;base64," in page
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org", "")


def test_legacy_cur_export_sums_the_shared_platforms_lines_in_the_period():
    """By hand: the two tagged lines in November (100.25 + 0.75); the untagged line and the
    tagged one of October are left out."""
    export = (
        "identity/LineItemId,lineItem/UsageStartDate,lineItem/UnblendedCost,resourceTags/user:hyperpod-teams:platform\n"
        "a,2026-11-01T00:00:00Z,100.25,shared\n"
        "b,2026-11-02T13:00:00Z,0.75,shared\n"
        "c,2026-11-01T00:00:00Z,999,\n"
        "d,2026-10-31T23:00:00Z,50,shared\n"
    )
    from datetime import date

    found = chargeback.read_cost_export(export, "cur.csv", date(2026, 11, 1), date(2026, 11, 2))
    assert (found.amount, found.lines_used, found.lines_read) == (Decimal("101.00"), 2, 4)


def test_cur_2_export_reads_the_tag_from_the_resource_tags_map():
    export = (
        "line_item_usage_start_date,line_item_unblended_cost,resource_tags\n"
        '2026-11-01 00:00:00,10.5,"{""user_hyperpod_teams_platform"": ""shared""}"\n'
        '2026-11-01 00:00:00,7,"{""user_team"": ""nlp""}"\n'
    )
    from datetime import date

    found = chargeback.read_cost_export(export, "cur2.csv", date(2026, 11, 1), date(2026, 11, 2))
    assert found.amount == Decimal("10.5")


def test_cost_explorer_download_sums_the_total_column_of_the_periods_days():
    """The console's layout (grouping column, a column per value, Total costs($), a total row, a
    row per day; empty cells for nothing). By hand: 1,100 + 1,210; the total row and October left out."""
    export = (
        '"Service","SageMaker($)","EC2-Other($)","Total costs($)"\n'
        '"Service total","3300","330","3630"\n'
        '"2026-10-31","1000","","1000"\n'
        '"2026-11-01","1000","100","1100"\n'
        '"2026-11-02","1100","110","1210"\n'
    )
    from datetime import date

    found = chargeback.read_cost_export(export, "ce.csv", date(2026, 11, 1), date(2026, 11, 2))
    assert (found.amount, found.lines_used) == (Decimal("2310"), 2)
    assert "filtered to the cost category value shared-platform" in found.how


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
    split = chargeback.compute_statement(spec, reports, Decimal("10000.00"))
    whole = statement_of(spec)
    assert split.days == 2
    assert [c.amount_usd for c in split.teams] == [c.amount_usd for c in whole.teams]


# --- the command ------------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hyperpod_teams", *args], capture_output=True, text=True, timeout=60)


def test_chargeback_command_writes_a_csv_whose_amounts_sum_to_the_cost(tmp_path: Path, spec_data):
    spec_file = tmp_path / "teams.json"
    spec_file.write_text(json.dumps(spec_data))
    report = tmp_path / "summary.csv"
    report.write_text(summary_report(TWO_DAYS))
    result = run_cli("chargeback", str(spec_file), "--usage", str(report), "--cost", "10,000.00", "--format", "csv")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert {r["team"]: r["amount_usd"] for r in rows} == {"nlp": "3541.50", "research": "0.00", "vision": "6458.50"}


@pytest.mark.parametrize(
    "extra, words",
    [
        ([], "exactly one of --cost USD and --cost-from"),
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
