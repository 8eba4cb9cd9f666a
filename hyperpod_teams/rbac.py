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

from hyperpod_teams import addons, naming

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


#: The HyperPod PyTorch job of HyperPod's training operator (`hyp create hyp-pytorch-job`).
HYPERPOD_JOBS_API_GROUP = "sagemaker.amazonaws.com"
#: CRDs the HyperPod CLI reads before it submits (`cli_decorators.py` reads the HyperPod one).
JOB_CRDS = ("hyperpodpytorchjobs.sagemaker.amazonaws.com", "pytorchjobs.kubeflow.org")

#: Scientists submit, watch and cancel their training: pods and logs, jobs, PyTorchJobs and
#: HyperPod PyTorch jobs, and read their Kueue workloads and queue. Compared rule by rule with the
#: team role of aws/sagemaker-hyperpod-cli's chart (`charts/team-role-and-bindings`); each
#: difference is in CHART_DIFFERENCES.
SCIENTIST_RULES = (
    Rule(("",), ("pods",), READ + RUN),
    Rule(("",), ("pods/log", "pods/status"), READ),
    Rule(("",), ("events", "services", "configmaps", "serviceaccounts"), READ),
    Rule(("batch",), ("jobs",), READ + RUN + CHANGE),
    Rule(("kubeflow.org",), ("pytorchjobs",), READ + RUN + CHANGE),
    Rule(("kubeflow.org",), ("pytorchjobs/status",), READ),
    Rule((HYPERPOD_JOBS_API_GROUP,), ("hyperpodpytorchjobs",), READ + RUN + CHANGE),
    Rule((HYPERPOD_JOBS_API_GROUP,), ("hyperpodpytorchjobs/status",), READ),
    Rule(("kueue.x-k8s.io",), ("workloads", "workloads/status", "localqueues"), READ),
)

#: Admins manage the namespace's workloads on top: any member's jobs and their configuration.
ADMIN_RULES = (
    Rule(("",), ("pods",), READ + RUN),
    Rule(("",), ("pods/log", "pods/status"), READ),
    # `hyp exec` opens pods/exec over a WebSocket, a GET the API server authorizes as `get` (1.35's
    # AuthorizePodWebsocketUpgradeCreatePermission also asks `create`); `kubectl exec` over SPDY
    # is a POST, `create`.
    Rule(("",), ("pods/exec",), ("get", "create")),
    Rule(("",), ("events", "services", "serviceaccounts"), READ),
    Rule(("",), ("configmaps", "secrets"), READ + RUN + CHANGE),
    Rule(("batch",), ("jobs",), READ + RUN + CHANGE),
    Rule(("kubeflow.org",), ("pytorchjobs",), READ + RUN + CHANGE),
    Rule(("kubeflow.org",), ("pytorchjobs/status",), READ),
    Rule((HYPERPOD_JOBS_API_GROUP,), ("hyperpodpytorchjobs",), READ + RUN + CHANGE),
    Rule((HYPERPOD_JOBS_API_GROUP,), ("hyperpodpytorchjobs/status",), READ),
    Rule(("kueue.x-k8s.io",), ("workloads",), READ + ("delete",) + CHANGE),
    Rule(("kueue.x-k8s.io",), ("workloads/status", "localqueues"), READ),
)


#: With cluster.inference: the endpoints a team deploys, lists, describes and deletes in its namespace
#: (`hyp create|list|describe|delete hyp-jumpstart-endpoint|hyp-custom-endpoint`), as the inference
#: operator's own editor ClusterRoles grant them (aws/sagemaker-hyperpod-cli, charts/inference-operator/
#: config/rbac/{jumpstartmodel,inferenceendpointconfig}_editor_role.yaml); its SageMaker endpoint
#: registrations only as its viewer role does (..._viewer_role.yaml): the operator writes them from the
#: endpoints, and a registration a member wrote could name any endpoint, past the name check of the
#: team's admission policy (queue_label_policy_manifests).
INFERENCE_RULES = (
    Rule((addons.INFERENCE_API_GROUP,), addons.INFERENCE_ENDPOINT_RESOURCES, READ + RUN + CHANGE),
    Rule((addons.INFERENCE_API_GROUP,), tuple(f"{r}/status" for r in addons.INFERENCE_ENDPOINT_RESOURCES), ("get",)),
    Rule((addons.INFERENCE_API_GROUP,), (addons.INFERENCE_REGISTRATIONS,), READ),
    Rule((addons.INFERENCE_API_GROUP,), (f"{addons.INFERENCE_REGISTRATIONS}/status",), ("get",)),
)

