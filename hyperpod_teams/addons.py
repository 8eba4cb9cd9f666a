"""The EKS add-ons HyperPod needs on its EKS cluster, and how the stacks check their versions.
Pure layer: names, versions and Terraform expressions only.

The VPC CNI: HyperPod on EKS requires the Amazon VPC CNI add-on at 1.18.3 or later (SageMaker
developer guide, "Getting started with Amazon EKS support in SageMaker HyperPod", Networking). A
created EKS cluster gets it as a managed add-on at the version AWS makes the default for the
cluster's Kubernetes version (a version pinned here could be one AWS does not offer for that
Kubernetes version); on an EKS cluster that exists already the stacks read the managed add-on's
version. Both stop at the floor with the version found and the command that lifts it.
"""

from __future__ import annotations

VPC_CNI_ADDON = "vpc-cni"
#: The Amazon CloudWatch Observability add-on (Container Insights) and the managed policy its agent
#: needs on the nodes it runs on (CloudWatch user guide, "Install the CloudWatch agent with the
#: Amazon CloudWatch Observability EKS add-on": attach CloudWatchAgentServerPolicy to the nodes' role).
CLOUDWATCH_OBSERVABILITY_ADDON = "amazon-cloudwatch-observability"
CLOUDWATCH_AGENT_MANAGED_POLICY = "CloudWatchAgentServerPolicy"
VPC_CNI_MINIMUM = (1, 18, 3)

#: The SageMaker HyperPod training operator and what it needs (SageMaker developer guide, "Installing
#: the training operator": cert-manager and the EKS Pod Identity agent first; the operator's controller
#: gets AWS credentials through a Pod Identity association of its service account with a role that
#: has AmazonSageMakerHyperPodTrainingOperatorAccess). Names and the standalone association as in
#: awslabs/awsome-distributed-training, terraform-modules/hyperpod-eks-tf/modules/
#: hyperpod_training_operator/main.tf (an inline association in the add-on is refused for
#: v1.2.1-eksbuild.1: "Pod Identity feature is not supported for addon version").
TRAINING_OPERATOR_ADDON = "amazon-sagemaker-hyperpod-training-operator"
#: The version AWS made the default for Kubernetes 1.28 to 1.35 (the same module's note, 2026-06).
TRAINING_OPERATOR_VERSION = "v1.2.1-eksbuild.1"
TRAINING_OPERATOR_NAMESPACE = "aws-hyperpod"
TRAINING_OPERATOR_SERVICE_ACCOUNT = "hp-training-operator-controller-manager"
TRAINING_OPERATOR_MANAGED_POLICY = "AmazonSageMakerHyperPodTrainingOperatorAccess"
#: The custom resource `hyp create hyp-pytorch-job` creates (aws/sagemaker-hyperpod-cli v3.9.0,
#: common/cli_decorators.py checks the CRD is there first).
TRAINING_JOB_CRD = "hyperpodpytorchjobs.sagemaker.amazonaws.com"
CERT_MANAGER_ADDON = "cert-manager"
#: awsome-distributed-training's modules/hyperpod_cluster/variables.tf, cert_manager_version.
CERT_MANAGER_VERSION = "v1.18.2-eksbuild.2"
POD_IDENTITY_AGENT_ADDON = "eks-pod-identity-agent"


def tolerate_every_taint() -> dict:
    """cert-manager's add-on configuration, as awsome-distributed-training's cert_manager.tf writes it:
    one replica of each component, tolerating every taint, so it schedules on HyperPod nodes (which
    carry taints while their health checks run)."""
    tolerations = [{"operator": "Exists", "effect": e} for e in ("NoSchedule", "NoExecute", "PreferNoSchedule")]
    component = {"replicaCount": 1, "tolerations": tolerations}
    return {**component, "webhook": dict(component), "cainjector": dict(component)}


def version_text(version: tuple[int, int, int]) -> str:
    return ".".join(map(str, version))


