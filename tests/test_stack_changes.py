"""`hyperpod-teams stacks`: which stacks a change touches, in deploy waves, for pipelines that
plan only those. Real synths on both sides; the old output is compared as a pipeline keeps it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from hyperpod_teams.spec import validate_spec
from hyperpod_teams.stack_changes import SynthOutputError, changed_stacks, read_output
from tests.conftest import QUICKSTART, synthesize_stacks


def quickstart() -> dict:
    return yaml.safe_load(QUICKSTART.read_text())


@pytest.fixture(scope="module")
def before(tmp_path_factory):
    out = tmp_path_factory.mktemp("before")
    synthesize_stacks(validate_spec(quickstart()), out)
    return read_output(out)[0]


def selection_after(before, data, tmp_path):
    synthesize_stacks(validate_spec(data), tmp_path)
    return changed_stacks(before, tmp_path)


def test_an_unchanged_spec_lists_no_stack(before, tmp_path):
    selection = selection_after(before, quickstart(), tmp_path)
    assert selection.stacks == [] and selection.removed == []
    assert selection.unchanged == len(before)


def test_a_one_team_change_lists_that_teams_stacks_only(before, tmp_path):
    data = quickstart()
    data["teams"][0].setdefault("studio", {})["idle_timeout_minutes"] = 120
    selection = selection_after(before, data, tmp_path)
    # The team's AWS stack changed; its Kubernetes stack deploys after it.
    assert selection.waves == [["acme-team-nlp"], ["acme-k8s-nlp"]]
    assert selection.changed == ["acme-team-nlp"]
    assert selection.unchanged == len(before) - 2


def test_a_cluster_change_brings_its_dependents_in_deploy_order(before, tmp_path):
    data = quickstart()
    data["cluster"]["task_governance"]["fair_share"] = "Disabled"
    selection = selection_after(before, data, tmp_path)
    assert selection.changed == ["acme-cluster"]
    assert selection.waves[0] == ["acme-cluster"]
    teams = [t["name"] for t in data["teams"]]
    assert sorted(selection.waves[1]) == sorted(f"acme-team-{t}" for t in teams)
    assert sorted(selection.waves[2]) == sorted(f"acme-k8s-{t}" for t in teams)


def test_a_removed_team_is_listed_as_removed_and_never_planned(before, tmp_path):
    data = quickstart()
    gone = data["teams"].pop()["name"]
    selection = selection_after(before, data, tmp_path)
    assert selection.removed == [f"acme-k8s-{gone}", f"acme-team-{gone}"]
    assert not any(gone in name for name in selection.stacks)


def test_a_cluster_added_and_then_removed_lists_its_stacks_and_warns_of_what_keeps_running(tmp_path):
    """Several clusters (#61): growing from one cluster to two (the first keeping its names) adds
    the second cluster's stacks and changes the first's only where the cluster tag joins; taking
    the second out again lists its stacks as removed, and warns of the HyperPod and EKS clusters
    they created, which nothing destroys."""
    from hyperpod_teams.spec import validate_platform
    from hyperpod_teams.stack_changes import render_text
    from tests.test_spec_clusters import two_clusters

    data = two_clusters()
    data["clusters"][0]["one_cluster_names"] = True
    synthesize_stacks(validate_platform(data), tmp_path / "two")
    two, _ = read_output(tmp_path / "two")
    # infer goes: research moves to train, nlp keeps its train placement.
    data["clusters"].pop()
    data["teams"][0]["placements"].pop("infer")
    data["teams"][2]["placements"] = {"train": {"quota": [{"instance_type": "ml.c5.4xlarge", "count": 1}]}}
    data["teams"][2]["studio"]["home"] = "train"
    synthesize_stacks(validate_platform(data), tmp_path / "one")
    selection = changed_stacks(two, tmp_path / "one")
    assert {"acme-infer-eks", "acme-infer-cluster", "acme-infer-team-nlp", "acme-infer-k8s-nlp"} <= set(
        selection.removed
    )
    assert selection.removed_clusters == [
        "HyperPod cluster infer (acme-infer-cluster)",
        "EKS cluster infer-eks (acme-infer-eks)",
    ]
    text = render_text(selection)
    assert "keeps running (and billing) until they are destroyed: HyperPod cluster infer" in text
    assert json.loads(json.dumps(selection.as_json()))["removed_clusters"] == selection.removed_clusters


def test_a_folder_that_is_no_synth_output_is_refused_with_the_fix(tmp_path):
    with pytest.raises(SynthOutputError, match="manifest.json is missing.*previous run's cdktf.out"):
        read_output(tmp_path)


# --- the command, as a pipeline runs it ------------------------------------------------------


def run_stacks(*args: str, cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    return subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "stacks", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_changed_since_a_git_ref_prints_a_ci_matrix(tmp_path):
    spec = tmp_path / "teams.yaml"
    spec.write_text(QUICKSTART.read_text())
    git = ["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci"]
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", "teams.yaml"], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "spec"], cwd=tmp_path, check=True)
    data = quickstart()
    data["teams"][1]["compute"]["fair_share_weight"] = 7
    spec.write_text(yaml.safe_dump(data, sort_keys=False))

    result = run_stacks("teams.yaml", "--changed-since-ref", "HEAD", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    matrix = json.loads(result.stdout)  # stdout is the JSON alone: progress goes to stderr
    assert matrix["stacks"] == ["acme-team-vision", "acme-k8s-vision"]
    assert matrix["waves"] == [["acme-team-vision"], ["acme-k8s-vision"]]
    assert (tmp_path / "cdktf.out" / "stacks" / "acme-team-vision" / "cdk.tf.json").is_file()

    # The pipeline's next run compares with the output it kept, writing the new one elsewhere: the
    # baseline stays as it was, so a retry of the same run sees the same change.
    data["teams"][1]["compute"]["fair_share_weight"] = 8
    spec.write_text(yaml.safe_dump(data, sort_keys=False))
    for _ in range(2):
        result = run_stacks(
            "teams.yaml", "--changed-since", "cdktf.out", "--out", "cdktf.new", "--format", "json", cwd=tmp_path
        )
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["changed"] == ["acme-team-vision"]


def test_usage_errors_exit_2_naming_the_problem(tmp_path):
    spec = tmp_path / "teams.yaml"
    spec.write_text(QUICKSTART.read_text())
    both = run_stacks("teams.yaml", "--changed-since", ".", "--changed-since-ref", "HEAD", cwd=tmp_path)
    assert both.returncode == 2 and "not both" in both.stderr
    not_git = run_stacks("teams.yaml", "--changed-since-ref", "HEAD", cwd=tmp_path)
    assert not_git.returncode == 2 and "cannot read teams.yaml as of 'HEAD'" in not_git.stderr
    no_output = run_stacks("teams.yaml", "--changed-since", str(tmp_path / "kept"), cwd=tmp_path)
    assert no_output.returncode == 2 and "is not a synth output" in no_output.stderr
    listed = run_stacks("teams.yaml", "--format", "json", cwd=tmp_path)
    assert listed.returncode == 0 and json.loads(listed.stdout)["waves"][0][0] == "acme-identity"
