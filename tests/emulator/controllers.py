"""The controllers that create pods for a member's work, stood in for in the journey tier's Kubernetes
API: which service account each runs as, and the pods it makes of a workload — from the workload's
own pod template, as each does, so that what a member writes into a template is what admission
decides on the controller's request.

- Job: the Job controller (kube-controller-manager's `job-controller` service account), pods of
  `spec.template` (Kubernetes docs, "Jobs").
- PyTorchJob: the Kubeflow training operator of HyperPod's dependency chart, one pod per replica of
  `spec.pytorchReplicaSpecs.<type>.template` (kubeflow/training-operator's PyTorchJob API).
- HyperPodPyTorchJob: HyperPod's training operator add-on, `spec.replicaSpecs[].template`
  (aws/sagemaker-hyperpod-cli's hyp-pytorch-job template); each pod labelled HPJob: <job>, as
  `hyp list-pods` finds them.
- InferenceEndpointConfig and JumpStartModel: the inference operator's controller manager, a model
  pod of `spec.worker` (its model volume mount) with the extra volumes, init containers and service
  account of `spec.kubernetes` (the operator's CRD, v1).
- Workspace (a space): the Spaces controller, a pod of `spec.image` with `spec.containerSecurityContext`.
"""

from __future__ import annotations

from hyperpod_teams import addons

Json = dict


def _sa(namespace: str, name: str) -> str:
    return f"system:serviceaccount:{namespace}:{name}"


#: (API group, resource) -> the user name of the controller that creates its pods.
CONTROLLERS: dict[tuple[str, str], str] = {
    ("batch", "jobs"): _sa("kube-system", "job-controller"),
    ("kubeflow.org", "pytorchjobs"): _sa("kubeflow", "training-operator"),
    ("sagemaker.amazonaws.com", "hyperpodpytorchjobs"): _sa(addons.TRAINING_OPERATOR_NAMESPACE, "hp-training-operator"),
    **{
        (addons.INFERENCE_API_GROUP, resource): _sa(
            addons.INFERENCE_NAMESPACE, addons.INFERENCE_CONTROLLER_SERVICE_ACCOUNT
        )
        for resource in addons.INFERENCE_ENDPOINT_RESOURCES
    },
    (addons.SPACE_API_GROUP, addons.SPACE_RESOURCE): _sa(
        addons.SPACES_NAMESPACE, addons.SPACES_CONTROLLER_SERVICE_ACCOUNT
    ),
}


def _pod(name: str, template: Json, extra_labels: dict[str, str] | None = None) -> Json:
    metadata = template.get("metadata") or {}
    labels = {**(metadata.get("labels") or {}), **(extra_labels or {})}
    pod_metadata: Json = {"name": name, "labels": labels}
    if metadata.get("annotations"):
        pod_metadata["annotations"] = dict(metadata["annotations"])
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_metadata, "spec": dict(template.get("spec") or {})}


def _workload_labels(workload: Json) -> dict[str, str]:
    labels = (workload.get("metadata") or {}).get("labels") or {}
    return {k: v for k, v in labels.items() if k.startswith("kueue.x-k8s.io/")}


def pods_of(group: str, resource: str, workload: Json) -> list[Json]:
    name = workload["metadata"]["name"]
    spec = workload.get("spec") or {}
    if (group, resource) == ("batch", "jobs"):
        return [_pod(f"{name}-0", spec.get("template") or {}, {"job-name": name})]
    if (group, resource) == ("kubeflow.org", "pytorchjobs"):
        return [
            _pod(f"{name}-{kind.lower()}-{i}", replica.get("template") or {}, {"training.kubeflow.org/job-name": name})
            for kind, replica in (spec.get("pytorchReplicaSpecs") or {}).items()
            for i in range(int(replica.get("replicas", 1)))
        ]
    if (group, resource) == ("sagemaker.amazonaws.com", "hyperpodpytorchjobs"):
        replicas = spec.get("replicaSpecs") or [
            {"template": {"spec": {"containers": [{"name": "pytorch", "image": "stand-in"}]}}}
        ]
        return [
            _pod(f"{name}-pod-{i}", replica.get("template") or {}, {"HPJob": name, **_workload_labels(workload)})
            for i, replica in enumerate(replicas)
        ]
    if group == addons.INFERENCE_API_GROUP:
        worker = spec.get("worker") or {}
        extra = spec.get("kubernetes") or {}
        model: Json = {"name": "model", "image": worker.get("image", "stand-in")}
        if worker.get("modelVolumeMount"):
            mount = worker["modelVolumeMount"]
            model["volumeMounts"] = [{"name": mount["name"], "mountPath": mount.get("mountPath", "/opt/ml/model")}]
        pod_spec: Json = {"containers": [model]}
        for key in ("volumes", "initContainers", "serviceAccountName"):
            if extra.get(key):
                pod_spec[key] = extra[key]
        return [_pod(f"{name}-model-0", {"spec": pod_spec}, _workload_labels(workload))]
    if (group, resource) == (addons.SPACE_API_GROUP, addons.SPACE_RESOURCE):
        container: Json = {"name": "workspace", "image": spec.get("image", "stand-in")}
        if spec.get("containerSecurityContext"):
            container["securityContext"] = spec["containerSecurityContext"]
        return [_pod(f"{name}-workspace", {"spec": {"containers": [container]}}, _workload_labels(workload))]
    return []
