"""The statement as an Excel workbook: amounts as numbers in the currency's format, the hours, the
reconciliation and the notes under the figures (pip extra 'xlsx'); of several clusters, a sheet of
each team's lines and each cluster's sheets.

Pure layer.
"""

from __future__ import annotations

import io
from datetime import date, datetime

from hyperpod_teams.chargeback.clusters import ClustersStatement
from hyperpod_teams.chargeback.statement import ChargebackError, Statement
from hyperpod_teams.install_hint import install_extras

#: The install that brings the .xlsx writer.
XLSX_INSTALL = install_extras("xlsx")


def statement_xlsx(statement: Statement) -> bytes:
    """The statement as a workbook (XlsxWriter): every amount a number with the currency's format
    (`#,##0.00 "EUR"`: the separators are the reader's locale's, the currency the bill's), shares
    as percentages, hours as numbers; sheets Statement (the context and the teams), Reconciliation,
    Hours, Notes. Text from the spec is written as text, never as a formula."""
    xlsxwriter = _xlsxwriter()
    workbook, out, formats = _workbook(xlsxwriter, statement.currency)
    _statement_sheets(workbook, statement, formats, ("Statement", "Reconciliation", "Hours", "Notes"))
    workbook.close()
    return out.getvalue()


def clusters_xlsx(statement: ClustersStatement) -> bytes:
    """The statement of several clusters as a workbook: sheet Teams (a row per team, its amount on
    each cluster and its total, a total row), then each cluster's four sheets as one cluster's
    workbook has them, named after the cluster (`<cluster> statement`, `<cluster> reconciliation`,
    `<cluster> hours`, `<cluster> notes`; the name cut to fit Excel's 31 characters)."""
    xlsxwriter = _xlsxwriter()
    workbook, out, formats = _workbook(xlsxwriter, statement.currency)
    sheet = workbook.add_worksheet("Teams")
    clusters = list(statement.statements)
    sheet.set_column(0, 1, 28)
    sheet.set_column(2, len(clusters) + 2, 18)
    for column, title in enumerate(["team", "display name", *clusters, "total"]):
        sheet.write_string(0, column, title, formats["bold"])
    row = 0
    for team, title in statement.teams:
        row += 1
        sheet.write_string(row, 0, team)
        sheet.write_string(row, 1, title)
        for column, cluster in enumerate(clusters, start=2):
            amount = statement.amount(team, cluster)
            if amount is not None:  # no placement there: an empty cell, not a zero charge
                sheet.write_number(row, column, float(amount), formats["money"])
        sheet.write_number(row, len(clusters) + 2, float(statement.total(team)), formats["money bold"])
    row += 1
    sheet.write_string(row, 0, "total", formats["bold"])
    for column, cluster in enumerate(clusters, start=2):
        sheet.write_number(row, column, float(statement.statements[cluster].cost), formats["money bold"])
    sheet.write_number(row, len(clusters) + 2, float(statement.cost), formats["money bold"])
    labels = _sheet_labels(clusters)
    for cluster, one in statement.statements.items():
        label = labels[cluster]
        names = (f"{label} statement", f"{label} reconciliation", f"{label} hours", f"{label} notes")
        _statement_sheets(workbook, one, formats, names)
    workbook.close()
    return out.getvalue()


#: Excel's longest sheet name, and the longest suffix the sheets of a cluster add to its name.
SHEET_NAME_MAX, SHEET_SUFFIX_MAX = 31, len(" reconciliation")


def _sheet_labels(clusters: list[str]) -> dict[str, str]:
    """Each cluster's name as its sheets begin, cut to fit; `cluster <n>` where two cut alike."""
    cut = {name: name[: SHEET_NAME_MAX - SHEET_SUFFIX_MAX] for name in clusters}
    alike = {label for label in cut.values() if list(cut.values()).count(label) > 1}
    return {name: f"cluster {index}" if cut[name] in alike else cut[name] for index, name in enumerate(clusters, 1)}


def _xlsxwriter():
    """XlsxWriter, or the refusal that names its install."""
    try:
        import xlsxwriter
    except ImportError:
        raise ChargebackError(f"--format xlsx needs XlsxWriter: {XLSX_INSTALL}") from None
    return xlsxwriter


def _workbook(xlsxwriter, currency_code: str):
    """A workbook written in memory, its output, and the formats its sheets use."""
    out = io.BytesIO()
    workbook = xlsxwriter.Workbook(out, {"in_memory": True, "strings_to_formulas": False, "strings_to_urls": False})
    currency = f'#,##0.00 "{currency_code}"'
    formats = {
        "bold": workbook.add_format({"bold": True}),
        "money": workbook.add_format({"num_format": currency}),
        "money bold": workbook.add_format({"num_format": currency, "bold": True}),
        "percent": workbook.add_format({"num_format": "0.00%"}),
        "hours": workbook.add_format({"num_format": "#,##0.00"}),
        "day": workbook.add_format({"num_format": "yyyy-mm-dd"}),
    }
    return workbook, out, formats


