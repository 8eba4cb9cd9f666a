"""Every request the emulator answers, checked first as AWS's front end checks it, whoever answers
it (moto or the additions): against the input shape of its operation in botocore's service model
(the JSON models AWS generates its SDKs from). Required members, types, enums, lengths and ranges,
patterns. The models are botocore's newest release the project pins (`SERVICE_MODELS_VERSION`,
installed by `make` into `.tools/service-models`), not the older botocore moto resolves.

A refusal is AWS's, in the protocol of the service asked:
- JSON services: HTTP 400, `ValidationException`, "1 validation error detected: Value 'g1.x' at
  'runtime' failed to satisfy constraint: Member must satisfy enum value set: [...]" (Lambda's
  answer to a bad runtime, quoted in aws/aws-cli#3229: the member named in lower camel case). EKS
  answers `InvalidParameterException` instead (surajincloud/kubectl-eks#72 quotes it for a cluster
  name), CloudWatch Logs `InvalidParameterException`, Organizations `InvalidInputException`.
- Query services (IAM, STS, CloudFormation): an XML `ErrorResponse` with `ValidationError` (IAM
  API reference, "Common Errors"; e.g. "1 validation error detected: Value 'x' at 'roleName' failed
  to satisfy constraint: Member must have length less than or equal to 64").
- EC2: `<Response><Errors>` with `InvalidParameterValue` (EC2 API reference, "Error codes").
- S3: an XML `Error` with `MalformedXML` for a body outside its schema and `InvalidArgument` for a
  header or query value (S3 API reference, "Error responses").

Members the model does not know are let through (AWS's front ends ignore them; a provider newer
than the pinned botocore may send some).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote
from xml.etree import ElementTree
from xml.sax.saxutils import escape

import botocore.loaders
import botocore.session
import regex
from botocore.model import OperationModel, ServiceModel, Shape

ROOT = Path(__file__).resolve().parents[2]
#: The botocore release whose service models the requests are checked against: the newest on the
#: package index when pinned (Makefile installs it into MODELS_DIR, apart from the botocore moto
#: and checkov need). Without it (a run outside `make`), the installed botocore's models are used
#: and `InputShapes.models_version` says so.
SERVICE_MODELS_VERSION = "1.44.18"
MODELS_DIR = ROOT / ".tools" / "service-models" / "botocore" / "data"

#: The service model of each signing name a request's credential scope carries.
SERVICES = {
    "athena": "athena",
    "cloudcontrolapi": "cloudcontrol",
    "cloudformation": "cloudformation",
    "budgets": "budgets",
    "ce": "ce",
    "ec2": "ec2",
    "ecr": "ecr",
    "eks": "eks",
    "events": "events",
    "glue": "glue",
    "iam": "iam",
    "identitystore": "identitystore",
    "kms": "kms",
    "lambda": "lambda",
    "logs": "logs",
    "organizations": "organizations",
    "s3": "s3",
    "sagemaker": "sagemaker",
    "secretsmanager": "secretsmanager",
    "sqs": "sqs",
    "ssm": "ssm",
    "sso": "sso-admin",
    "sts": "sts",
}
#: The error code of a request outside its input shape, by signing name; ValidationException elsewhere.
VALIDATION_ERRORS = {
    "eks": "InvalidParameterException",
    "logs": "InvalidParameterException",
    "organizations": "InvalidInputException",
    "iam": "ValidationError",
    "sts": "ValidationError",
    "cloudformation": "ValidationError",
    "ec2": "InvalidParameterValue",
    "s3": "InvalidArgument",
}


@dataclass(frozen=True)
class Refusal:
    error_type: str
    message: str
    status: int = 400


@dataclass(frozen=True)
class Reading:
    """A request as the front end reads it, once: its operation, its parameters as the input shape
    names them (None when the body cannot be read), and the front end's refusal (None when the
    request fits its shape)."""

    operation: OperationModel
    params: Any
    refusal: Refusal | None


@dataclass
class Incoming:
    """What the front end sees of a request."""

    service: str  # the signing name
    method: str
    path: str
    query: dict[str, list[str]]
    body: bytes
    target: str = ""
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names


@dataclass(frozen=True)
class _Route:
    method: str
    pattern: Any  # regex.Pattern
    literal: int  # characters outside the labels: the most specific route wins
    query_keys: frozenset[str]  # keys the URI requires in the query string (S3's `?policy`)
    operation: OperationModel


def load_session() -> tuple[botocore.session.Session, str]:
    """A botocore session reading the pinned models where installed, and their version."""
    session = botocore.session.get_session()
    if MODELS_DIR.is_dir():
        session.register_component("data_loader", botocore.loaders.Loader(extra_search_paths=[str(MODELS_DIR)]))
        return session, SERVICE_MODELS_VERSION
    return session, botocore.__version__


class InputShapes:
    def __init__(self) -> None:
        self.session, self.models_version = load_session()
        self._models: dict[str, ServiceModel] = {}
        self._targets: dict[str, dict[str, OperationModel]] = {}
        self._routes: dict[str, list[_Route]] = {}
        self._patterns: dict[str, Any] = {}

    def model(self, signing_name: str) -> ServiceModel | None:
        if signing_name not in SERVICES:
            return None
        if signing_name not in self._models:
            model = self.session.get_service_model(SERVICES[signing_name])
            self._models[signing_name] = model
            if model.protocol == "json":
                self._targets[signing_name] = {
                    f"{model.metadata['targetPrefix']}.{op}": model.operation_model(op) for op in model.operation_names
                }
            if model.protocol in ("rest-json", "rest-xml"):
                self._routes[signing_name] = sorted(
                    (_route(model.operation_model(op)) for op in model.operation_names),
                    key=lambda r: (-len(r.query_keys), -r.literal),
                )
        return self._models[signing_name]

    def read(self, request: Incoming) -> Reading | None:
        """The request read against its operation's input shape, or None when the models do not
        have its operation (such a request is not judged here)."""
        found = self._operation(request)
        if found is None:
            return None
        operation, labels = found
        try:
            params = self._params(request, operation, labels)
        except _Malformed:
            return Reading(operation, None, Refusal("MalformedXML", _MALFORMED_XML))
        except ValueError:
            return Reading(operation, None, Refusal("SerializationException", "Malformed request body"))
        return Reading(operation, params, self._refusal(request, operation, params))

    def check(self, request: Incoming) -> Refusal | None:
        """The refusal AWS's front end gives the request, or None."""
        reading = self.read(request)
        return reading.refusal if reading is not None else None

    @staticmethod
    def _params(request: Incoming, operation: OperationModel, labels: dict) -> Any:
        protocol = operation.service_model.protocol
        if protocol in ("query", "ec2"):
            return _from_form(operation.input_shape, _form(request), "", protocol) or {}
        if protocol == "rest-xml":
            return _rest_params(operation, labels, request, _xml_body(operation, request.body))
        document = json.loads(request.body) if request.body.strip() else {}
        if protocol == "json" or request.target:
            return document
        return _rest_params(operation, labels, request, document if isinstance(document, dict) else {})

    def _refusal(self, request: Incoming, operation: OperationModel, params: Any) -> Refusal | None:
        problems = list(self._problems(operation.input_shape, params, ""))
        if not problems:
            return None
        if request.service == "s3" and _payload_problem(operation, problems):
            return Refusal("MalformedXML", _MALFORMED_XML)
        error_type = VALIDATION_ERRORS.get(request.service, "ValidationException")
        count = f"{len(problems)} validation error{'s' if len(problems) > 1 else ''} detected"
        return Refusal(error_type, f"{count}: {'; '.join(problems)}")

    def _operation(self, request: Incoming) -> tuple[OperationModel, dict] | None:
        model = self.model(request.service)
        if model is None:
            return None
        if model.protocol == "json" or (request.target and request.service in self._targets):
            operation = self._targets.get(request.service, {}).get(request.target)
            return (operation, {}) if operation is not None else None
        if request.target and "." in request.target:
            # A JSON-RPC request (`X-Amz-Target: AmazonAthena.CreateWorkGroup`) to a service whose
            # newest model is REST: AWS still answers the protocol older SDKs (the provider's) send.
            name = request.target.rsplit(".", 1)[1]
            return (model.operation_model(name), {}) if name in model.operation_names else None
        if model.protocol in ("query", "ec2"):
            action = (_form(request).get("Action") or [""])[0]
            return (model.operation_model(action), {}) if action in model.operation_names else None
        matching = [
            (route, match)
            for route in self._routes.get(request.service, [])
            if route.method == request.method
            and route.query_keys <= set(request.query)
            and (match := route.pattern.fullmatch(request.path))
        ]
        if not matching:
            return None
        # Routes the URI alone does not tell apart (S3's PutObject and CopyObject, PutBucketLifecycle
        # and PutBucketLifecycleConfiguration): the one the client names in `x-id` (Go SDK v2 sends
        # it), else the one whose required headers the request has, the current before the deprecated.
        named = (request.query.get("x-id") or [""])[0]
        best, match = max(
            matching,
            key=lambda found: (
                found[0].operation.name == named,
                len(found[0].query_keys),
                found[0].literal,
                _required_headers_present(found[0].operation, request),
                not found[0].operation.deprecated,
            ),
        )
        return best.operation, {k: unquote(v) for k, v in match.groupdict().items()}

    # --- the checks ---------------------------------------------------------------------------

    def _problems(self, shape: Shape | None, value: Any, where: str) -> Iterator[str]:
        if shape is None or value is None or shape.metadata.get("document"):
            return  # a document member (Smithy `document`) takes any JSON value
        kind = shape.type_name
        checks = {
            "structure": self._structure,
            "list": self._list,
            "map": self._map,
            "string": self._string,
        }
        if kind in checks:
            yield from checks[kind](shape, value, where)
        elif kind in ("integer", "long"):
            if isinstance(value, bool) or not isinstance(value, int):
                yield _failed(value, where, "Member must be an integer")
            else:
                yield from _range(shape, value, where)
        elif kind in ("double", "float"):
            if isinstance(value, bool) or not isinstance(value, int | float):
                yield _failed(value, where, "Member must be a number")
            else:
                yield from _range(shape, value, where)
        elif kind == "boolean" and not isinstance(value, bool):
            yield _failed(value, where, "Member must be a boolean")

    def _structure(self, shape: Any, value: Any, where: str) -> Iterator[str]:
        if not isinstance(value, dict):
            yield _failed(value, where, "Member must be a structure")
            return
        for name in shape.required_members:
            if value.get(_wire_name(shape, name)) is None:
                yield _failed(None, _join(where, name), "Member must not be null")
        for name in shape.members:
            wire = _wire_name(shape, name)
            if wire in value:
                yield from self._problems(shape.members[name], value[wire], _join(where, name))

    def _list(self, shape: Any, value: Any, where: str) -> Iterator[str]:
        if not isinstance(value, list):
            yield _failed(value, where, "Member must be a list")
            return
        yield from _length(shape, value, where)
        for index, item in enumerate(value):
            yield from self._problems(shape.member, item, f"{where}.{index + 1}.member")

    def _map(self, shape: Any, value: Any, where: str) -> Iterator[str]:
        if not isinstance(value, dict):
            yield _failed(value, where, "Member must be a map")
            return
        yield from _length(shape, value, where)
        for key, item in value.items():
            yield from self._problems(shape.key, key, f"{where}.key")
            yield from self._problems(shape.value, item, f"{where}.{key}.member")

    def _string(self, shape: Any, value: Any, where: str) -> Iterator[str]:
        if not isinstance(value, str):
            yield _failed(value, where, "Member must be a string")
            return
        if shape.enum and value not in shape.enum:
            yield _failed(value, where, f"Member must satisfy enum value set: [{', '.join(shape.enum)}]")
        yield from _length(shape, value, where)
        pattern = shape.metadata.get("pattern")
        if pattern and not self._matches(pattern, value):
            yield _failed(value, where, f"Member must satisfy regular expression pattern: {pattern}")

    def _matches(self, pattern: str, value: str) -> bool:
        if pattern not in self._patterns:
            try:
                self._patterns[pattern] = regex.compile(pattern)
            except regex.error:
                self._patterns[pattern] = None  # a Java construct regex lacks: not judged
        compiled = self._patterns[pattern]
        # Java's Pattern.matches, which AWS's front ends use, matches the whole value.
        return compiled is None or compiled.fullmatch(value) is not None


