"""What a team runs besides training (#46): models behind endpoints (the HyperPod inference operator),
IDEs in its namespace (SageMaker Spaces), and its dashboards (the HyperPod observability add-on), each
under its quota and with nothing of another team's.

The spec is examples/team-work/teams.yaml (the quickstart with the three add-ons), synthesized by the
real engine. Each journey step is the request the HyperPod CLI makes (sagemaker-hyperpod 3.12.0, the
release the journey tier installs; where in its code: docs/team-journeys.md), judged by what the stacks
deploy: the AWS calls by the team role's synthesized permission set (tests/iam_evaluation.py, IAM's
evaluation logic), the Kubernetes requests by Kubernetes' RBAC authorizer over the synthesized RBAC and
by the synthesized admission policies evaluated with CEL (tests/emulator/kubernetes_api.py).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
import yaml

from hyperpod_teams import addons, naming
from tests.iam_evaluation import allows

SPEC = Path(__file__).resolve().parents[1] / "examples" / "team-work" / "teams.yaml"
ACCOUNT, REGION, EKS = "111122223333", "us-west-2", "ml-shared-eks"
INFERENCE = addons.INFERENCE_API_GROUP


@pytest.fixture(scope="module")
def stacks(example_stacks) -> dict[str, dict]:
    return example_stacks[SPEC.parent.name]


@pytest.fixture(scope="module")
def manifests(stacks) -> list[dict]:
    from tests.test_kubernetes_rbac import rbac_manifests

    return rbac_manifests(stacks)


@pytest.fixture(scope="module")
def admission(stacks):
    from tests.emulator.kubernetes_api import Admission
    from tests.test_kubernetes_rbac import admission_manifests

    return Admission(admission_manifests(stacks))


def permission_set_policy(stacks: dict[str, dict], name: str) -> dict:
    """The inline policy the access stack gives the permission set `name`, as synthesized."""
    access = stacks["acme-access"]["resource"]
    (set_id,) = [k for k, v in access["aws_ssoadmin_permission_set"].items() if v["name"] == name]
    (policy,) = [
        v["inline_policy"]
        for v in access["aws_ssoadmin_permission_set_inline_policy"].values()
        if set_id in v["permission_set_arn"]
    ]
    return json.loads(policy)


def rbac_allows(manifests: list[dict], group: str, request: tuple) -> bool:
    from tests.test_team_journeys import rbac_allows as allowed

    return allowed(manifests, group, request)


def endpoint_arn(name: str) -> str:
    return f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:endpoint/{name}"


# --- inference: an endpoint's life with `hyp`, as the team's scientists and admins -----------------------


Request = tuple[str, str, str, "str | None", "str | None"]


def endpoint_steps(namespace: str) -> list[Request]:
    """The Kubernetes requests of `hyp create|list|describe|list-pods|get-logs|delete` of a JumpStart and
    of a custom endpoint, and of `hyp invoke hyp-custom-endpoint`'s fallback read (inference/
    hp_jumpstart_endpoint.py, hp_endpoint.py, hp_endpoint_base.py: namespaced custom objects, then
    list_namespaced_pod, read_namespaced_pod and read_namespaced_pod_log)."""
    steps: list[Request] = []
    for resource, name in (("jumpstartmodels", "llama"), ("inferenceendpointconfigs", "bert")):
        steps += [
            ("create", INFERENCE, resource, namespace, None),
            ("list", INFERENCE, resource, namespace, None),
            ("get", INFERENCE, resource, namespace, name),
            ("list", "", "pods", namespace, None),
            ("get", "", "pods", namespace, f"{name}-0"),
            ("get", "", "pods/log", namespace, f"{name}-0"),
            ("delete", INFERENCE, resource, namespace, name),
        ]
    return steps + [("get", INFERENCE, addons.INFERENCE_REGISTRATIONS, namespace, "bert")]


@pytest.mark.parametrize("role", naming.ROLES)
def test_a_team_member_deploys_lists_describes_and_deletes_endpoints_in_its_own_namespace(manifests, role):
    group = naming.team_kubernetes_group("nlp", role)
    steps = endpoint_steps(naming.team_namespace("nlp"))
    assert [s for s in steps if not rbac_allows(manifests, group, s)] == []


def test_every_endpoint_step_in_another_teams_namespace_is_refused(manifests):
    for role in naming.ROLES:
        group = naming.team_kubernetes_group("nlp", role)
        steps = endpoint_steps(naming.team_namespace("vision"))
        assert [s for s in steps if rbac_allows(manifests, group, s)] == [], role


def test_a_team_member_writes_no_endpoint_registration_and_reads_no_operator_logs(manifests):
    """Registrations are the operator's to write (a member's could name any endpoint); the operator's
    namespace is the platform's (`hyp get-operator-logs` lists its pods: refused to teams)."""
    group = naming.team_kubernetes_group("nlp", "admins")
    ns = naming.team_namespace("nlp")
    for verb in ("create", "update", "patch", "delete"):
        assert not rbac_allows(manifests, group, (verb, INFERENCE, addons.INFERENCE_REGISTRATIONS, ns, "r"))
    assert not rbac_allows(manifests, group, ("list", "", "pods", addons.INFERENCE_NAMESPACE, None))


