"""An endpoint's, a space's and the dashboards' journeys walked with the real HyperPod CLI (`hyp`,
sagemaker-hyperpod 3.12.0 in .venv-journey) as each team role, against a Kubernetes API that authorizes
with Kubernetes' RBAC authorizer over the RBAC of examples/team-work and admits with its admission
policies (tests/emulator/kubernetes_api.py), in the team's namespace and in another team's.

Who a request comes from is given here (a bearer token per team role, standing in for EKS's IAM
authentication, which the journey tier walks with the deployed access entries); what each request may
do is the synthesized RBAC's and admission's alone. The AWS calls (`hyp invoke`: SageMaker's
DescribeEndpoint, SageMaker Runtime's InvokeEndpoint; `hyp get-monitoring`: EKS ListAddons and
DescribeAddon) reach a stand-in that decides each by IAM's evaluation logic (tests/iam_evaluation.py)
over the caller's synthesized permission set, refuses as AWS does, and otherwise answers in the
service's protocol: the observability add-on with the configuration the stacks write
(addons.observability_configuration, the workspaces' ARNs as AWS would give them). Each step is
judged by every request the CLI made and what was decided, never by the exit code alone (the CLI
swallows errors).

`hyp` runs as tests/emulator/hyp.py runs it: imported once, forked for each command, its cluster
context kept in the member's home (the CLI keeps it in /tmp/hyperpod_current_context.json, one file
for every `hyp` on the machine).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from hyperpod_teams import addons, naming, rbac
from tests.emulator import kubernetes_api as k8s
from tests.emulator.hyp import hyp_forks, run_cli
from tests.iam_evaluation import allows

#: One test process for the module: the walks (the module's fixture) run once, not in each process a
#: test of the module lands in.
pytestmark = [pytest.mark.journey, pytest.mark.xdist_group("hyp-walks")]

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = "team-work"
OWN, OTHER = "nlp", "vision"
EKS = "ml-shared-eks"
ALLOWED, DENIED = "allowed", "denied"
BODY = '{"inputs": "hi"}'  # an invocation's payload
#: The observability add-on's workspaces, as AWS names them once the cluster stack made them.
PROMETHEUS_ENDPOINT = "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-0a1b2c3d"
GRAFANA_ARN = "arn:aws:grafana:us-west-2:111122223333:/workspaces/g-0a1b2c3d4e"


class TokenPerRole:
    """Authentication by a token per team role: `<team>-<role>` is a member of that role's group."""

    def user(self, token: str) -> k8s.User | None:
        team, _, role = token.partition("-")
        if role not in naming.ROLES:
            return None
        return k8s.User(f"{token}-member", (naming.team_kubernetes_group(team, role), "system:authenticated"))


