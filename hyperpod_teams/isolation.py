"""What holds teams apart where they share the cluster: the node and the pod network. Pure layer:
plain Kubernetes manifests and labels, no cdktf; the constructs render them, the report reads them.

Every team namespace gets, whoever creates the pods in it (a member, the Job controller, the training
operator, the inference operator, the Spaces controller):

- **Pod Security Admission** at level `baseline` (Kubernetes docs, "Pod Security Standards"; the
  admission plugin built into the API server, `pod-security.kubernetes.io/enforce`): no privileged
  container, no host namespace (network, PID, IPC), no hostPath volume, no host port, no capability
  beyond the default set, no unconfined seccomp, AppArmor or SELinux escape, no unsafe sysctl. What a
  HyperPod training job with GPUs and EFA needs is within it: GPUs and EFA devices come from the device
  plugins as extended resources (`nvidia.com/gpu`, `vpc.amazonaws.com/efa`), not from privileges
  (aws/sagemaker-hyperpod-cli's hyp-pytorch-job template adds no security context;
  awsome-distributed-training's FSDP HyperPodPyTorchJob requests both with none). Its `hostPath`
  `/dev/shm` becomes `emptyDir: {medium: Memory}` (docs/security.md). `restricted` is audited and
  warned about, not enforced: the inference operator's and Spaces' images run as root.
- **A pod policy** (`pods_policy_manifests`), a ValidatingAdmissionPolicy with no match condition on
  who asks, so it decides the controllers' pods as it decides a member's: no `nodeName` (a pod is
  placed by the scheduler under Kueue's admission, never onto a node of the creator's choosing), no
  Kubernetes PriorityClass but the ones the platform names (`cluster.pod_priority_classes`; the
  kube-scheduler preempts by pod priority across namespaces), only the team's Kueue priority classes
  (label `kueue.x-k8s.io/priority-class`), and no `NVIDIA_VISIBLE_DEVICES` in a container's
  environment (the NVIDIA container runtime hands a container the GPUs that variable names, past
  the device plugin and Kueue's count).
- **A network policy** (`network_policy_manifest`): ingress to the team's pods only from its own
  namespace and from the platform's namespaces; every other team's pods are refused.
"""

from __future__ import annotations

from hyperpod_teams import addons, naming
from hyperpod_teams.rbac import (
    KUEUE_PRIORITY_LABEL,
    _cel_list,
    _metadata,
    _priority_message,
    admission_policy_manifests,
)

NETWORKING_API_GROUP = "networking.k8s.io"

#: Pod Security Admission's namespace labels (Kubernetes docs, "Enforce Pod Security Standards with
#: namespace labels").
POD_SECURITY_LABEL = "pod-security.kubernetes.io"
ENFORCED_LEVEL = "baseline"
AUDITED_LEVEL = "restricted"

#: The label every team namespace carries, whoever created it (task governance or the stacks): what
#: the network policies know a team's namespace by. Its value is the team's name.
TENANT_LABEL = "hyperpod-teams.io/team"

#: What the NVIDIA container runtime reads to hand a container GPUs (NVIDIA container toolkit,
#: "Specialized Configurations with Docker": NVIDIA_VISIBLE_DEVICES); the device plugin sets it for
#: the GPUs it allocated, so a pod spec never needs to.
NVIDIA_DEVICES_VARIABLE = "NVIDIA_VISIBLE_DEVICES"

#: The name of the team namespace's network policy.
NETWORK_POLICY_NAME = "team-isolation"


def kubernetes_minor(kubernetes_version: str) -> str:
    """Pod Security Admission's version label for the cluster's Kubernetes version: `v1.32`. The
    checks of that release, not of whatever release the control plane is upgraded to later."""
    return "v" + ".".join(kubernetes_version.split(".")[:2])


def namespace_labels(team: str, kubernetes_version: str) -> dict[str, str]:
    """The labels the stacks hold on a team namespace: Pod Security Admission's and the tenant label."""
    version = kubernetes_minor(kubernetes_version)
    labels = {TENANT_LABEL: team}
    for mode, level in (("enforce", ENFORCED_LEVEL), ("audit", AUDITED_LEVEL), ("warn", ENFORCED_LEVEL)):
        labels[f"{POD_SECURITY_LABEL}/{mode}"] = level
        labels[f"{POD_SECURITY_LABEL}/{mode}-version"] = version
    return labels


def team_workload_priorities(team_classes: list[str] | None, cluster_classes: list[str]) -> list[str]:
    """The Kueue WorkloadPriorityClasses a team's work may carry: its own narrowing of the scheduler
    config's classes (`teams[].compute.priority_classes`), else all of them."""
    classes = cluster_classes if team_classes is None else team_classes
    return [naming.workload_priority_class(name) for name in classes]


def pods_policy_name(team: str) -> str:
    return f"{naming.team_namespace(team)}-pods"