# --- the answer ---------------------------------------------------------------------------------


def answer(request: Incoming, status: int, error_type: str, message: str) -> tuple[int, list[tuple[str, str]], bytes]:
    """An error answer in the protocol of the service asked: (status, headers, body)."""
    request_id = str(uuid.uuid4())
    service = SERVICES.get(request.service)
    if request.service in ("iam", "sts", "cloudformation") or (request.service == "sqs" and not request.target):
        namespace = {"iam": ' xmlns="https://iam.amazonaws.com/doc/2010-05-08/"'}.get(request.service, "")
        xml = (
            f"<ErrorResponse{namespace}><Error><Type>Sender</Type><Code>{error_type}</Code>"
            f"<Message>{escape(message)}</Message></Error><RequestId>{request_id}</RequestId></ErrorResponse>"
        )
        return status, [("Content-Type", "text/xml")], xml.encode()
    if request.service == "ec2":
        xml = (
            f"<Response><Errors><Error><Code>{error_type}</Code><Message>{escape(message)}</Message></Error></Errors>"
            f"<RequestID>{request_id}</RequestID></Response>"
        )
        return status, [("Content-Type", "text/xml")], xml.encode()
    if request.service == "s3":
        xml = (
            f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{error_type}</Code><Message>{escape(message)}'
            f"</Message><RequestId>{request_id}</RequestId></Error>"
        )
        return status, [("Content-Type", "application/xml")], xml.encode()
    body = json.dumps({"__type": error_type, "message": message}).encode()
    content_type = "application/json" if service in ("eks", "lambda") else "application/x-amz-json-1.1"
    return status, [("Content-Type", content_type), ("X-Amzn-ErrorType", error_type)], body