class EndpointsStandIn:
    """SageMaker's DescribeEndpoint and SageMaker Runtime's InvokeEndpoint, each decided by IAM's
    evaluation logic over the caller's permission set (the access key names the team role); an
    endpoint exists for any name asked. `decisions`: (access key, action, resource, allowed)."""

    def __init__(self, policies: dict[str, dict], region: str, account: str) -> None:
        self.policies, self.region, self.account = policies, region, account
        self.decisions: list[tuple[str, str, str, bool]] = []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, data, kind = stand_in.answer(self.path, self.headers, body)
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                if status != 200:
                    self.send_header("x-amzn-ErrorType", "AccessDeniedException")
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST  # EKS's reads are GETs

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, path: str, headers, body: bytes) -> tuple[int, bytes, str]:
        key = re.search(r"Credential=([^/]+)/", headers.get("Authorization", ""))
        caller = key.group(1) if key else ""
        if path.startswith("/clusters/"):
            return self._eks(caller, path)
        if headers.get("X-Amz-Target") == "SageMaker.DescribeEndpoint":
            name, action = json.loads(body)["EndpointName"], "sagemaker:DescribeEndpoint"
        else:  # POST /endpoints/<name>/invocations (SageMaker Runtime API reference, InvokeEndpoint)
            name, action = path.split("/")[2], "sagemaker:InvokeEndpoint"
        # SageMaker writes the endpoint's name in lowercase in its ARN.
        arn = f"arn:aws:sagemaker:{self.region}:{self.account}:endpoint/{name.lower()}"
        allowed = caller in self.policies and allows([self.policies[caller]], action, arn)
        self.decisions.append((caller, action, arn, allowed))
        if not allowed:
            message = f"User is not authorized to perform: {action} on resource: {arn}"
            return 400, json.dumps({"__type": "AccessDeniedException", "message": message}).encode(), "application/json"
        if action == "sagemaker:InvokeEndpoint":
            return 200, b'{"generated_text": "hello"}', "application/json"
        described = {"EndpointName": name, "EndpointArn": arn, "EndpointConfigName": name,
                     "EndpointStatus": "InService", "CreationTime": 1.7e9, "LastModifiedTime": 1.7e9}  # fmt: skip
        return 200, json.dumps(described).encode(), "application/x-amz-json-1.1"

    def _eks(self, caller: str, path: str) -> tuple[int, bytes, str]:
        """EKS ListAddons (GET /clusters/<name>/addons) and DescribeAddon (.../addons/<addon>): the
        observability add-on, configured as the stacks configure it."""
        parts = path.split("?")[0].strip("/").split("/")
        eks = f"arn:aws:eks:{self.region}:{self.account}"
        if len(parts) == 3:
            action, arn = "eks:ListAddons", f"{eks}:cluster/{parts[1]}"
        else:
            action, arn = "eks:DescribeAddon", f"{eks}:addon/{parts[1]}/{parts[3]}/0a1b2c3d"
        allowed = caller in self.policies and allows([self.policies[caller]], action, arn)
        self.decisions.append((caller, action, arn, allowed))
        if not allowed:
            message = f"User is not authorized to perform: {action} on resource: {arn}"
            return 403, json.dumps({"message": message}).encode(), "application/json"
        if action == "eks:ListAddons":
            return 200, json.dumps({"addons": [addons.OBSERVABILITY_ADDON]}).encode(), "application/json"
        configuration = addons.observability_configuration(
            prometheus_endpoint=PROMETHEUS_ENDPOINT,
            prometheus_arn=f"arn:aws:aps:{self.region}:{self.account}:workspace/ws-0a1b2c3d",
            grafana=("acme-hyperpod", GRAFANA_ARN),
        )
        addon = {"addonName": parts[3], "clusterName": parts[1], "status": "ACTIVE", "addonArn": arn,
                 "configurationValues": json.dumps(configuration)}  # fmt: skip
        return 200, json.dumps({"addon": addon}).encode(), "application/json"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclass
class Walked:
    who: str
    step: str
    expected: str
    got: str
    output: str
    requests: list[tuple[str, bool]] = field(default_factory=list)
    #: Why each refused request was refused, as the API server answered (hyp itself prints "Access denied").
    refusals: list[str] = field(default_factory=list)


