"""Teams held apart where they share the cluster (docs/security.md, "What a team cannot do"), decided by
outcome: the journey tier's Kubernetes API, with the RBAC, admission policies and namespace labels the
synthesized Kubernetes stacks of examples/team-work deploy, decides a hostile member's work *and the
pods the controllers then create for it* (the Job controller, the training operators, the inference
operator, the Spaces controller, each as its service account), with Pod Security Admission's own
rules (tests/emulator/pod_security.py, held to Kubernetes' fixtures here) and the team namespaces'
network policies under NetworkPolicy's semantics (tests/emulator/network_policy.py)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from hyperpod_teams import addons, isolation, naming
from tests.emulator import kubernetes_api, network_policy, pod_security
from tests.emulator.journeys import namespace_labels
from tests.emulator.kubernetes_api import User
from tests.test_kubernetes_rbac import admission_manifests, rbac_manifests
from tests.test_team_inference_spaces_monitoring import TEAM_DATA_MODEL

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "data" / "pod-security-admission"
TEAM_WORK = ROOT / "examples" / "team-work" / "teams.yaml"


# --- Pod Security Admission's baseline, held to Kubernetes' own fixtures ------------------------------


def _fixtures(kind: str) -> list[Path]:
    return sorted((FIXTURES / kind).glob("*.yaml"))


def test_the_fixtures_are_kubernetes_whole_baseline_set_of_its_version():
    """Every fixture of baseline v1.32 (tests/data/pod-security-admission/SOURCES.md): none left out."""
    assert (len(_fixtures("fail")), len(_fixtures("pass"))) == (29, 11)


@pytest.mark.parametrize("path", _fixtures("fail"), ids=lambda p: p.stem)
def test_the_port_refuses_every_pod_kubernetes_baseline_fixtures_refuse(path):
    pod = yaml.safe_load(path.read_text())
    assert pod_security.baseline_violations(pod), path.name


@pytest.mark.parametrize("path", _fixtures("pass"), ids=lambda p: p.stem)
def test_the_port_admits_every_pod_kubernetes_baseline_fixtures_admit(path):
    pod = yaml.safe_load(path.read_text())
    assert pod_security.baseline_violations(pod) == [], path.name


def test_each_check_of_the_port_is_what_refuses_its_fixture():
    """A check taken out lets its own fixture through: the fixtures test the checks, not luck."""
    by_check = {
        pod_security.privileged: "privileged0",
        pod_security.host_namespaces: "hostnamespaces1",
        pod_security.host_path_volumes: "hostpathvolumes0",
        pod_security.host_ports: "hostports0",
        pod_security.capabilities: "capabilities_baseline0",
        pod_security.app_armor: "apparmorprofile0",
        pod_security.sysctls: "sysctls0",
        pod_security.proc_mount: "procmount1",
        pod_security.seccomp: "seccompprofile_baseline0",
        pod_security.selinux: "selinuxoptions3",
    }
    for check, fixture in by_check.items():
        pod = yaml.safe_load((FIXTURES / "fail" / f"{fixture}.yaml").read_text())
        others = [c for c in pod_security.BASELINE_CHECKS if c is not check]
        assert check(pod) is not None and all(c(pod) is None for c in others), fixture


def test_only_a_namespace_labelled_for_it_is_held_to_baseline():
    pod = yaml.safe_load((FIXTURES / "fail" / "privileged0.yaml").read_text())
    assert pod_security.review("ns", {}, pod) is None
    refusal = pod_security.review("ns", {pod_security.ENFORCE_LABEL: "baseline"}, pod)
    assert refusal is not None and 'violates PodSecurity "baseline:latest": privileged' in refusal


# --- NetworkPolicy semantics, Kubernetes' cases -------------------------------------------------------


def _policy(namespace: str, spec: dict) -> dict:
    return {"kind": "NetworkPolicy", "metadata": {"name": "p", "namespace": namespace}, "spec": spec}


def test_network_policy_semantics_as_kubernetes_documents_them():
    """The cases of the Kubernetes docs' "Network Policies" page (default deny, selectors, their AND
    and OR, ipBlock with except, ports)."""
    allowed = network_policy.ingress_allowed
    a, b = network_policy.Pod("a", {"app": "web"}, "10.0.1.5"), network_policy.Pod("b", {"app": "db"}, "10.0.2.5")
    # No policy selects the pod: not isolated.
    assert allowed([], a, b, 80)
    # Default deny: podSelector {} and no ingress rule.
    deny = _policy("b", {"podSelector": {}, "policyTypes": ["Ingress"]})
    assert not allowed([deny], a, b, 80)
    # Policies add up (union): one more allowing namespace a admits a.
    from_a = _policy(
        "b",
        {
            "podSelector": {},
            "ingress": [{"from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "a"}}}]}],
        },
    )
    assert allowed([deny, from_a], a, b, 80)
    # podSelector alone: pods of the policy's own namespace only.
    same_ns = _policy("b", {"podSelector": {}, "ingress": [{"from": [{"podSelector": {}}]}]})
    assert not allowed([same_ns], a, b, 80)
    assert allowed([same_ns], network_policy.Pod("b", {}, "10.0.2.6"), b, 80)
    # Both in one peer: AND; in two peers: OR.
    both = {"namespaceSelector": {"matchLabels": {"team": "x"}}, "podSelector": {"matchLabels": {"app": "web"}}}
    labels = {"a": {"team": "x"}}
    assert allowed(
        [_policy("b", {"podSelector": {}, "ingress": [{"from": [both]}]})], a, b, 80, namespace_labels=labels
    )
    assert not allowed(
        [_policy("b", {"podSelector": {}, "ingress": [{"from": [both]}]})],
        network_policy.Pod("a", {"app": "other"}),
        b,
        80,
        namespace_labels=labels,
    )
    either = [{"namespaceSelector": {"matchLabels": {"team": "x"}}}, {"podSelector": {"matchLabels": {"app": "web"}}}]
    assert allowed(
        [_policy("b", {"podSelector": {}, "ingress": [{"from": either}]})],
        network_policy.Pod("a", {"app": "other"}),
        b,
        80,
        namespace_labels=labels,
    )
    # ipBlock with except; ports.
    block = _policy(
        "b",
        {
            "podSelector": {},
            "ingress": [
                {"from": [{"ipBlock": {"cidr": "10.0.0.0/16", "except": ["10.0.1.0/24"]}}], "ports": [{"port": 443}]}
            ],
        },
    )
    assert not allowed([block], a, b, 443)
    assert allowed([block], network_policy.Pod("c", {}, "10.0.3.1"), b, 443)
    assert not allowed([block], network_policy.Pod("c", {}, "10.0.3.1"), b, 80)
    # An Egress-only policy does not isolate for ingress.
    assert allowed([_policy("b", {"podSelector": {}, "policyTypes": ["Egress"]})], a, b, 80)


def test_network_policy_semantics_hold_network_policy_apis_own_cases():
    """The ingress cases of kubernetes-sigs/network-policy-api's policy assistant
    (cmd/policy-assistant/pkg/matcher/policy_tests.go at 841fc752): a rule allowing a protocol denies
    the others, from pods and from addresses alike; a rule allowing a named port admits traffic to
    the container port of that name."""
    sctp_only = yaml.safe_load(
        """
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: policy-207, namespace: x}
spec:
  ingress:
  - ports:
    - protocol: SCTP
  podSelector: {}
  policyTypes: [Ingress]
