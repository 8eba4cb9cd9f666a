"""The one door through which the construct layer reaches the prebuilt provider bindings.

Modules load on first use (`bindings.aws_provider`), so the pure layer never pays for them and a
plugin's bindings are imported only when that plugin builds. The core stacks' modules are named
here (MODULES); an identity-provider plugin registers its own (`register`) when it loads. Each
package loads without its block of every-submodule imports (hyperpod_teams.speedups.python_bindings
says why and how; the output is the same bytes).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from types import ModuleType
from typing import TYPE_CHECKING

from hyperpod_teams.speedups.python_bindings import (
    BINDINGS_PACKAGE_PREFIX,
    FULL_IMPORT_ENV,
    drop_argument_type_checks,
    import_package_without_submodules,
)


class MissingBindingsError(Exception):
    """A plugin's provider bindings are not installed: the user's environment lacks an extra."""


#: Short name -> bindings module of the core stacks. Keep sorted by package; add what a construct needs.
MODULES = {
    "aws_provider": "cdktf_cdktf_provider_aws.provider",
    "aws_athena_workgroup": "cdktf_cdktf_provider_aws.athena_workgroup",
    "aws_cloudwatch_event_rule": "cdktf_cdktf_provider_aws.cloudwatch_event_rule",
    "aws_cloudwatch_event_target": "cdktf_cdktf_provider_aws.cloudwatch_event_target",
    "aws_cloudwatch_log_group": "cdktf_cdktf_provider_aws.cloudwatch_log_group",
    "aws_eks_pod_identity_association": "cdktf_cdktf_provider_aws.eks_pod_identity_association",
    "aws_glue_catalog_database": "cdktf_cdktf_provider_aws.glue_catalog_database",
    "aws_glue_catalog_table": "cdktf_cdktf_provider_aws.glue_catalog_table",
    "aws_lambda_function": "cdktf_cdktf_provider_aws.lambda_function",
    "aws_lambda_permission": "cdktf_cdktf_provider_aws.lambda_permission",
    "aws_budgets_budget": "cdktf_cdktf_provider_aws.budgets_budget",
    "aws_ce_cost_allocation_tag": "cdktf_cdktf_provider_aws.ce_cost_allocation_tag",
    "aws_ce_cost_category": "cdktf_cdktf_provider_aws.ce_cost_category",
    "aws_data_cloudcontrolapi_resource": "cdktf_cdktf_provider_aws.data_aws_cloudcontrolapi_resource",
    "aws_data_eks_addon": "cdktf_cdktf_provider_aws.data_aws_eks_addon",
    "aws_data_eks_cluster": "cdktf_cdktf_provider_aws.data_aws_eks_cluster",
    "aws_data_iam_roles": "cdktf_cdktf_provider_aws.data_aws_iam_roles",
    "aws_data_identitystore_group": "cdktf_cdktf_provider_aws.data_aws_identitystore_group",
    "aws_eks_access_entry": "cdktf_cdktf_provider_aws.eks_access_entry",
    "aws_eks_access_policy_association": "cdktf_cdktf_provider_aws.eks_access_policy_association",
    "aws_eks_cluster": "cdktf_cdktf_provider_aws.eks_cluster",
    "aws_cloudcontrolapi_resource": "cdktf_cdktf_provider_aws.cloudcontrolapi_resource",
    "aws_eks_addon": "cdktf_cdktf_provider_aws.eks_addon",
    "aws_iam_role": "cdktf_cdktf_provider_aws.iam_role",
    "aws_iam_role_policy": "cdktf_cdktf_provider_aws.iam_role_policy",
    "aws_iam_role_policy_attachment": "cdktf_cdktf_provider_aws.iam_role_policy_attachment",
    "aws_s3_bucket": "cdktf_cdktf_provider_aws.s3_bucket",
    "aws_s3_bucket_lifecycle_configuration": "cdktf_cdktf_provider_aws.s3_bucket_lifecycle_configuration",
    "aws_s3_bucket_policy": "cdktf_cdktf_provider_aws.s3_bucket_policy",
    "aws_s3_bucket_public_access_block": "cdktf_cdktf_provider_aws.s3_bucket_public_access_block",
    "aws_s3_bucket_server_side_encryption_configuration": (
        "cdktf_cdktf_provider_aws.s3_bucket_server_side_encryption_configuration"
    ),
    "aws_s3_bucket_versioning": "cdktf_cdktf_provider_aws.s3_bucket_versioning",
    "aws_s3_object": "cdktf_cdktf_provider_aws.s3_object",
    "aws_identitystore_group": "cdktf_cdktf_provider_aws.identitystore_group",
    "aws_kms_alias": "cdktf_cdktf_provider_aws.kms_alias",
    "aws_kms_key": "cdktf_cdktf_provider_aws.kms_key",
    "aws_sagemaker_domain": "cdktf_cdktf_provider_aws.sagemaker_domain",
    "aws_sqs_queue": "cdktf_cdktf_provider_aws.sqs_queue",
    "aws_ssoadmin_account_assignment": "cdktf_cdktf_provider_aws.ssoadmin_account_assignment",
    "aws_ssoadmin_application_assignment": "cdktf_cdktf_provider_aws.ssoadmin_application_assignment",
    "aws_ssoadmin_permission_set": "cdktf_cdktf_provider_aws.ssoadmin_permission_set",
    "aws_ssoadmin_permission_set_inline_policy": "cdktf_cdktf_provider_aws.ssoadmin_permission_set_inline_policy",
    "helm_provider": "cdktf_cdktf_provider_helm.provider",
    "helm_release": "cdktf_cdktf_provider_helm.release",
    "kubernetes_cluster_role": "cdktf_cdktf_provider_kubernetes.cluster_role_v1",
    "kubernetes_cluster_role_binding": "cdktf_cdktf_provider_kubernetes.cluster_role_binding_v1",
    "kubernetes_namespace": "cdktf_cdktf_provider_kubernetes.namespace_v1",
    "kubernetes_role": "cdktf_cdktf_provider_kubernetes.role_v1",
    "kubernetes_role_binding": "cdktf_cdktf_provider_kubernetes.role_binding_v1",
    "kubernetes_provider": "cdktf_cdktf_provider_kubernetes.provider",
}


if TYPE_CHECKING:  # what editors and mypy see: the modules themselves (a test pins both lists equal)
    from cdktf_cdktf_provider_aws import athena_workgroup as aws_athena_workgroup  # noqa: F401
    from cdktf_cdktf_provider_aws import budgets_budget as aws_budgets_budget  # noqa: F401
    from cdktf_cdktf_provider_aws import ce_cost_allocation_tag as aws_ce_cost_allocation_tag  # noqa: F401
    from cdktf_cdktf_provider_aws import ce_cost_category as aws_ce_cost_category  # noqa: F401
    from cdktf_cdktf_provider_aws import cloudcontrolapi_resource as aws_cloudcontrolapi_resource  # noqa: F401
    from cdktf_cdktf_provider_aws import cloudwatch_event_rule as aws_cloudwatch_event_rule  # noqa: F401
    from cdktf_cdktf_provider_aws import cloudwatch_event_target as aws_cloudwatch_event_target  # noqa: F401
    from cdktf_cdktf_provider_aws import cloudwatch_log_group as aws_cloudwatch_log_group  # noqa: F401
    from cdktf_cdktf_provider_aws import data_aws_cloudcontrolapi_resource as aws_data_cloudcontrolapi_resource  # noqa: F401
    from cdktf_cdktf_provider_aws import data_aws_eks_addon as aws_data_eks_addon  # noqa: F401
    from cdktf_cdktf_provider_aws import data_aws_eks_cluster as aws_data_eks_cluster  # noqa: F401
    from cdktf_cdktf_provider_aws import data_aws_iam_roles as aws_data_iam_roles  # noqa: F401
    from cdktf_cdktf_provider_aws import data_aws_identitystore_group as aws_data_identitystore_group  # noqa: F401
    from cdktf_cdktf_provider_aws import eks_access_entry as aws_eks_access_entry  # noqa: F401
    from cdktf_cdktf_provider_aws import eks_access_policy_association as aws_eks_access_policy_association  # noqa: F401
    from cdktf_cdktf_provider_aws import eks_addon as aws_eks_addon  # noqa: F401
    from cdktf_cdktf_provider_aws import eks_cluster as aws_eks_cluster  # noqa: F401
    from cdktf_cdktf_provider_aws import eks_pod_identity_association as aws_eks_pod_identity_association  # noqa: F401
    from cdktf_cdktf_provider_aws import glue_catalog_database as aws_glue_catalog_database  # noqa: F401
    from cdktf_cdktf_provider_aws import glue_catalog_table as aws_glue_catalog_table  # noqa: F401
    from cdktf_cdktf_provider_aws import iam_role as aws_iam_role  # noqa: F401
    from cdktf_cdktf_provider_aws import iam_role_policy as aws_iam_role_policy  # noqa: F401
    from cdktf_cdktf_provider_aws import iam_role_policy_attachment as aws_iam_role_policy_attachment  # noqa: F401
    from cdktf_cdktf_provider_aws import identitystore_group as aws_identitystore_group  # noqa: F401
    from cdktf_cdktf_provider_aws import kms_alias as aws_kms_alias  # noqa: F401
    from cdktf_cdktf_provider_aws import kms_key as aws_kms_key  # noqa: F401
    from cdktf_cdktf_provider_aws import lambda_function as aws_lambda_function  # noqa: F401
    from cdktf_cdktf_provider_aws import lambda_permission as aws_lambda_permission  # noqa: F401
    from cdktf_cdktf_provider_aws import provider as aws_provider  # noqa: F401
    from cdktf_cdktf_provider_aws import s3_bucket as aws_s3_bucket  # noqa: F401
    from cdktf_cdktf_provider_aws import s3_bucket_lifecycle_configuration as aws_s3_bucket_lifecycle_configuration  # noqa: F401
    from cdktf_cdktf_provider_aws import s3_bucket_policy as aws_s3_bucket_policy  # noqa: F401
    from cdktf_cdktf_provider_aws import s3_bucket_public_access_block as aws_s3_bucket_public_access_block  # noqa: F401
    from cdktf_cdktf_provider_aws import (
        s3_bucket_server_side_encryption_configuration as aws_s3_bucket_server_side_encryption_configuration,  # noqa: F401
    )
    from cdktf_cdktf_provider_aws import s3_bucket_versioning as aws_s3_bucket_versioning  # noqa: F401
    from cdktf_cdktf_provider_aws import s3_object as aws_s3_object  # noqa: F401
    from cdktf_cdktf_provider_aws import sagemaker_domain as aws_sagemaker_domain  # noqa: F401
    from cdktf_cdktf_provider_aws import sqs_queue as aws_sqs_queue  # noqa: F401
    from cdktf_cdktf_provider_aws import ssoadmin_account_assignment as aws_ssoadmin_account_assignment  # noqa: F401
    from cdktf_cdktf_provider_aws import ssoadmin_application_assignment as aws_ssoadmin_application_assignment  # noqa: F401
    from cdktf_cdktf_provider_aws import ssoadmin_permission_set as aws_ssoadmin_permission_set  # noqa: F401
    from cdktf_cdktf_provider_aws import (
        ssoadmin_permission_set_inline_policy as aws_ssoadmin_permission_set_inline_policy,  # noqa: F401
    )
    from cdktf_cdktf_provider_helm import provider as helm_provider  # noqa: F401
    from cdktf_cdktf_provider_helm import release as helm_release  # noqa: F401
    from cdktf_cdktf_provider_kubernetes import cluster_role_binding_v1 as kubernetes_cluster_role_binding  # noqa: F401
    from cdktf_cdktf_provider_kubernetes import cluster_role_v1 as kubernetes_cluster_role  # noqa: F401
    from cdktf_cdktf_provider_kubernetes import namespace_v1 as kubernetes_namespace  # noqa: F401
    from cdktf_cdktf_provider_kubernetes import provider as kubernetes_provider  # noqa: F401
    from cdktf_cdktf_provider_kubernetes import role_binding_v1 as kubernetes_role_binding  # noqa: F401
    from cdktf_cdktf_provider_kubernetes import role_v1 as kubernetes_role  # noqa: F401


#: Modules plugins registered (`register`), and the extra of hyperpod-teams that installs each
#: plugin's bindings package.
PLUGIN_MODULES: dict[str, str] = {}
EXTRAS: dict[str, str] = {}


def register(modules: dict[str, str], *, extra: str | None = None) -> None:
    """Name a plugin's bindings modules (short name -> module), as MODULES names the core's; with
    `extra`, the error for missing bindings names `pip install 'hyperpod-teams[<extra>]'`."""
    for name, module in modules.items():
        if MODULES.get(name, module) != module or PLUGIN_MODULES.get(name, module) != module:
            raise ValueError(f"bindings module name {name!r} is registered already for another module")
        PLUGIN_MODULES[name] = module
        if extra:
            EXTRAS[module.partition(".")[0]] = extra


def __getattr__(name: str) -> ModuleType:
    module_name = MODULES.get(name) or PLUGIN_MODULES.get(name)
    if module_name is None:
        raise AttributeError(f"no provider bindings module {name!r} in hyperpod_teams.bindings")
    package = module_name.partition(".")[0]
    if importlib.util.find_spec(package) is None:
        extra = EXTRAS.get(package)
        install = f"pip install 'hyperpod-teams[{extra}]'" if extra else f"pip install {package.replace('_', '-')}"
        raise MissingBindingsError(f"the Terraform bindings {package} are not installed; run: {install}")
    if package.startswith(BINDINGS_PACKAGE_PREFIX) and not os.environ.get(FULL_IMPORT_ENV):
        import_package_without_submodules(package)
    module = importlib.import_module(module_name)
    drop_argument_type_checks()  # when the process opted in (hyperpod_teams.speedups)
    globals()[name] = module
    return module


def preload(prefixes: tuple[str, ...] = ("aws_", "helm_", "kubernetes_")) -> None:
    """Import the core stacks' bindings now (to show progress while they load), not mid-build.

    A plugin's own bindings (azuread, ...) still load only when the plugin builds.
    """
    for name in MODULES:
        if name.startswith(prefixes):
            __getattr__(name)
