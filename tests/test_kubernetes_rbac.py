"""Team isolation in Kubernetes, checked on the synthesized RBAC objects: an evaluator of who may
do what where, and the objects as manifests through kubernetes-validate (strict)."""

from __future__ import annotations

import copy

import kubernetes_validate
import pytest

from hyperpod_teams import naming, rbac
from hyperpod_teams.spec import load_spec, validate_spec
from tests.conftest import QUICKSTART, one_block, synthesize_stacks

KINDS = {
    "kubernetes_role_v1": "Role",
    "kubernetes_role_binding_v1": "RoleBinding",
    "kubernetes_cluster_role_v1": "ClusterRole",
    "kubernetes_cluster_role_binding_v1": "ClusterRoleBinding",
}
READ_ONLY = {"get", "list", "watch"}
#: Cluster-scoped resources a team may read; reading them reveals nothing of another namespace.
CLUSTER_READABLE = {
    ("kueue.x-k8s.io", "clusterqueues"),
    ("kueue.x-k8s.io", "resourceflavors"),
    ("kueue.x-k8s.io", "workloadpriorityclasses"),
    ("scheduling.k8s.io", "priorityclasses"),
    ("", "nodes"),
    ("", "nodes/status"),
}
#: Cluster-scoped objects a team may read only by name: its own namespace, the job CRDs.
READABLE_BY_NAME = {("", "namespaces"), ("apiextensions.k8s.io", "customresourcedefinitions")}


def manifest(resource_type: str, body: dict) -> dict:
    """A synthesized Terraform RBAC object, written back as the Kubernetes manifest it creates."""
    result = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": KINDS[resource_type],
        "metadata": one_block(body["metadata"]),
    }
    if "rule" in body:
        result["rules"] = [
            {
                "apiGroups": r["api_groups"],
                "resources": r["resources"],
                "verbs": r["verbs"],
                **({"resourceNames": r["resource_names"]} if r.get("resource_names") else {}),
            }
            for r in body["rule"]
        ]
    if "role_ref" in body:
        ref = body["role_ref"]
        result["roleRef"] = {"apiGroup": ref["api_group"], "kind": ref["kind"], "name": ref["name"]}
        result["subjects"] = [
            {"kind": s["kind"], "name": s["name"], "apiGroup": s["api_group"]} for s in body["subject"]
        ]
    return result


def rbac_manifests(stacks: dict[str, dict]) -> list[dict]:
    return [
        manifest(resource_type, body)
        for stack in stacks.values()
        for resource_type, resources in stack.get("resource", {}).items()
        if resource_type in KINDS
        for body in resources.values()
    ]


def isolation_violations(manifests: list[dict], teams: list[str]) -> list[str]:
    """Every way a subject of one team could act in another team's namespace, or beyond reading."""
    namespace_of = {naming.team_namespace(t): t for t in teams}
    group_of = {naming.team_kubernetes_group(t, role): t for t in teams for role in naming.ROLES}
    roles = {
        (m["metadata"].get("namespace"), m["metadata"]["name"]): m for m in manifests if m["kind"].endswith("Role")
    }
    problems = []
    for m in manifests:
        where = f"{m['kind']} {m['metadata'].get('namespace', '')}/{m['metadata']['name']}"
        for rule in m.get("rules", []):
            for field in ("apiGroups", "resources", "verbs"):
                if "*" in rule[field]:
                    problems.append(f"{where}: wildcard in {field}")
        if not m["kind"].endswith("Binding"):
            continue
        owners = {group_of.get(s["name"], f"unknown group {s['name']}") for s in m["subjects"]}
        if len(owners) != 1:
            problems.append(f"{where}: binds subjects of {sorted(owners)}")
            continue
        (owner,) = owners
        if m["kind"] == "RoleBinding":
            namespace = m["metadata"]["namespace"]
            if namespace_of.get(namespace) != owner:
                problems.append(f"{where}: binds team {owner} in the namespace of {namespace_of.get(namespace)}")
            continue
        role = roles.get((None, m["roleRef"]["name"]))
        problems += _cluster_role_violations(where, owner, role["rules"] if role else [])
    return problems


def _cluster_role_violations(where: str, owner: str, rules: list[dict]) -> list[str]:
    """What a team's ClusterRoleBinding grants beyond reading its own namespace and ClusterQueue,
    and the cluster-wide kinds anyone may read."""
    problems = []
    for rule in rules:
        for api_group in rule["apiGroups"]:
            for resource in rule["resources"]:
                if (api_group, resource) in READABLE_BY_NAME:
                    if not rule.get("resourceNames") or not set(rule["verbs"]) <= {"get"}:
                        problems.append(f"{where}: {api_group}/{resource} beyond get by name")
                    if resource == "namespaces" and rule["resourceNames"] != [naming.team_namespace(owner)]:
                        problems.append(f"{where}: reads namespaces other than its own")
                    continue
                if (api_group, resource) not in CLUSTER_READABLE or not set(rule["verbs"]) <= READ_ONLY:
                    problems.append(f"{where}: cluster-wide {rule['verbs']} on {api_group}/{resource}")
                if resource == "clusterqueues" and rule.get("resourceNames") != [naming.team_cluster_queue(owner)]:
                    problems.append(f"{where}: reads ClusterQueues other than its own")
    return problems