def _containers_expression(check: str) -> str:
    """`check` (over `c`) holds for every container and init container of the pod."""
    return (
        f"object.spec.containers.all(c, {check}) && "
        f"(!has(object.spec.initContainers) || object.spec.initContainers.all(c, {check}))"
    )


#: The label HyperPod puts on every node with its instance group's name (SageMaker developer guide,
#: "HyperPod node labels"; the HyperPod CLI's and awsome-distributed-training's manifests select it).
INSTANCE_GROUP_LABEL = "sagemaker.amazonaws.com/instance-group-name"


def _toleration(key: str, value: str | None, effect: str) -> dict:
    if value is None:
        return {"key": key, "operator": "Exists", "effect": effect}
    return {"key": key, "operator": "Equal", "value": value, "effect": effect}


def controller_placement(group: str, taints: list[tuple[str, str | None, str]]) -> dict:
    """Where a platform controller runs when the spec gives the platform a group (cluster.platform_group):
    a nodeSelector on the group's nodes and a toleration of each of its taints (key, value, effect), as
    Helm charts take them (`nodeSelector`, `tolerations`)."""
    return {
        "nodeSelector": {INSTANCE_GROUP_LABEL: group},
        "tolerations": [_toleration(key, value, effect) for key, value, effect in taints],
    }


def _tolerations_check(platform_taint_keys: list[str]) -> str:
    """No toleration of the platform group's taints: none with their keys, none without a key (which,
    with operator Exists, tolerates every taint)."""
    return (
        "!has(object.spec.tolerations) || object.spec.tolerations.all(t, has(t.key) && t.key != '' && "
        f"!(t.key in {_cel_list(platform_taint_keys)}))"
    )


def pods_policy_manifests(
    team: str,
    *,
    workload_priorities: list[str],
    pod_priority_classes: list[str],
    platform_taint_keys: list[str] | None = None,
) -> list[dict]:
    """The ValidatingAdmissionPolicy and binding that decide every pod created in the team namespace,
    whoever creates it (no matchConditions: a controller's request is decided as a member's is).

    `workload_priorities`: the Kueue WorkloadPriorityClasses the team's pods may carry
    (`naming.workload_priority_class` of the team's allowed classes); `pod_priority_classes`: the
    Kubernetes PriorityClasses the platform lets team pods name (empty: none); `platform_taint_keys`:
    the taints of the platform's group (cluster.platform_group), which no team pod may tolerate."""
    name = pods_policy_name(team)
    namespace = naming.team_namespace(team)
    labels = "object.metadata.labels"
    no_gpu_variable = f"!has(c.env) || c.env.all(e, e.name != '{NVIDIA_DEVICES_VARIABLE}')"
    pods = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}
    return admission_policy_manifests(
        name,
        team,
        rules=[pods],
        validations=[
            {
                "expression": "!has(object.spec.nodeName) || object.spec.nodeName == ''",
                "message": (
                    f"a pod in {namespace} is placed by the scheduler under the team's quota: remove "
                    "spec.nodeName (use a nodeSelector, e.g. node.kubernetes.io/instance-type)"
                ),
                "reason": "Forbidden",
            },
            {
                "expression": (
                    "!has(object.spec.priorityClassName) || object.spec.priorityClassName == '' || "
                    f"object.spec.priorityClassName in {_cel_list(pod_priority_classes)}"
                ),
                "message": (
                    f"a pod in {namespace} names no Kubernetes PriorityClass"
                    + (
                        f" but {', '.join(pod_priority_classes)} (cluster.pod_priority_classes)"
                        if pod_priority_classes
                        else " (the platform names none: cluster.pod_priority_classes)"
                    )
                    + f"; a task's priority is Kueue's: label it {KUEUE_PRIORITY_LABEL}"
                ),
                "reason": "Forbidden",
            },
            {
                "expression": (
                    f"!has({labels}) || !('{KUEUE_PRIORITY_LABEL}' in {labels}) || "
                    f"{labels}['{KUEUE_PRIORITY_LABEL}'] in {_cel_list(workload_priorities)}"
                ),
                "message": _priority_message(team, workload_priorities),
                "reason": "Forbidden",
            },
            *(
                [
                    {
                        "expression": _tolerations_check(platform_taint_keys),
                        "message": (
                            f"a pod in {namespace} runs on the teams' nodes, not the platform's: it tolerates "
                            f"no taint {', '.join(platform_taint_keys)} (cluster.platform_group) and none "
                            "without a key"
                        ),
                        "reason": "Forbidden",
                    }
                ]
                if platform_taint_keys
                else []
            ),
            {
                "expression": _containers_expression(no_gpu_variable),
                "message": (
                    f"a container in {namespace} gets its GPUs from the device plugin "
                    f"(resources nvidia.com/gpu), never from {NVIDIA_DEVICES_VARIABLE} in its environment"
                ),
                "reason": "Forbidden",
            },
        ],
    )