# --- the request as its shape names it ------------------------------------------------------------

_MALFORMED_XML = "The XML you provided was not well-formed or did not validate against our published schema"


class _Malformed(ValueError):
    pass


def _route(operation: OperationModel) -> _Route:
    uri, _, query = operation.http["requestUri"].partition("?")
    # Go SDK v2 and botocore's newer models put `x-id=GetObject` in the URI; other clients leave it out.
    query_keys = frozenset(k.split("=")[0] for k in query.split("&") if k and not k.startswith("x-id"))
    parts, literal, position = [], 0, 0
    for label in regex.finditer(r"\{([^}]+)\}", uri):
        text = uri[position : label.start()]
        parts.append(regex.escape(text))
        literal += len(text)
        name = label[1]
        greedy = name.endswith("+")
        parts.append(f"(?P<{_group(name.rstrip('+'))}>{'.+' if greedy else '[^/]+'})")
        position = label.end()
    parts.append(regex.escape(uri[position:]))
    literal += len(uri) - position
    pattern = regex.compile("".join(parts).rstrip("/") + "/?")
    return _Route(operation.http["method"], pattern, literal, query_keys, operation)


def _required_headers_present(operation: OperationModel, request: Incoming) -> bool:
    """Whether the request has every header and query-string member its operation requires."""
    shape = operation.input_shape
    if shape is None:
        return True
    for name in shape.required_members:
        where = shape.members[name].serialization.get("location")
        wire = shape.members[name].serialization.get("name", name)
        if where == "header" and wire.lower() not in request.headers:
            return False
        if where == "querystring" and wire not in request.query:
            return False
    return True


