"""The fast import of the provider bindings: same bytes out, and a safe fallback."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hyperpod_teams import bindings
from hyperpod_teams.spec import load_spec
from tests.conftest import EXAMPLE_SPECS, synthesize_stacks

FULL_IMPORT_SYNTH = """
import sys
from pathlib import Path
from hyperpod_teams.app import build_app
Path(sys.argv[2]).parent.mkdir(parents=True, exist_ok=True)
from hyperpod_teams.spec import load_spec
for spec_path, out in zip(sys.argv[1::2], sys.argv[2::2]):
    build_app(load_spec(spec_path), outdir=out).synth()
import cdktf_cdktf_provider_aws
print("SUBMODULES", sum(1 for m in sys.modules if m.startswith("cdktf_cdktf_provider_aws.")))
"""


def tree(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_fast_and_ordinary_imports_synthesize_the_same_bytes(tmp_path):
    fast, ordinary, args = {}, {}, []
    for path in EXAMPLE_SPECS:
        name = path.parent.name
        (tmp_path / "fast").mkdir(exist_ok=True)
        synthesize_stacks(load_spec(path), tmp_path / "fast" / name)
        fast[name] = tree(tmp_path / "fast" / name)
        args += [str(path), str(tmp_path / "ordinary" / name)]
    # The ordinary path on both sides: Python imports every submodule, node requires every one.
    env = {**os.environ, bindings.FULL_IMPORT_ENV: "1", "NODE_OPTIONS": ""}
    result = subprocess.run([sys.executable, "-c", FULL_IMPORT_SYNTH, *args], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.split("SUBMODULES")[1]) > 2000  # the ordinary path really imported them all
    for path in EXAMPLE_SPECS:
        name = path.parent.name
        ordinary[name] = tree(tmp_path / "ordinary" / name)
        assert fast[name] == ordinary[name], f"{name}: the fast path changed the output"


def test_this_process_imported_only_the_submodules_it_uses():
    bindings.aws_provider  # noqa: B018 - loads through the fast path
    loaded = [m for m in sys.modules if m.startswith("cdktf_cdktf_provider_aws.") and m.count(".") == 1]
    if len(loaded) > 2000:
        pytest.skip("another test in this process imported the AWS bindings the ordinary way")
    assert len(loaded) < 100, f"{len(loaded)} AWS submodules imported; the stacks use a few dozen"


def _fake_package(root: Path, name: str, init: str) -> None:
    package = root / name
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(init))
    (package / "_jsii.py").write_text("LOADED = True\n")
    (package / "thing.py").write_text("import sys\nsys.modules[__package__].THING_IMPORTED = True\n")


@pytest.fixture
def fake_packages(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("cdktf_cdktf_provider_fake")]:
        del sys.modules[name]


def test_a_package_of_the_expected_shape_loads_without_its_submodules(fake_packages):
    _fake_package(
        fake_packages,
        "cdktf_cdktf_provider_fake_ok",
        f"""
        from ._jsii import *
        HEAD_RAN = True
        {bindings.SUBMODULE_BLOCK_MARKER}
        from . import thing
        """,
    )
    assert bindings.import_package_without_submodules("cdktf_cdktf_provider_fake_ok") is True
    module = sys.modules["cdktf_cdktf_provider_fake_ok"]
    assert module.HEAD_RAN and not hasattr(module, "THING_IMPORTED")


@pytest.mark.parametrize(
    "init",
    [
        "from ._jsii import *\nfrom . import thing\n",  # no marker: another layout
        f"from ._jsii import *\n{bindings.SUBMODULE_BLOCK_MARKER}\nfrom . import thing\nSETUP = 1\n",  # code after
    ],
    ids=["no marker", "code after the submodule block"],
)
def test_an_unexpected_layout_falls_back_to_the_ordinary_import(fake_packages, init):
    name = f"cdktf_cdktf_provider_fake_{abs(hash(init)) % 10_000}"
    _fake_package(fake_packages, name, init)
    assert bindings.import_package_without_submodules(name) is False
    assert name not in sys.modules
    module = __import__(name)
    assert module.THING_IMPORTED  # the ordinary import ran the whole __init__


def test_missing_plugin_bindings_name_the_extra_to_install(monkeypatch):
    monkeypatch.setitem(bindings.MODULES, "absent_provider", "cdktf_cdktf_provider_absent.provider")
    monkeypatch.setitem(bindings.EXTRAS, "cdktf_cdktf_provider_absent", "absent")
    with pytest.raises(bindings.MissingBindingsError, match=r"pip install 'hyperpod-teams\[absent\]'"):
        bindings.absent_provider  # noqa: B018


def test_missing_bindings_exit_1_with_the_fix_and_no_traceback(monkeypatch, capsys, tmp_path):
    from hyperpod_teams import cli
    from tests.conftest import QUICKSTART

    def absent(*args, **kwargs):
        raise bindings.MissingBindingsError("the Terraform bindings x are not installed; run: pip install y")

    monkeypatch.setattr("hyperpod_teams.synth.synthesize", absent)
    monkeypatch.setattr(sys, "argv", ["hyperpod-teams", "synth", str(QUICKSTART), "--out", str(tmp_path / "o")])
    with pytest.raises(SystemExit) as raised:
        cli.main()
    assert raised.value.code == 1
    err = capsys.readouterr().err
    assert "pip install y" in err and "bug" not in err and "Traceback" not in err


# --- the node side: lazy provider exports ----------------------------------------------------

NODE = "node"


def node(script: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([NODE, "-e", script, *args], capture_output=True, text=True, env=env, timeout=60)


def test_a_real_synth_makes_every_provider_index_lazy(tmp_path):
    report = tmp_path / "lazy.txt"
    env = {**os.environ, "HYPERPOD_TEAMS_LAZY_EXPORTS_REPORT": str(report), "NODE_OPTIONS": ""}
    spec = EXAMPLE_SPECS[[p.parent.name for p in EXAMPLE_SPECS].index("quickstart")]
    result = subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "synth", str(spec), "--out", str(tmp_path / "out")],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    packages = {re.search(r"@cdktf[\\/](provider-[a-z-]+)", line).group(1) for line in report.read_text().splitlines()}
    assert packages == {"provider-aws", "provider-azuread", "provider-helm", "provider-kubernetes"}


def test_the_lazy_index_requires_a_submodule_only_when_it_is_used(tmp_path):
    package = tmp_path / "node_modules" / "@cdktf" / "provider-fake" / "lib"
    for name in ("alpha", "beta"):
        (package / name).mkdir(parents=True)
        (package / name / "index.js").write_text(f'globalThis.loaded = [...(globalThis.loaded || []), "{name}"]; exports.kind = "{name}";\n')
    (package / "index.js").write_text(
        '"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\n'
        "exports.beta = exports.alpha = void 0;\n"
        'exports.alpha = require("./alpha");\nexports.beta = require("./beta");\n'
    )
    script = (
        f"require({json.dumps(str(bindings.LAZY_EXPORTS_SCRIPT))});"
        f"const index = require({json.dumps(str(package / 'index.js'))});"
        "const before = [...(globalThis.loaded || [])];"
        "const kind = index.beta.kind;"
        "console.log(JSON.stringify({before, kind, after: globalThis.loaded, keys: Object.keys(index)}));"
    )
    result = node(script)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"before": [], "kind": "beta", "after": ["beta"], "keys": ["alpha", "beta"]}


def test_an_index_of_another_shape_is_left_as_it_is():
    script = (
        f"const {{ lazyIndex }} = require({json.dumps(str(bindings.LAZY_EXPORTS_SCRIPT))});"
        "const plain = 'exports.a = require(\"./a\");';"
        "console.log(JSON.stringify([lazyIndex(plain) !== null, lazyIndex(plain + '\\nsideEffect();'), lazyIndex('exports.x = 1;')]));"
    )
    result = node(script)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [True, None, None]


def test_tuning_the_node_process_adds_the_preload_once_and_respects_the_override():
    environ = {"NODE_OPTIONS": "--max-old-space-size=4096"}
    bindings.tune_node_process(environ)
    bindings.tune_node_process(environ)
    assert environ["NODE_OPTIONS"].count(bindings.LAZY_EXPORTS_SCRIPT.name) == 1
    assert environ["NODE_OPTIONS"].startswith("--max-old-space-size=4096 --require")
    ordinary = {bindings.FULL_IMPORT_ENV: "1"}
    bindings.tune_node_process(ordinary)
    assert "NODE_OPTIONS" not in ordinary
