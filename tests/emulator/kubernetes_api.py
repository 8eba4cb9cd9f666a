"""A Kubernetes API for the journey tier: the EKS cluster's API as a team member's `hyp` and
`kubectl` reach it, authenticating and authorizing every request as EKS and Kubernetes do, and
recording each decision.

- **Authentication** as EKS does it for IAM principals (EKS user guide, "Grant IAM users access to
  Kubernetes with EKS access entries"): the bearer token `k8s-aws-v1.<base64url>` that `aws eks
  get-token` writes is a presigned `sts:GetCallerIdentity` URL, which the API sends on (here, to
  the emulator) to learn the caller; the caller's role is looked up among the cluster's access
  entries, whose Kubernetes groups the request then carries, with `system:authenticated`. A role
  without an entry is refused (401).
- **Authorization** by Kubernetes' RBAC authorizer, ported rule for rule (kubernetes/kubernetes:
  `plugin/pkg/auth/authorizer/rbac/rbac.go` `RuleAllows`, `pkg/apis/rbac/v1/evaluation_helpers.go`,
  the rule resolver's bindings and subjects in `pkg/registry/rbac/validation/rule.go`), with the
  request's attributes read from its path as the API server reads them
  (`staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go`): ClusterRoleBindings
  everywhere, RoleBindings in their namespace, aggregated ClusterRoles by their label selectors,
  and the bootstrap roles every authenticated user holds (`system:discovery`, `system:basic-user`,
  `system:public-info-viewer`). The RBAC objects are the ones the stacks deploy (read back from the
  synthesized Kubernetes stacks). EKS access policies (the namespace-scoped
  `AmazonEKSViewPolicy` of the team roles' entries) are not evaluated: a request only they would
  allow is refused here, so the tier can only err towards a refusal.
- **Admission** after authorization: the ValidatingAdmissionPolicies and bindings the stacks deploy,
  their CEL expressions evaluated by cel-python (`Admission`).
- **Objects**: namespaces, the job CRDs, HyperPod PyTorch jobs, pods, ConfigMaps and the rest as a
  plain store. What the HyperPod training operator does on the cluster is stood in for: a job
  created gets one pod labelled `HPJob=<job>` (the label `hyp list-pods` selects) with a log.
  `exec` (a WebSocket upgrade) is authorized and recorded, then answered 400: no container runs here.
"""

from __future__ import annotations

import base64
import functools
import json
import threading
import urllib.parse
import urllib.request
import uuid
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.emulator import controllers, pod_security

Json = dict[str, Any]

# --- what a request asks (requestinfo.go) -------------------------------------------------------

API_PREFIXES = ("api", "apis")
GROUPLESS_PREFIXES = ("api",)
SPECIAL_VERBS = ("proxy", "watch")
SPECIAL_VERBS_NO_SUBRESOURCES = ("proxy",)
NAMESPACE_SUBRESOURCES = ("status", "finalize")
METHOD_VERBS = {"POST": "create", "GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


@dataclass
class RequestInfo:
    path: str
    verb: str
    is_resource_request: bool = False
    api_prefix: str = ""
    api_group: str = ""
    api_version: str = ""
    namespace: str = ""
    resource: str = ""
    subresource: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)