def _group(label: str) -> str:
    return "g_" + regex.sub(r"\W", "_", label)


def _form(request: Incoming) -> dict[str, list[str]]:
    if request.method == "POST" and request.body:
        return parse_qs(request.body.decode("utf-8", "replace"), keep_blank_values=True)
    return request.query


def _from_form(shape: Shape | None, form: dict[str, list[str]], prefix: str, protocol: str) -> Any:
    """A query-protocol request's parameters (`Tags.member.1.Key=...`) as the shape's structure
    (botocore's QuerySerializer and EC2Serializer, read backwards)."""
    if shape is None:
        return None
    kind = shape.type_name
    if kind == "structure":
        found = {}
        for name, member in shape.members.items():
            key = _query_name(member, name, protocol)
            value = _from_form(member, form, f"{prefix}.{key}" if prefix else key, protocol)
            if value is not None:
                found[_wire_name(shape, name)] = value
        return found if found or not prefix else None
    if kind == "list":
        if protocol == "ec2" or shape.serialization.get("flattened"):
            item = prefix
        else:
            item = f"{prefix}.{shape.member.serialization.get('name', 'member')}"
        items, index = [], 1
        while True:
            value = _from_form(shape.member, form, f"{item}.{index}", protocol)
            if value is None:
                break
            items.append(value)
            index += 1
        if items:
            return items
        return [] if prefix in form else None
    if kind == "map":
        entry = prefix if shape.serialization.get("flattened") else f"{prefix}.entry"
        key_name = shape.key.serialization.get("name", "key")
        value_name = shape.value.serialization.get("name", "value")
        result, index = {}, 1
        while f"{entry}.{index}.{key_name}" in form:
            result[form[f"{entry}.{index}.{key_name}"][0]] = _from_form(
                shape.value, form, f"{entry}.{index}.{value_name}", protocol
            )
            index += 1
        return result or None
    if prefix not in form:
        return None
    return _typed(shape, form[prefix][0])


def _query_name(member: Shape, name: str, protocol: str) -> str:
    if protocol == "ec2":
        if "queryName" in member.serialization:
            return member.serialization["queryName"]
        located = member.serialization.get("name")
        return located[:1].upper() + located[1:] if located else name
    return member.serialization.get("name", name)