"""
    )
    target = network_policy.Pod("x", {}, "1.2.3.5")
    for source in (network_policy.Pod("y", {}, "1.2.3.4"), network_policy.Pod("", {}, "1.2.3.4")):
        assert not network_policy.ingress_allowed([sctp_only], source, target, 103, protocol="TCP")
        assert network_policy.ingress_allowed([sctp_only], source, target, 103, protocol="SCTP")
    named = yaml.safe_load(
        """
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: abc, namespace: x}
spec:
  ingress:
  - ports:
    - port: port-hello
      protocol: TCP
  podSelector:
    matchLabels: {pod: a}
  policyTypes: [Ingress]
"""
    )
    pod_a = network_policy.Pod("x", {"pod": "a"}, "192.168.242.249")
    assert network_policy.ingress_allowed(
        [named], network_policy.Pod("", {}, "1.2.3.4"), pod_a, 8080, port_name="port-hello"
    )
    assert not network_policy.ingress_allowed(
        [named], network_policy.Pod("", {}, "1.2.3.4"), pod_a, 8080, port_name="other"
    )


# --- the team-work example as deployed ---------------------------------------------------------------


@pytest.fixture(scope="module")
def team_work(example_stacks):
    from hyperpod_teams.spec import load_spec

    return yaml.safe_load(TEAM_WORK.read_text()), load_spec(TEAM_WORK), example_stacks["team-work"]


def _network_policies(stacks: dict) -> list[dict]:
    return [
        body["manifest"]
        for stack in stacks.values()
        for body in stack.get("resource", {}).get("kubernetes_manifest", {}).values()
        if body["manifest"]["kind"] == "NetworkPolicy"
    ]


def test_no_team_pod_reaches_another_teams_pods_and_the_platform_and_the_team_itself_do(team_work):
    data, spec, stacks = team_work
    policies = _network_policies(stacks)
    teams = [t.name for t in spec.teams]
    labels = namespace_labels(stacks)
    assert sorted(p["metadata"]["namespace"] for p in policies) == sorted(naming.team_namespace(t) for t in teams)
    platform = isolation.platform_namespaces(inference=True, spaces=True, observability=True)
    for target in teams:
        pod = network_policy.Pod(naming.team_namespace(target), {"app": "space"}, "10.0.9.9")
        for source in teams:
            reaches = network_policy.ingress_allowed(
                policies,
                network_policy.Pod(naming.team_namespace(source), {}, "10.0.8.8"),
                pod,
                8888,
                namespace_labels=labels,
            )
            assert reaches == (source == target), (source, target)
        for namespace in platform:
            assert network_policy.ingress_allowed(
                policies, network_policy.Pod(namespace), pod, 8080, namespace_labels=labels
            )
        for namespace in ("default", "kube-system"):
            assert not network_policy.ingress_allowed(
                policies, network_policy.Pod(namespace), pod, 8080, namespace_labels=labels
            )
        for cidr in spec.cluster.inference.load_balancer_cidrs:
            address = cidr.split("/")[0].rsplit(".", 1)[0] + ".10"
            assert network_policy.ingress_allowed(policies, network_policy.Pod("", {}, address), pod, 8080)
    assert {addons.INFERENCE_NAMESPACE, addons.SPACES_NAMESPACE, addons.OBSERVABILITY_NAMESPACE} == set(platform)


def _api(stacks: dict, teams: list[str]) -> kubernetes_api.KubernetesApi:
    store = kubernetes_api.Store()
    kubernetes_api.seed(
        store, namespaces=[naming.team_namespace(t) for t in teams], crds=[], labels=namespace_labels(stacks)
    )
    return kubernetes_api.KubernetesApi(
        authenticator=None,  # type: ignore[arg-type]  # handle_as: users are given, not authenticated
        rbac=kubernetes_api.Rbac(rbac_manifests(stacks)),
        store=store,
        admission=kubernetes_api.Admission(admission_manifests(stacks)),
    )


GPU_EFA_CONTAINER = {
    "name": "pytorch",
    "image": "123456789012.dkr.ecr.us-west-2.amazonaws.com/fsdp:latest",
    "command": ["hyperpodrun", "--nproc_per_node=8", "/fsdp/train.py"],
    "env": [{"name": "FI_PROVIDER", "value": "efa"}, {"name": "FI_EFA_USE_DEVICE_RDMA", "value": "1"}],
    "resources": {
        "requests": {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32},
        "limits": {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32},
    },
    "volumeMounts": [{"name": "shmem", "mountPath": "/dev/shm"}, {"name": "local", "mountPath": "/local"}],
}
#: awsome-distributed-training's FSDP HyperPodPyTorchJob (3.test_cases/pytorch/FSDP/kubernetes/
#: llama3_1_8b-fsdp-hpto.yaml) with its hostPath volumes as emptyDir (docs/security.md).
ORDINARY_TEMPLATE: dict[str, Any] = {
    "spec": {
        "volumes": [{"name": "shmem", "emptyDir": {"medium": "Memory"}}, {"name": "local", "emptyDir": {}}],
        "nodeSelector": {"node.kubernetes.io/instance-type": "ml.p5.48xlarge"},
        "containers": [GPU_EFA_CONTAINER],
    }
}


def _attacks(other_node: str) -> dict[str, dict]:
    """Each hostile change of an ordinary pod template: name -> the template."""

    def changed(edit) -> dict:
        template = copy.deepcopy(ORDINARY_TEMPLATE)
        edit(template["spec"], template["spec"]["containers"][0])
        return template

    return {
        "privileged": changed(lambda s, c: c.update(securityContext={"privileged": True})),
        "hostPath /": changed(lambda s, c: s["volumes"].append({"name": "root", "hostPath": {"path": "/"}})),
        "hostNetwork": changed(lambda s, c: s.update(hostNetwork=True)),
        "hostPID": changed(lambda s, c: s.update(hostPID=True)),
        "hostIPC": changed(lambda s, c: s.update(hostIPC=True)),
        "hostPort": changed(lambda s, c: c.update(ports=[{"containerPort": 29500, "hostPort": 29500}])),
        "SYS_ADMIN": changed(lambda s, c: c.update(securityContext={"capabilities": {"add": ["SYS_ADMIN"]}})),
        "seccomp Unconfined": changed(
            lambda s, c: s.update(securityContext={"seccompProfile": {"type": "Unconfined"}})
        ),
        "nodeName": changed(lambda s, c: s.update(nodeName=other_node)),
        "system-node-critical": changed(lambda s, c: s.update(priorityClassName="system-node-critical")),
        "NVIDIA_VISIBLE_DEVICES=all": changed(
            lambda s, c: c.update(env=[{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}], resources={})
        ),
    }


def _member(team: str, role: str = "scientists") -> User:
    return User(f"{team}-{role}-member", (naming.team_kubernetes_group(team, role), "system:authenticated"))


def _submit(api, user: User, kind: str, namespace: str, name: str, template: dict, labels: dict) -> tuple[int, list]:
    """A member's job of `kind` with `template`; the status code and the controller's decisions."""
    urls = {
        "HyperPodPyTorchJob": f"/apis/sagemaker.amazonaws.com/v1/namespaces/{namespace}/hyperpodpytorchjobs",
        "PyTorchJob": f"/apis/kubeflow.org/v1/namespaces/{namespace}/pytorchjobs",
        "Job": f"/apis/batch/v1/namespaces/{namespace}/jobs",
    }
    template = {**template, "metadata": {"labels": dict(labels)}}
    spec = {
        "HyperPodPyTorchJob": {
            "nprocPerNode": "8",
            "replicaSpecs": [{"name": "pods", "replicas": 1, "template": template}],
        },
        "PyTorchJob": {"pytorchReplicaSpecs": {"Worker": {"replicas": 1, "template": template}}},
        "Job": {"template": {**template, "spec": {**template["spec"], "restartPolicy": "Never"}}},
    }[kind]
    body = {"metadata": {"name": name, "labels": dict(labels)}, "spec": spec}
    start = len(api.decisions)
    code, _ = api.handle_as(user, "POST", urls[kind], json.dumps(body).encode())
    controller = [d for d in api.decisions[start:] if d.user.startswith("system:serviceaccount:")]
    return code, controller


@pytest.mark.parametrize("kind", ["HyperPodPyTorchJob", "PyTorchJob", "Job"])
def test_a_hostile_members_labelled_job_gets_no_pod_onto_a_shared_node_and_an_ordinary_gpu_efa_job_runs(
    team_work, kind
):
    """Each attack of the issue as a member of nlp, in a job the member may create (the team's queue
    label: admitted by the member's policy), whose pods the job's controller then creates: the
    controller's request for the pod is refused, whoever it is. The same job, ordinary (GPUs and EFA
    from the device plugins), runs."""
    _, spec, stacks = team_work
    teams = [t.name for t in spec.teams]
    api = _api(stacks, teams)
    namespace = naming.team_namespace("nlp")
    queue = {"kueue.x-k8s.io/queue-name": naming.team_local_queue("nlp")}
    code, pods = _submit(api, _member("nlp"), kind, namespace, "ordinary", ORDINARY_TEMPLATE, queue)
    assert code == 201 and pods and all(d.allowed for d in pods), pods
    for attack, template in _attacks("hyperpod-i-0vision").items():
        code, pods = _submit(api, _member("nlp"), kind, namespace, f"x-{len(api.decisions)}", template, queue)
        assert code == 201, attack  # the job itself is the member's to create
        assert pods and not any(d.allowed for d in pods), (attack, pods)


def test_priorities_are_the_teams_own_and_an_admin_moves_no_workload_outside_them(team_work):
    _, spec, stacks = team_work
    api = _api(stacks, [t.name for t in spec.teams])
    namespace = naming.team_namespace("nlp")
    classes = [c.name for c in spec.cluster.task_governance.priority_classes]
    allowed = isolation.team_workload_priorities(spec.team("nlp").compute.priority_classes, classes)
    outside = sorted({naming.workload_priority_class(c) for c in classes} - set(allowed)) + ["system-priority"]
    queue = {"kueue.x-k8s.io/queue-name": naming.team_local_queue("nlp")}
    for priority in allowed:
        code, pods = _submit(api, _member("nlp"), "HyperPodPyTorchJob", namespace, f"p-{priority}", ORDINARY_TEMPLATE,
                             {**queue, isolation.KUEUE_PRIORITY_LABEL: priority})  # fmt: skip
        assert code == 201 and all(d.allowed for d in pods), priority
    for priority in outside:
        code, _ = _submit(api, _member("nlp"), "HyperPodPyTorchJob", namespace, f"q-{priority}", ORDINARY_TEMPLATE,
                          {**queue, isolation.KUEUE_PRIORITY_LABEL: priority})  # fmt: skip
        assert code == 403, priority
    # A Kueue workload an admin changes: to an allowed class passes, outside or a new priority value not.
    workloads = f"/apis/kueue.x-k8s.io/v1beta1/namespaces/{namespace}/workloads"
    workload_spec: dict[str, Any] = {"priorityClassName": allowed[0], "priority": 10, "queueName": "q"}
    stored: dict[str, Any] = {"metadata": {"name": "w"}, "spec": workload_spec}
    api.store.put("kueue.x-k8s.io", "workloads", namespace, stored)
    admin = _member("nlp", "admins")
    for change, expected in (
        ({"priorityClassName": allowed[-1], "priority": 10}, 200),
        ({"priorityClassName": outside[0], "priority": 10}, 403),
        ({"priorityClassName": allowed[0], "priority": 1000000}, 403),
    ):
        body = {**stored, "spec": {**workload_spec, **change}}
        code, _ = api.handle_as(admin, "PUT", f"{workloads}/w", json.dumps(body).encode())
        assert (code == 403) == (expected == 403), change


def test_an_endpoint_and_a_space_are_decided_as_their_controllers_pods_too(team_work):
    _, spec, stacks = team_work
    api = _api(stacks, [t.name for t in spec.teams])
    namespace = naming.team_namespace("nlp")
    member = _member("nlp")
    queue = {"kueue.x-k8s.io/queue-name": naming.team_local_queue("nlp")}
    prefix = naming.team_endpoint_prefix(spec.organization.name, "nlp")
    endpoints = f"/apis/{addons.INFERENCE_API_GROUP}/v1/namespaces/{namespace}/inferenceendpointconfigs"
    spaces = f"/apis/{addons.SPACE_API_GROUP}/v1alpha1/namespaces/{namespace}/{addons.SPACE_RESOURCE}"

    def run(url: str, name: str, spec_: dict) -> tuple[int, list]:
        start = len(api.decisions)
        body = {"metadata": {"name": name, "labels": queue}, "spec": spec_}
        code, _ = api.handle_as(member, "POST", url, json.dumps(body).encode())
        return code, [d for d in api.decisions[start:] if d.user.startswith("system:serviceaccount:")]

    ordinary = {"endpointName": f"{prefix}chat", "worker": {"image": "vllm"}}
    code, pods = run(endpoints, "chat", ordinary)
    assert code == 201 and pods and all(d.allowed for d in pods)
    hostile = {
        **ordinary,
        "endpointName": f"{prefix}x",
        "kubernetes": {"volumes": [{"name": "r", "hostPath": {"path": "/"}}]},
    }
    code, pods = run(endpoints, "x", hostile)
    assert code == 201 and pods and not any(d.allowed for d in pods)
    # A model from the team's data volume: the operator's pod runs as the team's workload identity,
    # with which the S3 CSI driver mounts the team's bucket (authenticationSource: pod).
    code, pods = run(endpoints, "tuned", {**ordinary, "endpointName": f"{prefix}tuned", **TEAM_DATA_MODEL})
    assert code == 201 and pods and all(d.allowed for d in pods)
    (pod,) = [p for p in api.store.list("", "pods", namespace) if p["metadata"]["name"] == "tuned-model-0"]
    assert pod["spec"]["serviceAccountName"] == naming.TEAM_SERVICE_ACCOUNT
    assert pod["spec"]["volumes"] == [{"name": "model", "persistentVolumeClaim": {"claimName": "team-data"}}]
    code, pods = run(spaces, "notebook", {"image": "jupyter"})
    assert code == 201 and pods and all(d.allowed for d in pods)
    code, pods = run(spaces, "root", {"image": "jupyter", "containerSecurityContext": {"privileged": True}})
    assert code == 201 and pods and not any(d.allowed for d in pods)


def test_without_the_namespace_labels_and_the_pod_policy_the_controllers_pods_would_be_admitted(team_work):
    """What the controls guard against: the same hostile job with no Pod Security label and no pod
    policy gets its privileged pod onto the node."""
    _, spec, stacks = team_work
    api = _api(stacks, [t.name for t in spec.teams])
    namespace = naming.team_namespace("nlp")
    api.store.put("", "namespaces", "", {"metadata": {"name": namespace, "labels": {}}})
    api.admission = kubernetes_api.Admission(
        [m for m in admission_manifests(stacks) if not m["metadata"]["name"].endswith("-pods")]
    )
    queue = {"kueue.x-k8s.io/queue-name": naming.team_local_queue("nlp")}
    for attack, template in _attacks("hyperpod-i-0vision").items():
        code, pods = _submit(
            api, _member("nlp"), "HyperPodPyTorchJob", namespace, f"u-{len(api.decisions)}", template, queue
        )
        assert code == 201 and pods and all(d.allowed for d in pods), attack


# --- the platform's controllers on a group of their own (cluster.platform_group) -----------------------

PLATFORM_TAINT = {"key": "hyperpod-teams.io/platform", "value": "true", "effect": "NoSchedule"}


def _with_platform_group(data: dict) -> dict:
    data = copy.deepcopy(data)
    data["cluster"]["instance_groups"].append(
        {"name": "platform", "instance_type": "ml.m5.2xlarge", "count": 2, "kubernetes": {"taints": [PLATFORM_TAINT]}}
    )
    data["cluster"]["platform_group"] = "platform"
    return data


@pytest.fixture(scope="module")
def platform_stacks(team_work, tmp_path_factory):
    from hyperpod_teams.spec import validate_spec
    from tests.conftest import synthesize_stacks

    data = _with_platform_group(team_work[0])
    spec = validate_spec(data)
    return spec, synthesize_stacks(spec, tmp_path_factory.mktemp("platform-group"))


def test_the_inference_operators_controllers_run_on_the_platform_group_tolerating_its_taint(platform_stacks):
    """The operator's controller manager (its execution role), the load balancer controller and KEDA: the
    chart's nodeSelector and tolerations (charts/inference-operator values.yaml: "Override via EKS AddOn
    configurationValues"; its alb and keda sub-charts take the same keys)."""
    _, stacks = platform_stacks
    (addon,) = [
        body
        for body in stacks["acme-cluster"]["resource"]["aws_eks_addon"].values()
        if body["addon_name"] == addons.INFERENCE_OPERATOR_ADDON
    ]
    config = addon["configuration_values"]
    placement = (
        '"nodeSelector" = {"sagemaker.amazonaws.com/instance-group-name" = "platform"}',
        '"tolerations" = [{"key" = "hyperpod-teams.io/platform", "operator" = "Equal", "value" = "true", '
        '"effect" = "NoSchedule"}]',
    )
    normalized = re.sub(r"\s+", " ", config)
    for words in placement:
        assert normalized.count(words) == 3, (words, config)  # the operator, alb and keda


