"""The shared platform's cost for a statement's period, read from the exports AWS delivers. Pure
layer: no cdktf (pyarrow only for Parquet, imported when a Parquet file is given).

What is read (docs/chargeback.md, "Where the cost comes from", names each format's reference):

- **Legacy Cost and Usage Report**, with the console's column names (`lineItem/UnblendedCost`,
  `resourceTags/user:hyperpod-teams:platform`) or the names its Athena integration gives them
  (`line_item_unblended_cost`, `resource_tags_user_hyperpod_teams_platform`).
- **CUR 2.0** of AWS Data Exports: the Athena-style names, tags in the `resource_tags` map.
- **FOCUS 1.x** of AWS Data Exports: `EffectiveCost`, `BilledCost`, `ChargePeriodStart`/`End`,
  tags in the `Tags` map.
- **Cost Explorer**'s CSV download (no tags: filtered in Cost Explorer to the shared platform).

Each as plain CSV, `.csv.gz`, `.zip` (each member a part) or Parquet, and in several parts: the
parts of one export add up. Only lines tagged `hyperpod-teams:platform=shared` count; an export
without that tag's column is refused, never summed whole.

**Cost basis.** Net (after every discount: the lines' Net columns, else their discount columns,
else the export's discount lines) or gross; amortized or unblended. `net-amortized` (the default)
is FOCUS's `EffectiveCost` as AWS defines it; for a CUR, gross, it is (the FinOps Foundation's
converter, focus_converters `conversion_configs/aws-cur/effective_cost_S001.yaml`): Savings Plans
covered usage at its `SavingsPlanEffectiveCost`, the negation lines at 0, a Savings Plan's
recurring fee at its unused commitment (`TotalCommitmentToDate - UsedCommitment`), its upfront fee
at 0; Reserved Instance usage at `reservation/EffectiveCost`, the RI fee at its unused part, the
RI's upfront fee at 0; every other line at its unblended cost. Unblended is the unblended cost of
every line (`net-unblended`: FOCUS `BilledCost`). `amortized` and `unblended`, the names of
earlier releases, are the net ones.

**Period.** A line counts by the part of its charge period (usage start to end, UTC) that falls in
the statement's days: an hourly or daily line whole or not at all, a month's tax or fee prorated by
time. A Cost Explorer download has no such period: a daily one must hold every day of the
statement; a monthly one is taken only for whole calendar months.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import zipfile
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal, InvalidOperation, localcontext
from functools import partial
from pathlib import Path
from typing import Any

from hyperpod_teams import naming
from hyperpod_teams.input_files import MAX_LINE_CHARS
from hyperpod_teams.install_hint import install_extras

#: The currency of a statement whose export names none, and of --cost (AWS bills in USD by default).
DEFAULT_CURRENCY = "USD"
#: The cost bases. Net is after every discount (EDP, private rates, bundled and reseller
#: discounts), gross before them; amortized spreads Savings Plans and Reserved Instance payments
#: over the usage they cover (FOCUS EffectiveCost, when net), unblended is each line as billed
#: (FOCUS BilledCost, when net).
NET_AMORTIZED = "net-amortized"
NET_UNBLENDED = "net-unblended"
GROSS_AMORTIZED = "gross-amortized"
GROSS_UNBLENDED = "gross-unblended"
COST_BASES = (NET_AMORTIZED, NET_UNBLENDED, GROSS_AMORTIZED, GROSS_UNBLENDED)
#: The names of releases before the net bases, which mean the net ones (a statement is what is paid).
AMORTIZED, UNBLENDED = "amortized", "unblended"
BASIS_ALIASES = {AMORTIZED: NET_AMORTIZED, UNBLENDED: NET_UNBLENDED}


def cost_basis(name: str) -> str:
    """The basis a --cost-basis names (the older `amortized` and `unblended` are the net ones)."""
    basis = BASIS_ALIASES.get(name, name)
    if basis not in COST_BASES:
        raise CostExportError(f"--cost-basis {name!r}: give one of {', '.join(COST_BASES)}")
    return basis


def amortized(basis: str) -> bool:
    return basis.endswith(AMORTIZED)


def net(basis: str) -> bool:
    return basis.startswith("net-")


#: The install that brings Parquet support.
PARQUET_INSTALL = install_extras("parquet")


class CostExportError(ValueError):
    """A cost export that cannot be read as one; the message names the file, line and column."""


# --- the columns of each format ---------------------------------------------------------------


@dataclass(frozen=True)
class CurColumns:
    """The columns of a Cost and Usage Report a cost is read from, under one naming."""

    format: str
    line_type: str
    unblended: str
    start: str
    end: str
    sp_effective: str
    sp_commitment_to_date: str
    sp_used_commitment: str
    ri_effective: str
    ri_unused_upfront: str
    ri_unused_recurring: str
    ri_arn: str
    instance_type: str
    usage_type: str
    #: The platform tag as its own column (legacy CUR), and the map of tags (CUR 2.0).
    tag_column: str
    tag_map: str | None
    #: The currency each line is billed in (the payer account's billing currency).
    currency: str
    #: The billing period a line belongs to: [start, end).
    billing_start: str
    billing_end: str
    #: After every discount (present when the account had a discount in the billing period).
    net_unblended: str = ""
    sp_net_effective: str = ""
    sp_upfront_commitment: str = ""
    sp_recurring_commitment: str = ""
    sp_net_upfront_commitment: str = ""
    sp_net_recurring_commitment: str = ""
    ri_net_effective: str = ""
    ri_net_unused_upfront: str = ""
    ri_net_unused_recurring: str = ""
    #: The line's discounts: their sum (CUR 2.0 `discount_total_discount`, legacy
    #: `discount/TotalDiscount`), and CUR 2.0's map of them by kind.
    discount_total: str = ""
    discount_map: str | None = None
    #: Split cost allocation data: a pod's or task's row names the node it ran on.
    split_parent: str = ""
    #: The line's usage and its unit (instance-hours for a HyperPod node: "Hrs").
    usage_amount: str = ""
    pricing_unit: str = ""
    #: A line item's identity within its billing period: its ID and the hour or day it covers.
    line_id: str = ""
    time_interval: str = ""


#: Legacy CUR as the console writes it (AWS Cost and Usage Reports, "Data dictionary": line item,
#: Savings Plans, reservation, product and resource tags columns).
LEGACY_CUR = CurColumns(
    "legacy CUR",
    "lineItem/LineItemType",
    "lineItem/UnblendedCost",
    "lineItem/UsageStartDate",
    "lineItem/UsageEndDate",
    "savingsPlan/SavingsPlanEffectiveCost",
    "savingsPlan/TotalCommitmentToDate",
    "savingsPlan/UsedCommitment",
    "reservation/EffectiveCost",
    "reservation/UnusedAmortizedUpfrontFeeForBillingPeriod",
    "reservation/UnusedRecurringFee",
    "reservation/ReservationARN",
    "product/instanceType",
    "lineItem/UsageType",
    f"resourceTags/user:{naming.TAG_PLATFORM}",
    None,
    "lineItem/CurrencyCode",
    "bill/BillingPeriodStartDate",
    "bill/BillingPeriodEndDate",
    net_unblended="lineItem/NetUnblendedCost",
    sp_net_effective="savingsPlan/NetSavingsPlanEffectiveCost",
    sp_upfront_commitment="savingsPlan/AmortizedUpfrontCommitmentForBillingPeriod",
    sp_recurring_commitment="savingsPlan/RecurringCommitmentForBillingPeriod",
    sp_net_upfront_commitment="savingsPlan/NetAmortizedUpfrontCommitmentForBillingPeriod",
    sp_net_recurring_commitment="savingsPlan/NetRecurringCommitmentForBillingPeriod",
    ri_net_effective="reservation/NetEffectiveCost",
    ri_net_unused_upfront="reservation/NetUnusedAmortizedUpfrontFeeForBillingPeriod",
    ri_net_unused_recurring="reservation/NetUnusedRecurringFee",
    discount_total="discount/TotalDiscount",
    split_parent="splitLineItem/ParentResourceId",
    usage_amount="lineItem/UsageAmount",
    pricing_unit="pricing/unit",
    line_id="identity/LineItemId",
    time_interval="identity/TimeInterval",
)


def athena_name(name: str) -> str:
    """A tag key or CUR column as the CUR's Athena integration names its column: lower case, each
    run of other characters than letters and digits one underscore (`user:hyperpod-teams:platform`
    becomes `user_hyperpod_teams_platform`)."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower())


