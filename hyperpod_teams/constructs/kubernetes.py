"""Kubernetes objects of one team, rendered from the pure manifests of `hyperpod_teams.rbac`."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import bindings, rbac

#: Manifest kind -> (bindings module, class name prefix of the provider's `*_v1` resource).
RESOURCES = {
    "Role": ("kubernetes_role", "RoleV1"),
    "RoleBinding": ("kubernetes_role_binding", "RoleBindingV1"),
    "ClusterRole": ("kubernetes_cluster_role", "ClusterRoleV1"),
    "ClusterRoleBinding": ("kubernetes_cluster_role_binding", "ClusterRoleBindingV1"),
}


class TeamRbac(Construct):
    """The team's Roles and RoleBindings in its namespace, and its read-only ClusterRole.

    `depends_on` orders the namespaced objects after the namespace when this stack creates it.
    """

    def __init__(
        self,
        scope: Construct,
        id_: str,
        *,
        team: str,
        depends_on: list | None = None,
        inference: bool = False,
        spaces: bool = False,
    ) -> None:
        super().__init__(scope, id_)
        self.objects = []
        for manifest in rbac.team_rbac_manifests(team, inference=inference, spaces=spaces):
            module_name, prefix = RESOURCES[manifest["kind"]]
            module = getattr(bindings, module_name)

            def struct(suffix: str, module=module, prefix=prefix, **fields):
                return getattr(module, f"{prefix}{suffix}")(**fields)

            metadata = manifest["metadata"]
            arguments: dict = {"metadata": bindings.block(module_name, "metadata", struct("Metadata", **metadata))}
            if "rules" in manifest:
                arguments["rule"] = [
                    struct(
                        "Rule",
                        api_groups=rule["apiGroups"],
                        resources=rule["resources"],
                        verbs=rule["verbs"],
                        resource_names=rule.get("resourceNames"),
                    )
                    for rule in manifest["rules"]
                ]
            if "roleRef" in manifest:
                ref = manifest["roleRef"]
                arguments["role_ref"] = struct("RoleRef", api_group=ref["apiGroup"], kind=ref["kind"], name=ref["name"])
                arguments["subject"] = [
                    struct("Subject", kind=s["kind"], name=s["name"], api_group=s["apiGroup"])
                    for s in manifest["subjects"]
                ]
            if "namespace" in metadata:
                arguments["depends_on"] = depends_on
            construct_id = f"{manifest['kind']}-{metadata['name']}".lower()
            self.objects.append(getattr(module, prefix)(self, construct_id, **arguments))


class TeamAdmission(Construct):
    """The admission policy that holds the team's members to their queue
    (`rbac.queue_label_policy_manifests`), as `kubernetes_manifest` objects: the provider's typed
    resources have no ValidatingAdmissionPolicyBinding."""

    def __init__(
        self,
        scope: Construct,
        id_: str,
        *,
        team: str,
        endpoint_prefix: str | None = None,
        model_bucket: str | None = None,
        spaces: bool = False,
    ) -> None:
        super().__init__(scope, id_)
        self.objects = []
        previous = None
        manifests = rbac.queue_label_policy_manifests(
            team, endpoint_prefix=endpoint_prefix, model_bucket=model_bucket, spaces=spaces
        )
        for manifest in manifests:
            self.objects.append(
                bindings.kubernetes_manifest.Manifest(
                    self,
                    manifest["kind"].lower(),
                    manifest=manifest,
                    # The binding names the policy: created after it, destroyed before it.
                    depends_on=[previous] if previous is not None else None,
                )
            )
            previous = self.objects[-1]
