"""The speed-ups (hyperpod_teams.speedups) and the fast import of the provider bindings: the same
bytes out, and safe fallbacks."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hyperpod_teams import bindings, engine, speedups
from hyperpod_teams.speedups import python_bindings
from hyperpod_teams.synth import OUTPUT_MARKER
from tests.conftest import EXAMPLE_SPECS, once_per_run, synthesized_dir, synthesized_once

#: The node and Python programs these tests run, as files (tests/programs/README.md).
PROGRAMS = Path(__file__).parent / "programs"


def _found(pattern: str, text: str) -> str:
    """The first group of `pattern` in `text`, which must be there."""
    match = re.search(pattern, text)
    assert match, f"{pattern!r} not in the output:\n{text[-2000:]}"
    return match.group(1)


def program(name: str) -> str:
    return (PROGRAMS / name).read_text()


def _pins() -> dict[str, str]:
    """Every exact pin of pyproject: the dependencies and the extras (cdktf's engine is an extra)."""
    import tomllib

    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())["project"]
    requirements = [
        *project["dependencies"],
        *(r for extra in project["optional-dependencies"].values() for r in extra),
    ]
    return dict(d.split("==") for d in requirements if "==" in d)


#: The engines whose packaged JavaScript the rewriters are checked against, each the same way.
ENGINE_PACKAGES = ["cdktn", "cdktf"]


def require_pinned_runtime() -> None:
    """The rewriters and jsii_requests expect the exact jsii, constructs and engine (cdktn, cdktf)
    that pyproject pins; on another version they decline (by design), so a test that they apply
    would only report that: skip it, saying why."""
    from importlib.metadata import version

    for package in ("jsii", "constructs", *ENGINE_PACKAGES):
        if version(package) != _pins()[package]:
            pytest.skip(
                f"{package} {version(package)} is installed, the speed-ups expect {_pins()[package]} (pyproject)"
            )


FULL_IMPORT_SYNTH = program("full_import_synth.py")

# What the `synth` command runs, for every example in one process: the node preload, the
# generated bindings without their argument type checks, and its own encoding of jsii requests.
COMMAND_SYNTH = program("command_synth.py")


