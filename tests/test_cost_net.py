"""One spend, one statement: the cost net of discounts whatever format the export has.

An account with a private rate (3 % on p5 usage) and an EDP (5 % on everything after it) runs one
week of the shared platform. AWS can deliver that week five ways, each named by AWS's own table
dictionaries (docs/chargeback.md, "Net of discounts"):

- CUR 2.0 as Data Exports configures it by default: the `discount` map and
  `discount_total_discount` on each line, and the Net columns (`line_item_net_unblended_cost`,
  `savings_plan_net_savings_plan_effective_cost`);
- CUR 2.0 from a query that selected no Net column: only the discount map (net = gross + discounts);
- CUR 2.0 with "manual discount compatibility": discounts as their own lines (`EdpDiscount`,
  `PrivateRateDiscount`), and Net columns beside them (the discount would count twice);
- the legacy CUR with its discount lines and no Net column;
- the legacy CUR with its Net columns (`lineItem/NetUnblendedCost`, ...);
- FOCUS 1.x, whose EffectiveCost and BilledCost are after every discount.

Every one gives the same statement to the cent. The expected figures are worked out by hand in
the docstring below, and computed again by DuckDB with this file's own SQL over the CUR 2.0 file:
never by the code under test.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from hyperpod_teams.chargeback import CostExportError, open_parts, read_cost_exports
from tests.test_cost_exports import INITECH, MAIN_REPORT, NOVEMBER_WEEK

CENT = Decimal("0.01")
TAG = {"user:hyperpod-teams:platform": "shared"}
P5, C5 = "ml.p5.48xlarge", "ml.c5.4xlarge"
NOVEMBER = ("2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z")

#: The week's lines: (id, line type, start, end, usage type, instance type, unblended,
#: Savings Plan effective cost, its discounts {kind: amount}). Discounts are negative.
SPEND = [
    ("od", "Usage", "2026-11-02T00:00:00Z", "2026-11-03T00:00:00Z", "USE1-ml.p5.48xlarge-hours", P5, "2359.68", "",
     {"private_rate_discount": "-70.7904", "edp_discount": "-114.44448"}),
    ("sp", "SavingsPlanCoveredUsage", "2026-11-03T00:00:00Z", "2026-11-04T00:00:00Z", "USE1-ml.p5.48xlarge-hours",
     P5, "2359.68", "1415.81", {"edp_discount": "-70.7905"}),
    ("neg", "SavingsPlanNegation", "2026-11-03T00:00:00Z", "2026-11-04T00:00:00Z", "USE1-ml.p5.48xlarge-hours",
     P5, "-2359.68", "", {}),
    ("c5", "Usage", "2026-11-05T00:00:00Z", "2026-11-06T00:00:00Z", "USE1-ml.c5.4xlarge-hours", C5, "19.68", "",
     {"edp_discount": "-0.984"}),
    ("eks", "Usage", "2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z", "USE1-AmazonEKS-Hours:perCluster", "", "2.40",
     "", {"edp_discount": "-0.12"}),
    ("fsx", "Usage", *NOVEMBER, "USE1-FSxLustre-Storage", "", "300.00", "", {"edp_discount": "-15.00"}),
    ("credit", "Credit", "2026-11-07T00:00:00Z", "2026-11-08T00:00:00Z", "USE1-ml.p5.48xlarge-hours", P5, "-50.00",
     "", {}),
    ("tax", "Tax", *NOVEMBER, "", "", "45.00", "", {}),
]  # fmt: skip

#: The hand-computed figures of SPEND over 2026-11-01 to 2026-11-07 (see the first test).
NET_AMORTIZED = Decimal("3567.44")
GROSS_AMORTIZED = Decimal("3828.07")
NET_UNBLENDED = Decimal("2222.42")
GROSS_UNBLENDED = Decimal("2412.26")


def _discount(line) -> Decimal:
    return sum((Decimal(v) for v in line[8].values()), Decimal(0))


def _net_unblended(line) -> Decimal:
    """The unblended cost after discounts; a covered line's discount is on its effective cost."""
    if line[1] == "SavingsPlanCoveredUsage":
        return Decimal(line[6])
    return Decimal(line[6]) + _discount(line)


