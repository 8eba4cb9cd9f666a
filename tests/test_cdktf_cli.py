"""The repo's cdktf.json works with the real cdktf CLI (npm cdktf-cli@0.21.0): `cdktf synth`
runs the app on the quickstart and writes what `hyperpod-teams synth` writes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import QUICKSTART, ROOT, synthesize_stacks

pytestmark = pytest.mark.cdktf_cli

CDKTF_CLI_ENV = "HYPERPOD_TEAMS_CDKTF_CLI"


def cdktf_cli_or_skip() -> str:
    cli = os.environ.get(CDKTF_CLI_ENV) or str(ROOT / ".tools" / "node_modules" / ".bin" / "cdktf")
    if not Path(cli).is_file():
        message = f"the cdktf CLI is not installed at {cli} (set {CDKTF_CLI_ENV}; `make test` installs it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return cli


def run_cdktf_synth(project: Path, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        # The app runs as `python -m hyperpod_teams.cdktf_app`: the interpreter running the tests.
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "CHECKPOINT_DISABLE": "1",
        "CI": "true",
        **(extra_env or {}),
    }
    return subprocess.run(
        [cdktf_cli_or_skip(), "synth"], cwd=project, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture
def project(tmp_path) -> Path:
    """A copy of the repo's cdktf project files: cdktf.json and the examples it names."""
    shutil.copy(ROOT / "cdktf.json", tmp_path / "cdktf.json")
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    return tmp_path


def stacks_in(out: Path) -> dict[str, dict]:
    manifest = json.loads((out / "manifest.json").read_text())
    return {n: json.loads((out / e["synthesizedStackPath"]).read_text()) for n, e in manifest["stacks"].items()}


def test_cdktf_synth_runs_the_app_on_the_quickstart(project, tmp_path_factory):
    result = run_cdktf_synth(project)
    assert result.returncode == 0, result.stdout + result.stderr
    from hyperpod_teams.spec import load_spec

    expected = synthesize_stacks(load_spec(QUICKSTART), tmp_path_factory.mktemp("library"))
    assert stacks_in(project / "cdktf.out") == expected


def test_cdktf_synth_takes_the_spec_from_the_environment(project):
    spec = project / "examples" / "existing-cluster" / "teams.yaml"
    result = run_cdktf_synth(project, {"HYPERPOD_TEAMS_SPEC": str(spec)})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "globex-cluster" in stacks_in(project / "cdktf.out")
