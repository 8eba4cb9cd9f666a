"""The one door through which the construct layer reaches the prebuilt provider bindings.

Modules load on first use (`bindings.aws_provider`), so a plugin's bindings are imported only
when that plugin builds, and the pure layer never pays for them.

Why a fast path exists: each prebuilt bindings package's `__init__` ends by importing every one of
its submodules (2,213 for AWS) only "to ensure their types are registered with the jsii runtime";
that costs 10-30 s and over a gigabyte per process, while the stacks use a few dozen. The fast
path runs the package `__init__` up to that block (the jsii assembly still loads in full, so the
node side knows every type), then imports just the submodules asked for. The output is byte for
byte the same (a test synthesizes every example both ways). When a package's `__init__` does not
have the expected shape (another bindings version), the ordinary import runs instead; setting
HYPERPOD_TEAMS_FULL_BINDINGS_IMPORT=1 forces the ordinary import everywhere.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import sys
import typing
from collections.abc import MutableMapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

FULL_IMPORT_ENV = "HYPERPOD_TEAMS_FULL_BINDINGS_IMPORT"
#: Set (to anything) to keep the generated bindings' argument type checks in synth; the tests do.
TYPE_CHECKS_ENV = "HYPERPOD_TEAMS_TYPE_CHECKS"
#: Bindings packages that come with an optional extra of hyperpod-teams, not with the core.
EXTRAS = {"cdktf_cdktf_provider_azuread": "entra", "cdktf_cdktf_provider_okta": "okta"}


class MissingBindingsError(Exception):
    """A plugin's provider bindings are not installed: the user's environment lacks an extra."""


#: The comment that opens the block of submodule imports in a prebuilt bindings `__init__`.
SUBMODULE_BLOCK_MARKER = "# Loading modules to ensure their types are registered with the jsii runtime library"
BINDINGS_PACKAGE_PREFIX = "cdktf_cdktf_provider_"

#: Short name -> bindings module. Keep sorted by package; add what a construct needs.
MODULES = {
    "aws_provider": "cdktf_cdktf_provider_aws.provider",
    "aws_budgets_budget": "cdktf_cdktf_provider_aws.budgets_budget",
    "aws_ce_cost_allocation_tag": "cdktf_cdktf_provider_aws.ce_cost_allocation_tag",
    "aws_ce_cost_category": "cdktf_cdktf_provider_aws.ce_cost_category",
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
    "aws_ssoadmin_account_assignment": "cdktf_cdktf_provider_aws.ssoadmin_account_assignment",
    "aws_ssoadmin_application_assignment": "cdktf_cdktf_provider_aws.ssoadmin_application_assignment",
    "aws_ssoadmin_permission_set": "cdktf_cdktf_provider_aws.ssoadmin_permission_set",
    "aws_ssoadmin_permission_set_inline_policy": "cdktf_cdktf_provider_aws.ssoadmin_permission_set_inline_policy",
    "azuread_app_role_assignment": "cdktf_cdktf_provider_azuread.app_role_assignment",
    "azuread_application": "cdktf_cdktf_provider_azuread.application",
    "azuread_data_client_config": "cdktf_cdktf_provider_azuread.data_azuread_client_config",
    "azuread_data_group": "cdktf_cdktf_provider_azuread.data_azuread_group",
    "azuread_group": "cdktf_cdktf_provider_azuread.group",
    "azuread_provider": "cdktf_cdktf_provider_azuread.provider",
    "azuread_service_principal": "cdktf_cdktf_provider_azuread.service_principal",
    "azuread_service_principal_token_signing_certificate": (
        "cdktf_cdktf_provider_azuread.service_principal_token_signing_certificate"
    ),
    "azuread_synchronization_job": "cdktf_cdktf_provider_azuread.synchronization_job",
    "azuread_synchronization_secret": "cdktf_cdktf_provider_azuread.synchronization_secret",
    "helm_provider": "cdktf_cdktf_provider_helm.provider",
    "helm_release": "cdktf_cdktf_provider_helm.release",
    "kubernetes_cluster_role": "cdktf_cdktf_provider_kubernetes.cluster_role_v1",
    "kubernetes_cluster_role_binding": "cdktf_cdktf_provider_kubernetes.cluster_role_binding_v1",
    "kubernetes_namespace": "cdktf_cdktf_provider_kubernetes.namespace_v1",
    "kubernetes_role": "cdktf_cdktf_provider_kubernetes.role_v1",
    "kubernetes_role_binding": "cdktf_cdktf_provider_kubernetes.role_binding_v1",
    "kubernetes_provider": "cdktf_cdktf_provider_kubernetes.provider",
    "okta_app_group_assignment": "cdktf_cdktf_provider_okta.app_group_assignment",
    "okta_app_saml": "cdktf_cdktf_provider_okta.app_saml",
    "okta_data_group": "cdktf_cdktf_provider_okta.data_okta_group",
    "okta_group": "cdktf_cdktf_provider_okta.group",
    "okta_provider": "cdktf_cdktf_provider_okta.provider",
}


if TYPE_CHECKING:  # what editors and mypy see: the modules themselves (a test pins both lists equal)
    from cdktf_cdktf_provider_aws import budgets_budget as aws_budgets_budget  # noqa: F401
    from cdktf_cdktf_provider_aws import ce_cost_allocation_tag as aws_ce_cost_allocation_tag  # noqa: F401
    from cdktf_cdktf_provider_aws import ce_cost_category as aws_ce_cost_category  # noqa: F401
    from cdktf_cdktf_provider_aws import cloudcontrolapi_resource as aws_cloudcontrolapi_resource  # noqa: F401
    from cdktf_cdktf_provider_aws import data_aws_eks_cluster as aws_data_eks_cluster  # noqa: F401
    from cdktf_cdktf_provider_aws import data_aws_iam_roles as aws_data_iam_roles  # noqa: F401
    from cdktf_cdktf_provider_aws import data_aws_identitystore_group as aws_data_identitystore_group  # noqa: F401
    from cdktf_cdktf_provider_aws import eks_access_entry as aws_eks_access_entry  # noqa: F401
    from cdktf_cdktf_provider_aws import eks_access_policy_association as aws_eks_access_policy_association  # noqa: F401
    from cdktf_cdktf_provider_aws import eks_addon as aws_eks_addon  # noqa: F401
    from cdktf_cdktf_provider_aws import eks_cluster as aws_eks_cluster  # noqa: F401
    from cdktf_cdktf_provider_aws import iam_role as aws_iam_role  # noqa: F401
    from cdktf_cdktf_provider_aws import iam_role_policy as aws_iam_role_policy  # noqa: F401
    from cdktf_cdktf_provider_aws import iam_role_policy_attachment as aws_iam_role_policy_attachment  # noqa: F401
    from cdktf_cdktf_provider_aws import identitystore_group as aws_identitystore_group  # noqa: F401
    from cdktf_cdktf_provider_aws import kms_alias as aws_kms_alias  # noqa: F401
    from cdktf_cdktf_provider_aws import kms_key as aws_kms_key  # noqa: F401
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
    from cdktf_cdktf_provider_aws import ssoadmin_account_assignment as aws_ssoadmin_account_assignment  # noqa: F401
    from cdktf_cdktf_provider_aws import ssoadmin_application_assignment as aws_ssoadmin_application_assignment  # noqa: F401
    from cdktf_cdktf_provider_aws import ssoadmin_permission_set as aws_ssoadmin_permission_set  # noqa: F401
    from cdktf_cdktf_provider_aws import (
        ssoadmin_permission_set_inline_policy as aws_ssoadmin_permission_set_inline_policy,  # noqa: F401
    )
    from cdktf_cdktf_provider_azuread import app_role_assignment as azuread_app_role_assignment  # noqa: F401
    from cdktf_cdktf_provider_azuread import application as azuread_application  # noqa: F401
    from cdktf_cdktf_provider_azuread import data_azuread_client_config as azuread_data_client_config  # noqa: F401
    from cdktf_cdktf_provider_azuread import data_azuread_group as azuread_data_group  # noqa: F401
    from cdktf_cdktf_provider_azuread import group as azuread_group  # noqa: F401
    from cdktf_cdktf_provider_azuread import provider as azuread_provider  # noqa: F401
    from cdktf_cdktf_provider_azuread import service_principal as azuread_service_principal  # noqa: F401
    from cdktf_cdktf_provider_azuread import (
        service_principal_token_signing_certificate as azuread_service_principal_token_signing_certificate,  # noqa: F401
    )
    from cdktf_cdktf_provider_azuread import synchronization_job as azuread_synchronization_job  # noqa: F401
    from cdktf_cdktf_provider_azuread import synchronization_secret as azuread_synchronization_secret  # noqa: F401
    from cdktf_cdktf_provider_helm import provider as helm_provider  # noqa: F401
    from cdktf_cdktf_provider_helm import release as helm_release  # noqa: F401
    from cdktf_cdktf_provider_kubernetes import cluster_role_binding_v1 as kubernetes_cluster_role_binding  # noqa: F401
    from cdktf_cdktf_provider_kubernetes import cluster_role_v1 as kubernetes_cluster_role  # noqa: F401
    from cdktf_cdktf_provider_kubernetes import namespace_v1 as kubernetes_namespace  # noqa: F401
    from cdktf_cdktf_provider_kubernetes import provider as kubernetes_provider  # noqa: F401
    from cdktf_cdktf_provider_kubernetes import role_binding_v1 as kubernetes_role_binding  # noqa: F401
    from cdktf_cdktf_provider_kubernetes import role_v1 as kubernetes_role  # noqa: F401
    from cdktf_cdktf_provider_okta import app_group_assignment as okta_app_group_assignment  # noqa: F401
    from cdktf_cdktf_provider_okta import app_saml as okta_app_saml  # noqa: F401
    from cdktf_cdktf_provider_okta import data_okta_group as okta_data_group  # noqa: F401
    from cdktf_cdktf_provider_okta import group as okta_group  # noqa: F401
    from cdktf_cdktf_provider_okta import provider as okta_provider  # noqa: F401


def __getattr__(name: str) -> ModuleType:
    try:
        module_name = MODULES[name]
    except KeyError:
        raise AttributeError(f"no provider bindings module {name!r} in hyperpod_teams.bindings") from None
    package = module_name.partition(".")[0]
    if importlib.util.find_spec(package) is None:
        extra = EXTRAS.get(package)
        install = f"pip install 'hyperpod-teams[{extra}]'" if extra else f"pip install {package.replace('_', '-')}"
        raise MissingBindingsError(f"the Terraform bindings {package} are not installed; run: {install}")
    if package.startswith(BINDINGS_PACKAGE_PREFIX) and not os.environ.get(FULL_IMPORT_ENV):
        import_package_without_submodules(package)
    module = importlib.import_module(module_name)
    if not _argument_type_checks:
        _drop_argument_type_checks()
    globals()[name] = module
    return module


def preload(prefixes: tuple[str, ...] = ("aws_", "helm_", "kubernetes_")) -> None:
    """Import the core stacks' bindings now (to show progress while they load), not mid-build.

    A plugin's own bindings (azuread, ...) still load only when the plugin builds.
    """
    for name in MODULES:
        if name.startswith(prefixes):
            __getattr__(name)


#: Packages generated by jsii whose modules check their arguments in Python (see below).
JSII_GENERATED_PACKAGES = ("constructs", "cdktf", BINDINGS_PACKAGE_PREFIX)
_argument_type_checks = True
_modules_without_checks: set[str] = set()


def skip_argument_type_checks() -> None:
    """Turn off, in this process, the argument type checks of the jsii-generated Python modules.

    Why: every constructor and method that jsii generates for cdktf, constructs and the provider
    bindings starts with `if __debug__:`, then `typing.get_type_hints` of a stub and a typeguard
    check of each argument, every field of every struct included. On a 100-team synth that was
    half of Python's time. The jsii kernel checks every value again on the node side, and the
    stacks' code runs with the checks on in the tests, so the processes that run nothing but the
    project's own stacks (the `synth` command, the cdktf app) skip them, as `python -O` would,
    in the modules of those packages, loaded now or later through this module. A process that
    only imports the library keeps them, and so does one with HYPERPOD_TEAMS_TYPE_CHECKS or
    HYPERPOD_TEAMS_FULL_BINDINGS_IMPORT set.
    """
    global _argument_type_checks
    if os.environ.get(FULL_IMPORT_ENV) or os.environ.get(TYPE_CHECKS_ENV):
        return
    _argument_type_checks = False
    _drop_argument_type_checks()


def _no_argument_type_check(argname: str, value: object, expected_type: typing.Any) -> None:
    return None


#: `typing` as the generated modules see it once their checks are off: the type hints of a
#: stub are computed once, not at every call (they are still asked for, then not used).
_typing_with_cached_hints = ModuleType("typing")
_typing_with_cached_hints.__dict__.update(typing.__dict__)
_typing_with_cached_hints.__dict__["get_type_hints"] = functools.cache(typing.get_type_hints)


def _drop_argument_type_checks() -> None:
    for name, module in list(sys.modules.items()):
        if name in _modules_without_checks or not name.startswith(JSII_GENERATED_PACKAGES):
            continue
        _modules_without_checks.add(name)
        namespace = getattr(module, "__dict__", {})
        # Only the generated shapes: a module-level check_type of the module's own (older jsii)
        # or jsii's shared one (newer). The names live in the module's `_private` twin, since
        # jsii modules publish only their __all__.
        checker = getattr(namespace.get("check_type"), "__module__", None)
        if checker not in (namespace.get("__name__"), "jsii._type_checking"):
            continue
        namespace["check_type"] = _no_argument_type_check
        if namespace.get("typing") is typing:
            namespace["typing"] = _typing_with_cached_hints


def import_package_without_submodules(package: str) -> bool:
    """Import a prebuilt bindings package without its block of submodule imports.

    Returns False, having done nothing, when the package is imported already or its `__init__`
    is not of the expected shape; the caller's ordinary import then does the work.
    """
    if package in sys.modules:
        return False
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None or spec.loader is None:
        return False
    with open(spec.origin, encoding="utf-8") as file:
        source = file.read()
    head, marker, tail = source.partition(SUBMODULE_BLOCK_MARKER)
    if not marker or "__jsii_assembly__" in tail or "from ._jsii import *" not in head:
        return False
    if any(line.strip() and not line.startswith("from . import ") for line in tail.splitlines()):
        return False
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    try:
        exec(compile(head, spec.origin, "exec"), module.__dict__)  # noqa: S102 - the package's own code
    except BaseException:
        del sys.modules[package]
        raise
    return True


#: Script preloaded into jsii's node process (see the script and the rewriters beside it for why):
#: provider indexes load their submodules on first use, cdktf records no stack trace per token,
#: and the kernel runs in the process Python started instead of behind a relay. Node's peak memory
#: drops from about 1,000 MiB to about 200, the quickstart synth from about 7 s to 3, and a 100-team
#: synth by another 5 s (README, Performance; benchmarks/synth.py). The output is the same bytes.
NODE_PRELOAD_SCRIPT = Path(__file__).parent / "node" / "preload.js"


def tune_node_process(environ: MutableMapping[str, str] = os.environ) -> None:  # noqa: B006 - the process environment
    """Preload NODE_PRELOAD_SCRIPT in the node process jsii starts: call before jsii starts it.

    Left out when HYPERPOD_TEAMS_FULL_BINDINGS_IMPORT is set (the ordinary path everywhere) or
    when NODE_OPTIONS preloads it already.
    """
    current = environ.get("NODE_OPTIONS", "")
    if environ.get(FULL_IMPORT_ENV) or NODE_PRELOAD_SCRIPT.name in current:
        return
    if not NODE_PRELOAD_SCRIPT.is_file():  # a broken install: node would refuse to start
        return
    script = str(NODE_PRELOAD_SCRIPT)
    option = f'--require "{script}"' if " " in script else f"--require={script}"
    environ["NODE_OPTIONS"] = f"{current} {option}".strip()
    # jsii's launcher starts its kernel with --preserve-symlinks, so that the packages it links
    # into its work folder share one copy of cdktf and constructs; the kernel run in place of the
    # launcher needs the same, and node reads this one only at startup.
    environ["NODE_PRESERVE_SYMLINKS"] = "1"
