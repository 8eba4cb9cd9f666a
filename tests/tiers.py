"""The suite's tiers, each a marker a developer can run alone (`pytest -m unit`, `-m terraform`,
`-m pipelines`, `-m browser`, `-m emulator`, `-m journey`), and the time each took, printed at the
end of every run (docs/testing.md, "Tiers").

A test's tier is its most demanding marker: a journey test runs in the emulator's rounds, an
emulator test runs terraform; a test with none of them is `unit` (pure code and the engine's synth).
"""

from __future__ import annotations

import json
import resource
import time
from collections import defaultdict
from pathlib import Path

import pytest

#: Most demanding first: a test belongs to the first tier whose marker it carries.
TIERS = ("journey", "emulator", "browser", "pipelines", "terraform", "unit")
#: Markers that put a test in a tier other than their own name's.
ALSO = {"cdktf_cli": "terraform"}


def tier_of(markers: set[str]) -> str:
    named = markers | {ALSO[m] for m in markers if m in ALSO}
    return next((tier for tier in TIERS if tier in named), "unit")


#: The longest chains of one test process each, started first so that the rest fills the other
#: processes around them: the emulator tier's rounds, the pipelines' history of runs, the rounds of
#: two clusters.
FIRST = ("tests/test_emulator_tier.py", "tests/test_pipelines.py", "tests/test_emulator_clusters.py")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items) -> None:
    """Every test carries its tier's marker, so that `-m unit` selects the unmarked ones; the
    longest chains (FIRST) go first."""
    for item in items:
        markers = {mark.name for mark in item.iter_markers()}
        tier = tier_of(markers)
        if tier not in markers:
            item.add_marker(tier)
    rank = {path: index for index, path in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(FIRST)))


def _cpu_seconds() -> float:
    """The CPU this test process and the children it waited for have used (user and system)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class CpuMeter:
    """In every test process: the CPU each phase of a test used (its own and its subprocesses'),
    carried to the controller in the report's user_properties. On 2 cores the suite is bound by
    CPU, not by waiting: this is the figure to cut."""

    def __init__(self) -> None:
        self.last = _cpu_seconds()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        now = _cpu_seconds()
        outcome.get_result().user_properties.append(("cpu", now - self.last))
        self.last = now


class TierClock:
    """Per tier: how many tests ran, the time they took (setup, call and teardown, summed over the
    test processes) and the wall time from the tier's first start to its last finish."""

    def __init__(self) -> None:
        self.tests: dict[str, int] = defaultdict(int)
        self.busy: dict[str, float] = defaultdict(float)
        self.first: dict[str, float] = {}
        self.last: dict[str, float] = {}
        self.cpu: dict[str, float] = defaultdict(float)
        self.cpu_by_test: dict[str, float] = defaultdict(float)
        self.started = time.time()

    def pytest_runtest_logreport(self, report) -> None:
        tier = tier_of({name for name, value in report.keywords.items() if value and name in (*TIERS, *ALSO)})
        if report.when == "call":
            self.tests[tier] += 1
        self.busy[tier] += report.duration
        cpu = dict(report.user_properties).get("cpu", 0.0)
        self.cpu[tier] += cpu
        self.cpu_by_test[report.nodeid] += cpu
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
                f"{_minutes(wall):>8} first start to last finish  {_minutes(self.cpu[tier]):>8} CPU"
            )
        return [f"tiers (the whole run: {_minutes(total)}):", *rows] if rows else []

    def write_cpu(self, path: Path) -> None:
        """Every test's CPU seconds, most first: where a faster suite starts."""
        path.parent.mkdir(parents=True, exist_ok=True)
        ranked = sorted(self.cpu_by_test.items(), key=lambda item: -item[1])
        path.write_text(json.dumps({test: round(cpu, 1) for test, cpu in ranked}, indent=1))


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