def version_at_least(expression: str, minimum: tuple[int, int, int]) -> str:
    """A Terraform expression (without `${}`) that is true when `expression`, an add-on version
    such as `v1.19.2-eksbuild.1`, is `minimum` or later; false for anything else (`try`: Terraform
    evaluates both sides of `&&`, so a version that does not parse must not reach `tonumber`)."""
    major, minor, patch = minimum
    parts = f'regex("^v?([0-9]+)\\\\.([0-9]+)\\\\.([0-9]+)", {expression})'
    return (
        f"try([for v in [[for p in {parts} : tonumber(p)]] : "
        f"v[0] > {major} || (v[0] == {major} && (v[1] > {minor} || (v[1] == {minor} && v[2] >= {patch})))][0], false)"
    )


def vpc_cni_fix(cluster_name: str, region: str) -> str:
    """What to run when the VPC CNI is older than HyperPod needs (EKS user guide, "Update the
    Amazon VPC CNI (Amazon EKS add-on)"): list the versions for the cluster's Kubernetes version,
    then update to one at the floor or later."""
    floor = version_text(VPC_CNI_MINIMUM)
    return (
        f"aws eks describe-addon-versions --addon-name {VPC_CNI_ADDON} --region {region} "
        f"--kubernetes-version $(aws eks describe-cluster --name {cluster_name} --region {region} "
        f"--query cluster.version --output text) --query 'addons[].addonVersions[].addonVersion', then "
        f"aws eks update-addon --cluster-name {cluster_name} --addon-name {VPC_CNI_ADDON} --region {region} "
        f"--addon-version <a version of {floor} or later> --resolve-conflicts PRESERVE"
    )


#: The VPC CNI's configuration on a cluster the stacks create: its network policy agent on, so the team
#: namespaces' NetworkPolicies are enforced (EKS user guide, "Restrict Pod network traffic with Kubernetes
#: network policies": `enableNetworkPolicy`, a string in the add-on's configuration schema).
VPC_CNI_CONFIGURATION = {"enableNetworkPolicy": "true"}
NETWORK_POLICY_CHECK = "vpc_cni_enforces_network_policies"


def network_policy_condition(configuration_values: str) -> str:
    """Terraform's condition that the VPC CNI's configuration (`configuration_values`, an expression
    of the add-on's JSON) turns its network policy agent on."""
    return f'${{try(jsondecode({configuration_values}).enableNetworkPolicy, "false") == "true"}}'


def network_policy_message(cluster_name: str, region: str) -> str:
    return (
        f"The VPC CNI of {cluster_name} does not enforce network policies: the team namespaces' "
        "NetworkPolicies hold nothing until it does. Turn it on: aws eks update-addon --cluster-name "
        f"{cluster_name} --region {region} --addon-name {VPC_CNI_ADDON} --resolve-conflicts PRESERVE "
        '--configuration-values \'{"enableNetworkPolicy": "true"}\''
    )


def vpc_cni_floor_condition() -> str:
    """The postcondition on the VPC CNI add-on (resource or data source): `self.addon_version`."""
    return "${" + version_at_least("self.addon_version", VPC_CNI_MINIMUM) + "}"


def vpc_cni_floor_message(cluster_name: str, region: str, *, existing: bool) -> str:
    """Terraform prints the message as it is: the version found is in the plan's error context
    (`self.addon_version`), the fix here."""
    floor = version_text(VPC_CNI_MINIMUM)
    where = f"the EKS cluster {cluster_name}" if existing else f"the new EKS cluster {cluster_name}"
    return (
        f"HyperPod needs the VPC CNI add-on ({VPC_CNI_ADDON}) at {floor} or later; {where} has "
        f"${{self.addon_version}}. Update it: {vpc_cni_fix(cluster_name, region)}"
    )