def request_info(method: str, url: str) -> RequestInfo:
    """The request's attributes as the API server's RequestInfoFactory reads them."""
    parsed = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qs(parsed.query)
    info = RequestInfo(path=parsed.path, verb=method.lower())
    parts = [p for p in parsed.path.strip("/").split("/")] if parsed.path.strip("/") else []
    if len(parts) < 3 or parts[0] not in API_PREFIXES:
        return info
    info.api_prefix, parts = parts[0], parts[1:]
    if info.api_prefix not in GROUPLESS_PREFIXES:
        if len(parts) < 3:
            return info
        info.api_group, parts = parts[0], parts[1:]
    info.is_resource_request = True
    info.api_version, parts = parts[0], parts[1:]
    if parts[0] in SPECIAL_VERBS:
        if len(parts) < 2:
            return info
        info.verb, parts = parts[0], parts[1:]
    else:
        info.verb = METHOD_VERBS.get(method.upper(), "")
    if parts[0] == "namespaces":
        if len(parts) > 1:
            info.namespace = parts[1]
            if len(parts) > 2 and parts[2] not in NAMESPACE_SUBRESOURCES:
                parts = parts[2:]
    info.parts = parts
    if len(parts) >= 3 and info.verb not in SPECIAL_VERBS_NO_SUBRESOURCES:
        info.subresource = parts[2]
    if len(parts) >= 2:
        info.name = parts[1]
    if len(parts) >= 1:
        info.resource = parts[0]
    _collection_verb(info, query)
    return info


def _collection_verb(info: RequestInfo, query: dict[str, list[str]]) -> None:
    """A request naming no object: a get is a list or a watch, a delete a deletecollection; a list
    or watch of one object by name (fieldSelector=metadata.name=<name>) names it."""
    if info.name:
        return
    if info.verb == "get":
        watch = query.get("watch")
        info.verb = "watch" if watch and watch[0].lower() not in ("false", "0") else "list"
    if info.verb in ("list", "watch"):
        selector = query.get("fieldSelector", [""])[0]
        if selector.startswith("metadata.name=") and "," not in selector:
            info.name = selector.split("=", 1)[1]
    if info.verb == "delete":
        info.verb = "deletecollection"


# --- RBAC (rbac.go, evaluation_helpers.go, rule.go) ---------------------------------------------


def _verb_matches(rule: Json, verb: str) -> bool:
    return any(v in ("*", verb) for v in rule.get("verbs", []))


def _api_group_matches(rule: Json, group: str) -> bool:
    return any(g in ("*", group) for g in rule.get("apiGroups", []))


def _resource_matches(rule: Json, combined: str, subresource: str) -> bool:
    for resource in rule.get("resources", []):
        if resource in ("*", combined):
            return True
        if (
            subresource
            and len(resource) == len(subresource) + 2
            and resource.startswith("*/")
            and resource.endswith(subresource)
        ):
            return True
    return False


def _resource_name_matches(rule: Json, name: str) -> bool:
    names = rule.get("resourceNames") or []
    return not names or name in names


def _non_resource_url_matches(rule: Json, path: str) -> bool:
    for url in rule.get("nonResourceURLs", []):
        if url in ("*", path) or (url.endswith("*") and path.startswith(url.rstrip("*"))):
            return True
    return False


def rule_allows(info: RequestInfo, rule: Json) -> bool:
    if info.is_resource_request:
        combined = f"{info.resource}/{info.subresource}" if info.subresource else info.resource
        return (
            _verb_matches(rule, info.verb)
            and _api_group_matches(rule, info.api_group)
            and _resource_matches(rule, combined, info.subresource)
            and _resource_name_matches(rule, info.name)
        )
    return _verb_matches(rule, info.verb) and _non_resource_url_matches(rule, info.path)


@dataclass(frozen=True)
class User:
    name: str
    groups: tuple[str, ...]


def _applies_to(user: User, subject: Json, namespace: str) -> bool:
    kind = subject.get("kind")
    if kind == "User":
        return user.name == subject["name"]
    if kind == "Group":
        return subject["name"] in user.groups
    if kind == "ServiceAccount":
        sa_namespace = subject.get("namespace") or namespace
        return bool(sa_namespace) and user.name == f"system:serviceaccount:{sa_namespace}:{subject['name']}"
    return False


def _selector_matches(selector: Json, labels: dict[str, str]) -> bool:
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = expression["key"], expression["operator"], expression.get("values") or []
        if operator == "In" and labels.get(key) not in values:
            return False
        if operator == "NotIn" and key in labels and labels[key] in values:
            return False
        if operator == "Exists" and key not in labels:
            return False
        if operator == "DoesNotExist" and key in labels:
            return False
    return True


