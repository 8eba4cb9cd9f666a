"""Pydantic's validation errors as spec problems: the field path, the message in words, and a
hint (the allowed fields, the pattern's rule, how to quote a number). Imports no other module of
the spec but its fields and problems, so the rules across fields use it as the loader does.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from hyperpod_teams.spec.fields import PATTERN_RULES
from hyperpod_teams.spec.problems import Path, Problem

#: The source text of each scalar of a document, by field path (YAML's own spelling of a value).
ScalarText = dict[Path, str]


def problems_from_validation_error(
    error: ValidationError,
    model: type[BaseModel],
    *,
    data: Any = None,
    prefix: Path = (),
    scalars: ScalarText | None = None,
) -> Iterator[Problem]:
    """Pydantic's errors as problems; `model` is what was validated (hints name its fields), at
    `prefix` in the spec (the whole spec when empty)."""
    if not isinstance(data, Mapping) and not prefix:
        kind = "empty" if data is None else f"a {_yaml_kind(data)}"
        yield Problem(
            prefix,
            f"the spec is {kind}; a spec is a mapping of version, organization, identity, cluster and teams",
            "start from examples/quickstart/teams.yaml; `hyperpod-teams schema` prints the JSON Schema",
        )
        return
    for detail in error.errors(include_url=False):
        path = _clean_location(detail["loc"], data)
        context = detail.get("ctx") or {}
        if detail["type"] == "spec_rule" and context.get("field"):
            path = (*path, context["field"])
        elif detail["type"] in ("union_tag_invalid", "union_tag_not_found"):
            path = (*path, context.get("discriminator", "'type'").strip("'"))
        written = (scalars or {}).get(path)
        yield Problem((*prefix, *path), _message(detail, path), _hint(detail, path, data, written, model))


def _clean_location(loc: tuple, data: Any) -> Path:
    """Drop the tags Pydantic adds for discriminated unions (`backend.s3.bucket`)."""
    path: list[str | int] = []
    current = data
    for part in loc:
        if isinstance(current, Mapping) and isinstance(part, str) and part not in current:
            if current.get("type") == part:
                continue
        path.append(part)
        if isinstance(current, Mapping):
            current = current.get(part)
        elif isinstance(current, list) and isinstance(part, int) and part < len(current):
            current = current[part]
        else:
            current = None
    return tuple(path)


def _message(detail: Mapping[str, Any], path: Path) -> str:
    kind = detail["type"]
    if kind == "extra_forbidden":
        return f"unknown field {path[-1]!r}"
    if kind == "missing":
        return f"required field {path[-1]!r} is missing"
    if kind == "string_pattern_mismatch":
        return f"{detail['input']!r} is not valid"
    if kind == "union_tag_invalid":
        return f"unknown type {detail['ctx']['tag']!r}; expected one of {detail['ctx']['expected_tags']}"
    return detail["msg"][0].lower() + detail["msg"][1:] if detail["msg"] else kind


def _yaml_kind(data: Any) -> str:
    return {list: "list", str: "text", int: "number", float: "number", bool: "boolean"}.get(
        type(data), type(data).__name__
    )


def _hint(detail: Mapping[str, Any], path: Path, data: Any, written: str | None, model: type[BaseModel]) -> str | None:
    kind = detail["type"]
    context = detail.get("ctx") or {}
    value = detail.get("input")
    if kind == "spec_rule":
        return context.get("hint")
    if kind == "string_pattern_mismatch":
        rule = PATTERN_RULES.get(context.get("pattern", ""))
        return f"expected {rule}" if rule else None
    if kind == "extra_forbidden":
        allowed = _allowed_fields(path[:-1], data, model)
        if allowed:
            close = difflib.get_close_matches(str(path[-1]), allowed, n=1)
            suggestion = f"did you mean {close[0]!r}? " if close else ""
            return f"{suggestion}allowed here: {', '.join(allowed)}"
        return None
    if kind == "string_type" and isinstance(value, (int, float)) and not isinstance(value, bool):
        text = written if written is not None else str(value)
        return f'write it as a quoted string: "{text}" (unquoted, YAML reads it as the number {value})'
    if kind == "string_type" and isinstance(value, bool):
        text = written if written is not None else str(value).lower()
        return f'write it as a quoted string: "{text}" (unquoted, YAML reads it as the boolean {str(value).lower()})'
    if kind in ("int_parsing", "int_type") and isinstance(value, str):
        # PyYAML reads 1e3 (no decimal point) as text, not a number.
        return f"give a whole number in digits, such as 4: {value!r} is read as text"
    if kind == "string_type" and value is None:
        return "the value is empty (YAML null); give a value or remove the field"
    return None


def _allowed_fields(path: Path, data: Any, root: type[BaseModel]) -> list[str]:
    """Fields of the model at `path` under `root`, for suggesting the intended one."""
    model: Any = root
    for part in path:
        data = data[part] if isinstance(data, (Mapping, list)) and _has(data, part) else None  # type: ignore[index]
        if isinstance(part, int):
            continue
        spec_field = model.model_fields.get(part) if _is_model(model) else None
        if spec_field is None:
            return []
        model = _model_for(spec_field.annotation, data)
    return list(model.model_fields) if _is_model(model) else []


def _has(container: Any, part: str | int) -> bool:
    if isinstance(container, Mapping):
        return part in container
    return isinstance(part, int) and 0 <= part < len(container)


def _is_model(candidate: Any) -> bool:
    return isinstance(candidate, type) and issubclass(candidate, BaseModel)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The models inside `list[Model]`, `Model | None`, `Annotated[A | B, ...]`."""
    if _is_model(annotation):
        return [annotation]
    found: list[type[BaseModel]] = []
    for arg in getattr(annotation, "__args__", ()) or ():
        found += _models_in(arg)
    origin = getattr(annotation, "__origin__", None)
    if not found and origin is not None and origin is not annotation:
        found = _models_in(origin)
    return found


def _model_for(annotation: Any, data: Any) -> Any:
    """The model of a field; for a tagged union, the member whose `type` the data names."""
    models = _models_in(annotation)
    if len(models) > 1 and isinstance(data, Mapping):
        for model in models:
            tag = model.model_fields.get("type")
            if tag is not None and data.get("type") in getattr(tag.annotation, "__args__", ()):
                return model
    return models[0] if models else None