def _billing() -> list[str]:
    return list(NOVEMBER)


def cur2_csv(net_columns: bool = True, discount_columns: bool = True, discount_lines: bool = False) -> str:
    """The week as CUR 2.0 (AWS Data Exports, CUR 2.0 table dictionary)."""
    header = [
        "identity_line_item_id", "line_item_line_item_type", "line_item_usage_start_date",
        "line_item_usage_end_date", "line_item_usage_type", "product_instance_type", "line_item_unblended_cost",
        "savings_plan_savings_plan_effective_cost", "resource_tags", "line_item_currency_code",
        "bill_billing_period_start_date", "bill_billing_period_end_date",
    ]  # fmt: skip
    if net_columns:
        header += ["line_item_net_unblended_cost", "savings_plan_net_savings_plan_effective_cost"]
    if discount_columns:
        header += ["discount", "discount_total_discount"]
    rows = []
    for line in SPEND:
        identity, kind, start, end, usage_type, itype, unblended, effective, discounts = line
        row = [identity, kind, start, end, usage_type, itype, unblended, effective, json.dumps(TAG), "USD"]
        row += _billing()
        if net_columns:
            net_effective = str(Decimal(effective) + _discount(line)) if effective else ""
            row += [str(_net_unblended(line)), net_effective]
        if discount_columns:
            row += [json.dumps({k: float(v) for k, v in discounts.items()}), str(_discount(line))]
        rows.append(row)
        if discount_lines:
            rows += _discount_lines(line, header)
    return _csv(header, rows)


def _discount_lines(line, header: list[str]) -> list[list[str]]:
    """A line's discounts as the lines AWS writes for them: one per kind, tagged and dated as it."""
    identity, _, start, end, usage_type, itype, _, _, discounts = line
    kinds = {"edp_discount": "EdpDiscount", "private_rate_discount": "PrivateRateDiscount"}
    out = []
    for kind, amount in discounts.items():
        cells = dict.fromkeys(header, "")
        cells.update(
            {
                "identity_line_item_id": f"{identity}-{kind}",
                "line_item_line_item_type": kinds[kind],
                "line_item_usage_start_date": start,
                "line_item_usage_end_date": end,
                "line_item_usage_type": usage_type,
                "product_instance_type": itype,
                "line_item_unblended_cost": amount,
                "line_item_net_unblended_cost": amount,
                "resource_tags": json.dumps(TAG),
                "line_item_currency_code": "USD",
                "bill_billing_period_start_date": NOVEMBER[0],
                "bill_billing_period_end_date": NOVEMBER[1],
            }
        )
        out.append([cells[c] for c in header])
    return out


def legacy_csv(net_columns: bool) -> str:
    """The week as the legacy CUR writes it (console column names): with its Net columns, or with
    its discount lines."""
    header = [
        "identity/LineItemId", "lineItem/LineItemType", "lineItem/UsageStartDate", "lineItem/UsageEndDate",
        "lineItem/UsageType", "product/instanceType", "lineItem/UnblendedCost",
        "savingsPlan/SavingsPlanEffectiveCost", "resourceTags/user:hyperpod-teams:platform", "lineItem/CurrencyCode",
        "bill/BillingPeriodStartDate", "bill/BillingPeriodEndDate",
    ]  # fmt: skip
    if net_columns:
        header += ["lineItem/NetUnblendedCost", "savingsPlan/NetSavingsPlanEffectiveCost", "discount/TotalDiscount"]
    rows = []
    kinds = {"edp_discount": "EdpDiscount", "private_rate_discount": "PrivateRateDiscount"}
    for line in SPEND:
        identity, kind, start, end, usage_type, itype, unblended, effective, discounts = line
        base = [identity, kind, start, end, usage_type, itype, unblended, effective, "shared", "USD", *_billing()]
        if net_columns:
            net_effective = str(Decimal(effective) + _discount(line)) if effective else ""
            rows.append([*base, str(_net_unblended(line)), net_effective, str(_discount(line))])
            continue
        rows.append(base)
        for name, amount in discounts.items():
            rows.append(
                [f"{identity}-{name}", kinds[name], start, end, usage_type, itype, amount, "", "shared", "USD",
                 *_billing()]
            )  # fmt: skip
    return _csv(header, rows)


