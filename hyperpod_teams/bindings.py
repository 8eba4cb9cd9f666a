"""The one door through which the construct layer reaches the prebuilt provider bindings.

Modules load on first use (`bindings.aws_provider`), so the pure layer never pays for them and a
plugin's bindings are imported only when that plugin builds. Each is named without its engine,
`<provider>.<submodule>` (`aws.iam_role`); the engine of the process (hyperpod_teams.engine) says
which package holds it (`cdktn_provider_aws.iam_role` or `cdktf_cdktf_provider_aws.iam_role`).
The core stacks' modules are named here (MODULES); an identity-provider plugin registers its own
(`register`) when it loads. Each package loads without its block of every-submodule imports
(hyperpod_teams.speedups.python_bindings says why and how; the output is the same bytes).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from types import ModuleType
from typing import TYPE_CHECKING, Any

from hyperpod_teams import engine
from hyperpod_teams.install_hint import install_extras
from hyperpod_teams.speedups.python_bindings import (
    FULL_IMPORT_ENV,
    drop_argument_type_checks,
    import_package_without_submodules,
    is_bindings_package,
)


class MissingBindingsError(Exception):
    """A plugin's provider bindings are not installed, or not published for the process's engine."""


#: Short name -> bindings module (`<provider>.<submodule>`) of the core stacks. Keep sorted by
#: package; add what a construct needs.
MODULES = {
    "aws_provider": "aws.provider",
    "aws_athena_workgroup": "aws.athena_workgroup",
    "aws_cloudwatch_event_rule": "aws.cloudwatch_event_rule",
    "aws_cloudwatch_event_target": "aws.cloudwatch_event_target",
    "aws_cloudwatch_log_group": "aws.cloudwatch_log_group",
    "aws_eks_pod_identity_association": "aws.eks_pod_identity_association",
    "aws_glue_catalog_database": "aws.glue_catalog_database",
    "aws_glue_catalog_table": "aws.glue_catalog_table",
    "aws_lambda_function": "aws.lambda_function",
    "aws_lambda_permission": "aws.lambda_permission",
    "aws_budgets_budget": "aws.budgets_budget",
    "aws_ce_cost_allocation_tag": "aws.ce_cost_allocation_tag",
    "aws_ce_cost_category": "aws.ce_cost_category",
    "aws_data_cloudcontrolapi_resource": "aws.data_aws_cloudcontrolapi_resource",
    "aws_data_eks_addon": "aws.data_aws_eks_addon",
    "aws_data_eks_cluster": "aws.data_aws_eks_cluster",
    "aws_data_iam_roles": "aws.data_aws_iam_roles",
    "aws_data_identitystore_group": "aws.data_aws_identitystore_group",
    "aws_data_s3_objects": "aws.data_aws_s3_objects",
    "aws_data_ssm_parameters_by_path": "aws.data_aws_ssm_parameters_by_path",
    "aws_eks_access_entry": "aws.eks_access_entry",
    "aws_eks_access_policy_association": "aws.eks_access_policy_association",
    "aws_eks_cluster": "aws.eks_cluster",
    "aws_security_group": "aws.security_group",
    "aws_vpc_security_group_egress_rule": "aws.vpc_security_group_egress_rule",
    "aws_vpc_security_group_ingress_rule": "aws.vpc_security_group_ingress_rule",
    "aws_cloudcontrolapi_resource": "aws.cloudcontrolapi_resource",
    "aws_eks_addon": "aws.eks_addon",
    "aws_grafana_role_association": "aws.grafana_role_association",
    "aws_grafana_workspace": "aws.grafana_workspace",
    "aws_iam_openid_connect_provider": "aws.iam_openid_connect_provider",
    "aws_iam_policy": "aws.iam_policy",
    "aws_prometheus_workspace": "aws.prometheus_workspace",
    "aws_iam_role": "aws.iam_role",
    "aws_ssm_parameter": "aws.ssm_parameter",
    "aws_iam_role_policy": "aws.iam_role_policy",
    "aws_iam_role_policy_attachment": "aws.iam_role_policy_attachment",
    "aws_s3_bucket": "aws.s3_bucket",
    "aws_s3_bucket_lifecycle_configuration": "aws.s3_bucket_lifecycle_configuration",
    "aws_s3_bucket_policy": "aws.s3_bucket_policy",
    "aws_s3_bucket_public_access_block": "aws.s3_bucket_public_access_block",
    "aws_s3_bucket_server_side_encryption_configuration": ("aws.s3_bucket_server_side_encryption_configuration"),
    "aws_s3_bucket_versioning": "aws.s3_bucket_versioning",
    "aws_s3_object": "aws.s3_object",
    "aws_identitystore_group": "aws.identitystore_group",
    "aws_kms_alias": "aws.kms_alias",
    "aws_kms_key": "aws.kms_key",
    "aws_sagemaker_domain": "aws.sagemaker_domain",
    "aws_sqs_queue": "aws.sqs_queue",
    "aws_ssoadmin_account_assignment": "aws.ssoadmin_account_assignment",
    "aws_ssoadmin_customer_managed_policy_attachment": "aws.ssoadmin_customer_managed_policy_attachment",
    "aws_ssoadmin_application_assignment": "aws.ssoadmin_application_assignment",
    "aws_ssoadmin_permission_set": "aws.ssoadmin_permission_set",
    "aws_ssoadmin_permission_set_inline_policy": "aws.ssoadmin_permission_set_inline_policy",
    "helm_provider": "helm.provider",
    "helm_release": "helm.release",
    "kubernetes_cluster_role": "kubernetes.cluster_role_v1",
    "kubernetes_cluster_role_binding": "kubernetes.cluster_role_binding_v1",
    "kubernetes_labels": "kubernetes.labels",
    "kubernetes_manifest": "kubernetes.manifest",
    "kubernetes_namespace": "kubernetes.namespace_v1",
    "kubernetes_role": "kubernetes.role_v1",
    "kubernetes_role_binding": "kubernetes.role_binding_v1",
    "kubernetes_service_account": "kubernetes.service_account_v1",
    "kubernetes_provider": "kubernetes.provider",
}


if TYPE_CHECKING:  # what editors and mypy see: the default engine's modules (a test pins both lists equal)
    from cdktn_provider_aws import athena_workgroup as aws_athena_workgroup  # noqa: F401
    from cdktn_provider_aws import budgets_budget as aws_budgets_budget  # noqa: F401
    from cdktn_provider_aws import ce_cost_allocation_tag as aws_ce_cost_allocation_tag  # noqa: F401
    from cdktn_provider_aws import ce_cost_category as aws_ce_cost_category  # noqa: F401
    from cdktn_provider_aws import cloudcontrolapi_resource as aws_cloudcontrolapi_resource  # noqa: F401
    from cdktn_provider_aws import cloudwatch_event_rule as aws_cloudwatch_event_rule  # noqa: F401
    from cdktn_provider_aws import cloudwatch_event_target as aws_cloudwatch_event_target  # noqa: F401
    from cdktn_provider_aws import cloudwatch_log_group as aws_cloudwatch_log_group  # noqa: F401
    from cdktn_provider_aws import data_aws_cloudcontrolapi_resource as aws_data_cloudcontrolapi_resource  # noqa: F401
    from cdktn_provider_aws import data_aws_eks_addon as aws_data_eks_addon  # noqa: F401
    from cdktn_provider_aws import data_aws_eks_cluster as aws_data_eks_cluster  # noqa: F401
    from cdktn_provider_aws import data_aws_iam_roles as aws_data_iam_roles  # noqa: F401
    from cdktn_provider_aws import data_aws_identitystore_group as aws_data_identitystore_group  # noqa: F401
    from cdktn_provider_aws import data_aws_s3_objects as aws_data_s3_objects  # noqa: F401
    from cdktn_provider_aws import data_aws_ssm_parameters_by_path as aws_data_ssm_parameters_by_path  # noqa: F401
    from cdktn_provider_aws import eks_access_entry as aws_eks_access_entry  # noqa: F401
    from cdktn_provider_aws import eks_access_policy_association as aws_eks_access_policy_association  # noqa: F401
    from cdktn_provider_aws import eks_addon as aws_eks_addon  # noqa: F401
    from cdktn_provider_aws import eks_cluster as aws_eks_cluster  # noqa: F401
    from cdktn_provider_aws import eks_pod_identity_association as aws_eks_pod_identity_association  # noqa: F401
    from cdktn_provider_aws import glue_catalog_database as aws_glue_catalog_database  # noqa: F401
    from cdktn_provider_aws import glue_catalog_table as aws_glue_catalog_table  # noqa: F401
    from cdktn_provider_aws import grafana_role_association as aws_grafana_role_association  # noqa: F401
    from cdktn_provider_aws import grafana_workspace as aws_grafana_workspace  # noqa: F401
    from cdktn_provider_aws import iam_openid_connect_provider as aws_iam_openid_connect_provider  # noqa: F401
    from cdktn_provider_aws import iam_policy as aws_iam_policy  # noqa: F401
    from cdktn_provider_aws import iam_role as aws_iam_role  # noqa: F401
    from cdktn_provider_aws import iam_role_policy as aws_iam_role_policy  # noqa: F401
    from cdktn_provider_aws import iam_role_policy_attachment as aws_iam_role_policy_attachment  # noqa: F401
    from cdktn_provider_aws import identitystore_group as aws_identitystore_group  # noqa: F401
    from cdktn_provider_aws import kms_alias as aws_kms_alias  # noqa: F401
    from cdktn_provider_aws import kms_key as aws_kms_key  # noqa: F401
    from cdktn_provider_aws import lambda_function as aws_lambda_function  # noqa: F401
    from cdktn_provider_aws import lambda_permission as aws_lambda_permission  # noqa: F401
    from cdktn_provider_aws import prometheus_workspace as aws_prometheus_workspace  # noqa: F401
    from cdktn_provider_aws import provider as aws_provider  # noqa: F401
    from cdktn_provider_aws import s3_bucket as aws_s3_bucket  # noqa: F401
    from cdktn_provider_aws import s3_bucket_lifecycle_configuration as aws_s3_bucket_lifecycle_configuration  # noqa: F401
    from cdktn_provider_aws import s3_bucket_policy as aws_s3_bucket_policy  # noqa: F401
    from cdktn_provider_aws import s3_bucket_public_access_block as aws_s3_bucket_public_access_block  # noqa: F401
    from cdktn_provider_aws import (
        s3_bucket_server_side_encryption_configuration as aws_s3_bucket_server_side_encryption_configuration,  # noqa: F401
    )
    from cdktn_provider_aws import s3_bucket_versioning as aws_s3_bucket_versioning  # noqa: F401
    from cdktn_provider_aws import s3_object as aws_s3_object  # noqa: F401
    from cdktn_provider_aws import sagemaker_domain as aws_sagemaker_domain  # noqa: F401
    from cdktn_provider_aws import security_group as aws_security_group  # noqa: F401
    from cdktn_provider_aws import sqs_queue as aws_sqs_queue  # noqa: F401
    from cdktn_provider_aws import ssm_parameter as aws_ssm_parameter  # noqa: F401
    from cdktn_provider_aws import ssoadmin_account_assignment as aws_ssoadmin_account_assignment  # noqa: F401
    from cdktn_provider_aws import ssoadmin_application_assignment as aws_ssoadmin_application_assignment  # noqa: F401
    from cdktn_provider_aws import (
        ssoadmin_customer_managed_policy_attachment as aws_ssoadmin_customer_managed_policy_attachment,  # noqa: F401
    )
    from cdktn_provider_aws import ssoadmin_permission_set as aws_ssoadmin_permission_set  # noqa: F401
    from cdktn_provider_aws import (
        ssoadmin_permission_set_inline_policy as aws_ssoadmin_permission_set_inline_policy,  # noqa: F401
    )
    from cdktn_provider_aws import vpc_security_group_egress_rule as aws_vpc_security_group_egress_rule  # noqa: F401
    from cdktn_provider_aws import vpc_security_group_ingress_rule as aws_vpc_security_group_ingress_rule  # noqa: F401
    from cdktn_provider_helm import provider as helm_provider  # noqa: F401
    from cdktn_provider_helm import release as helm_release  # noqa: F401
    from cdktn_provider_kubernetes import cluster_role_binding_v1 as kubernetes_cluster_role_binding  # noqa: F401
    from cdktn_provider_kubernetes import cluster_role_v1 as kubernetes_cluster_role  # noqa: F401
    from cdktn_provider_kubernetes import labels as kubernetes_labels  # noqa: F401
    from cdktn_provider_kubernetes import manifest as kubernetes_manifest  # noqa: F401
    from cdktn_provider_kubernetes import namespace_v1 as kubernetes_namespace  # noqa: F401
    from cdktn_provider_kubernetes import provider as kubernetes_provider  # noqa: F401
    from cdktn_provider_kubernetes import role_binding_v1 as kubernetes_role_binding  # noqa: F401
    from cdktn_provider_kubernetes import role_v1 as kubernetes_role  # noqa: F401
    from cdktn_provider_kubernetes import service_account_v1 as kubernetes_service_account  # noqa: F401


#: Modules plugins registered (`register`); per provider, the extra of hyperpod-teams that installs
#: its bindings, and the engines that have them when not all do.
PLUGIN_MODULES: dict[str, str] = {}
EXTRAS: dict[str, str] = {}
ENGINES: dict[str, tuple[str, ...]] = {}

#: Blocks whose shape differs between the engines' pinned provider versions: (short name,
#: argument) -> the engines whose binding takes the block as a one-element list. The Kubernetes
#: provider 3.x (cdktn's binding, 3.4.0) made `metadata` of kubernetes_namespace_v1 and
#: kubernetes_role_v1 a list block where 2.x (cdktf's, 2.38.0) had a single nested object.
LIST_BLOCKS: dict[tuple[str, str], frozenset[str]] = {
    ("kubernetes_namespace", "metadata"): frozenset({"cdktn"}),
    ("kubernetes_role", "metadata"): frozenset({"cdktn"}),
}


def _neutral(module: str) -> str:
    """`cdktf_cdktf_provider_azuread.group` or `cdktn_provider_azuread.group` -> `azuread.group`."""
    for known in engine.ENGINES.values():
        if module.startswith(known.provider_prefix):
            return module[len(known.provider_prefix) :]
    return module


def register(modules: dict[str, str], *, extra: str | None = None, engines: tuple[str, ...] | None = None) -> None:
    """Name a plugin's bindings modules (short name -> `<provider>.<submodule>`), as MODULES names
    the core's. A module named with an engine's package (`cdktf_cdktf_provider_azuread.group`, as
    plugins of contract 2 wrote) is taken for the same module under either engine. With `extra`,
    the error for missing bindings names the install of that extra; with `engines`,
    the plugin builds under those engines only, and under another the error says so."""
    for name, module in modules.items():
        module = _neutral(module)
        if MODULES.get(name, module) != module or PLUGIN_MODULES.get(name, module) != module:
            raise ValueError(f"bindings module name {name!r} is registered already for another module")
        PLUGIN_MODULES[name] = module
        provider = module.partition(".")[0]
        if extra:
            EXTRAS[provider] = extra
        if engines:
            ENGINES[provider] = tuple(engines)


def block(name: str, argument: str, value: Any) -> Any:
    """`value` shaped as the engine's binding of `name` takes `argument` (LIST_BLOCKS)."""
    return [value] if engine.current().name in LIST_BLOCKS.get((name, argument), ()) else value