#: The same columns as Athena names them, which CUR 2.0 (AWS Data Exports, "Cost and Usage Report
#: (CUR) 2.0" table dictionary) keeps, with the tags in its `resource_tags` map instead.
SNAKE_CUR = CurColumns(
    "legacy CUR (Athena column names)",
    "line_item_line_item_type",
    "line_item_unblended_cost",
    "line_item_usage_start_date",
    "line_item_usage_end_date",
    "savings_plan_savings_plan_effective_cost",
    "savings_plan_total_commitment_to_date",
    "savings_plan_used_commitment",
    "reservation_effective_cost",
    "reservation_unused_amortized_upfront_fee_for_billing_period",
    "reservation_unused_recurring_fee",
    "reservation_reservation_a_r_n",
    "product_instance_type",
    "line_item_usage_type",
    "resource_tags_" + athena_name(f"user:{naming.TAG_PLATFORM}"),
    "resource_tags",
    "line_item_currency_code",
    "bill_billing_period_start_date",
    "bill_billing_period_end_date",
    net_unblended="line_item_net_unblended_cost",
    sp_net_effective="savings_plan_net_savings_plan_effective_cost",
    sp_upfront_commitment="savings_plan_amortized_upfront_commitment_for_billing_period",
    sp_recurring_commitment="savings_plan_recurring_commitment_for_billing_period",
    sp_net_upfront_commitment="savings_plan_net_amortized_upfront_commitment_for_billing_period",
    sp_net_recurring_commitment="savings_plan_net_recurring_commitment_for_billing_period",
    ri_net_effective="reservation_net_effective_cost",
    ri_net_unused_upfront="reservation_net_unused_amortized_upfront_fee_for_billing_period",
    ri_net_unused_recurring="reservation_net_unused_recurring_fee",
    discount_total="discount_total_discount",
    discount_map="discount",
    split_parent="split_line_item_parent_resource_id",
    usage_amount="line_item_usage_amount",
    pricing_unit="pricing_unit",
    line_id="identity_line_item_id",
    time_interval="identity_time_interval",
)

#: Keys under which a tags map (CUR 2.0 `resource_tags`, FOCUS `Tags`) may hold the platform tag.
TAG_KEYS = (f"user:{naming.TAG_PLATFORM}", naming.TAG_PLATFORM, athena_name(f"user:{naming.TAG_PLATFORM}"))

#: FOCUS 1.x columns (FinOps Open Cost and Usage Specification; AWS Data Exports "FOCUS 1.0 with
#: AWS columns" and "FOCUS 1.2 with AWS columns" table dictionaries).
FOCUS_EFFECTIVE, FOCUS_BILLED = "EffectiveCost", "BilledCost"
FOCUS_START, FOCUS_END, FOCUS_TAGS = "ChargePeriodStart", "ChargePeriodEnd", "Tags"
FOCUS_USAGE_TYPE = "x_UsageType"
#: FOCUS's currency of BilledCost and EffectiveCost ("BillingCurrency", an ISO 4217 code).
FOCUS_CURRENCY = "BillingCurrency"
FOCUS_BILLING_START, FOCUS_BILLING_END = "BillingPeriodStart", "BillingPeriodEnd"
#: AWS's map of the discounts on a FOCUS row ("FOCUS 1.0 with AWS columns": x_Discounts): what
#: EffectiveCost and BilledCost are net of.
FOCUS_DISCOUNTS = "x_Discounts"
#: FOCUS's measured usage of a row and its unit.
FOCUS_QUANTITY, FOCUS_UNIT = "ConsumedQuantity", "ConsumedUnit"
FOCUS_CATEGORY = "ChargeCategory"

#: The Cost Explorer console's CSV download: a first column of the grouping, a column per value,
#: `Total costs($)`; a "<dimension> total" row, then one row per day or per month.
COST_EXPLORER_TOTAL = "Total costs($)"

#: Every column a reader of any format looks at.
_READ_COLUMNS = frozenset(
    {value for names in (LEGACY_CUR, SNAKE_CUR) for value in vars(names).values() if isinstance(value, str)}
    | {FOCUS_EFFECTIVE, FOCUS_BILLED, FOCUS_START, FOCUS_END, FOCUS_TAGS, FOCUS_USAGE_TYPE, FOCUS_CURRENCY}
    | {FOCUS_BILLING_START, FOCUS_BILLING_END, FOCUS_DISCOUNTS, FOCUS_QUANTITY, FOCUS_UNIT, FOCUS_CATEGORY}
    | {COST_EXPLORER_TOTAL}
)

#: A HyperPod (SageMaker) instance type inside a usage type or product attribute.
_ML_INSTANCE = re.compile(r"\bml\.[a-z0-9-]+\.[a-z0-9]+")


# --- what is read -----------------------------------------------------------------------------


@dataclass
class _Sums:
    """The sums a used line adds to: the cost, per instance type, from prorated lines, per kind."""

    amount: Decimal = Decimal(0)
    by_instance_type: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    prorated: Decimal = Decimal(0)
    by_kind: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))