def access_entry_violations(stacks: dict[str, dict], org: str, teams: list[str]) -> list[str]:
    """Every EKS access entry of a team stack must map its principal to that team's groups only;
    the team's Studio execution role, to the scientists' group only."""
    problems = []
    for team in teams:
        stack = stacks[naming.team_stack_name(org, team)]
        own = {naming.team_kubernetes_group(team, role) for role in naming.ROLES}
        roles = stack["resource"].get("aws_iam_role", {})
        execution_roles = {
            f"${{aws_iam_role.{key}.arn}}"
            for key, role in roles.items()
            if role["name"] == naming.team_execution_role_name(org, team)
        }
        for key, entry in stack["resource"].get("aws_eks_access_entry", {}).items():
            groups = set(entry.get("kubernetes_groups", []))
            if not groups <= own:
                problems.append(f"{team}: access entry {key} maps to {sorted(groups - own)}")
            if entry["principal_arn"] in execution_roles and groups != {
                naming.team_kubernetes_group(team, "scientists")
            }:
                problems.append(f"{team}: the Studio execution role maps to {sorted(groups)}")
    return problems


def test_every_access_entry_of_a_team_reaches_only_that_teams_groups(quickstart_stacks):
    teams = [t.name for t in load_spec(QUICKSTART).teams]
    assert access_entry_violations(quickstart_stacks, "acme", teams) == []


def test_the_evaluator_catches_a_studio_role_mapped_to_another_team(quickstart_stacks):
    stacks = copy.deepcopy(quickstart_stacks)
    entries = stacks["acme-team-nlp"]["resource"]["aws_eks_access_entry"]
    (studio,) = [e for key, e in entries.items() if "studio-access" in key]
    studio["kubernetes_groups"] = [naming.team_kubernetes_group("vision", "scientists")]
    problems = access_entry_violations(stacks, "acme", ["nlp", "vision", "research"])
    assert any("maps to ['hyperpod-ns-vision-namespace-level-group']" in p for p in problems)


def test_studio_execution_role_reaches_the_team_namespace_as_a_scientist(quickstart_stacks):
    stack = quickstart_stacks["acme-team-nlp"]
    (role_key,) = [k for k, r in stack["resource"]["aws_iam_role"].items() if r["name"] == "acme-nlp-execution"]
    (entry,) = [
        e
        for e in stack["resource"]["aws_eks_access_entry"].values()
        if e["principal_arn"] == f"${{aws_iam_role.{role_key}.arn}}"
    ]
    assert entry["kubernetes_groups"] == ["hyperpod-ns-nlp-namespace-level-group"]
    views = [
        a
        for a in stack["resource"]["aws_eks_access_policy_association"].values()
        if a["principal_arn"].startswith("${aws_eks_access_entry.") and "studio-access" in a["principal_arn"]
    ]
    assert [(v["policy_arn"].rsplit("/", 1)[1], v["access_scope"]) for v in views] == [
        ("AmazonEKSViewPolicy", {"type": "namespace", "namespaces": ["hyperpod-ns-nlp"]})
    ]


@pytest.fixture(scope="module")
def quickstart_rbac(quickstart_stacks) -> list[dict]:
    return rbac_manifests(quickstart_stacks)


def test_no_team_can_act_in_another_teams_namespace(quickstart_rbac):
    teams = [t.name for t in load_spec(QUICKSTART).teams]
    assert len(quickstart_rbac) == 6 * len(teams)
    assert isolation_violations(quickstart_rbac, teams) == []


def test_the_evaluator_catches_a_binding_into_another_namespace(quickstart_rbac):
    teams = ["nlp", "vision", "research"]
    (binding,) = [
        m
        for m in quickstart_rbac
        if m["kind"] == "RoleBinding"
        and m["metadata"]["namespace"] == "hyperpod-ns-vision"
        and m["metadata"]["name"] == "hyperpod-teams-scientists"
    ]
    leaked = copy.deepcopy(binding)
    leaked["subjects"] = [
        {"kind": "Group", "name": naming.team_kubernetes_group("nlp", "scientists"), "apiGroup": rbac.RBAC_API_GROUP}
    ]
    assert any(
        "binds team nlp in the namespace of vision" in p
        for p in isolation_violations([*quickstart_rbac, leaked], teams)
    )


