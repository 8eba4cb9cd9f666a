"""Print how long `validate`, `report` and `runbook` take on generated specs of 10, 100 and 500
teams: in process, and as the whole `hyperpod-teams` process a user waits for.

Run: .venv/bin/python benchmarks/validate.py   (a benchmark, not a test: it prints figures)
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
QUICKSTART = ROOT / "examples" / "quickstart" / "teams.yaml"


def generated_spec(teams: int) -> dict:
    """The quickstart with `teams` teams, each with a quota, a cost center and a budget."""
    spec = yaml.safe_load(QUICKSTART.read_text())
    spec["cluster"]["instance_groups"] = [
        {"name": "gpu-workers", "instance_type": "ml.p5.48xlarge", "count": 1000},
        {"name": "cpu-workers", "instance_type": "ml.c5.4xlarge", "count": 1000},
    ]
    spec["teams"] = [
        {
            "name": f"team-{i:03d}",
            "cost_center": f"CC-{i}",
            "compute": {
                "quota": [
                    {"instance_type": "ml.p5.48xlarge", "count": 2},
                    {"instance_type": "ml.c5.4xlarge", "count": 1},
                ],
                "fair_share_weight": 10,
            },
            "budget": {"monthly_limit_usd": 1000, "notify_emails": [f"team-{i}@example.com"]},
        }
        for i in range(teams)
    ]
    return spec


COMMANDS = (["validate"], ["report"], ["report", "--format", "html"], ["runbook"])


def _median_seconds(function, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main(runs: int = 5) -> None:
    from hyperpod_teams.spec import load_spec

    print(f"median of {runs} runs, {sys.platform}, Python {sys.version.split()[0]}")
    header = "".join(f"{' '.join(c):>22}" for c in COMMANDS)
    print(f"{'teams':>6} {'load+validate':>14}{header}   (whole process)")
    with tempfile.TemporaryDirectory() as tmp:
        for teams in (10, 100, 500):
            path = Path(tmp) / f"teams-{teams}.yaml"
            path.write_text(yaml.safe_dump(generated_spec(teams), sort_keys=False))
            in_process = _median_seconds(lambda path=path: load_spec(path), runs)
            row = f"{teams:>6} {in_process * 1000:>11.0f} ms"
            for command in COMMANDS:
                argv = [sys.executable, "-m", "hyperpod_teams", command[0], str(path), *command[1:]]
                seconds = _median_seconds(lambda argv=argv: subprocess.run(argv, check=True, capture_output=True), runs)
                row += f"{seconds * 1000:>19.0f} ms"
            print(row)


if __name__ == "__main__":
    main()
