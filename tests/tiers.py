"""The suite's tiers, each a marker a developer can run alone (`pytest -m unit`, `-m terraform`,
`-m pipelines`, `-m browser`, `-m emulator`, `-m journey`), and the time each took, printed at the
end of every run (docs/testing.md, "Tiers").

A test's tier is its most demanding marker: a journey test runs in the emulator's rounds, an
emulator test runs terraform; a test with none of them is `unit` (pure code and the engine's synth).
"""

from __future__ import annotations

import time
from collections import defaultdict

import pytest

#: Most demanding first: a test belongs to the first tier whose marker it carries.
TIERS = ("journey", "emulator", "browser", "pipelines", "terraform", "unit")
#: Markers that put a test in a tier other than their own name's.
ALSO = {"cdktf_cli": "terraform"}


def tier_of(markers: set[str]) -> str:
    named = markers | {ALSO[m] for m in markers if m in ALSO}
    return next((tier for tier in TIERS if tier in named), "unit")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items) -> None:
    """Every test carries its tier's marker, so that `-m unit` selects the unmarked ones."""
    for item in items:
        markers = {mark.name for mark in item.iter_markers()}
        tier = tier_of(markers)
        if tier not in markers:
            item.add_marker(tier)


class TierClock:
    """Per tier: how many tests ran, the time they took (setup, call and teardown, summed over the
    test processes) and the wall time from the tier's first start to its last finish."""

    def __init__(self) -> None:
        self.tests: dict[str, int] = defaultdict(int)
        self.busy: dict[str, float] = defaultdict(float)
        self.first: dict[str, float] = {}
        self.last: dict[str, float] = {}
        self.started = time.time()

    def pytest_runtest_logreport(self, report) -> None:
        tier = tier_of({name for name, value in report.keywords.items() if value and name in (*TIERS, *ALSO)})
        if report.when == "call":
            self.tests[tier] += 1
        self.busy[tier] += report.duration
        start, stop = getattr(report, "start", None), getattr(report, "stop", None)
        if start and stop:
            self.first[tier] = min(self.first.get(tier, start), start)
            self.last[tier] = max(self.last.get(tier, stop), stop)

    def lines(self) -> list[str]:
        total = time.time() - self.started
        rows = []
        for tier in reversed(TIERS):
            if not self.tests.get(tier):
                continue
            wall = self.last[tier] - self.first[tier] if tier in self.first else 0.0
            rows.append(
                f"  {tier:<10} {self.tests[tier]:>5} tests  {_minutes(self.busy[tier]):>8} in tests  "
                f"{_minutes(wall):>8} first start to last finish"
            )
        return [f"tiers (the whole run: {_minutes(total)}):", *rows] if rows else []


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