class Member:
    def __init__(
        self, api: k8s.KubernetesApi, aws: EndpointsStandIn, cli_bin: Path, home: Path, team: str, role: str
    ) -> None:
        self.api, self.aws, self.cli_bin, self.who = api, aws, cli_bin, f"{team} {role}"
        self.user = f"{team}-{role}-member"  # TokenPerRole's name for the token below
        (home / ".kube").mkdir(parents=True, exist_ok=True)
        kubeconfig = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "eks", "cluster": {"server": api.url}}],
            "users": [{"name": "member", "user": {"token": f"{team}-{role}"}}],
            "contexts": [{"name": "eks", "context": {"cluster": "eks", "user": "member"}}],
            "current-context": "eks",
        }
        (home / ".kube" / "config").write_text(json.dumps(kubeconfig))
        self.env = {
            "PATH": f"{cli_bin}:/usr/bin:/bin",
            "HOME": str(home),
            "KUBECONFIG": str(home / ".kube" / "config"),
            # Nothing leaves the machine: hyp sends telemetry to an S3 URL on every command.
            "HTTP_PROXY": "http://127.0.0.1:9",
            "HTTPS_PROXY": "http://127.0.0.1:9",
            "NO_PROXY": "127.0.0.1,localhost",
            "AWS_ENDPOINT_URL": aws.url,
            "AWS_DEFAULT_REGION": "us-west-2",
            "AWS_REGION": "us-west-2",
            "AWS_ACCESS_KEY_ID": f"{team}-{role}",
            "AWS_SECRET_ACCESS_KEY": "member",
            "AWS_CONFIG_FILE": str(home / "no-aws-config"),
            "AWS_SHARED_CREDENTIALS_FILE": str(home / "no-aws-credentials"),
            "AWS_MAX_ATTEMPTS": "1",
            "PYTHONWARNINGS": "ignore",
        }
        self.home = home

    def step(self, step: str, expected: str, *command: str, judged_by_requests: bool = False) -> Walked:
        """Run one command; allowed when every Kubernetes request was allowed and it succeeded (or,
        `judged_by_requests`, by its requests alone: hyp create hyp-space-access reads a URL from the
        connection's status, which only the Spaces add-on writes); denied when a request was refused."""
        before, aws_before = len(self.api.decisions), len(self.aws.decisions)
        result = run_cli(self.cli_bin, command, env=self.env, cwd=str(self.home))
        # The members walk side by side: their own requests only.
        mine = [d for d in self.api.decisions_since(before) if d["user"] == self.user]
        requests = [(_request(d), d["allowed"]) for d in mine]
        key = f"{self.user.removesuffix('-member')}"
        requests += [(f"{action} {arn}", ok) for who, action, arn, ok in self.aws.decisions[aws_before:] if who == key]
        refused = [r for r, allowed in requests if not allowed]
        if refused:
            got = DENIED
        elif requests and (result.returncode == 0 or judged_by_requests):
            got = ALLOWED
        else:
            got = f"failed (exit {result.returncode}, {len(requests)} requests)"
        output = (result.stdout + result.stderr)[-2000:]
        refusals = [d["reason"] for d in mine if not d["allowed"]] + [r for r, ok in requests if not ok and ":" in r]
        return Walked(self.who, step, expected, got, f"$ {' '.join(command)}\n{output}", requests, refusals)

    def apply(self, step: str, expected: str, manifest: dict) -> Walked:
        """`kubectl apply -f` of a new object, as the member: a create through the Kubernetes client hyp
        itself uses (kubernetes' dynamic client, from .venv-journey)."""
        script = (
            "import json,sys\n"
            "from kubernetes import client, config\n"
            "config.load_kube_config()\n"
            "m = json.loads(sys.argv[1]); group, version = m['apiVersion'].split('/')\n"
            "client.CustomObjectsApi().create_namespaced_custom_object(group, version, m['metadata']['namespace'], "
            "sys.argv[2], m)\n"
        )
        plural = "jumpstartmodels" if manifest["kind"] == "JumpStartModel" else "workspaces"
        return self.step(step, expected, "python", "-c", script, json.dumps(manifest), plural)


def _request(decision: dict) -> str:
    where = "/".join(part for part in (decision["namespace"], decision["name"]) if part)
    return " ".join(part for part in (decision["verb"], decision["resource"] or decision["path"], where) if part)


def jumpstart_model(team: str, name: str, endpoint_name: str, *, queue: str | None) -> dict:
    """A JumpStartModel as the runbook prints it (hyperpod_teams/review/runbook_work.py)."""
    labels = {rbac.QUEUE_LABEL: queue, rbac.PRIORITY_LABEL: "inference-priority"} if queue else {}
    return {
        "apiVersion": f"{addons.INFERENCE_API_GROUP}/v1",
        "kind": "JumpStartModel",
        "metadata": {"name": name, "namespace": naming.team_namespace(team), "labels": labels},
        "spec": {
            "model": {"modelId": "deepseek-llm-r1-distill-qwen-1-5b"},
            "server": {"instanceType": "ml.g5.8xlarge"},
            "sageMakerEndpoint": {"name": endpoint_name},
        },
    }


