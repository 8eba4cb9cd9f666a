"""Opening a cost export's files: plain CSV, gzip, zip and Parquet, each part read line by line (lines
bounded, a cut last line refused), so memory stays flat whatever the export's size.

Pure layer.
"""

from __future__ import annotations

import csv
import gzip
import io
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyperpod_teams import naming
from hyperpod_teams.chargeback.basis import CostExportError
from hyperpod_teams.chargeback.export_columns import READ_COLUMNS
from hyperpod_teams.input_files import MAX_LINE_CHARS
from hyperpod_teams.install_hint import install_extras

#: The install that brings Parquet support.
PARQUET_INSTALL = install_extras("parquet")


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
        header = [name for name in table.schema_arrow.names if name in READ_COLUMNS]
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


def no_tag_column(part: Part, looked_for: list[str]) -> CostExportError:
    return CostExportError(
        f"{part.name}, line 1: no column holds the tag {naming.TAG_PLATFORM} (looked for "
        f"{', '.join(looked_for)}): without it the shared platform's lines cannot be told from the rest of the bill. "
        f"Activate {naming.TAG_PLATFORM} as a cost allocation tag in the payer account (Billing console, Cost "
        "allocation tags) and include resource tags in the export"
    )