def tree(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _examples_of(package: str) -> list[Path]:
    """The examples an engine builds: every one, on either engine."""
    return list(EXAMPLE_SPECS)


@pytest.mark.parametrize("package", ENGINE_PACKAGES)
def test_fast_and_ordinary_imports_synthesize_the_same_bytes(tmp_path, tmp_path_factory, package):
    """Three ways to the same bytes, under each engine: this test process (the library's way: the
    node preload, type checks on; its own engine only), the synth command's way (type checks off,
    jsii requests encoded directly), and the ordinary way."""
    require_pinned_runtime()
    examples = _examples_of(package)
    in_process, command_args, ordinary_args = {}, [], []
    for path in examples:
        name = path.parent.name
        if package == engine.current().name:
            # This process's way is the run's shared synth of the example (conftest.synthesized_once).
            synthesized_once(tmp_path_factory, path)
            in_process[name] = tree(synthesized_dir(tmp_path_factory, path))
        command_args += [str(path), str(tmp_path / "command" / name)]
        ordinary_args += [str(path), str(tmp_path / "ordinary" / name)]
    command_env = {k: v for k, v in os.environ.items() if k not in (python_bindings.TYPE_CHECKS_ENV, "NODE_OPTIONS")}
    command_env[engine.ENGINE_ENV] = package
    command = subprocess.run(
        [sys.executable, "-c", COMMAND_SYNTH, *command_args], env=command_env, capture_output=True, text=True
    )
    assert command.returncode == 0, command.stderr
    assert "UNCHECKED True" in command.stdout
    assert "DIRECT REQUESTS True" in command.stdout
    assert f"ENGINE {package}" in command.stdout
    deferred = int(_found(r"DEFERRED ANSWERS (\d+)", command.stdout))
    # Most creates went without waiting for their answer; after the first of the okta example's
    # elements, which are Python subclasses jsii may call back (providers/okta/terraform.py), creates
    # wait, as they must (measured: 472 of the examples' creates deferred under cdktn).
    assert deferred > 400
    # The ordinary path on both sides: Python imports every submodule, node requires every one.
    # Nothing of this process's own node set-up (tune_node_process in conftest) may reach it.
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NODE_OPTIONS", "NODE_PRESERVE_SYMLINKS", "CDKTN_DISABLE_CREATION_STACK")
    }
    env[python_bindings.FULL_IMPORT_ENV] = "1"
    env[engine.ENGINE_ENV] = package
    result = subprocess.run(
        [sys.executable, "-c", FULL_IMPORT_SYNTH, *ordinary_args], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    submodules = int(result.stdout.split("SUBMODULES")[1])
    if package == "cdktf":
        assert submodules > 2000  # the ordinary path really imported them all
    else:  # cdktn's packages load a submodule when it is first used (their own __getattr__)
        assert submodules < 200
    for path in examples:
        name = path.parent.name
        ordinary = tree(tmp_path / "ordinary" / name)
        if name in in_process:
            assert in_process[name] == ordinary, f"{name}: the library's fast path changed the output"
        command_tree = tree(tmp_path / "command" / name)
        assert command_tree.pop(OUTPUT_MARKER).startswith(b"This folder was written by")  # the command's own
        assert command_tree == ordinary, f"{name}: the synth command changed the output"


def test_this_process_imported_only_the_submodules_it_uses():
    bindings.aws_provider  # noqa: B018 - loads through the fast path
    aws = engine.current().provider_package("aws")
    loaded = [m for m in sys.modules if m.startswith(f"{aws}.") and m.count(".") == 1]
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
        {python_bindings.SUBMODULE_BLOCK_MARKER}
        from . import thing
        """,
    )
    assert python_bindings.import_package_without_submodules("cdktf_cdktf_provider_fake_ok") is True
    module = sys.modules["cdktf_cdktf_provider_fake_ok"]
    assert module.HEAD_RAN and not hasattr(module, "THING_IMPORTED")


@pytest.mark.parametrize(
    "init",
    [
        "from ._jsii import *\nfrom . import thing\n",  # no marker: another layout
        # code after the block
        f"from ._jsii import *\n{python_bindings.SUBMODULE_BLOCK_MARKER}\nfrom . import thing\nSETUP = 1\n",
    ],
    ids=["no marker", "code after the submodule block"],
)
def test_an_unexpected_layout_falls_back_to_the_ordinary_import(fake_packages, init):
    name = f"cdktf_cdktf_provider_fake_{abs(hash(init)) % 10_000}"
    _fake_package(fake_packages, name, init)
    assert python_bindings.import_package_without_submodules(name) is False
    assert name not in sys.modules
    module = __import__(name)
    assert module.THING_IMPORTED  # the ordinary import ran the whole __init__


def test_missing_plugin_bindings_name_the_extra_to_install(monkeypatch):
    monkeypatch.setitem(bindings.MODULES, "absent_provider", "absent.provider")
    monkeypatch.setitem(bindings.EXTRAS, "absent", "absent")
    with pytest.raises(bindings.MissingBindingsError, match=r"pip install './hyperpod-teams\[absent\]'"):
        bindings.absent_provider  # noqa: B018


def test_missing_bindings_exit_2_with_the_fix_and_no_traceback(monkeypatch, capsys, tmp_path):
    from hyperpod_teams import cli
    from tests.conftest import QUICKSTART

    def absent(*args, **kwargs):
        raise bindings.MissingBindingsError("the Terraform bindings x are not installed; run: pip install y")

    monkeypatch.setattr("hyperpod_teams.synth.synthesize", absent)
    monkeypatch.setattr(sys, "argv", ["hyperpod-teams", "synth", str(QUICKSTART), "--out", str(tmp_path / "o")])
    with pytest.raises(SystemExit) as raised:
        cli.main()
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert "pip install y" in err and "bug" not in err and "Traceback" not in err


# --- Python side: the generated bindings' argument type checks -------------------------------

TYPE_CHECK_PROBE = program("type_check_probe.py")


@pytest.mark.parametrize(
    ("mode", "environ", "checked_by"),
    [
        ("keep", {}, "python"),
        ("skip", {}, "jsii kernel"),
        ("skip", {python_bindings.TYPE_CHECKS_ENV: "1"}, "python"),
        ("skip", {python_bindings.FULL_IMPORT_ENV: "1"}, "python"),
    ],
    ids=["library process", "synth process", "checks kept by env", "ordinary path"],
)
def test_a_wrong_argument_type_is_refused_with_or_without_the_python_checks(tmp_path, mode, environ, checked_by):
    env = {**{k: v for k, v in os.environ.items() if k != python_bindings.TYPE_CHECKS_ENV}, **environ}
    result = subprocess.run(
        [sys.executable, "-c", TYPE_CHECK_PROBE, mode, str(tmp_path)], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    kind, message = result.stdout.strip().split(" | ", 1)
    assert "assume_role_policy" in message or "assumeRolePolicy" in message
    if checked_by == "python":
        assert kind == "TypeError" and "must be str" in message  # typeguard, in Python
    else:
        assert kind != "TypeError" and "Unable to deserialize" in message  # the kernel, in node


# --- the node side: the preload and its rewriters ---------------------------------------------

NODE = "node"
NODE_DIR = speedups.NODE_PRELOAD_SCRIPT.parent


def node(
    script: str, *args: str, env: dict | None = None, input_text: str | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [NODE, "-e", script, *args], input=input_text, capture_output=True, text=True, env=env, timeout=60
    )


def rewriter_applies(module: str, function: str, sources: list[str]) -> list[bool]:
    """For each source, whether the rewriter's function rewrites it (rather than answer null)."""
    script = (
        f"const rewrite = require({json.dumps(str(NODE_DIR / module))}).{function};"
        "const sources = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(sources.map((s) => rewrite(s) !== null)));"
    )
    result = subprocess.run([NODE, "-e", script], input=json.dumps(sources), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("package", ENGINE_PACKAGES)
def test_a_real_synth_applies_every_node_rewrite(tmp_path, package):
    """Under either engine every rewriter applies to the files it targets; cdktn's creation stacks
    are off by its own switch (CDKTN_DISABLE_CREATION_STACK), cdktf's by the rewriter."""
    require_pinned_runtime()
    report = tmp_path / "rewrites.txt"
    env = {**os.environ, "HYPERPOD_TEAMS_NODE_REWRITES_REPORT": str(report), "NODE_OPTIONS": ""}
    spec = EXAMPLE_SPECS[[p.parent.name for p in EXAMPLE_SPECS].index("quickstart")]
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "hyperpod_teams",
            "synth",
            str(spec),
            "--out",
            str(tmp_path / "out"),
            "--engine",
            package,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    rewrites = [line.split("\t") for line in report.read_text().splitlines()]
    lazy = {_found(rf"@{package}[\\/](provider-[a-z-]+)", f) for r, f in rewrites if r == "lazy-provider-exports"}
    assert lazy == {"provider-aws", "provider-azuread", "provider-helm", "provider-kubernetes"}
    expected_stack_traces = ["stack-trace.js"] if package == "cdktf" else []
    assert [Path(f).name for r, f in rewrites if r == "no-creation-stacks"] == expected_stack_traces
    assert sorted(Path(f).name for r, f in rewrites if r == "kernel-in-process") == ["jsii-runtime.js", "program.js"]
    assert [Path(f).name for r, f in rewrites if r == "kernel-assert-messages"] == ["program.js"]
    assert [Path(f).name for r, f in rewrites if r == "kernel-type-caches"] == ["program.js"]
    assert [Path(f).name for r, f in rewrites if r == "kernel-lean-extraction"] == ["program.js"]
    assert [Path(f).name for r, f in rewrites if r == "cdktf-resolve"] == ["resolve.js"]
    assert [Path(f).name for r, f in rewrites if r == "cdktf-stack-backend"] == ["terraform-stack.js"]
    assert [Path(f).name for r, f in rewrites if r == "cdktf-stack-document"] == ["terraform-stack.js"]
    assert [Path(f).name for r, f in rewrites if r == "cdktf-snake-case"] == ["util.js"]
    prepared = sorted(Path(f).name for r, f in rewrites if r == "cdktf-prepared-blocks")
    assert prepared == ["aspect.js", "program.js", "resolvable.js", "terraform-stack.js"]


def test_the_lazy_index_requires_a_submodule_only_when_it_is_used(tmp_path):
    package = tmp_path / "node_modules" / "@cdktf" / "provider-fake" / "lib"
    for name in ("alpha", "beta"):
        (package / name).mkdir(parents=True)
        (package / name / "index.js").write_text(
            f'globalThis.loaded = [...(globalThis.loaded || []), "{name}"]; exports.kind = "{name}";\n'
        )
    (package / "index.js").write_text(
        '"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\n'
        "exports.beta = exports.alpha = void 0;\n"
        'exports.alpha = require("./alpha");\nexports.beta = require("./beta");\n'
    )
    script = (
        f"require({json.dumps(str(speedups.NODE_PRELOAD_SCRIPT))});"
        f"const index = require({json.dumps(str(package / 'index.js'))});"
        "const before = [...(globalThis.loaded || [])];"
        "const kind = index.beta.kind;"
        "console.log(JSON.stringify({before, kind, after: globalThis.loaded, keys: Object.keys(index)}));"
    )
    result = node(script)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"before": [], "kind": "beta", "after": ["beta"], "keys": ["alpha", "beta"]}


@pytest.mark.parametrize("package", ["cdktn_provider_helm", "cdktf_cdktf_provider_helm"])
def test_the_published_provider_index_of_either_engine_becomes_lazy(tmp_path, package):
    """The index as each engine's bindings package ships it (cdktn's compiled by TypeScript 5.9,
    with its __importStar helpers; cdktf's with plain requires): every export becomes a getter,
    and an index whose helpers differ by one character is left as it is."""
    import importlib.util
    import tarfile

    found = importlib.util.find_spec(package)
    assert found and found.origin
    (tarball,) = (Path(found.origin).parent / "_jsii").glob("*.jsii.tgz")
    with tarfile.open(tarball) as archive:
        archive.extractall(tmp_path, filter="data")
    published = (tmp_path / "package" / "lib" / "index.js").read_text()
    script = (
        f"const {{ lazyIndex }} = require({json.dumps(str(NODE_DIR / 'lazy_provider_exports.js'))});"
        "const source = require('fs').readFileSync(0, 'utf8');"
        "const rewritten = lazyIndex(source);"
        "const exported = {}; new Function('exports', 'require', rewritten)(exported, () => ({ __esModule: true }));"
        "const lazy = Object.keys(exported).filter((k) => Object.getOwnPropertyDescriptor(exported, k).get);"
        "console.log(JSON.stringify({ keys: Object.keys(exported).sort(), lazy: lazy.sort(),"
        " edited: lazyIndex(source.replace('__setModuleDefault(result, mod)', '__setModuleDefault(mod, result)')) }));"
    )
    result = node(script, input_text=published)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["keys"] == ["dataHelmTemplate", "provider", "release"]
    assert report["lazy"] == report["keys"]
    if package.startswith("cdktn"):
        assert report["edited"] is None


def test_an_index_of_another_shape_is_left_as_it_is():
    script = (
        f"const {{ lazyIndex }} = require({json.dumps(str(NODE_DIR / 'lazy_provider_exports.js'))});"
        "const plain = 'exports.a = require(\"./a\");';"
        "console.log(JSON.stringify([lazyIndex(plain) !== null, lazyIndex(plain + '\\nsideEffect();'), lazyIndex('exports.x = 1;')]));"  # noqa: E501 - a node one-liner
    )
    result = node(script)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [True, None, None]


CDKTF_STACK_TRACE = program("cdktf_stack_trace.js")


def test_cdktf_tokens_record_no_stack_trace_and_another_module_is_left_as_it_is(tmp_path):
    module = tmp_path / "node_modules" / "cdktf" / "lib" / "tokens" / "private" / "stack-trace.js"
    module.parent.mkdir(parents=True)
    module.write_text(CDKTF_STACK_TRACE)
    elsewhere = tmp_path / "node_modules" / "other" / "lib" / "tokens" / "private" / "stack-trace.js"
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_text(CDKTF_STACK_TRACE)
    script = (
        f"require({json.dumps(str(speedups.NODE_PRELOAD_SCRIPT))});"
        f"const cdktf = require({json.dumps(str(module))}).captureStackTrace();"
        f"const other = require({json.dumps(str(elsewhere))}).captureStackTrace();"
        "console.log(JSON.stringify([cdktf.length, other.length > 0]));"
    )
    result = node(script)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [0, True]


# For the scripts below: a second copy of a cdktf module, compiled from its rewritten source beside
# the published one (it requires the same cdktf modules), or {"applied": false} printed and exit
# when the rewriter leaves the file as it is.
REWRITTEN_TWIN = program("rewritten_twin.js")

# Resolves each value with cdktf's resolve() as published and as rewritten, side by side in one
# node process (sharing cdktf's token map), and reports every value whose answer (the JSON of
# the result, or the error message) differs.
RESOLVE_BOTH_WAYS = program("rewritten_twin.js") + program("resolve_both_ways.js")


def _packaged_engine_lib(tmp_path: Path, package: str) -> Path:
    """The engine's JavaScript the jsii kernel runs: the tarball in its Python package (cdktn or
    cdktf, found without importing it)."""
    import importlib.util
    import tarfile

    found = importlib.util.find_spec(package)
    assert found and found.origin, f"{package} is not installed (the dev extra has both engines)"
    (tarball,) = (Path(found.origin).parent / "_jsii").glob(f"{package}@*.jsii.tgz")
    with tarfile.open(tarball) as archive:
        archive.extractall(tmp_path, filter="data")
    return tmp_path / "package" / "lib"


@pytest.mark.parametrize("package", ENGINE_PACKAGES)
def test_cdktf_resolve_rewritten_gives_every_answer_the_published_one_gives(tmp_path, package):
    require_pinned_runtime()
    report = both_ways(tmp_path, package, RESOLVE_BOTH_WAYS, "cdktf_resolve.js", "resolve.js")
    assert report["differences"] == []
    assert report["compared"] > 100
    # The comparison covers the errors too: the depth limit, the placeholders, a function.
    assert {"listTokenAsScalar", "stringMapPlaceholder", "anyMapPlaceholder", "fn", "map 201 leaf"} <= set(
        report["errors"]
    )
    assert "map 200 leaf" not in report["errors"]


@pytest.mark.parametrize("package", ENGINE_PACKAGES)
def test_cdktf_resolve_of_another_shape_is_left_as_it_is(tmp_path, package):
    published = (_packaged_engine_lib(tmp_path, package) / "tokens" / "private" / "resolve.js").read_text()
    edits = [
        published.replace("...options,", "...options, extra: 1,"),  # options with another field
        published.replace('const pathName = "/" + prefix.join("/");', 'let pathName = "/" + prefix.join("/");'),
        published.replace("if (prefix.length > 200) {", "if (prefix.length > 100) {"),
        published + "\nfunction resolvesToItself() {}\n",
    ]
    assert rewriter_applies("cdktf_resolve.js", "cheaperResolve", [published, *edits]) == [
        True,
        False,
        False,
        False,
        False,
    ]


# Asks cdktf's TerraformStack as published and as rewritten which backend each stack has, on
# trees of two identical apps (the lookup may add a LocalBackend), and prints the answers' paths.
STACK_BACKEND_BOTH_WAYS = program("rewritten_twin.js") + program("stack_backend_both_ways.js")


def _packaged_constructs(tmp_path: Path) -> None:
    """The constructs package cdktf's JavaScript requires, where node looks for it."""
    import tarfile

    import constructs

    (tarball,) = (Path(constructs.__file__).parent / "_jsii").glob("constructs@*.jsii.tgz")
    with tarfile.open(tarball) as archive:
        archive.extractall(tmp_path / "extracted", filter="data")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "extracted" / "package").rename(tmp_path / "node_modules" / "constructs")