def test_the_evaluator_catches_wildcards_and_cluster_wide_writes(quickstart_rbac):
    broad = copy.deepcopy([m for m in quickstart_rbac if m["kind"] == "ClusterRole"][0])
    broad["rules"].append({"apiGroups": [""], "resources": ["pods"], "verbs": ["*"]})
    others = [
        m for m in quickstart_rbac if m["metadata"]["name"] != broad["metadata"]["name"] or m["kind"] != "ClusterRole"
    ]
    problems = isolation_violations([*others, broad], ["nlp", "vision", "research"])
    assert any("wildcard in verbs" in p for p in problems) and any("cluster-wide" in p for p in problems)


def test_scientists_and_admins_get_their_own_groups_in_the_team_namespace(quickstart_rbac):
    bindings = {
        (m["metadata"]["namespace"], m["roleRef"]["name"]): [s["name"] for s in m["subjects"]]
        for m in quickstart_rbac
        if m["kind"] == "RoleBinding"
    }
    assert bindings[("hyperpod-ns-nlp", "hyperpod-teams-scientists")] == ["hyperpod-ns-nlp-namespace-level-group"]
    assert bindings[("hyperpod-ns-nlp", "hyperpod-teams-admins")] == ["hyperpod-ns-nlp-namespace-admin-group"]


def test_scientists_run_training_but_only_admins_exec_into_pods(quickstart_rbac):
    def rules(role: str) -> dict[str, set[str]]:
        (found,) = [
            m
            for m in quickstart_rbac
            if m["kind"] == "Role" and m["metadata"]["namespace"] == "hyperpod-ns-nlp" and m["metadata"]["name"] == role
        ]
        return {res: set(r["verbs"]) for r in found["rules"] for res in r["resources"]}

    scientists, admins = rules("hyperpod-teams-scientists"), rules("hyperpod-teams-admins")
    assert {"create", "delete", "get"} <= scientists["pytorchjobs"] and "create" in scientists["pods"]
    assert "pods/exec" not in scientists and admins["pods/exec"] == {"get", "create"}
    assert "delete" in admins["workloads"] and scientists["workloads"] == {"get", "list", "watch"}


def test_rbac_objects_pass_kubernetes_validate_strict(quickstart_rbac):
    version = load_spec(QUICKSTART).cluster.eks.kubernetes_version
    for m in quickstart_rbac:
        kubernetes_validate.validate(m, f"{version}.0", strict=True)


def test_without_task_governance_rbac_waits_for_the_namespace(quickstart_data, tmp_path):
    quickstart_data["cluster"]["task_governance"] = {"enabled": False}
    stack = synthesize_stacks(validate_spec(quickstart_data), tmp_path)["acme-k8s-nlp"]
    for body in stack["resource"]["kubernetes_role_binding_v1"].values():
        assert body["depends_on"] == ["kubernetes_namespace_v1.namespace"]


# --- the team's queue: admission ------------------------------------------------------------------


def admission_manifests(stacks: dict[str, dict]) -> list[dict]:
    """The admission objects the Kubernetes stacks deploy (kubernetes_manifest), as written."""
    return [
        body["manifest"]
        for stack in stacks.values()
        for body in stack.get("resource", {}).get("kubernetes_manifest", {}).values()
        if body["manifest"]["apiVersion"].startswith("admissionregistration.k8s.io/")
    ]


def test_each_team_namespace_gets_its_queue_policy_and_binding_and_they_pass_kubernetes_validate_strict(
    quickstart_stacks,
):
    version = load_spec(QUICKSTART).cluster.eks.kubernetes_version
    manifests = admission_manifests(quickstart_stacks)
    kinds = sorted((m["kind"], m["metadata"]["name"]) for m in manifests)
    assert kinds == sorted(
        (kind, f"hyperpod-ns-{team}-{policy}")
        for team in ("nlp", "vision", "research")
        for policy in ("queue-label", "pods")
        for kind in ("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")
    )
    for m in manifests:
        kubernetes_validate.validate(m, f"{version}.0", strict=True)


def test_without_task_governance_there_is_no_queue_to_hold_a_team_to(quickstart_data, tmp_path):
    quickstart_data["cluster"]["task_governance"] = {"enabled": False}
    stacks = synthesize_stacks(validate_spec(quickstart_data), tmp_path)
    # The pods of the namespace are still decided (hyperpod_teams.isolation); no queue is held.
    assert sorted({m["metadata"]["name"] for m in admission_manifests(stacks)}) == [
        f"hyperpod-ns-{team}-pods" for team in ("nlp", "research", "vision")
    ]