#: With cluster.spaces: a member's spaces in the team namespace (`hyp create|list|describe|update|start|
#: stop|delete hyp-space`: the workspaces custom resource), their connections (`hyp create
#: hyp-space-access`: workspaceconnections) and the port forward to a space's pod (`hyp portforward
#: hyp-space`: pods/portforward, over a WebSocket a GET, `get`; kubectl's SPDY a POST, `create`). The
#: access entries get AWS's space policies besides (constructs.access_entries).
SPACE_RULES = (
    Rule((addons.SPACE_API_GROUP,), (addons.SPACE_RESOURCE,), READ + RUN + CHANGE),
    Rule((addons.SPACE_CONNECTION_API_GROUP,), (addons.SPACE_CONNECTION_RESOURCE,), ("create",)),
    Rule(("",), ("pods/portforward",), ("get", "create")),
)


def role_rules(role: str, *, inference: bool = False, spaces: bool = False) -> tuple[Rule, ...]:
    """The rules of a team role's Role in its namespace: SCIENTIST_RULES or ADMIN_RULES, and what
    the cluster's inference operator and Spaces add."""
    rules = SCIENTIST_RULES if role == "scientists" else ADMIN_RULES
    return rules + (INFERENCE_RULES if inference else ()) + (SPACE_RULES if spaces else ())


def cluster_read_rules(team: str) -> tuple[Rule, ...]:
    """Cluster-wide reads: the team's own namespace and ClusterQueue, Kueue's resource flavors
    and workload priority classes (the HyperPod CLI lists them before it submits), the job CRDs
    the CLI checks, priority classes and nodes."""
    return (
        Rule(("",), ("namespaces",), ("get",), (naming.team_namespace(team),)),
        Rule(("kueue.x-k8s.io",), ("clusterqueues",), ("get", "watch"), (naming.team_cluster_queue(team),)),
        Rule(("kueue.x-k8s.io",), ("resourceflavors", "workloadpriorityclasses"), READ),
        Rule(("apiextensions.k8s.io",), ("customresourcedefinitions",), ("get",), JOB_CRDS),
        Rule(("scheduling.k8s.io",), ("priorityclasses",), READ),
        Rule(("",), ("nodes", "nodes/status"), READ),
    )


#: Where the scientists' rules differ from the chart's team role on purpose: (API group, resource,
#: the verbs the chart grants, why they are not granted here).
_NOT_GRANTED: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("", "namespaces", ("list",),
        "listing every namespace shows other teams' names; the CLI reads its own namespace with get"),
    ("", "namespaces", ("describe",), "not a Kubernetes verb (kubectl describe uses get)"),
    ("kueue.x-k8s.io", "clusterqueues", ("list",),
        "list cannot be limited to the team's own ClusterQueue by name; get and watch of it are granted"),
    ("", "configmaps", ("create", "update", "delete"), "scientists read ConfigMaps; the team's admins manage them"),
    ("", "secrets", ("create", "delete"), "secrets are the team admins' to manage"),
    ("", "secrets", ("get", "list"), "secrets are the team admins' to read"),
    ("apiextensions.k8s.io", "customresourcedefinitions", ("list",),
        "get of the job CRDs the CLI checks, by name, instead of listing every CRD"),
    ("kubeflow.org", "pytorchjobs/status", ("create", "update", "delete"),
        "a job's status is the training operator's to write"),
    ("kueue.x-k8s.io", "workloads", ("patch",),
        "changing a workload's priority or queue is the team admins' (they may patch workloads)"),
    ("kueue.x-k8s.io", "workloads/status", ("patch",), "a workload's status is Kueue's to write"),
)  # fmt: skip
#: The same, a key per verb: (API group, resource, verb the chart grants) -> why it is not granted here.
CHART_DIFFERENCES: dict[tuple[str, str, str], str] = {
    (group, resource, verb): why for group, resource, verbs, why in _NOT_GRANTED for verb in verbs
}