def both_ways(tmp_path: Path, package: str, script: str, rewriter: str, module: str) -> dict:
    """The report of a *_BOTH_WAYS script run on the packaged engine with `rewriter`, which must apply."""
    lib = _packaged_engine_lib(tmp_path, package)
    _packaged_constructs(tmp_path)
    result = node(script, str(lib), str(NODE_DIR / rewriter), env={**os.environ, "NODE_OPTIONS": ""})
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["applied"], f"the packaged {package}'s {module} is no longer of the shape {rewriter} expects"
    return report


@pytest.mark.parametrize("package", ENGINE_PACKAGES)
def test_a_stacks_backend_found_early_is_the_one_cdktf_finds(tmp_path, package):
    require_pinned_runtime()
    report = both_ways(tmp_path, package, STACK_BACKEND_BOTH_WAYS, "cdktf_stack_backend.js", "terraform-stack.js")
    answers = report["answers"]
    assert {name: a["rewritten"] for name, a in answers.items()} == {
        name: a["published"] for name, a in answers.items()
    }
    # The cases tell apart a lookup in another order or one that skips substacks:
    assert answers["two backends, the nested one first"]["published"] == "LocalBackend s/a/backend of 2"
    assert answers["numeric ids come first"]["published"] == "LocalBackend s/10/backend of 2"
    assert answers["only a substack has one"]["published"] == "LocalBackend s/sub/backend of 2"
    assert answers["none (a LocalBackend is added)"]["published"] == "LocalBackend s/backend of 2"