def test_a_removed_inference_rule_turns_its_step_red(manifests):
    changed = copy.deepcopy(manifests)
    for m in changed:
        for rule in m.get("rules", []):
            if "jumpstartmodels" in rule["resources"]:
                rule["verbs"] = [v for v in rule["verbs"] if v != "create"]
    group = naming.team_kubernetes_group("nlp", "scientists")
    refused = [s[:3] for s in endpoint_steps(naming.team_namespace("nlp")) if not rbac_allows(changed, group, s)]
    # One rule grants both endpoint kinds (as the operator's two editor roles do, each its own).
    assert refused == [("create", INFERENCE, "jumpstartmodels"), ("create", INFERENCE, "inferenceendpointconfigs")]


def test_the_inference_rules_are_the_operators_own_editor_and_viewer_rules():
    """Compared with the inference operator's chart (aws/sagemaker-hyperpod-cli 011ca92, charts/
    inference-operator/config/rbac): jumpstartmodel/inferenceendpointconfig editor roles (create,
    delete, get, list, patch, update, watch; status get) and the registration viewer role (get, list,
    watch; status get), as read there."""
    from hyperpod_teams import rbac

    editor = {"create", "delete", "get", "list", "patch", "update", "watch"}
    granted = {(r, v) for rule in rbac.INFERENCE_RULES for r in rule.resources for v in rule.verbs}
    expected = {(r, v) for r in addons.INFERENCE_ENDPOINT_RESOURCES for v in editor}
    expected |= {(f"{r}/status", "get") for r in (*addons.INFERENCE_ENDPOINT_RESOURCES, addons.INFERENCE_REGISTRATIONS)}
    expected |= {(addons.INFERENCE_REGISTRATIONS, v) for v in ("get", "list", "watch")}
    assert granted == expected


def endpoint(kind: str, *, queue: str | None, endpoint_name: str | None = None, bucket: str | None = None) -> dict:
    """A JumpStartModel or InferenceEndpointConfig as `hyp create` writes it (the templates of
    hyperpod-jumpstart-inference-template / hyperpod-custom-inference-template 1.2), with the labels a
    member adds."""
    spec: dict = {"instanceType": "ml.g5.8xlarge"}
    if kind == "jumpstartmodels":
        spec["model"] = {"modelId": "meta-llama"}
        if endpoint_name is not None:
            spec["sageMakerEndpoint"] = {"name": endpoint_name}
    else:
        spec["modelName"] = "bert"
        if endpoint_name is not None:
            spec["endpointName"] = endpoint_name
        if bucket is not None:
            spec["modelSourceConfig"] = {"modelSourceType": "s3", "s3Storage": {"bucketName": bucket}}
    labels = {"kueue.x-k8s.io/queue-name": queue} if queue else {}
    return {"apiVersion": f"{INFERENCE}/v1", "kind": "X", "metadata": {"name": "m", "labels": labels}, "spec": spec}


