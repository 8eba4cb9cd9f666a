"""The same stacks from both engines (hyperpod_teams.engine; docs/engines.md): every example
synthesized with CDK Terrain (cdktn, this process) and with CDKTF (the synth command with
`--engine cdktf`) differs only in what KNOWN_DIFFERENCES lists; library use follows the engine
of the user's app; the okta plugin builds under both (its resources written without a binding)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hyperpod_teams import engine
from tests.conftest import EXAMPLE_SPECS, ROOT, synth_command

#: What differs between the engines' documents of the same spec, and nothing else:
#: - the engine's version in each stack's "//" metadata and in manifest.json;
#: - each provider's `version` (its pinned binding's: AWS 6.25.0 -> 6.69.1, Kubernetes 2.38.0 ->
#:   3.4.0, Helm 3.1.1 -> 3.3.0, azuread 3.7.0 -> 3.10.0) and `source` ("aws" -> "hashicorp/aws",
#:   the same registry address written out);
#: - Kubernetes 3.x: `metadata` of kubernetes_namespace_v1 and kubernetes_role_v1 is a one-element
#:   list (hyperpod_teams.bindings.LIST_BLOCKS), where 2.x took one object.
KNOWN_DIFFERENCES = ("metadata version", "required_providers version and source", "Kubernetes 3.x metadata lists")
LIST_METADATA = ("kubernetes_namespace_v1", "kubernetes_role_v1")


def normalized(stack: dict, engine_name: str) -> dict:
    """`stack` with KNOWN_DIFFERENCES taken out (as CDKTF writes them)."""
    stack = copy.deepcopy(stack)
    stack.get("//", {}).get("metadata", {}).pop("version", None)
    for provider in stack.get("terraform", {}).get("required_providers", {}).values():
        provider.pop("version", None)
        provider["source"] = provider["source"].removeprefix("hashicorp/")
    if engine_name == "cdktn":
        for kind in LIST_METADATA:
            for resource in stack.get("resource", {}).get(kind, {}).values():
                (resource["metadata"],) = resource["metadata"]
    return stack


def provider_versions(stacks: dict[str, dict]) -> dict[str, str]:
    return {
        name: provider["version"]
        for stack in stacks.values()
        for name, provider in stack.get("terraform", {}).get("required_providers", {}).items()
    }


def test_this_suite_runs_on_cdk_terrain():
    """The full suite is the cdktn engine's (a plain install's); CDKTF is checked by the tests that
    name it (this module, the speed-ups' per-engine tests, the engines' CLIs)."""
    assert engine.current().name == "cdktn"


@pytest.mark.parametrize("spec", EXAMPLE_SPECS, ids=lambda p: p.parent.name)
def test_both_engines_synthesize_the_same_stacks_but_for_the_listed_differences(spec, example_stacks, tmp_path):
    cdktn_stacks = example_stacks[spec.parent.name]
    cdktf_stacks = synth_command(spec, tmp_path / "cdktf", "cdktf")
    assert set(cdktn_stacks) == set(cdktf_stacks)
    for name in cdktn_stacks:
        ours = {k: v for k, v in cdktn_stacks[name].items()}
        ours["//"] = {k: v for k, v in ours["//"].items() if k != "hyperpod_teams_test_assets"}
        assert normalized(ours, "cdktn") == normalized(cdktf_stacks[name], "cdktf"), name
    # The differences are real: each engine pins its own provider versions.
    versions = {"cdktn": provider_versions(cdktn_stacks), "cdktf": provider_versions(cdktf_stacks)}
    expected = {e: dict(engine.ENGINES[e].provider_versions) for e in versions}
    for engine_name, found in versions.items():
        assert found == {p: expected[engine_name][p] for p in found}, engine_name


def test_the_comparison_fails_on_a_difference_it_does_not_list(example_stacks):
    """The normalization takes out only what KNOWN_DIFFERENCES names: a changed tag still shows."""
    stack = copy.deepcopy(example_stacks["quickstart"]["acme-access"])
    changed = copy.deepcopy(stack)
    provider = changed["provider"]["aws"][0]
    provider["default_tags"][0]["tags"]["owner"] = "someone-else"
    assert normalized(stack, "cdktn") != normalized(changed, "cdktn")


LIBRARY_APP = ROOT / "examples" / "library" / "app.py"


def _run_library_example(source: str, out: Path, tmp_path: Path) -> dict:
    app = tmp_path / f"app-{out.name}.py"
    app.write_text(source)
    env = {k: v for k, v in os.environ.items() if k != engine.ENGINE_ENV}
    quickstart = ROOT / "examples" / "quickstart" / "teams.yaml"
    result = subprocess.run(
        [sys.executable, str(app), str(quickstart), "vision", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    return json.loads((out / "stacks" / "vision-team" / "cdk.tf.json").read_text())


def test_library_use_builds_with_the_engine_of_the_users_app(tmp_path):
    """examples/library/app.py as written (import cdktn) and as an app on CDKTF writes it (import
    cdktf): hyperpod-teams follows the engine the app imported; the team's stack is the same."""
    source = LIBRARY_APP.read_text()
    on_cdktf = source.replace("import cdktn", "import cdktf").replace("cdktn.", "cdktf.")
    assert on_cdktf != source
    by_cdktn = _run_library_example(source, tmp_path / "cdktn", tmp_path)
    by_cdktf = _run_library_example(on_cdktf, tmp_path / "cdktf", tmp_path)
    assert by_cdktn["//"]["metadata"]["version"] == "0.24.0"
    assert by_cdktf["//"]["metadata"]["version"] == "0.21.0"
    assert normalized(by_cdktn, "cdktn") == normalized(by_cdktf, "cdktf")