# --- inference, Spaces and observability add-ons (cluster.inference, .spaces, .observability) ---------
#
# The HyperPod inference operator as an EKS add-on, configured as awslabs/awsome-distributed-training
# configures it (terraform-modules/hyperpod-eks-tf/modules/hyperpod_inference_operator/main.tf at
# 0edaf152) and as aws/sagemaker-hyperpod-cli's Helm-to-add-on migration does (helm_chart/
# HyperPodHelmChart/charts/inference-operator/migration/helm_to_addon.sh at 011ca92): an execution role
# for the operator, the ALB controller's and KEDA's roles (IRSA, through the EKS cluster's OIDC
# provider), the JumpStart gated-model role, a bucket for the endpoints' TLS certificates, and the
# Mountpoint for S3 CSI driver add-on it mounts S3 models with.
INFERENCE_OPERATOR_ADDON = "amazon-sagemaker-hyperpod-inference"
INFERENCE_NAMESPACE = "hyperpod-inference-system"
INFERENCE_CONTROLLER_SERVICE_ACCOUNT = "hyperpod-inference-controller-manager"
INFERENCE_ALB_SERVICE_ACCOUNT = "aws-load-balancer-controller"
INFERENCE_KEDA_SERVICE_ACCOUNT = "keda-operator"
#: The gated-model role is assumed by the model pods' service account in the endpoint's namespace.
INFERENCE_MODEL_SERVICE_ACCOUNT_PATTERN = "hyperpod-inference-service-account*"
INFERENCE_MANAGED_POLICY = "AmazonSageMakerHyperPodInferenceAccess"
GATED_MODEL_MANAGED_POLICY = "AmazonSageMakerHyperPodGatedModelAccess"
#: The add-on refuses an execution role named otherwise (the chart's _validateRequiredValues.tpl,
#: `isAddOn`: "executionRoleArn must have a role name with prefix 'SageMakerHyperPodInference'").
INFERENCE_ROLE_NAME_PREFIX = "SageMakerHyperPodInference"
#: Where the operator's images are published (the chart's values.yaml, `image.repositoryDomainMap`, at
#: 011ca92): the chart refuses any other region ("Unsupported AWS Region"), and the add-on runs the same
#: images.
INFERENCE_REGIONS = tuple(
    (
        "ap-northeast-1 ap-south-1 ap-southeast-1 ap-southeast-2 ap-southeast-3 ap-southeast-4 "
        "eu-central-1 eu-north-1 eu-south-2 eu-west-1 eu-west-2 sa-east-1 us-east-1 us-east-2 "
        "us-west-1 us-west-2"
    ).split()
)
S3_CSI_ADDON = "aws-mountpoint-s3-csi-driver"
S3_CSI_NAMESPACE = "kube-system"
S3_CSI_SERVICE_ACCOUNT = "s3-csi-driver-sa"
#: The Mountpoint for S3 CSI driver's name in a PersistentVolume (`csi.driver`), and the volume
#: attribute that mounts with the credentials of the pod's own service account (awslabs/
#: mountpoint-s3-csi-driver docs/CONFIGURATION.md, "Pod-Level Credentials": EKS Pod Identity or IRSA,
#: driver v2; the driver's own role is not used for such a volume).
S3_CSI_DRIVER = "s3.csi.aws.com"
S3_CSI_POD_CREDENTIALS = {"authenticationSource": "pod"}
#: The operator's custom resources (its CRDs in the same chart, config/crd): what a team creates.
INFERENCE_API_GROUP = "inference.sagemaker.aws.amazon.com"
INFERENCE_ENDPOINT_RESOURCES = ("jumpstartmodels", "inferenceendpointconfigs")
INFERENCE_REGISTRATIONS = "sagemakerendpointregistrations"

