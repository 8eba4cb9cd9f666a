"""The columns each export format names, as AWS's table dictionaries spell them: the legacy CUR
(console and Athena names), CUR 2.0, FOCUS 1.x and a Cost Explorer download.

Pure layer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hyperpod_teams import naming


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
    #: Which account used the line, and where: a payer's export covers every linked account and Region.
    usage_account: str = ""
    regions: tuple[str, ...] = ()


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
    usage_account="lineItem/UsageAccountId",
    regions=("product/regionCode", "product/region"),
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
    usage_account="line_item_usage_account_id",
    # CUR 2.0's column; the legacy CUR's, as Athena names it.
    regions=("product_region_code", "product_region"),
)


#: Keys under which a tags map (CUR 2.0 `resource_tags`, FOCUS `Tags`) may hold the platform tag.
TAG_KEYS = (f"user:{naming.TAG_PLATFORM}", naming.TAG_PLATFORM, athena_name(f"user:{naming.TAG_PLATFORM}"))

#: The cluster tag (several clusters, #61: its value is the cluster's name), where two clusters share
#: an account and a Region: its own column (legacy CUR, and as Athena names it), or a tags map's key.
CLUSTER_TAG_COLUMNS = (
    f"resourceTags/user:{naming.TAG_CLUSTER}",
    "resource_tags_" + athena_name(f"user:{naming.TAG_CLUSTER}"),
)
CLUSTER_TAG_KEYS = (f"user:{naming.TAG_CLUSTER}", naming.TAG_CLUSTER, athena_name(f"user:{naming.TAG_CLUSTER}"))


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


#: FOCUS's account that used a row (for AWS: the linked account) and its Region.
FOCUS_ACCOUNT, FOCUS_REGION = "SubAccountId", "RegionId"


FOCUS_CATEGORY = "ChargeCategory"


#: The Cost Explorer console's CSV download: a first column of the grouping, a column per value,
#: `Total costs($)`; a "<dimension> total" row, then one row per day or per month.
COST_EXPLORER_TOTAL = "Total costs($)"
#: The format a Cost Explorer download reads as (ExportedCost.format): one total per day or month.
COST_EXPLORER = "Cost Explorer"


#: Every column a reader of any format looks at.
READ_COLUMNS = frozenset(
    {value for names in (LEGACY_CUR, SNAKE_CUR) for value in vars(names).values() if isinstance(value, str)}
    | {region for names in (LEGACY_CUR, SNAKE_CUR) for region in names.regions}
    | {FOCUS_ACCOUNT, FOCUS_REGION}
    | {FOCUS_EFFECTIVE, FOCUS_BILLED, FOCUS_START, FOCUS_END, FOCUS_TAGS, FOCUS_USAGE_TYPE, FOCUS_CURRENCY}
    | {FOCUS_BILLING_START, FOCUS_BILLING_END, FOCUS_DISCOUNTS, FOCUS_QUANTITY, FOCUS_UNIT, FOCUS_CATEGORY}
    | {COST_EXPLORER_TOTAL}
)


#: A HyperPod (SageMaker) instance type inside a usage type or product attribute.
ML_INSTANCE = re.compile(r"\bml\.[a-z0-9-]+\.[a-z0-9]+")