#: The platform components in their own namespaces that connect to a team's pods, per add-on; each
#: with its reference (docs/security.md, "The pod network").
PLATFORM_SOURCES: dict[str, tuple[str, ...]] = {
    # The inference operator's controller and the components of its add-on (KEDA, the load balancer
    # controller) run in its namespace (addons.INFERENCE_NAMESPACE).
    "inference": (addons.INFERENCE_NAMESPACE,),
    # The Spaces controller and its router, which proxies a member's connection to the space's pod
    # (SageMaker developer guide, "SageMaker Spaces on HyperPod": jupyter-k8s-system).
    "spaces": (addons.SPACES_NAMESPACE,),
    # The observability add-on's collector scrapes the training and inference pods' metrics.
    "observability": (addons.OBSERVABILITY_NAMESPACE,),
}


def platform_namespaces(*, inference: bool, spaces: bool, observability: bool) -> list[str]:
    on = {"inference": inference, "spaces": spaces, "observability": observability}
    return sorted({ns for addon, namespaces in PLATFORM_SOURCES.items() if on[addon] for ns in namespaces})


def network_policy_manifest(team: str, *, platform: list[str], load_balancer_cidrs: list[str] | None = None) -> dict:
    """The team namespace's NetworkPolicy: ingress to every pod of the namespace from the namespace's
    own pods and from the platform's namespaces (`platform`) only, and, with `load_balancer_cidrs`, the
    inference endpoints' load balancer (its targets are the model pods' addresses). Egress is left
    open: pods reach AWS's APIs, their buckets and image registries."""
    namespace = naming.team_namespace(team)
    ingress: list[dict] = [{"from": [{"podSelector": {}}]}]
    if platform:
        ingress.append(
            {
                "from": [
                    {
                        "namespaceSelector": {
                            "matchExpressions": [
                                {"key": "kubernetes.io/metadata.name", "operator": "In", "values": list(platform)}
                            ]
                        }
                    }
                ]
            }
        )
    if load_balancer_cidrs:
        ingress.append({"from": [{"ipBlock": {"cidr": cidr}} for cidr in load_balancer_cidrs]})
    return {
        "apiVersion": f"{NETWORKING_API_GROUP}/v1",
        "kind": "NetworkPolicy",
        "metadata": _metadata(NETWORK_POLICY_NAME, team, namespace),
        "spec": {"podSelector": {}, "policyTypes": ["Ingress"], "ingress": ingress},
    }


#: What a static Mountpoint volume's size says (the driver ignores it; Kubernetes requires one).
DATA_VOLUME_CAPACITY = "1200Gi"


def team_data_volume_name(team: str) -> str:
    """The team data bucket's PersistentVolume (cluster-scoped: named after the team's namespace)."""
    return f"{naming.team_namespace(team)}-data"


def team_data_volume_manifests(team: str, *, bucket: str, region: str) -> list[dict]:
    """The team's data bucket as a volume of its namespace: a PersistentVolume of the Mountpoint for S3
    CSI driver reserved for the claim `team-data` of the team's namespace (claimRef, Kubernetes docs
    "Reserving a PersistentVolume"), mounted with **the credentials of the pod that mounts it**
    (`authenticationSource: pod`), not the driver's. A pod running as the team's `team-workload`
    service account reads and writes the team's bucket through its workload role; any other pod's
    mount fails at S3; no role of the driver reads any team's bucket (policies.s3_csi_policy). The
    reference example: awslabs/mountpoint-s3-csi-driver examples/kubernetes/static_provisioning/
    pod_level_identity.yaml. Reclaim policy Retain: deleting the claim never touches the bucket."""
    namespace = naming.team_namespace(team)
    volume = team_data_volume_name(team)
    modes = ["ReadWriteMany"]
    return [
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": _metadata(volume, team),
            "spec": {
                "capacity": {"storage": DATA_VOLUME_CAPACITY},
                "accessModes": modes,
                "storageClassName": "",
                "persistentVolumeReclaimPolicy": "Retain",
                "claimRef": {"namespace": namespace, "name": naming.TEAM_DATA_CLAIM},
                # The team's workload role may delete its objects (policies.TEAM_DATA_OBJECT_ACTIONS).
                "mountOptions": ["allow-delete", f"region {region}"],
                "csi": {
                    "driver": addons.S3_CSI_DRIVER,
                    "volumeHandle": volume,
                    "volumeAttributes": {"bucketName": bucket, **addons.S3_CSI_POD_CREDENTIALS},
                },
            },
        },
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": _metadata(naming.TEAM_DATA_CLAIM, team, namespace),
            "spec": {
                "accessModes": modes,
                "storageClassName": "",
                "resources": {"requests": {"storage": DATA_VOLUME_CAPACITY}},
                "volumeName": volume,
            },
        },
    ]