def own_namespace_steps(m: Member, team: str) -> list[Walked]:
    ns, queue = naming.team_namespace(team), naming.team_local_queue(team)
    prefix = naming.team_endpoint_prefix("acme", team)
    other_prefix = naming.team_endpoint_prefix("acme", OTHER)
    role = m.who.split()[1]
    space, endpoint = f"notebook-{role}", f"llama-{role}"
    return [
        # hyp 3.12.0's endpoint templates write no labels: outside the team's quota, refused.
        m.step("hyp create hyp-jumpstart-endpoint (no queue label)", DENIED,
               "hyp", "create", "hyp-jumpstart-endpoint", "--model-id", "deepseek-llm-r1-distill-qwen-1-5b",
               "--instance-type", "ml.g5.8xlarge", "--endpoint-name", f"{prefix}ds", "--namespace", ns,
               "--metadata-name", f"unlabelled-{role}"),
        m.apply("apply an endpoint labelled with the team's queue and priority", ALLOWED,
                jumpstart_model(team, endpoint, f"{prefix}{endpoint}", queue=queue)),
        m.apply(f"apply an endpoint named as {OTHER}'s", DENIED,
                jumpstart_model(team, f"squat-{role}", f"{other_prefix}llama", queue=queue)),
        m.step("hyp list hyp-jumpstart-endpoint", ALLOWED, "hyp", "list", "hyp-jumpstart-endpoint", "--namespace", ns),
        m.step("hyp describe hyp-jumpstart-endpoint", ALLOWED,
               "hyp", "describe", "hyp-jumpstart-endpoint", "--name", endpoint, "--namespace", ns),
        m.step("hyp invoke hyp-custom-endpoint", ALLOWED,
               "hyp", "invoke", "hyp-custom-endpoint", "--endpoint-name", f"{prefix}{endpoint}", "--body", BODY),
        m.step(f"hyp invoke hyp-custom-endpoint of {OTHER}'s", DENIED,
               "hyp", "invoke", "hyp-custom-endpoint", "--endpoint-name", f"{other_prefix}llama", "--body", BODY),
        m.step("hyp delete hyp-jumpstart-endpoint", ALLOWED,
               "hyp", "delete", "hyp-jumpstart-endpoint", "--name", endpoint, "--namespace", ns),
        m.step("hyp create hyp-space without --queue-name", DENIED,
               "hyp", "create", "hyp-space", "--name", f"{space}-x", "--display-name", "Notebook", "--namespace", ns),
        m.step("hyp create hyp-space", ALLOWED,
               "hyp", "create", "hyp-space", "--name", space, "--display-name", "Notebook", "--namespace", ns,
               "--queue-name", queue),
        m.step("hyp create hyp-space-access", ALLOWED,
               "hyp", "create", "hyp-space-access", "--name", space, "--namespace", ns, judged_by_requests=True),
        m.step("hyp delete hyp-space", ALLOWED, "hyp", "delete", "hyp-space", "--name", space, "--namespace", ns),
    ]  # fmt: skip


