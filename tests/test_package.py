"""What a user downloads: the wheel and the sdist as `pip wheel` and `python -m build` make them
from this repository, read as an installer reads them (core metadata, PEP 639 license fields)."""

from __future__ import annotations

import email.parser
import subprocess
import sys
import tarfile
import zipfile

import pytest

from tests.conftest import ROOT, project_wheel

pytestmark = pytest.mark.xdist_group("package")


@pytest.fixture(scope="module")
def wheel_metadata(tmp_path_factory):
    archive = zipfile.ZipFile(project_wheel(tmp_path_factory))
    (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
    return email.parser.Parser().parsestr(archive.read(metadata).decode()), archive.namelist()


def test_the_wheel_carries_the_license_text_and_its_spdx_expression(wheel_metadata):
    """Apache-2.0 requires shipping its text (section 4(a)); PEP 639: License-Expression and
    License-File, and no deprecated License classifier beside them."""
    metadata, names = wheel_metadata
    assert metadata["License-Expression"] == "Apache-2.0"
    assert metadata.get_all("License-File") == ["LICENSE"]
    (license_file,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert not [c for c in metadata.get_all("Classifier") if c.startswith("License ::")]
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text and "END OF TERMS AND CONDITIONS" in text


def test_the_wheel_carries_every_module_of_the_package(wheel_metadata):
    """Every Python module of the product as the wheel installs it (stacks/ and providers/ under
    hyperpod_teams): a subpackage missing from pyproject.toml's list would import in a checkout and
    fail in every installed copy."""
    _, names = wheel_metadata
    installed = {n for n in names if n.endswith(".py")}
    expected = set()
    for folder, package in (("hyperpod_teams", "hyperpod_teams"), ("stacks", "hyperpod_teams/stacks"),
                            ("providers", "hyperpod_teams/providers")):  # fmt: skip
        for path in (ROOT / folder).rglob("*.py"):
            relative = path.relative_to(ROOT / folder)
            if "__pycache__" not in relative.parts and relative.parts[0] != "functions":
                expected.add(f"{package}/{relative.as_posix()}")
    assert sorted(expected - installed) == []


def test_the_summary_names_the_engine_and_the_version_is_released_in_the_changelog(wheel_metadata):
    metadata, _ = wheel_metadata
    assert "CDK Terrain" in metadata["Summary"] and "CDK for Terraform" not in metadata["Summary"]
    assert f"\n## {metadata['Version']} " in (ROOT / "CHANGELOG.md").read_text()
    assert "Typing :: Typed" in metadata.get_all("Classifier")


def test_the_sdist_builds_the_package_and_ships_no_tests(tmp_path):
    """The tests need the repository (the emulator, the stand-in providers, chart clones): an
    sdist that shipped them could not run them, so it ships none."""
    subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--outdir", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (sdist,) = tmp_path.glob("hyperpod_teams-*.tar.gz")
    names = [n.split("/", 1)[1] for n in tarfile.open(sdist).getnames() if "/" in n]
    assert not [n for n in names if n.startswith(("tests/", "examples/", ".ci/", "benchmarks/"))]
    assert "LICENSE" in names and "pyproject.toml" in names
    assert "hyperpod_teams/cli/main.py" in names and "stacks/cluster.py" in names


RELEASE = ROOT / ".github" / "workflows" / "release.yml"


def test_the_release_workflow_passes_githubs_schema_and_publishes_with_trusted_publishing_only():
    import re

    import yaml

    from tests.conftest import require_module

    require_module("check_jsonschema")
    checked = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", str(RELEASE)],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    workflow = yaml.safe_load(RELEASE.read_text())
    assert workflow[True]["push"]["tags"] == ["v*"]  # YAML 1.1 reads `on` as True
    assert workflow["permissions"] == {}
    jobs = workflow["jobs"]
    assert jobs["build"]["permissions"] == {"contents": "read"}
    assert jobs["publish"]["permissions"] == {"id-token": "write"} and jobs["publish"]["environment"]["name"] == "pypi"
    uses = [step["uses"] for job in jobs.values() for step in job["steps"] if "uses" in step]
    assert uses and all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u) for u in uses), uses
    assert any(u.startswith("pypa/gh-action-pypi-publish@") for u in uses)
    assert "password" not in RELEASE.read_text()  # no token: trusted publishing


@pytest.mark.parametrize(("tag", "passes"), [("v{version}", True), ("v9.9.9", False)])
def test_the_release_refuses_a_tag_that_is_not_the_packages_released_version(tag, passes):
    """The workflow's check, run as the job runs it (bash, from the repository's root)."""
    import tomllib

    import yaml

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    (script,) = [
        step["run"]
        for step in yaml.safe_load(RELEASE.read_text())["jobs"]["build"]["steps"]
        if "version" in step.get("name", "")
    ]
    env = {"PATH": "/usr/bin:/bin", "GITHUB_REF_NAME": tag.format(version=version)}
    result = subprocess.run(
        ["bash", "-e", "-c", script.replace("python -c", f"{sys.executable} -c")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert (result.returncode == 0) is passes, result.stdout + result.stderr
    if not passes:
        assert "::error::the tag is v9.9.9" in result.stdout


def test_the_release_gives_the_package_the_urls_of_the_repository_it_is_built_in(tmp_path):
    """The workflow's step, run as the job runs it on a copy of the repository; then the wheel's
    metadata carries the repository's addresses (core metadata's Project-URL)."""
    import shutil
    import zipfile

    import yaml

    skip = shutil.ignore_patterns(".git", ".venv*", ".tools", "build", "cdktf.out", "test-artifacts", "*.egg-info")
    copy = tmp_path / "repository"
    shutil.copytree(ROOT, copy, ignore=skip)
    (script,) = [
        step["run"]
        for step in yaml.safe_load(RELEASE.read_text())["jobs"]["build"]["steps"]
        if "URLs" in step.get("name", "")
    ]
    env = {
        "PATH": "/usr/bin:/bin",
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "acme/hyperpod-teams",
        "GITHUB_REF_NAME": "v0.2.0",
    }
    for _ in range(2):  # a second run adds nothing
        result = subprocess.run(["bash", "-e", "-c", script], cwd=copy, env=env, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(copy)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("hyperpod_teams-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(archive.read(n).decode() for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    urls = sorted(line for line in metadata.splitlines() if line.startswith("Project-URL:"))
    assert urls == [
        "Project-URL: Changelog, https://github.com/acme/hyperpod-teams/blob/v0.2.0/CHANGELOG.md",
        "Project-URL: Documentation, https://github.com/acme/hyperpod-teams/tree/v0.2.0/docs",
        "Project-URL: Issues, https://github.com/acme/hyperpod-teams/issues",
        "Project-URL: Source, https://github.com/acme/hyperpod-teams",
    ]
