"""`hyperpod-teams chargeback`: the shared cluster's cost for a period divided among the teams, from
HyperPod's usage reports and a cost or the exports AWS delivers.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import click

from hyperpod_teams import naming
from hyperpod_teams.cli.common import (
    SPEC_ARGUMENT,
    bounded_text_or_exit,
    file_out_option,
    file_size_or_exit,
    format_option,
    load_platform_or_exit,
    refuse_to_overwrite_an_input,
    refuse_to_replace,
    same_file,
    user_error,
    write_output,
    write_output_bytes,
)
from hyperpod_teams.cli.group import cli
from hyperpod_teams.spec.clusters import SeveralClusters
from hyperpod_teams.spec.models import MAX_AMOUNT_USD


@cli.command()
@SPEC_ARGUMENT
@click.option(
    "--usage",
    "usage_files",
    multiple=True,
    required=True,
    metavar="REPORT.csv",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A summary usage report as HyperPod's report generator writes it (run.py --type summary "
    "--format csv); repeat for consecutive periods.",
)
@click.option(
    "--cost",
    "costs",
    multiple=True,
    metavar="AMOUNT",
    help="The cluster's cost for the reports' period, in USD (an export's own currency with --cost-from). "
    "With several clusters, CLUSTER=AMOUNT, once per cluster.",
)
@click.option(
    "--cost-from",
    "cost_files",
    multiple=True,
    metavar="EXPORT",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Read the cost from an export AWS delivers: a Cost and Usage Report (legacy, console or Athena column "
    "names, or CUR 2.0), a FOCUS 1.x export of AWS Data Exports, or a Cost Explorer download filtered to the shared "
    "platform; CSV, .csv.gz, .zip or Parquet. Repeat for the parts of one export. Only lines tagged "
    "hyperpod-teams:platform=shared count, prorated to the reports' period.",
)
@click.option(
    "--cost-basis",
    type=click.Choice(
        ["net-amortized", "net-unblended", "gross-amortized", "gross-unblended", "amortized", "unblended"]
    ),
    default="net-amortized",
    show_default=True,
    help="With --cost-from: net is after every discount (EDP, private rates: what is paid), gross before them; "
    "amortized spreads Savings Plans and Reserved Instances over the usage they cover (net-amortized is FOCUS's "
    "EffectiveCost, what finance charges back), unblended is each line as billed (net-unblended is FOCUS's "
    "BilledCost). amortized and unblended are the net ones.",
)
@format_option(
    "markdown",
    "html",
    "csv",
    "xlsx",
    help_text="Markdown for a pull request or an e-mail; HTML with a chart; CSV with one row per team "
    "(team, amount_usd, ...: amounts named by the statement's currency) for a finance system; with --out FILE, "
    "FILE.json beside it holds the period, currency, cost, sources, notes and the reconciliation; xlsx (with --out) "
    "a workbook whose amounts are numbers in the currency's format (pip extra 'xlsx').",
)
@file_out_option
def chargeback(
    spec_path: Path,
    usage_files: tuple[Path, ...],
    costs: tuple[str, ...],
    cost_files: tuple[Path, ...],
    cost_basis: str,
    output_format: str,
    out_file: Path | None,
    force: bool,
) -> None:
    """Divide the shared cluster's cost for a period among the teams of SPEC by the hours HyperPod's
    usage reports measured; what no team used is charged by the spec's cost.shared_split.

    The amounts sum exactly to the cost. Rows of namespaces that are no team of the spec, instance
    types the spec does not list and missing data periods are listed in the statement; a file that
    is not a summary usage report stops it (exit 2, naming the line).

    With a spec of several clusters (`clusters`), each report counts for the cluster its header
    names, each cluster's cost is its own (--cost CLUSTER=AMOUNT once per cluster, or the export's
    lines at the cluster's account and Region), and the statement has a line per team and cluster,
    each cluster's lines summing to its cost.

    \b
    Example (the month's Cost and Usage Report; --cost AMOUNT instead needs every CPU type of the
    cluster priced in cost.instance_prices_usd, as it cannot tell their part of one sum):
      hyperpod-teams chargeback teams.yaml --usage summary-report-2026-11-01-2026-11-30.csv \\
          --cost-from cur-2026-11-00001.csv.gz --format csv --out chargeback-2026-11.csv
    """
    from hyperpod_teams.chargeback import (
        DEFAULT_CURRENCY,
        ChargebackError,
        CostExportError,
        Place,
        compute_statement,
        render_statement,
        statement_metadata,
        statement_xlsx,
    )
    from hyperpod_teams.usage_report import UsageReportError

    refuse_to_overwrite_an_input(out_file, spec_path, *usage_files, *cost_files)
    if output_format == "xlsx" and out_file is None:
        user_error("--format xlsx writes a workbook, a binary file: give --out FILE.xlsx")
    # The CSV's period, currency, sources and notes, in FILE.json beside it.
    sidecar = out_file.with_name(out_file.name + ".json") if output_format == "csv" and out_file else None
    refuse_to_overwrite_an_input(sidecar, spec_path, *usage_files, *cost_files)
    refuse_to_replace(out_file, force)
    refuse_to_replace(sidecar, force)
    platform = load_platform_or_exit(spec_path)
    if bool(costs) == bool(cost_files):
        user_error("give the cluster's cost with exactly one of --cost AMOUNT and --cost-from EXPORT")
    for i, path in enumerate(cost_files):
        if any(same_file(path, other) for other in cost_files[:i]):
            user_error(f"--cost-from {path} is given twice: its lines would count twice")
    if isinstance(platform, SeveralClusters):
        _several_clusters(platform, usage_files, costs, cost_files, cost_basis, output_format, out_file, sidecar)
        return
    spec = platform
    if len(costs) > 1 or any("=" in cost for cost in costs):
        user_error("--cost: give the cluster's cost once, as an amount (CLUSTER=AMOUNT is for several clusters)")
    cost = costs[0] if costs else None
    try:
        reports = _read_reports(usage_files)
        exported = None
        if cost_files:
            _bounded_exports(cost_files)
            # The cluster's account and Region: a payer's export covers every linked account.
            place = Place(spec.organization.account_id, spec.organization.region)
            exported = _exported(cost_files, reports, cost_basis, place)
            amount = exported.amount
            source = exported.description()
        else:
            assert cost is not None
            amount = _amount_of_usd(cost)
            source = "given"
        if abs(amount) >= MAX_COST_USD:
            user_error(f"the cost {amount} is not a cluster's cost for a period (at most {MAX_COST_USD:,})")
        currency = exported.statement_currency if exported else DEFAULT_CURRENCY
        statement = compute_statement(spec, reports, amount, cost_source=source, exported=exported, currency=currency)
    except (UsageReportError, ChargebackError, CostExportError) as error:
        user_error(str(error))
    except OSError as error:
        user_error(f"cannot read {getattr(error, 'filename', None) or 'a cost export'}: {error.strerror or error}")
    _write(statement, output_format, out_file, sidecar, xlsx=statement_xlsx, metadata=statement_metadata,
           render=render_statement)  # fmt: skip


def _read_reports(usage_files: tuple[Path, ...]) -> list:
    """The summary usage reports, each bounded (MAX_REPORT_BYTES) and read."""
    from hyperpod_teams.usage_report import MAX_REPORT_BYTES, read_summary_report

    return [
        read_summary_report(bounded_text_or_exit(path, "usage report", MAX_REPORT_BYTES), str(path))
        for path in usage_files
    ]


def _exported(cost_files: tuple[Path, ...], reports: list, cost_basis: str, place):
    """The shared platform's cost at `place` (account and Region) in the reports' period, from the
    parts of one export."""
    from hyperpod_teams.chargeback import Period, open_parts, read_cost_exports

    period = Period(min(r.first_day for r in reports), max(r.last_day for r in reports))
    return read_cost_exports(((str(p), open_parts(p, str(p))) for p in cost_files), period, cost_basis, place)


def _bounded_exports(cost_files: tuple[Path, ...]) -> None:
    for path in cost_files:
        size = file_size_or_exit(path, "cost export")
        if size > MAX_COST_EXPORT_BYTES:
            user_error(
                f"{path} has {size:,} bytes, more than a cost export can have (at most {MAX_COST_EXPORT_BYTES:,})"
            )


def _several_clusters(
    clusters: SeveralClusters,
    usage_files: tuple[Path, ...],
    costs: tuple[str, ...],
    cost_files: tuple[Path, ...],
    cost_basis: str,
    output_format: str,
    out_file: Path | None,
    sidecar: Path | None,
) -> None:
    """The statement of several clusters: each cluster's from the reports whose header names it
    and its cost (`--cost CLUSTER=AMOUNT`, or the exports' lines at its account and Region)."""
    from hyperpod_teams.chargeback import (
        DEFAULT_CURRENCY,
        ChargebackError,
        CostExportError,
    )
    from hyperpod_teams.chargeback.clusters import (
        ClusterCost,
        cluster_places,
        clusters_metadata,
        compute_clusters_statement,
        render_clusters_statement,
    )
    from hyperpod_teams.chargeback.export_columns import COST_EXPLORER
    from hyperpod_teams.chargeback.statement_xlsx import clusters_xlsx
    from hyperpod_teams.usage_report import UsageReportError

    try:
        reports = _read_reports(usage_files)
        given: dict[str, ClusterCost] = {}
        if costs:
            given = _given_costs(costs, list(clusters.views))
        else:
            _bounded_exports(cost_files)
            for name, place in cluster_places(clusters).items():
                exported = _exported(cost_files, reports, cost_basis, place)
                if exported.format == COST_EXPLORER:
                    user_error(
                        f"{cost_files[0]} is a Cost Explorer download, one total per day or month: it cannot be "
                        "divided among the clusters. Give a Cost and Usage Report or FOCUS export (each cluster "
                        "takes its account's and Region's lines), or each cluster's cost with --cost CLUSTER=AMOUNT "
                        f"(a download filtered to its tag {naming.TAG_CLUSTER}=<cluster>)"
                    )
                given[name] = ClusterCost(exported.amount, exported.description(), exported)
        currencies = {c.exported.statement_currency for c in given.values() if c.exported}
        if len(currencies) > 1:
            user_error(
                f"the exports bill the clusters in {', '.join(sorted(currencies))}: one statement is one currency"
            )
        for name, cluster_cost in given.items():
            if abs(cluster_cost.amount) >= MAX_COST_USD:
                user_error(
                    f"the cost {cluster_cost.amount} of {name} is not a cluster's cost (at most {MAX_COST_USD:,})"
                )
        currency = next(iter(currencies), DEFAULT_CURRENCY)
        statement = compute_clusters_statement(clusters, reports, given, currency=currency)
    except (UsageReportError, ChargebackError, CostExportError) as error:
        user_error(str(error))
    except OSError as error:
        user_error(f"cannot read {getattr(error, 'filename', None) or 'a cost export'}: {error.strerror or error}")
    _write(statement, output_format, out_file, sidecar, xlsx=clusters_xlsx, metadata=clusters_metadata,
           render=render_clusters_statement)  # fmt: skip


def _write(statement, output_format: str, out_file: Path | None, sidecar: Path | None, *, xlsx, metadata, render):
    """The statement in `output_format` to `out_file`: a workbook (`xlsx`), or text (`render`) with
    its FILE.json (`metadata`) at `sidecar`."""
    from hyperpod_teams.chargeback import ChargebackError

    if output_format == "xlsx":
        assert out_file is not None
        try:
            workbook = xlsx(statement)
        except ChargebackError as error:
            user_error(str(error))
        write_output_bytes(workbook, out_file)
        return
    if sidecar is not None:
        write_output(metadata(statement), sidecar)
    write_output(render(statement, format=output_format), out_file)


def _given_costs(costs: tuple[str, ...], clusters: list[str]) -> dict:
    """`--cost CLUSTER=AMOUNT`, once for every cluster."""
    from hyperpod_teams.chargeback.clusters import ClusterCost

    given: dict[str, ClusterCost] = {}
    for text in costs:
        name, equals, amount = text.partition("=")
        if not equals or name not in clusters:
            user_error(
                f"--cost {text!r}: with several clusters give CLUSTER=AMOUNT, CLUSTER one of {', '.join(clusters)}"
            )
        if name in given:
            user_error(f"--cost {name}= is given twice")
        given[name] = ClusterCost(_amount_of_usd(amount))
    missing = [name for name in clusters if name not in given]
    if missing:
        user_error(f"--cost: no cost of {', '.join(missing)}: give --cost CLUSTER=AMOUNT for every cluster")
    return given


#: What `chargeback` reads, bounded (docs/architecture.md, "Any input"): a cost export streams line
#: by line (input_files.MAX_LINE_CHARS), so its size bounds only the time.
MAX_COST_EXPORT_BYTES = 8 * 1024**3


#: A cost at or above this is no cluster's cost for a period: the spec's own bound on money.
MAX_COST_USD = Decimal(MAX_AMOUNT_USD)


def _amount_of_usd(text: str) -> Decimal:
    """`--cost`: digits, optionally grouped by thousands with commas, and cents."""
    plain = text.strip()
    if not re.fullmatch(r"(\d+|\d{1,3}(,\d{3})+)(\.\d+)?", plain):
        user_error(
            f"--cost {text!r} is not an amount of USD such as 182450.17 or 182,450.17 (commas only between "
            "thousands, a point before the cents)"
        )
    return Decimal(plain.replace(",", ""))
