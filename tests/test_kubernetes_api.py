"""The journey tier's Kubernetes API (tests/emulator/kubernetes_api.py) reads requests and decides
them as the Kubernetes API server does: checked against Kubernetes' own test cases and rules."""

from __future__ import annotations

import pytest

from tests.emulator.kubernetes_api import Rbac, User, forbidden_message, request_info, rule_allows

# kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo_test.go,
# TestGetAPIRequestInfo's success cases: method, url, verb, API group, version, namespace,
# resource, subresource, name, parts. (Its case "PATCH /api/v1/namespaces/new-namespace" is left
# out: the release read here puts the namespace's own name in Namespace, as a GET does.)
SUCCESS_CASES = [
    ("GET", "/api/v1/namespaces", "list", "", "v1", "", "namespaces", "", "", ["namespaces"]),
    ("GET", "/api/v1/namespaces/other", "get", "", "v1", "other", "namespaces", "", "other", ["namespaces", "other"]),
    ("GET", "/api/v1/namespaces/other/pods", "list", "", "v1", "other", "pods", "", "", ["pods"]),
    ("GET", "/api/v1/namespaces/other/pods/foo", "get", "", "v1", "other", "pods", "", "foo", ["pods", "foo"]),
    ("HEAD", "/api/v1/namespaces/other/pods/foo", "get", "", "v1", "other", "pods", "", "foo", ["pods", "foo"]),
    ("GET", "/api/v1/pods", "list", "", "v1", "", "pods", "", "", ["pods"]),
    ("HEAD", "/api/v1/pods", "list", "", "v1", "", "pods", "", "", ["pods"]),
    ("GET", "/api/v1/proxy/namespaces/other/pods/foo", "proxy", "", "v1", "other", "pods", "", "foo", ["pods", "foo"]),
    ("GET", "/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource", "proxy", "", "v1", "other", "pods",
     "", "foo", ["pods", "foo", "subpath", "not", "a", "subresource"]),
    ("GET", "/api/v1/watch/pods", "watch", "", "v1", "", "pods", "", "", ["pods"]),
    ("GET", "/api/v1/pods?watch=true", "watch", "", "v1", "", "pods", "", "", ["pods"]),
    ("GET", "/api/v1/pods?watch=false", "list", "", "v1", "", "pods", "", "", ["pods"]),
    ("GET", "/api/v1/watch/namespaces/other/pods", "watch", "", "v1", "other", "pods", "", "", ["pods"]),
    ("GET", "/api/v1/namespaces/other/pods?watch=1", "watch", "", "v1", "other", "pods", "", "", ["pods"]),
    ("GET", "/api/v1/namespaces/other/pods?watch=0", "list", "", "v1", "other", "pods", "", "", ["pods"]),
    ("GET", "/api/v1/namespaces/other/pods/foo/status", "get", "", "v1", "other", "pods", "status", "foo",
     ["pods", "foo", "status"]),
    ("GET", "/api/v1/namespaces/other/pods/foo/proxy/subpath", "get", "", "v1", "other", "pods", "proxy", "foo",
     ["pods", "foo", "proxy", "subpath"]),
    ("PUT", "/api/v1/namespaces/other/finalize", "update", "", "v1", "other", "namespaces", "finalize", "other",
     ["namespaces", "other", "finalize"]),
    ("PUT", "/api/v1/namespaces/other/status", "update", "", "v1", "other", "namespaces", "status", "other",
     ["namespaces", "other", "status"]),
    ("PATCH", "/api/v1/namespaces/other/pods/foo", "patch", "", "v1", "other", "pods", "", "foo", ["pods", "foo"]),
    ("DELETE", "/api/v1/namespaces/other/pods/foo", "delete", "", "v1", "other", "pods", "", "foo", ["pods", "foo"]),
    ("POST", "/api/v1/namespaces/other/pods", "create", "", "v1", "other", "pods", "", "", ["pods"]),
    ("DELETE", "/api/v1/nodes", "deletecollection", "", "v1", "", "nodes", "", "", ["nodes"]),
    ("DELETE", "/api/v1/namespaces", "deletecollection", "", "v1", "", "namespaces", "", "", ["namespaces"]),
    ("DELETE", "/api/v1/namespaces/other/pods", "deletecollection", "", "v1", "other", "pods", "", "", ["pods"]),
    ("DELETE", "/apis/extensions/v1/namespaces/other/pods", "deletecollection", "extensions", "v1", "other", "pods",
     "", "", ["pods"]),
    ("POST", "/apis/extensions/v1/namespaces/other/pods", "create", "extensions", "v1", "other", "pods", "", "",
     ["pods"]),
    ("POST", "/apis/extensions/v1beta3/namespaces/other/pods", "create", "extensions", "v1beta3", "other", "pods", "",
     "", ["pods"]),
    # TestFieldSelectorParsing: a list or watch of one object by name names it.
    ("GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1", "list", "group", "version", "",
     "resource", "", "name1", ["resource"]),
    ("GET", "/apis/group/version/resource?watch=true&fieldSelector=metadata.name=name1", "watch", "group", "version",
     "", "resource", "", "name1", ["resource"]),
]  # fmt: skip