def admitted(admission, team: str, resource: str, obj: dict, *, group: str = INFERENCE, verb: str = "create"):
    """None when the admission policies let a member of `team` create `obj` in its namespace, else the refusal."""
    from tests.emulator.kubernetes_api import RequestInfo, User

    info = RequestInfo(
        path="", verb=verb, is_resource_request=True, api_group=group, namespace=naming.team_namespace(team),
        resource=resource, subresource="", name="",
    )  # fmt: skip
    user = User("member", (naming.team_kubernetes_group(team, "scientists"), "system:authenticated"))
    return admission.review(user, info, obj)


def test_an_endpoint_runs_under_the_teams_queue_and_names_only_the_teams_endpoints(admission):
    queue = naming.team_local_queue("nlp")
    for kind in addons.INFERENCE_ENDPOINT_RESOURCES:
        assert admitted(admission, "nlp", kind, endpoint(kind, queue=queue, endpoint_name="acme-nlp--llama")) is None
        # SageMaker's endpoint names are case-insensitive: the ARN IAM matches is lowercase.
        assert admitted(admission, "nlp", kind, endpoint(kind, queue=queue, endpoint_name="ACME-NLP--Llama")) is None
        assert admitted(admission, "nlp", kind, endpoint(kind, queue=queue)) is None  # no SageMaker endpoint
        assert "label it kueue.x-k8s.io/queue-name" in admitted(
            admission, "nlp", kind, endpoint(kind, queue=None, endpoint_name="acme-nlp--llama")
        )
        assert "label it" in admitted(admission, "nlp", kind, endpoint(kind, queue=naming.team_local_queue("vision")))
        for theirs in ("acme-vision--llama", "acme-nlp-llama", "llama"):
            refusal = admitted(admission, "nlp", kind, endpoint(kind, queue=queue, endpoint_name=theirs))
            assert refusal and "starts with acme-nlp--" in refusal, (kind, theirs)


def test_an_endpoint_takes_no_s3_model_source_and_is_pointed_to_the_teams_data_volume(admission):
    """The operator mounts an S3 model source with the S3 CSI driver's own credentials, one identity for
    every team: refused, whichever bucket it names; the refusal says how to load from the team's data
    volume, and that way is admitted."""
    queue = naming.team_local_queue("nlp")
    own, theirs = (f"acme-{t}-data-{ACCOUNT}-{REGION}" for t in ("nlp", "vision"))
    kind = "inferenceendpointconfigs"
    for bucket in (own, theirs):
        refusal = admitted(admission, "nlp", kind, endpoint(kind, queue=queue, bucket=bucket))
        assert refusal and "modelSourceType: kubernetesVolume" in refusal and "claimName: team-data" in refusal
    source_type_only = endpoint(kind, queue=queue)
    source_type_only["spec"]["modelSourceConfig"] = {"modelSourceType": "s3"}
    assert "takes no S3 or FSx model source" in admitted(admission, "nlp", kind, source_type_only)
    # Another team's FSx file system, by its ID: the FSx CSI driver would mount it, no IAM decision.
    fsx = endpoint(kind, queue=queue)
    fsx["spec"]["modelSourceConfig"] = {"modelSourceType": "fsx", "fsxStorage": {"fileSystemId": "fs-0theirs"}}
    assert "takes no S3 or FSx model source" in admitted(admission, "nlp", kind, fsx)
    from_volume = endpoint(kind, queue=queue)
    from_volume["spec"].update(TEAM_DATA_MODEL)
    assert admitted(admission, "nlp", kind, from_volume) is None