@pytest.mark.parametrize("package", ENGINE_PACKAGES)
def test_a_stack_module_of_another_shape_is_left_as_it_is(tmp_path, package):
    published = (_packaged_engine_lib(tmp_path, package) / "terraform-stack.js").read_text()
    edits = [
        published.replace("const visit = async (node) => {", "const visit = (node) => {"),
        published.replace("return backends[0] ||", "return backends[backends.length - 1] ||"),
        published + "\nexports.TerraformStack = TerraformStack;\n",  # exported twice
    ]
    assert rewriter_applies("cdktf_stack_backend.js", "withFirstBackendLookup", [published, *edits]) == [
        True,
        False,
        False,
        False,
    ]


# Builds apps of cdktf's own elements and asks cdktf's TerraformStack.toTerraform() as published
# and as rewritten for each stack's document (after the preparing pass of a synth), and prints
# both as JSON that shows undefined values.
STACK_DOCUMENT_BOTH_WAYS = program("rewritten_twin.js") + program("stack_document_both_ways.js")


@pytest.mark.parametrize("package", ENGINE_PACKAGES)
def test_a_stack_document_resolved_once_is_the_one_cdktf_gives(tmp_path, package):
    require_pinned_runtime()
    report = both_ways(tmp_path, package, STACK_DOCUMENT_BOTH_WAYS, "cdktf_stack_document.js", "terraform-stack.js")
    answers = report["answers"]
    assert {name: a["rewritten"] for name, a in answers.items()} == {
        name: a["published"] for name, a in answers.items()
    }
    # The cases hold what a document left unresolved would show: a token, an undefined value.
    documents = {name: json.loads(a["published"]) for name, a in answers.items()}
    assert documents["a token in the metadata: s"]["//"]["metadata"]["version"] == "9.9.9"
    assert "cloud" not in documents["tokens, outputs and a variable: s"]["//"]["metadata"]
    assert documents["a cloud backend sets the metadata's cloud: s"]["//"]["metadata"]["cloud"] == "tfc"
    assert documents["stack overrides, one a token: s"]["locals"]["from_token"] == "${null_resource.a.id}"
    assert (
        "cross-stack-reference-input-origin"
        in documents["a cross-stack reference: user"]["data"]["terraform_remote_state"]
    )


@pytest.mark.parametrize("package", ENGINE_PACKAGES)
def test_a_stack_module_without_the_expected_second_pass_is_left_as_it_is(tmp_path, package):
    published = (_packaged_engine_lib(tmp_path, package) / "terraform-stack.js").read_text()
    edits = [
        published.replace(
            "        return (0, _tokens_1.resolve)(this, tf);\n    }\n    registerOutgoing",
            "        return tf;\n    }\n    registerOutgoing",
        ),
        published.replace('tf["//"] = { metadata, outputs };', 'tf["//"] = { metadata, outputs, extra: 1 };'),
        published.replace(
            "    toTerraform() {\n        const tf = {};", "    toTerraform() {\n        const tf = { pre: 1 };"
        ),
    ]
    assert rewriter_applies("cdktf_stack_document.js", "resolvedOnce", [published, *edits]) == [
        True,
        False,
        False,
        False,
    ]