@pytest.mark.parametrize("case", SUCCESS_CASES, ids=lambda c: f"{c[0]} {c[1]}")
def test_a_request_is_read_as_the_api_server_reads_it(case):
    method, url, verb, group, version, namespace, resource, subresource, name, parts = case
    info = request_info(method, url)
    assert info.is_resource_request
    assert (info.verb, info.api_group, info.api_version, info.namespace) == (verb, group, version, namespace)
    assert (info.resource, info.subresource, info.name, info.parts) == (resource, subresource, name, parts)


@pytest.mark.parametrize(
    ("url", "resource_request"),
    [
        # TestGetNonAPIRequestInfo
        ("/api/version/resource", True),
        ("/apis/group/version/resource/name/subresource", True),
        ("/api/version/resource/name/subresource", True),
        ("/apis/batch/v1/job", True),
        ("/apis/batch/v1/job/foo", True),
        ("/apis/batch/v1/job/foo/scale", True),
        ("/not-api/version/resource", False),
        ("/apis/extensions/v1beta1", False),
        ("/apis/extensions/v1beta1/", False),
        ("/api/version", False),
        ("/api", False),
        ("/", False),
        ("", False),
    ],
)
def test_a_path_outside_the_resources_is_a_non_resource_request(url, resource_request):
    assert request_info("GET", url).is_resource_request == resource_request


def info(method: str, url: str):
    return request_info(method, url)


ALICE = User("alice", ("team-a", "system:authenticated"))


def test_a_rule_matches_verb_group_resource_and_name_as_kubernetes_does():
    """pkg/apis/rbac/v1/evaluation_helpers.go: `*` matches any verb, group or resource; a
    `*/<subresource>` rule matches that subresource of any resource; resourceNames hold a rule to
    those names (a list, which names nothing, is then refused)."""
    rule = {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}
    assert rule_allows(info("GET", "/api/v1/namespaces/a/pods/x"), rule)
    assert not rule_allows(info("GET", "/api/v1/namespaces/a/pods/x/log"), rule)  # a subresource is its own
    assert not rule_allows(info("DELETE", "/api/v1/namespaces/a/pods/x"), rule)
    assert not rule_allows(info("GET", "/apis/apps/v1/namespaces/a/pods/x"), rule)
    assert rule_allows(
        info("GET", "/apis/apps/v1/namespaces/a/deployments/x/scale"),
        {**rule, "apiGroups": ["*"], "resources": ["*/scale"]},
    )
    assert not rule_allows(
        info("GET", "/apis/apps/v1/namespaces/a/deployments/x"), {**rule, "apiGroups": ["*"], "resources": ["*/scale"]}
    )
    named = {**rule, "resourceNames": ["x"]}
    assert rule_allows(info("GET", "/api/v1/namespaces/a/pods/x"), named)
    assert not rule_allows(info("GET", "/api/v1/namespaces/a/pods/y"), named)
    assert not rule_allows(info("GET", "/api/v1/namespaces/a/pods"), named)
    assert rule_allows(info("GET", "/api/v1/namespaces/a/pods/y"), {**rule, "verbs": ["*"]})
    urls = {"nonResourceURLs": ["/healthz", "/apis/*"], "verbs": ["get"]}
    assert rule_allows(info("GET", "/healthz"), urls) and rule_allows(info("GET", "/apis/batch"), urls)
    assert not rule_allows(info("GET", "/metrics"), urls)