#: An InferenceEndpointConfig's model from the team's data volume, as the refusal above spells it (the
#: operator's sample v1_nvme_k8s_volume_service_account.yaml, with the team's claim for its hostPath).
TEAM_DATA_MODEL = {
    "modelSourceConfig": {"modelSourceType": "kubernetesVolume"},
    "kubernetes": {
        "serviceAccountName": naming.TEAM_SERVICE_ACCOUNT,
        "volumes": [{"name": "model", "persistentVolumeClaim": {"claimName": naming.TEAM_DATA_CLAIM}}],
    },
    "worker": {"image": "vllm", "modelVolumeMount": {"name": "model", "mountPath": "/opt/ml/model"}},
}


def test_the_s3_csi_drivers_own_role_reads_no_teams_bucket(stacks):
    """What a token stolen from a node's S3 CSI driver reaches: no team's objects, listing or key."""
    cluster = stacks["acme-cluster"]["resource"]["aws_iam_role_policy"]
    (policy,) = [json.loads(v["policy"]) for v in cluster.values() if v["name"] == "read-models"]
    for team in ("nlp", "vision", "research"):
        bucket = f"arn:aws:s3:::acme-{team}-data-{ACCOUNT}-{REGION}"
        for action, resource in (("s3:GetObject", f"{bucket}/model.safetensors"), ("s3:ListBucket", bucket)):
            assert not allows([policy], action, resource), (team, action)
    key = f"arn:aws:kms:{REGION}:{ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    assert not allows([policy], "kms:Decrypt", key, context={"kms:ViaService": f"s3.{REGION}.amazonaws.com"})


def test_each_teams_data_volume_is_its_own_bucket_reserved_for_its_namespace_and_mounted_with_the_pods_credentials(
    stacks,
):
    """The PersistentVolume and claim of the team's data (awslabs/mountpoint-s3-csi-driver's
    pod_level_identity.yaml): the team's bucket, `authenticationSource: pod`, reserved by claimRef for
    `team-data` in the team's namespace, Retain; and the team's workload role reads and writes that
    bucket and no other team's (so a pod of another identity mounts nothing)."""
    for team in ("nlp", "vision", "research"):
        body = stacks[f"acme-k8s-{team}"]["resource"]["kubernetes_manifest"]
        volume = next(v["manifest"] for v in body.values() if v["manifest"]["kind"] == "PersistentVolume")
        claim = next(v["manifest"] for v in body.values() if v["manifest"]["kind"] == "PersistentVolumeClaim")
        namespace = naming.team_namespace(team)
        bucket = f"acme-{team}-data-{ACCOUNT}-{REGION}"
        assert volume["spec"]["csi"]["driver"] == "s3.csi.aws.com"
        assert volume["spec"]["csi"]["volumeAttributes"] == {"bucketName": bucket, "authenticationSource": "pod"}
        assert volume["spec"]["claimRef"] == {"namespace": namespace, "name": "team-data"}
        assert volume["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
        assert claim["metadata"]["namespace"] == namespace and claim["spec"]["volumeName"] == volume["metadata"]["name"]
        assert claim["spec"]["storageClassName"] == volume["spec"]["storageClassName"] == ""
        # The team stack's one inline policy named team-data: the workload role's (constructs/team.py).
        team_policies = stacks[f"acme-team-{team}"]["resource"]["aws_iam_role_policy"].values()
        workload = [json.loads(p["policy"]) for p in team_policies if p["name"] == "team-data"]
        assert len(workload) == 1
        for other in ("nlp", "vision", "research"):
            objects = f"arn:aws:s3:::acme-{other}-data-{ACCOUNT}-{REGION}/model.safetensors"
            assert allows(workload, "s3:GetObject", objects) == (other == team), (team, other)


#: `hyp invoke hyp-custom-endpoint` (cli/commands/inference.py): DescribeEndpoint (sagemaker_core's
#: Endpoint.get), then InvokeEndpoint.
ENDPOINT_CALLS = ("sagemaker:DescribeEndpoint", "sagemaker:InvokeEndpoint")


@pytest.mark.parametrize("role", naming.ROLES)
def test_a_team_member_invokes_and_describes_its_own_endpoints_and_no_other_teams(stacks, role):
    policy = permission_set_policy(stacks, f"acme-nlp-{role}")
    for action in ENDPOINT_CALLS:
        assert allows([policy], action, endpoint_arn("acme-nlp--llama"))
        for theirs in ("acme-vision--llama", "acme-nlp-llama", "llama", "acme-research--x"):
            assert not allows([policy], action, endpoint_arn(theirs)), (action, theirs)


def test_without_inference_no_team_role_invokes_an_endpoint(tmp_path):
    from hyperpod_teams import policies
    from hyperpod_teams.spec import validate_spec

    data = yaml.safe_load(SPEC.read_text())
    del data["cluster"]["inference"]
    spec = validate_spec(data)
    policy = policies.permission_set_policy_of(spec, spec.team("nlp"), "scientists")
    assert not allows([policy], "sagemaker:InvokeEndpoint", endpoint_arn("acme-nlp--llama"))


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (lambda d: d["teams"].append({"name": "nlp--x"}), "teams[3].name", "takes this team's"),
        (
            lambda d: (d["organization"].update(name="acme-platform-teams"), d["teams"].append({"name": "n" * 40})),
            "teams[3].name",
            "leaves fewer than",
        ),
        (lambda d: d["cluster"]["inference"].update(priority_class="urgent"), "cluster.inference.priority_class", ""),
        # The operator's images are published in the chart's regions only (values.yaml, repositoryDomainMap).
        (lambda d: d["organization"].update(region="ca-central-1"), "cluster.inference", "allow_unlisted_region"),
        # The dependency chart's own switch cannot render: the add-on is the way.
        (
            lambda d: d["cluster"].update(dependencies_chart={"components": {"hyperpod-inference-operator": True}}),
            "cluster.dependencies_chart.components.hyperpod-inference-operator",
            "cluster.inference installs",
        ),
    ],
)
def test_an_inference_setting_aws_or_the_chart_would_refuse_is_refused_naming_the_field(change, field, words):
    from hyperpod_teams.spec import SpecError, validate_spec

    data = yaml.safe_load(SPEC.read_text())
    change(data)
    with pytest.raises(SpecError) as raised:
        validate_spec(data)
    text = raised.value.render()
    assert field in text and words in text, text