# cdktf's snakeCase as published and as rewritten, each asked twice for every argument.
SNAKE_CASE_BOTH_WAYS = program("rewritten_twin.js") + program("snake_case_both_ways.js")


@pytest.mark.parametrize("package", ENGINE_PACKAGES)
def test_snake_case_remembered_gives_the_answers_cdktf_gives(tmp_path, package):
    require_pinned_runtime()
    report = both_ways(tmp_path, package, SNAKE_CASE_BOTH_WAYS, "cdktf_snake_case.js", "util.js")
    assert [a["rewritten"] for a in report["answers"]] == [a["published"] for a in report["answers"]]
    assert {a["arg"]: a["published"] for a in report["answers"]}["camelCase"] == "camel_case"
    assert (
        report["keys"]["rewritten"]
        == report["keys"]["published"]
        == {"some_key": {"inner_key": [{"deep_key": 1}]}, "tags": {"KeepMe": "x"}}
    )


@pytest.mark.parametrize("package", ENGINE_PACKAGES)
def test_a_util_module_of_another_shape_is_left_as_it_is(tmp_path, package):
    published = (_packaged_engine_lib(tmp_path, package) / "util.js").read_text()
    edits = [
        published.replace('.replace(/[^A-Za-z0-9]+|_+/g, "_")', '.replace(/[^A-Za-z0-9]+/g, "_")'),
        published + "\nconst snakeCaseOfString = 1;\n",
    ]
    assert rewriter_applies("cdktf_snake_case.js", "rememberedSnakeCase", [published, *edits]) == [True, False, False]


# Synthesizes apps with the packaged cdktf, its files rewritten by cdktf_prepared_blocks.js as
# node compiles them ("rewritten") or as published, into one folder per app; reports which files
# were rewritten and how many blocks each app's documents reused.
PREPARED_BLOCKS_APPS = program("prepared_blocks_apps.js")


@pytest.mark.parametrize("package", ENGINE_PACKAGES)
def test_a_document_reusing_prepared_blocks_is_the_one_cdktf_writes(tmp_path, package):
    require_pinned_runtime()
    lib = _packaged_engine_lib(tmp_path, package)
    _packaged_constructs(tmp_path)
    reports = {}
    for mode in ("published", "rewritten"):
        result = node(
            PREPARED_BLOCKS_APPS,
            str(lib),
            str(NODE_DIR / "cdktf_prepared_blocks.js"),
            mode,
            str(tmp_path / mode),
            env={**os.environ, "NODE_OPTIONS": ""},
        )
        assert result.returncode == 0, result.stderr
        reports[mode] = json.loads(result.stdout)
    assert sorted(reports["rewritten"]["rewritten"]) == ["aspect.js", "terraform-stack.js", "tokens/resolvable.js"]
    published, rewritten = tree(tmp_path / "published"), tree(tmp_path / "rewritten")
    assert rewritten == published
    user = {name: json.loads(published[f"{name}/stacks/user/cdk.tf.json"]) for name in reports["published"]["reused"]}
    # The cases hold what a reused block would get wrong: the Lazy's second answer, the aspect's
    # change, the change made after the stack was prepared.
    assert (
        user["a Lazy that answers differently each time"]["resource"]["null_resource"]["counted"]["triggers"]["answer"]
        == "answer 2"
    )
    assert user["an aspect that changes a resource"]["resource"]["null_resource"]["b"]["triggers"]["by_aspect"] == "yes"
    later = json.loads(published["prepared by one call, written by another/user.json"])
    assert later["resource"]["null_resource"]["b"]["triggers"]["later"] == "yes"
    reused = reports["rewritten"]["reused"]
    assert reused["cross-stack references, functions and overrides"] >= 4  # both resources, provider-less
    assert (
        reused["a Lazy that answers differently each time"] == reused["cross-stack references, functions and overrides"]
    )
    assert reused["an aspect that changes a resource"] == 0


@pytest.mark.parametrize("package", ENGINE_PACKAGES)
def test_files_of_another_shape_keep_their_blocks_as_cdktf_does(tmp_path, package):
    import jsii

    lib = _packaged_engine_lib(tmp_path, package)
    stack, aspect, resolvable = (
        (lib / name).read_text() for name in ("terraform-stack.js", "aspect.js", "tokens/resolvable.js")
    )
    kernel = (Path(jsii.__file__).parent / "_embedded" / "jsii" / "lib__program.js").read_text()
    module = "cdktf_prepared_blocks.js"
    assert rewriter_applies(
        module,
        "stackReusingBlocks",
        [
            stack,
            stack.replace("e.toTerraform(), true));", "e.toTerraform(), true, 1));"),
            stack + stack,
        ],
    ) == [True, False, False]
    assert rewriter_applies(
        module,
        "aspectsNotingAdditions",
        [
            aspect,
            aspect.replace("this._aspects.push(aspect);", "this._aspects.unshift(aspect);"),
        ],
    ) == [True, False]
    assert rewriter_applies(
        module,
        "resolverCountingForeignTokens",
        [
            resolvable,
            resolvable.replace("let resolved = t.resolve(context);", "let resolved = t.resolve(context, 1);"),
        ],
    ) == [True, False]
    assert rewriter_applies(module, "kernelNotingRequestsAndOverrides", [kernel, kernel + kernel]) == [True, False]


# First a stack prepared by one call and written by another, a resource changed in between;
# then a resource whose attributes Python works out, differently at each call (jsii calls Python
# back for it, which turns the reuse of prepared blocks off for the process).
PYTHON_OVERRIDE_SYNTH = program("python_override_synth.py")