def role(kind: str, name: str, rules: list, namespace: str | None = None, **extra) -> dict:
    metadata = {"name": name, **({"namespace": namespace} if namespace else {}), **extra.pop("metadata", {})}
    return {"kind": kind, "metadata": metadata, "rules": rules, **extra}


def binding(kind: str, name: str, ref_kind: str, ref: str, subjects: list, namespace: str | None = None) -> dict:
    return {
        "kind": kind,
        "metadata": {"name": name, **({"namespace": namespace} if namespace else {})},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": ref_kind, "name": ref},
        "subjects": subjects,
    }


PODS = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}]
TEAM_A = [{"kind": "Group", "name": "team-a"}]


def test_a_role_binding_grants_in_its_own_namespace_and_a_cluster_role_binding_everywhere():
    """The rule resolver (pkg/registry/rbac/validation/rule.go): ClusterRoleBindings apply to every
    namespace and the cluster scope; a RoleBinding, to a ClusterRole too, only in its namespace."""
    in_a = Rbac([role("ClusterRole", "pods", PODS), binding("RoleBinding", "b", "ClusterRole", "pods", TEAM_A, "a")])
    assert in_a.authorize(ALICE, info("GET", "/api/v1/namespaces/a/pods"))[0]
    assert not in_a.authorize(ALICE, info("GET", "/api/v1/namespaces/b/pods"))[0]
    assert not in_a.authorize(ALICE, info("GET", "/api/v1/pods"))[0]
    everywhere = Rbac(
        [role("ClusterRole", "pods", PODS), binding("ClusterRoleBinding", "b", "ClusterRole", "pods", TEAM_A)]
    )
    assert everywhere.authorize(ALICE, info("GET", "/api/v1/namespaces/b/pods"))[0]
    assert everywhere.authorize(ALICE, info("GET", "/api/v1/pods"))[0]
    other_group = Rbac(
        [
            role("ClusterRole", "pods", PODS),
            binding("ClusterRoleBinding", "b", "ClusterRole", "pods", [{"kind": "Group", "name": "team-b"}]),
        ]
    )
    assert not other_group.authorize(ALICE, info("GET", "/api/v1/pods"))[0]


def test_a_role_of_another_namespace_grants_nothing_and_a_service_account_subject_defaults_to_the_bindings_namespace():
    rbac = Rbac([
        role("Role", "pods", PODS, "b"),
        binding("RoleBinding", "b", "Role", "pods", TEAM_A, "a"),  # names a Role of a, which does not exist
        role("Role", "pods", PODS, "c"),
        binding("RoleBinding", "sa", "Role", "pods", [{"kind": "ServiceAccount", "name": "runner"}], "c"),
    ])  # fmt: skip
    assert not rbac.authorize(ALICE, info("GET", "/api/v1/namespaces/a/pods"))[0]
    assert not rbac.authorize(ALICE, info("GET", "/api/v1/namespaces/b/pods"))[0]
    runner = User("system:serviceaccount:c:runner", ("system:serviceaccounts", "system:authenticated"))
    assert rbac.authorize(runner, info("GET", "/api/v1/namespaces/c/pods"))[0]


