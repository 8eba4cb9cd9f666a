"""The one door through which the construct layer reaches the prebuilt provider bindings.

Modules load on first use (`bindings.aws_provider`), so a plugin's bindings are imported only
when that plugin builds, and the pure layer never pays for them.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: Short name -> bindings module. Keep sorted by package; add what a construct needs.
MODULES = {
    "aws_provider": "cdktf_cdktf_provider_aws.provider",
    "aws_budgets_budget": "cdktf_cdktf_provider_aws.budgets_budget",
    "aws_ce_cost_allocation_tag": "cdktf_cdktf_provider_aws.ce_cost_allocation_tag",
    "aws_ce_cost_category": "cdktf_cdktf_provider_aws.ce_cost_category",
    "aws_data_eks_cluster": "cdktf_cdktf_provider_aws.data_aws_eks_cluster",
    "aws_data_identitystore_group": "cdktf_cdktf_provider_aws.data_aws_identitystore_group",
    "aws_eks_cluster": "cdktf_cdktf_provider_aws.eks_cluster",
    "aws_cloudcontrolapi_resource": "cdktf_cdktf_provider_aws.cloudcontrolapi_resource",
    "aws_eks_addon": "cdktf_cdktf_provider_aws.eks_addon",
    "aws_iam_role": "cdktf_cdktf_provider_aws.iam_role",
    "aws_iam_role_policy": "cdktf_cdktf_provider_aws.iam_role_policy",
    "aws_iam_role_policy_attachment": "cdktf_cdktf_provider_aws.iam_role_policy_attachment",
    "aws_s3_bucket": "cdktf_cdktf_provider_aws.s3_bucket",
    "aws_s3_bucket_policy": "cdktf_cdktf_provider_aws.s3_bucket_policy",
    "aws_s3_bucket_public_access_block": "cdktf_cdktf_provider_aws.s3_bucket_public_access_block",
    "aws_s3_bucket_server_side_encryption_configuration": (
        "cdktf_cdktf_provider_aws.s3_bucket_server_side_encryption_configuration"
    ),
    "aws_s3_bucket_versioning": "cdktf_cdktf_provider_aws.s3_bucket_versioning",
    "aws_s3_object": "cdktf_cdktf_provider_aws.s3_object",
    "aws_sagemaker_domain": "cdktf_cdktf_provider_aws.sagemaker_domain",
    "aws_ssoadmin_application_assignment": "cdktf_cdktf_provider_aws.ssoadmin_application_assignment",
    "azuread_provider": "cdktf_cdktf_provider_azuread.provider",
    "helm_provider": "cdktf_cdktf_provider_helm.provider",
    "helm_release": "cdktf_cdktf_provider_helm.release",
    "kubernetes_namespace": "cdktf_cdktf_provider_kubernetes.namespace_v1",
    "kubernetes_provider": "cdktf_cdktf_provider_kubernetes.provider",
}


def __getattr__(name: str) -> ModuleType:
    try:
        module_name = MODULES[name]
    except KeyError:
        raise AttributeError(f"no provider bindings module {name!r} in hyperpod_teams.bindings") from None
    module = importlib.import_module(module_name)
    globals()[name] = module
    return module


def preload(prefixes: tuple[str, ...] = ("aws_", "helm_", "kubernetes_")) -> None:
    """Import the core stacks' bindings now (to show progress while they load), not mid-build.

    A plugin's own bindings (azuread, ...) still load only when the plugin builds.
    """
    for name in MODULES:
        if name.startswith(prefixes):
            __getattr__(name)