# --- the inference operator's add-on, as its chart requires it ----------------------------------------


def resources(stacks: dict, kind: str, stack: str = "acme-cluster") -> dict:
    return stacks[stack]["resource"].get(kind, {})


def test_the_inference_add_on_gets_every_value_its_chart_requires(stacks):
    """The chart's _validateRequiredValues.tpl (charts/inference-operator, 011ca92) fails without
    executionRoleArn (named SageMakerHyperPodInference* for the add-on), tlsCertificateS3Bucket, the
    load balancer controller's role when it creates its service account and KEDA's IRSA role; the
    reference module passes hyperpodClusterArn and the gated-model role too."""
    addon = next(
        v for v in resources(stacks, "aws_eks_addon").values() if v["addon_name"] == addons.INFERENCE_OPERATOR_ADDON
    )
    config = addon["configuration_values"]
    keys = ("executionRoleArn", "tlsCertificateS3Bucket", "hyperpodClusterArn", "jumpstartGatedModelDownloadRoleArn",
            "alb", "serviceAccount", "roleArn", "keda", "irsa")  # fmt: skip
    for key in keys:
        assert key in config, key
    # The chart's enableCustomServiceAccounts (default false): a team's model pods run as team-workload.
    assert re.search(r'"enableCustomServiceAccounts"\s*[=:]\s*true', config), config
    roles = {v["name"]: v for v in resources(stacks, "aws_iam_role").values()}
    assert naming.inference_role_name("acme", "operator").startswith(addons.INFERENCE_ROLE_NAME_PREFIX)
    assert naming.inference_role_name("a" * 20, "operator").startswith(addons.INFERENCE_ROLE_NAME_PREFIX)
    trust = json.loads(roles[naming.inference_role_name("acme", "operator")]["assume_role_policy"])
    subjects = [
        v
        for s in trust["Statement"]
        for c in s.get("Condition", {}).values()
        for k, v in c.items()
        if k.endswith(":sub")
    ]
    assert subjects == [
        f"system:serviceaccount:{addons.INFERENCE_NAMESPACE}:{addons.INFERENCE_CONTROLLER_SERVICE_ACCOUNT}"
    ]


