"""Chargeback over several clusters (#61): `hyperpod-teams chargeback` of a spec with `clusters`, the
usage reports of each cluster and each cluster's cost (given, or read from one payer export at each
cluster's account and Region) gives one statement: a line per team and cluster, each cluster's
lines reconciled to that cluster's cost. Judged against each cluster charged on its own, as a
one-cluster spec written here by hand (the one-cluster statement is held to hand-computed amounts
in tests/test_chargeback.py), and to the cent against the costs."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from tests.test_chargeback import HEADER_ROWS

TWO_CLUSTERS = Path(__file__).parent / "data" / "specs" / "two-clusters.yaml"

#: Two days of each cluster. train: 8 ml.p5.48xlarge (8 GPUs each: 3,072 GPU hours) and 4
#: ml.c5.4xlarge (16 vCPUs each: 3,072 vCPU hours); infer: 4 ml.g6e.12xlarge (4 GPUs: 768 GPU hours).
TRAIN_ROWS = [
    "2026-11-01,hyperpod-ns-nlp,nlp,ml.p5.48xlarge,0.00,0.00,0.00,600.00,500.00,100.00,10.00,10.00,0.00",
    "2026-11-02,hyperpod-ns-nlp,nlp,ml.p5.48xlarge,0.00,0.00,0.00,400.00,400.00,0.00,10.00,10.00,0.00",
    "2026-11-01,hyperpod-ns-vision,vision,ml.p5.48xlarge,0.00,0.00,0.00,500.00,500.00,0.00,5.00,5.00,0.00",
    "2026-11-02,hyperpod-ns-nlp,nlp,ml.c5.4xlarge,0.00,0.00,0.00,0.00,0.00,0.00,200.00,200.00,0.00",
]
INFER_ROWS = [
    "2026-11-01,hyperpod-ns-nlp,nlp,ml.g6e.12xlarge,0.00,0.00,0.00,300.00,192.00,108.00,0.00,0.00,0.00",
    "2026-11-02,hyperpod-ns-research,research,ml.g6e.12xlarge,0.00,0.00,0.00,100.00,96.00,4.00,0.00,0.00,0.00",
]
COSTS = {"train": "61234.57", "infer": "1999.99"}


def report(cluster: str, rows: list[str]) -> str:
    return (
        "Amazon SageMaker HyperPod\n"
        f"Cluster Name: {cluster}\n"
        "Report Type: Summary Utilization Report\n"
        "Report Date Generated: 2026-11-03\n"
        "Report Date Range (UTC): 2026-11-01 to 2026-11-02\n" + HEADER_ROWS + "".join(r + "\n" for r in rows)
    )


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "chargeback", *args], capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("reports")
    paths = {}
    for cluster, rows in (("train", TRAIN_ROWS), ("infer", INFER_ROWS)):
        paths[cluster] = folder / f"{cluster}-summary-report-2026-11-01-2026-11-02.csv"
        paths[cluster].write_text(report(cluster, rows))
    return paths


def one_cluster_spec(folder: Path, cluster: str) -> Path:
    """The spec of one of the clusters alone, written from the file's sections by hand: that
    cluster as `cluster` (in its Region), the teams placed on it with their compute there."""
    data = yaml.safe_load(TWO_CLUSTERS.read_text())
    section = next(c for c in data.pop("clusters") if c["name"] == cluster)
    if "region" in section:
        data["organization"]["region"] = section.pop("region")
    data["cluster"] = section
    teams = []
    for team in data["teams"]:
        placements = team.pop("placements")
        if cluster in placements:
            team["compute"] = placements[cluster]
            team.pop("studio", None)
            teams.append(team)
    data["teams"] = teams
    path = folder / f"{cluster}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_each_clusters_lines_are_its_own_statement_and_a_teams_lines_sum_to_its_charge(reports, tmp_path):
    out = tmp_path / "statement.csv"
    result = run(
        str(TWO_CLUSTERS),
        *(arg for path in reports.values() for arg in ("--usage", str(path))),
        *(arg for cluster, cost in COSTS.items() for arg in ("--cost", f"{cluster}={cost}")),
        "--format",
        "csv",
        "--out",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    rows = csv_rows(out.read_text())
    lines = {(r["team"], r["cluster"]): Decimal(r["amount_usd"]) for r in rows}
    assert set(lines) == {("nlp", "train"), ("nlp", "infer"), ("vision", "train"), ("research", "infer")}
    for cluster, cost in COSTS.items():
        # Each cluster charged on its own, as a spec of that one cluster.
        alone = run(
            str(one_cluster_spec(tmp_path, cluster)),
            "--usage",
            str(reports[cluster]),
            "--cost",
            cost,
            "--format",
            "csv",
        )
        assert alone.returncode == 0, alone.stderr
        expected = {r["team"]: Decimal(r["amount_usd"]) for r in csv_rows(alone.stdout)}
        assert {team: amount for (team, on), amount in lines.items() if on == cluster} == expected
        # Reconciled per cluster, to the cent.
        assert sum(expected.values()) == Decimal(cost)
    metadata = json.loads((tmp_path / "statement.csv.json").read_text())
    totals = {t["team"]: Decimal(t["amount"]) for t in metadata["teams"]}
    assert totals["nlp"] == lines[("nlp", "train")] + lines[("nlp", "infer")]
    assert sum(totals.values()) == Decimal(metadata["cost"]) == sum(Decimal(c) for c in COSTS.values())
    assert {name: m["cost"] for name, m in metadata["clusters"].items()} == COSTS


def test_the_markdown_statement_has_a_line_per_team_and_cluster_and_each_clusters_statement(reports):
    result = run(
        str(TWO_CLUSTERS),
        *(arg for path in reports.values() for arg in ("--usage", str(path))),
        *(arg for cluster, cost in COSTS.items() for arg in ("--cost", f"{cluster}={cost}")),
    )
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert text.startswith("# Chargeback of acme's 2 clusters, 2026-11-01 to 2026-11-02")
    assert "| team | train (USD) | infer (USD) | total (USD) |" in text
    assert "| total | 61,234.57 | 1,999.99 | 63,234.56 |" in text
    assert "## Cluster train: Chargeback of train (acme)" in text and "## Cluster infer:" in text
    # vision is on train only, research on infer only.
    assert "| `research` | — | 579.83 | 579.83 |" in text
    (vision,) = [line for line in text.splitlines() if line.startswith("| `vision` | ")][:1]
    assert vision.split(" | ")[2] == "—"
    # By hand, infer (one instance type): 1,999.99 USD over 4 x 4 GPUs x 48 h = 768 GPU hours. nlp
    # used 300 (781.2461), research 100 (260.4154); idle 958.3285, split by guaranteed quota (2 and 1
    # g6e: 66.67 % and 33.33 %): nlp 638.9176, research 319.4109. Rounded once: 1,420.16 and 579.83.
    (nlp,) = [line for line in text.splitlines() if line.startswith("| Natural Language Processing (`nlp`) | ")][:1]
    train, infer, total = (Decimal(cell.replace(",", "")) for cell in nlp.strip("| ").split(" | ")[1:])
    assert infer == Decimal("1420.16") and total == train + infer


@pytest.mark.parametrize(
    ("costs", "words"),
    [
        (["--cost", "61234.57"], "with several clusters give CLUSTER=AMOUNT"),
        (["--cost", "train=1"], "no cost of infer"),
        (["--cost", "train=1", "--cost", "gpu=2"], "CLUSTER one of train, infer"),
    ],
)
def test_a_cost_not_given_per_cluster_is_refused_naming_the_fix(reports, costs, words):
    result = run(str(TWO_CLUSTERS), *(arg for p in reports.values() for arg in ("--usage", str(p))), *costs)
    assert result.returncode == 2 and words in result.stderr, result.stderr


def test_a_cluster_without_reports_or_a_report_of_no_cluster_is_refused(reports, tmp_path):
    result = run(str(TWO_CLUSTERS), "--usage", str(reports["train"]), "--cost", "train=1", "--cost", "infer=1")
    assert result.returncode == 2 and "no usage report of cluster infer is given" in result.stderr
    other = tmp_path / "other.csv"
    other.write_text(report("ml-shared", INFER_ROWS))
    result = run(
        str(TWO_CLUSTERS),
        "--usage",
        str(reports["train"]),
        "--usage",
        str(other),
        "--cost",
        "train=1",
        "--cost",
        "infer=1",
    )
    assert result.returncode == 2 and "'ml-shared' (its header), which is none of the spec's clusters" in result.stderr


#: A payer's legacy CUR over both clusters' account and Regions, hand-made: each line's cost, the
#: cluster it is of (by its Region), and whether it carries the shared-platform tag.
EXPORT_COLUMNS = [
    "identity/LineItemId",
    "lineItem/LineItemType",
    "lineItem/UsageStartDate",
    "lineItem/UsageEndDate",
    "lineItem/UsageAccountId",
    "product/regionCode",
    "lineItem/UsageType",
    "lineItem/UnblendedCost",
    "product/instanceType",
    "resourceTags/user:hyperpod-teams:platform",
]
EXPORT_LINES = [
    ("a", "Usage", "2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z", "111122223333", "us-west-2",
     "USW2-ml.p5.48xlarge-hours", "18876.00", "ml.p5.48xlarge", "shared"),
    ("b", "Usage", "2026-11-02T00:00:00Z", "2026-11-03T00:00:00Z", "111122223333", "us-west-2",
     "USW2-ml.p5.48xlarge-hours", "18876.01", "ml.p5.48xlarge", "shared"),
    ("c", "Usage", "2026-11-01T00:00:00Z", "2026-11-03T00:00:00Z", "111122223333", "us-west-2",
     "USW2-ml.c5.4xlarge-hours", "157.44", "ml.c5.4xlarge", "shared"),
    ("d", "Usage", "2026-11-01T00:00:00Z", "2026-11-03T00:00:00Z", "111122223333", "us-east-1",
     "USE1-ml.g6e.12xlarge-hours", "2014.08", "ml.g6e.12xlarge", "shared"),
    # Another workload's (untagged) in the training cluster's Region, and a third Region's tagged line.
    ("e", "Usage", "2026-11-01T00:00:00Z", "2026-11-03T00:00:00Z", "111122223333", "us-west-2",
     "USW2-ml.p5.48xlarge-hours", "999.99", "ml.p5.48xlarge", ""),
    ("f", "Usage", "2026-11-01T00:00:00Z", "2026-11-03T00:00:00Z", "111122223333", "eu-west-1",
     "EU-ml.g6e.12xlarge-hours", "123.45", "ml.g6e.12xlarge", "shared"),
]  # fmt: skip
#: By hand: train's lines a, b, c (37,909.45); infer's line d (2,014.08).
EXPORTED = {"train": Decimal("37909.45"), "infer": Decimal("2014.08")}


def test_one_payer_export_gives_each_cluster_the_lines_of_its_account_and_region(reports, tmp_path):
    export = tmp_path / "cur-2026-11.csv"
    with export.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(EXPORT_COLUMNS)
        writer.writerows(EXPORT_LINES)
    out = tmp_path / "statement.csv"
    usage = [arg for path in reports.values() for arg in ("--usage", str(path))]
    result = run(str(TWO_CLUSTERS), *usage, "--cost-from", str(export), "--format", "csv", "--out", str(out))
    assert result.returncode == 0, result.stderr
    metadata = json.loads((tmp_path / "statement.csv.json").read_text())
    assert {name: Decimal(m["cost"]) for name, m in metadata["clusters"].items()} == EXPORTED
    lines = csv_rows(out.read_text())
    for cluster, cost in EXPORTED.items():
        assert sum(Decimal(r["amount_usd"]) for r in lines if r["cluster"] == cluster) == cost
        # The same as that cluster's statement from the same export, charged alone.
        alone = run(
            str(one_cluster_spec(tmp_path, cluster)), "--usage", str(reports[cluster]), "--cost-from", str(export),
            "--format", "csv",
        )  # fmt: skip
        assert alone.returncode == 0, alone.stderr
        expected = {r["team"]: r["amount_usd"] for r in csv_rows(alone.stdout)}
        assert {r["team"]: r["amount_usd"] for r in lines if r["cluster"] == cluster} == expected


def one_region_spec(tmp_path: Path) -> Path:
    """two-clusters.yaml with infer in train's account and Region (us-west-2): their lines differ
    only by the cluster tag the stacks put on every resource of a cluster."""
    data = yaml.safe_load(TWO_CLUSTERS.read_text())
    del data["clusters"][1]["region"]
    spec = tmp_path / "one-region.yaml"
    spec.write_text(yaml.safe_dump(data))
    return spec


#: The export's lines again, all in us-west-2, each with its cluster tag (naming.TAG_CLUSTER) as
#: the stacks set it; and two more shared lines there: one of no cluster (before the tag was
#: activated), one of a cluster the spec does not have.
CLUSTER_TAGGED = [
    (*line[:5], "us-west-2", *line[6:], cluster)
    for line, cluster in zip(EXPORT_LINES[:4], ["train", "train", "train", "infer"], strict=True)
] + [
    ("g", "Usage", "2026-11-01T00:00:00Z", "2026-11-03T00:00:00Z", "111122223333", "us-west-2",
     "USW2-ml.p5.48xlarge-hours", "55.55", "ml.p5.48xlarge", "shared", ""),
    ("h", "Usage", "2026-11-01T00:00:00Z", "2026-11-03T00:00:00Z", "111122223333", "us-west-2",
     "USW2-ml.p5.48xlarge-hours", "66.66", "ml.p5.48xlarge", "shared", "staging"),
]  # fmt: skip


def legacy_cur(path: Path) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow([*EXPORT_COLUMNS, "resourceTags/user:hyperpod-teams:cluster"])
        writer.writerows(CLUSTER_TAGGED)
    return path


def focus(path: Path) -> Path:
    """The same lines as a FOCUS export: the tags in its `Tags` map."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["ChargePeriodStart", "ChargePeriodEnd", "SubAccountId", "RegionId", "x_UsageType",
                         "EffectiveCost", "BilledCost", "ChargeCategory", "Tags"])  # fmt: skip
        for line in CLUSTER_TAGGED:
            tags = {"user:hyperpod-teams:platform": line[9]} if line[9] else {}
            if line[10]:
                tags["user:hyperpod-teams:cluster"] = line[10]
            writer.writerow([*line[2:7], line[7], line[7], "Usage", json.dumps(tags)])
    return path


