"""Every request the additions answer, checked first as AWS's front end checks it: against the
input shape of its operation in botocore's service model (the same JSON models AWS generates its
SDKs from). Required members, types, enums, lengths and ranges, patterns. A refusal is AWS's: HTTP
400 with the front end's error code and message, "1 validation error detected: Value 'g1.x' at
'runtime' failed to satisfy constraint: Member must satisfy enum value set: [...]" (Lambda's
answer to a bad runtime, quoted in aws/aws-cli#3229: `ValidationException`, the member named in
lower camel case). EKS answers a bad parameter with `InvalidParameterException` instead
(surajincloud/kubectl-eks#72 quotes it for a cluster name).

Members the model does not know are let through (AWS's front ends ignore them; a provider newer
than the installed botocore may send some).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import botocore.session
import regex
from botocore.model import OperationModel, ServiceModel, Shape

#: The service models of the requests the additions answer, by the signing name in a request's
#: credential scope.
SERVICES = {
    "eks": "eks",
    "lambda": "lambda",
    "sso": "sso-admin",
    "sagemaker": "sagemaker",
    "budgets": "budgets",
    "ce": "ce",
    "cloudcontrolapi": "cloudcontrol",
}
#: The error code of a request outside its input shape, by service; ValidationException elsewhere.
VALIDATION_ERRORS = {"eks": "InvalidParameterException"}


@dataclass(frozen=True)
class Refusal:
    error_type: str
    message: str


@dataclass(frozen=True)
class _Route:
    method: str
    pattern: Any  # regex.Pattern
    literal: int  # characters outside the labels: the most specific route wins
    operation: OperationModel


class InputShapes:
    def __init__(self) -> None:
        session = botocore.session.get_session()
        self.models: dict[str, ServiceModel] = {name: session.get_service_model(m) for name, m in SERVICES.items()}
        self.by_target = {
            f"{model.metadata['targetPrefix']}.{operation}": model.operation_model(operation)
            for model in self.models.values()
            if model.protocol == "json"
            for operation in model.operation_names
        }
        self.routes = {
            name: sorted(
                (_route(model.operation_model(op)) for op in model.operation_names),
                key=lambda r: -r.literal,
            )
            for name, model in self.models.items()
            if model.protocol == "rest-json"
        }
        self._patterns: dict[str, Any] = {}

    def check(self, *, service: str, target: str, method: str, path: str, query: dict, body: bytes) -> Refusal | None:
        """The refusal AWS gives the request, or None. Requests to operations the models do not
        have are not judged here."""
        found = self._operation(service, target, method, path)
        if found is None:
            return None
        operation, labels = found
        try:
            document = json.loads(body) if body.strip() else {}
        except ValueError:
            return Refusal("SerializationException", "Malformed request body")
        params = _params(operation, labels, query, document)
        problems = list(self._problems(operation.input_shape, params, ""))
        if not problems:
            return None
        error_type = VALIDATION_ERRORS.get(service, "ValidationException")
        count = f"{len(problems)} validation error{'s' if len(problems) > 1 else ''} detected"
        return Refusal(error_type, f"{count}: {'; '.join(problems)}")

    def _operation(self, service: str, target: str, method: str, path: str) -> tuple[OperationModel, dict] | None:
        if target:
            operation = self.by_target.get(target)
            return (operation, {}) if operation is not None else None
        for route in self.routes.get(service, []):
            match = route.pattern.fullmatch(path)
            if match and route.method == method:
                return route.operation, {k: unquote(v) for k, v in match.groupdict().items()}
        return None

    def _problems(self, shape: Shape | None, value: Any, where: str) -> Iterator[str]:
        if shape is None or value is None:
            return
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


def _route(operation: OperationModel) -> _Route:
    uri = operation.http["requestUri"].split("?", 1)[0]
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
    return _Route(operation.http["method"], regex.compile("".join(parts).rstrip("/") + "/?"), literal, operation)


def _group(label: str) -> str:
    return "g_" + regex.sub(r"\W", "_", label)


def _params(operation: OperationModel, labels: dict, query: dict, document: dict) -> dict:
    """The request's input as its shape names it: body members, and the URI's and query
    string's members under their member names."""
    shape = operation.input_shape
    if shape is None:
        return {}
    params = dict(document) if isinstance(document, dict) else {}
    for name, member in shape.members.items():
        location, wire = member.serialization.get("location"), member.serialization.get("name", name)
        if location == "uri" and _group(wire) in labels:
            params[name] = _typed(member, labels[_group(wire)])
        elif location == "querystring" and wire in query:
            params[name] = _typed(member, query[wire][0])
    return params


def _typed(shape: Shape, text: str) -> Any:
    if shape.type_name in ("integer", "long"):
        return int(text) if text.lstrip("-").isdigit() else text
    if shape.type_name == "boolean":
        return {"true": True, "false": False}.get(text, text)
    return text


def _wire_name(shape: Any, name: str) -> str:
    """Where a member is in `_params`: URI and query-string members under their member name, body
    members under their name on the wire."""
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
