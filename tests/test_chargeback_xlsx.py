"""`chargeback --format xlsx`: the statement as a workbook finance opens, read back with openpyxl
(another library than the XlsxWriter that wrote it) the way a spreadsheet reads it: cell types,
number formats, what a formula would be."""

from __future__ import annotations

import json
import sys
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from tests.test_cost_exports import AMORTIZED_TOTAL, INITECH, _focus_in, chargeback

openpyxl = pytest.importorskip("openpyxl")


def _statement_rows(sheet) -> dict[str, list]:
    """The team table of the Statement sheet: team -> its row's cells."""
    rows = list(sheet.iter_rows(values_only=False))
    header = next(i for i, row in enumerate(rows) if row[0].value == "team")
    table = []
    for row in rows[header + 1 :]:
        if not row[0].value:  # the notes follow the table after a blank row
            break
        table.append(row)
    return {row[0].value: row for row in table}


def test_the_workbooks_amounts_are_numbers_in_the_bills_currency_and_add_up(tmp_path):
    """A EUR export: every amount cell a number (not text a spreadsheet cannot add), formatted
    with EUR whatever the reader's locale; the teams' amounts sum to the total row, which is the
    statement's cost; the reconciliation sheet is the sidecar JSON's, line for line."""
    export = _focus_in(tmp_path, ["EUR"])
    out = tmp_path / "chargeback.xlsx"
    result = chargeback("--cost-from", str(export), "--format", "xlsx", "--out", str(out))
    assert result.returncode == 0, result.stderr
    book = openpyxl.load_workbook(out)
    assert book.sheetnames == ["Statement", "Reconciliation", "Hours", "Notes"]
    teams = _statement_rows(book["Statement"])
    total = teams.pop("total")
    for cells in teams.values():
        amount = cells[3]
        assert amount.data_type == "n" and '"EUR"' in amount.number_format, (amount.value, amount.number_format)
        assert cells[2].number_format == "0.00%"
    assert round(sum(Decimal(str(c[3].value)) for c in teams.values()), 2) == Decimal(str(total[3].value))
    assert Decimal(str(total[3].value)).quantize(Decimal("0.01")) == AMORTIZED_TOTAL

    csv_out = tmp_path / "chargeback.csv"
    assert chargeback("--cost-from", str(export), "--format", "csv", "--out", str(csv_out)).returncode == 0
    sidecar = json.loads((tmp_path / "chargeback.csv.json").read_text())["reconciliation"]
    sheet = [row for row in book["Reconciliation"].iter_rows(min_row=2, values_only=True)]
    assert [(label, role, f"{Decimal(str(amount)):.2f}") for label, role, amount in sheet] == [
        (line["line"], line["role"], line["amount"]) for line in sidecar
    ]


def test_a_display_name_that_looks_like_a_formula_stays_text(tmp_path):
    data = yaml.safe_load(INITECH.read_text())
    data["teams"][0]["display_name"] = '=HYPERLINK("http://example.com","x")'
    spec = tmp_path / "teams.yaml"
    spec.write_text(yaml.safe_dump(data))
    out = tmp_path / "s.xlsx"
    export = _focus_in(tmp_path, ["USD"])
    result = chargeback("--cost-from", str(export), "--format", "xlsx", "--out", str(out), spec=spec)
    assert result.returncode == 0, result.stderr
    cell = _statement_rows(openpyxl.load_workbook(out)["Statement"])["nlp"][1]
    assert cell.data_type == "s" and cell.value.startswith("=HYPERLINK")


def test_xlsx_without_a_file_to_write_is_refused_before_any_work(tmp_path):
    result = chargeback("--cost", "1000.00", "--format", "xlsx")
    assert result.returncode == 2 and "--out FILE.xlsx" in result.stderr and not result.stdout


def test_without_xlsxwriter_the_refusal_names_the_install(monkeypatch):
    from hyperpod_teams import chargeback as statements

    monkeypatch.setitem(sys.modules, "xlsxwriter", None)
    with pytest.raises(statements.ChargebackError, match=r"pip install '.*hyperpod-teams\[xlsx\]'"):
        statements.statement_xlsx(None)  # type: ignore[arg-type]


def test_a_failed_write_leaves_no_partial_workbook(tmp_path):
    out = tmp_path / "missing-folder" / "s.xlsx"
    result = chargeback("--cost-from", str(_focus_in(tmp_path, ["USD"])), "--format", "xlsx", "--out", str(out))
    assert result.returncode == 2 and "cannot write" in result.stderr, result.stderr
    assert not Path(tmp_path / "missing-folder").exists()
