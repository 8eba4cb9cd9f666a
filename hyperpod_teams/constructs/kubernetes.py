"""Kubernetes objects of one team, rendered from the pure manifests of `hyperpod_teams.rbac`."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import bindings, rbac


def _rules(module, rule_class: str, manifest: dict) -> list:
    make = getattr(module, rule_class)
    return [
        make(
            api_groups=rule["apiGroups"],
            resources=rule["resources"],
            verbs=rule["verbs"],
            resource_names=rule.get("resourceNames"),
        )
        for rule in manifest["rules"]
    ]


class TeamRbac(Construct):
    """The team's Roles and RoleBindings in its namespace, and its read-only ClusterRole."""

    def __init__(self, scope: Construct, id_: str, *, team: str, depends_on: list | None = None) -> None:
        super().__init__(scope, id_)
        self.objects = []
        for manifest in rbac.team_rbac_manifests(team):
            kind, metadata = manifest["kind"], manifest["metadata"]
            construct_id = f"{kind}-{metadata['name']}".lower()
            if kind == "Role":
                module = bindings.kubernetes_role
                obj = module.RoleV1(
                    self,
                    construct_id,
                    metadata=module.RoleV1Metadata(**metadata),
                    rule=_rules(module, "RoleV1Rule", manifest),
                    depends_on=depends_on,
                )
            elif kind == "ClusterRole":
                module = bindings.kubernetes_cluster_role
                obj = module.ClusterRoleV1(
                    self,
                    construct_id,
                    metadata=module.ClusterRoleV1Metadata(**metadata),
                    rule=_rules(module, "ClusterRoleV1Rule", manifest),
                )
            elif kind == "RoleBinding":
                module = bindings.kubernetes_role_binding
                obj = module.RoleBindingV1(
                    self,
                    construct_id,
                    metadata=module.RoleBindingV1Metadata(**metadata),
                    role_ref=module.RoleBindingV1RoleRef(
                        api_group=manifest["roleRef"]["apiGroup"],
                        kind=manifest["roleRef"]["kind"],
                        name=manifest["roleRef"]["name"],
                    ),
                    subject=[
                        module.RoleBindingV1Subject(kind=s["kind"], name=s["name"], api_group=s["apiGroup"])
                        for s in manifest["subjects"]
                    ],
                    depends_on=depends_on,
                )
            elif kind == "ClusterRoleBinding":
                module = bindings.kubernetes_cluster_role_binding
                obj = module.ClusterRoleBindingV1(
                    self,
                    construct_id,
                    metadata=module.ClusterRoleBindingV1Metadata(**metadata),
                    role_ref=module.ClusterRoleBindingV1RoleRef(
                        api_group=manifest["roleRef"]["apiGroup"],
                        kind=manifest["roleRef"]["kind"],
                        name=manifest["roleRef"]["name"],
                    ),
                    subject=[
                        module.ClusterRoleBindingV1Subject(kind=s["kind"], name=s["name"], api_group=s["apiGroup"])
                        for s in manifest["subjects"]
                    ],
                )
            else:  # pragma: no cover - rbac.py makes no other kind
                raise ValueError(f"unexpected kind {kind}")
            self.objects.append(obj)