def test_the_inference_add_on_waits_for_the_nodes_cert_manager_and_the_s3_csi_driver(stacks):
    added = resources(stacks, "aws_eks_addon")
    (key,) = [k for k, v in added.items() if v["addon_name"] == addons.INFERENCE_OPERATOR_ADDON]
    after = " ".join(added[key]["depends_on"])
    assert "aws_cloudcontrolapi_resource.hyperpod" in after
    assert "cert-manager" in after and "s3-csi-driver" in after


# --- Spaces ------------------------------------------------------------------------------------------


def space_steps(namespace: str) -> list[Request]:
    """`hyp create|list|describe|update|start|stop|delete hyp-space`, `hyp create hyp-space-access`,
    `hyp get-logs hyp-space` and `hyp portforward hyp-space` (space/hyperpod_space.py)."""
    space, conn = (addons.SPACE_API_GROUP, addons.SPACE_RESOURCE), addons.SPACE_CONNECTION_API_GROUP
    return [
        ("create", *space, namespace, None),
        ("list", *space, namespace, None),
        ("get", *space, namespace, "notebook"),
        ("patch", *space, namespace, "notebook"),
        ("create", conn, addons.SPACE_CONNECTION_RESOURCE, namespace, None),
        ("list", "", "pods", namespace, None),
        ("get", "", "pods/log", namespace, "notebook-0"),
        ("get", "", "pods", namespace, "notebook-0"),
        ("create", "", "pods/portforward", namespace, "notebook-0"),
        ("delete", *space, namespace, "notebook"),
    ]


@pytest.mark.parametrize("role", naming.ROLES)
def test_a_team_member_creates_opens_and_deletes_a_space_in_its_own_namespace_only(manifests, role):
    group = naming.team_kubernetes_group("nlp", role)
    assert [s for s in space_steps(naming.team_namespace("nlp")) if not rbac_allows(manifests, group, s)] == []
    assert [s for s in space_steps(naming.team_namespace("vision")) if rbac_allows(manifests, group, s)] == []


def test_a_space_runs_under_the_teams_queue(admission):
    """`hyp create hyp-space --queue-name` sets the label (hyperpod-space-template 1.1, model.py)."""
    space = {"metadata": {"name": "notebook", "labels": {"kueue.x-k8s.io/queue-name": naming.team_local_queue("nlp")}}}
    bare = {"metadata": {"name": "notebook"}}
    assert admitted(admission, "nlp", addons.SPACE_RESOURCE, space, group=addons.SPACE_API_GROUP) is None
    assert "label it" in admitted(admission, "nlp", addons.SPACE_RESOURCE, bare, group=addons.SPACE_API_GROUP)


def test_each_team_roles_access_entry_gets_the_space_policies_aws_documents_scoped_to_its_namespace(stacks):
    """SageMaker developer guide, "Add users and set up service accounts": AmazonSagemakerHyperpodSpacePolicy
    scoped to the namespace the member creates spaces in, AmazonSagemakerHyperpodSpaceTemplatePolicy to
    jupyter-k8s-shared."""
    for team in ("nlp", "vision", "research"):
        associations = resources(stacks, "aws_eks_access_policy_association", f"acme-team-{team}").values()
        scopes = {(a["policy_arn"].rsplit("/", 1)[1], tuple(a["access_scope"]["namespaces"])) for a in associations}
        for role_scope in (
            (addons.SPACE_ACCESS_POLICY, (naming.team_namespace(team),)),
            (addons.SPACE_TEMPLATE_ACCESS_POLICY, (addons.SPACE_TEMPLATES_NAMESPACE,)),
        ):
            assert role_scope in scopes, (team, role_scope)
        spaces = [a for a in associations if a["policy_arn"].endswith(addons.SPACE_ACCESS_POLICY)]
        assert len(spaces) == len(naming.ROLES)