def test_an_aggregated_cluster_role_holds_the_rules_of_the_roles_its_selectors_match():
    rbac = Rbac([
        role("ClusterRole", "view-pods", PODS, metadata={"labels": {"aggregate-to-team": "true"}}),
        role("ClusterRole", "other", [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}]),
        role("ClusterRole", "team", [],
             aggregationRule={"clusterRoleSelectors": [{"matchLabels": {"aggregate-to-team": "true"}}]}),
        binding("ClusterRoleBinding", "b", "ClusterRole", "team", TEAM_A),
    ])  # fmt: skip
    assert rbac.authorize(ALICE, info("GET", "/api/v1/namespaces/a/pods"))[0]
    assert not rbac.authorize(ALICE, info("GET", "/api/v1/namespaces/a/secrets/s"))[0]


def test_every_authenticated_user_may_discover_the_api_and_nothing_more():
    rbac = Rbac([])
    assert rbac.authorize(ALICE, info("GET", "/version"))[0]
    assert rbac.authorize(ALICE, info("GET", "/apis/batch/v1"))[0]
    assert rbac.authorize(ALICE, info("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"))[0]
    assert not rbac.authorize(ALICE, info("GET", "/api/v1/namespaces"))[0]
    anonymous = User("system:anonymous", ("system:unauthenticated",))
    assert not rbac.authorize(anonymous, info("GET", "/apis/batch/v1"))[0]


def test_a_refusal_reads_as_the_api_servers():
    message = forbidden_message(ALICE, info("GET", "/api/v1/namespaces/b/pods"))
    assert message == 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "b"'


def test_the_team_rbac_as_deployed_lets_a_team_run_its_job_week_and_nothing_in_another_namespace(quickstart_stacks):
    """The quickstart's RBAC (read back from its Kubernetes stacks): each request of a PyTorch job's
    week with `hyp`, by path as the CLI sends it, allowed for nlp's roles in nlp's namespace and
    refused in vision's; without the Role's create rule, the submission is refused."""
    import copy

    from hyperpod_teams import naming
    from hyperpod_teams.addons import TRAINING_JOB_CRD
    from tests.test_kubernetes_rbac import rbac_manifests

    manifests = rbac_manifests(quickstart_stacks)

    def week(ns: str) -> list[tuple[str, str]]:
        jobs = f"/apis/sagemaker.amazonaws.com/v1/namespaces/{ns}/hyperpodpytorchjobs"
        return [
            ("GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{TRAINING_JOB_CRD}"),
            ("POST", jobs), ("GET", f"/api/v1/namespaces/{ns}"), ("GET", jobs), ("GET", f"{jobs}/bert"),
            ("GET", f"/api/v1/namespaces/{ns}/pods?labelSelector=HPJob%3Dbert"),
            ("GET", f"/api/v1/namespaces/{ns}/pods/bert-pod-0/log"), ("DELETE", f"{jobs}/bert"),
        ]  # fmt: skip

    for role_name in naming.ROLES:
        member = User("m", (naming.team_kubernetes_group("nlp", role_name), "system:authenticated"))
        rbac = Rbac(manifests)
        assert [r for r in week("hyperpod-ns-nlp") if not rbac.authorize(member, info(*r))[0]] == []
        theirs = [r for r in week("hyperpod-ns-vision") if "customresourcedefinitions" not in r[1]]
        assert [r for r in theirs if rbac.authorize(member, info(*r))[0]] == []
    without = copy.deepcopy(manifests)
    for m in without:
        for rule in m.get("rules", []):
            if "hyperpodpytorchjobs" in rule.get("resources", []):
                rule["verbs"] = [v for v in rule["verbs"] if v != "create"]
    scientist = User("m", (naming.team_kubernetes_group("nlp", "scientists"), "system:authenticated"))
    refused = [r for r in week("hyperpod-ns-nlp") if not Rbac(without).authorize(scientist, info(*r))[0]]
    assert refused == [("POST", "/apis/sagemaker.amazonaws.com/v1/namespaces/hyperpod-ns-nlp/hyperpodpytorchjobs")]


