"""The cluster's cost from the exports AWS delivers: each part opened, its format told by its columns,
its lines added once (overlapping parts refused), then checked for coverage. `read_cost_exports` is
the entry.

Pure layer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from hyperpod_teams.chargeback.basis import NET_AMORTIZED, CostExportError, Period, cost_basis
from hyperpod_teams.chargeback.cost_explorer import read_cost_explorer
from hyperpod_teams.chargeback.coverage import finish_figures
from hyperpod_teams.chargeback.cur import read_cur
from hyperpod_teams.chargeback.export_columns import (
    COST_EXPLORER,
    COST_EXPLORER_TOTAL,
    FOCUS_BILLED,
    FOCUS_EFFECTIVE,
    FOCUS_START,
    LEGACY_CUR,
    SNAKE_CUR,
)
from hyperpod_teams.chargeback.export_files import Part
from hyperpod_teams.chargeback.exported_cost import ExportedCost, Place
from hyperpod_teams.chargeback.focus import read_focus


def read_cost_exports(
    parts: Iterable[tuple[str, Iterable[Part]]], period: Period, basis: str = NET_AMORTIZED, place: Place | None = None
) -> ExportedCost:
    """The shared platform's cost in `period` from every part of one export (files given as
    (display name, parts)); with `place`, of the cluster's account and Region only."""
    basis = cost_basis(basis)
    result: ExportedCost | None = None
    for display, file_parts in parts:
        for part in file_parts:
            reader, kind = _reader_of(part)
            if result is None:
                result = ExportedCost(kind, basis, place)
            elif result.format != kind:
                raise CostExportError(
                    f"{part.name} is a {kind} export, the file before it a {result.format} one: give the parts of one "
                    "export (the same spend in two formats would count twice)"
                )
            reader(part, period, result)
        if result is not None:
            result.files.append(display)
    if result is None:
        raise CostExportError("--cost-from: no export given")
    finish_figures(result, period)
    return result


def _reader_of(part: Part) -> tuple[Callable[[Part, Period, ExportedCost], None], str]:
    names = set(part.header)
    if COST_EXPLORER_TOTAL in names:
        return read_cost_explorer, COST_EXPLORER
    if FOCUS_START in names and names & {FOCUS_EFFECTIVE, FOCUS_BILLED}:
        return read_focus, "FOCUS"
    if LEGACY_CUR.unblended in names:
        return (lambda p, period, out: read_cur(p, period, out, LEGACY_CUR)), LEGACY_CUR.format
    if SNAKE_CUR.unblended in names:
        kind = "CUR 2.0" if SNAKE_CUR.tag_map in names else SNAKE_CUR.format
        return (lambda p, period, out: read_cur(p, period, out, SNAKE_CUR)), kind
    raise CostExportError(
        f"{part.name}, line 1: no {LEGACY_CUR.unblended} or {SNAKE_CUR.unblended} column (a Cost and Usage Report), "
        f"no {FOCUS_START} with {FOCUS_EFFECTIVE} or {FOCUS_BILLED} (FOCUS) and no {COST_EXPLORER_TOTAL!r} (a Cost "
        "Explorer download): "
        "give one of those exports, or the cost with --cost"
    )
