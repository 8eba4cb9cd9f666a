"""`hyperpod-teams init`, as a new user outside this repository runs it: the folder it writes
validates, its spec passes the JSON Schema beside it as an editor checks it (check-jsonschema), and
a folder of the user's is never written into. (`cdktn synth` in such a folder: test_engine_clis.py.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require_module

STARTER_FILES = {".gitignore", "NEXT-STEPS.md", "cdktf.json", "spec-v1.schema.json", "teams.yaml"}


def hyperpod_teams(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_init_writes_a_folder_whose_spec_validates_and_passes_its_own_schema(tmp_path):
    result = hyperpod_teams("init", "platform", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    platform = tmp_path / "platform"
    assert {p.name for p in platform.iterdir()} == STARTER_FILES
    assert "cdktn synth" in result.stdout and "hyperpod-teams validate teams.yaml" in result.stdout
    spec = (platform / "teams.yaml").read_text()
    assert spec.startswith("# yaml-language-server: $schema=./spec-v1.schema.json\n")
    validated = hyperpod_teams("validate", "teams.yaml", cwd=platform)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    require_module("check_jsonschema")
    checked = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--schemafile", "spec-v1.schema.json", "teams.yaml"],
        cwd=platform,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    settings = json.loads((platform / "cdktf.json").read_text())
    assert settings["app"] == "python -m hyperpod_teams.cdktf_app"
    assert settings["context"] == {"hyperpod-teams:spec": "teams.yaml"}


def test_init_for_entra_id_on_cdktf_names_both_extras_and_the_engine(tmp_path):
    result = hyperpod_teams("init", "p", "--identity-provider", "entra_id", "--engine", "cdktf", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "p" / "cdktf.json").read_text())["app"].endswith(" --engine cdktf")
    steps = (tmp_path / "p" / "NEXT-STEPS.md").read_text()
    assert "pip install './hyperpod-teams[entra,cdktf]'" in steps and "cdktf synth" in steps
    assert "pip install hyperpod-teams" not in steps  # never the bare, unpublished name
    assert hyperpod_teams("validate", "teams.yaml", cwd=tmp_path / "p").returncode == 0


@pytest.mark.parametrize("existing", ["a file of yours", ".hidden"])
def test_init_refuses_a_folder_that_is_not_empty_and_changes_nothing(tmp_path, existing):
    (tmp_path / existing).write_text("mine\n")
    result = hyperpod_teams("init", ".", cwd=tmp_path)
    assert result.returncode == 2
    assert "is not empty" in result.stderr and "Traceback" not in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == [existing]
    assert (tmp_path / existing).read_text() == "mine\n"


def test_init_refuses_a_file_and_an_organization_name_the_spec_refuses(tmp_path):
    (tmp_path / "teams.yaml").write_text("x")
    file = hyperpod_teams("init", "teams.yaml", cwd=tmp_path)
    assert file.returncode == 2 and "is a file" in file.stderr
    bad = hyperpod_teams("init", "new", "--org", "Not Valid", cwd=tmp_path)
    assert bad.returncode == 2 and "organization.name" in bad.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["teams.yaml"]  # no folder, no staging left


def test_init_writes_into_a_new_git_repository_and_leaves_its_metadata_alone(tmp_path):
    """`git init platform && hyperpod-teams init platform`: a repository's own metadata is no file
    of the user's to protect; git then sees the starter files as new and the repository intact."""
    subprocess.run(["git", "init", "-q", "platform"], cwd=tmp_path, check=True)
    head_before = (tmp_path / "platform" / ".git" / "HEAD").read_text()
    result = hyperpod_teams("init", "platform", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    platform = tmp_path / "platform"
    assert {p.name for p in platform.iterdir()} == STARTER_FILES | {".git"}
    assert (platform / ".git" / "HEAD").read_text() == head_before
    status = subprocess.run(["git", "status", "--porcelain"], cwd=platform, capture_output=True, text=True, check=True)
    assert {line[3:] for line in status.stdout.splitlines()} == STARTER_FILES
    # A repository with a file of the user's beside its metadata is refused as before.
    (tmp_path / "other").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=tmp_path / "other", check=True)
    (tmp_path / "other" / "README.md").write_text("mine\n")
    refused = hyperpod_teams("init", "other", cwd=tmp_path)
    assert refused.returncode == 2 and "README.md" in refused.stderr
