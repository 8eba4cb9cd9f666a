"""One cell of an export read strictly: amounts, instants, the tags map (refused when it does not
parse), charge periods, and the instance type a line names.

Pure layer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from hyperpod_teams import naming
from hyperpod_teams.chargeback.basis import CostExportError, Period, share_in_period
from hyperpod_teams.chargeback.export_columns import CLUSTER_TAG_COLUMNS, CLUSTER_TAG_KEYS, ML_INSTANCE, TAG_KEYS


def money_of(value: Any, column: str, where: str) -> Decimal:
    if value is None or value == "":
        return Decimal(0)
    if isinstance(value, bool):
        raise CostExportError(f"{where}: {column} {value!r} is not an amount")
    if isinstance(value, float):
        value = repr(value)
    try:
        amount = Decimal(str(value).strip())
    except InvalidOperation:
        raise CostExportError(f"{where}: {column} {str(value)[:40]!r} is not an amount") from None
    if not amount.is_finite() or abs(amount) >= 10**15:
        raise CostExportError(f"{where}: {column} {str(value)[:40]!r} is not an amount of money")
    return amount


def instant_of(value: Any, column: str, where: str) -> datetime:
    """A time as UTC: an offset is applied, a time without one is UTC (as AWS writes them)."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    else:
        text = str(value or "").strip()
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace(" UTC", "+00:00"))
        except ValueError:
            raise CostExportError(f"{where}: {column} {text[:40]!r} is not a date and time") from None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def tags_of(value: Any, column: str, where: str) -> dict:
    if value is None or value == "":
        return {}
    if isinstance(value, dict):
        return value
    if isinstance(value, list):  # pyarrow gives a map as (key, value) pairs
        return {k: v for k, v in value if isinstance(k, str)}
    try:
        tags = json.loads(str(value))
    except ValueError:
        raise CostExportError(f"{where}: {column} {str(value)[:60]!r} is not a JSON map of tags") from None
    if not isinstance(tags, dict):
        raise CostExportError(f"{where}: {column} {str(value)[:60]!r} is not a JSON map of tags")
    return tags


def _shared(tags: dict) -> bool:
    return any(tags.get(key) == naming.PLATFORM_SHARED for key in TAG_KEYS)


def map_says_shared(cell: Any, column: str, where: str) -> bool:
    """Whether a tags map (CUR 2.0 `resource_tags`, FOCUS `Tags`) tags the line shared. Every cell
    is parsed, whatever it holds: a damaged one (a download cut inside it, a lone `{`) is refused
    with its line, never read as a line without tags."""
    if cell is None or cell == "":
        return False
    return _shared(tags_of(cell, column, where))


def cluster_tag_reader(
    at: Mapping[str, int], map_column: str | None, part: str
) -> Callable[[Sequence[Any], str], str | None]:
    """How to read a line's cluster tag (naming.TAG_CLUSTER; None where the line has none): its own
    column, else the export's map of tags. Refused where the export has neither: then the lines of
    two clusters in one account and Region cannot be told apart."""
    column_at = next((at[column] for column in CLUSTER_TAG_COLUMNS if column in at), None)
    if column_at is not None:
        return lambda row, where: str(row[column_at] or "").strip() or None
    if map_column is not None and map_column in at:
        map_at = at[map_column]

        def from_map(row: Sequence[Any], where: str) -> str | None:
            tags = tags_of(row[map_at], map_column, where)
            return next((str(tags[key]).strip() for key in CLUSTER_TAG_KEYS if tags.get(key)), None)

        return from_map
    raise CostExportError(
        f"{part}, line 1: no column of the tag {naming.TAG_CLUSTER} ({CLUSTER_TAG_COLUMNS[0]}, "
        f"{CLUSTER_TAG_COLUMNS[1]}, or a map of tags): two clusters of the spec run in one account and Region, and "
        "only that tag tells their lines apart. Give an export with the tag (the cost stack activates it for cost "
        "allocation; AWS writes it into exports from then on), or each cluster's cost with --cost CLUSTER=AMOUNT"
    )


def _charge_period(
    row: Sequence[Any], start_at: int, end_at: int | None, names: tuple[str, str], where: str
) -> tuple[datetime, datetime | None]:
    """A line's charge period in UTC: its start, and its end when the export gives one."""
    start = instant_of(row[start_at], names[0], where)
    if end_at is None or row[end_at] in (None, ""):
        return start, None
    return start, instant_of(row[end_at], names[1], where)


class ChargePeriods:
    """Lines' charge periods and their fractions in the statement's period, each distinct pair of
    cells parsed once: an export's lines share a few hundred hours and days, and parsing two times
    per line was half of reading a large export (a file of unique times empties the memo now and
    then, so it stays small)."""

    LIMIT = 50_000

    def __init__(self, start_at: int, end_at: int | None, names: tuple[str, str], period: Period):
        self.start_at, self.end_at, self.names, self.period = start_at, end_at, names, period
        self.memo: dict[tuple[Any, Any], tuple[datetime, datetime | None, Decimal]] = {}

    def __call__(self, row: Sequence[Any], where: str) -> tuple[datetime, datetime | None, Decimal]:
        key = (row[self.start_at], row[self.end_at] if self.end_at is not None else None)
        found = self.memo.get(key)
        if found is None:
            if len(self.memo) >= self.LIMIT:
                self.memo.clear()
            start, end = _charge_period(row, self.start_at, self.end_at, self.names, where)
            found = self.memo[key] = (start, end, share_in_period(start, end, self.period))
        return found


def instance_type_of(*values: Any) -> str | None:
    """The HyperPod instance type a product attribute or a usage type names (`ml.p5.48xlarge`,
    `USE1-ml.p5.48xlarge-...`), or None."""
    for value in values:
        if isinstance(value, str) and (match := ML_INSTANCE.search(value)):
            return match.group(0)
    return None
