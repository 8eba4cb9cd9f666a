"""What moto 5 lacks for the project's resources, added in front of it as WSGI middleware.

Each handler imitates one AWS operation, named with its API reference page, and says what AWS
does that it copies: the request and response shapes of the reference, the checks AWS makes
(the principal of an access entry must exist; an application assignment needs an existing
application and group; a scheduler config is one per cluster), and what AWS creates by itself
(the `AWSReservedSSO_*` role of each permission set assigned to the account). Everything else
goes to moto unchanged. Answers moto gives but AWS gives differently are mended on the way out
(EKS DescribeCluster's `accessConfig`).

State lives in this process: the tier starts one server per test session.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote

from tests.emulator import input_shapes, registry
from tests.emulator.authorization import Authorization, denial
from tests.emulator.cloud_control import CloudControl, CloudControlError
from tests.emulator.input_shapes import Incoming, InputShapes, Reading
from tests.emulator.service_rules import ServiceRules

Json = dict[str, Any]

_REASONS = {200: "OK", 201: "Created", 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 409: "Conflict"}


#: The version an add-on gets when CreateAddon names none: AWS's default for the cluster's
#: Kubernetes version (`describe-addon-versions`, `defaultVersion`); here one plausible release each.
DEFAULT_ADDON_VERSIONS = {"vpc-cni": "v1.19.2-eksbuild.1"}


class AwsError(Exception):
    """An error answer: the HTTP status, the error type (`__type` / `X-Amzn-ErrorType`), a message."""

    def __init__(self, status: int, error_type: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type


@dataclass
class Request:
    service: str
    method: str
    path: str
    query: dict[str, list[str]]
    target: str
    body: bytes
    region: str

    def json(self) -> Json:
        return json.loads(self.body or b"{}")


def _idempotency_key(reading: Reading | None) -> tuple[str, str] | None:
    """(operation, token) of a request that carries an idempotency token (a member the model marks
    `idempotencyToken`), else None."""
    if reading is None or reading.operation.input_shape is None or not isinstance(reading.params, dict):
        return None
    shape = reading.operation.input_shape
    for name, member in shape.members.items():
        if member.metadata.get("idempotencyToken"):
            value = reading.params.get(member.serialization.get("name", name))
            if value:
                return reading.operation.name, str(value)
    return None


def _found(table: Any, key: Any, not_found: AwsError) -> Any:
    """`table[key]`, or the service's own not-found answer when there is none."""
    if key not in table:
        raise not_found
    return table[key]


def _now() -> float:
    return round(time.time(), 3)


def _iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


#: EKS access entry types (EKS API reference, CreateAccessEntry `type`; a free string in the
#: model, checked by the service): any other is an InvalidParameterException.
EKS_ACCESS_ENTRY_TYPES = {
    "STANDARD",
    "EC2",
    "EC2_LINUX",
    "EC2_WINDOWS",
    "FARGATE_LINUX",
    "HYBRID_LINUX",
    "HYPERPOD_LINUX",
}
#: The add-ons AWS offers (EKS user guide, "AWS add-ons" and "Community add-ons"; the HyperPod
#: ones from the SageMaker developer guide): CreateAddon of another name is an
#: InvalidParameterException. Versions have EKS's form, `v1.18.2-eksbuild.2`.
EKS_ADDONS = {
    "adot",
    "amazon-cloudwatch-observability",
    "amazon-sagemaker-hyperpod-inference",
    "amazon-sagemaker-hyperpod-observability",
    "amazon-sagemaker-hyperpod-taskgovernance",
    "amazon-sagemaker-hyperpod-training-operator",
    "amazon-sagemaker-spaces",
    "aws-ebs-csi-driver",
    "aws-efs-csi-driver",
    "aws-fsx-csi-driver",
    "aws-guardduty-agent",
    "aws-mountpoint-s3-csi-driver",
    "aws-network-flow-monitoring-agent",
    "aws-secrets-store-csi-driver-provider",
    "cert-manager",
    "coredns",
    "eks-node-monitoring-agent",
    "eks-pod-identity-agent",
    "external-dns",
    "fluent-bit",
    "kube-proxy",
    "kube-state-metrics",
    "metrics-server",
    "prometheus-node-exporter",
    "snapshot-controller",
    "vpc-cni",
}
ADDON_VERSION = re.compile(r"^v\d+\.\d+\.\d+-eksbuild\.\d+$")
#: Versions EKS publishes (`aws eks describe-addon-versions`), for the add-ons whose versions the
#: stacks name: a CreateAddon or UpdateAddon of another version is refused ("Addon version specified
#: is not supported", InvalidParameterException). Sources: awslabs/awsome-distributed-training,
#: terraform-modules/hyperpod-eks-tf (hyperpod_training_operator: v1.2.1-eksbuild.1 the default for
#: Kubernetes 1.28-1.35; cert_manager_version v1.18.2-eksbuild.2); the seeded VPC CNI. A version of
#: an add-on not listed here is refused as EKS refuses a version it does not publish: the emulator
#: cannot tell it is published (a test that names one adds it here with its source).
PUBLISHED_ADDON_VERSIONS = {
    "amazon-sagemaker-hyperpod-training-operator": {"v1.0.0-eksbuild.1", "v1.1.0-eksbuild.1", "v1.2.1-eksbuild.1"},
    "cert-manager": {"v1.17.2-eksbuild.1", "v1.18.2-eksbuild.1", "v1.18.2-eksbuild.2"},
    "vpc-cni": {"v1.18.3-eksbuild.1", "v1.19.2-eksbuild.1", "v1.19.5-eksbuild.1"},
}


def _addon_version_refused(name: str, version: str | None) -> AwsError | None:
    if version is None:
        return None
    if not ADDON_VERSION.match(version) or version not in PUBLISHED_ADDON_VERSIONS.get(name, set()):
        return AwsError(400, "InvalidParameterException", "Addon version specified is not supported")
    return None


#: An access policy's ARN: AWS's account `aws`, no region, the region's partition.
ACCESS_POLICY_ARN = re.compile(
    r"^arn:(?P<partition>aws|aws-cn|aws-us-gov):eks::aws:cluster-access-policy/(?P<name>[^/]+)$"
)
#: Identity Center permission sets: a session lasts 1 to 12 hours (CreatePermissionSet
#: `SessionDuration`, an ISO-8601 duration; its model pattern allows any).
SESSION_DURATION = re.compile(r"^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?$")


def _partition(region: str) -> str:
    return "aws-cn" if region.startswith("cn-") else "aws-us-gov" if region.startswith("us-gov-") else "aws"


#: EKS access policies AWS publishes (EKS user guide, "Review access policy permissions"); an
#: AssociateAccessPolicy of any other ARN fails with ResourceNotFoundException.
EKS_ACCESS_POLICIES = {
    "AmazonEKSAdminPolicy",
    "AmazonEKSAdminViewPolicy",
    "AmazonEKSClusterAdminPolicy",
    "AmazonEKSEditPolicy",
    "AmazonEKSViewPolicy",
    "AmazonEKSAutoNodePolicy",
    "AmazonEKSBlockStoragePolicy",
    "AmazonEKSComputePolicy",
    "AmazonEKSLoadBalancingPolicy",
    "AmazonEKSNetworkingPolicy",
    "AmazonEKSHybridPolicy",
    "AmazonSagemakerHyperpodClusterPolicy",
    "AmazonSagemakerHyperpodControllerPolicy",
    "AmazonSagemakerHyperpodSystemNamespacePolicy",
    # SageMaker developer guide, "Add users and set up service accounts" (Spaces), and "Cluster access for
    # SageMaker domains"; `aws eks list-access-policies` lists them with these ARNs.
    "AmazonSagemakerHyperpodSpacePolicy",
    "AmazonSagemakerHyperpodSpaceTemplatePolicy",
    "AmazonSagemakerHyperpodInferencePolicy",
    "AmazonSagemakerHyperpodTrainingPolicy",
    "AmazonSagemakerHyperpodUserClusterPolicy",
}


#: Requests whose bodies the emulator keeps for the tests to read (`Additions.recorded`): the cost
#: category's definition as the AWS provider sends it (tests/test_cost_category_requests.py).
RECORDED = frozenset(
    {
        "AWSInsightsIndexService.CreateCostCategoryDefinition",
        "AWSInsightsIndexService.UpdateCostCategoryDefinition",
    }
)


@dataclass
class EksState:
    access_config: dict[str, Json] = field(default_factory=dict)  # cluster -> accessConfig
    access_entries: dict[tuple[str, str], Json] = field(default_factory=dict)  # (cluster, principal)
    policies: dict[tuple[str, str], dict[str, Json]] = field(default_factory=dict)  # -> policy ARN -> assoc.
    addons: dict[tuple[str, str], Json] = field(default_factory=dict)
    pod_identities: dict[tuple[str, str], Json] = field(default_factory=dict)  # (cluster, id)
    updates: dict[str, Json] = field(default_factory=dict)  # update ID -> the update (add-on updates)


@dataclass
class SsoState:
    tags: dict[str, list[Json]] = field(default_factory=dict)  # resource ARN -> Tags
    applications: dict[str, Json] = field(default_factory=dict)  # application ARN -> what made it
    application_assignments: dict[tuple[str, str, str], Json] = field(default_factory=dict)
    provisioning: dict[str, Json] = field(default_factory=dict)  # request ID -> status
    #: The account the organization's instance is administered in (the home account until seeded elsewhere).
    account: str = ""


