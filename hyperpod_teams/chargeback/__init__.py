"""Chargeback: the shared platform's spend for a period divided among the teams, from HyperPod's
usage reports and the cost AWS bills. A finance product of its own, beside the review:

- reading the cost: `exports` (the entry, `read_cost_exports`) opens the parts (`export_files`),
  tells the format by its columns (`export_columns`) and reads each one's lines (`cur`: the legacy
  CUR and CUR 2.0; `focus`; `cost_explorer`), cell by cell (`export_cells`), on a cost basis
  (`basis`), into an `ExportedCost` (`exported_cost`) whose period it checks (`coverage`);
- dividing it: the usage reports (`usage`), the split among instance types and teams (`split`),
  the statement (`statement`) as `compute` makes it;
- writing it: `statement_document` (Markdown, HTML), `statement_csv` (and its FILE.json),
  `statement_xlsx`.

Pure layer: no cdktf. docs/chargeback.md says what a statement holds and why.
"""

from hyperpod_teams.chargeback.basis import (
    AMORTIZED,
    COST_BASES,
    DEFAULT_CURRENCY,
    GROSS_AMORTIZED,
    GROSS_UNBLENDED,
    NET_AMORTIZED,
    NET_UNBLENDED,
    UNBLENDED,
    CostExportError,
    Period,
    cost_basis,
)
from hyperpod_teams.chargeback.compute import compute_statement, reconciliation
from hyperpod_teams.chargeback.cur import DISCOUNT_LINE_TYPES
from hyperpod_teams.chargeback.export_cells import instance_type_of
from hyperpod_teams.chargeback.export_files import open_parts
from hyperpod_teams.chargeback.exported_cost import ExportedCost, Place
from hyperpod_teams.chargeback.exports import read_cost_exports
from hyperpod_teams.chargeback.statement import ChargebackError, Statement
from hyperpod_teams.chargeback.statement_csv import statement_csv, statement_metadata
from hyperpod_teams.chargeback.statement_document import render_statement
from hyperpod_teams.chargeback.statement_xlsx import statement_xlsx
from hyperpod_teams.usage_report import UsageReportError

__all__ = [
    "AMORTIZED",
    "COST_BASES",
    "DEFAULT_CURRENCY",
    "DISCOUNT_LINE_TYPES",
    "GROSS_AMORTIZED",
    "GROSS_UNBLENDED",
    "NET_AMORTIZED",
    "NET_UNBLENDED",
    "UNBLENDED",
    "ChargebackError",
    "CostExportError",
    "ExportedCost",
    "Period",
    "Place",
    "Statement",
    "UsageReportError",
    "compute_statement",
    "cost_basis",
    "instance_type_of",
    "open_parts",
    "read_cost_exports",
    "reconciliation",
    "render_statement",
    "statement_csv",
    "statement_metadata",
    "statement_xlsx",
]