#: The bootstrap policy every authenticated user holds (kubernetes/kubernetes
#: plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go, ClusterRoles bound to
#: system:authenticated).
BOOTSTRAP: list[Json] = [
    {
        "kind": "ClusterRole",
        "metadata": {"name": "system:discovery"},
        "rules": [
            {
                "nonResourceURLs": [
                    "/api",
                    "/api/*",
                    "/apis",
                    "/apis/*",
                    "/healthz",
                    "/livez",
                    "/openapi",
                    "/openapi/*",
                    "/readyz",
                    "/version",
                    "/version/",
                ],
                "verbs": ["get"],
            }
        ],
    },  # fmt: skip
    {
        "kind": "ClusterRole",
        "metadata": {"name": "system:basic-user"},
        "rules": [
            {
                "apiGroups": ["authorization.k8s.io"],
                "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
                "verbs": ["create"],
            },
            {"apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"], "verbs": ["create"]},
        ],
    },
    {
        "kind": "ClusterRole",
        "metadata": {"name": "system:public-info-viewer"},
        "rules": [{"nonResourceURLs": ["/healthz", "/livez", "/readyz", "/version", "/version/"], "verbs": ["get"]}],
    },
] + [
    {
        "kind": "ClusterRoleBinding",
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:authenticated"}],
    }
    for name in ("system:discovery", "system:basic-user", "system:public-info-viewer")
]


class Rbac:
    """Kubernetes' RBAC authorizer over a set of Role, ClusterRole, RoleBinding and
    ClusterRoleBinding manifests."""

    def __init__(self, manifests: list[Json]) -> None:
        manifests = [*BOOTSTRAP, *manifests]
        self.roles = {(m["metadata"]["namespace"], m["metadata"]["name"]): m for m in manifests if m["kind"] == "Role"}
        self.cluster_roles = {m["metadata"]["name"]: m for m in manifests if m["kind"] == "ClusterRole"}
        self.role_bindings = [m for m in manifests if m["kind"] == "RoleBinding"]
        self.cluster_role_bindings = [m for m in manifests if m["kind"] == "ClusterRoleBinding"]

    def _cluster_role_rules(self, name: str) -> list[Json]:
        role = self.cluster_roles.get(name)
        if role is None:
            return []
        aggregation = role.get("aggregationRule")
        if not aggregation:
            return role.get("rules") or []
        # What the cluster role aggregation controller writes into the role's rules.
        return [
            rule
            for other in self.cluster_roles.values()
            if other is not role
            and any(
                _selector_matches(s, other["metadata"].get("labels") or {}) for s in aggregation["clusterRoleSelectors"]
            )
            for rule in other.get("rules") or []
        ]

    def _reference_rules(self, ref: Json, namespace: str) -> list[Json]:
        if ref["kind"] == "Role":
            role = self.roles.get((namespace, ref["name"]))
            return (role or {}).get("rules") or []
        return self._cluster_role_rules(ref["name"])

    def authorize(self, user: User, info: RequestInfo) -> tuple[bool, str]:
        """(allowed, reason) as the RBAC authorizer decides: the first rule of a binding that
        applies and allows, ClusterRoleBindings first; else no opinion, which is a refusal."""
        for binding in self.cluster_role_bindings:
            if any(_applies_to(user, s, "") for s in binding.get("subjects") or []):
                if any(rule_allows(info, rule) for rule in self._reference_rules(binding["roleRef"], "")):
                    return True, f"RBAC: allowed by ClusterRoleBinding {binding['metadata']['name']!r}"
        if info.namespace:
            for binding in self.role_bindings:
                if binding["metadata"]["namespace"] != info.namespace:
                    continue
                if any(_applies_to(user, s, info.namespace) for s in binding.get("subjects") or []):
                    if any(
                        rule_allows(info, rule) for rule in self._reference_rules(binding["roleRef"], info.namespace)
                    ):
                        name = binding["metadata"]["name"]
                        return True, f"RBAC: allowed by RoleBinding {name!r} of namespace {info.namespace!r}"
        return False, ""


