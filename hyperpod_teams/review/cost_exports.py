"""Moved to the package `hyperpod_teams.chargeback` (its readers of the cost exports); importable
here for programs written against 0.2.0."""

from hyperpod_teams.chargeback import (
    AMORTIZED,
    COST_BASES,
    DEFAULT_CURRENCY,
    DISCOUNT_LINE_TYPES,
    GROSS_AMORTIZED,
    GROSS_UNBLENDED,
    NET_AMORTIZED,
    NET_UNBLENDED,
    UNBLENDED,
    CostExportError,
    ExportedCost,
    Period,
    cost_basis,
    instance_type_of,
    open_parts,
    read_cost_exports,
)

__all__ = [
    "AMORTIZED",
    "COST_BASES",
    "DISCOUNT_LINE_TYPES",
    "GROSS_AMORTIZED",
    "GROSS_UNBLENDED",
    "NET_AMORTIZED",
    "NET_UNBLENDED",
    "cost_basis",
    "DEFAULT_CURRENCY",
    "CostExportError",
    "ExportedCost",
    "Period",
    "UNBLENDED",
    "instance_type_of",
    "open_parts",
    "read_cost_exports",
]