#: SageMaker Spaces on the cluster (SageMaker developer guide, "Set up permissions" and "Add users and
#: set up service accounts"): the add-on, its controller's managed policy, the access policies a data
#: scientist's access entry gets (the space policy scoped to the namespace they create spaces in, the
#: template policy to the shared templates' namespace), and the custom resources `hyp create hyp-space`
#: and `hyp create hyp-space-access` make (sagemaker-hyperpod 3.12.0, cli/constants/space_*constants.py).
SPACES_ADDON = "amazon-sagemaker-spaces"
SPACES_CONTROLLER_MANAGED_POLICY = "AmazonSageMakerSpacesControllerPolicy"
#: The add-on's controller and the service account its role is associated with (EKS Pod Identity: the
#: managed policy's conditions read the session tag eks-cluster-arn that Pod Identity sets).
SPACES_NAMESPACE = "jupyter-k8s-system"
SPACES_CONTROLLER_SERVICE_ACCOUNT = "jupyter-k8s-controller-manager"
#: Spaces keep their home on EBS volumes: the EBS CSI driver add-on, "always required" (SageMaker developer
#: guide, "Set up permissions"), its controller's role with AWS's managed policy (EKS user guide,
#: "Use Kubernetes volume storage with Amazon EBS").
EBS_CSI_ADDON = "aws-ebs-csi-driver"
EBS_CSI_SERVICE_ACCOUNT = "ebs-csi-controller-sa"
EBS_CSI_MANAGED_POLICY = "service-role/AmazonEBSCSIDriverPolicy"
SPACE_ACCESS_POLICY = "AmazonSagemakerHyperpodSpacePolicy"
SPACE_TEMPLATE_ACCESS_POLICY = "AmazonSagemakerHyperpodSpaceTemplatePolicy"
SPACE_TEMPLATES_NAMESPACE = "jupyter-k8s-shared"
SPACE_API_GROUP = "workspace.jupyter.org"
SPACE_RESOURCE = "workspaces"
SPACE_CONNECTION_API_GROUP = "connection.workspace.jupyter.org"
SPACE_CONNECTION_RESOURCE = "workspaceconnections"

#: The HyperPod observability add-on (awsome-distributed-training, modules/observability/eks_addon.tf
#: at 0edaf152): Amazon Managed Service for Prometheus receives what its collector scrapes (through a
#: Pod Identity association of this service account), Amazon Managed Grafana shows the dashboards.
OBSERVABILITY_ADDON = "amazon-sagemaker-hyperpod-observability"
OBSERVABILITY_SERVICE_ACCOUNT = "hyperpod-observability-operator-otel-collector"
#: The namespace the add-on runs its collector in (SageMaker developer guide, "Amazon SageMaker HyperPod
#: observability": `kubectl get pods -n hyperpod-observability`).
OBSERVABILITY_NAMESPACE = "hyperpod-observability"
#: Where Amazon Managed Grafana is offered (the same module's `amg_allowed_regions`).
GRAFANA_REGIONS = tuple(
    (
        "us-east-1 us-east-2 us-west-2 ap-northeast-1 ap-southeast-1 ap-southeast-2 eu-central-1 eu-west-1 eu-west-2"
    ).split()
)
#: The metric families the add-on collects, at the levels the reference module sets by default.
OBSERVABILITY_METRICS = (
    "trainingMetrics",
    "inferenceMetrics",
    "taskGovernanceMetrics",
    "scalingMetrics",
    "customMetrics",
    "nodeMetrics",
    "acceleratedComputeMetrics",
    "networkMetrics",
)


def observability_configuration(
    *, prometheus_endpoint: str, prometheus_arn: str, grafana: tuple[str, str] | None
) -> dict:
    """The observability add-on's configuration values, as the reference module writes them; `grafana`
    is (workspace name, ARN) where a Grafana workspace is made. `hyp get-monitoring` reads
    ampWorkspace.prometheusEndpoint, amgWorkspace.arn and metricsProvider back from it
    (sagemaker-hyperpod 3.12.0, observability/utils.py)."""
    config: dict = {
        "ampWorkspace": {"prometheusEndpoint": prometheus_endpoint, "arn": prometheus_arn},
        "metricsProvider": {name: {"level": "BASIC", "scrapeInterval": 30} for name in OBSERVABILITY_METRICS},
        "logging": {"enabled": False},
    }
    if grafana is not None:
        config["amgWorkspace"] = {"workspaceName": grafana[0], "arn": grafana[1]}
    return config