def read_block(name: str, argument: str, attribute: Any) -> Any:
    """The block `argument` of a resource of `name` to read from: the attribute itself, or its one
    element where the engine's binding makes it a list (LIST_BLOCKS)."""
    return attribute.get(0) if engine.current().name in LIST_BLOCKS.get((name, argument), ()) else attribute


def _missing(provider: str, package: str, in_use: engine.Engine) -> MissingBindingsError:
    engines = ENGINES.get(provider)
    extra = EXTRAS.get(provider)
    if engines and in_use.name not in engines:
        others = " or ".join(engine.ENGINES[name].title for name in engines)
        return MissingBindingsError(
            f"the {provider} provider has no bindings for {in_use.title} ({in_use.name}); it builds with {others}: "
            f"run {install_extras(extra or engines[0])} and choose that engine "
            f"(--engine {engines[0]}, or {engine.ENGINE_ENV}={engines[0]})"
        )
    if in_use is not engine.DEFAULT:  # the engine's own extra too
        install = install_extras(f"{in_use.name}{',' + extra if extra else ''}")
    elif extra:
        install = install_extras(extra)
    else:
        install = f"pip install {package.replace('_', '-')}"
    return MissingBindingsError(f"the Terraform bindings {package} are not installed; run: {install}")


def module_name(name: str) -> str:
    """The full module name of short name `name` under the process's engine."""
    neutral = MODULES.get(name) or PLUGIN_MODULES.get(name)
    if neutral is None:
        raise AttributeError(f"no provider bindings module {name!r} in hyperpod_teams.bindings")
    provider, _, submodule = neutral.partition(".")
    return f"{engine.current().provider_package(provider)}.{submodule}"


def __getattr__(name: str) -> ModuleType:
    full_name = module_name(name)
    package = full_name.partition(".")[0]
    if importlib.util.find_spec(package) is None:
        in_use = engine.current()
        raise _missing(package[len(in_use.provider_prefix) :], package, in_use)
    if is_bindings_package(package) and not os.environ.get(FULL_IMPORT_ENV):
        import_package_without_submodules(package)
    module = importlib.import_module(full_name)
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