class Additions:
    """The WSGI app: the additions' operations, else moto."""

    def __init__(self, moto_app: Callable, *, account_id: str, accounts: Iterable[str] = ()) -> None:
        self.moto_app = moto_app
        #: The account moto answers for when a request names none (the workload account), and the
        #: organization's other accounts, which requests reach as roles assumed there (docs/testing.md).
        self.home_account = account_id
        self.accounts = tuple(accounts)
        #: The account of the request this thread answers (caller_account).
        self._caller = threading.local()
        self.lock = threading.RLock()
        self.eks = EksState()
        self.sso = SsoState(account=account_id)
        self.domains: dict[str, Json] = {}
        self.spaces: dict[tuple[str, str], Json] = {}  # (domain ID, space name)
        self.user_profiles: dict[tuple[str, str], Json] = {}  # (domain ID, profile name)
        self.apps: dict[tuple, Json] = {}  # (domain, space or profile, type, name)
        self.budget_subscribers: dict[tuple[str, str], list[Json]] = {}  # (budget, notification key)
        self.cost_allocation_tags: dict[str, Json] = {}
        #: Tags of the resources whose tagging the additions answer (domains, budgets): ARN -> tags.
        self.tags: dict[str, dict[str, str]] = {}
        #: Subnets and security groups the account's VPC has (seeded: the emulator builds no VPC):
        #: region -> IDs. moto's own EC2 resources count too.
        self.network: dict[str, set[str]] = {}
        self.cloud_control = CloudControl(account_id=account_id, world=self)
        #: botocore's input shapes, which every request answered here must satisfy first.
        self.input_shapes = InputShapes()
        #: What AWS checks beyond the shapes (existence, uniqueness, tags, policy documents) for
        #: the requests moto answers: service_rules.py.
        self.service_rules = ServiceRules(self)
        #: IAM for the team members' sessions (assumed roles): authorization.py.
        self.authorization = Authorization(self)
        self.calls: list[str] = []
        #: The bodies of the requests in RECORDED, as the client sent them (`/_emulator/requests`):
        #: what AWS received, whoever answered it.
        self.recorded: list[Json] = []
        #: The answer each idempotency token got: see `__call__`.
        self.answered: dict[tuple[str, str], tuple[int, Json]] = {}
        self.json_operations: dict[str, Callable[[Request], Json]] = {
            # Cloud Control API: cloud_control.py.
            **{f"CloudApiService.{name}": handler for name, handler in self.cloud_control.operations().items()},
            "CloudApiService.GetResource": self.cloud_control_get_resource,
            # SSO Admin.
            "SWBExternalService.CreatePermissionSet": self.sso_create_permission_set,
            "SWBExternalService.TagResource": self.sso_tag_resource,
            "SWBExternalService.UntagResource": self.sso_untag_resource,
            "SWBExternalService.ListTagsForResource": self.sso_list_tags,
            "SWBExternalService.ProvisionPermissionSet": self.sso_provision_permission_set,
            "SWBExternalService.DescribePermissionSetProvisioningStatus": self.sso_provisioning_status,
            "SWBExternalService.CreateAccountAssignment": self.sso_create_account_assignment,
            "SWBExternalService.DeleteAccountAssignment": self.sso_delete_account_assignment,
            "SWBExternalService.CreateApplicationAssignment": self.sso_create_application_assignment,
            "SWBExternalService.DescribeApplicationAssignment": self.sso_describe_application_assignment,
            "SWBExternalService.DeleteApplicationAssignment": self.sso_delete_application_assignment,
            # SageMaker HyperPod clusters, as Cloud Control created them.
            "SageMaker.DescribeCluster": self.sagemaker_describe_cluster,
            "SageMaker.ListClusters": self.sagemaker_list_clusters,
            # SageMaker domains.
            "SageMaker.CreateDomain": self.sagemaker_create_domain,
            "SageMaker.DescribeDomain": self.sagemaker_describe_domain,
            "SageMaker.ListDomains": self.sagemaker_list_domains,
            "SageMaker.CreateSpace": self.sagemaker_create_space,
            "SageMaker.CreateUserProfile": self.sagemaker_create_user_profile,
            "SageMaker.DescribeUserProfile": self.sagemaker_describe_user_profile,
            "SageMaker.DeleteUserProfile": self.sagemaker_delete_user_profile,
            "SageMaker.DescribeSpace": self.sagemaker_describe_space,
            "SageMaker.DeleteSpace": self.sagemaker_delete_space,
            "SageMaker.ListSpaces": self.sagemaker_list_spaces,
            "SageMaker.CreateApp": self.sagemaker_create_app,
            "SageMaker.DescribeApp": self.sagemaker_describe_app,
            "SageMaker.DeleteDomain": self.sagemaker_delete_domain,
            "SageMaker.UpdateDomain": self.sagemaker_update_domain,
            "SageMaker.ListTags": self.sagemaker_list_tags,
            "SageMaker.AddTags": self.sagemaker_add_tags,
            "SageMaker.DeleteTags": self.sagemaker_delete_tags,
            # Budgets.
            "AWSBudgetServiceGateway.CreateBudget": self.budgets_create_budget,
            "AWSBudgetServiceGateway.UpdateBudget": self.budgets_update_budget,
            "AWSBudgetServiceGateway.CreateNotification": self.budgets_create_notification,
            "AWSBudgetServiceGateway.DeleteNotification": self.budgets_delete_notification,
            "AWSBudgetServiceGateway.DescribeSubscribersForNotification": self.budgets_describe_subscribers,
            "AWSBudgetServiceGateway.DeleteBudget": self.budgets_delete_budget,
            "AWSBudgetServiceGateway.TagResource": self.budgets_tag_resource,
            "AWSBudgetServiceGateway.UntagResource": self.budgets_untag_resource,
            "AWSBudgetServiceGateway.ListTagsForResource": self.budgets_list_tags,
            # Cost Explorer.
            "AWSInsightsIndexService.UpdateCostAllocationTagsStatus": self.ce_update_tag_status,
            "AWSInsightsIndexService.ListCostAllocationTags": self.ce_list_tags,
            "AWSInsightsIndexService.ListCostCategoryDefinitions": self.ce_list_cost_categories,
        }
        #: Lambda functions' DeadLetterConfig, by function name (moto keeps none).
        self.dead_letter_configs: dict[str, Json] = {}
        self.rest_operations: list[tuple[str, re.Pattern, Callable[..., tuple[int, Json]]]] = [
            ("POST", re.compile(r"^/2015-03-31/functions/?$"), self.lambda_create_function),
            ("GET", re.compile(r"^/2015-03-31/functions/([^/]+)$"), self.lambda_get_function),
            ("GET", re.compile(r"^/2015-03-31/functions/([^/]+)/configuration$"), self.lambda_get_configuration),
            ("PUT", re.compile(r"^/2015-03-31/functions/([^/]+)/configuration$"), self.lambda_update_configuration),
            ("POST", re.compile(r"^/clusters$"), self.eks_create_cluster),
            ("GET", re.compile(r"^/clusters/([^/]+)$"), self.eks_describe_cluster),
            ("POST", re.compile(r"^/clusters/([^/]+)/access-entries$"), self.eks_create_access_entry),
            ("GET", re.compile(r"^/clusters/([^/]+)/access-entries/([^/]+)$"), self.eks_describe_access_entry),
            ("DELETE", re.compile(r"^/clusters/([^/]+)/access-entries/([^/]+)$"), self.eks_delete_access_entry),
            ("POST", re.compile(r"^/clusters/([^/]+)/access-entries/([^/]+)/access-policies$"), self.eks_associate),
            ("GET", re.compile(r"^/clusters/([^/]+)/access-entries/([^/]+)/access-policies$"), self.eks_associated),
            (
                "DELETE",
                re.compile(r"^/clusters/([^/]+)/access-entries/([^/]+)/access-policies/(.+)$"),
                self.eks_disassociate,
            ),
            ("POST", re.compile(r"^/clusters/([^/]+)/access-entries/([^/]+)$"), self.eks_update_access_entry),
            ("GET", re.compile(r"^/clusters/([^/]+)/access-entries$"), self.eks_list_access_entries),
            ("POST", re.compile(r"^/clusters/([^/]+)/addons$"), self.eks_create_addon),
            ("GET", re.compile(r"^/clusters/([^/]+)/addons$"), self.eks_list_addons),
            ("POST", re.compile(r"^/clusters/([^/]+)/addons/([^/]+)/update$"), self.eks_update_addon),
            ("GET", re.compile(r"^/clusters/([^/]+)/updates/([^/]+)$"), self.eks_describe_update),
            ("GET", re.compile(r"^/clusters/([^/]+)/pod-identity-associations$"), self.eks_list_pod_identities),
            (
                "POST",
                re.compile(r"^/clusters/([^/]+)/pod-identity-associations/([^/]+)$"),
                self.eks_update_pod_identity,
            ),
            ("POST", re.compile(r"^/tags/(.+)$"), self.eks_tag_resource),
            ("DELETE", re.compile(r"^/tags/(.+)$"), self.eks_untag_resource),
            ("GET", re.compile(r"^/tags/(.+)$"), self.eks_list_tags),
            ("GET", re.compile(r"^/clusters/([^/]+)/addons/([^/]+)$"), self.eks_describe_addon),
            ("DELETE", re.compile(r"^/clusters/([^/]+)/addons/([^/]+)$"), self.eks_delete_addon),
            ("POST", re.compile(r"^/clusters/([^/]+)/pod-identity-associations$"), self.eks_create_pod_identity),
            (
                "GET",
                re.compile(r"^/clusters/([^/]+)/pod-identity-associations/([^/]+)$"),
                self.eks_describe_pod_identity,
            ),
            (
                "DELETE",
                re.compile(r"^/clusters/([^/]+)/pod-identity-associations/([^/]+)$"),
                self.eks_delete_pod_identity,
            ),
        ]

    # --- WSGI -----------------------------------------------------------------------------

    def _control(self, path: str, body: bytes) -> Json:
        """The tests' own endpoints: seed the world, read the calls and IAM decisions, change what
        the organization changed outside the stacks."""
        if path == "/_emulator/seed":
            return self.seed(json.loads(body))
        if path == "/_emulator/calls":
            return {"calls": self.calls}
        if path == "/_emulator/requests":
            return {"requests": self.recorded}
        if path == "/_emulator/cloud-control-state":
            clusters = {i: m for (t, i), m in self.cloud_control.resources.items() if t == "AWS::SageMaker::Cluster"}
            governed = [f"{t} {i}" for (t, i) in self.cloud_control.resources if t != "AWS::SageMaker::Cluster"]
            quotas = {
                i: m.get("ComputeQuotaId")
                for (t, i), m in self.cloud_control.resources.items()
                if t == "AWS::SageMaker::ComputeQuota"
            }
            return {
                "clusters": clusters,
                "terminated": self.cloud_control.terminated,
                "task_governance": governed,
                "quotas": quotas,
            }
        if path == "/_emulator/decisions":
            return {"decisions": [vars(d) for d in self.authorization.decisions]}
        if path == "/_emulator/deploy-decisions":
            return {
                "allowed": self.authorization.deploy_allowed,
                "refused": [vars(d) for d in self.authorization.deploy_refused],
                # account -> the signing names of the services the deploy roles called there.
                "services_by_account": {
                    account: sorted(services) for account, services in self.authorization.deploy_services.items()
                },
            }
        if path == "/_emulator/kubernetes-api":
            # The journey tier's Kubernetes API (tests/emulator/kubernetes_api.py) serves the EKS
            # cluster: DescribeCluster's endpoint is its address from now on.
            wanted = json.loads(body)
            with self.lock:
                cluster = self._moto("eks", wanted["region"]).clusters[wanted["cluster"]]
                cluster.endpoint = wanted["endpoint"]
                cluster.certificate_authority = {"data": base64.b64encode(b"journey tier: plain HTTP").decode()}
            return {}
        if path == "/_emulator/cloud-control":
            # What the organization changed since: Cloud Control resources' properties replaced.
            with self.lock:
                for resource in json.loads(body):
                    self.cloud_control.resources[(resource["type"], resource["identifier"])] = resource["properties"]
            return {}
        if path == "/_emulator/domain-default":
            return self.domain_default(json.loads(body))
        raise ValueError(f"no emulator endpoint {path}")

    @property
    def account_id(self) -> str:
        """The account of the request being answered: whose resources it reads and makes."""
        return getattr(self._caller, "account", None) or self.home_account

    def caller_account(self, environ: dict, access_key: str | None) -> str:
        """As moto tells it (moto.core.responses.BaseResponse.get_current_account): MOTO_ACCOUNT_ID
        when set (one account), else the `x-moto-account-id` header (an administrator's client of
        another account), else the account whose IAM holds the access key (an assumed role's session
        key is made in the role's account), else the home account."""
        if os.environ.get("MOTO_ACCOUNT_ID"):
            return os.environ["MOTO_ACCOUNT_ID"]
        if environ.get("HTTP_X_MOTO_ACCOUNT_ID"):
            return environ["HTTP_X_MOTO_ACCOUNT_ID"]
        if access_key:
            from moto.iam.models import get_account_id_from

            return get_account_id_from(access_key)
        return self.home_account

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        access_key = re.search(r"Credential=([^/]+)/", environ.get("HTTP_AUTHORIZATION", ""))
        self._caller.account = self.caller_account(environ, access_key[1] if access_key else None)
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        scope = re.search(r"Credential=[^/]+/[^/]+/([^/]+)/([^/]+)/", environ.get("HTTP_AUTHORIZATION", ""))
        request = Request(
            service=scope[2] if scope else "",
            method=environ["REQUEST_METHOD"],
            path=environ.get("RAW_URI", environ.get("PATH_INFO", "")).split("?")[0],
            query=parse_qs(environ.get("QUERY_STRING", "")),
            target=environ.get("HTTP_X_AMZ_TARGET", ""),
            body=body,
            region=scope[1] if scope else "us-east-1",
        )
        if request.path.startswith("/_emulator/"):
            return self._answer(start_response, 200, self._control(request.path, body))
        with self.lock:
            decision = self.authorization.check(request, access_key[1] if access_key else None)
        if decision is not None and not decision.allowed:
            status, headers, data = denial(request, decision)
            start_response(f"{status} Forbidden" if status == 403 else f"{status} Bad Request", list(headers.items()))
            return [data]
        form = parse_qs(request.body.decode()) if request.service == "cloudformation" else {}
        if form.get("Action") == ["DescribeType"] and form.get("TypeName", [""])[0] in registry.TYPES:
            xml = self.cloud_control.describe_type_xml(form["TypeName"][0]).encode()
            start_response("200 OK", [("Content-Type", "text/xml"), ("Content-Length", str(len(xml)))])
            return [xml]
        if request.target in RECORDED:
            with self.lock:
                self.recorded.append({"target": request.target, "body": json.loads(body or b"{}")})
        # Every request is checked against its operation's input shape first, as AWS's front end
        # checks it before any service sees it: moto's answers included.
        incoming = Incoming(
            service=request.service,
            method=request.method,
            path=request.path,
            query=parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True),
            body=request.body,
            target=request.target,
            headers={k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")},
        )
        with self.lock:
            reading = self.input_shapes.read(incoming)
            refusal = None
            if reading is not None:
                refusal = reading.refusal or self.service_rules.check(incoming, reading)
        if refusal is not None:
            self.calls.append(f"(refused: {refusal.error_type}: {refusal.message})")
            status, refused_headers, data = input_shapes.answer(
                incoming, refusal.status, refusal.error_type, refusal.message
            )
            reason = f"{status} {_REASONS.get(status, 'Error')}"
            start_response(reason, [*refused_headers, ("Content-Length", str(len(data)))])
            return [data]
        handler = self._handler_for(request)
        if handler is None:
            return self.moto_app(environ, start_response)
        self.calls.append(request.target or f"{request.service} {request.method} {request.path}")
        # AWS de-duplicates a create by its idempotency token (the ClientToken / clientRequestToken
        # member the model marks `idempotencyToken`; the SDK sends one token on every attempt of a
        # call): the same token gets the first answer again. A call without one runs again, as in
        # AWS, so a retried create meets its own resource ("ResourceInUse").
        token = _idempotency_key(reading)
        with self.lock:
            if token is not None and token in self.answered:
                self.calls.append(f"(the answer to {token[0]} with {token[1]} again)")
                status, answer = self.answered[token]
                return self._answer(start_response, status, answer, error_type=answer.get("__type"))
            try:
                status, answer = handler()
            except AwsError as error:
                status, answer = error.status, {"__type": error.error_type, "message": str(error)}
            except CloudControlError as error:
                status, answer = 400, {"__type": error.error_type, "message": str(error)}
            if token is not None and status < 300:
                self.answered[token] = (status, answer)
        return self._answer(start_response, status, answer, error_type=answer.get("__type"))

    def _handler_for(self, request: Request) -> Callable[[], tuple[int, Json]] | None:
        if request.target in self.json_operations:
            json_operation = self.json_operations[request.target]
            return lambda: (200, json_operation(request))
        if request.service in ("eks", "lambda"):
            for method, pattern, operation in self.rest_operations:
                match = pattern.match(request.path)
                if match and method == request.method:
                    arguments = [unquote(group) for group in match.groups()]
                    return lambda: operation(request, *arguments)
        return None

    @staticmethod
    def _answer(start_response: Callable, status: int, body: Json, error_type: str | None = None) -> list[bytes]:
        data = json.dumps(body).encode()
        headers = [("Content-Type", "application/x-amz-json-1.1"), ("Content-Length", str(len(data)))]
        if error_type:
            headers.append(("X-Amzn-ErrorType", error_type))
        start_response(f"{status} {_REASONS.get(status, 'Error')}", headers)
        return [data]

    def _moto(self, service: str, region: str, account: str | None = None) -> Any:
        """moto's backend of `service` in `account` (the request's when None)."""
        from moto.backends import get_backend

        backends = get_backend(service)[account or self.account_id]  # type: ignore[call-overload]
        return backends["global"] if service == "iam" else backends[region]

    # --- seeding: what exists before the first deploy -------------------------------------

    def seed(self, world: Json) -> Json:
        """Make the account look as the spec expects it before the stacks run: Identity Center
        enabled (its instance and identity store), the groups SCIM provisioned from the IdP,
        and existing EKS clusters (the existing-cluster examples)."""
        with self.lock:
            center = world["identity_center"]
            # Identity Center's instance and identity store are in the account that administers it.
            self.sso.account = center.get("account") or self.home_account
            sso = self._moto("sso-admin", center["region"], self.sso.account)
            instance = sso.instances[0]
            instance.instance_arn = center["instance_arn"]
            instance.identity_store_id = center["identity_store_id"]
            store = self._moto("identitystore", center["region"], self.sso.account)
            group_ids = {}
            for name in world.get("groups", []):
                # SCIM provisioning creates each group by its IdP display name (Identity Center
                # user guide, "Automatic provisioning"); the stacks look groups up by it.
                group_ids[name], _ = store.create_group(center["identity_store_id"], name, "provisioned by SCIM")
            for cluster in world.get("eks_clusters", []):
                eks = self._moto("eks", cluster["region"])
                eks.create_cluster(
                    name=cluster["name"],
                    role_arn=cluster["role_arn"],
                    resources_vpc_config={"subnetIds": cluster["subnet_ids"], "securityGroupIds": []},
                    version=cluster.get("version", "1.32"),
                    kubernetes_network_config=None,
                    logging=None,
                    client_request_token=None,
                    tags={},
                    encryption_config=None,
                    remote_network_config=None,
                )
                self.eks.access_config[cluster["name"]] = {
                    "authenticationMode": "API_AND_CONFIG_MAP",
                    "bootstrapClusterCreatorAdminPermissions": False,
                }
                # A cluster that runs HyperPod has the VPC CNI as a managed add-on (the stacks check its version).
                self.eks.addons[(cluster["name"], "vpc-cni")] = {
                    "addonName": "vpc-cni",
                    "clusterName": cluster["name"],
                    "status": "ACTIVE",
                    "addonVersion": cluster.get("vpc_cni_version", DEFAULT_ADDON_VERSIONS["vpc-cni"]),
                    "health": {"issues": []},
                    "addonArn": (
                        f"arn:aws:eks:{cluster['region']}:{self.account_id}:addon/{cluster['name']}/vpc-cni/seeded"
                    ),
                    "createdAt": _now(),
                    "modifiedAt": _now(),
                    "tags": {},
                    "podIdentityAssociations": [],
                }
            for region, ids in world.get("network", {}).items():
                self.network.setdefault(region, set()).update(ids)
            for vpc in world.get("vpcs", []):
                self._seed_vpc(vpc)
            for scripts in world.get("lifecycle_scripts", []):
                # What the organization uploaded where its spec's lifecycle_scripts_s3_uri points.
                s3 = self._moto("s3", "aws")
                if scripts["bucket"] not in s3.buckets:
                    s3.create_bucket(scripts["bucket"], scripts["region"])
                s3.put_object(scripts["bucket"], scripts["key"], b"#!/bin/bash\nset -euo pipefail\n")
            if world.get("adopted"):
                self._seed_adopted(world["adopted"], center, group_ids)
            return {"groups": group_ids}

    def _seed_vpc(self, vpc: Json) -> None:
        """The spec's VPC and its security groups in moto's EC2, under the spec's IDs: a security group
        the stacks create in it gets EC2's default egress rule (which the provider revokes), and a rule
        the stacks add to the cluster's group has its group (moto makes neither for an unknown VPC)."""
        from unittest import mock

        ec2 = self._moto("ec2", vpc["region"])
        if vpc["vpc_id"] not in ec2.vpcs:
            with mock.patch("moto.ec2.models.vpcs.random_vpc_id", return_value=vpc["vpc_id"]):
                ec2.create_vpc(vpc.get("cidr_block", "10.0.0.0/16"))
        known = {group_id for by_vpc in ec2.groups.values() for group_id in by_vpc}
        for group_id in vpc.get("security_group_ids", []):
            if group_id not in known:
                with mock.patch("moto.ec2.models.security_groups.random_security_group_id", return_value=group_id):
                    ec2.create_security_group(f"seeded-{group_id}", "the cluster's (seeded)", vpc_id=vpc["vpc_id"])

    def _seed_adopted(self, adopted: Json, center: Json, group_ids: dict[str, str]) -> None:
        """What an organization that runs HyperPod already has (tests/emulator/adopted.py): the
        stacks look it up or import it."""
        region = adopted["region"]
        for addon in adopted["eks_addons"]:
            self.eks.addons[(addon["cluster"], addon["name"])] = {
                "addonName": addon["name"],
                "clusterName": addon["cluster"],
                "status": "ACTIVE",
                "addonVersion": "v1.0.0-eksbuild.1",
                "health": {"issues": []},
                "addonArn": f"arn:aws:eks:{region}:{self.account_id}:addon/{addon['cluster']}/{addon['name']}/seeded",
                "createdAt": _now(),
                "modifiedAt": _now(),
                "tags": {},
                "podIdentityAssociations": [],
            }
        for resource in adopted["cloud_control"]:
            self.cloud_control.resources[(resource["type"], resource["identifier"])] = resource["properties"]
        for domain in adopted["domains"]:
            application = self._sso_application_arn(region)
            self.sso.applications[application] = {"domain": domain["DomainId"]}
            self.domains[domain["DomainId"]] = {
                "domain": {
                    **domain,
                    "HomeEfsFileSystemId": "fs-" + uuid.uuid4().hex[:17],
                    "Status": "InService",
                    "CreationTime": _now(),
                    "LastModifiedTime": _now(),
                    "Url": f"https://{domain['DomainId']}.studio.{region}.sagemaker.aws",
                    "SingleSignOnApplicationArn": application,
                    "SingleSignOnManagedApplicationInstanceId": "ins-" + uuid.uuid4().hex[:16],
                    "TagPropagation": "DISABLED",
                }
            }
            self.tags[domain["DomainArn"]] = {}
        sso = self._moto("sso-admin", center["region"], self.sso.account)
        for existing in adopted["permission_sets"]:
            sso.create_permission_set(existing["name"], "", center["instance_arn"], "PT1H", "", [])
            sso.permission_sets[-1].permission_set_arn = existing["arn"]
            policy = {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": "sts:GetCallerIdentity", "Resource": "*"}],
            }
            sso.put_inline_policy_to_permission_set(center["instance_arn"], existing["arn"], json.dumps(policy))
            sso.create_account_assignment(
                center["instance_arn"],
                existing["account_id"],
                "AWS_ACCOUNT",
                existing["arn"],
                "GROUP",
                group_ids[existing["group"]],
            )
            self.sso.tags[existing["arn"]] = []
            self._reserved_sso_role(existing["name"], existing["arn"], center["region"], existing["account_id"])

    def domain_default(self, change: Json) -> Json:
        """Make a domain answer AWS's default for one setting (`AppNetworkAccessType` falls back
        to `PublicInternetOnly`), as when a setting is lost outside Terraform: the tier's drift
        test checks that the re-plan then reports it."""
        with self.lock:
            (found,) = [d["domain"] for d in self.domains.values() if d["domain"]["DomainName"] == change["domain"]]
            found[change["setting"]] = change["value"]
            return {"DomainId": found["DomainId"]}

    # --- EKS (REST) -------------------------------------------------------------------------

    def _via_moto(self, request: Request) -> Json:
        """The same request answered by moto: its JSON, or its error raised as AwsError."""
        captured: dict[str, Any] = {}

        def start(status: str, headers: list, exc_info: Any = None) -> None:
            captured["status"] = int(status.split()[0])
            captured["headers"] = {name.lower(): value for name, value in headers}

        environ = {
            "REQUEST_METHOD": request.method,
            "PATH_INFO": request.path,
            "RAW_URI": request.path,
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "80",
            "HTTP_HOST": "127.0.0.1",
            "HTTP_AUTHORIZATION": (
                f"AWS4-HMAC-SHA256 Credential=AKID/20260101/{request.region}/{request.service}/aws4_request, "
                "SignedHeaders=host, Signature=x"
            ),
            # The account of the request it answers again (moto reads the header before the key).
            "HTTP_X_MOTO_ACCOUNT_ID": self.account_id,
            "CONTENT_TYPE": "application/x-amz-json-1.1" if request.target else "application/json",
            "CONTENT_LENGTH": str(len(request.body)),
            "wsgi.input": io.BytesIO(request.body),
            "wsgi.url_scheme": "http",
            "wsgi.errors": io.StringIO(),
            "SERVER_PROTOCOL": "HTTP/1.1",
        }
        if request.target:
            environ["HTTP_X_AMZ_TARGET"] = request.target
        data = b"".join(self.moto_app(environ, start))
        answer = json.loads(data or b"{}")
        if captured["status"] >= 400:
            error_type = captured["headers"].get("x-amzn-errortype", answer.get("__type", "Error")).split(":")[0]
            raise AwsError(captured["status"], error_type, answer.get("message", answer.get("Message", str(answer))))
        return answer

    def eks_create_cluster(self, request: Request) -> tuple[int, Json]:
        # EKS CreateCluster: moto creates it but keeps no accessConfig; AWS answers with the
        # authentication mode asked for (default CONFIG_MAP) and the bootstrap flag (default true).
        # The cluster role and the subnets must exist (InvalidParameterException; EKS quotes EC2's
        # "The subnet ID '...' does not exist").
        body = request.json()
        if not self._principal_exists(body.get("roleArn", "")):
            raise AwsError(400, "InvalidParameterException", f"Role {body.get('roleArn')} does not exist")
        for subnet in (body.get("resourcesVpcConfig") or {}).get("subnetIds", []):
            if not self._network_has(request.region, subnet):
                raise AwsError(400, "InvalidParameterException", f"The subnet ID '{subnet}' does not exist")
        answer = self._via_moto(request)
        asked = request.json().get("accessConfig") or {}
        config = {
            "authenticationMode": asked.get("authenticationMode", "CONFIG_MAP"),
            "bootstrapClusterCreatorAdminPermissions": asked.get("bootstrapClusterCreatorAdminPermissions", True),
        }
        self.eks.access_config[answer["cluster"]["name"]] = config
        answer["cluster"]["accessConfig"] = config
        return 200, answer

    def eks_describe_cluster(self, request: Request, name: str) -> tuple[int, Json]:
        # EKS DescribeCluster: AWS returns accessConfig (AccessConfigResponse); moto does not.
        answer = self._via_moto(request)
        answer["cluster"]["accessConfig"] = self.eks.access_config.get(
            name, {"authenticationMode": "CONFIG_MAP", "bootstrapClusterCreatorAdminPermissions": True}
        )
        return 200, answer

    def _eks_cluster(self, request: Request, name: str) -> Any:
        clusters = self._moto("eks", request.region).clusters
        return _found(clusters, name, AwsError(404, "ResourceNotFoundException", f"No cluster found for name: {name}."))

    def _principal_exists(self, arn: str) -> bool:
        match = re.match(r"^arn:aws[\w-]*:iam::(\d{12}):role/(?:.*/)?([^/]+)$", arn)
        if not match:
            return False
        roles = self._moto("iam", "global", match[1]).roles.values()
        return any(role.arn == arn for role in roles)

    def eks_create_access_entry(self, request: Request, cluster_name: str) -> tuple[int, Json]:
        # EKS CreateAccessEntry: the cluster's authentication mode must include API, the principal
        # must be an existing IAM principal (InvalidParameterException), one entry per principal
        # (ResourceInUseException). The default user name of a role is its assumed-role ARN.
        self._eks_cluster(request, cluster_name)
        if self.eks.access_config.get(cluster_name, {}).get("authenticationMode") == "CONFIG_MAP":
            raise AwsError(400, "InvalidRequestException", "The cluster's authentication mode must include API")
        body = request.json()
        principal = body.get("principalArn", "")
        if not self._principal_exists(principal):
            raise AwsError(400, "InvalidParameterException", f"The specified principalArn is invalid: {principal!r}")
        key = (cluster_name, principal)
        if key in self.eks.access_entries:
            raise AwsError(409, "ResourceInUseException", "The specified access entry resource is already in use")
        role_name = principal.rsplit("/", 1)[1]
        entry_type = body.get("type", "STANDARD")
        if entry_type not in EKS_ACCESS_ENTRY_TYPES:
            raise AwsError(400, "InvalidParameterException", f"The type {entry_type} is not a valid access entry type")
        if entry_type != "STANDARD" and body.get("kubernetesGroups"):
            message = f"kubernetesGroups can't be specified for access entry type {entry_type}"
            raise AwsError(400, "InvalidParameterException", message)
        entry = {
            "clusterName": cluster_name,
            "principalArn": principal,
            "kubernetesGroups": body.get("kubernetesGroups", []),
            "accessEntryArn": (
                f"arn:aws:eks:{request.region}:{self.account_id}:access-entry/{cluster_name}/role/"
                f"{self.account_id}/{role_name}/{uuid.uuid4().hex[:24]}"
            ),
            "createdAt": _now(),
            "modifiedAt": _now(),
            "tags": body.get("tags", {}),
            "username": body.get("username")
            or f"arn:aws:sts::{self.account_id}:assumed-role/{role_name}/{{{{SessionName}}}}",
            "type": entry_type,
        }
        self.eks.access_entries[key] = entry
        return 200, {"accessEntry": entry}

    def _access_entry(self, cluster_name: str, principal: str) -> Json:
        not_found = AwsError(404, "ResourceNotFoundException", f"The specified access entry {principal} was not found")
        return _found(self.eks.access_entries, (cluster_name, principal), not_found)

    def eks_describe_access_entry(self, request: Request, cluster_name: str, principal: str) -> tuple[int, Json]:
        # EKS DescribeAccessEntry.
        return 200, {"accessEntry": self._access_entry(cluster_name, principal)}

    def eks_delete_access_entry(self, request: Request, cluster_name: str, principal: str) -> tuple[int, Json]:
        # EKS DeleteAccessEntry: its policy associations go with it.
        self._access_entry(cluster_name, principal)
        del self.eks.access_entries[(cluster_name, principal)]
        self.eks.policies.pop((cluster_name, principal), None)
        return 200, {}

    def eks_associate(self, request: Request, cluster_name: str, principal: str) -> tuple[int, Json]:
        # EKS AssociateAccessPolicy: the access entry and the (AWS-published) policy must exist;
        # a namespace scope needs at least one namespace.
        self._access_entry(cluster_name, principal)
        body = request.json()
        policy = body.get("policyArn", "")
        arn = ACCESS_POLICY_ARN.match(policy)
        if arn is None or arn["partition"] != _partition(request.region):
            raise AwsError(400, "InvalidParameterException", f"The policyArn {policy} is not valid in {request.region}")
        if arn["name"] not in EKS_ACCESS_POLICIES:
            raise AwsError(404, "ResourceNotFoundException", f"The specified policy {policy} was not found")
        if self.eks.access_entries[(cluster_name, principal)]["type"] != "STANDARD":
            message = "Access policies can be associated with STANDARD entries only"
            raise AwsError(400, "InvalidRequestException", message)
        scope = body.get("accessScope") or {}
        if scope.get("type") not in ("cluster", "namespace"):
            raise AwsError(400, "InvalidParameterException", "accessScope.type must be cluster or namespace")
        if scope["type"] == "namespace" and not scope.get("namespaces"):
            raise AwsError(400, "InvalidParameterException", "a namespace access scope needs namespaces")
        association = {
            "policyArn": policy,
            "accessScope": {"type": scope["type"], "namespaces": scope.get("namespaces", [])},
            "associatedAt": _now(),
            "modifiedAt": _now(),
        }
        self.eks.policies.setdefault((cluster_name, principal), {})[policy] = association
        return 200, {"clusterName": cluster_name, "principalArn": principal, "associatedAccessPolicy": association}

    def eks_associated(self, request: Request, cluster_name: str, principal: str) -> tuple[int, Json]:
        # EKS ListAssociatedAccessPolicies.
        self._access_entry(cluster_name, principal)
        associations = list(self.eks.policies.get((cluster_name, principal), {}).values())
        return 200, {"clusterName": cluster_name, "principalArn": principal, "associatedAccessPolicies": associations}

    def eks_disassociate(self, request: Request, cluster_name: str, principal: str, policy: str) -> tuple[int, Json]:
        # EKS DisassociateAccessPolicy.
        associations = self.eks.policies.get((cluster_name, principal), {})
        if policy not in associations:
            raise AwsError(404, "ResourceNotFoundException", f"The policy {policy} is not associated")
        del associations[policy]
        return 200, {}

    def eks_create_addon(self, request: Request, cluster_name: str) -> tuple[int, Json]:
        # EKS CreateAddon: one add-on of a name per cluster (ResourceInUseException); AWS picks
        # the default version when none is asked for and reports the add-on ACTIVE once installed.
        self._eks_cluster(request, cluster_name)
        body = request.json()
        name = body["addonName"]
        if name not in EKS_ADDONS:
            raise AwsError(400, "InvalidParameterException", "Addon specified is not supported")
        refused = _addon_version_refused(name, body.get("addonVersion"))
        if refused is not None:
            raise refused
        if (cluster_name, name) in self.eks.addons:
            raise AwsError(409, "ResourceInUseException", f"Addon {name} already exists")
        role = body.get("serviceAccountRoleArn")
        if role and not self._principal_exists(role):
            raise AwsError(400, "InvalidParameterException", f"The role {role} does not exist")
        addon = {
            "addonName": name,
            "clusterName": cluster_name,
            "status": "ACTIVE",
            "addonVersion": body.get("addonVersion") or DEFAULT_ADDON_VERSIONS.get(name, "v1.0.0-eksbuild.1"),
            "health": {"issues": []},
            "addonArn": f"arn:aws:eks:{request.region}:{self.account_id}:addon/{cluster_name}/{name}/{uuid.uuid4()}",
            "createdAt": _now(),
            "modifiedAt": _now(),
            "tags": body.get("tags", {}),
            "podIdentityAssociations": [],
        }
        if role:
            addon["serviceAccountRoleArn"] = role
        if body.get("configurationValues"):
            addon["configurationValues"] = body["configurationValues"]
        self.eks.addons[(cluster_name, name)] = addon
        return 200, {"addon": addon}

    def _addon(self, cluster_name: str, name: str) -> Json:
        not_found = AwsError(404, "ResourceNotFoundException", f"No addon: {name} found in cluster: {cluster_name}")
        return _found(self.eks.addons, (cluster_name, name), not_found)

    def eks_describe_addon(self, request: Request, cluster_name: str, name: str) -> tuple[int, Json]:
        # EKS DescribeAddon.
        return 200, {"addon": self._addon(cluster_name, name)}

    def eks_delete_addon(self, request: Request, cluster_name: str, name: str) -> tuple[int, Json]:
        # EKS DeleteAddon: answers the add-on DELETING; a later DescribeAddon finds none.
        addon = dict(self._addon(cluster_name, name), status="DELETING")
        del self.eks.addons[(cluster_name, name)]
        return 200, {"addon": addon}

    def eks_create_pod_identity(self, request: Request, cluster_name: str) -> tuple[int, Json]:
        # EKS CreatePodIdentityAssociation: the role must exist; one association per service account.
        self._eks_cluster(request, cluster_name)
        body = request.json()
        if not self._principal_exists(body.get("roleArn", "")):
            raise AwsError(400, "InvalidParameterException", f"The role {body.get('roleArn')} does not exist")
        for (cluster, _), existing in self.eks.pod_identities.items():
            if cluster == cluster_name and (existing["namespace"], existing["serviceAccount"]) == (
                body["namespace"],
                body["serviceAccount"],
            ):
                raise AwsError(409, "ResourceInUseException", "Association already exists")
        association_id = "a-" + uuid.uuid4().hex[:17]
        association = {
            "clusterName": cluster_name,
            "namespace": body["namespace"],
            "serviceAccount": body["serviceAccount"],
            "roleArn": body["roleArn"],
            "associationArn": (
                f"arn:aws:eks:{request.region}:{self.account_id}:podidentityassociation/{cluster_name}/{association_id}"
            ),
            "associationId": association_id,
            "tags": body.get("tags", {}),
            "createdAt": _now(),
            "modifiedAt": _now(),
            "disableSessionTags": body.get("disableSessionTags", False),
        }
        self.eks.pod_identities[(cluster_name, association_id)] = association
        return 200, {"association": association}

    def eks_describe_pod_identity(self, request: Request, cluster_name: str, association_id: str) -> tuple[int, Json]:
        # EKS DescribePodIdentityAssociation.
        not_found = AwsError(404, "ResourceNotFoundException", f"Association {association_id} not found")
        return 200, {"association": _found(self.eks.pod_identities, (cluster_name, association_id), not_found)}

    def eks_delete_pod_identity(self, request: Request, cluster_name: str, association_id: str) -> tuple[int, Json]:
        # EKS DeletePodIdentityAssociation.
        _, association = self.eks_describe_pod_identity(request, cluster_name, association_id)
        del self.eks.pod_identities[(cluster_name, association_id)]
        return 200, association

    def eks_update_access_entry(self, request: Request, cluster_name: str, principal: str) -> tuple[int, Json]:
        # EKS UpdateAccessEntry: kubernetesGroups and username of an existing entry; a STANDARD
        # entry's only (AWS: "not supported for access entries of type EC2_LINUX ...").
        entry = self._access_entry(cluster_name, principal)
        body = request.json()
        if entry["type"] != "STANDARD" and "kubernetesGroups" in body:
            raise AwsError(400, "InvalidParameterException", f"kubernetesGroups cannot be set for type {entry['type']}")
        for key in ("kubernetesGroups", "username"):
            if key in body:
                entry[key] = body[key]
        entry["modifiedAt"] = _now()
        return 200, {"accessEntry": entry}

    def eks_list_access_entries(self, request: Request, cluster_name: str) -> tuple[int, Json]:
        # EKS ListAccessEntries: the principals' ARNs.
        self._eks_cluster(request, cluster_name)
        return 200, {"accessEntries": [p for (c, p) in self.eks.access_entries if c == cluster_name]}

    def eks_list_addons(self, request: Request, cluster_name: str) -> tuple[int, Json]:
        # EKS ListAddons: the add-ons' names.
        self._eks_cluster(request, cluster_name)
        return 200, {"addons": [name for (c, name) in self.eks.addons if c == cluster_name]}

    def eks_update_addon(self, request: Request, cluster_name: str, name: str) -> tuple[int, Json]:
        # EKS UpdateAddon: version, role, configuration and Pod Identity associations of an add-on;
        # answers an update (type AddonUpdate) that DescribeUpdate reports Successful.
        addon = self._addon(cluster_name, name)
        body = request.json()
        refused = _addon_version_refused(name, body.get("addonVersion"))
        if refused is not None:
            raise refused
        role = body.get("serviceAccountRoleArn")
        if role and not self._principal_exists(role):
            raise AwsError(400, "InvalidParameterException", f"The role {role} does not exist")
        params = []
        for key, kind in (
            ("addonVersion", "AddonVersion"),
            ("serviceAccountRoleArn", "ServiceAccountRoleArn"),
            ("configurationValues", "ConfigurationValues"),
        ):
            if body.get(key) is not None:
                addon[key] = body[key]
                params.append({"type": kind, "value": body[key]})
        addon["modifiedAt"] = _now()
        update: Json = {
            "id": str(uuid.uuid4()),
            "status": "Successful",
            "type": "AddonUpdate",
            "params": params,
            "createdAt": _now(),
            "errors": [],
        }
        self.eks.updates[update["id"]] = update
        return 200, {"update": update}

    def eks_describe_update(self, request: Request, cluster_name: str, update_id: str) -> tuple[int, Json]:
        # EKS DescribeUpdate of an add-on update (`?addonName=`); a cluster's updates are moto's.
        if update_id not in self.eks.updates:
            return 200, self._via_moto(request)
        return 200, {"update": self.eks.updates[update_id]}

    def eks_list_pod_identities(self, request: Request, cluster_name: str) -> tuple[int, Json]:
        # EKS ListPodIdentityAssociations: summaries.
        self._eks_cluster(request, cluster_name)
        keys = ("clusterName", "namespace", "serviceAccount", "associationArn", "associationId")
        found = [{k: a[k] for k in keys} for (c, _), a in self.eks.pod_identities.items() if c == cluster_name]
        return 200, {"associations": found}

    def eks_update_pod_identity(self, request: Request, cluster_name: str, association_id: str) -> tuple[int, Json]:
        # EKS UpdatePodIdentityAssociation: the role (which must exist) and session tags.
        _, answer = self.eks_describe_pod_identity(request, cluster_name, association_id)
        association = answer["association"]
        body = request.json()
        if "roleArn" in body:
            if not self._principal_exists(body["roleArn"]):
                raise AwsError(400, "InvalidParameterException", f"The role {body['roleArn']} does not exist")
            association["roleArn"] = body["roleArn"]
        if "disableSessionTags" in body:
            association["disableSessionTags"] = body["disableSessionTags"]
        association["modifiedAt"] = _now()
        return 200, {"association": association}

    def _eks_tagged(self, arn: str) -> Json | None:
        """The access entry, add-on or Pod Identity association (kept here) with this ARN."""
        for table, key in (
            (self.eks.access_entries, "accessEntryArn"),
            (self.eks.addons, "addonArn"),
            (self.eks.pod_identities, "associationArn"),
        ):
            for item in table.values():
                if item[key] == arn:
                    return item
        return None

    def eks_tag_resource(self, request: Request, arn: str) -> tuple[int, Json]:
        # EKS TagResource: of a cluster (moto's) or of an access entry, add-on or Pod Identity
        # association; an ARN of none is ResourceNotFoundException (NotFoundException in moto).
        item = self._eks_tagged(arn)
        if item is None:
            return 200, self._via_moto(request)
        item["tags"].update(request.json().get("tags", {}))
        return 200, {}

    def eks_untag_resource(self, request: Request, arn: str) -> tuple[int, Json]:
        # EKS UntagResource (`?tagKeys=`).
        item = self._eks_tagged(arn)
        if item is None:
            return 200, self._via_moto(request)
        for key in request.query.get("tagKeys", []):
            item["tags"].pop(key, None)
        return 200, {}

    def eks_list_tags(self, request: Request, arn: str) -> tuple[int, Json]:
        # EKS ListTagsForResource.
        item = self._eks_tagged(arn)
        if item is None:
            return 200, self._via_moto(request)
        return 200, {"tags": item["tags"]}

    # --- Lambda (REST) ------------------------------------------------------------------------

    def lambda_create_function(self, request: Request) -> tuple[int, Json]:
        # Lambda CreateFunction: AWS keeps DeadLetterConfig and answers it in the function's
        # configuration (GetFunction, GetFunctionConfiguration); moto drops it.
        answer = self._via_moto(request)
        config = request.json().get("DeadLetterConfig")
        if config and config.get("TargetArn"):
            self.dead_letter_configs[answer["FunctionName"]] = config
            answer["DeadLetterConfig"] = config
        return 201, answer

    def lambda_get_function(self, request: Request, name: str) -> tuple[int, Json]:
        # Lambda GetFunction: {Configuration: {..., DeadLetterConfig}, Code, Tags}.
        answer = self._via_moto(request)
        function = answer["Configuration"]["FunctionName"]
        if function in self.dead_letter_configs:
            answer["Configuration"]["DeadLetterConfig"] = self.dead_letter_configs[function]
        return 200, answer

    def lambda_get_configuration(self, request: Request, name: str) -> tuple[int, Json]:
        # Lambda GetFunctionConfiguration.
        answer = self._via_moto(request)
        if answer["FunctionName"] in self.dead_letter_configs:
            answer["DeadLetterConfig"] = self.dead_letter_configs[answer["FunctionName"]]
        return 200, answer

    def lambda_update_configuration(self, request: Request, name: str) -> tuple[int, Json]:
        # Lambda UpdateFunctionConfiguration: a DeadLetterConfig given replaces the kept one.
        answer = self._via_moto(request)
        config = request.json().get("DeadLetterConfig")
        if config is not None:
            if config.get("TargetArn"):
                self.dead_letter_configs[answer["FunctionName"]] = config
            else:
                self.dead_letter_configs.pop(answer["FunctionName"], None)
        if answer["FunctionName"] in self.dead_letter_configs:
            answer["DeadLetterConfig"] = self.dead_letter_configs[answer["FunctionName"]]
        return 200, answer

    # --- SSO Admin (JSON 1.1) ---------------------------------------------------------------

    def sso_create_permission_set(self, request: Request) -> Json:
        # SSO Admin CreatePermissionSet: moto creates it but drops its Tags; AWS keeps them
        # (ListTagsForResource). Names are unique per instance (ConflictException).
        body = request.json()
        asked = body.get("SessionDuration", "PT1H")
        duration = SESSION_DURATION.match(asked)
        parts = zip(duration.groups(), (3600, 60, 1), strict=True) if duration else []
        if not 3600 <= sum(int(n or 0) * unit for n, unit in parts) <= 12 * 3600:
            raise AwsError(400, "ValidationException", f"SessionDuration {asked} must be between PT1H and PT12H")
        existing = self._moto("sso-admin", request.region).permission_sets
        if any(p.instance_arn == body.get("InstanceArn") and p.name == body.get("Name") for p in existing):
            # moto creates a second one; AWS keeps names unique per instance.
            raise AwsError(400, "ConflictException", f"PermissionSet with name {body.get('Name')} already exists")
        answer = self._via_moto(request)
        # moto names it `<instance ARN>/ps-...`; AWS's ARN is `arn:aws:sso:::permissionSet/<instance
        # ID>/ps-...` (Service Authorization Reference, IAM Identity Center's resource types; the
        # pattern of ResourceArn in the service model refuses moto's form).
        created = next(p for p in existing if p.permission_set_arn == answer["PermissionSet"]["PermissionSetArn"])
        instance_arn, permission_set_id = created.permission_set_arn.rsplit("/", 1)
        prefix, instance_id = instance_arn.rsplit(":instance/", 1)
        created.permission_set_arn = f"{prefix}:permissionSet/{instance_id}/{permission_set_id}"
        answer["PermissionSet"]["PermissionSetArn"] = created.permission_set_arn
        self.sso.tags[answer["PermissionSet"]["PermissionSetArn"]] = list(body.get("Tags", []))
        return answer

    def sso_tag_resource(self, request: Request) -> Json:
        # SSO Admin TagResource: adds or overwrites keys.
        body = request.json()
        tags = {t["Key"]: t["Value"] for t in self.sso.tags.get(body["ResourceArn"], [])}
        tags.update({t["Key"]: t["Value"] for t in body["Tags"]})
        self.sso.tags[body["ResourceArn"]] = [{"Key": k, "Value": v} for k, v in tags.items()]
        return {}

    def sso_untag_resource(self, request: Request) -> Json:
        # SSO Admin UntagResource.
        body = request.json()
        self.sso.tags[body["ResourceArn"]] = [
            t for t in self.sso.tags.get(body["ResourceArn"], []) if t["Key"] not in body["TagKeys"]
        ]
        return {}

    def sso_list_tags(self, request: Request) -> Json:
        # SSO Admin ListTagsForResource.
        return {"Tags": self.sso.tags.get(request.json()["ResourceArn"], [])}

    def sso_provision_permission_set(self, request: Request) -> Json:
        # SSO Admin ProvisionPermissionSet: asynchronous in AWS; the status it answers is then
        # read with DescribePermissionSetProvisioningStatus (here at once SUCCEEDED).
        body = request.json()
        self._via_moto(request)
        request_id = str(uuid.uuid4())
        status = {
            "Status": "SUCCEEDED",
            "RequestId": request_id,
            "AccountId": body.get("TargetId", self.account_id),
            "PermissionSetArn": body["PermissionSetArn"],
            "CreatedDate": _now(),
        }
        self.sso.provisioning[request_id] = status
        if body.get("TargetId"):
            targets = [body["TargetId"]]
        else:  # ALL_PROVISIONED_ACCOUNTS: every account the set is assigned to
            sso = self._moto("sso-admin", request.region)
            targets = sorted(
                {a.target_id for a in sso.account_assignments if a.permission_set_arn == body["PermissionSetArn"]}
            )
        # Every target is provisioned; the first failure is the status's.
        outcomes = [
            self._provision_reserved_role(body["InstanceArn"], body["PermissionSetArn"], request.region, target)
            for target in targets
        ]
        failure = next((outcome for outcome in outcomes if outcome), None)
        if failure is not None:
            status.update(Status="FAILED", FailureReason=failure)
        return {"PermissionSetProvisioningStatus": dict(status, Status="IN_PROGRESS")}

    def _provision_reserved_role(
        self, instance_arn: str, permission_set_arn: str, region: str, account: str
    ) -> str | None:
        """What provisioning does to the role of a permission set in an account it is assigned to
        (IAM Identity Center user guide, "Permission sets": the role carries the set's inline policy
        as AwsSSOInlinePolicy and its managed policies): written from the set as it is now. A
        customer managed policy the set references must exist in the account under its name and
        path (CustomerManagedPolicyReference, IAM Identity Center API reference): when one does not,
        provisioning fails (the reason is returned) and the role is left as it was. `account`: the
        account the set is provisioned to, whose IAM holds the role and must hold the policies."""
        sso = self._moto("sso-admin", region)
        permission_set = sso._find_permission_set(instance_arn, permission_set_arn)
        iam = self._moto("iam", "global", account)
        referenced = [
            f"arn:aws:iam::{account}:policy{ref.path or '/'}{ref.name}"
            for ref in permission_set.customer_managed_policies
        ]
        missing = [arn for arn in referenced if arn not in iam.managed_policies]
        if missing:
            return f"The customer managed policy {missing[0]} does not exist in account {account}"
        referenced += [policy.arn for policy in permission_set.managed_policies]
        prefix = f"AWSReservedSSO_{permission_set.name}_"
        for role in list(iam.roles.values()):
            if not role.name.startswith(prefix):
                continue
            role.policies.pop("AwsSSOInlinePolicy", None)
            if permission_set.inline_policy:
                inline = permission_set.inline_policy
                role.policies["AwsSSOInlinePolicy"] = inline if isinstance(inline, str) else json.dumps(inline)
            for arn in set(role.managed_policies) - set(referenced):
                iam.detach_role_policy(arn, role.name)
            for arn in referenced:
                if arn not in role.managed_policies:
                    iam.attach_role_policy(arn, role.name)
        return None

    def sso_provisioning_status(self, request: Request) -> Json:
        # SSO Admin DescribePermissionSetProvisioningStatus.
        request_id = request.json()["ProvisionPermissionSetRequestId"]
        not_found = AwsError(400, "ResourceNotFoundException", f"Request {request_id} not found")
        return {"PermissionSetProvisioningStatus": _found(self.sso.provisioning, request_id, not_found)}

    def sso_create_account_assignment(self, request: Request) -> Json:
        # SSO Admin CreateAccountAssignment: the group must exist in the identity store. On the
        # first assignment of a permission set to an account, Identity Center creates the IAM
        # role `AWSReservedSSO_<permission set name>_<16 hex>` under
        # /aws-reserved/sso.amazonaws.com/<region>/ (IAM Identity Center user guide, "Referencing
        # permission sets in resource policies"): made here the same way.
        body = request.json()
        self._principal_in_identity_store(request.region, body["PrincipalType"], body["PrincipalId"])
        if body.get("TargetId") not in self._organization_accounts():
            # Identity Center assigns access to accounts of its organization only (IAM Identity
            # Center user guide, "Assign user or group access to AWS accounts").
            raise AwsError(
                400, "ValidationException", f"The account {body.get('TargetId')} is not a member of the organization"
            )
        answer = self._via_moto(request)
        permission_set = self._via_moto(
            Request(
                service=request.service,
                method="POST",
                path="/",
                query={},
                target="SWBExternalService.DescribePermissionSet",
                body=json.dumps(
                    {"InstanceArn": body["InstanceArn"], "PermissionSetArn": body["PermissionSetArn"]}
                ).encode(),
                region=request.region,
            )
        )["PermissionSet"]
        self._reserved_sso_role(permission_set["Name"], body["PermissionSetArn"], request.region, body["TargetId"])
        self._provision_reserved_role(body["InstanceArn"], body["PermissionSetArn"], request.region, body["TargetId"])
        return answer

    def sso_delete_account_assignment(self, request: Request) -> Json:
        # SSO Admin DeleteAccountAssignment. When the last assignment of a permission set in an
        # account goes, Identity Center deletes the set's `AWSReservedSSO_*` role there (IAM
        # Identity Center user guide, "Permission sets": the role is removed when the permission
        # set is no longer assigned to the account); what referred to the role by ARN (an EKS
        # access entry) does not follow a role made again later.
        body = request.json()
        answer = self._via_moto(request)
        sso = self._moto("sso-admin", request.region)
        still = [
            a
            for a in sso.account_assignments
            if a.permission_set_arn == body["PermissionSetArn"] and a.target_id == body["TargetId"]
        ]
        if not still:
            permission_set = sso._find_permission_set(body["InstanceArn"], body["PermissionSetArn"])
            iam = self._moto("iam", "global", body["TargetId"])
            prefix = f"AWSReservedSSO_{permission_set.name}_"
            for key, role in list(iam.roles.items()):
                if role.name.startswith(prefix):
                    del iam.roles[key]
        return answer

    def _reserved_sso_role(self, permission_set_name: str, permission_set_arn: str, region: str, account: str) -> None:
        """The set's role in `account`, the account it is assigned to."""
        iam = self._moto("iam", "global", account)
        prefix = f"AWSReservedSSO_{permission_set_name}_"
        if any(name.startswith(prefix) for name in (role.name for role in iam.roles.values())):
            return
        suffix = hashlib.sha256(permission_set_arn.encode()).hexdigest()[:16]
        saml = f"arn:aws:iam::{account}:saml-provider/AWSSSO_{suffix}_DO_NOT_DELETE"
        trust = {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Principal": {"Federated": saml},
                    "Action": ["sts:AssumeRoleWithSAML", "sts:TagSession"],
                    "Condition": {"StringEquals": {"SAML:aud": "https://signin.aws.amazon.com/saml"}},
                }
            ],
        }
        iam.create_role(
            role_name=prefix + suffix,
            assume_role_policy_document=json.dumps(trust),
            path=f"/aws-reserved/sso.amazonaws.com/{region}/",
            permissions_boundary=None,
            description="",
            tags=[],
            max_session_duration="3600",
        )

    def _application_key(self, body: Json) -> tuple[str, str, str]:
        return body["ApplicationArn"], body["PrincipalId"], body["PrincipalType"]

    def _principal_in_identity_store(self, region: str, kind: str, principal_id: str) -> None:
        """An assignment's user or group must exist in the instance's identity store
        (CreateAccountAssignment / CreateApplicationAssignment: ResourceNotFoundException)."""
        instance = self._moto("sso-admin", region, self.sso.account).instances[0]
        store = self._moto("identitystore", region, self.sso.account).identity_stores.get(instance.identity_store_id)
        held = {} if store is None else (store.groups if kind == "GROUP" else store.users)
        if principal_id not in held:
            raise AwsError(
                400,
                "ResourceNotFoundException",
                f"{'Group' if kind == 'GROUP' else 'User'} {principal_id} does not exist in identity store "
                f"{instance.identity_store_id}",
            )

    def _organization_accounts(self) -> set[str]:
        """The organization's accounts: the home one, the others the emulator plays (`accounts`) and
        any moto's Organizations holds."""
        accounts = {self.home_account, *self.accounts}
        try:
            organizations = self._moto("organizations", "global")
            accounts |= {account.id for account in getattr(organizations, "accounts", [])}
        except KeyError:
            pass
        return accounts

    def sso_create_application_assignment(self, request: Request) -> Json:
        # SSO Admin CreateApplicationAssignment: the application (here: a SageMaker domain's
        # Identity Center application) and the principal must exist.
        body = request.json()
        if body["ApplicationArn"] not in self.sso.applications:
            raise AwsError(400, "ResourceNotFoundException", f"Application {body['ApplicationArn']} not found")
        self._principal_in_identity_store(request.region, body["PrincipalType"], body["PrincipalId"])
        key = self._application_key(body)
        if key in self.sso.application_assignments:
            raise AwsError(400, "ConflictException", "The assignment exists already")
        self.sso.application_assignments[key] = {
            "ApplicationArn": key[0],
            "PrincipalId": key[1],
            "PrincipalType": key[2],
        }
        return {}

    def sso_describe_application_assignment(self, request: Request) -> Json:
        # SSO Admin DescribeApplicationAssignment.
        not_found = AwsError(400, "ResourceNotFoundException", "Application assignment not found")
        return _found(self.sso.application_assignments, self._application_key(request.json()), not_found)

    def sso_delete_application_assignment(self, request: Request) -> Json:
        # SSO Admin DeleteApplicationAssignment.
        self.sso_describe_application_assignment(request)
        del self.sso.application_assignments[self._application_key(request.json())]
        return {}

    # --- SageMaker domains (JSON 1.1) -------------------------------------------------------

    def _hyperpod_clusters(self) -> list[tuple[str, Json]]:
        return [
            (arn, model)
            for (type_name, arn), model in self.cloud_control.resources.items()
            if type_name == "AWS::SageMaker::Cluster"
        ]

    # --- what a HyperPod cluster names must exist (cloud_control.World) ----------------------

    def missing_for_cluster(self, model: Json, region: str) -> str | None:
        """What SageMaker's CreateCluster / UpdateCluster refuse as missing: the EKS cluster of
        the orchestrator (in the request's Region), each instance group's execution role, the
        VPC's subnets and security groups (SageMaker API reference, CreateCluster: ValidationException
        and ResourceNotFound; the words are the emulator's, naming the resource)."""
        eks_arn = (model.get("Orchestrator") or {}).get("Eks", {}).get("ClusterArn")
        if eks_arn:
            name = eks_arn.rsplit("/", 1)[-1]
            if eks_arn.split(":")[3] != region or name not in self._moto("eks", region).clusters:
                return f"EKS cluster {eks_arn} does not exist (ValidationException)"
        iam = self._moto("iam", "global")
        roles = {role.arn for role in iam.roles.values()}
        for group in model.get("InstanceGroups", []):
            if group.get("ExecutionRole") not in roles:
                return (
                    f"Role {group.get('ExecutionRole')} of instance group {group.get('InstanceGroupName')} "
                    "does not exist or cannot be assumed by SageMaker (ValidationException)"
                )
        vpc = model.get("VpcConfig") or {}
        for kind, ids in (("Subnet", vpc.get("Subnets", [])), ("Security group", vpc.get("SecurityGroupIds", []))):
            missing = [i for i in ids if not self._network_has(region, i)]
            if missing:
                return f"{kind} {', '.join(missing)} does not exist in {region} (ValidationException)"
        return None

    def _network_has(self, region: str, resource_id: str) -> bool:
        if resource_id in self.network.get(region, set()):
            return True
        ec2 = self._moto("ec2", region)
        subnets = {subnet_id for by_zone in ec2.subnets.values() for subnet_id in by_zone}
        groups = {group_id for by_vpc in ec2.groups.values() for group_id in by_vpc}
        return resource_id in subnets or resource_id in groups

    def lifecycle_scripts_missing(self, group: Json) -> bool:
        """Whether a group's OnCreate script is missing from its SourceS3Uri (the nodes download
        it from S3 and run it: SageMaker developer guide, "Lifecycle scripts")."""
        config = group.get("LifeCycleConfig") or {}
        uri = config.get("SourceS3Uri", "")
        if not uri.startswith("s3://") or not config.get("OnCreate"):
            return False
        bucket, _, prefix = uri[len("s3://") :].partition("/")
        key = f"{prefix.rstrip('/')}/{config['OnCreate']}" if prefix.strip("/") else config["OnCreate"]
        found = self._moto("s3", "aws").buckets.get(bucket)
        return found is None or key not in found.keys

    def hyperpod_cluster(self, name_or_arn: str) -> tuple[str, Json] | None:
        """(ARN, model) of the HyperPod cluster Cloud Control created, by name or ARN (as SageMaker's
        ClusterName parameter takes either), or None."""
        for arn, model in self._hyperpod_clusters():
            if name_or_arn in (arn, model["ClusterName"]):
                return arn, model
        return None

    def sagemaker_describe_cluster(self, request: Request) -> Json:
        # SageMaker DescribeCluster, of a cluster Cloud Control created: by name or ARN.
        wanted = request.json()["ClusterName"]
        found = self.hyperpod_cluster(wanted)
        if found is None:
            raise AwsError(400, "ResourceNotFound", f"Cluster {wanted} not found")
        arn, model = found
        groups = [
            {k: v for k, v in g.items() if k in ("InstanceGroupName", "InstanceType", "CurrentCount")}
            | {"TargetCount": g.get("InstanceCount", 0)}
            for g in model.get("InstanceGroups", [])
        ]
        return {
            "ClusterArn": arn,
            "ClusterName": model["ClusterName"],
            "ClusterStatus": model["ClusterStatus"],
            "CreationTime": _now(),
            "InstanceGroups": groups,
            "Orchestrator": model.get("Orchestrator", {}),
            "VpcConfig": model.get("VpcConfig", {}),
            "NodeRecovery": model.get("NodeRecovery", "Automatic"),
            **({"FailureMessage": model["FailureMessage"]} if model.get("FailureMessage") else {}),
        }

    def sagemaker_list_clusters(self, request: Request) -> Json:
        # SageMaker ListClusters (one page).
        return {
            "ClusterSummaries": [
                {
                    "ClusterArn": arn,
                    "ClusterName": model["ClusterName"],
                    "ClusterStatus": model["ClusterStatus"],
                    "CreationTime": _now(),
                }
                for arn, model in self._hyperpod_clusters()
            ]
        }

    def sagemaker_create_domain(self, request: Request) -> Json:
        # SageMaker CreateDomain: answers DomainArn, DomainId and Url (moto leaves DomainId out,
        # and the provider takes the ID from it); DescribeDomain then reports it InService. With
        # AuthMode SSO, AWS creates an Identity Center application for the domain and reports it
        # as SingleSignOnApplicationArn and SingleSignOnManagedApplicationInstanceId; the
        # execution role must exist.
        body = request.json()
        for required in ("DomainName", "AuthMode", "DefaultUserSettings", "SubnetIds", "VpcId"):
            if required not in body:
                raise AwsError(400, "ValidationException", f"{required} is required")
        role = body["DefaultUserSettings"].get("ExecutionRole")
        if not role or not self._principal_exists(role):
            raise AwsError(400, "ValidationException", f"ExecutionRole {role!r} does not exist")
        missing = [s for s in body["SubnetIds"] if not self._network_has(request.region, s)]
        if missing:
            raise AwsError(
                400, "ValidationException", f"Subnet(s) {', '.join(missing)} do not exist in {request.region}"
            )
        if any(d["domain"]["DomainName"] == body["DomainName"] for d in self.domains.values()):
            raise AwsError(400, "ResourceInUse", f"Domain {body['DomainName']} exists")
        domain_id = "d-" + uuid.uuid4().hex[:12]
        arn = f"arn:aws:sagemaker:{request.region}:{self.account_id}:domain/{domain_id}"
        domain = {
            "DomainArn": arn,
            "DomainId": domain_id,
            "DomainName": body["DomainName"],
            "HomeEfsFileSystemId": "fs-" + uuid.uuid4().hex[:17],
            "Status": "InService",
            "CreationTime": _now(),
            "LastModifiedTime": _now(),
            "AuthMode": body["AuthMode"],
            "DefaultUserSettings": body["DefaultUserSettings"],
            "AppNetworkAccessType": body.get("AppNetworkAccessType", "PublicInternetOnly"),
            "SubnetIds": body["SubnetIds"],
            "Url": f"https://{domain_id}.studio.{request.region}.sagemaker.aws",
            "VpcId": body["VpcId"],
            "KmsKeyId": body.get("KmsKeyId"),
            "AppSecurityGroupManagement": body.get("AppSecurityGroupManagement"),
            "DomainSettings": body.get("DomainSettings"),
            "DefaultSpaceSettings": body.get("DefaultSpaceSettings"),
            "TagPropagation": body.get("TagPropagation", "DISABLED"),
        }
        if body["AuthMode"] == "SSO":
            application = self._sso_application_arn(request.region)
            domain["SingleSignOnApplicationArn"] = application
            domain["SingleSignOnManagedApplicationInstanceId"] = "ins-" + uuid.uuid4().hex[:16]
            self.sso.applications[application] = {"domain": domain_id}
        domain = {key: value for key, value in domain.items() if value is not None}
        self.domains[domain_id] = {"domain": domain}
        self.tags[arn] = {t["Key"]: t["Value"] for t in body.get("Tags", [])}
        return {"DomainArn": arn, "DomainId": domain_id, "Url": domain["Url"]}

    def _sso_application_arn(self, region: str) -> str:
        """An Identity Center application of the account's instance, as AWS names it:
        `arn:aws:sso::<account>:application/ssoins-<16>/apl-<16>`."""
        account = self.sso.account  # the organization's instance, wherever administered
        instance_id = self._moto("sso-admin", region, account).instances[0].instance_arn.rsplit("/", 1)[1]
        return f"arn:aws:sso::{account}:application/{instance_id}/apl-{uuid.uuid4().hex[:16]}"

    def sagemaker_list_domains(self, request: Request) -> Json:
        # SageMaker ListDomains (one page).
        keys = ("DomainArn", "DomainId", "DomainName", "Status", "CreationTime", "LastModifiedTime", "Url")
        return {"Domains": [{k: d["domain"][k] for k in keys} for d in self.domains.values()]}

    # Spaces and apps, as Studio creates them in a domain (SageMaker API Reference: CreateSpace,
    # DescribeSpace, ListSpaces, CreateApp, DescribeApp): the domain (and an app's space) must exist,
    # names are unique in their domain (ResourceInUse), tags are kept as the resource's.

    def sagemaker_create_user_profile(self, request: Request) -> Json:
        # SageMaker CreateUserProfile: one profile of a name per domain (ResourceInUse).
        body = request.json()
        self._domain(request)
        key = (body["DomainId"], body["UserProfileName"])
        if key in self.user_profiles:
            raise AwsError(400, "ResourceInUse", f"User profile {key[1]} already exists")
        arn = f"arn:aws:sagemaker:{request.region}:{self.account_id}:user-profile/{key[0]}/{key[1]}"
        self.user_profiles[key] = {
            "DomainId": key[0],
            "UserProfileName": key[1],
            "UserProfileArn": arn,
            "Status": "InService",
            "CreationTime": _now(),
            "LastModifiedTime": _now(),
            "UserSettings": body.get("UserSettings", {}),
        }
        self.tags[arn] = {t["Key"]: t["Value"] for t in body.get("Tags", [])}
        return {"UserProfileArn": arn}

    def sagemaker_describe_user_profile(self, request: Request) -> Json:
        body = request.json()
        key = (body["DomainId"], body["UserProfileName"])
        return _found(self.user_profiles, key, AwsError(400, "ResourceNotFound", f"User profile {key[1]} not found"))

    def sagemaker_delete_user_profile(self, request: Request) -> Json:
        self.sagemaker_describe_user_profile(request)
        body = request.json()
        del self.user_profiles[(body["DomainId"], body["UserProfileName"])]
        return {}

    def sagemaker_create_space(self, request: Request) -> Json:
        body = request.json()
        self._domain(request)
        owner = (body.get("OwnershipSettings") or {}).get("OwnerUserProfileName")
        if owner is not None and (body["DomainId"], owner) not in self.user_profiles:
            # A private space belongs to an existing user profile of its domain (CreateSpace,
            # OwnershipSettings; ResourceNotFound).
            raise AwsError(400, "ResourceNotFound", f"User profile {owner} does not exist in domain {body['DomainId']}")
        key = (body["DomainId"], body["SpaceName"])
        if key in self.spaces:
            raise AwsError(400, "ResourceInUse", f"Space {body['SpaceName']} already exists")
        arn = f"arn:aws:sagemaker:{request.region}:{self.account_id}:space/{key[0]}/{key[1]}"
        self.spaces[key] = {
            "DomainId": key[0],
            "SpaceName": key[1],
            "SpaceArn": arn,
            "Status": "InService",
            "CreationTime": _now(),
            "LastModifiedTime": _now(),
            "SpaceSettings": body.get("SpaceSettings", {}),
            "OwnershipSettings": body.get("OwnershipSettings", {}),
            "SpaceSharingSettings": body.get("SpaceSharingSettings", {}),
        }
        self.tags[arn] = {t["Key"]: t["Value"] for t in body.get("Tags", [])}
        return {"SpaceArn": arn}

    def _space(self, domain_id: str, name: str) -> Json:
        return _found(self.spaces, (domain_id, name), AwsError(400, "ResourceNotFound", f"Space {name} not found"))

    def sagemaker_delete_space(self, request: Request) -> Json:
        # SageMaker DeleteSpace: the space goes (its apps with it here; AWS wants them deleted
        # first, which no caller of the tier skips).
        body = request.json()
        space = self._space(body["DomainId"], body["SpaceName"])
        del self.spaces[(body["DomainId"], body["SpaceName"])]
        for key in [k for k in self.apps if k[0] == body["DomainId"] and k[1] == body["SpaceName"]]:
            del self.apps[key]
        self.tags.pop(space["SpaceArn"], None)
        return {}

    def sagemaker_describe_space(self, request: Request) -> Json:
        body = request.json()
        return self._space(body["DomainId"], body["SpaceName"])

    def sagemaker_list_spaces(self, request: Request) -> Json:
        wanted = request.json().get("DomainIdEquals")
        keys = ("DomainId", "SpaceName", "Status", "CreationTime", "LastModifiedTime")
        return {
            "Spaces": [
                {k: space[k] for k in keys} for space in self.spaces.values() if wanted in (None, space["DomainId"])
            ]
        }

    def sagemaker_create_app(self, request: Request) -> Json:
        body = request.json()
        self._domain(request)
        owner = body.get("SpaceName") or body.get("UserProfileName")
        if body.get("SpaceName"):
            self._space(body["DomainId"], body["SpaceName"])
        key = (body["DomainId"], owner, body["AppType"], body["AppName"])
        if key in self.apps:
            raise AwsError(400, "ResourceInUse", f"App {body['AppName']} already exists")
        arn = (
            f"arn:aws:sagemaker:{request.region}:{self.account_id}:app/{key[0]}/{owner}/"
            f"{body['AppType'].lower()}/{body['AppName']}"
        )
        self.apps[key] = {
            "AppArn": arn,
            "AppName": body["AppName"],
            "AppType": body["AppType"],
            "DomainId": body["DomainId"],
            "SpaceName": body.get("SpaceName"),
            "UserProfileName": body.get("UserProfileName"),
            "Status": "InService",
            "CreationTime": _now(),
        }
        self.tags[arn] = {t["Key"]: t["Value"] for t in body.get("Tags", [])}
        return {"AppArn": arn}

    def sagemaker_describe_app(self, request: Request) -> Json:
        body = request.json()
        owner = body.get("SpaceName") or body.get("UserProfileName")
        key = (body["DomainId"], owner, body["AppType"], body["AppName"])
        app = _found(self.apps, key, AwsError(400, "ResourceNotFound", f"App {body['AppName']} not found"))
        return {k: v for k, v in app.items() if v is not None}

    def _domain(self, request: Request) -> Json:
        domain_id = request.json()["DomainId"]
        return _found(self.domains, domain_id, AwsError(400, "ResourceNotFound", f"Domain {domain_id} not found"))[
            "domain"
        ]

    def cloud_control_get_resource(self, request: Request) -> Json:
        # Cloud Control GetResource of an AWS::SageMaker::Domain (primary identifier DomainId):
        # its registry properties, from the domain SageMaker holds. Other types: cloud_control.py.
        body = request.json()
        if body.get("TypeName") != "AWS::SageMaker::Domain":
            return self.cloud_control.get_resource(request)
        if body.get("Identifier") not in self.domains:
            message = (
                f"Resource of type 'AWS::SageMaker::Domain' with identifier '{body.get('Identifier')}' was not found."
            )
            raise AwsError(404, "ResourceNotFoundException", message)
        domain = self.domains[body["Identifier"]]["domain"]
        keys = (
            "DomainArn",
            "DomainId",
            "DomainName",
            "AuthMode",
            "AppNetworkAccessType",
            "SubnetIds",
            "VpcId",
            "KmsKeyId",
            "DefaultUserSettings",
            "Url",
            "HomeEfsFileSystemId",
            "SingleSignOnApplicationArn",
            "SingleSignOnManagedApplicationInstanceId",
            "TagPropagation",
        )
        properties = {key: domain[key] for key in keys if domain.get(key) is not None}
        return {
            "TypeName": body["TypeName"],
            "ResourceDescription": {"Identifier": body["Identifier"], "Properties": json.dumps(properties)},
        }

    def sagemaker_describe_domain(self, request: Request) -> Json:
        # SageMaker DescribeDomain.
        return self._domain(request)

    def sagemaker_update_domain(self, request: Request) -> Json:
        # SageMaker UpdateDomain: the settings it names replace the stored ones.
        domain = self._domain(request)
        body = request.json()
        named = (
            "DefaultUserSettings",
            "DomainSettingsForUpdate",
            "DefaultSpaceSettings",
            "AppNetworkAccessType",
            "TagPropagation",
        )
        for key in named:
            if key in body:
                domain["DomainSettings" if key == "DomainSettingsForUpdate" else key] = body[key]
        domain["LastModifiedTime"] = _now()
        return {"DomainArn": domain["DomainArn"]}

    def sagemaker_list_tags(self, request: Request) -> Json:
        # SageMaker ListTags: of a domain here; of anything else, moto's answer.
        arn = request.json()["ResourceArn"]
        if ":domain/" not in arn:
            return self._via_moto(request)
        return {"Tags": [{"Key": k, "Value": v} for k, v in self.tags.get(arn, {}).items()]}

    def sagemaker_add_tags(self, request: Request) -> Json:
        # SageMaker AddTags.
        body = request.json()
        if ":domain/" not in body["ResourceArn"]:
            return self._via_moto(request)
        merged = {**self.tags.get(body["ResourceArn"], {}), **{t["Key"]: t["Value"] for t in body["Tags"]}}
        if len(merged) > 50:
            # 50 tags per resource (Tagging AWS resources, "Tag naming limits and requirements").
            raise AwsError(400, "ValidationException", f"The resource would have {len(merged)} tags: at most 50")
        self.tags[body["ResourceArn"]] = merged
        return {"Tags": body["Tags"]}

    def sagemaker_delete_tags(self, request: Request) -> Json:
        # SageMaker DeleteTags.
        body = request.json()
        if ":domain/" not in body["ResourceArn"]:
            return self._via_moto(request)
        for key in body["TagKeys"]:
            self.tags.get(body["ResourceArn"], {}).pop(key, None)
        return {}

    def sagemaker_delete_domain(self, request: Request) -> Json:
        # SageMaker DeleteDomain: the domain and its Identity Center application go; assignments
        # to the application go with it. A domain that still has spaces (or apps) is refused
        # (DeleteDomain: "delete all user profiles, spaces and apps first"; ResourceInUse).
        domain = self._domain(request)
        in_use = sorted(
            name for (domain_id, name) in [*self.spaces, *self.user_profiles] if domain_id == domain["DomainId"]
        )
        if in_use:
            raise AwsError(
                400,
                "ResourceInUse",
                f"Domain {domain['DomainId']} has spaces or user profiles {', '.join(in_use)}: delete them first",
            )
        application = domain.get("SingleSignOnApplicationArn")
        if application:
            self.sso.applications.pop(application, None)
            for key in [k for k in self.sso.application_assignments if k[0] == application]:
                del self.sso.application_assignments[key]
        del self.domains[domain["DomainId"]]
        self.tags.pop(domain["DomainArn"], None)
        return {}

    # --- Budgets (JSON 1.1) ----------------------------------------------------------------

    @staticmethod
    def _notification_key(notification: Json) -> str:
        key = {k: notification.get(k) for k in ("NotificationType", "ComparisonOperator", "ThresholdType")}
        key["Threshold"] = float(notification["Threshold"])  # a Double: 80 and 80.0 are one threshold
        key["ThresholdType"] = key["ThresholdType"] or "PERCENTAGE"  # AWS's default
        return json.dumps(key, sort_keys=True)

    def budgets_create_budget(self, request: Request) -> Json:
        # Budgets CreateBudget: moto keeps the notifications but not their subscribers, which
        # AWS answers with DescribeSubscribersForNotification.
        body = request.json()
        answer = self._via_moto(request)
        name = body["Budget"]["BudgetName"]
        arn = f"arn:aws:budgets::{self.account_id}:budget/{name}"
        self.tags[arn] = {t["Key"]: t["Value"] for t in body.get("ResourceTags", [])}
        for pair in body.get("NotificationsWithSubscribers", []):
            self.budget_subscribers[(name, self._notification_key(pair["Notification"]))] = pair["Subscribers"]
        return answer

    def budgets_update_budget(self, request: Request) -> Json:
        # Budgets UpdateBudget (moto has none): NewBudget replaces the budget of that name, which
        # must exist (NotFoundException); its notifications stay.
        body = request.json()
        new = body["NewBudget"]
        budgets = self._moto("budgets", "aws").budgets[body["AccountId"]]
        name = new["BudgetName"]
        if name not in budgets:
            raise AwsError(400, "NotFoundException", f"Unable to update budget: {name} - the budget doesn't exist.")
        kept = budgets[name].budget
        new.setdefault("TimePeriod", kept["TimePeriod"])
        budgets[name].budget = {**new, "LastUpdatedTime": time.time()}
        return {}

    def budgets_create_notification(self, request: Request) -> Json:
        # Budgets CreateNotification: a notification with its subscribers (1 to 11).
        body = request.json()
        if not 1 <= len(body.get("Subscribers", [])) <= 11:
            raise AwsError(400, "InvalidParameterException", "A notification needs 1 to 11 subscribers")
        answer = self._via_moto(request)
        self.budget_subscribers[(body["BudgetName"], self._notification_key(body["Notification"]))] = body[
            "Subscribers"
        ]
        return answer

    def budgets_delete_notification(self, request: Request) -> Json:
        # Budgets DeleteNotification: its subscribers go with it.
        body = request.json()
        answer = self._via_moto(request)
        self.budget_subscribers.pop((body["BudgetName"], self._notification_key(body["Notification"])), None)
        return answer

    def budgets_describe_subscribers(self, request: Request) -> Json:
        # Budgets DescribeSubscribersForNotification.
        body = request.json()
        key = (body["BudgetName"], self._notification_key(body["Notification"]))
        not_found = AwsError(400, "NotFoundException", "Notification not found")
        return {"Subscribers": _found(self.budget_subscribers, key, not_found)}

    def budgets_delete_budget(self, request: Request) -> Json:
        # Budgets DeleteBudget: its notifications and subscribers go with it.
        answer = self._via_moto(request)
        name = request.json()["BudgetName"]
        self.tags.pop(f"arn:aws:budgets::{self.account_id}:budget/{name}", None)
        for key in [k for k in self.budget_subscribers if k[0] == name]:
            del self.budget_subscribers[key]
        return answer

    def budgets_tag_resource(self, request: Request) -> Json:
        # Budgets TagResource (ResourceTags).
        body = request.json()
        self.tags.setdefault(body["ResourceARN"], {}).update({t["Key"]: t["Value"] for t in body["ResourceTags"]})
        return {}

    def budgets_untag_resource(self, request: Request) -> Json:
        # Budgets UntagResource (ResourceTagKeys).
        body = request.json()
        for key in body["ResourceTagKeys"]:
            self.tags.get(body["ResourceARN"], {}).pop(key, None)
        return {}

    def budgets_list_tags(self, request: Request) -> Json:
        # Budgets ListTagsForResource: {ResourceTags: [...]}.
        tags = self.tags.get(request.json()["ResourceARN"], {})
        return {"ResourceTags": [{"Key": k, "Value": v} for k, v in tags.items()]}

    # --- Cost Explorer: cost allocation tags (JSON 1.1) -----------------------------------

    def ce_update_tag_status(self, request: Request) -> Json:
        # Cost Explorer UpdateCostAllocationTagsStatus: activates or deactivates user-defined
        # tag keys. (AWS refuses keys it has not yet seen on any billed resource; the tier takes
        # every key as seen.)
        for item in request.json()["CostAllocationTagsStatus"]:
            self.cost_allocation_tags[item["TagKey"]] = {
                "TagKey": item["TagKey"],
                "Type": "UserDefined",
                "Status": item["Status"],
                "LastUpdatedDate": _iso(time.time()),
            }
        return {"Errors": []}

    def ce_list_cost_categories(self, request: Request) -> Json:
        # Cost Explorer ListCostCategoryDefinitions (moto has none): references to the categories
        # moto keeps (payer account, us-east-1).
        categories = self._moto("ce", "aws").cost_categories.values()
        references = [
            {
                "CostCategoryArn": c.arn,
                "Name": c.name,
                "EffectiveStart": c.effective_start,
                "NumberOfRules": len(c.rules),
                **({"DefaultValue": c.default_value} if c.default_value else {}),
            }
            for c in categories
        ]
        return {"CostCategoryReferences": references}

    def ce_list_tags(self, request: Request) -> Json:
        # Cost Explorer ListCostAllocationTags, filtered by TagKeys and Status as asked.
        body = request.json()
        tags = list(self.cost_allocation_tags.values())
        if body.get("TagKeys"):
            tags = [t for t in tags if t["TagKey"] in body["TagKeys"]]
        if body.get("Status"):
            tags = [t for t in tags if t["Status"] == body["Status"]]
        return {"CostAllocationTags": tags}