def _statement_sheets(workbook, statement: Statement, formats: dict, names: tuple[str, str, str, str]) -> None:
    """One cluster's statement, reconciliation, hours and notes, on sheets of these names."""
    _xlsx_statement(workbook.add_worksheet(names[0]), statement, formats)
    _xlsx_reconciliation(workbook.add_worksheet(names[1]), statement, formats)
    _xlsx_hours(workbook.add_worksheet(names[2]), statement, formats)
    notes = workbook.add_worksheet(names[3])
    notes.set_column(0, 0, 120)
    notes.write_string(0, 0, "things to check before sending", formats["bold"])
    for row, note in enumerate(statement.notes, start=1):
        notes.write_string(row, 0, note)


def _xlsx_statement(sheet, s: Statement, formats: dict) -> None:
    sheet.set_column(0, 0, 34)
    sheet.set_column(1, 5, 18)
    bold, money = formats["bold"], formats["money"]
    sheet.write_string(0, 0, "first day", bold)
    sheet.write_datetime(0, 1, datetime_of(s.first_day), formats["day"])
    sheet.write_string(1, 0, "last day", bold)
    sheet.write_datetime(1, 1, datetime_of(s.last_day), formats["day"])
    context = [
        ("organization", s.organization),
        ("cluster", s.cluster),
        ("currency", s.currency),
        ("cost from", s.cost_source),
        ("divided among the instance types", s.cost_basis),
        ("idle capacity charged", s.split_method),
    ]
    for row, (label, value) in enumerate(context, start=2):
        sheet.write_string(row, 0, label, bold)
        sheet.write_string(row, 1, value)
    row = len(context) + 3
    for column, title in enumerate(["team", "display name", "share", "amount", "for its use", "idle share"]):
        sheet.write_string(row, column, title, bold)
    for charge in s.teams:
        row += 1
        sheet.write_string(row, 0, charge.team)
        sheet.write_string(row, 1, charge.title)
        sheet.write_number(row, 2, float(s.share_percent(charge) / 100), formats["percent"])
        for column, amount in ((3, charge.amount), (4, charge.usage), (5, charge.idle)):
            sheet.write_number(row, column, float(amount), money)
    row += 1
    sheet.write_string(row, 0, "total", bold)
    sheet.write_number(row, 2, 1.0, formats["percent"])
    for column, amount in ((3, s.cost), (4, s.cost - s.unused), (5, s.unused)):
        sheet.write_number(row, column, float(amount), formats["money bold"])
    # The notes where the reader looks first, under the figures (and on the Notes sheet).
    if s.notes:
        row += 2
        sheet.write_string(row, 0, "things to check before sending", bold)
        for note in s.notes:
            row += 1
            sheet.write_string(row, 0, note)


def _xlsx_reconciliation(sheet, s: Statement, formats: dict) -> None:
    sheet.set_column(0, 0, 80)
    sheet.set_column(1, 2, 18)
    for column, title in enumerate(["line", "role", "amount"]):
        sheet.write_string(0, column, title, formats["bold"])
    for row, line in enumerate(s.reconciliation, start=1):
        total = line.role == "total"
        sheet.write_string(row, 0, line.label, formats["bold"] if total else None)
        sheet.write_string(row, 1, line.role)
        sheet.write_number(row, 2, float(line.amount), formats["money bold" if total else "money"])


def _xlsx_hours(sheet, s: Statement, formats: dict) -> None:
    sheet.set_column(0, 1, 22)
    sheet.set_column(2, 4, 16)
    for column, title in enumerate(["instance type", "team", "charged hours", "allocated hours", "borrowed hours"]):
        sheet.write_string(0, column, title, formats["bold"])
    row = 0
    for use in s.instance_types:
        for charge in s.teams:
            if use.instance_type in charge.hours:
                row += 1
                sheet.write_string(row, 0, use.instance_type)
                sheet.write_string(row, 1, charge.team)
                for column, value in enumerate(charge.hours[use.instance_type], start=2):
                    sheet.write_number(row, column, float(value), formats["hours"])
        if use.other_hours:  # as the Markdown and HTML statements show them
            row += 1
            sheet.write_string(row, 0, use.instance_type)
            sheet.write_string(row, 1, "namespaces of no team")
            sheet.write_number(row, 2, float(use.other_hours), formats["hours"])


def datetime_of(day: date) -> datetime:
    return datetime(day.year, day.month, day.day)