@pytest.mark.parametrize("export", [legacy_cur, focus], ids=["legacy CUR", "FOCUS"])
def test_two_clusters_in_one_account_and_region_are_told_apart_by_the_cluster_tag(reports, tmp_path, export):
    """Each cluster's cost is the lines tagged with its name (by hand: train's a, b, c; infer's d);
    a shared line of no cluster, or of another, is neither's and is named in the notes. The
    statement is the one of the same costs given by hand."""
    spec = one_region_spec(tmp_path)
    usage = [arg for path in reports.values() for arg in ("--usage", str(path))]
    out = tmp_path / "statement.csv"
    read = run(
        str(spec), *usage, "--cost-from", str(export(tmp_path / "export.csv")), "--format", "csv", "--out", str(out)
    )
    assert read.returncode == 0, read.stderr
    metadata = json.loads((tmp_path / "statement.csv.json").read_text())
    assert {name: Decimal(m["cost"]) for name, m in metadata["clusters"].items()} == EXPORTED
    given = run(str(spec), *usage, *(a for c, cost in EXPORTED.items() for a in ("--cost", f"{c}={cost}")),
                "--format", "csv")  # fmt: skip
    assert given.returncode == 0, given.stderr
    amounts = lambda text: {(r["team"], r["cluster"]): r["amount_usd"] for r in csv_rows(text)}  # noqa: E731
    assert amounts(out.read_text()) == amounts(given.stdout)
    markdown = run(str(spec), *usage, "--cost-from", str(export(tmp_path / "again.csv")))
    assert markdown.returncode == 0, markdown.stderr
    assert "no hyperpod-teams:cluster tag" in markdown.stdout and "cluster staging" in markdown.stdout