@dataclass
class ExportedCost:
    """The shared platform's cost in the period, as one or more export files gave it."""

    format: str
    basis: str
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
    by_kind: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    #: Each used line's cells (hashed) and where it was first read: the same line in two parts.
    _lines_seen: dict[int, tuple[str, str]] = field(default_factory=dict, repr=False)

    def note_charge_end(self, row: Sequence[Any], placed: _ChargePeriods, where: str) -> None:
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
        if self.format == "Cost Explorer":
            return (
                f"from {files} (Cost Explorer, {self.lines_used} of {self.lines_read} rows; a Cost Explorer download "
                f"has no tags: it must be filtered to the cost category value shared-platform or the tag "
                f"{naming.TAG_PLATFORM}, with the {self.basis} costs chosen in Cost Explorer)"
            )
        return (
            f"from {files} ({self.format}, {self.basis} cost: {self.lines_used:,} of {self.lines_read:,} lines, those "
            f"tagged {naming.TAG_PLATFORM}={naming.PLATFORM_SHARED} in the period)"
        )


@dataclass(frozen=True)
class Period:
    """The statement's days as UTC instants: [start, end)."""

    first_day: date
    last_day: date

    @property
    def start(self) -> datetime:
        return datetime(self.first_day.year, self.first_day.month, self.first_day.day, tzinfo=UTC)

    @property
    def end(self) -> datetime:
        return self.start + timedelta(days=(self.last_day - self.first_day).days + 1)


# --- opening a file: plain, gzip, zip or Parquet ----------------------------------------------


@dataclass
class Part:
    """One table of an export file: a CSV (maybe a zip member) or a Parquet file."""

    name: str
    header: list[str]
    #: (where, row): `where` names the line ("a.csv, line 7") or row; cells as the file holds them.
    rows: Iterator[tuple[str, Sequence[Any]]]


def open_parts(path: Path, display: str) -> Iterator[Part]:
    """The tables of an export file, by what its first bytes say it is."""
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic == b"PAR1":
        yield _parquet_part(path, display)
    elif magic.startswith(b"PK"):
        yield from _zip_parts(path, display)
    elif magic.startswith(b"\x1f\x8b"):
        yield from _csv_parts(lambda: gzip.open(path, "rt", encoding="utf-8-sig", newline=""), display)
    else:
        yield from _csv_parts(lambda: path.open(encoding="utf-8-sig", newline=""), display)


def _csv_parts(opener: Callable[[], io.TextIOBase], display: str) -> Iterator[Part]:
    with _readable(display):
        with opener() as handle:
            yield from _csv_part(handle, display)


@contextmanager
def _readable(where: str) -> Iterator[None]:
    """What goes wrong while reading a file, as the user's error naming it."""
    try:
        yield
    except UnicodeDecodeError:
        raise CostExportError(f"{where} is not UTF-8 text") from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:
        raise CostExportError(f"{where} is not a complete gzip file: {error}") from None
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError) as error:
        raise CostExportError(f"{where} cannot be read from the zip file: {error}") from None
    except csv.Error as error:  # e.g. a NUL byte, or a quoted cell that never ends
        raise CostExportError(f"{where} is not a CSV file as AWS writes them: {error}") from None


def _zip_parts(path: Path, display: str) -> Iterator[Part]:
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as error:
        raise CostExportError(f"{display} is not a zip file: {error}") from None
    with archive:
        members = [m for m in archive.infolist() if not m.is_dir() and not m.filename.startswith("__MACOSX/")]
        if not members:
            raise CostExportError(f"{display} is a zip file with no file in it")
        for member in members:
            where = f"{display}:{member.filename}"
            with _readable(where):
                with archive.open(member) as raw, io.TextIOWrapper(raw, encoding="utf-8-sig", newline="") as text:
                    yield from _csv_part(text, where)


def _bounded_lines(handle: io.TextIOBase, where: str) -> Iterator[str]:
    """The file's lines, each bounded; a file whose last line has no line break was cut short (AWS
    ends every line of an export with one): refused, not read as a shorter bill."""
    number = 0
    while line := handle.readline(MAX_LINE_CHARS + 1):
        number += 1
        if len(line) > MAX_LINE_CHARS:
            raise CostExportError(f"{where}, line {number}: more than {MAX_LINE_CHARS:,} characters on one line")
        if not line.endswith(("\n", "\r")) and number > 1:
            raise CostExportError(
                f"{where}, line {number}: the file ends inside this line (no line break after it): the download "
                "was cut short; download the file again"
            )
        yield line


def _csv_part(handle: io.TextIOBase, where: str) -> Iterator[Part]:
    reader = csv.reader(_bounded_lines(handle, where))
    header = next(reader, None)
    if not header or not "".join(header).strip():
        raise CostExportError(
            f"{where}, line 1: empty file; expected a cost export (CUR, CUR 2.0, FOCUS or Cost Explorer)"
        )

    def rows() -> Iterator[tuple[str, Sequence[Any]]]:
        with _readable(where):  # the rows are read after this generator has handed the part over
            for row in reader:
                if not row or not "".join(row).strip():
                    continue
                at = f"{where}, line {reader.line_num}"
                if len(row) != len(header):
                    raise CostExportError(f"{at}: {len(row)} columns, the header has {len(header)}")
                yield at, row

    yield Part(where, [name.strip() for name in header], rows())


def _parquet_part(path: Path, display: str) -> Part:
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise CostExportError(
            f"{display} is a Parquet file; reading Parquet needs pyarrow: {PARQUET_INSTALL}"
        ) from None
    import pyarrow

    try:
        table = parquet.ParquetFile(path)
        # Only the columns a reader of any format looks at: a CUR has a hundred and more.
        header = [name for name in table.schema_arrow.names if name in _READ_COLUMNS]
    except (pyarrow.ArrowException, OSError) as error:
        raise CostExportError(f"{display} is not a Parquet file pyarrow can read: {error}") from None

    def rows() -> Iterator[tuple[str, Sequence[Any]]]:
        number = 0
        try:
            for batch in table.iter_batches(batch_size=8192, columns=header):
                columns = [batch.column(i).to_pylist() for i in range(batch.num_columns)]
                for row in zip(*columns, strict=True):
                    number += 1
                    yield f"{display}, row {number}", row
        except (pyarrow.ArrowException, OSError) as error:
            raise CostExportError(f"{display}, after row {number}: pyarrow cannot read it: {error}") from None

    return Part(display, header, rows())


# --- cells ------------------------------------------------------------------------------------


def _money(value: Any, column: str, where: str) -> Decimal:
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


def _instant(value: Any, column: str, where: str) -> datetime:
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


def _tags(value: Any, column: str, where: str) -> dict:
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


def _map_says_shared(cell: Any, column: str, where: str) -> bool:
    """Whether a tags map (CUR 2.0 `resource_tags`, FOCUS `Tags`) tags the line shared. Every cell
    is parsed, whatever it holds: a damaged one (a download cut inside it, a lone `{`) is refused
    with its line, never read as a line without tags."""
    if cell is None or cell == "":
        return False
    return _shared(_tags(cell, column, where))