def team_labels(team: str) -> dict[str, str]:
    """Labels of every Kubernetes object the project creates for a team."""
    return {**MANAGED_BY, "hyperpod-teams/team": team}


def _metadata(name: str, team: str, namespace: str | None = None) -> dict:
    metadata = {"name": name, "labels": team_labels(team)}
    if namespace:
        metadata["namespace"] = namespace
    return metadata


def admission_policy_manifests(
    name: str, team: str, *, rules: list[dict], validations: list[dict], match_conditions: list[dict] | None = None
) -> list[dict]:
    """A ValidatingAdmissionPolicy `name` that fails closed on the requests `rules` match (and
    `match_conditions`, when given) and denies what breaks one of `validations`, with its binding to
    the team's namespace."""
    spec: dict = {"failurePolicy": "Fail", "matchConstraints": {"resourceRules": rules}}
    if match_conditions is not None:
        spec["matchConditions"] = match_conditions
    spec["validations"] = validations
    namespace = {"matchLabels": {"kubernetes.io/metadata.name": naming.team_namespace(team)}}
    return [
        {
            "apiVersion": f"{ADMISSION_API_GROUP}/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": _metadata(name, team),
            "spec": spec,
        },
        {
            "apiVersion": f"{ADMISSION_API_GROUP}/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": _metadata(name, team),
            "spec": {
                "policyName": name,
                "validationActions": ["Deny"],
                "matchResources": {"namespaceSelector": namespace},
            },
        },
    ]


def _group(name: str) -> dict:
    return {"kind": "Group", "name": name, "apiGroup": RBAC_API_GROUP}


def team_rbac_manifests(team: str, *, inference: bool = False, spaces: bool = False) -> list[dict]:
    """The team's Roles, RoleBindings, ClusterRole and ClusterRoleBinding, as Kubernetes manifests
    (`inference`, `spaces`: whether the cluster has the inference operator, SageMaker Spaces)."""
    namespace = naming.team_namespace(team)
    manifests: list[dict] = []
    for role in naming.ROLES:
        rules = role_rules(role, inference=inference, spaces=spaces)
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


# --- quota that cannot be bypassed ------------------------------------------------------------------
#
# Kueue manages only workloads that carry its queue label unless it is configured to manage the
# others (`manageJobsWithoutQueueName`, false by default: kubernetes-sigs/kueue#169, #207); HyperPod
# task governance documents submitting with `kueue.x-k8s.io/queue-name: hyperpod-ns-<team>-localqueue`
# and no such setting. A job without the label would run outside the team's quota, and `hyp create
# hyp-pytorch-job` sets the label only with `--queue-name`. So the team namespace refuses it: a
# ValidatingAdmissionPolicy (Kubernetes docs, "Validating Admission Policy", admissionregistration.k8s.io/v1)
# bound to the namespace, for what the team's members create or change there.

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
ADMISSION_API_GROUP = "admissionregistration.k8s.io"
KUEUE_API_GROUP = "kueue.x-k8s.io"
#: Kueue's label naming a workload's WorkloadPriorityClass (Kueue docs, "Workload Priority").
KUEUE_PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"

#: What a member submits work as: (API group, resource). Pods only through one of the others.
QUEUED_WORKLOADS = (
    ("sagemaker.amazonaws.com", "hyperpodpytorchjobs"),
    ("kubeflow.org", "pytorchjobs"),
    ("batch", "jobs"),
)


def queue_label_policy_name(team: str) -> str:
    return f"{naming.team_namespace(team)}-queue-label"


#: With cluster.inference, where each endpoint resource names its SageMaker endpoint (the operator's
#: CRDs: JumpStartModel `spec.sageMakerEndpoint.name`, InferenceEndpointConfig `spec.endpointName`;
#: empty: no SageMaker endpoint).
ENDPOINT_NAME_FIELDS = {
    "jumpstartmodels": ("sageMakerEndpoint", "name"),
    "inferenceendpointconfigs": ("endpointName",),
}


