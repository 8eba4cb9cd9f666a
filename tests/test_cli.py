"""The `hyperpod-teams` command: exit codes, messages, the schema, and an all-or-nothing synth."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hyperpod_teams import cli
from hyperpod_teams.cli import common as cli_common
from hyperpod_teams.cli import synth as cli_synth
from tests.conftest import QUICKSTART, ROOT

SCHEMA_FILE = ROOT / "hyperpod_teams" / "spec" / "spec-v1.schema.json"


def run_command(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """The installed console script in a fresh process, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_validate_accepts_the_quickstart():
    result = run_command("validate", str(QUICKSTART))
    assert result.returncode == 0, result.stderr
    assert "is valid" in result.stdout and "3 teams" in result.stdout


def test_invalid_spec_exits_2_with_the_field_and_line_on_stderr(tmp_path):
    spec = tmp_path / "teams.yaml"
    spec.write_text(QUICKSTART.read_text().replace("count: 4}", "count: 40}", 1))
    result = run_command("validate", str(spec))
    assert result.returncode == 2
    assert "teams[0].compute.quota[0].count" in result.stderr and f"{spec}:" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_synth_of_an_invalid_spec_exits_2_and_writes_nothing(tmp_path):
    spec = tmp_path / "teams.yaml"
    spec.write_text("version: 2\n")
    result = run_command("synth", str(spec), "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and "version" in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "command",
    [
        ["validate", str(QUICKSTART)],
        ["schema"],
        ["report", str(QUICKSTART)],
        ["report", str(QUICKSTART), "--format", "html"],
        ["runbook", str(QUICKSTART)],
        ["--help"],
        ["--version"],
    ],
)
def test_pure_commands_import_no_cdktf(command):
    code = (
        "import sys, runpy; sys.argv = ['hyperpod-teams', *sys.argv[1:]];\n"
        "try:\n    runpy.run_module('hyperpod_teams', run_name='__main__')\n"
        "except SystemExit as e:\n    assert not e.code, e.code\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('cdktf', 'constructs', 'jsii') "
        "or m.startswith('cdktf_cdktf_provider'))\n"
        "print('LOADED', loaded, file=sys.stderr)"
    )
    result = subprocess.run([sys.executable, "-c", code, *command], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "LOADED []" in result.stderr


def test_help_explains_the_commands():
    result = run_command("--help")
    assert result.returncode == 0
    for word in ("validate", "synth", "schema", "<org>-team-<team>"):
        assert word in result.stdout
    assert "CDKTF_OUTDIR" in run_command("synth", "--help").stdout


def test_version_is_the_package_version():
    from hyperpod_teams import __version__

    assert run_command("--version").stdout.splitlines()[0] == f"hyperpod-teams {__version__}"


def test_committed_schema_matches_the_models():
    """The schema file editors point at cannot drift from the models."""
    assert run_command("schema").stdout == SCHEMA_FILE.read_text()


def test_schema_accepts_every_example_and_rejects_an_unknown_field():
    import jsonschema
    import yaml

    from tests.conftest import EXAMPLE_SPECS

    schema = json.loads(SCHEMA_FILE.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    for path in EXAMPLE_SPECS:
        jsonschema.validate(yaml.safe_load(path.read_text()), schema)
    data = yaml.safe_load(QUICKSTART.read_text())
    data["teams"][0]["colour"] = "red"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema)


def test_examples_point_editors_at_the_schema():
    from tests.conftest import EXAMPLE_SPECS

    for path in EXAMPLE_SPECS:
        first = path.read_text().splitlines()[0]
        assert first.startswith("# yaml-language-server: $schema=")
        assert (path.parent / first.split("=", 1)[1]).resolve() == SCHEMA_FILE


# --- synth, in-process (the bindings are imported once per test process) ------------------


def test_synth_writes_the_cdktf_layout_and_a_summary(tmp_path, monkeypatch):
    monkeypatch.delenv("CDKTF_OUTDIR", raising=False)
    out = tmp_path / "cdktf.out"
    result = CliRunner().invoke(cli.cli, ["synth", str(QUICKSTART), "--out", str(out)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert (out / "stacks" / "acme-cluster" / "cdk.tf.json").is_file()
    assert set(manifest["stacks"]) >= {"acme-identity", "acme-team-nlp", "acme-cost"}
    assert "synthesized 12 stacks" in result.output
    lines = {line.split()[0]: line for line in result.output.splitlines() if line.startswith("acme-")}
    assert set(lines) == set(manifest["stacks"]), "one line per stack"
    assert "EKS cluster" in lines["acme-k8s-nlp"] and lines["acme-k8s-nlp"].endswith("acme-eks, acme-team-nlp")
    assert not list(tmp_path.glob(".cdktf.out.*")), "a staging folder was left behind"


def test_stack_table_aligns_columns_and_puts_each_stack_on_one_line():
    from hyperpod_teams.synth import StackSummary

    summaries = [
        StackSummary("acme-access", "AWS (Identity Center account)", 21, 7, ("acme-identity",)),
        StackSummary("acme-k8s-a-team-with-a-long-name", "EKS cluster", 6, 1, ("acme-eks", "acme-team-a")),
        StackSummary("acme-cost", "AWS (payer account)", 104, 0, ()),
    ]
    header, *rows = cli_synth.stack_table(summaries)
    assert header.split("   ")[0].rstrip() == "STACK" and len(rows) == 3
    # Every column starts where its heading starts; counts end where their heading ends.
    start = header.index("CREDENTIALS")
    assert [row[start:].split("  ")[0] for row in rows] == [s.credentials for s in summaries]
    resources_end = header.index("RESOURCES") + len("RESOURCES")
    assert [row[:resources_end].split()[-1] for row in rows] == ["21", "6", "104"]
    after = header.index("DEPLOYS AFTER")
    assert [row[after:] for row in rows] == ["acme-identity", "acme-eks, acme-team-a", "-"]


def test_synth_honours_cdktf_outdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli.cli, ["synth", str(QUICKSTART)], env={"CDKTF_OUTDIR": "from-env"})
    assert result.exit_code == 0, result.output
    assert (tmp_path / "from-env" / "manifest.json").is_file()
    assert not (tmp_path / "cdktf.out").exists()


def _previous_output(out: Path) -> dict[str, bytes]:
    from hyperpod_teams.synth import OUTPUT_MARKER

    (out / "stacks" / "old-stack").mkdir(parents=True)
    (out / OUTPUT_MARKER).write_text("an earlier synth")
    (out / "manifest.json").write_text('{"previous": true}')
    (out / "stacks" / "old-stack" / "cdk.tf.json").write_text("{}")
    return {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def test_failed_synth_leaves_the_previous_output_untouched(tmp_path, monkeypatch):
    import hyperpod_teams.app

    out = tmp_path / "cdktf.out"
    before = _previous_output(out)

    monkeypatch.setattr(
        hyperpod_teams.app, "add_platform_stacks", _failing_after_build(hyperpod_teams.app.add_platform_stacks)
    )
    with pytest.raises(SystemExit) as raised:
        monkeypatch.setattr(sys, "argv", ["hyperpod-teams", "synth", str(QUICKSTART), "--out", str(out)])
        cli.main()
    assert raised.value.code == 1
    after = {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cdktf.out"], "staging output was left behind"


def _failing_after_build(real):
    def add_platform_stacks(app, spec):
        real(app, spec)
        raise RuntimeError("simulated failure after the stacks were built")

    return add_platform_stacks


def test_internal_error_exits_1_without_a_traceback(tmp_path, monkeypatch, capsys):
    import hyperpod_teams.app

    monkeypatch.setattr(
        hyperpod_teams.app, "add_platform_stacks", _failing_after_build(hyperpod_teams.app.add_platform_stacks)
    )
    monkeypatch.setattr(sys, "argv", ["hyperpod-teams", "synth", str(QUICKSTART), "--out", str(tmp_path / "o")])
    monkeypatch.delenv(cli_common.DEBUG_ENV, raising=False)
    with pytest.raises(SystemExit) as raised:
        cli.main()
    assert raised.value.code == 1
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: simulated failure" in err and "Traceback" not in err


def test_resynth_keeps_terraform_working_files_and_drops_removed_stacks(tmp_path):
    from hyperpod_teams.spec import load_spec
    from hyperpod_teams.synth import synthesize

    out = tmp_path / "cdktf.out"
    spec = load_spec(QUICKSTART)
    synthesize(spec, out)
    lock = out / "stacks" / "acme-cluster" / ".terraform.lock.hcl"
    lock.write_text("# provider locks\n")
    (out / "stacks" / "acme-cluster" / ".terraform").mkdir()
    gone = out / "stacks" / "acme-team-research"
    (gone / ".terraform" / "providers").mkdir(parents=True)
    synthesize(spec.model_copy(update={"teams": spec.teams[:2]}), out)
    assert lock.read_text() == "# provider locks\n"
    assert (out / "stacks" / "acme-cluster" / ".terraform").is_dir()
    assert not gone.exists(), "a removed stack's folder and working files stay behind"


def test_synth_without_terraform_or_node_on_the_path_exits_2_naming_what_to_install(tmp_path):
    """Not "a bug in hyperpod-teams" (exit 1, the engine's validation error): the pipeline's
    `changes` job on a runner without Terraform got that (#49). Nothing is written."""
    out = tmp_path / "cdktf.out"
    bare = tmp_path / "bin"
    bare.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "JSII_NODE"}
    env["PATH"] = str(bare)  # neither node nor terraform
    result = run_command("synth", str(QUICKSTART), "--out", str(out), env=env)
    assert result.returncode == 2, result.stderr
    assert "Terraform (`terraform`)" in result.stderr
    # The checkout's Node.js 22 (make's .tools/node22) stands in for the missing one, said so.
    bundled = ROOT / cli_synth.BUNDLED_NODE
    if bundled.exists():
        assert "using Node.js 22" in result.stderr and str(bundled) in result.stderr
        assert "Node.js (`node`)" not in result.stderr
    else:
        assert "Node.js (`node`)" in result.stderr
    assert "bug" not in result.stderr
    assert not out.exists()


def test_without_node_anywhere_synth_names_node_to_install(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("JSII_NODE", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(cli_synth, "_bundled_node", lambda: None)
    with pytest.raises(SystemExit) as stopped:
        cli_synth._refuse_without_the_tools_synth_runs()
    assert stopped.value.code == 2
    assert "Node.js (`node`), which runs the engine" in capsys.readouterr().err


def test_an_old_node_on_the_path_gives_way_to_the_one_make_installed(monkeypatch, tmp_path, capsys):
    """After `make quickstart`, the README's next command runs from .venv with the machine's Node.js 20
    first on the PATH: the CLI takes the Node.js 22 make installed, and says so."""
    bundled = ROOT / cli_synth.BUNDLED_NODE
    if not bundled.exists():
        pytest.skip("make has not installed .tools/node22 here")
    old = tmp_path / "node"
    old.write_text("#!/bin/sh\necho v20.19.0\n")
    old.chmod(0o755)
    monkeypatch.delenv("JSII_NODE", raising=False)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    cli_synth._refuse_without_the_tools_synth_runs()  # node 20 first on the PATH, terraform after it
    assert os.environ["JSII_NODE"] == str(bundled)
    assert f"{old} is 20.19.0" in capsys.readouterr().err


SARIF_MULTITOOL = ROOT / ".tools" / "sarif" / "node_modules" / ".bin" / "sarif-multitool"


def _over_capacity(folder) -> tuple[str, int]:
    """The quickstart with nlp's p5 quota raised over the cluster's nodes, and that line's number."""
    text = QUICKSTART.read_text().replace("count: 4}", "count: 40}", 1)
    (folder / "teams.yaml").write_text(text)
    line = next(number for number, content in enumerate(text.splitlines(), 1) if "count: 40}" in content)
    return "teams.yaml", line


def test_validate_json_lists_each_problem_with_its_path_line_and_hint(tmp_path):
    name, line = _over_capacity(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "validate", name, "--format", "json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    report = json.loads(result.stdout)
    assert report["valid"] is False
    (problem,) = report["problems"]
    assert problem["path"] == "teams[0].compute.quota[0].count" and problem["line"] == line
    assert "ml.p5.48xlarge" in problem["message"] and problem["hint"]
    valid = subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "validate", str(QUICKSTART), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert valid.returncode == 0 and json.loads(valid.stdout) == {
        "spec": str(QUICKSTART),
        "valid": True,
        "problems": [],
    }


def _sarif_multitool_findings(folder, sarif_text: str) -> list[tuple[str, str, str]]:
    (folder / "validate.sarif").write_text(sarif_text)
    (folder / "checked.sarif").unlink(missing_ok=True)
    checked = subprocess.run(
        [str(SARIF_MULTITOOL), "validate", "validate.sarif", "-o", "checked.sarif"],
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=300,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    return [
        (r["ruleId"], r.get("level", "warning"), r["message"].get("text", ""))
        for run in json.loads((folder / "checked.sarif").read_text())["runs"]
        for r in run.get("results", [])
    ]


def test_validate_sarif_passes_microsofts_sarif_validator_with_each_problem_at_its_line(tmp_path):
    """The SARIF a code-scanning upload takes: checked by @microsoft/sarif-multitool (the SARIF
    TC's validator: the 2.1.0 schema and its rules). A released package (whose metadata carries the
    repository's Project-URL) gets no finding at all; a checkout, which names no address, gets
    only the validator's warning that the tool names none, never the package index's page."""
    if not SARIF_MULTITOOL.exists():
        if os.environ.get("CI"):
            pytest.fail("make test installs the SARIF validator under CI")
        pytest.skip("the SARIF validator is not installed (make test installs it)")
    from hyperpod_teams.spec.loading import load_spec
    from hyperpod_teams.spec.problems import SpecError
    from hyperpod_teams.spec.reports import problems_report, project_information_uri

    name, line = _over_capacity(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "validate", name, "--format", "sarif"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert "pypi.org" not in result.stdout
    findings = _sarif_multitool_findings(tmp_path, result.stdout)
    if project_information_uri() is None:
        # SARIF2005 ProvideToolProperties: the driver names no informationUri
        assert [(rule, level) for rule, level, _ in findings] == [("SARIF2005", "warning")], findings
    else:
        assert not findings, findings
    (ours,) = json.loads(result.stdout)["runs"][0]["results"]
    location = ours["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "teams.yaml" and location["region"]["startLine"] == line
    assert ours["message"]["text"].startswith("teams[0].compute.quota[0].count: ")

    with pytest.raises(SpecError) as invalid:
        load_spec(tmp_path / name)
    released = problems_report(
        Path(name),
        invalid.value.problems,
        "sarif",
        tool_version="0.3.0",
        information_uri="https://github.com/acme/hyperpod-teams/tree/v0.3.0/docs",
    )
    assert _sarif_multitool_findings(tmp_path, released) == []


def test_the_sarif_tool_address_is_the_packages_own_project_url(tmp_path, monkeypatch):
    """Documentation, else Source, from the installed metadata (what the release workflow writes);
    nothing for a package that names no address."""
    from hyperpod_teams.spec.reports import project_information_uri

    for name, urls in (
        ("released-docs", ["Source, https://example.com/src", "Documentation, https://example.com/docs"]),
        ("released-source", ["Source, https://example.com/src", "Issues, https://example.com/issues"]),
        ("checkout", []),
    ):
        info = tmp_path / f"{name.replace('-', '_')}-1.0.dist-info"
        info.mkdir()
        lines = ["Metadata-Version: 2.1", f"Name: {name}", "Version: 1.0"]
        (info / "METADATA").write_text("\n".join(lines + [f"Project-URL: {url}" for url in urls]) + "\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert project_information_uri("released-docs") == "https://example.com/docs"
    assert project_information_uri("released-source") == "https://example.com/src"
    assert project_information_uri("checkout") is None
    assert project_information_uri("no-such-package-here") is None


def test_the_version_names_the_engines_with_their_provider_pins_and_jsii():
    from importlib import metadata

    result = run_command("--version")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"hyperpod-teams {metadata.version('hyperpod-teams')}"
    assert f"engine cdktn {metadata.version('cdktn')} (default): providers aws 6.69.1" in result.stdout
    assert f"jsii {metadata.version('jsii')}" in lines


def test_synth_asks_terraform_its_version_with_the_checkpoint_call_off(tmp_path):
    """The engine runs `terraform version` while writing the stacks; without CHECKPOINT_DISABLE
    Terraform would call HashiCorp's checkpoint service, a network call nobody asked for. A
    stand-in `terraform` on the PATH records the environment it was run with."""
    import shutil

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    recorded = tmp_path / "terraform-env"
    fake = bin_dir / "terraform"
    fake.write_text(f'#!/bin/sh\nenv > "{recorded}"\necho "Terraform v1.11.0"\necho "on linux_amd64"\n')
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "CHECKPOINT_DISABLE"}
    env["PATH"] = f"{bin_dir}:{Path(shutil.which('node') or '/usr/bin/node').parent}:{env.get('PATH', '')}"
    result = run_command("synth", str(QUICKSTART), "--out", str(tmp_path / "cdktf.out"), env=env)
    assert result.returncode == 0, result.stderr
    assert recorded.exists(), "the engine did not run terraform"
    assert "CHECKPOINT_DISABLE=1" in recorded.read_text().splitlines()


@pytest.mark.parametrize("variable", ["HOME", "TMPDIR"])
def test_synth_where_the_engine_cannot_write_exits_2_naming_what_to_fix_and_writes_nothing(tmp_path, variable):
    """An unwritable HOME (the jsii package cache) or TMPDIR (the engine's scratch folder) is the
    machine's problem, not "a bug in hyperpod-teams" (exit 1, as it was). A file where a folder must
    be stands for it: root, which runs CI here, may write anywhere else."""
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder\n")
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "JSII_RUNTIME_PACKAGE_CACHE_ROOT")}
    env[variable] = str(blocked)
    out = tmp_path / "out" / "cdktf.out"
    result = run_command("synth", str(QUICKSTART), "--out", str(out), env=env)
    assert result.returncode == 2, result.stderr
    assert "ENOTDIR" in result.stderr and "bug" not in result.stderr
    assert ("JSII_RUNTIME_PACKAGE_CACHE_ROOT" if variable == "HOME" else "TMPDIR") in result.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