def test_spaces_install_with_the_controllers_role_and_the_ebs_driver(stacks):
    added = {v["addon_name"]: v for v in resources(stacks, "aws_eks_addon").values()}
    spaces = added[addons.SPACES_ADDON]
    assert spaces["pod_identity_association"][0]["service_account"] == addons.SPACES_CONTROLLER_SERVICE_ACCOUNT
    assert addons.EBS_CSI_ADDON in added
    attached = {v["policy_arn"].rsplit("/", 1)[1] for v in resources(stacks, "aws_iam_role_policy_attachment").values()}
    assert {addons.SPACES_CONTROLLER_MANAGED_POLICY, "AmazonEBSCSIDriverPolicy"} <= attached


@pytest.mark.parametrize("role", naming.ROLES)
def test_hyp_reads_the_spaces_add_on_version_and_no_other_teams_anything(stacks, role):
    policy = permission_set_policy(stacks, f"acme-nlp-{role}")
    eks = f"arn:aws:eks:{REGION}:{ACCOUNT}"
    assert allows([policy], "eks:DescribeAddon", f"{eks}:addon/{EKS}/{addons.SPACES_ADDON}/1")
    assert not allows([policy], "eks:DescribeAddon", f"{eks}:addon/{EKS}/{addons.INFERENCE_OPERATOR_ADDON}/1")


# --- monitoring ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("role", naming.ROLES)
def test_hyp_get_monitoring_is_allowed_for_every_team_role(stacks, role):
    """observability/utils.py: ListAddons on the EKS cluster, DescribeAddon of the observability add-on."""
    policy = permission_set_policy(stacks, f"acme-vision-{role}")
    eks = f"arn:aws:eks:{REGION}:{ACCOUNT}"
    assert allows([policy], "eks:ListAddons", f"{eks}:cluster/{EKS}")
    assert allows([policy], "eks:DescribeAddon", f"{eks}:addon/{EKS}/{addons.OBSERVABILITY_ADDON}/1")


def test_the_observability_add_on_holds_what_hyp_get_monitoring_reads_back(stacks):
    """hyp reads configurationValues' ampWorkspace.prometheusEndpoint, amgWorkspace.arn (the workspace ID
    at its end makes the Grafana URL) and metricsProvider (observability/utils.py, get_monitoring_config);
    the keys are read from that file where the journey tier installed the CLI."""
    addon = next(
        v for v in resources(stacks, "aws_eks_addon").values() if v["addon_name"] == addons.OBSERVABILITY_ADDON
    )
    config = addon["configuration_values"]
    assert "ampWorkspace" in config and "prometheusEndpoint" in config and "amgWorkspace" in config
    assert addon["pod_identity_association"][0]["service_account"] == addons.OBSERVABILITY_SERVICE_ACCOUNT
    source = next(
        Path(__file__)
        .resolve()
        .parents[1]
        .glob(".venv-journey/lib/python3*/site-packages/sagemaker/hyperpod/observability/utils.py"),
        None,
    )
    if source is not None:
        text = source.read_text()
        for key in ("'ampWorkspace']['prometheusEndpoint']", "'amgWorkspace']['arn']", "'metricsProvider']"):
            assert key in text, key


def test_the_teams_view_the_grafana_workspace_and_the_platform_admins_administer_it(stacks):
    roles = {v["role"]: v["group_ids"] for v in resources(stacks, "aws_grafana_role_association").values()}
    assert len(roles["VIEWER"]) == 6 and len(roles["ADMIN"]) == 1
    assert all("aws_identitystore_group" in g or "identitystore" in g for g in roles["VIEWER"] + roles["ADMIN"])
    workspace = next(iter(resources(stacks, "aws_grafana_workspace").values()))
    assert workspace["authentication_providers"] == ["AWS_SSO"]


# --- adoption -------------------------------------------------------------------------------------------