def _model_source_validation(team: str, model_bucket: str | None) -> dict:
    """A member's InferenceEndpointConfig takes no S3 or FSx model source (`spec.modelSourceConfig`
    `modelSourceType: s3|fsx`, `s3Storage`, `fsxStorage`, the operator's CRD). S3: the operator mounts
    it with the S3 CSI driver's own credentials, one identity for every team, which read no team's
    bucket (policies.s3_csi_policy); FSx: its CSI driver mounts any file system of the VPC by its ID.
    The team's model comes from its data volume instead, mounted with the team's workload identity
    (`modelSourceType: kubernetesVolume`, the operator's v1_nvme_k8s_volume_service_account sample;
    isolation.team_data_volume_manifests)."""
    source = "object.spec.modelSourceConfig"
    # FSx too: the FSx CSI driver mounts any file system of the VPC by its ID, with no IAM decision,
    # and the stacks hold no file system to a team yet (docs/security.md, "What is still shared").
    shared_type = f"has({source}.modelSourceType) && {source}.modelSourceType in ['s3', 'fsx']"
    s3 = f"has({source}) && (has({source}.s3Storage) || has({source}.fsxStorage) || ({shared_type}))"
    namespace = naming.team_namespace(team)
    instead = (
        f"load it from the team's data volume: modelSourceConfig.modelSourceType: kubernetesVolume, "
        f"kubernetes.serviceAccountName: {naming.TEAM_SERVICE_ACCOUNT}, kubernetes.volumes: [{{name: model, "
        f"persistentVolumeClaim: {{claimName: {naming.TEAM_DATA_CLAIM}}}}}], worker.modelVolumeMount.name: model"
        if model_bucket
        else "the team has no data bucket to load it from (teams[].data)"
    )
    return {
        "expression": f"request.resource.resource != 'inferenceendpointconfigs' || !({s3})",
        "message": (
            f"an endpoint in {namespace} takes no S3 or FSx model source (the operator would mount it with the "
            f"S3 CSI driver's credentials, which read no team's bucket, or any FSx file system by its ID): {instead}"
        ),
        "reason": "Forbidden",
    }


def _endpoint_name_validation(team: str, endpoint_prefix: str) -> dict:
    """A member's endpoint resource names no SageMaker endpoint, or one of the team's: its name starts
    with the team's prefix, in any case (SageMaker writes the name in lowercase in the endpoint's ARN,
    which the team roles' InvokeEndpoint grant names). So no team claims another's endpoint names."""
    checks = []
    for resource, fields in ENDPOINT_NAME_FIELDS.items():
        path = "object.spec"
        present = []
        for part in fields:
            present.append(f"has({path}.{part})")
            path = f"{path}.{part}"
        absent_or_ours = f"!({' && '.join(present)}) || {path} == '' || {path}.matches('(?i)^{endpoint_prefix}')"
        checks.append(f"(request.resource.resource != '{resource}' || {absent_or_ours})")
    return {
        "expression": " && ".join(checks),
        "message": (
            f"an endpoint in {naming.team_namespace(team)} is the team's: its SageMaker endpoint name starts with "
            f"{endpoint_prefix} (hyp create hyp-jumpstart-endpoint --endpoint-name {endpoint_prefix}<name>)"
        ),
        "reason": "Forbidden",
    }


def _cel_list(values: list[str] | tuple[str, ...]) -> str:
    return "[" + ", ".join(f"'{v}'" for v in values) + "]"


def _priority_message(team: str, workload_priorities: list[str]) -> str:
    namespace = naming.team_namespace(team)
    if not workload_priorities:
        return f"work in {namespace} carries no {KUEUE_PRIORITY_LABEL}: the team may use no priority class"
    return (
        f"work in {namespace} runs at one of the team's priority classes: label it {KUEUE_PRIORITY_LABEL}: "
        f"{' or '.join(workload_priorities)} (hyp create hyp-pytorch-job --priority)"
    )


def workload_priority_validation(team: str, workload_priorities: list[str]) -> dict:
    """For the member's own requests (rbac.queue_label_policy_manifests): a job, endpoint or space
    created or changed carries none of Kueue's priority classes but the team's, and a Kueue workload an
    admin changes keeps to them too (`spec.priorityClassName`), its priority value unchanged."""
    labels = "object.metadata.labels"
    allowed = _cel_list(workload_priorities)
    workload = (
        "(!has(object.spec.priorityClassName) || object.spec.priorityClassName in "
        f"{allowed}) && (!has(object.spec.priority) || (has(oldObject.spec.priority) && "
        "object.spec.priority == oldObject.spec.priority))"
    )
    labelled = (
        f"!has({labels}) || !('{KUEUE_PRIORITY_LABEL}' in {labels}) || {labels}['{KUEUE_PRIORITY_LABEL}'] in {allowed}"
    )
    return {
        "expression": f"request.resource.resource == 'workloads' ? ({workload}) : ({labelled})",
        "message": _priority_message(team, workload_priorities),
        "reason": "Forbidden",
    }