def monitoring_steps(m: Member) -> list[Walked]:
    """`hyp get-monitoring` after `hyp set-cluster-context` (whose context file is written here as it
    writes it: the HyperPod cluster as DescribeCluster gives it; the journey tier walks that command)."""
    context = {
        "ClusterArn": "arn:aws:sagemaker:us-west-2:111122223333:cluster/abcdefghijkl",
        "ClusterName": "ml-shared",
        "Orchestrator": {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/ml-shared-eks"}},
    }
    (m.home / "hyperpod_current_context.json").write_text(json.dumps(context))
    return [
        m.step(
            "hyp get-monitoring --grafana --prometheus", ALLOWED, "hyp", "get-monitoring", "--grafana", "--prometheus"
        )
    ]


def other_namespace_steps(m: Member, other: str) -> list[Walked]:
    """In the other team's namespace: scientists list its endpoints and plant a space, admins delete its
    endpoint and read its space (each refused)."""
    ns = naming.team_namespace(other)
    if m.who.endswith("scientists"):
        return [
            m.step(
                f"hyp list hyp-jumpstart-endpoint in {other}'s namespace",
                DENIED,
                "hyp",
                "list",
                "hyp-jumpstart-endpoint",
                "--namespace",
                ns,
            ),
            m.step(
                f"hyp create hyp-space in {other}'s namespace",
                DENIED,
                "hyp",
                "create",
                "hyp-space",
                "--name",
                "planted",
                "--display-name",
                "Planted",
                "--namespace",
                ns,
                "--queue-name",
                naming.team_local_queue(other),
            ),
        ]
    return [
        m.step(f"hyp delete hyp-jumpstart-endpoint in {other}'s namespace", DENIED,
               "hyp", "delete", "hyp-jumpstart-endpoint", "--name", "theirs", "--namespace", ns),
        m.step(f"hyp describe hyp-space in {other}'s namespace", DENIED,
               "hyp", "describe", "hyp-space", "--name", "theirs", "--namespace", ns),
    ]  # fmt: skip


def _cli_bin() -> Path:
    from tests.emulator.journeys import hyp_cli_bin

    cli_bin = hyp_cli_bin()
    if cli_bin is None:
        message = "these walks need the HyperPod CLI in .venv-journey (make test installs it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return cli_bin


@contextmanager
def _world(stacks: dict[str, dict]) -> Iterator[tuple[k8s.KubernetesApi, EndpointsStandIn, k8s.Store]]:
    """The EKS cluster's Kubernetes API with team-work's RBAC and admission, another team's endpoint
    and space in it, and the AWS stand-in; stopped afterwards."""
    from tests.test_kubernetes_rbac import admission_manifests, rbac_manifests
    from tests.test_team_inference_spaces_monitoring import permission_set_policy

    store = k8s.Store()
    k8s.seed(store, namespaces=[naming.team_namespace(t) for t in (OWN, OTHER)], crds=[])
    theirs = jumpstart_model(OTHER, "theirs", "acme-vision--theirs", queue=naming.team_local_queue(OTHER))
    store.put(addons.INFERENCE_API_GROUP, "jumpstartmodels", naming.team_namespace(OTHER), theirs)
    store.put(
        addons.SPACE_API_GROUP, addons.SPACE_RESOURCE, naming.team_namespace(OTHER), {"metadata": {"name": "theirs"}}
    )
    aws = EndpointsStandIn(
        {f"{OWN}-{role}": permission_set_policy(stacks, f"acme-{OWN}-{role}") for role in naming.ROLES},
        "us-west-2",
        "111122223333",
    )
    api = k8s.KubernetesApi(
        authenticator=TokenPerRole(),  # type: ignore[arg-type]
        rbac=k8s.Rbac(rbac_manifests(stacks)),
        store=store,
        admission=k8s.Admission(admission_manifests(stacks)),
    ).start()
    try:
        yield api, aws, store
    finally:
        api.stop()
        aws.stop()


@pytest.fixture(scope="module")
def walked(example_stacks, tmp_path_factory) -> tuple[list[Walked], k8s.Store]:
    cli_bin = _cli_bin()
    work = tmp_path_factory.mktemp("hyp-walks")
    with _world(example_stacks[EXAMPLE]) as (api, aws, store):
        members = {role: Member(api, aws, cli_bin, work / role, OWN, role) for role in naming.ROLES}

        def walk(role: str) -> list[Walked]:
            m = members[role]
            return own_namespace_steps(m, OWN) + monitoring_steps(m) + other_namespace_steps(m, OTHER)

        with ThreadPoolExecutor(max_workers=2) as pool:
            steps = [s for walked in pool.map(walk, naming.ROLES) for s in walked]
    return steps, store


def test_a_forked_hyp_makes_the_requests_and_answers_of_a_fresh_one(example_stacks, tmp_path):
    """tests/emulator/hyp.py's forks stand for the console script `hyp`: the same command, as the
    same member, in a fresh process and in a fork, makes the same requests, decided the same, with
    the same exit status and output (an allowed and a refused command)."""
    cli_bin = _cli_bin()
    with _world(example_stacks[EXAMPLE]) as (api, aws, _):
        m = Member(api, aws, cli_bin, tmp_path / "member", OWN, "scientists")
        for team in (OWN, OTHER):
            command = ["list", "hyp-jumpstart-endpoint", "--namespace", naming.team_namespace(team)]
            answers = []
            for fork in (True, False):
                before = len(api.decisions)
                if fork:
                    result = hyp_forks(cli_bin).run(command, env=m.env, cwd=str(m.home), timeout=180)
                else:
                    fresh = [str(cli_bin / "hyp"), *command]
                    result = subprocess.run(fresh, env=m.env, capture_output=True, text=True, timeout=180, cwd=m.home)
                requests = [(_request(d), d["allowed"]) for d in api.decisions_since(before)]
                output = re.sub(r"'Date': '[^']*'", "'Date': (when)", result.stdout)  # the API's answer's
                answers.append((result.returncode, output, requests))
            forked, fresh_answer = answers
            assert forked == fresh_answer, team
            assert forked[2], "no request reached the API"
            assert all(allowed for _, allowed in forked[2]) == (team == OWN), forked[2]


def _report(steps: list[Walked]) -> str:
    return "\n\n".join(f"--- {s.who}: {s.step}: expected {s.expected}, got {s.got}\n{s.output}" for s in steps)


def test_each_team_role_walks_an_endpoints_and_a_spaces_life_in_its_namespace_and_none_in_anothers(walked):
    steps, _ = walked
    wrong = [s for s in steps if s.expected != s.got]
    assert not wrong, _report(wrong)
    assert {s.who for s in steps} == {f"{OWN} {role}" for role in naming.ROLES}


def test_an_endpoint_is_admitted_only_with_the_teams_queue_and_name(walked):
    """The step that shows it: the endpoint the member applied with the team's queue label was admitted
    and stored with it (Kueue admits it under the team's ClusterQueue by that label); without the label,
    or with another team's name, the team's admission policy refused it, saying why."""
    steps, _ = walked
    applied = [s for s in steps if s.step.startswith("apply an endpoint labelled")]
    assert applied and all(s.got == ALLOWED for s in applied)
    assert all(r == (f"create jumpstartmodels {naming.team_namespace(OWN)}", True) for s in applied for r in s.requests)
    unlabelled = [s for s in steps if s.step == "hyp create hyp-jumpstart-endpoint (no queue label)"]
    assert unlabelled and all("label it kueue.x-k8s.io/queue-name" in " ".join(s.refusals) for s in unlabelled)
    squatting = [s for s in steps if s.step == f"apply an endpoint named as {OTHER}'s"]
    assert squatting and all("starts with acme-nlp--" in " ".join(s.refusals) for s in squatting)


def test_the_endpoint_as_admitted_carries_the_teams_queue_and_priority(example_stacks, tmp_path):
    """What the API server holds after the member's apply: the labels Kueue reads."""
    from tests.test_kubernetes_rbac import admission_manifests

    admission = k8s.Admission(admission_manifests(example_stacks[EXAMPLE]))
    manifest = jumpstart_model(OWN, "llama", "acme-nlp--llama", queue=naming.team_local_queue(OWN))
    info = k8s.RequestInfo(
        path="", verb="create", is_resource_request=True, api_group=addons.INFERENCE_API_GROUP,
        namespace=naming.team_namespace(OWN), resource="jumpstartmodels", subresource="", name="",
    )  # fmt: skip
    user = k8s.User("m", (naming.team_kubernetes_group(OWN, "scientists"), "system:authenticated"))
    assert admission.review(user, info, manifest) is None
    labels = manifest["metadata"]["labels"]
    assert labels[rbac.QUEUE_LABEL] == "hyperpod-ns-nlp-localqueue"
    assert labels[rbac.PRIORITY_LABEL] == "inference-priority"


def test_the_walks_made_the_requests_the_docs_list(walked):
    """Each request the real CLI made for the documented steps is one docs/team-journeys.md names."""
    steps, _ = walked
    docs = (ROOT / "docs" / "team-journeys.md").read_text()
    for s in steps:
        for request, _allowed in s.requests:
            verb, what = request.split(" ")[:2]
            if ":" in verb:  # an AWS call: its action
                assert f"`{verb}`" in docs, (s.step, request)
            elif not what.startswith("/"):  # GET /version, every command reads it
                assert what.split("/")[0] in docs, (s.step, request)


def test_each_team_role_reads_the_monitoring_urls_the_stacks_configure(walked):
    """`hyp get-monitoring` prints the Grafana dashboard's URL (the workspace ID at the end of the
    add-on's amgWorkspace.arn, observability/utils.py) and the Prometheus endpoint, for every team role."""
    steps, _ = walked
    monitoring = [s for s in steps if s.step.startswith("hyp get-monitoring")]
    assert {s.who for s in monitoring} == {f"{OWN} {role}" for role in naming.ROLES}
    for s in monitoring:
        assert s.got == ALLOWED, _report([s])
        assert "https://g-0a1b2c3d4e.grafana-workspace.us-west-2.amazonaws.com/d/" in s.output, s.output
        assert PROMETHEUS_ENDPOINT in s.output, s.output
        # observability/utils.py asks ListAddons from two places before the DescribeAddon: the set of calls.
        assert {r for r, _ in s.requests if ":" in r.split(" ")[0]} == {
            f"eks:ListAddons arn:aws:eks:us-west-2:111122223333:cluster/{EKS}",
            f"eks:DescribeAddon arn:aws:eks:us-west-2:111122223333:addon/{EKS}/{addons.OBSERVABILITY_ADDON}/0a1b2c3d",
        }