def test_add_ons_taken_over_are_imported_never_destroyed_and_those_left_alone_are_not_made(tmp_path):
    """existing_addon: take_over imports the add-on (its import ID, CLUSTER_NAME:ADDON_NAME, as the
    provider's aws_eks_addon takes it) with prevent_destroy, and finds the OIDC provider the running
    operator had; leave_alone makes nothing of it; the teams keep their access either way."""
    from hyperpod_teams import policies
    from hyperpod_teams.spec import validate_spec
    from tests.conftest import synthesize_stacks

    data = yaml.safe_load(SPEC.read_text())
    data["cluster"]["inference"]["existing_addon"] = "take_over"
    data["cluster"]["observability"]["existing_addon"] = "leave_alone"
    spec = validate_spec(data)
    cluster = synthesize_stacks(spec, tmp_path)["acme-cluster"]
    imports = {i["id"]: i["to"] for i in cluster.get("import", [])}
    # The created EKS cluster's name comes from the EKS stack's state.
    (address,) = [to for id_, to in imports.items() if id_.endswith(f"name}}:{addons.INFERENCE_OPERATOR_ADDON}")]
    addon = cluster["resource"]["aws_eks_addon"][address.split(".", 1)[1]]
    assert addon["lifecycle"]["prevent_destroy"] is True
    assert "aws_iam_openid_connect_provider" not in cluster["resource"]
    names = {a["addon_name"] for a in cluster["resource"]["aws_eks_addon"].values()}
    assert addons.OBSERVABILITY_ADDON not in names and "aws_prometheus_workspace" not in cluster["resource"]
    policy = policies.permission_set_policy_of(spec, spec.team("nlp"), "scientists")
    assert allows([policy], "sagemaker:InvokeEndpoint", endpoint_arn("acme-nlp--llama"))
    assert allows(
        [policy], "eks:DescribeAddon", f"arn:aws:eks:{REGION}:{ACCOUNT}:addon/{EKS}/{addons.OBSERVABILITY_ADDON}/1"
    )


#: The operator role's S3 grant as AWS's own troubleshooting page writes it ("Inference operator fails
#: to start", sagemaker-hyperpod-model-deployment-ts-startup): the widest its managed policy could be.
WIDEST_OPERATOR_S3 = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Action": ["s3:ListBucket", "s3:PutObject", "s3:GetObject", "s3:DeleteObject", "kms:Decrypt"],
            "Resource": "*",
        }
    ],
}


@pytest.mark.parametrize("purpose", ["operator", "gated-models"])
def test_the_roles_with_aws_managed_policies_reach_no_teams_data_whatever_those_grant(stacks, purpose):
    """The operator's and the gated models' roles carry AWS managed policies the stacks cannot narrow:
    with the widest S3 grant those could hold, the roles' own deny leaves every team's bucket and
    team-tagged key out, and the operator's TLS bucket in."""
    role = naming.inference_role_name("acme", purpose)
    cluster = stacks["acme-cluster"]["resource"]
    role_ids = {k for k, v in cluster["aws_iam_role"].items() if v["name"] == role}
    inline = [
        json.loads(v["policy"])
        for v in cluster["aws_iam_role_policy"].values()
        if any(f"aws_iam_role.{k}." in v["role"] for k in role_ids)
    ]
    assert inline, role
    policies = [WIDEST_OPERATOR_S3, *inline]
    for team in ("nlp", "vision", "research"):
        bucket = f"arn:aws:s3:::acme-{team}-data-{ACCOUNT}-{REGION}"
        assert not allows(policies, "s3:GetObject", f"{bucket}/model.safetensors"), (purpose, team)
        assert not allows(policies, "s3:ListBucket", bucket), (purpose, team)
        key = f"arn:aws:kms:{REGION}:{ACCOUNT}:key/k"
        assert not allows(policies, "kms:Decrypt", key, {"aws:ResourceTag/hyperpod-teams:team": team})
    tls = naming.inference_tls_bucket_name("acme", ACCOUNT, REGION)
    assert allows(policies, "s3:GetObject", f"arn:aws:s3:::{tls}/cert.pem")