def queued_workloads(*, inference: bool = False, spaces: bool = False) -> tuple[tuple[str, str], ...]:
    """What a member submits work as, (API group, resource): the jobs, and the endpoints and spaces
    where the cluster runs them. Each is admitted by Kueue through the team's LocalQueue."""
    endpoints = tuple((addons.INFERENCE_API_GROUP, r) for r in addons.INFERENCE_ENDPOINT_RESOURCES) if inference else ()
    return QUEUED_WORKLOADS + endpoints + (((addons.SPACE_API_GROUP, addons.SPACE_RESOURCE),) if spaces else ())


def queue_label_policy_manifests(
    team: str,
    *,
    endpoint_prefix: str | None = None,
    model_bucket: str | None = None,
    spaces: bool = False,
    workload_priorities: list[str] | None = None,
) -> list[dict]:
    """The ValidatingAdmissionPolicy and its binding that hold the team's members to their queue:
    a job they create or change in the team namespace carries the team's LocalQueue label, and they
    create no bare pod (a pod Kueue would not admit). Controllers' requests (the job operators
    creating a job's pods) are not the members' and pass. With `endpoint_prefix` (cluster.inference)
    the endpoints are held to the label too, to the team's endpoint names and to models from the
    team's data volume, not the operator's S3 source (`model_bucket`: the team's bucket, or None);
    with `spaces`, the spaces (`hyp create hyp-space --queue-name`).
    With `workload_priorities`, a member's work carries none of Kueue's priority classes but these, and
    an admin's change of a Kueue workload keeps to them (workload_priority_validation)."""
    name = queue_label_policy_name(team)
    queue = naming.team_local_queue(team)
    groups = ", ".join(f"'{naming.team_kubernetes_group(team, role)}'" for role in naming.ROLES)
    rules = [
        {"apiGroups": [group], "apiVersions": ["*"], "operations": ["CREATE", "UPDATE"], "resources": [resource]}
        for group, resource in queued_workloads(inference=endpoint_prefix is not None, spaces=spaces)
    ]
    rules.append({"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]})
    if workload_priorities is not None:
        rules.append(
            {"apiGroups": [KUEUE_API_GROUP], "apiVersions": ["*"], "operations": ["UPDATE"], "resources": ["workloads"]}
        )
    return admission_policy_manifests(
        name,
        team,
        rules=rules,
        match_conditions=[
            {"name": "made-by-a-team-member", "expression": f"request.userInfo.groups.exists(g, g in [{groups}])"}
        ],
        validations=[
            {
                "expression": "request.resource.resource != 'pods'",
                "message": (
                    f"team members create no bare pods in {naming.team_namespace(team)}: Kueue would not admit "
                    "them under the team's quota; submit a job (hyp create hyp-pytorch-job --queue-name "
                    f"{queue}, or a Job or PyTorchJob labelled {QUEUE_LABEL}: {queue})"
                ),
                "reason": "Forbidden",
            },
            {
                "expression": (
                    f"request.resource.resource in ['pods', 'workloads'] || (has(object.metadata.labels) && "
                    f"'{QUEUE_LABEL}' in object.metadata.labels && "
                    f"object.metadata.labels['{QUEUE_LABEL}'] == '{queue}')"
                ),
                "message": (
                    f"a job, endpoint or space in {naming.team_namespace(team)} runs under the team's quota: "
                    f"label it {QUEUE_LABEL}: {queue} (hyp create hyp-pytorch-job --queue-name {queue}, hyp "
                    f"create hyp-space --queue-name {queue})"
                ),
                "reason": "Forbidden",
            },
            *(
                [_endpoint_name_validation(team, endpoint_prefix), _model_source_validation(team, model_bucket)]
                if endpoint_prefix is not None
                else []
            ),
            *([workload_priority_validation(team, workload_priorities)] if workload_priorities is not None else []),
        ],
    )