def test_two_clusters_in_one_account_and_region_need_the_cluster_tag_in_the_export(reports, tmp_path):
    spec = one_region_spec(tmp_path)
    export = tmp_path / "cur.csv"
    export.write_text(",".join(EXPORT_COLUMNS) + "\n" + ",".join(EXPORT_LINES[0]) + "\n")
    usage = [arg for path in reports.values() for arg in ("--usage", str(path))]
    result = run(str(spec), *usage, "--cost-from", str(export))
    assert result.returncode == 2
    assert "no column of the tag hyperpod-teams:cluster" in result.stderr
    assert "two clusters of the spec run in one account and Region" in result.stderr
    assert "--cost CLUSTER=AMOUNT" in result.stderr


def test_the_workbook_of_several_clusters_has_each_teams_lines_and_each_clusters_sheets(reports, tmp_path):
    """`--format xlsx`, read back with openpyxl: sheet Teams a row per team, its amount on each
    cluster it is placed on (a number in the currency's format; an empty cell where it has no
    placement) and its total, as the CSV's lines give them; then each cluster's four sheets."""
    openpyxl = pytest.importorskip("openpyxl")
    usage = [arg for path in reports.values() for arg in ("--usage", str(path))]
    costs = [arg for cluster, cost in COSTS.items() for arg in ("--cost", f"{cluster}={cost}")]
    out = tmp_path / "statement.xlsx"
    result = run(str(TWO_CLUSTERS), *usage, *costs, "--format", "xlsx", "--out", str(out))
    assert result.returncode == 0, result.stderr
    book = openpyxl.load_workbook(out)
    assert book.sheetnames == [
        "Teams",
        *(f"{c} {s}" for c in ("train", "infer") for s in ("statement", "reconciliation", "hours", "notes")),
    ]
    rows = list(book["Teams"].iter_rows(values_only=False))
    assert [c.value for c in rows[0]] == ["team", "display name", "train", "infer", "total"]
    table = {row[0].value: row for row in rows[1:]}
    lines = csv_rows(run(str(TWO_CLUSTERS), *usage, *costs, "--format", "csv").stdout)
    for row in lines:
        cell = table[row["team"]][2 if row["cluster"] == "train" else 3]
        assert cell.data_type == "n" and '"USD"' in cell.number_format
        assert f"{Decimal(str(cell.value)):.2f}" == row["amount_usd"]
    assert table["vision"][3].value is None and table["research"][2].value is None
    nlp = sum(Decimal(r["amount_usd"]) for r in lines if r["team"] == "nlp")
    assert f"{Decimal(str(table['nlp'][4].value)):.2f}" == f"{nlp:.2f}"
    assert f"{Decimal(str(table['total'][4].value)):.2f}" == f"{sum(Decimal(c) for c in COSTS.values()):.2f}"


def test_a_cost_explorer_download_is_not_divided_among_clusters(reports, tmp_path):
    """A Cost Explorer download is one total: given for two clusters (each in its own Region) it
    would have been each cluster's whole cost, the spend counted twice. Refused, naming the fix."""
    from tests.test_cost_exports import COST_EXPLORER_HEADER

    export = tmp_path / "costs.csv"
    export.write_text(COST_EXPLORER_HEADER + '"2026-11-01","1000","100","1100"\n"2026-11-02","1100","110","1210"\n')
    usage = [arg for path in reports.values() for arg in ("--usage", str(path))]
    result = run(str(TWO_CLUSTERS), *usage, "--cost-from", str(export))
    assert result.returncode == 2, result.stdout[-2000:]
    assert "is a Cost Explorer download" in result.stderr and "cannot be divided among the clusters" in result.stderr
    assert "--cost CLUSTER=AMOUNT" in result.stderr
