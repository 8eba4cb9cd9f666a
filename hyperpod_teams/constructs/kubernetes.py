"""Kubernetes objects of one team, rendered from the pure manifests of `hyperpod_teams.rbac` and
`hyperpod_teams.isolation`."""

from __future__ import annotations

from constructs import Construct

from hyperpod_teams import bindings, isolation, naming, rbac

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
        workload_priorities: list[str] | None = None,
    ) -> None:
        super().__init__(scope, id_)
        self.objects = []
        previous = None
        manifests = rbac.queue_label_policy_manifests(
            team,
            endpoint_prefix=endpoint_prefix,
            model_bucket=model_bucket,
            spaces=spaces,
            workload_priorities=workload_priorities,
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


class TeamIsolation(Construct):
    """What holds the team's pods apart from other teams' on the nodes and the pod network they share
    (hyperpod_teams.isolation): Pod Security Admission's labels on a namespace task governance created
    (`namespace_labels`; a namespace the stack creates carries them itself), the pod policy that
    decides every pod of the namespace whoever creates it, and the namespace's network policy."""

    def __init__(
        self,
        scope: Construct,
        id_: str,
        *,
        team: str,
        namespace_labels: dict[str, str] | None,
        workload_priorities: list[str],
        pod_priority_classes: list[str],
        platform_namespaces: list[str],
        load_balancer_cidrs: list[str],
        platform_taint_keys: list[str] | None = None,
        depends_on: list | None = None,
    ) -> None:
        super().__init__(scope, id_)
        namespace = naming.team_namespace(team)
        self.labels = None
        if namespace_labels is not None:
            labels = bindings.kubernetes_labels
            # Server-side apply of these labels only, under a field manager of its own: the namespace
            # and every other label stay task governance's; a label someone else holds is a conflict
            # the apply reports, never overwritten (force unset).
            self.labels = labels.Labels(
                self,
                "namespace-labels",
                api_version="v1",
                kind="Namespace",
                metadata=labels.LabelsMetadata(name=namespace),
                labels=namespace_labels,
                field_manager="hyperpod-teams",
            )
        after = [*(depends_on or []), *([self.labels] if self.labels is not None else [])] or None
        self.objects = []
        previous = None
        for manifest in isolation.pods_policy_manifests(
            team,
            workload_priorities=workload_priorities,
            pod_priority_classes=pod_priority_classes,
            platform_taint_keys=platform_taint_keys,
        ):
            self.objects.append(
                bindings.kubernetes_manifest.Manifest(
                    self,
                    f"pods-{manifest['kind'].lower()}",
                    manifest=manifest,
                    depends_on=[previous] if previous is not None else after,
                )
            )
            previous = self.objects[-1]
        self.network_policy = bindings.kubernetes_manifest.Manifest(
            self,
            "network-policy",
            manifest=isolation.network_policy_manifest(
                team, platform=platform_namespaces, load_balancer_cidrs=load_balancer_cidrs
            ),
            depends_on=after,
        )


class TeamDataVolume(Construct):
    """The team's data bucket as the claim `team-data` of its namespace, mounted with the credentials
    of the pod that mounts it (isolation.team_data_volume_manifests)."""

    def __init__(
        self, scope: Construct, id_: str, *, team: str, bucket: str, region: str, depends_on: list | None = None
    ) -> None:
        super().__init__(scope, id_)
        volume, claim = isolation.team_data_volume_manifests(team, bucket=bucket, region=region)
        self.volume = bindings.kubernetes_manifest.Manifest(self, "volume", manifest=volume)
        # The claim binds to the volume reserved for it: created after it, deleted before it.
        self.claim = bindings.kubernetes_manifest.Manifest(
            self, "claim", manifest=claim, depends_on=[self.volume, *(depends_on or [])]
        )