def forbidden_message(user: User, info: RequestInfo) -> str:
    """The API server's refusal (apiserver's responsewriters.forbiddenMessage)."""
    if not info.is_resource_request:
        return f'User "{user.name}" cannot {info.verb} path "{info.path}"'
    resource = f"{info.resource}/{info.subresource}" if info.subresource else info.resource
    what = f'{resource} "{info.name}"' if info.name else resource
    scope = f' in the namespace "{info.namespace}"' if info.namespace else " at the cluster scope"
    return (
        f'{what} is forbidden: User "{user.name}" cannot {info.verb} resource "{resource}" '
        f'in API group "{info.api_group}"{scope}'
    )


# --- admission (ValidatingAdmissionPolicy) -----------------------------------------------------------


#: cel-python builds its parser lazily, class-wide, and not thread-safe: the server's threads compile
#: one at a time (two at once broke the parser's grammar under load).
_CEL_COMPILING = threading.Lock()


@functools.cache
def _cel_program(expression: str) -> Any:
    """A CEL expression compiled once (cel-python), however many requests it decides."""
    import celpy

    with _CEL_COMPILING:
        environment = celpy.Environment()
        return environment.program(environment.compile(expression))


class Admission:
    """Kubernetes' validating admission policies over the requests RBAC allowed (Kubernetes docs,
    "Validating Admission Policy"): a policy applies when a binding names it, the request's namespace
    matches the binding's namespaceSelector (by the namespace's labels, `kubernetes.io/metadata.name`
    among them), a resource rule matches its group, resource and operation, and every matchCondition
    holds; then each validation's CEL expression, evaluated by cel-python over `object` and
    `request`, must hold, else the request is refused with the validation's message."""

    def __init__(self, manifests: list[Json]) -> None:
        self.policies = {m["metadata"]["name"]: m for m in manifests if m["kind"] == "ValidatingAdmissionPolicy"}
        self.bindings = [m for m in manifests if m["kind"] == "ValidatingAdmissionPolicyBinding"]

    @staticmethod
    def _cel(expression: str, activation: Json) -> bool:
        """The expression's value; an evaluation error counts as false: the API server refuses a
        request whose validation errs under failurePolicy Fail, which every policy here has."""
        import celpy

        program = _cel_program(expression)
        try:
            value = program.evaluate({name: celpy.json_to_cel(value) for name, value in activation.items()})
        except celpy.CELEvalError:
            return False
        return value is True or (isinstance(value, celpy.celtypes.BoolType) and bool(value))

    @staticmethod
    def _rule_matches(rule: Json, group: str, resource: str, operation: str) -> bool:
        return (
            any(g in ("*", group) for g in rule.get("apiGroups", []))
            and any(r in ("*", resource) for r in rule.get("resources", []))
            and any(o in ("*", operation) for o in rule.get("operations", []))
        )

    def review(
        self,
        user: User,
        info: RequestInfo,
        obj: Json,
        *,
        old: Json | None = None,
        namespace_labels: dict[str, str] | None = None,
    ) -> str | None:
        """The refusal's message, or None when every policy that applies lets the request through.
        `old`: the object as stored, for an update (CEL's `oldObject`); `namespace_labels`: the request
        namespace's labels besides `kubernetes.io/metadata.name`."""
        operation = {"create": "CREATE", "update": "UPDATE", "patch": "UPDATE", "delete": "DELETE"}.get(info.verb)
        if operation is None or info.subresource:
            return None
        namespace_labels = (
            {**(namespace_labels or {}), "kubernetes.io/metadata.name": info.namespace} if info.namespace else {}
        )
        request = {
            "operation": operation,
            "namespace": info.namespace,
            "name": info.name or obj.get("metadata", {}).get("name", ""),
            "resource": {"group": info.api_group, "version": info.api_version, "resource": info.resource},
            "userInfo": {"username": user.name, "groups": list(user.groups)},
        }
        activation = {"object": obj, "oldObject": old, "request": request}
        for binding in self.bindings:
            spec = binding["spec"]
            policy = self.policies.get(spec["policyName"])
            if policy is None or "Deny" not in spec.get("validationActions", []):
                continue
            selector = (spec.get("matchResources") or {}).get("namespaceSelector")
            if selector is not None and not (info.namespace and _selector_matches(selector, namespace_labels)):
                continue
            rules = policy["spec"]["matchConstraints"]["resourceRules"]
            if not any(self._rule_matches(r, info.api_group, info.resource, operation) for r in rules):
                continue
            if not all(self._cel(c["expression"], activation) for c in policy["spec"].get("matchConditions", [])):
                continue
            for validation in policy["spec"]["validations"]:
                if not self._cel(validation["expression"], activation):
                    return (
                        f"ValidatingAdmissionPolicy '{policy['metadata']['name']}' with binding "
                        f"'{binding['metadata']['name']}' denied request: {validation['message']}"
                    )
        return None