def _xml_body(operation: OperationModel, body: bytes) -> dict:
    """A rest-xml request's payload member, read from its XML as the shape names it."""
    shape = operation.input_shape
    payload = shape.serialization.get("payload") if shape is not None else None
    if shape is None or payload is None:
        return {}
    member = shape.members[payload]
    if member.type_name != "structure":
        return {_wire_name(shape, payload): body.decode("utf-8", "replace")} if body else {}
    if not body.strip():
        return {}
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError as error:
        raise _Malformed() from error
    return {_wire_name(shape, payload): _from_xml(member, root)}


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _from_xml(shape: Shape, element: ElementTree.Element) -> Any:
    kind = shape.type_name
    if kind == "structure":
        found: dict[str, Any] = {}
        children = list(element)
        for name, member in shape.members.items():
            tag = member.serialization.get("name", name)
            matching = [c for c in children if _local(c.tag) == tag]
            if not matching:
                continue
            if member.type_name == "list" and member.serialization.get("flattened"):
                found[_wire_name(shape, name)] = [_from_xml(member.member, c) for c in matching]
            else:
                found[_wire_name(shape, name)] = _from_xml(member, matching[0])
        return found
    if kind == "list":
        tag = shape.member.serialization.get("name", "member")
        return [_from_xml(shape.member, c) for c in element if _local(c.tag) == tag]
    if kind == "map":
        key_name = shape.key.serialization.get("name", "key")
        value_name = shape.value.serialization.get("name", "value")
        result = {}
        for entry in element:
            key = next((c.text or "" for c in entry if _local(c.tag) == key_name), "")
            value = next((c for c in entry if _local(c.tag) == value_name), None)
            result[key] = _from_xml(shape.value, value) if value is not None else None
        return result
    return _typed(shape, element.text or "")


def _rest_params(operation: OperationModel, labels: dict, request: Incoming, document: dict) -> dict:
    """A REST request's input as its shape names it: body members, and the URI's, query string's
    and headers' members under their member names."""
    shape = operation.input_shape
    if shape is None:
        return {}
    params = dict(document)
    for name, member in shape.members.items():
        location, wire = member.serialization.get("location"), member.serialization.get("name", name)
        if location == "uri" and _group(wire) in labels:
            params[name] = _typed(member, labels[_group(wire)])
        elif location == "querystring" and wire in request.query:
            params[name] = _typed(member, request.query[wire][0])
        elif location == "header" and wire.lower() in request.headers:
            params[name] = _typed(member, request.headers[wire.lower()])
    return params


def _payload_problem(operation: OperationModel, problems: list[str]) -> bool:
    """Whether a problem is in an S3 request's XML body (MalformedXML) rather than a header."""
    payload = operation.input_shape.serialization.get("payload") if operation.input_shape else None
    if payload is None or operation.input_shape.members[payload].type_name != "structure":
        return False
    member = payload[:1].lower() + payload[1:]
    return any(f"at '{member}" in problem for problem in problems)


def _typed(shape: Shape, text: str) -> Any:
    if shape.type_name in ("integer", "long"):
        return int(text) if text.lstrip("-").isdigit() else text
    if shape.type_name in ("double", "float"):
        try:
            return float(text)
        except ValueError:
            return text
    if shape.type_name == "boolean":
        return {"true": True, "false": False}.get(text.lower(), text)
    if shape.type_name == "timestamp":
        return None  # not judged here
    return text


def _wire_name(shape: Any, name: str) -> str:
    """Where a member is in the parameters: URI, header and query-string members and query-protocol
    members under their member name, JSON body members under their name on the wire."""
    member = shape.members[name]
    if member.serialization.get("location"):
        return name
    return member.serialization.get("name", name)


def _join(where: str, name: str) -> str:
    member = name[:1].lower() + name[1:]
    return f"{where}.{member}" if where else member


def _failed(value: Any, where: str, constraint: str) -> str:
    shown = "null" if value is None else (value if isinstance(value, str) else json.dumps(value))
    return f"Value '{shown}' at '{where}' failed to satisfy constraint: {constraint}"


def _length(shape: Shape, value: Any, where: str) -> Iterator[str]:
    low, high = shape.metadata.get("min"), shape.metadata.get("max")
    if low is not None and len(value) < low:
        yield _failed(value, where, f"Member must have length greater than or equal to {low}")
    if high is not None and len(value) > high:
        yield _failed(value, where, f"Member must have length less than or equal to {high}")


def _range(shape: Shape, value: float, where: str) -> Iterator[str]:
    low, high = shape.metadata.get("min"), shape.metadata.get("max")
    if low is not None and value < low:
        yield _failed(value, where, f"Member must have value greater than or equal to {low}")
    if high is not None and value > high:
        yield _failed(value, where, f"Member must have value less than or equal to {high}")
