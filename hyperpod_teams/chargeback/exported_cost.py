"""What a statement takes from the exports: the shared platform's cost in the period by instance type
and kind, what was left out and why, the notes a reader sees; and a used line's share added to it.

Pure layer.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal, localcontext
from typing import Any

from hyperpod_teams import naming
from hyperpod_teams.chargeback.basis import DEFAULT_CURRENCY, CostExportError
from hyperpod_teams.chargeback.export_cells import ChargePeriods
from hyperpod_teams.chargeback.export_columns import COST_EXPLORER


@dataclass
class _Sums:
    """The sums a used line adds to: the cost, per instance type, from prorated lines, per kind."""

    amount: Decimal = Decimal(0)
    by_instance_type: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    prorated: Decimal = Decimal(0)
    by_kind: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))


@dataclass(frozen=True)
class Place:
    """Where the cluster runs: its account and Region (organization.account_id and .region). A
    payer's export covers every linked account and Region; only the cluster's lines are its.
    `cluster`: where another cluster of the spec shares them, the cluster's name, which its lines
    carry as the cluster tag (naming.TAG_CLUSTER)."""

    account: str
    region: str
    cluster: str | None = None


#: Region cells that place a line nowhere in particular (a charge of no Region): not another Region.
NO_REGION = frozenset({"", "global"})


@dataclass
class ExportedCost:
    """The shared platform's cost in the period, as one or more export files gave it."""

    format: str
    basis: str
    #: The cluster's account and Region: tagged lines of others are left out (None: every line counts).
    place: Place | None = None
    amount: Decimal = Decimal(0)
    #: The part of `amount` on lines that name a HyperPod instance type, per type.
    by_instance_type: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    lines_read: int = 0
    lines_used: int = 0
    #: Lines charged for more than a day that reach into the period, and their cost in it.
    prorated_lines: int = 0
    prorated: Decimal = Decimal(0)
    #: Savings Plans / Reserved Instance fee lines in the period without the platform tag.
    untagged_commitment_lines: int = 0
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: The currency the lines used are billed in (ISO 4217), and the first line that said so;
    #: None when no line names one (an export without the column: USD, as AWS bills by default).
    currency: str | None = None
    currency_from: str = ""
    #: The billing periods the lines read belong to: the cells as the export writes them, read
    #: once each into [start, end).
    billing_periods: dict[tuple[str, str], tuple[datetime, datetime]] = field(default_factory=dict)
    #: Tagged lines billed in the statement's period but dated before it (corrections, refunds of
    #: earlier days): in no statement of this period. Their count, amount and first line.
    corrections: int = 0
    corrections_amount: Decimal = Decimal(0)
    first_correction: str = ""
    #: The discounts in the cost (negative): on the lines' own net columns, or as discount lines.
    discounts: Decimal = Decimal(0)
    discount_lines: int = 0
    discount_lines_amount: Decimal = Decimal(0)
    #: Discount lines a gross basis leaves out, and their amount.
    discount_lines_left: int = 0
    discount_lines_left_amount: Decimal = Decimal(0)
    #: Discount lines in the period without the platform tag (e.g. an EDP on a Savings Plan's fee),
    #: by their line item type; and every line in the period without it.
    untagged_discount_lines: int = 0
    untagged_lines: int = 0
    #: The end of the latest charge of an hour or a day among every line read, and the line: how
    #: far a month-to-date delivery reaches (a month's fee or tax line ends with the month even
    #: in one delivered on its 19th, so only lines of an hour or a day tell).
    last_charge_end: datetime | None = None
    last_charge_at: str = ""
    _last_end_text: str = field(default="", repr=False)
    #: Split cost allocation rows (a pod's share of its node), not counted: their node's line is.
    split_rows: int = 0
    #: Instance-hours the export bills of each HyperPod instance type in the period, and per UTC
    #: day (lines of an hour or a day): the capacity the teams' hours are measured against.
    billed_hours: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    billed_hours_by_day: dict[tuple[date, str], Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    #: The same sums with each line at its gross cost and the discount lines added: the net cost of an
    #: export that gives its discounts as lines only (no net column, no discount map).
    _with_discount_lines: _Sums = field(default_factory=lambda: _Sums())
    #: What the tagged discount lines added to the sums, and the untagged ones to untagged_amount: taken
    #: out again when the lines' own net costs hold their discounts too (they would count twice).
    _discount_line_sums: _Sums = field(default_factory=lambda: _Sums())
    untagged_discount_amount: Decimal = Decimal(0)
    #: The reconciliation from the exports' total of the period to the statement's cost: the
    #: lines of other workloads (untagged), the split cost allocation rows, and the shared
    #: platform's lines by kind (KINDS).
    untagged_amount: Decimal = Decimal(0)
    #: Lines left out whose basis needs a column the export lacks: in the total at unblended cost.
    left_out_unblended: int = 0
    split_amount: Decimal = Decimal(0)
    #: Lines tagged shared but used by another account or in another Region than the cluster's, in the
    #: period: how many of each (account, Region), and their amount.
    elsewhere: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    elsewhere_amount: Decimal = Decimal(0)
    by_kind: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    #: Each used line's cells (hashed) and where it was first read: the same line in two parts.
    _lines_seen: dict[int, tuple[str, str]] = field(default_factory=dict, repr=False)

    def used_elsewhere(self, account: Any, region: Any, cluster: str | None = None) -> tuple[str, str] | None:
        """Where a line was used (its account and Region cells; None where the export has no such
        column), when that is another account or Region than the cluster's, or (a place with a
        cluster) the line's cluster tag `cluster` is not the cluster's; None when it is the
        cluster's, or no place was given."""
        if self.place is None:
            return None
        account_text = str(account or "").strip()
        region_text = str(region or "").strip()
        if (account_text and account_text != self.place.account) or (
            region_text.casefold() not in NO_REGION and region_text != self.place.region
        ):
            return account_text or "-", region_text or "-"
        if self.place.cluster is not None and cluster != self.place.cluster:
            tagged = f"cluster {cluster}" if cluster else f"no {naming.TAG_CLUSTER} tag"
            return account_text or "-", f"{region_text or '-'}, {tagged}"
        return None

    def note_elsewhere(self, used_at: tuple[str, str], amount: Decimal) -> None:
        """A line of another account or Region (`used_elsewhere`), with its cost in the period."""
        self.elsewhere[used_at] += 1
        self.elsewhere_amount += amount

    def note_charge_end(self, row: Sequence[Any], placed: ChargePeriods, where: str) -> None:
        """Any line read: its end, where it is the latest yet of a line of an hour or a day. The
        cells are compared as text first: one export writes its times one way, so only a later
        text is read (through the part's memo of charge periods)."""
        if placed.end_at is None:
            return
        text = str(row[placed.end_at] or "")
        if not text or text <= self._last_end_text:
            return
        start, end, _ = placed(row, where)
        if end is None or end - start > timedelta(days=1):
            return
        self._last_end_text = text
        if self.last_charge_end is None or end > self.last_charge_end:
            self.last_charge_end, self.last_charge_at = end, where

    def note_correction(self, amount: Decimal, where: str) -> None:
        self.corrections += 1
        self.corrections_amount += amount
        self.first_correction = self.first_correction or where

    def note_line(self, row: Sequence[Any], part: str, where: str, identity: tuple | None = None) -> None:
        """A used line: the same line in another part of the export is refused (a part given twice
        under two names, or two deliveries of one billing period). The same line is the same
        `identity/LineItemId` and `identity/TimeInterval` where the export has them (a later
        delivery may restate a line's cost), else the same cells."""
        key = hash(identity if identity and all(identity) else tuple(str(cell) for cell in row))
        first = self._lines_seen.setdefault(key, (part, where))
        if first[0] != part:
            same = "is the line item of" if identity and all(identity) else "repeats cell for cell"
            raise CostExportError(
                f"{where} {same} {first[1]}: the same lines in two files would count twice. Give each part of "
                "one delivery once (a file copied under another name? two deliveries of one billing period? keep "
                "the newest)"
            )

    @property
    def statement_currency(self) -> str:
        """The currency of the statement: the lines', else USD (AWS bills in USD by default)."""
        return self.currency or DEFAULT_CURRENCY

    def note_currency(self, code: Any, where: str) -> None:
        """A used line's currency: the statement is in it; a second currency is refused, since
        adding yen to dollars gives no amount at all."""
        if code == self.currency:  # the usual case, once the first line has set it
            return
        code = str(code or "").strip().upper()
        if not code:
            return
        if not re.fullmatch(r"[A-Z]{3}", code):
            raise CostExportError(f"{where}: {code[:20]!r} is no currency code (ISO 4217, such as USD or EUR)")
        if self.currency is None:
            self.currency, self.currency_from = code, where
        elif code != self.currency:
            raise CostExportError(
                f"{where}: a line billed in {code}, but {self.currency_from} was billed in {self.currency}: a "
                f"statement cannot add {code} to {self.currency}. Give the exports of one billing currency (each "
                "payer account bills in one; Billing preferences names it), or make a statement per currency"
            )

    def description(self) -> str:
        files = ", ".join(self.files)
        if self.format == COST_EXPLORER:
            return (
                f"from {files} (Cost Explorer, {self.lines_used} of {self.lines_read} rows; a Cost Explorer download "
                f"has no tags: it must be filtered to the cost category value shared-platform or the tag "
                f"{naming.TAG_PLATFORM}, with the {self.basis} costs chosen in Cost Explorer)"
            )
        return (
            f"from {files} ({self.format}, {self.basis} cost: {self.lines_used:,} of {self.lines_read:,} lines, those "
            f"tagged {naming.TAG_PLATFORM}={naming.PLATFORM_SHARED} in the period)"
        )


def add_line(
    out: ExportedCost,
    amount: Decimal,
    fraction: Decimal,
    start: datetime,
    end: datetime | None,
    itype,
    gross_or_line: Decimal | None = None,
    kind: str = "usage",
) -> None:
    """A used line's share of its cost in the period; `gross_or_line` is its cost counted with
    discounts as lines (its gross cost, or a discount line's amount), where that may differ;
    `kind` the reconciliation's line it adds to."""
    with localcontext() as context:
        context.prec = 40
        share = amount * fraction
        other = share if gross_or_line is None else gross_or_line * fraction
    out.amount += share
    out.lines_used += 1
    out.by_kind[kind] += share
    if itype:
        out.by_instance_type[itype] += share
    if end is not None and end - start > timedelta(days=1):
        out.prorated_lines += 1
        out.prorated += share
    add_to_sums(out._with_discount_lines, other, start, end, itype, kind)


def add_to_sums(sums: _Sums, share: Decimal, start: datetime, end: datetime | None, itype, kind: str) -> None:
    sums.amount += share
    sums.by_kind[kind] += share
    if itype:
        sums.by_instance_type[itype] += share
    if end is not None and end - start > timedelta(days=1):
        sums.prorated += share