# --- admission: the team's queue ----------------------------------------------------------------------


def test_the_queue_policy_as_deployed_refuses_a_members_job_without_the_teams_queue_and_any_bare_pod(
    quickstart_stacks,
):
    """The ValidatingAdmissionPolicies read back from the quickstart's Kubernetes stacks, their CEL
    evaluated by cel-python: a member's job carries the team's LocalQueue label or is refused (no
    label, another team's queue); a member's bare pod is refused; the same requests by a controller
    (the operator creating a job's pods) and in a namespace the binding does not select pass."""
    from hyperpod_teams import naming
    from tests.emulator.kubernetes_api import Admission
    from tests.test_kubernetes_rbac import admission_manifests

    admission = Admission(admission_manifests(quickstart_stacks))
    member = User("alice", (naming.team_kubernetes_group("nlp", "scientists"), "system:authenticated"))
    operator = User("system:serviceaccount:aws-hyperpod:hp-training-operator", ("system:serviceaccounts",))
    jobs = "/apis/sagemaker.amazonaws.com/v1/namespaces/hyperpod-ns-nlp/hyperpodpytorchjobs"

    def job(labels: dict | None) -> dict:
        return {"metadata": {"name": "bert", **({"labels": labels} if labels is not None else {})}}

    queue = {"kueue.x-k8s.io/queue-name": "hyperpod-ns-nlp-localqueue"}
    assert admission.review(member, info("POST", jobs), job(queue)) is None
    for labels in (None, {}, {"kueue.x-k8s.io/queue-name": "hyperpod-ns-vision-localqueue"}):
        refusal = admission.review(member, info("POST", jobs), job(labels))
        assert refusal is not None and "hyperpod-ns-nlp-localqueue" in refusal, labels
    assert admission.review(member, info("PUT", f"{jobs}/bert"), job(None)) is not None  # the label taken off
    batch = "/apis/batch/v1/namespaces/hyperpod-ns-nlp/jobs"
    assert admission.review(member, info("POST", batch), job(None)) is not None
    assert admission.review(member, info("POST", batch), job(queue)) is None
    pods = "/api/v1/namespaces/hyperpod-ns-nlp/pods"
    assert "bare pods" in (admission.review(member, info("POST", pods), job(queue)) or "")
    pod = {"metadata": {"name": "bert-pod-0"}, "spec": {"containers": [{"name": "pytorch", "image": "pytorch"}]}}
    assert admission.review(operator, info("POST", pods), pod) is None
    assert admission.review(operator, info("POST", jobs), job(None)) is None
    # Delete and reads are not admission's; another namespace is not this binding's.
    assert admission.review(member, info("DELETE", f"{jobs}/bert"), {}) is None
    vision = User("bob", (naming.team_kubernetes_group("vision", "scientists"), "system:authenticated"))
    refusal = admission.review(vision, info("POST", jobs.replace("nlp", "vision")), job(queue))
    assert refusal is not None and "hyperpod-ns-vision-localqueue" in refusal


def test_without_the_policy_a_job_without_a_queue_is_admitted():
    """What the policy guards against: with no policy, the same request passes admission."""
    from hyperpod_teams import naming
    from tests.emulator.kubernetes_api import Admission

    member = User("alice", (naming.team_kubernetes_group("nlp", "scientists"), "system:authenticated"))
    request = info("POST", "/apis/sagemaker.amazonaws.com/v1/namespaces/hyperpod-ns-nlp/hyperpodpytorchjobs")
    assert Admission([]).review(member, request, {"metadata": {"name": "bert"}}) is None
