"""Print how long `chargeback --cost-from` takes on a large legacy CUR export (plain CSV and
gzip) and on CUR 2.0 Parquet, with the peak resident memory of the process.

Run: .venv-test/bin/python benchmarks/chargeback.py [MEGABYTES]   (a benchmark, not a test)

The export: a full month's realistic legacy CUR lines (the columns the reader uses and a dozen it
skips), a tenth tagged hyperpod-teams:platform=shared, every one in the generator's week.
"""

from __future__ import annotations

import gzip
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "tests" / "data" / "usage-reports"
SPEC = REPORTS / "teams.yaml"
USAGE = REPORTS / "main--summary-report-2026-11-01-2026-11-07.csv"

HEADER = (
    "identity/LineItemId,identity/TimeInterval,bill/PayerAccountId,lineItem/UsageAccountId,lineItem/LineItemType,"
    "lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/ProductCode,lineItem/UsageType,lineItem/Operation,"
    "lineItem/UsageAmount,lineItem/UnblendedRate,lineItem/UnblendedCost,lineItem/LineItemDescription,"
    "product/instanceType,savingsPlan/SavingsPlanEffectiveCost,reservation/EffectiveCost,"
    "resourceTags/user:hyperpod-teams:platform\n"
)


def line(n: int) -> str:
    day, hour = 1 + n % 7, n % 24
    tag = "shared" if n % 10 == 0 else ""
    kind, effective = ("SavingsPlanCoveredUsage", "61.45") if n % 3 == 0 else ("Usage", "")
    return (
        f"li{n:012d},2026-11-0{day}T{hour:02d}:00:00Z/2026-11-0{day}T{hour:02d}:59:59Z,444455556666,444455556666,"
        f"{kind},2026-11-0{day}T{hour:02d}:00:00Z,2026-11-0{day}T{hour:02d}:59:59Z,AmazonSageMaker,"
        f"USE1-ml.p5.48xlarge-hours,ClusterNode,1.0000000000,98.3200000000,98.3200000000,"
        f"HyperPod ml.p5.48xlarge instance hour,ml.p5.48xlarge,{effective},,{tag}\n"
    )


def write_export(path: Path, megabytes: int) -> int:
    lines = 0
    with path.open("w") as handle:
        handle.write(HEADER)
        while handle.tell() < megabytes * 1024 * 1024:
            handle.write("".join(line(lines + i) for i in range(10_000)))
            lines += 10_000
    return lines


def run(export: Path) -> tuple[float, int]:
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "chargeback", str(SPEC), "--usage", str(USAGE), "--cost-from",
         str(export), "--format", "csv"],
        capture_output=True, text=True,
    )  # fmt: skip
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(result.stderr)
    return elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024


def main() -> None:
    megabytes = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory() as folder:
        plain = Path(folder) / "cur.csv"
        lines = write_export(plain, megabytes)
        packed = Path(folder) / "cur.csv.gz"
        with plain.open("rb") as source, gzip.open(packed, "wb", compresslevel=6) as target:
            target.write(source.read())
        print(
            f"export: {plain.stat().st_size / 1e6:,.0f} MB, {lines:,} lines "
            f"({packed.stat().st_size / 1e6:,.0f} MB gzip)"
        )
        for name, path in (("csv", plain), ("csv.gz", packed)):
            elapsed, peak = run(path)
            print(f"{name:>8}: {elapsed:6.1f} s, peak resident {peak:,} MiB (largest child so far)")
        try:
            import pyarrow.csv as pacsv
            import pyarrow.parquet as parquet
        except ImportError:
            print(" parquet: skipped (pip install 'hyperpod-teams[parquet]')")
            return
        table = pacsv.read_csv(plain, convert_options=pacsv.ConvertOptions(strings_can_be_null=True))
        pq = Path(folder) / "cur.parquet"
        parquet.write_table(table, pq)
        elapsed, peak = run(pq)
        print(
            f" parquet: {elapsed:6.1f} s, peak resident {peak:,} MiB "
            f"(largest child so far; {pq.stat().st_size / 1e6:,.0f} MB)"
        )


if __name__ == "__main__":
    main()
