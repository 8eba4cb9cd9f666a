"""What the spec installs on the cluster beside HyperPod: its dependency Helm chart, the training
operator, and the inference operator, Spaces and observability add-ons (each created, or an existing
add-on adopted).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    Field,
)

from hyperpod_teams import addons
from hyperpod_teams.spec.field_types import PriorityClassName, PrivateCidr, SpecModel, optional, pattern

#: The dependency chart's components (`helm_chart/HyperPodHelmChart/Chart.yaml` of
#: aws/sagemaker-hyperpod-cli at DEPENDENCIES_CHART_REF): spec name -> the chart value that turns
#: it on or off (the dependency's `condition`).
DEPENDENCIES_CHART_COMPONENTS: dict[str, str] = {
    "cert-manager": "cert-manager.enabled",
    "training-operators": "trainingOperators.enabled",
    "mlflow": "mlflow.enabled",
    "nvidia-device-plugin": "nvidia-device-plugin.devicePlugin.enabled",
    "aws-efa-k8s-device-plugin": "aws-efa-k8s-device-plugin.devicePlugin.enabled",
    "neuron-device-plugin": "neuron-device-plugin.devicePlugin.enabled",
    "storage": "storage.enabled",
    "health-monitoring-agent": "health-monitoring-agent.enabled",
    "mpi-operator": "mpi-operator.enabled",
    "deep-health-check": "deep-health-check.enabled",
    "job-auto-restart": "job-auto-restart.enabled",
    "cluster-role-and-bindings": "cluster-role-and-bindings.enabled",
    "namespaced-role-and-bindings": "namespaced-role-and-bindings.enabled",
    "team-role-and-bindings": "team-role-and-bindings.enabled",
    "hyperpod-inference-operator": "inferenceOperators.enabled",
    "hyperpod-patching": "hyperpod-patching.enabled",
    "gpu-operator": "gpu-operator.enabled",
}


ChartComponent = Literal[
    "cert-manager",
    "training-operators",
    "mlflow",
    "nvidia-device-plugin",
    "aws-efa-k8s-device-plugin",
    "neuron-device-plugin",
    "storage",
    "health-monitoring-agent",
    "mpi-operator",
    "deep-health-check",
    "job-auto-restart",
    "cluster-role-and-bindings",
    "namespaced-role-and-bindings",
    "team-role-and-bindings",
    "hyperpod-inference-operator",
    "hyperpod-patching",
    "gpu-operator",
]


#: The release of aws/sagemaker-hyperpod-cli whose chart the stacks install by default.
DEPENDENCIES_CHART_REF = "v3.9.0"


DEPENDENCIES_CHART_REPOSITORY = "https://github.com/aws/sagemaker-hyperpod-cli"


#: Where the default chart path expects the clone: beside the output folder.
DEPENDENCIES_CHART_CLONE_DIR = "sagemaker-hyperpod-cli"


class DependenciesChart(SpecModel):
    """The Helm chart HyperPod on EKS needs in the cluster before the HyperPod cluster exists
    (health-monitoring agent, device plugins, training operator...). Optional field, not in
    spec-v1.md's list: the defaults follow HyperPod's own instructions."""

    install: bool = Field(default=True, description="Set false when the chart is installed already.")
    git_ref: str = Field(
        default=DEPENDENCIES_CHART_REF,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$",
        description="Tag or commit of aws/sagemaker-hyperpod-cli to clone the chart from: the "
        "runbook's clone command checks it out, and the stack's plan stops with that command when "
        "the chart is not where `chart` says.",
    )
    components: dict[ChartComponent, bool] = Field(
        default_factory=dict,
        description="Turn the chart's components on or off, e.g. {mlflow: true, gpu-operator: false}; "
        "an absent component keeps the chart's own default.",
    )
    chart: str = Field(
        default=f"../../../{DEPENDENCIES_CHART_CLONE_DIR}/helm_chart/HyperPodHelmChart",
        min_length=1,
        description="Chart path or name. A relative path is read from the stack's working folder "
        "(<out>/stacks/<stack>): the default is a clone of aws/sagemaker-hyperpod-cli beside the "
        "output folder.",
    )
    repository: str | None = optional("Chart repository URL, for a chart name.")
    version: str | None = None
    namespace: str = "kube-system"
    release_name: str = Field(
        default="hyperpod-dependencies",
        min_length=1,
        # Helm refuses a longer release name (helm pkg/chartutil ValidateReleaseName: "release name
        # exceeds max length of 53"); a DNS-1123 label otherwise.
        max_length=53,
        pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
    )


AddonVersion = Annotated[
    str,
    pattern(
        r"^v[0-9]+\.[0-9]+\.[0-9]+-eksbuild\.[0-9]+$",
        "an EKS add-on version as `aws eks describe-addon-versions` lists it, such as v1.2.1-eksbuild.1",
    ),
]


class TrainingOperator(SpecModel):
    """The SageMaker HyperPod training operator (EKS add-on amazon-sagemaker-hyperpod-training-operator):
    what `hyp create hyp-pytorch-job` needs (its CRD hyperpodpytorchjobs.sagemaker.amazonaws.com),
    with what AWS's "Installing the training operator" lists before it: cert-manager and the EKS Pod
    Identity agent. Optional addition within spec v1."""

    install: bool | None = optional(
        "Install the training operator add-on, its IAM role "
        "(AmazonSageMakerHyperPodTrainingOperatorAccess) and Pod Identity association, in <org>-cluster. "
        "Default: true for a HyperPod cluster the stacks create, false for an adopted one (install it there "
        "only when the cluster does not have it yet)."
    )
    version: AddonVersion = Field(
        default=addons.TRAINING_OPERATOR_VERSION, description="Version of the training operator add-on."
    )
    install_cert_manager: bool = Field(
        default=True,
        description="Install the cert-manager EKS add-on the operator needs; set false when the cluster has "
        "cert-manager already (creating it twice fails).",
    )
    cert_manager_version: AddonVersion = Field(
        default=addons.CERT_MANAGER_VERSION, description="Version of the cert-manager add-on."
    )
    install_pod_identity_agent: bool = Field(
        default=True,
        description="Install the EKS Pod Identity agent add-on the operator's credentials come through (in "
        "<org>-cluster, shared with cost.usage_reports); set false when the cluster has it already.",
    )


#: An add-on the cluster has already: imported into the stacks, or kept out of them.
ExistingAddon = Literal["take_over", "leave_alone"]


class Inference(SpecModel):
    """The HyperPod inference operator (EKS add-on amazon-sagemaker-hyperpod-inference): what `hyp create
    hyp-jumpstart-endpoint`, `hyp create hyp-custom-endpoint` and `hyp invoke` need. Optional addition
    within spec v1: absent, no inference."""

    existing_addon: ExistingAddon | None = optional(
        "The cluster has the add-on already: take_over imports it (the stacks make its roles, bucket and "
        "configuration and manage it from then on, never deleting it), leave_alone keeps it and everything it uses "
        "out of the stacks; either way the teams get their access to it. Absent: the stacks install it with its roles "
        "(operator, load balancer controller, KEDA, JumpStart gated models), the TLS-certificate bucket and the "
        "Mountpoint for S3 CSI driver."
    )
    version: AddonVersion | None = optional("Version of the add-on; unset: the one EKS makes the default.")
    install_s3_csi_driver: bool = Field(
        default=True,
        description="Install the Mountpoint for S3 CSI driver add-on, whose own role reads no bucket: each team's "
        "claim team-data mounts the team's bucket with its pods' credentials (authenticationSource: pod, driver v2); "
        "set false when the cluster has the driver already.",
    )
    create_oidc_provider: bool | None = optional(
        "Create the IAM OIDC provider of the EKS cluster, through which the operator's components get "
        "their roles (IRSA); false when the account has it already (IAM refuses a second one). Default: true, "
        "false when taking over an operator (which had it)."
    )

    @property
    def creates_oidc_provider(self) -> bool:
        if self.create_oidc_provider is not None:
            return self.create_oidc_provider
        return self.existing_addon is None

    priority_class: PriorityClassName | None = optional(
        "The priority class the docs and the report give endpoints (label kueue.x-k8s.io/priority-class); "
        "one of task_governance.priority_classes."
    )
    load_balancer_cidrs: list[PrivateCidr] = Field(
        default_factory=list,
        max_length=20,
        description="(addition) The ranges of the subnets the endpoints' load balancer runs in: the team "
        "namespaces' network policy admits connections from them (the load balancer's targets are the model pods' "
        "addresses). Give the load balancer subnets no team pod runs in; empty: no load balancer reaches the model "
        'pods (docs/security.md, "The pod network").',
    )
    allow_unlisted_region: bool = Field(
        default=False,
        description="Install the operator in a region its images are not published in as hyperpod_teams/addons.py "
        "lists them (INFERENCE_REGIONS, from the operator's chart), for a region AWS added since. Without it, validate "
        "refuses such a region.",
    )


class Spaces(SpecModel):
    """SageMaker Spaces on the cluster (EKS add-on amazon-sagemaker-spaces): IDEs and notebooks that run in a
    team's namespace under its quota (`hyp create hyp-space`). Optional addition within spec v1."""

    existing_addon: ExistingAddon | None = optional(
        "The cluster has the add-on already: take_over imports it, leave_alone keeps it out of the stacks; "
        "either way the teams get their access entries' space policies. Absent: the stacks install it with its "
        "controller's role (AmazonSageMakerSpacesControllerPolicy)."
    )
    version: AddonVersion | None = optional("Version of the add-on; unset: EKS's default.")
    install_ebs_csi_driver: bool = Field(
        default=True,
        description="Install the Amazon EBS CSI driver add-on the spaces keep their home on, with its role; set false "
        "when the cluster has it already.",
    )


class Observability(SpecModel):
    """The HyperPod observability add-on (amazon-sagemaker-hyperpod-observability) with an Amazon Managed Service
    for Prometheus workspace and, where offered, an Amazon Managed Grafana one: what `hyp get-monitoring` shows.
    Optional addition within spec v1."""

    existing_addon: ExistingAddon | None = optional(
        "The cluster has the add-on already: take_over imports it and points it at the stacks' workspaces "
        "(the old workspace keeps its data, no longer written to), leave_alone keeps it and its workspaces out of the "
        "stacks; either way `hyp get-monitoring` works for the team roles. Absent: the stacks install it with its "
        "collector's role and the workspaces."
    )
    grafana: bool = Field(
        default=True,
        description="Make an Amazon Managed Grafana workspace (IAM Identity Center sign-in) where the region offers "
        "it; the teams' groups are its viewers.",
    )


def installs(add_on: Inference | Spaces | Observability | None) -> bool:
    """Whether the stacks make the add-on (or take it over), rather than find it absent or leave it alone."""
    return add_on is not None and add_on.existing_addon != "leave_alone"