def _charge_period(
    row: Sequence[Any], start_at: int, end_at: int | None, names: tuple[str, str], where: str
) -> tuple[datetime, datetime | None]:
    """A line's charge period in UTC: its start, and its end when the export gives one."""
    start = _instant(row[start_at], names[0], where)
    if end_at is None or row[end_at] in (None, ""):
        return start, None
    return start, _instant(row[end_at], names[1], where)


class _ChargePeriods:
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
            found = self.memo[key] = (start, end, _overlap(start, end, self.period))
        return found


def instance_type_of(*values: Any) -> str | None:
    """The HyperPod instance type a product attribute or a usage type names (`ml.p5.48xlarge`,
    `USE1-ml.p5.48xlarge-...`), or None."""
    for value in values:
        if isinstance(value, str) and (match := _ML_INSTANCE.search(value)):
            return match.group(0)
    return None


# --- reading ----------------------------------------------------------------------------------


def read_cost_exports(
    parts: Iterable[tuple[str, Iterable[Part]]], period: Period, basis: str = NET_AMORTIZED
) -> ExportedCost:
    """The shared platform's cost in `period` from every part of one export (files given as
    (display name, parts))."""
    basis = cost_basis(basis)
    result: ExportedCost | None = None
    for display, file_parts in parts:
        for part in file_parts:
            reader, kind = _reader_of(part)
            if result is None:
                result = ExportedCost(kind, basis)
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
    _finish(result, period)
    return result


def _reader_of(part: Part) -> tuple[Callable[[Part, Period, ExportedCost], None], str]:
    names = set(part.header)
    if COST_EXPLORER_TOTAL in names:
        return _read_cost_explorer, "Cost Explorer"
    if FOCUS_START in names and names & {FOCUS_EFFECTIVE, FOCUS_BILLED}:
        return _read_focus, "FOCUS"
    if LEGACY_CUR.unblended in names:
        return (lambda p, period, out: _read_cur(p, period, out, LEGACY_CUR)), LEGACY_CUR.format
    if SNAKE_CUR.unblended in names:
        kind = "CUR 2.0" if SNAKE_CUR.tag_map in names else SNAKE_CUR.format
        return (lambda p, period, out: _read_cur(p, period, out, SNAKE_CUR)), kind
    raise CostExportError(
        f"{part.name}, line 1: no {LEGACY_CUR.unblended} or {SNAKE_CUR.unblended} column (a Cost and Usage Report), "
        f"no {FOCUS_START} with {FOCUS_EFFECTIVE} or {FOCUS_BILLED} (FOCUS) and no {COST_EXPLORER_TOTAL!r} (a Cost "
        "Explorer download): "
        "give one of those exports, or the cost with --cost"
    )


def _no_tag_column(part: Part, looked_for: list[str]) -> CostExportError:
    return CostExportError(
        f"{part.name}, line 1: no column holds the tag {naming.TAG_PLATFORM} (looked for "
        f"{', '.join(looked_for)}): without it the shared platform's lines cannot be told from the rest of the bill. "
        f"Activate {naming.TAG_PLATFORM} as a cost allocation tag in the payer account (Billing console, Cost "
        "allocation tags) and include resource tags in the export"
    )


def _overlap(start: datetime, end: datetime | None, period: Period) -> Decimal:
    """The fraction of a line's charge period inside the statement's period."""
    if end is None or end <= start:
        return Decimal(1) if period.start <= start < period.end else Decimal(0)
    inside = min(end, period.end) - max(start, period.start)
    if inside <= timedelta(0):
        return Decimal(0)
    if inside == end - start:
        return Decimal(1)
    return Decimal(inside.total_seconds()) / Decimal((end - start).total_seconds())