def test_an_app_of_the_other_engine_is_refused_with_the_fix():
    probe = (
        "import os\n"
        "os.environ['HYPERPOD_TEAMS_ENGINE'] = 'cdktn'\n"
        "import cdktf\n"
        "from hyperpod_teams.app import add_platform_stacks\n"
        "from hyperpod_teams.engine import EngineError\n"
        "from hyperpod_teams.spec import load_spec\n"
        f"spec = load_spec({str(ROOT / 'examples' / 'quickstart' / 'teams.yaml')!r})\n"
        "try:\n"
        "    add_platform_stacks(cdktf.App(), spec)\n"
        "except EngineError as error:\n"
        "    print('REFUSED', error)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "REFUSED the app is a cdktf.App" in result.stdout
    assert "hyperpod_teams.engine.use('cdktf')" in result.stdout


def test_okta_builds_under_cdk_terrain_with_the_okta_provider_it_pinned_under_cdktf(example_stacks):
    """Okta on the default engine (#49): the identity stack pins okta/okta 4.20.0, its provider
    block and resources as the CDKTF binding wrote them (the comparison above shows the whole stack
    equal but for the engine's version line)."""
    (identity,) = [stack for name, stack in example_stacks["okta"].items() if name.endswith("-identity")]
    assert identity["terraform"]["required_providers"]["okta"] == {"source": "okta/okta", "version": "4.20.0"}
    assert identity["provider"]["okta"] == [{"base_url": "okta.com", "org_name": "initech"}]
    assert set(identity["resource"]) == {"okta_app_saml", "okta_group", "okta_app_group_assignment"}
    assert "overrides" not in identity["//"]["metadata"]  # arguments as a binding writes them


def test_an_engine_that_is_not_installed_is_refused_before_any_work(tmp_path):
    """`--engine` for an engine the environment lacks: exit 2 with the pip command, in seconds."""
    probe = (
        "import importlib.util, sys\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a: None if name == 'cdktf' else real(name, *a)\n"
        "sys.argv = ['hyperpod-teams', 'synth', sys.argv[1], '--out', sys.argv[2], '--engine', 'cdktf']\n"
        "from hyperpod_teams.cli import main\n"
        "main()\n"
    )
    spec = ROOT / "examples" / "quickstart" / "teams.yaml"
    result = subprocess.run(
        [sys.executable, "-c", probe, str(spec), str(tmp_path / "out")], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2, result.stderr
    assert "pip install './hyperpod-teams[cdktf]'" in result.stderr
