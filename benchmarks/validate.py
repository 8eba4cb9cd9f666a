"""Print how long `validate` takes on generated specs of 10, 100 and 500 teams.

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


def main(runs: int = 5) -> None:
    from hyperpod_teams.spec import load_spec

    print(f"validate, median of {runs} runs, {sys.platform}, Python {sys.version.split()[0]}")
    print(f"{'teams':>6} {'in-process load+validate':>26} {'hyperpod-teams validate (process)':>36}")
    with tempfile.TemporaryDirectory() as tmp:
        for teams in (10, 100, 500):
            path = Path(tmp) / f"teams-{teams}.yaml"
            path.write_text(yaml.safe_dump(generated_spec(teams), sort_keys=False))
            in_process, process = [], []
            for _ in range(runs):
                started = time.perf_counter()
                load_spec(path)
                in_process.append(time.perf_counter() - started)
                started = time.perf_counter()
                subprocess.run([sys.executable, "-m", "hyperpod_teams", "validate", str(path)], check=True, capture_output=True)
                process.append(time.perf_counter() - started)
            print(f"{teams:>6} {statistics.median(in_process) * 1000:>23.0f} ms {statistics.median(process) * 1000:>33.0f} ms")


if __name__ == "__main__":
    main()