def _add(
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
    _add_to(out._with_discount_lines, other, start, end, itype, kind)


def _add_to(sums: _Sums, share: Decimal, start: datetime, end: datetime | None, itype, kind: str) -> None:
    sums.amount += share
    sums.by_kind[kind] += share
    if itype:
        sums.by_instance_type[itype] += share
    if end is not None and end - start > timedelta(days=1):
        sums.prorated += share


#: Line item types of Savings Plans and Reserved Instance fees (their unused commitment).
_COMMITMENT_FEES = frozenset({"SavingsPlanRecurringFee", "SavingsPlanUpfrontFee", "RIFee"})
#: Line item types of discounts given as their own lines (legacy CUR; CUR 2.0 with "manual
#: discount compatibility"): negative amounts, counted on the net bases only.
DISCOUNT_LINE_TYPES = frozenset(
    {"EdpDiscount", "PrivateRateDiscount", "BundledDiscount", "SppDiscount", "DistributorDiscount"}
    | {"RiVolumeDiscount", "Discount"}
)


def _read_cur(part: Part, period: Period, out: ExportedCost, names: CurColumns) -> None:
    at = {name: i for i, name in enumerate(part.header)}
    tag_at, map_at = at.get(names.tag_column), at.get(names.tag_map) if names.tag_map else None
    if tag_at is None and map_at is None:
        looked = [names.tag_column, f"{names.tag_map} (a map with the key {TAG_KEYS[2]})"] if names.tag_map else []
        raise _no_tag_column(part, looked or [LEGACY_CUR.tag_column, SNAKE_CUR.tag_column, "resource_tags"])
    start_at = at.get(names.start)
    if start_at is None:
        raise CostExportError(f"{part.name}, line 1: no {names.start} column: the lines cannot be placed in the period")
    end_at, type_at = at.get(names.end), at.get(names.line_type)
    if amortized(out.basis) and type_at is None:
        _note_once(
            out,
            f"{part.name} has no {names.line_type} column: Savings Plans and Reserved Instance lines cannot be told "
            "from usage, so every line counts at its unblended cost (an export from AWS has the column)",
        )
    cost_at, period_names = at[names.unblended], (names.start, names.end)
    product_at, usage_type_at = at.get(names.instance_type), at.get(names.usage_type)
    currency_at, split_at = at.get(names.currency), at.get(names.split_parent) if names.split_parent else None
    quantity_at, unit_at = at.get(names.usage_amount), at.get(names.pricing_unit)
    id_at, interval_at = at.get(names.line_id), at.get(names.time_interval)
    billing_at = (at.get(names.billing_start), at.get(names.billing_end))

    def cost(row: Sequence[Any], line_type: str, where: str) -> tuple[Decimal, Decimal]:
        return _cur_line_cost(row, line_type, out.basis, names, cost_at, where, column)

    column = _column_reader(at, type_at, out.basis)
    placed = _ChargePeriods(start_at, end_at, period_names, period)

    for where, row in part.rows:
        out.lines_read += 1
        billed = _billing_period(out, row, billing_at, where)
        out.note_charge_end(row, placed, where)
        shared = _cur_line_shared(row, tag_at, map_at, names, where)
        line_type = str(row[type_at] or "").strip() if type_at is not None else ""
        if not shared or (split_at is not None and str(row[split_at] or "").strip()):
            # Another workload's line, or a pod's share of a node whose own line counts: in the
            # export's total of the period, not in the statement.
            in_period = placed(row, where)[2]
            _leave_out(out, shared, line_type, in_period, partial(cost, row, line_type, where),
                       partial(_money, row[cost_at], names.unblended, where))  # fmt: skip
            continue
        start, end, fraction = placed(row, where)
        if not fraction:
            if _a_correction(billed, start, end, period):
                out.note_correction(cost(row, line_type, where)[0], where)
            continue
        if line_type in DISCOUNT_LINE_TYPES and not net(out.basis):
            out.discount_lines_left += 1
            out.discount_lines_left_amount += _money(row[cost_at], names.unblended, where) * fraction
            continue
        amount, gross_or_line = cost(row, line_type, where)
        identity = (row[id_at], row[interval_at]) if id_at is not None and interval_at is not None else None
        out.note_line(row, part.name, where, identity)
        if currency_at is not None:
            out.note_currency(row[currency_at], where)
        itype = instance_type_of(
            row[product_at] if product_at is not None else None,
            row[usage_type_at] if usage_type_at is not None else None,
        )
        _add(out, amount, fraction, start, end, itype, gross_or_line, _cur_kind(line_type))
        if line_type in DISCOUNT_LINE_TYPES:
            _add_to(out._discount_line_sums, amount * fraction, start, end, itype, _cur_kind(line_type))
        _note_discount(out, line_type, amount, gross_or_line, fraction)
        if line_type in _RUNNING_TYPES and quantity_at is not None:
            unit = row[unit_at] if unit_at is not None else None
            note_instance_hours(out, itype, row[quantity_at], unit, start, end, fraction, where)


def _column_reader(at: dict[str, int], type_at: int | None, basis: str) -> Callable[..., Any]:
    """A row's cell by column name: "" for an optional column the export lacks; a required one
    it lacks is refused, naming the line, the column and the basis that does without it."""

    def column(row: Sequence[Any], name: str, where: str, required: bool = True) -> Any:
        index = at.get(name)
        if index is None and not required:
            return ""
        if index is None:
            raise CostExportError(
                f"{where}: a {row[type_at] if type_at is not None else ''} line, but the export has no {name} column "
                f"for its {basis} cost; give the export with it, or --cost-basis "
                f"{'net' if net(basis) else 'gross'}-unblended"
            )
        return row[index]

    return column


def _note_once(out: ExportedCost, note: str) -> None:
    if note not in out.notes:
        out.notes.append(note)


def _cur_line_cost(
    row, line_type: str, basis: str, names: CurColumns, cost_at: int, where: str, column
) -> tuple[Decimal, Decimal]:
    """A CUR line's cost on the basis, and its cost with discounts counted as lines (its gross
    cost, or a discount line's amount)."""
    if line_type in DISCOUNT_LINE_TYPES:
        amount = _money(row[cost_at], names.unblended, where) if net(basis) else Decimal(0)
        return amount, amount
    gross = _cur_gross(row, line_type, amortized(basis), names, cost_at, where, column)
    if not net(basis):
        return gross, gross
    return _cur_net(row, line_type, amortized(basis), gross, names, cost_at, where, column), gross


#: Line item types whose usage amount is a node's running hours (not its negation or a credit).
_RUNNING_TYPES = frozenset({"Usage", "SavingsPlanCoveredUsage", "DiscountedUsage", ""})
#: Units of instance-hours as the exports write them (CUR `pricing/unit` "Hrs"; FOCUS "Hours").
_HOUR_UNITS = frozenset({"hrs", "hr", "hours", "hour", "instance-hours", "instance hours"})


def note_instance_hours(
    out: ExportedCost, itype: str | None, quantity: Any, unit: Any, start: datetime, end: datetime | None,
    fraction: Decimal, where: str,
) -> None:  # fmt: skip
    """A used line's instance-hours of a HyperPod instance type: its usage amount when its unit is
    hours (or the export says no unit), in the period's part of it."""
    if not itype or quantity in (None, "") or (unit not in (None, "") and str(unit).strip().lower() not in _HOUR_UNITS):
        return
    hours = _money(quantity, "usage amount", where) * fraction
    if hours <= 0:
        return
    out.billed_hours[itype] += hours
    if end is None or end - start <= timedelta(days=1):
        out.billed_hours_by_day[(start.date(), itype)] += hours


#: The kinds of the shared platform's lines the reconciliation shows, in its order.
KIND_USAGE, KIND_COMMITMENT, KIND_DISCOUNTS = (
    "usage",
    "unused Savings Plans and Reserved Instance commitment",
    "discount lines",
)
KIND_CREDITS, KIND_TAX, KIND_OTHER = "credits and refunds", "tax", "fees and other charges"
KINDS = (KIND_USAGE, KIND_COMMITMENT, KIND_DISCOUNTS, KIND_CREDITS, KIND_TAX, KIND_OTHER)
_CUR_KINDS = {
    **dict.fromkeys(("Usage", "SavingsPlanCoveredUsage", "SavingsPlanNegation", "DiscountedUsage", ""), KIND_USAGE),
    **dict.fromkeys(_COMMITMENT_FEES, KIND_COMMITMENT),
    **dict.fromkeys(DISCOUNT_LINE_TYPES, KIND_DISCOUNTS),
    **dict.fromkeys(("Credit", "Refund"), KIND_CREDITS),
    "Tax": KIND_TAX,
}
#: FOCUS ChargeCategory values (FOCUS 1.x: Usage, Purchase, Tax, Credit, Adjustment).
_FOCUS_KINDS = {"Usage": KIND_USAGE, "Purchase": KIND_COMMITMENT, "Tax": KIND_TAX, "Credit": KIND_CREDITS}


def _cur_kind(line_type: str) -> str:
    return _CUR_KINDS.get(line_type, KIND_OTHER)


def _leave_out(
    out: ExportedCost,
    shared: bool,
    line_type: str,
    in_period: Decimal,
    cost: Callable[[], tuple[Decimal, Decimal]],
    unblended: Callable[[], Decimal],
) -> None:
    """A line that is not the statement's, another workload's or a split row, counted for the
    notes and the reconciliation: at its cost on the basis, or unblended where the export lacks a
    column of the basis (the statement does not need it, so neither does this line)."""
    if shared:
        out.split_rows += 1
    else:
        _note_untagged(out, line_type, in_period)
    if not in_period:
        return
    try:
        amount = cost()[0]
    except CostExportError:
        amount = unblended()
        out.left_out_unblended += 1
    if shared:
        out.split_amount += amount * in_period
    else:
        out.untagged_amount += amount * in_period
        if line_type in DISCOUNT_LINE_TYPES:
            out.untagged_discount_amount += amount * in_period


def _note_untagged(out: ExportedCost, line_type: str, in_period: Decimal) -> None:
    """A commitment fee or discount line without the platform tag: counted for the notes."""
    if not in_period:
        return
    out.untagged_lines += 1
    if line_type in _COMMITMENT_FEES:
        out.untagged_commitment_lines += 1
    elif line_type in DISCOUNT_LINE_TYPES and net(out.basis):
        out.untagged_discount_lines += 1


def _note_discount(out: ExportedCost, line_type: str, amount: Decimal, gross: Decimal, fraction: Decimal) -> None:
    """The discount a used line brings: a discount line's amount, or its net less its gross."""
    if line_type in DISCOUNT_LINE_TYPES:
        out.discount_lines += 1
        out.discount_lines_amount += amount * fraction
    elif net(out.basis):
        out.discounts += (amount - gross) * fraction


def _cur_line_shared(row: Sequence[Any], tag_at: int | None, map_at: int | None, names: CurColumns, where: str) -> bool:
    """Whether a CUR line carries the platform tag's value `shared`: its own column, or the map."""
    if tag_at is not None:
        return row[tag_at] == naming.PLATFORM_SHARED or str(row[tag_at] or "").strip() == naming.PLATFORM_SHARED
    assert map_at is not None
    return _map_says_shared(row[map_at], names.tag_map or "", where)


def _cur_gross(row, line_type: str, amortize: bool, names: CurColumns, cost_at: int, where: str, column) -> Decimal:
    """A CUR line's cost before discounts: FOCUS's EffectiveCost rules for AWS when amortized (the
    FinOps Foundation's converter, effective_cost_S001.yaml), the unblended cost otherwise."""
    unblended = _money(row[cost_at], names.unblended, where)
    if not amortize:
        return unblended
    if line_type == "SavingsPlanCoveredUsage":
        return _money(column(row, names.sp_effective, where), names.sp_effective, where)
    if line_type in ("SavingsPlanNegation", "SavingsPlanUpfrontFee"):
        return Decimal(0)
    if line_type == "SavingsPlanRecurringFee":
        committed = _money(column(row, names.sp_commitment_to_date, where), names.sp_commitment_to_date, where)
        used = _money(column(row, names.sp_used_commitment, where), names.sp_used_commitment, where)
        return committed - used
    if line_type == "DiscountedUsage":
        return _money(column(row, names.ri_effective, where), names.ri_effective, where)
    if line_type == "RIFee":
        upfront = _money(column(row, names.ri_unused_upfront, where), names.ri_unused_upfront, where)
        recurring = _money(column(row, names.ri_unused_recurring, where), names.ri_unused_recurring, where)
        return upfront + recurring
    # A CUR of an account without Reserved Instances has no ARN column: no Fee line is an RI's.
    if line_type == "Fee" and str(column(row, names.ri_arn, where, False) or "").strip():
        return Decimal(0)  # a Reserved Instance's upfront payment, amortized over its usage
    return unblended


def _cur_net(
    row, line_type: str, amortize: bool, gross: Decimal, names: CurColumns, cost_at: int, where: str, column
) -> Decimal:
    """A CUR line's cost after every discount: the export's net column for the line, where the
    account had a discount in the billing period (AWS writes the Net columns only then); else the
    gross cost plus the line's discounts (CUR 2.0 `discount_total_discount`, or its `discount`
    map); else the gross cost (no discount). A covered line's discounts are on its effective cost:
    unblended, its usage and its negation cancel.

    A Savings Plan's recurring fee has no net column for its unused part: it is the gross unused
    commitment times the plan's net over gross commitment for the billing period (e.g. 3,000.00
    unused of a 43,000.00 fee whose net is 40,850.00: 3,000.00 x 40,850 / 43,000 = 2,850.00)."""

    def cell(name: str) -> Decimal | None:
        value = column(row, name, where, False) if name else ""
        return None if value is None or str(value).strip() == "" else _money(value, name, where)

    def net_or_discounted(name: str) -> Decimal:
        value = cell(name)
        return gross + _line_discount(row, names, where, column) if value is None else value

    if not amortize or line_type not in _AMORTIZED_TYPES:
        if amortize and line_type == "Fee" and str(column(row, names.ri_arn, where, False) or "").strip():
            return Decimal(0)
        value = cell(names.net_unblended)
        if value is not None:
            return value
        if line_type in ("SavingsPlanCoveredUsage", "DiscountedUsage"):
            return gross  # its discount is on its effective cost; unblended, usage and negation cancel
        return gross + _line_discount(row, names, where, column)
    if line_type == "SavingsPlanCoveredUsage":
        return net_or_discounted(names.sp_net_effective)
    if line_type == "DiscountedUsage":
        return net_or_discounted(names.ri_net_effective)
    if line_type == "RIFee":
        upfront, recurring = cell(names.ri_net_unused_upfront), cell(names.ri_net_unused_recurring)
        if upfront is None and recurring is None:
            return gross
        return (upfront or Decimal(0)) + (recurring or Decimal(0))
    if line_type == "SavingsPlanRecurringFee":
        net_fee = [cell(names.sp_net_upfront_commitment), cell(names.sp_net_recurring_commitment)]
        fee = [cell(names.sp_upfront_commitment), cell(names.sp_recurring_commitment)]
        if all(v is None for v in net_fee) or not sum(v or 0 for v in fee):
            return gross
        with localcontext() as context:
            context.prec = 40
            return gross * sum(v or 0 for v in net_fee) / sum(v or 0 for v in fee)
    return gross  # the negation and upfront fee of a Savings Plan: 0 either way


#: Lines whose amortized cost is not their unblended cost (see _cur_gross).
_AMORTIZED_TYPES = frozenset(
    {"SavingsPlanCoveredUsage", "SavingsPlanNegation", "SavingsPlanUpfrontFee", "SavingsPlanRecurringFee"}
    | {"DiscountedUsage", "RIFee"}
)


def _line_discount(row, names: CurColumns, where: str, column) -> Decimal:
    """The discounts on one line (negative): its total column, else the sum of its map."""
    total = column(row, names.discount_total, where, False) if names.discount_total else ""
    if total is not None and str(total).strip() != "":
        return _money(total, names.discount_total, where)
    if names.discount_map:
        return discount_of_map(column(row, names.discount_map, where, False), names.discount_map, where)
    return Decimal(0)


def discount_of_map(cell: Any, column: str, where: str) -> Decimal:
    """The total of a map of discounts (CUR 2.0 `discount`, FOCUS `x_Discounts`): its
    `total_discount` key where it has one, else the sum of its amounts (keys of text are not
    amounts: the map may hold e.g. a discount's name)."""
    discounts = _tags(cell, column, where)
    if "total_discount" in discounts:
        return _money(discounts["total_discount"], f"{column}.total_discount", where)
    total = Decimal(0)
    for key, value in discounts.items():
        if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
            total += _money(value, f"{column}.{key}", where)
        elif isinstance(value, str):
            try:
                total += _money(value, f"{column}.{key}", where)
            except CostExportError:
                continue
    return total


def _read_focus(part: Part, period: Period, out: ExportedCost) -> None:
    at = {name: i for i, name in enumerate(part.header)}
    if FOCUS_TAGS not in at:
        raise _no_tag_column(part, [f"{FOCUS_TAGS} (a map with the key {TAG_KEYS[0]})"])
    tags_at, start_at, end_at = at[FOCUS_TAGS], at[FOCUS_START], at.get(FOCUS_END)
    cost_column = FOCUS_EFFECTIVE if amortized(out.basis) else FOCUS_BILLED
    if cost_column not in at:
        other = NET_UNBLENDED if amortized(out.basis) else NET_AMORTIZED
        raise CostExportError(
            f"{part.name}, line 1: no {cost_column} column for the {out.basis} cost of a FOCUS export; give the export "
            f"with it, or --cost-basis {other}"
        )
    if not net(out.basis):
        # EffectiveCost and BilledCost are after every discount, and FOCUS has no column of the
        # cost before them (AWS's x_Discounts names a row's discounts, not which cost they left).
        raise CostExportError(
            f"{part.name}: a FOCUS export states its costs after every discount ({cost_column}): it has no "
            f"{out.basis} cost. Give a Cost and Usage Report of the same period for the cost before discounts, or "
            f"--cost-basis net-{out.basis.split('-', 1)[1]}"
        )
    discounts_at = at.get(FOCUS_DISCOUNTS)
    placed = _ChargePeriods(start_at, end_at, (FOCUS_START, FOCUS_END), period)
    quantity_at, unit_at, category_at = at.get(FOCUS_QUANTITY), at.get(FOCUS_UNIT), at.get(FOCUS_CATEGORY)
    cost_at, usage_type_at, currency_at = at[cost_column], at.get(FOCUS_USAGE_TYPE), at.get(FOCUS_CURRENCY)

    def cost(row: Sequence[Any], where: str) -> tuple[Decimal, Decimal]:
        """The row's cost, and before its discounts as far as AWS's x_Discounts names them."""
        amount = _money(row[cost_at], cost_column, where)
        if discounts_at is None:
            return amount, amount
        return amount, amount - discount_of_map(row[discounts_at], FOCUS_DISCOUNTS, where)

    billing_at = (at.get(FOCUS_BILLING_START), at.get(FOCUS_BILLING_END))
    for where, row in part.rows:
        out.lines_read += 1
        billed = _billing_period(out, row, billing_at, where)
        out.note_charge_end(row, placed, where)
        start, end, fraction = placed(row, where)
        if not _map_says_shared(row[tags_at], FOCUS_TAGS, where):
            if fraction:
                out.untagged_lines += 1
                out.untagged_amount += cost(row, where)[0] * fraction
            continue
        if not fraction:
            if _a_correction(billed, start, end, period):
                out.note_correction(cost(row, where)[0], where)
            continue
        amount, gross = cost(row, where)
        out.note_line(row, part.name, where)
        if currency_at is not None:
            out.note_currency(row[currency_at], where)
        itype = instance_type_of(row[usage_type_at] if usage_type_at is not None else None)
        kind = _FOCUS_KINDS.get(str(row[category_at] or "") if category_at is not None else "Usage", KIND_OTHER)
        _add(out, amount, fraction, start, end, itype, kind=kind)
        out.discounts += (amount - gross) * fraction
        if quantity_at is not None and (category_at is None or row[category_at] == "Usage"):
            note_instance_hours(out, itype, row[quantity_at], row[unit_at] if unit_at is not None else None,
                                start, end, fraction, where)  # fmt: skip


def _read_cost_explorer(part: Part, period: Period, out: ExportedCost) -> None:
    total_at = part.header.index(COST_EXPLORER_TOTAL)
    out.note_currency("USD", f"{part.name}, line 1 ({COST_EXPLORER_TOTAL!r})")
    days: dict[date, Decimal] = {}
    for where, row in part.rows:
        out.lines_read += 1
        label = str(row[0]).strip()
        if label.lower().endswith(" total"):
            continue
        try:
            day = date.fromisoformat(label)
        except ValueError:
            raise CostExportError(f"{where}: {label!r} is neither a date nor the total row") from None
        if day in days:
            raise CostExportError(f"{where}: a second row for {day}")
        days[day] = _money(row[total_at], COST_EXPLORER_TOTAL, where)
    if not days:
        raise CostExportError(f"{part.name}: no row of a day or month")
    ordered = sorted(days)
    one_day = period.first_day == period.last_day
    monthly = all(d.day == 1 for d in ordered) and not (one_day and ordered == [period.first_day])
    monthly = monthly and (
        len(ordered) == 1 or any((b - a).days > 1 for a, b in zip(ordered, ordered[1:], strict=False))
    )
    if monthly:
        months = _months_between(period)
        whole = period.first_day.day == 1 and (period.last_day + timedelta(days=1)).day == 1
        if not whole or any(date(y, m, 1) not in days for y, m in months):
            raise CostExportError(
                f"{part.name}: a monthly Cost Explorer download (one row per month) cannot be divided to the "
                f"statement's {period.first_day} to {period.last_day}: download it with daily granularity for those "
                "days"
            )
        for y, m in months:
            out.amount += days[date(y, m, 1)]
            out.lines_used += 1
        return
    every_day = (period.first_day + timedelta(days=n) for n in range((period.last_day - period.first_day).days + 1))
    missing = [d for d in every_day if d not in days]
    if missing:
        more = f" and {len(missing) - 1} more days" if len(missing) > 1 else ""
        raise CostExportError(
            f"{part.name}: no row for {missing[0]}{more} of the statement's {period.first_day} to {period.last_day}: "
            "download Cost Explorer's daily costs for those days"
        )
    for day, amount in days.items():
        if period.first_day <= day <= period.last_day:
            out.amount += amount
            out.lines_used += 1


def _months_between(period: Period) -> list[tuple[int, int]]:
    months, day = [], period.first_day
    while day <= period.last_day:
        months.append((day.year, day.month))
        day = (day.replace(day=1) + timedelta(days=32)).replace(day=1)
    return months


CENT = Decimal("0.01")


def _billing_period(
    out: ExportedCost, row: Sequence[Any], at: tuple[int | None, int | None], where: str
) -> tuple[datetime, datetime] | None:
    """The line's billing period, each distinct one read once and kept in `out`; None where the
    export has no such columns or the line leaves them empty."""
    start_at, end_at = at
    if start_at is None or end_at is None:
        return None
    key = (str(row[start_at] or ""), str(row[end_at] or ""))
    if not all(key):
        return None
    span = out.billing_periods.get(key)
    if span is None:
        span = out.billing_periods[key] = (
            _instant(row[start_at], "billing period start", where),
            _instant(row[end_at], "billing period end", where),
        )
    return span


def _a_correction(
    billed: tuple[datetime, datetime] | None, start: datetime, end: datetime | None, period: Period
) -> bool:
    """A line dated before the period that its export bills in a billing period overlapping it (a
    refund in December's export for Nov 10, stating December): known only where the export says
    each line's billing period."""
    if billed is None or (end or start) > period.start:
        return False
    return billed[0] < period.end and billed[1] > period.start


def _covered(out: ExportedCost, period: Period) -> None:
    """The statement's period within the billing periods the exports hold, without a gap: a
    statement of Nov 25 to Dec 5 from November's export alone charged 11 days of capacity with 6
    days of cost. Exports without billing-period columns say nothing here."""
    if not out.billing_periods:
        return
    spans = sorted(out.billing_periods.values())
    reached, gaps = period.start, []
    for start, end in spans:
        if end <= reached:
            continue
        if start > reached and reached < period.end:
            gaps.append((reached, min(start, period.end)))
        reached = max(reached, end)
    if reached < period.end:
        gaps.append((reached, period.end))
    if gaps:
        held = ", ".join(f"{s.date()} to {(e - timedelta(days=1)).date()}" for s, e in spans)
        missing = ", ".join(f"{s.date()} to {(e - timedelta(days=1)).date()}" for s, e in gaps)
        raise CostExportError(
            f"the exports hold the billing period{'s' if len(spans) != 1 else ''} {held}, but the statement's period "
            f"is {period.first_day} to {period.last_day}: {missing} has no cost in them. Give the export of every "
            "billing period the usage reports cover, or usage reports of the exports' period"
        )


#: How far before the statement's end the last hourly or daily charge may end: an hour without
#: any charge at all, and AWS's rounding of the last hour.
_LAST_CHARGE_SLACK = timedelta(hours=2)


def _reaches_the_end(out: ExportedCost, period: Period) -> None:
    """The exports' charges of an hour or a day run to the statement's end: a month-to-date
    delivery (a CUR refreshed daily through the month) used for the whole month gave 64 % of its
    cost. Refused, naming the last charge and the two ways on."""
    if out.last_charge_end is None or out.last_charge_end >= period.end - _LAST_CHARGE_SLACK:
        return
    last = out.last_charge_end.strftime("%Y-%m-%d %H:%M UTC")
    last_day = (out.last_charge_end - timedelta(seconds=1)).date()
    raise CostExportError(
        f"the exports' charges end at {last} ({out.last_charge_at}), but the statement's period runs to "
        f"{period.last_day}: a delivery of part of its billing period (month to date?) has no cost for the days "
        f"after. Give the export delivered after {period.last_day}, or usage reports up to {last_day}"
    )


def _finish(out: ExportedCost, period: Period) -> None:
    _covered(out, period)
    _reaches_the_end(out, period)
    in_net_costs = bool((out.discount_lines or out.untagged_discount_lines) and out.discounts)
    if in_net_costs:
        # Discounts as their own lines and in the lines' own net costs: counted once, in the lines' net
        # costs, which also hold the discounts of lines the statement does not count (an EDP on a Savings
        # Plan's fee is a discount line on the untagged fee, and in its covered lines' net effective cost).
        given = out._discount_line_sums
        out.amount -= given.amount
        out.prorated -= given.prorated
        for kind, amount in given.by_kind.items():
            out.by_kind[kind] -= amount
        for itype, amount in given.by_instance_type.items():
            out.by_instance_type[itype] -= amount
        out.untagged_amount -= out.untagged_discount_amount
        lines = out.discount_lines + out.untagged_discount_lines
        out.notes.append(
            f"the export gives its discounts twice: as {lines:,} discount line{'s' if lines != 1 else ''} and in the "
            f"lines' own net costs ({out.discounts.quantize(CENT):,} {out.statement_currency} on the platform's "
            "lines); they count once, in the net costs, which also hold the discounts of lines the statement does "
            "not count (a Savings Plan fee's discount is in its covered lines' net effective cost)"
        )
    elif out.discount_lines:
        out.discounts = out.discount_lines_amount
    if out.discount_lines_left:
        many = out.discount_lines_left != 1
        out.notes.append(
            f"{out.discount_lines_left:,} tagged discount line{'s' if many else ''} in the period "
            f"({out.discount_lines_left_amount.quantize(CENT):,} {out.statement_currency}) {'are' if many else 'is'} "
            f"not in the {out.basis} cost; --cost-basis net-{out.basis.split('-', 1)[1]} counts "
            f"{'them' if many else 'it'}"
        )
    if out.untagged_lines:
        many = out.untagged_lines != 1
        out.notes.append(
            f"{out.untagged_lines:,} line{'s' if many else ''} of the exports in the period carr"
            f"{'y' if many else 'ies'} no {naming.TAG_PLATFORM}={naming.PLATFORM_SHARED} tag (other workloads, the "
            f"account's own commitments and discounts; {out.untagged_amount.quantize(CENT):,} "
            f"{out.statement_currency} on the {out.basis} basis): not in this statement"
        )
    if out.untagged_discount_lines and not in_net_costs:
        many = out.untagged_discount_lines != 1
        out.notes.append(
            f"{out.untagged_discount_lines:,} discount line{'s' if many else ''} in the period carr"
            f"{'y' if many else 'ies'} no {naming.TAG_PLATFORM} tag (a discount on an account's Savings Plans fee, or "
            "on untagged usage): not in this statement"
        )
    if out.split_rows:
        many = out.split_rows != 1
        out.notes.append(
            f"{out.split_rows:,} split cost allocation row{'s' if many else ''} (a pod's share of its node, "
            f"splitLineItem/ParentResourceId) {'are' if many else 'is'} not counted: the node's own line is, and "
            "counting both would charge the node twice"
        )
    if out.corrections:
        many = out.corrections != 1
        out.notes.append(
            f"{out.corrections:,} tagged line{'s' if many else ''} billed in this period {'are' if many else 'is'} "
            f"dated before {period.first_day} (corrections or refunds of earlier days; first: {out.first_correction}): "
            f"{out.corrections_amount.quantize(Decimal('0.01')):,} {out.statement_currency} in no statement of this "
            "period. Add them to the statement of their days, or to this one by hand"
        )
    if out.prorated_lines:
        many = out.prorated_lines != 1
        out.notes.append(
            f"{out.prorated_lines:,} line{'s' if many else ''} of the export charged for more than a day (a month's "
            f"tax, fees or support) count{'' if many else 's'} for the part of {'their' if many else 'its'} charge "
            f"period in {period.first_day} to {period.last_day}: {out.prorated.quantize(Decimal('0.01')):,} "
            f"{out.statement_currency}"
        )
    if out.untagged_commitment_lines and amortized(out.basis):
        out.notes.append(
            f"{out.untagged_commitment_lines:,} Savings Plans or Reserved Instance fee line"
            f"{'s' if out.untagged_commitment_lines != 1 else ''} in the period carry no {naming.TAG_PLATFORM} tag: "
            "the unused part of those commitments is not in this statement (it stays with the account that bought them)"
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
