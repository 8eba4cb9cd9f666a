"""Kubernetes RBAC of one team, as plain manifests: what scientists and admins may do in the
team namespace, and the little they may read cluster-wide. Pure layer: no cdktf; the constructs
render these, the report reads them.

Conventions follow HyperPod's: members reach the cluster through EKS access entries that map
their Identity Center role to a Kubernetes group per role (`naming.team_kubernetes_group`).
No rule uses a wildcard verb, resource or API group, and nothing cluster-wide lets a team act
outside its namespace.
"""

from __future__ import annotations

from dataclasses import dataclass

from hyperpod_teams import naming

RBAC_API_GROUP = "rbac.authorization.k8s.io"
MANAGED_BY = {"app.kubernetes.io/managed-by": "hyperpod-teams"}

READ = ("get", "list", "watch")
RUN = ("create", "delete")
CHANGE = ("update", "patch")


@dataclass(frozen=True)
class Rule:
    api_groups: tuple[str, ...]
    resources: tuple[str, ...]
    verbs: tuple[str, ...]
    resource_names: tuple[str, ...] = ()

    def manifest(self) -> dict:
        rule = {"apiGroups": list(self.api_groups), "resources": list(self.resources), "verbs": list(self.verbs)}
        if self.resource_names:
            rule["resourceNames"] = list(self.resource_names)
        return rule


#: Scientists run and watch their training: pods and logs, jobs, PyTorchJobs, Kueue workloads.
SCIENTIST_RULES = (
    Rule(("",), ("pods",), READ + RUN),
    Rule(("",), ("pods/log",), READ),
    Rule(("",), ("events", "services", "configmaps"), READ),
    Rule(("batch",), ("jobs",), READ + RUN),
    Rule(("kubeflow.org",), ("pytorchjobs",), READ + RUN + CHANGE),
    Rule(("kubeflow.org",), ("pytorchjobs/status",), READ),
    Rule(("kueue.x-k8s.io",), ("workloads", "localqueues"), READ),
)

#: Admins manage the namespace's workloads on top: any member's jobs and their configuration.
ADMIN_RULES = (
    Rule(("",), ("pods",), READ + RUN),
    Rule(("",), ("pods/log",), READ),
    Rule(("",), ("pods/exec",), ("create",)),
    Rule(("",), ("events", "services"), READ),
    Rule(("",), ("configmaps", "secrets"), READ + RUN + CHANGE),
    Rule(("batch",), ("jobs",), READ + RUN + CHANGE),
    Rule(("kubeflow.org",), ("pytorchjobs",), READ + RUN + CHANGE),
    Rule(("kubeflow.org",), ("pytorchjobs/status",), READ),
    Rule(("kueue.x-k8s.io",), ("workloads",), READ + ("delete",) + CHANGE),
    Rule(("kueue.x-k8s.io",), ("localqueues",), READ),
)


def cluster_read_rules(team: str) -> tuple[Rule, ...]:
    """Cluster-wide reads: the team's own ClusterQueue only, priority classes, nodes."""
    return (
        Rule(("kueue.x-k8s.io",), ("clusterqueues",), ("get", "watch"), (naming.team_cluster_queue(team),)),
        Rule(("scheduling.k8s.io",), ("priorityclasses",), READ),
        Rule(("",), ("nodes",), READ),
    )


def team_labels(team: str) -> dict[str, str]:
    """Labels of every Kubernetes object the project creates for a team."""
    return {**MANAGED_BY, "hyperpod-teams/team": team}


def _metadata(name: str, team: str, namespace: str | None = None) -> dict:
    metadata = {"name": name, "labels": team_labels(team)}
    if namespace:
        metadata["namespace"] = namespace
    return metadata


def _group(name: str) -> dict:
    return {"kind": "Group", "name": name, "apiGroup": RBAC_API_GROUP}


def team_rbac_manifests(team: str) -> list[dict]:
    """The team's Roles, RoleBindings, ClusterRole and ClusterRoleBinding, as Kubernetes manifests."""
    namespace = naming.team_namespace(team)
    manifests: list[dict] = []
    for role, rules in (("scientists", SCIENTIST_RULES), ("admins", ADMIN_RULES)):
        name = naming.team_kubernetes_role(role)
        manifests.append(
            {
                "apiVersion": f"{RBAC_API_GROUP}/v1",
                "kind": "Role",
                "metadata": _metadata(name, team, namespace),
                "rules": [rule.manifest() for rule in rules],
            }
        )
        manifests.append(
            {
                "apiVersion": f"{RBAC_API_GROUP}/v1",
                "kind": "RoleBinding",
                "metadata": _metadata(name, team, namespace),
                "roleRef": {"apiGroup": RBAC_API_GROUP, "kind": "Role", "name": name},
                "subjects": [_group(naming.team_kubernetes_group(team, role))],
            }
        )
    cluster_role = naming.team_cluster_role(team)
    manifests.append(
        {
            "apiVersion": f"{RBAC_API_GROUP}/v1",
            "kind": "ClusterRole",
            "metadata": _metadata(cluster_role, team),
            "rules": [rule.manifest() for rule in cluster_read_rules(team)],
        }
    )
    manifests.append(
        {
            "apiVersion": f"{RBAC_API_GROUP}/v1",
            "kind": "ClusterRoleBinding",
            "metadata": _metadata(cluster_role, team),
            "roleRef": {"apiGroup": RBAC_API_GROUP, "kind": "ClusterRole", "name": cluster_role},
            "subjects": [_group(naming.team_kubernetes_group(team, role)) for role in naming.ROLES],
        }
    )
    return manifests