def test_no_team_pod_tolerates_the_platform_groups_taint_whoever_creates_it(platform_stacks):
    spec, stacks = platform_stacks
    api = _api(stacks, [t.name for t in spec.teams])
    namespace = naming.team_namespace("nlp")
    queue = {"kueue.x-k8s.io/queue-name": naming.team_local_queue("nlp")}

    def tolerating(tolerations: list[dict]) -> dict:
        template = copy.deepcopy(ORDINARY_TEMPLATE)
        template["spec"]["tolerations"] = tolerations
        return template

    gpu = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    for name, template, allowed in (
        ("gpu", tolerating([gpu]), True),
        ("platform", tolerating([gpu, {**PLATFORM_TAINT, "operator": "Equal"}]), False),
        ("platform-exists", tolerating([{"key": PLATFORM_TAINT["key"], "operator": "Exists"}]), False),
        ("everything", tolerating([{"operator": "Exists"}]), False),
    ):
        code, pods = _submit(api, _member("nlp"), "HyperPodPyTorchJob", namespace, name, template, queue)
        assert code == 201 and pods, name
        assert all(d.allowed == allowed for d in pods), (name, [d.reason for d in pods])
        if not allowed:
            assert "cluster.platform_group" in pods[0].reason


def test_a_platform_group_needs_a_taint_a_group_of_the_cluster_and_no_team_quota_on_its_type(team_work):
    from hyperpod_teams.spec import SpecError, validate_spec

    def problems(edit) -> list:
        data = _with_platform_group(team_work[0])
        edit(data)
        with pytest.raises(SpecError) as refused:
            validate_spec(data)
        return [(p.path, p.message) for p in refused.value.problems]

    untainted = problems(lambda d: d["cluster"]["instance_groups"][-1].pop("kubernetes"))
    assert any("has no NoSchedule or NoExecute taint" in m for _, m in untainted)
    missing = problems(lambda d: d["cluster"].update(platform_group="system"))
    assert any("'system' is no group of instance_groups" in m for _, m in missing)
    shared_type = problems(lambda d: d["cluster"]["instance_groups"][-1].update(instance_type="ml.c5.4xlarge"))
    assert any(
        path[:3] == ("teams", 0, "compute") and "cluster.platform_group 'platform'" in m for path, m in shared_type
    ), shared_type