def test_blocks_python_changes_or_works_out_are_resolved_again_for_the_document(tmp_path):
    require_pinned_runtime()
    result = subprocess.run(
        [sys.executable, "-c", PYTHON_OVERRIDE_SYNTH, str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    calls = int(_found(r"CALLS (\d+)", result.stdout))
    document = json.loads((tmp_path / "stacks" / "s" / "cdk.tf.json").read_text())
    assert calls == 2  # the preparing pass, then the document
    assert document["resource"]["null_resource"]["r"]["call"] == calls
    later = json.loads(_found(r"LATER (.*)", result.stdout))
    assert later["null_resource"]["r"]["triggers"] == {"later": "yes"}


# The shape of the jsii kernel's type assertion, with an inspect that counts its calls.
KERNEL_ASSERTION = (
    'const B={default:require("assert")},K={inspect:(x)=>(globalThis.inspected=(globalThis.inspected||0)+1,require("util").inspect(x))};'  # noqa: E501 - published kernel code, as minified
    'function typeOf(e,p){if((0,B.default)(null!=e,`Kernel error: expected type information, got ${(0,K.inspect)(e)}`),"void"===e)return"void";return p}'  # noqa: E501 - published kernel code, as minified
    "module.exports=typeOf;"
)


def test_the_kernel_formats_its_type_assertion_message_only_when_it_fails(tmp_path):
    require_pinned_runtime()
    script = r"""
const Module = require("module");
const { withLazyAssertMessage } = require(process.argv[1]);
const source = process.argv[2];
const load = (text) => { const m = new Module("kernel"); m._compile(text, "kernel.js"); return m.exports; };
const run = (typeOf) => {
  globalThis.inspected = 0;
  const answers = [typeOf("void", 1), typeOf({ type: "x" }, 2)];
  const inspected = globalThis.inspected;
  let error = null;
  try { typeOf(null, 3); } catch (e) { error = `${e.name}: ${e.message}`; }
  return { answers, inspected, error };
};
console.log(JSON.stringify({
  published: run(load(source)),
  rewritten: run(load(withLazyAssertMessage(source))),
  twice: withLazyAssertMessage(source + source),
  none: withLazyAssertMessage(source.replace("Kernel error", "Error")),
}));
"""
    result = node(script, str(NODE_DIR / "kernel_assert_messages.js"), KERNEL_ASSERTION)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["published"]["inspected"] == 2  # the message was built for each passing call
    assert report["rewritten"]["inspected"] == 0
    assert report["rewritten"]["answers"] == report["published"]["answers"] == ["void", 2]
    assert report["rewritten"]["error"] == report["published"]["error"]
    assert report["published"]["error"] == "AssertionError: Kernel error: expected type information, got null"
    assert report["twice"] is None and report["none"] is None


# The kernel's own removeRedundant and propertiesOf, cut out of the installed jsii's kernel and run
# published and rewritten, over a small type system, with stand-ins for the minifier's helpers
# they use; every lookup of a type is counted.
TYPE_CACHES_BOTH_WAYS = program("type_caches_both_ways.js")


def test_the_kernel_remembers_type_answers_and_gives_the_published_ones(tmp_path):
    require_pinned_runtime()
    import jsii

    kernel = Path(jsii.__file__).parent / "_embedded" / "jsii" / "lib__program.js"
    result = node(
        TYPE_CACHES_BOTH_WAYS,
        str(NODE_DIR / "kernel_type_caches.js"),
        str(kernel),
        env={**os.environ, "NODE_OPTIONS": ""},
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["real"], "the installed jsii kernel is no longer of the shape kernel_type_caches.js expects"
    assert report["twice"] is None and report["otherPropertiesOf"] is None and report["otherRemoveRedundant"] is None
    published, rewritten = report["published"], report["rewritten"]
    assert rewritten["answers"] == published["answers"]
    answers = published["answers"]
    assert answers["all redundant"]["first"] == "undefined" and answers["one extra"]["first"] == ["I.Extra"]
    assert answers["same list, a subclass"]["second"] == ["I.Extra"]
    assert answers["same list, its base"]["second"] == ["I.Dependable", "I.Extra"]
    assert answers["unknown interface"]["second"] == "error: Type I.Missing not found"
    assert answers["cyclic struct"]["second"].startswith("error: Cyclic type hierarchy detected")
    assert answers["struct with a base"]["first"] == {
        "count": {"name": "count", "optional": True},
        "dependsOn": {"name": "dependsOn", "optional": True},
        "name": {"name": "name"},
    }
    # Asked again, the rewritten kernel looks up no type, except where the first asking failed
    # (nothing is remembered then);
    # each object still gets an interface list of its own.
    assert published["repeatLookups"]["all redundant"] > 0
    assert {k for k, v in rewritten["repeatLookups"].items() if v} == {"unknown interface", "cyclic struct"}
    assert not any(a["sameArray"] for a in rewritten["answers"].values())


# A stand-in for jsii's runtime: the launcher would start the kernel as a child with its API on
# fd 3; the kernel answers each line it reads with the line upper-cased, and prints a log line.
FAKE_LAUNCHER = """
const kernel = require("path").join(__dirname, "..", "lib", "program.js");
const child = require("child_process").spawn(process.execPath, [kernel], { stdio: ["ignore", "pipe", "pipe", "pipe"] });
process.stdin.pipe(child.stdio[3]); child.stdio[3].pipe(process.stdout);
child.stdout.on("data", (d) => console.error(JSON.stringify({ stdout: d.toString("base64") })));
"""
FAKE_KERNEL = """
const fs = require("fs");
const io = { readFD:3,writeFD:3 };
console.log(`${require("path").basename(process.argv[1])} ${process.execArgv.includes("--preserve-symlinks")}`);
const buffer = Buffer.alloc(100);
const read = fs.readSync(io.readFD, buffer, 0, 100, null);
fs.writeSync(io.writeFD, buffer.subarray(0, read).toString().toUpperCase());
"""


@pytest.mark.parametrize("in_process", [True, False], ids=["kernel of the expected shape", "another shape"])
def test_the_jsii_kernel_runs_in_the_launchers_process_only_when_it_has_the_expected_shape(tmp_path, in_process):
    (tmp_path / "bin").mkdir()
    (tmp_path / "lib").mkdir()
    (tmp_path / "bin" / "jsii-runtime.js").write_text(FAKE_LAUNCHER)
    kernel = FAKE_KERNEL if in_process else FAKE_KERNEL.replace("readFD:3,writeFD:3", "readFD: 3, writeFD: 3")
    (tmp_path / "lib" / "program.js").write_text(kernel)
    env = {**os.environ, "NODE_OPTIONS": f"--require={speedups.NODE_PRELOAD_SCRIPT}", "NODE_PRESERVE_SYMLINKS": "1"}
    launcher = subprocess.run(
        [NODE, str(tmp_path / "bin" / "jsii-runtime.js")],
        input="hello kernel\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert launcher.returncode == 0, launcher.stderr
    assert launcher.stdout == "HELLO KERNEL\n"  # the channel carries only the protocol
    (log,) = [json.loads(line) for line in launcher.stderr.splitlines() if line.startswith("{")]
    main_module, preserve_symlinks = base64.b64decode(log["stdout"]).decode().split()
    if in_process:  # the launcher's own process, with the flag the launcher gives its child
        assert (main_module, preserve_symlinks) == ("jsii-runtime.js", "true")
    else:
        assert (main_module, preserve_symlinks) == ("program.js", "false")


def test_tuning_the_node_process_adds_the_preload_once_and_respects_the_override():
    environ = {"NODE_OPTIONS": "--max-old-space-size=4096"}
    speedups.tune_node_process(environ)
    speedups.tune_node_process(environ)
    assert environ["NODE_OPTIONS"].count(speedups.NODE_PRELOAD_SCRIPT.name) == 1
    assert environ["NODE_OPTIONS"].startswith("--max-old-space-size=4096 --require")
    assert environ["NODE_PRESERVE_SYMLINKS"] == "1"
    ordinary = {python_bindings.FULL_IMPORT_ENV: "1"}
    speedups.tune_node_process(ordinary)
    assert "NODE_OPTIONS" not in ordinary


def test_editors_see_every_bindings_module_the_registry_names():
    """bindings.py's TYPE_CHECKING imports (what editors and mypy follow) and MODULES agree."""
    import ast

    tree = ast.parse(Path(bindings.__file__).read_text())
    (block,) = [n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", None) == "TYPE_CHECKING"]
    imports = [node for node in block.body if isinstance(node, ast.ImportFrom)]
    assert len(imports) == len(block.body)
    seen = {alias.asname: f"{node.module}.{alias.name}" for node in imports for alias in node.names}
    assert seen == {name: f"{engine.DEFAULT.provider_prefix}{module}" for name, module in bindings.MODULES.items()}


def test_a_wrong_foretelling_falls_back_to_the_ordinary_path_and_finishes_the_synth(tmp_path):
    """jsii_requests foretells the kernel's object numbers; if a jsii ever numbered otherwise, the
    synth command synthesizes again with jsii as published, and the output is the same."""
    env = {k: v for k, v in os.environ.items() if k not in (python_bindings.TYPE_CHECKS_ENV, "NODE_OPTIONS")}
    spec = str(EXAMPLE_SPECS[0])
    result = subprocess.run(
        [sys.executable, str(PROGRAMS / "mismatch_synth.py"), "synth", spec, "--out", str(tmp_path / "fallback")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "synthesizing again with jsii as published" in result.stderr
    assert "the jsii kernel answered" in result.stderr
    normal = subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "synth", spec, "--out", str(tmp_path / "normal")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert normal.returncode == 0, normal.stderr
    assert tree(tmp_path / "fallback") == tree(tmp_path / "normal")


def test_a_rewriter_that_meets_another_shape_says_so_under_debug(tmp_path):
    """A cdktf file of an unexpected shape runs as published; with HYPERPOD_TEAMS_DEBUG the
    rewriter says in one line that it declined."""
    util = tmp_path / "node_modules" / "cdktf" / "lib" / "util.js"
    util.parent.mkdir(parents=True)
    util.write_text("exports.snakeCase = (s) => s; // not the published shape\n")
    script = f"require({json.dumps(str(util))}); console.log('loaded');"
    preload = str(speedups.NODE_PRELOAD_SCRIPT)
    env = {**os.environ, "NODE_OPTIONS": ""}
    quiet = subprocess.run(["node", "--require", preload, "-e", script], env=env, capture_output=True, text=True)
    loud = subprocess.run(
        ["node", "--require", preload, "-e", script],
        env={**env, "HYPERPOD_TEAMS_DEBUG": "1"},
        capture_output=True,
        text=True,
    )
    assert quiet.stdout == loud.stdout == "loaded\n"
    assert "declined" not in quiet.stderr
    (line,) = [line for line in loud.stderr.splitlines() if "declined" in line]
    assert line.startswith("hyperpod-teams: node rewriter cdktf-snake-case declined ") and str(util) in line


def test_importing_the_library_changes_nothing_until_the_process_opts_in():
    """hyperpod_teams.app, the stacks and constructs leave the environment and jsii as they are;
    speedups.enable() is the one switch (the synth command and the cdktf app call it)."""
    probe = (
        "import os, sys\n"
        "import hyperpod_teams.app, hyperpod_teams.stacks, hyperpod_teams.constructs.team\n"
        "from hyperpod_teams.speedups import jsii_requests, python_bindings\n"
        "print(os.environ.get('NODE_OPTIONS', ''), os.environ.get('NODE_PRESERVE_SYMLINKS', ''),"
        " bool(jsii_requests._originals), python_bindings.argument_type_checks_skipped(), sep='|')\n"
        "from hyperpod_teams import speedups\n"
        "speedups.enable()\n"
        "print('preload.js' in os.environ['NODE_OPTIONS'], bool(jsii_requests._originals),"
        " python_bindings.argument_type_checks_skipped(), sep='|')\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("NODE_OPTIONS", "NODE_PRESERVE_SYMLINKS")}
    env.pop(python_bindings.TYPE_CHECKS_ENV, None)
    result = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    before, after = result.stdout.splitlines()
    assert before == "||False|False"
    assert after == "True|True|True"


def test_each_plugin_registers_its_own_bindings_modules():
    from hyperpod_teams.plugins import load_identity_provider

    assert not [name for name in bindings.MODULES if name.startswith(("azuread_", "okta_"))]
    load_identity_provider("entra_id")
    load_identity_provider("okta")  # written without bindings (providers/okta/terraform.py)
    assert bindings.PLUGIN_MODULES["azuread_group"] == "azuread.group"
    assert not [name for name in bindings.PLUGIN_MODULES if name.startswith("okta_")]
    assert bindings.EXTRAS == {"azuread": "entra"}
    assert bindings.ENGINES == {}
    with pytest.raises(ValueError, match="registered already"):
        bindings.register({"azuread_group": "azuread.application"})
    # A module named with an engine's package (as plugins of contract 2 wrote) is the same module.
    bindings.register({"azuread_group": "cdktf_cdktf_provider_azuread.group"})
    bindings.register({"azuread_group": "cdktn_provider_azuread.group"})
    assert bindings.module_name("azuread_group") == f"{engine.current().provider_package('azuread')}.group"


QUICKSTART_SPEC = EXAMPLE_SPECS[[p.parent.name for p in EXAMPLE_SPECS].index("quickstart")]


def cold_synth(tmp_path_factory) -> Path:
    """The `synth` command on the quickstart in a fresh jsii package cache, as on a fresh machine:
    made once per run (once_per_run) for the two tests below; `<folder>/jsii-cache` the cache it
    filled, `<folder>/out` what it wrote."""

    def make(folder: Path) -> str:
        cache = folder / "jsii-cache"
        cache.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in ("NODE_OPTIONS", python_bindings.TYPE_CHECKS_ENV)}
        result = subprocess.run(
            [sys.executable, "-m", "hyperpod_teams", "synth", str(QUICKSTART_SPEC), "--out", str(folder / "out")],
            env={**env, "JSII_RUNTIME_PACKAGE_CACHE_ROOT": str(cache)},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        return str(folder)

    return Path(once_per_run(tmp_path_factory, "cold-synth-quickstart", make))


def test_a_cold_package_cache_gets_no_declarations_and_the_output_is_the_same(tmp_path_factory):
    """On a fresh machine (empty jsii package cache) the kernel unpacks the bindings packages;
    without their TypeScript declarations, which nothing reads at run time. The same bytes out as
    the run's shared synth of the example, whose cache is warm."""
    require_pinned_runtime()
    cold = cold_synth(tmp_path_factory)
    unpacked = [p.name for p in (cold / "jsii-cache").rglob("*") if p.is_file()]
    assert sum(name.endswith(".js") for name in unpacked) > 2000  # the AWS provider's, unpacked
    assert not [name for name in unpacked if name.endswith(".d.ts")]
    synthesized_once(tmp_path_factory, QUICKSTART_SPEC)
    written = tree(cold / "out")
    assert written.pop(OUTPUT_MARKER).startswith(b"This folder was written by")
    assert written == tree(synthesized_dir(tmp_path_factory, QUICKSTART_SPEC))


def test_a_kernel_whose_unpacking_has_another_shape_is_left_as_it_is(tmp_path):
    script = (
        f"const {{ withoutDeclarations }} = require({json.dumps(str(NODE_DIR / 'kernel_lean_extraction.js'))});"
        "const one = 'function extractViaCache(e){const y=new K.UnpackSync(f);}';"
        "console.log(JSON.stringify([withoutDeclarations(one), withoutDeclarations(one + one),"
        " withoutDeclarations('const y=new K.Unpack(f);')]));"
    )
    result = subprocess.run(
        ["node", "-e", script], capture_output=True, text=True, env={**os.environ, "NODE_OPTIONS": ""}
    )
    rewritten, twice, other = json.loads(result.stdout)
    assert rewritten == (
        'function extractViaCache(e){const y=new K.UnpackSync({...f,filter:(path)=>!path.endsWith(".d.ts")});}'
    )
    assert twice is None and other is None


# --- jsii's runtime index, built by the CLI ------------------------------------------------------------


#: The CLI's step after a synth (cli/synth.py keep_the_runtime_index), its phases printed.
KEEP_THE_INDEX = """
import contextlib
from hyperpod_teams.cli.synth import keep_the_runtime_index

@contextlib.contextmanager
def phase(what):
    print(what)
    yield

keep_the_runtime_index(phase)
"""


def test_a_cli_synth_leaves_the_runtime_index_jsii_would_not_finish(tmp_path, tmp_path_factory):
    """A synth in a fresh package cache: jsii loads the AWS bindings' 155 MB assembly whole and
    starts a worker to index it, which the process's end kills. The CLI builds what is missing,
    so the next synth finds the index. Whether jsii's own worker finishes first depends on the
    machine's load (on a quiet one it may), so the CLI's step is also run alone, with the AWS
    package's index removed and no worker of jsii's running: it must build it and say so."""
    from hyperpod_teams.speedups import runtime_index

    shared = cold_synth(tmp_path_factory) / "jsii-cache"
    (aws,) = shared.glob("@cdktn/provider-aws/*/*")
    assert runtime_index.packages_without_index(shared) == []  # the next synth finds it
    assert json.loads((aws / runtime_index.INDEX_MANIFEST).read_text())["version"] == 1

    # The rest on a copy: the shared cache is the other test's too.
    cache = tmp_path / "jsii-cache"
    shutil.copytree(shared, cache, symlinks=True)
    env = {**os.environ, "JSII_RUNTIME_PACKAGE_CACHE_ROOT": str(cache)}
    (aws,) = cache.glob("@cdktn/provider-aws/*/*")
    for index_file in aws.glob(".jsii.runtime*"):  # a worker killed early, as on a loaded machine
        index_file.unlink()
    assert runtime_index.packages_without_index(cache) == [aws]
    # In a process of its own: the step ends jsii's node first, which this test process may be using.
    step = subprocess.run([sys.executable, "-c", KEEP_THE_INDEX], env=env, capture_output=True, text=True, timeout=300)
    assert step.returncode == 0, step.stderr
    assert "Indexing the provider bindings" in step.stdout, step.stdout + step.stderr
    assert runtime_index.packages_without_index(cache) == []
    assert json.loads((aws / runtime_index.INDEX_MANIFEST).read_text())["version"] == 1
