"""What an instance of a type weighs when the shared spend is split by guaranteed quota: its
price per hour when `cost.instance_prices_usd` gives one, else its accelerators (GPUs, Trainium or
Inferentia devices, as AWS lists them in `instance_types`). Ground floor: imports nothing of the
project but that table, so the spec's rules and the cost split both read it from here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal

from hyperpod_teams import instance_types

#: A team's guaranteed quota as (instance type, instances) pairs: whole or in part (4 of a p5's
#: 8 GPUs are 0.5 instances).
Quota = Iterable[tuple[str, Decimal | int]]


def worth_is_known(instance_type: str, prices: Mapping[str, float]) -> bool:
    """Whether the quota split knows what an instance of the type weighs (maybe nothing): priced,
    or one of AWS's list, whose accelerators the table holds (none: it weighs nothing)."""
    return instance_type in prices or instance_type in instance_types.OFFERED


def instance_worth(instance_type: str, prices: Mapping[str, float]) -> Decimal | None:
    """What one instance of the type weighs in the quota split, or None when nothing says."""
    if instance_type in prices:
        return Decimal(str(prices[instance_type]))
    count = instance_types.ACCELERATORS_PER_INSTANCE.get(instance_type)
    return Decimal(count) if count else None


def quota_worth(quota: Quota, prices: Mapping[str, float]) -> Decimal:
    """A quota's weight: sum over its entries of count x worth."""
    return sum((count * (instance_worth(t, prices) or Decimal(0)) for t, count in quota), Decimal(0))


def quota_split_problem(quotas: Iterable[Quota], prices: Mapping[str, float]) -> str | None:
    """Why the quota split cannot be computed for these teams' quotas, or None when it can."""
    quotas = [list(quota) for quota in quotas]
    unknown = sorted({t for quota in quotas for t, _ in quota if not worth_is_known(t, prices)})
    if unknown:
        return f"what {', '.join(unknown)} is worth is unknown (price it in cost.instance_prices_usd)"
    mixed = mixed_units_problem(quotas, prices)
    if mixed:
        return mixed
    if not any(quota_worth(quota, prices) > 0 for quota in quotas):
        return "no team's guaranteed quota is worth anything"
    return None


def mixed_units_problem(quotas: Iterable[Quota], prices: Mapping[str, float]) -> str | None:
    """Why these quotas mix prices with accelerator counts, or None when they do not.

    Prices and accelerator counts are no common unit: a spec that prices some quota types must
    price every quota type that weighs anything, or a CPU node at 3.67 (USD) would outweigh half
    a GPU node at 8 (GPUs) in the split AWS receives."""
    types = {t for quota in quotas for t, _ in quota}
    priced = sorted(types & set(prices))
    counted = sorted(t for t in types if t not in prices and instance_types.ACCELERATORS_PER_INSTANCE.get(t))
    if not (counted and priced):
        return None
    return (
        f"cost.instance_prices_usd prices {', '.join(priced)} but not {', '.join(counted)}, weighed by "
        "accelerators: dollars and accelerator counts do not add up (price every quota type in "
        "cost.instance_prices_usd, or none)"
    )