# --- the server ---------------------------------------------------------------------------------


@dataclass
class Decision:
    user: str
    groups: list[str]
    verb: str
    api_group: str
    resource: str
    namespace: str
    name: str
    path: str
    allowed: bool
    reason: str


TOKEN_PREFIX = "k8s-aws-v1."


class Authenticator:
    """EKS's IAM authentication: the presigned GetCallerIdentity URL in the token, sent on to the
    emulator, gives the caller; the cluster's access entries give its Kubernetes groups."""

    def __init__(self, *, emulator_url: str, region: str, cluster: str, account_id: str) -> None:
        from tests.emulator.deployment import emulator_client

        self.emulator_url, self.region, self.cluster, self.account_id = emulator_url, region, cluster, account_id
        # One client for every request the server's threads authenticate (boto3 clients are
        # thread-safe; making one is not).
        self.eks = emulator_client(emulator_url, "eks", region)

    def _caller_arn(self, token: str) -> str | None:
        encoded = token[len(TOKEN_PREFIX) :]
        url = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
        parsed = urllib.parse.urlsplit(url)
        emulator = urllib.parse.urlsplit(self.emulator_url)
        if parsed.netloc != emulator.netloc or "GetCallerIdentity" not in parsed.query:
            return None
        # The presigned URL's SigV4 query parameters as the same signature's header form: the
        # emulator (moto's dispatcher) tells the service from the Authorization header.
        query = urllib.parse.parse_qs(parsed.query)
        signed = {k: v[0] for k, v in query.items() if k.startswith("X-Amz-")}
        plain = urllib.parse.urlencode({k: v[0] for k, v in query.items() if not k.startswith("X-Amz-")})
        headers = {
            "x-k8s-aws-id": self.cluster,
            "Accept": "application/json",
            "X-Amz-Date": signed.get("X-Amz-Date", ""),
            "Authorization": (
                f"{signed.get('X-Amz-Algorithm', '')} Credential={signed.get('X-Amz-Credential', '')}, "
                f"SignedHeaders={signed.get('X-Amz-SignedHeaders', '')}, Signature={signed.get('X-Amz-Signature', '')}"
            ),
        }
        if "X-Amz-Security-Token" in signed:
            headers["X-Amz-Security-Token"] = signed["X-Amz-Security-Token"]
        request = urllib.request.Request(f"{self.emulator_url}/?{plain}", headers=headers, method="GET")
        with urllib.request.urlopen(request, timeout=30) as answer:
            body = answer.read().decode()
        if body.lstrip().startswith("{"):
            return json.loads(body)["GetCallerIdentityResponse"]["GetCallerIdentityResult"]["Arn"]
        start = body.find("<Arn>")
        return body[start + 5 : body.find("</Arn>")] if start >= 0 else None

    def user(self, token: str) -> User | None:
        if not token.startswith(TOKEN_PREFIX):
            return None
        arn = self._caller_arn(token)
        if arn is None or ":assumed-role/" not in arn:
            return None
        role = arn.split(":assumed-role/", 1)[1].split("/", 1)[0]
        for principal in self.eks.list_access_entries(clusterName=self.cluster)["accessEntries"]:
            if principal.rsplit("/", 1)[-1] != role:
                continue
            entry = self.eks.describe_access_entry(clusterName=self.cluster, principalArn=principal)["accessEntry"]
            groups = tuple(entry.get("kubernetesGroups") or ())
            name = entry.get("username") or f"arn:aws:sts::{self.account_id}:assumed-role/{role}/{{{{SessionName}}}}"
            session = arn.rsplit("/", 1)[-1]
            return User(name.replace("{{SessionName}}", session), (*groups, "system:authenticated"))
        return None


