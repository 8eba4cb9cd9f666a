"""Moved to the package `hyperpod_teams.chargeback` (the statement and its outputs); importable
here for programs written against 0.2.0."""

from hyperpod_teams.chargeback import (
    ChargebackError,
    Statement,
    UsageReportError,
    compute_statement,
    render_statement,
)

__all__ = [
    "ChargebackError",
    "Statement",
    "UsageReportError",
    "compute_statement",
    "render_statement",
]