def test_the_node_role_reaches_no_teams_data_whatever_its_managed_policy_grants(team_work):
    """AmazonSageMakerClusterInstanceRolePolicy reads every `sagemaker-*` bucket of the account (AWS
    managed policy reference, DataRetrievalFromS3BucketPermissions): with S3 read on every bucket, the
    node role's own deny leaves each team's bucket and team-tagged key out, and its lifecycle scripts in."""
    from tests.iam_evaluation import allows
    from tests.test_team_inference_spaces_monitoring import WIDEST_OPERATOR_S3

    _, spec, stacks = team_work
    cluster = stacks["acme-cluster"]["resource"]
    role = naming.hyperpod_execution_role_name("acme", spec.cluster.name)
    role_ids = {k for k, v in cluster["aws_iam_role"].items() if v["name"] == role}
    inline = [
        json.loads(v["policy"])
        for v in cluster["aws_iam_role_policy"].values()
        if any(f"aws_iam_role.{k}." in v["role"] for k in role_ids)
    ]
    policies = [WIDEST_OPERATOR_S3, *inline]
    for team in spec.teams:
        bucket = f"arn:aws:s3:::{naming.team_data_bucket(spec.organization, team)}"
        assert not allows(policies, "s3:GetObject", f"{bucket}/x"), team.name
        assert not allows(policies, "kms:Decrypt", "arn:aws:kms:us-west-2:111122223333:key/k",
                          {"aws:ResourceTag/hyperpod-teams:team": team.name})  # fmt: skip
    lifecycle = naming.lifecycle_bucket_name("acme", spec.cluster.name, "111122223333", "us-west-2")
    assert allows(policies, "s3:GetObject", f"arn:aws:s3:::{lifecycle}/lifecycle/on_create.sh")