def focus_csv() -> str:
    """The week as FOCUS 1.x (AWS Data Exports "FOCUS 1.0 with AWS columns"): EffectiveCost and
    BilledCost after every discount; no Savings Plan negation rows (FOCUS has none)."""
    header = [
        "ChargePeriodStart", "ChargePeriodEnd", "ChargeCategory", "EffectiveCost", "BilledCost", "BillingCurrency",
        "BillingPeriodStart", "BillingPeriodEnd", "Tags", "x_UsageType", "x_Discounts",
    ]  # fmt: skip
    rows = []
    for line in SPEND:
        _, kind, start, end, usage_type, _, _, effective, discounts = line
        if kind == "SavingsPlanNegation":
            continue
        if kind == "SavingsPlanCoveredUsage":
            effective_cost, billed = str(Decimal(effective) + _discount(line)), "0"
        else:
            effective_cost = billed = str(_net_unblended(line))
        category = {"Credit": "Credit", "Tax": "Tax"}.get(kind, "Usage")
        rows.append(
            [start, end, category, effective_cost, billed, "USD", *_billing(), json.dumps(TAG), usage_type,
             json.dumps({k: float(v) for k, v in discounts.items()})]
        )  # fmt: skip
    return _csv(header, rows)


def _csv(header: list[str], rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


#: Each way AWS delivers the week, and whether it has the costs before discounts (FOCUS has not).
FORMATS = {
    "cur2": (lambda: cur2_csv(), "CUR 2.0"),
    "cur2-discount-map-only": (lambda: cur2_csv(net_columns=False), "CUR 2.0"),
    "cur2-manual-discount-compatibility": (
        lambda: cur2_csv(discount_columns=False, discount_lines=True),
        "CUR 2.0",
    ),
    "legacy-cur-discount-lines": (lambda: legacy_csv(net_columns=False), "legacy CUR"),
    "legacy-cur-net-columns": (lambda: legacy_csv(net_columns=True), "legacy CUR"),
    "focus": (focus_csv, "FOCUS"),
}


def _read(text: str, basis: str, name: str = "export.csv"):
    from hyperpod_teams.chargeback.export_files import _csv_part

    return read_cost_exports([(name, _csv_part(io.StringIO(text), name))], NOVEMBER_WEEK, basis)


@pytest.mark.parametrize("kind", FORMATS)
def test_one_spend_gives_one_net_cost_in_every_export_format(kind):
    """By hand, 2026-11-01 to 2026-11-07 (UTC), every line tagged shared:

    od      p5 day on demand 2,359.68; private rate -70.7904; EDP 5 % of the rest -114.44448
            net 2,174.44512
    sp/neg  p5 day under a Savings Plan: effective 1,415.81, EDP on it -70.7905, net 1,345.0195;
            unblended 2,359.68 and its negation -2,359.68: 0 either way
    c5      19.68, EDP -0.984: net 18.696
    eks     2.40, EDP -0.12: net 2.28
    fsx     November's storage 300.00, EDP -15.00: 7 of 30 days, gross 70.00, net 66.50
    credit  -50.00 and tax 45.00 for November (7/30: 10.50): no discount

    net amortized   2,174.44512 + 1,345.0195 + 18.696 + 2.28 + 66.50 - 50.00 + 10.50 = 3,567.44062
    gross amortized 2,359.68 + 1,415.81 + 19.68 + 2.40 + 70.00 - 50.00 + 10.50      = 3,828.07
    net unblended   2,174.44512 + 0 + 18.696 + 2.28 + 66.50 - 50.00 + 10.50         = 2,222.42112
    gross unblended 2,359.68 + 0 + 19.68 + 2.40 + 70.00 - 50.00 + 10.50             = 2,412.26

    The discounts in the net amortized cost: -185.23488 - 70.7905 - 0.984 - 0.12 - 3.50 = -260.62938.
    p5's own lines, net amortized: 2,174.44512 + 1,345.0195 - 50.00 = 3,469.46462."""
    make, fmt = FORMATS[kind]
    found = _read(make(), "net-amortized")
    assert found.format == fmt
    assert found.amount.quantize(CENT) == NET_AMORTIZED
    assert found.discounts.quantize(CENT) == Decimal("-260.63")
    assert found.by_instance_type[P5].quantize(CENT) == Decimal("3469.46")
    assert _read(make(), "amortized").amount == found.amount  # the older name is the net basis


@pytest.mark.parametrize("kind", [k for k in FORMATS if k != "focus"])
def test_the_gross_bases_leave_every_discount_out_in_every_cur(kind):
    make, _ = FORMATS[kind]
    assert _read(make(), "gross-amortized").amount.quantize(CENT) == GROSS_AMORTIZED
    assert _read(make(), "gross-unblended").amount.quantize(CENT) == GROSS_UNBLENDED


@pytest.mark.parametrize("kind", ["cur2", "cur2-discount-map-only", "legacy-cur-net-columns", "focus"])
def test_the_net_unblended_cost_is_focus_billed_cost_in_every_format_with_net_columns(kind):
    """Net unblended is what the invoice holds (FOCUS BilledCost): the Savings Plan's discount is on
    its fee, not on the covered usage's unblended cost. (Where discounts come as lines, AWS writes
    the covered usage's discount as a line too, which the unblended cost then holds.)"""
    make, _ = FORMATS[kind]
    assert _read(make(), "net-unblended").amount.quantize(CENT) == NET_UNBLENDED


def test_discounts_given_both_as_lines_and_on_net_columns_count_once_and_say_so():
    found = _read(cur2_csv(discount_columns=False, discount_lines=True), "net-amortized")
    assert found.amount.quantize(CENT) == NET_AMORTIZED
    assert any("discounts twice" in note and "count once, in the net costs" in note for note in found.notes)


def _with_the_savings_plans_discount_on_its_fee(text: str) -> str:
    """As AWS bills an EDP on a Savings Plan: the discount line is the plan's fee's (untagged, dated
    with the month, usage type of the plan), while the covered line's net effective cost holds it."""
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    at = {name: i for i, name in enumerate(header)}
    for row in rows[1:]:
        if row[at["identity_line_item_id"]] == "sp-edp_discount":
            row[at["resource_tags"]] = "{}"
            row[at["line_item_usage_start_date"]], row[at["line_item_usage_end_date"]] = NOVEMBER
            row[at["line_item_usage_type"]], row[at["product_instance_type"]] = "ComputeSP:1yrNoUpfront", ""
    return _csv(header, rows[1:])


def test_the_discount_of_a_savings_plans_fee_counts_as_its_covered_lines_net_cost_holds_it():
    """The same week with the EDP on the plan's fee as an untagged discount line (#58: the legacy CUR
    with discount lines and net columns gave 3.1 % more than CUR 2.0 and FOCUS): counting the lines
    left that discount out; the covered line's net effective cost holds it. One spend, one statement:
    NET_AMORTIZED, as every other format gives it; and the reconciliation's total of every line counts
    the discount once."""
    text = _with_the_savings_plans_discount_on_its_fee(cur2_csv(discount_columns=False, discount_lines=True))
    found = _read(text, "net-amortized")
    assert found.amount.quantize(CENT) == NET_AMORTIZED
    assert not [n for n in found.notes if "discount line in the period carries no" in n], found.notes
    from hyperpod_teams.chargeback import reconciliation

    lines = reconciliation(found, found.amount.quantize(CENT))
    steps = {line.label: line.amount for line in lines}
    every, cost = lines[0].amount, steps["the shared platform's lines: the statement's cost"]
    assert every + sum(line.amount for line in lines if line.role in ("less", "plus")) == cost == NET_AMORTIZED
    assert every == NET_AMORTIZED  # every line of the week is the platform's: the fee's discount counted once


def _week_under_a_reserved_instance(shape: str) -> str:
    """A p5 day under a Reserved Instance and a c5 day on demand, with an EDP of 5 % on everything
    (an RI's discount, as AWS bills it: on the RI's fee, untagged and dated with the month, while the
    covered line's `NetEffectiveCost` holds it). Shapes: the legacy CUR with discount lines **and**
    Net columns (the discount twice: as lines and in the net costs), or CUR 2.0 with Net columns and
    the discount map."""
    fee = "arn:aws:ec2:us-east-1:111122223333:reserved-instances/ri-1"
    day, c5_day = ("2026-11-03T00:00:00Z", "2026-11-04T00:00:00Z"), ("2026-11-07T00:00:00Z", "2026-11-08T00:00:00Z")
    # (id, type, start, end, usage type, instance type, unblended, RI effective, net unblended, RI net effective,
    #  tagged, ARN, discount map)
    lines = [
        ("ri", "DiscountedUsage", *day, "USE1-HeavyUsage:p5", P5, "0", "1800.00", "0", "1710.00", True, fee, {}),
        ("fee", "RIFee", *NOVEMBER, "USE1-HeavyUsage:p5", P5, "43200.00", "", "41040.00", "", False, fee,
         {"edp_discount": -2160.0}),
        ("c5", "Usage", *c5_day, "USE1-ml.c5.4xlarge-hours", C5, "19.68", "", "18.696", "", True, "",
         {"edp_discount": -0.984}),
    ]  # fmt: skip
    discount_lines = [
        ("fee-edp", "EdpDiscount", *NOVEMBER, "USE1-HeavyUsage:p5", P5, "-2160.00", "", "-2160.00", "", False, fee),
        ("c5-edp", "EdpDiscount", *c5_day, "USE1-ml.c5.4xlarge-hours", C5, "-0.984", "", "-0.984", "", True, ""),
    ]  # fmt: skip
    if shape == "legacy-cur-discount-lines-and-net-columns":
        header = [
            "identity/LineItemId", "lineItem/LineItemType", "lineItem/UsageStartDate", "lineItem/UsageEndDate",
            "lineItem/UsageType", "product/instanceType", "lineItem/UnblendedCost", "reservation/EffectiveCost",
            "lineItem/NetUnblendedCost", "reservation/NetEffectiveCost", "resourceTags/user:hyperpod-teams:platform",
            "reservation/ReservationARN", "reservation/UnusedAmortizedUpfrontFeeForBillingPeriod",
            "reservation/UnusedRecurringFee", "reservation/NetUnusedAmortizedUpfrontFeeForBillingPeriod",
            "reservation/NetUnusedRecurringFee", "lineItem/CurrencyCode", "bill/BillingPeriodStartDate",
            "bill/BillingPeriodEndDate",
        ]  # fmt: skip
        rows = [
            [*line[:10], "shared" if line[10] else "", line[11], *(["0", "0", "0", "0"] if line[1] == "RIFee" else
             ["", "", "", ""]), "USD", *_billing()]
            for line in [*(lin[:12] for lin in lines), *discount_lines]
        ]  # fmt: skip
        return _csv(header, rows)
    header = [
        "identity_line_item_id", "line_item_line_item_type", "line_item_usage_start_date", "line_item_usage_end_date",
        "line_item_usage_type", "product_instance_type", "line_item_unblended_cost", "reservation_effective_cost",
        "line_item_net_unblended_cost", "reservation_net_effective_cost", "resource_tags",
        "reservation_reservation_a_r_n", "reservation_unused_amortized_upfront_fee_for_billing_period",
        "reservation_unused_recurring_fee", "reservation_net_unused_amortized_upfront_fee_for_billing_period",
        "reservation_net_unused_recurring_fee", "line_item_currency_code", "bill_billing_period_start_date",
        "bill_billing_period_end_date", "discount",
    ]  # fmt: skip
    rows = [
        [*line[:10], json.dumps(TAG if line[10] else {}), line[11], *(["0", "0", "0", "0"] if line[1] == "RIFee" else
         ["", "", "", ""]), "USD", *_billing(), json.dumps(line[12])]
        for line in lines
    ]  # fmt: skip
    return _csv(header, rows)


@pytest.mark.parametrize("shape", ["legacy-cur-discount-lines-and-net-columns", "cur2-net-columns"])
def test_the_discount_of_a_reserved_instances_fee_counts_as_its_covered_lines_net_cost_holds_it(shape):
    """By hand, net amortized, 2026-11-01 to 2026-11-07: the p5 day under the RI at its effective
    cost 1,800.00 less the EDP's 5 % (on the RI's fee, 43,200.00 x 5 % = 2,160.00 for the month;
    the day's share, as the covered line's NetEffectiveCost says): 1,710.00; the c5 day 19.68 less
    0.984: 18.696. The RI's fee is all used (its unused parts 0) and untagged. Statement 1,728.70 in
    both shapes; counting the discount lines would give 1,800.00 + 19.68 - 0.984 = 1,818.70."""
    found = _read(_week_under_a_reserved_instance(shape), "net-amortized")
    assert found.amount.quantize(CENT) == Decimal("1728.70")
    assert found.by_instance_type[P5].quantize(CENT) == Decimal("1710.00")
    from hyperpod_teams.chargeback import reconciliation

    lines = reconciliation(found, found.amount.quantize(CENT))
    every = lines[0].amount
    cost = next(line.amount for line in lines if line.role == "total")
    assert every + sum(line.amount for line in lines if line.role in ("less", "plus")) == cost == Decimal("1728.70")


def test_a_gross_basis_names_the_discount_lines_it_leaves_out():
    found = _read(legacy_csv(net_columns=False), "gross-amortized")
    note = next(n for n in found.notes if "discount line" in n)
    assert note.startswith("6 tagged discount lines") and "-260.63 USD" in note and "net-amortized" in note


def test_a_focus_export_has_no_gross_cost_and_says_what_to_give():
    with pytest.raises(CostExportError, match="after every discount.*Cost and Usage Report.*net-amortized"):
        _read(focus_csv(), "gross-amortized")


def test_the_net_amortized_cost_is_what_independent_sql_makes_of_the_cur2_file(tmp_path):
    """This file's own SQL over the CUR 2.0 file: each line's net amortized cost by its type, the
    month's lines prorated by the hours of the week they cover."""
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "cur2.csv"
    path.write_text(cur2_csv())
    (total,) = (
        duckdb.connect()
        .execute(
            f"""
        WITH lines AS (
          SELECT line_item_line_item_type AS kind,
                 CAST(line_item_usage_start_date AS TIMESTAMPTZ) AS s,
                 CAST(line_item_usage_end_date AS TIMESTAMPTZ) AS e,
                 CASE line_item_line_item_type
                   WHEN 'SavingsPlanCoveredUsage'
                     THEN CAST(savings_plan_net_savings_plan_effective_cost AS DECIMAL(30, 10))
                   WHEN 'SavingsPlanNegation' THEN 0
                   ELSE CAST(line_item_net_unblended_cost AS DECIMAL(30, 10))
                 END AS net_amortized
          FROM read_csv('{path}', all_varchar = true, header = true)
          WHERE json_extract_string(resource_tags, '$."user:hyperpod-teams:platform"') = 'shared'
        )
        SELECT SUM(net_amortized * GREATEST(0, epoch(LEAST(e, TIMESTAMPTZ '2026-11-08 00:00:00+00'))
                                            - epoch(GREATEST(s, TIMESTAMPTZ '2026-11-01 00:00:00+00')))
                   / (epoch(e) - epoch(s)))
        FROM lines
        """
        )
        .fetchone()
    )
    assert Decimal(str(total)).quantize(CENT) == NET_AMORTIZED


def test_every_format_gives_each_team_the_same_amount_to_the_cent(tmp_path):
    """Through the command as a user runs it: the statement's CSV rows are the same, team by
    team, whichever format the week's export came in."""
    statements = {}
    for kind, (make, _) in FORMATS.items():
        path = tmp_path / f"{kind}.csv"
        path.write_text(make())
        result = subprocess.run(
            [sys.executable, "-m", "hyperpod_teams", "chargeback", str(INITECH), "--usage", str(MAIN_REPORT),
             "--cost-from", str(path), "--format", "csv"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        statements[kind] = {row["team"]: row["amount_usd"] for row in rows}
        assert sum(Decimal(a) for a in statements[kind].values()) == NET_AMORTIZED
    assert len({json.dumps(s, sort_keys=True) for s in statements.values()}) == 1, statements


def test_a_savings_plan_fees_unused_net_commitment_is_the_gross_one_at_the_plans_net_rate():
    """A tagged Savings Plan fee (an account that tags them), by hand: 43,000.00 committed for the
    month, 40,000.00 used: 3,000.00 unused, gross. Its fee is 43,000.00 recurring, 40,850.00 net
    (EDP 5 %): the unused part net is 3,000.00 x 40,850 / 43,000 = 2,850.00."""
    header = [
        "line_item_line_item_type", "line_item_usage_start_date", "line_item_usage_end_date",
        "line_item_unblended_cost", "savings_plan_total_commitment_to_date", "savings_plan_used_commitment",
        "savings_plan_recurring_commitment_for_billing_period",
        "savings_plan_net_recurring_commitment_for_billing_period", "resource_tags",
    ]  # fmt: skip
    row = ["SavingsPlanRecurringFee", *NOVEMBER, "43000.00", "43000.00", "40000.00", "43000.00", "40850.00",
           json.dumps(TAG)]  # fmt: skip
    text = _csv(header, [row])
    from hyperpod_teams.chargeback import Period

    month = Period(NOVEMBER_WEEK.first_day, NOVEMBER_WEEK.first_day.replace(day=30))
    from hyperpod_teams.chargeback.export_files import _csv_part

    net = read_cost_exports([("f.csv", _csv_part(io.StringIO(text), "f.csv"))], month, "net-amortized")
    gross = read_cost_exports([("f.csv", _csv_part(io.StringIO(text), "f.csv"))], month, "gross-amortized")
    assert (net.amount.quantize(CENT), gross.amount.quantize(CENT)) == (Decimal("2850.00"), Decimal("3000.00"))


def test_split_cost_allocation_rows_are_not_counted_on_top_of_their_node(tmp_path):
    """A CUR 2.0 with split cost allocation data: the node's p5 day (2,359.68) and two pod rows
    naming it as their parent (their shares of it, 1,500.00 and 859.68). The node counts once;
    the pods are a division of it, not more cost."""
    header = [
        "line_item_line_item_type", "line_item_usage_start_date", "line_item_usage_end_date",
        "line_item_unblended_cost", "product_instance_type", "resource_tags", "line_item_resource_id",
        "split_line_item_parent_resource_id",
    ]  # fmt: skip
    day = ["2026-11-07T00:00:00Z", "2026-11-08T00:00:00Z"]
    rows = [
        ["Usage", *day, "2359.68", P5, json.dumps(TAG), "i-0abc", ""],
        ["Usage", *day, "1500.00", P5, json.dumps(TAG), "arn:aws:eks:us-east-1:1:pod/shared-pod/nlp/a", "i-0abc"],
        ["Usage", *day, "859.68", P5, json.dumps(TAG), "arn:aws:eks:us-east-1:1:pod/shared-pod/vision/b", "i-0abc"],
    ]
    found = _read(_csv(header, rows), "net-amortized")
    assert found.amount == Decimal("2359.68")
    assert any(n.startswith("2 split cost allocation rows") for n in found.notes)


def test_the_parquet_cur2_with_the_discount_map_as_a_map_column_reads_the_same(tmp_path):
    """CUR 2.0 is usually Parquet, its `discount` and `resource_tags` real map columns."""
    pyarrow = pytest.importorskip("pyarrow")
    import pyarrow.parquet as parquet

    rows = list(csv.DictReader(io.StringIO(cur2_csv(net_columns=False))))
    columns = {}
    for name in rows[0]:
        if name in ("discount", "resource_tags"):
            values = [list(json.loads(r[name]).items()) for r in rows]
            kind = pyarrow.map_(pyarrow.string(), pyarrow.float64() if name == "discount" else pyarrow.string())
            columns[name] = pyarrow.array(values, type=kind)
        elif name in ("line_item_unblended_cost", "savings_plan_savings_plan_effective_cost"):
            columns[name] = pyarrow.array([float(r[name]) if r[name] else None for r in rows], pyarrow.float64())
        else:
            columns[name] = pyarrow.array([r[name] for r in rows])
    path = tmp_path / "cur2.parquet"
    parquet.write_table(pyarrow.table(columns), path)
    found = read_cost_exports([(str(path), open_parts(Path(path), str(path)))], NOVEMBER_WEEK, "net-amortized")
    assert found.amount.quantize(CENT) == NET_AMORTIZED


def test_capacity_comes_from_the_instance_hours_the_export_bills(tmp_path):
    """The spec has two p5 nodes; the export bills a third from 2026-11-04 on (a node added mid
    period, the spec not yet updated). By hand: billed p5 instance-hours 2 x 24 x 7 + 24 x 4 =
    432, so the p5 capacity is 432 x 8 = 3,456 GPU hours, not the spec's 2 x 8 x 24 x 7 = 2,688;
    the p5 cost is 2,359.68 x 18 node-days = 42,474.24; nlp's use of it is 42,474.24 x its p5 GPU
    hours (read from the report here with the csv module) / 3,456."""
    from hyperpod_teams import chargeback
    from hyperpod_teams.spec.loading import validate_spec
    from hyperpod_teams.usage_report import read_summary_report

    header = [
        "lineItem/LineItemType", "lineItem/UsageStartDate", "lineItem/UsageEndDate", "lineItem/UsageType",
        "product/instanceType", "lineItem/UsageAmount", "pricing/unit", "lineItem/UnblendedCost",
        "resourceTags/user:hyperpod-teams:platform", "lineItem/ResourceId",
    ]  # fmt: skip
    rows = []
    for day in range(1, 8):
        for node in ("i-1", "i-2", "i-3") if day >= 4 else ("i-1", "i-2"):
            start, end = f"2026-11-{day:02d}T00:00:00Z", f"2026-11-{day + 1:02d}T00:00:00Z"
            rows.append(["Usage", start, end, "USE1-ml.p5.48xlarge-hours", P5, "24", "Hrs", "2359.68", "shared", node])
    exported = _read(_csv(header, rows), "net-amortized")
    assert exported.billed_hours[P5] == Decimal(432)

    with MAIN_REPORT.open(newline="") as handle:
        nlp_hours = sum(
            Decimal(row[7]) for row in csv.reader(handle) if row[1:4] == ["hyperpod-ns-nlp", "nlp", P5]
        )  # the GPU "Total utilization (hours)" column
    data = __import__("yaml").safe_load(INITECH.read_text())
    spec = validate_spec(data)
    report = read_summary_report(MAIN_REPORT.read_text(), str(MAIN_REPORT))
    statement = chargeback.compute_statement(spec, [report], exported.amount.quantize(CENT), exported=exported)
    p5 = next(u for u in statement.instance_types if u.instance_type == P5)
    assert p5.capacity_hours == Decimal(3456)
    nlp = next(c for c in statement.teams if c.team == "nlp")
    assert nlp.usage == (Decimal("42474.24") * nlp_hours / 3456).quantize(CENT)
    assert any("bills 432.00 instance-hours" in n and "the spec's 2 nodes give 336" in n for n in statement.notes)


def test_the_focus_files_effective_cost_by_independent_sql_is_the_same_net_cost(tmp_path):
    """This file's own SQL over the FOCUS file: EffectiveCost of the rows tagged shared, prorated
    by the hours of the week they cover; the same 3,567.44 as every CUR shape gives."""
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "focus.csv"
    path.write_text(focus_csv())
    (total,) = (
        duckdb.connect()
        .execute(
            f"""
        SELECT SUM(CAST(EffectiveCost AS DECIMAL(30, 10))
                   * GREATEST(0, epoch(LEAST(CAST(ChargePeriodEnd AS TIMESTAMPTZ),
                                             TIMESTAMPTZ '2026-11-08 00:00:00+00'))
                                 - epoch(GREATEST(CAST(ChargePeriodStart AS TIMESTAMPTZ),
                                                  TIMESTAMPTZ '2026-11-01 00:00:00+00')))
                   / (epoch(CAST(ChargePeriodEnd AS TIMESTAMPTZ)) - epoch(CAST(ChargePeriodStart AS TIMESTAMPTZ))))
        FROM read_csv('{path}', all_varchar = true, header = true)
        WHERE json_extract_string(Tags, '$."user:hyperpod-teams:platform"') = 'shared'
        """
        )
        .fetchone()
    )
    assert Decimal(str(total)).quantize(CENT) == NET_AMORTIZED