class Store:
    """The objects of the cluster, by (API group, resource, namespace, name)."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str, str, str], Json] = {}
        self.logs: dict[tuple[str, str], str] = {}
        self.lock = threading.Lock()

    def put(self, group: str, resource: str, namespace: str, obj: Json) -> Json:
        metadata = obj.setdefault("metadata", {})
        metadata.setdefault("uid", str(uuid.uuid4()))
        metadata.setdefault("resourceVersion", "1")
        if namespace:
            metadata["namespace"] = namespace
        with self.lock:
            self.objects[(group, resource, namespace, metadata["name"])] = obj
        return obj

    def get(self, group: str, resource: str, namespace: str, name: str) -> Json | None:
        return self.objects.get((group, resource, namespace, name))

    def list(self, group: str, resource: str, namespace: str, label_selector: str = "") -> list[Json]:
        wanted = dict(part.split("=", 1) for part in label_selector.split(",") if "=" in part)
        return [
            obj
            for (g, r, ns, _), obj in sorted(self.objects.items())
            if g == group
            and r == resource
            and (not namespace or ns == namespace)
            and all((obj["metadata"].get("labels") or {}).get(k) == v for k, v in wanted.items())
        ]

    def delete(self, group: str, resource: str, namespace: str, name: str) -> Json | None:
        with self.lock:
            return self.objects.pop((group, resource, namespace, name), None)


KINDS = {
    "namespaces": "Namespace",
    "pods": "Pod",
    "configmaps": "ConfigMap",
    "nodes": "Node",
    "serviceaccounts": "ServiceAccount",
}
JOB_GROUP, JOB_RESOURCE = "sagemaker.amazonaws.com", "hyperpodpytorchjobs"


def status(code: int, reason: str, message: str, info: RequestInfo | None = None) -> Json:
    details = {"name": info.name, "group": info.api_group, "kind": info.resource} if info else {}
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "details": details,
        "code": code,
    }


class KubernetesApi:
    """The server: start() binds 127.0.0.1 and serves in a thread; `decisions` holds every
    authorization decision in order."""

    def __init__(
        self, *, authenticator: Authenticator, rbac: Rbac, store: Store, admission: Admission | None = None
    ) -> None:
        self.authenticator, self.rbac, self.store = authenticator, rbac, store
        self.admission = admission or Admission([])
        self.decisions: list[Decision] = []
        self.server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> KubernetesApi:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet
                pass

            def _answer(self, code: int, body: Json | str) -> None:
                data = (body if isinstance(body, str) else json.dumps(body)).encode()
                self.send_response(code)
                self.send_header("Content-Type", "text/plain" if isinstance(body, str) else "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                code, answer = api.handle(self.command, self.path, self.headers.get("Authorization", ""), body)
                self._answer(code, answer)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def handle(self, method: str, url: str, authorization: str, body: bytes) -> tuple[int, Json | str]:
        token = authorization.removeprefix("Bearer ").strip()
        user = self.authenticator.user(token) if token else None
        if user is None:
            return 401, status(401, "Unauthorized", "Unauthorized")
        return self.handle_as(user, method, url, body)

    def handle_as(self, user: User, method: str, url: str, body: bytes) -> tuple[int, Json | str]:
        """A request of an authenticated user: authorized by RBAC, admitted, served."""
        info = request_info(method, url)
        allowed, reason = self.rbac.authorize(user, info)
        refusal = None
        if allowed and info.verb in ("create", "update", "patch"):
            # Admission follows authorization: the validating admission policies see the object.
            refusal = self.admit(user, info, json.loads(body or b"{}"))
            if refusal is not None:
                allowed, reason = False, f"admission: {refusal}"
        self.decisions.append(
            Decision(
                user.name,
                list(user.groups),
                info.verb,
                info.api_group,
                info.resource + (f"/{info.subresource}" if info.subresource else ""),
                info.namespace,
                info.name,
                info.path,
                allowed,
                reason,
            )  # fmt: skip
        )
        if refusal is not None:
            name = info.name or json.loads(body or b"{}").get("metadata", {}).get("name", "")
            what = f'{info.resource}.{info.api_group} "{name}"' if info.api_group else f'{info.resource} "{name}"'
            return 403, status(403, "Forbidden", f"{what} is forbidden: {refusal}", info)
        if not allowed:
            return 403, status(403, "Forbidden", forbidden_message(user, info), info)
        return self.serve(method, url, info, body)

    def namespace_labels(self, namespace: str) -> dict[str, str]:
        found = self.store.get("", "namespaces", "", namespace) if namespace else None
        return dict(((found or {}).get("metadata") or {}).get("labels") or {})

    def admit(self, user: User, info: RequestInfo, obj: Json) -> str | None:
        """Admission as the API server runs it after authorization: Pod Security Admission on a pod
        (by the namespace's labels; tests/emulator/pod_security.py), then the validating admission
        policies; the refusal, or None."""
        labels = self.namespace_labels(info.namespace)
        if info.resource == "pods" and not info.api_group and not info.subresource and info.verb == "create":
            refusal = pod_security.review(info.namespace, labels, obj)
            if refusal is not None:
                return refusal
        old = None
        if info.verb in ("update", "patch") and info.name:
            old = self.store.get(info.api_group, info.resource, info.namespace, info.name)
        return self.admission.review(user, info, obj, old=old, namespace_labels=labels)

    def controller_creates(self, controller: str, namespace: str, pod: Json) -> tuple[bool, str]:
        """A controller (`controller`: its service account's user name) creating a pod in
        `namespace`, as the Job controller and the operators do for a member's work: its ClusterRole
        lets it create pods anywhere (as the operators' charts grant), and admission decides the pod as
        it decides a member's. The decision is recorded; the pod is stored when admitted."""
        user = User(controller, ("system:serviceaccounts", "system:authenticated"))
        url = f"/api/v1/namespaces/{namespace}/pods"
        info = request_info("POST", url)
        refusal = self.admit(user, info, pod)
        name = (pod.get("metadata") or {}).get("name", "")
        self.decisions.append(
            Decision(
                controller,
                list(user.groups),
                "create",
                "",
                "pods",
                namespace,
                name,
                url,
                refusal is None,
                f"admission: {refusal}" if refusal else "controller",
            )  # fmt: skip
        )
        if refusal is None:
            self.store.put("", "pods", namespace, {**pod, "status": {"phase": "Running"}})
        return refusal is None, refusal or ""

    # --- what is served once authorized -----------------------------------------------------------

    def serve(self, method: str, url: str, info: RequestInfo, body: bytes) -> tuple[int, Json | str]:
        if not info.is_resource_request:
            if info.path in ("/api", "/apis", "/version"):
                return 200, {"kind": "APIVersions", "versions": ["v1"]} if info.path == "/api" else {
                    "major": "1",
                    "minor": "32",
                }
            return 404, status(404, "NotFound", f"the server could not find the requested resource ({info.path})")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
        group, resource, namespace, name = info.api_group, info.resource, info.namespace, info.name
        if resource == "namespaces":
            namespace = ""  # a namespace is cluster-scoped; its own name is the request's namespace
        if info.subresource == "log" and resource == "pods":
            text = self.store.logs.get((namespace, name))
            return (200, text) if text is not None else (404, status(404, "NotFound", f'pods "{name}" not found', info))
        if info.subresource == "exec":
            return 400, status(400, "BadRequest", "exec runs no container in the journey tier's Kubernetes API", info)
        if info.verb == "create":
            return self._create(info, namespace, json.loads(body or b"{}"))
        if info.verb == "get":
            found = self.store.get(group, resource, namespace, name)
            if found is None:
                return 404, status(404, "NotFound", f'{resource} "{name}" not found', info)
            return 200, found
        if info.verb == "list":
            items = self.store.list(group, resource, namespace, query.get("labelSelector", [""])[0])
            kind = KINDS.get(resource, resource)
            version = f"{group}/{info.api_version}" if group else info.api_version
            return 200, {
                "apiVersion": version,
                "kind": f"{kind}List",
                "metadata": {"resourceVersion": "1"},
                "items": items,
            }
        if info.verb == "delete":
            gone = self.store.delete(group, resource, namespace, name)
            if gone is None:
                return 404, status(404, "NotFound", f'{resource} "{name}" not found', info)
            return 200, {
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Success",
                "details": {"name": name},
            }
        return 405, status(
            405, "MethodNotAllowed", f"{info.verb} is not served by the journey tier's Kubernetes API", info
        )

    def _create(self, info: RequestInfo, namespace: str, obj: Json) -> tuple[int, Json]:
        group, resource = info.api_group, info.resource
        name = obj.get("metadata", {}).get("name") or ""
        if not name:
            # A create-only resource of an extension API server (Spaces' workspaceconnections, as
            # `hyp create hyp-space-access` sends it: no name), answered and not stored.
            return 201, {**obj, "status": {}}
        if self.store.get(group, resource, namespace, name) is not None:
            return 409, status(409, "AlreadyExists", f'{resource} "{name}" already exists', info)
        created = self.store.put(group, resource, namespace, obj)
        controller = controllers.CONTROLLERS.get((group, resource))
        if controller is not None:
            for pod in controllers.pods_of(group, resource, created):
                admitted, _ = self.controller_creates(controller, namespace, pod)
                if admitted and (group, resource) == (JOB_GROUP, JOB_RESOURCE):
                    job = created["metadata"]["name"]
                    self.store.logs[(namespace, pod["metadata"]["name"])] = f"epoch 1: loss 2.31 ({job})\n"
        return 201, created

    def decisions_since(self, start: int) -> list[Json]:
        return [asdict(d) for d in self.decisions[start:]]


def seed(
    store: Store, *, namespaces: list[str], crds: list[str], labels: dict[str, dict[str, str]] | None = None
) -> None:
    """What the deployed cluster holds before a member's first request: the team namespaces (task
    governance creates them), with the labels the stacks hold on them, and the job CRDs (the training
    operator's add-on)."""
    for namespace in namespaces:
        metadata: Json = {"name": namespace, "labels": {"kubernetes.io/metadata.name": namespace}}
        metadata["labels"].update((labels or {}).get(namespace, {}))
        store.put("", "namespaces", "", {"apiVersion": "v1", "kind": "Namespace", "metadata": metadata})
    for crd in crds:
        plural, group = crd.split(".", 1)
        store.put(
            "apiextensions.k8s.io",
            "customresourcedefinitions",
            "",
            {
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": crd},
                "spec": {
                    "group": group,
                    "names": {"kind": plural.rstrip("s"), "plural": plural},
                    "scope": "Namespaced",
                    "versions": [{"name": "v1", "served": True, "storage": True}],
                },
            },
        )
