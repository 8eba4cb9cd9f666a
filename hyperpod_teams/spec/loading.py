"""Read a spec file (YAML or JSON), validate it, and report every problem with path and line."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path as FilePath
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from hyperpod_teams.spec.models import PATTERN_RULES, PlatformSpec
from hyperpod_teams.spec.problems import Path, Problem, SpecError
from hyperpod_teams.spec.rules import Sections, problems_across_fields

LineMap = dict[Path, int]
ScalarText = dict[Path, str]


def load_spec(path: str | FilePath) -> PlatformSpec:
    """Load and validate a spec file; raise SpecError naming every problem, with file lines."""
    path = FilePath(path)
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError([Problem((), f"cannot read the spec file: {exc.strerror or exc}")], source) from None
    document = parse_document(text, source, as_json=path.suffix.lower() == ".json")
    return validate_spec(document.data, source=source, document=document)


def validate_spec(data: Any, *, source: str | None = None, document: Document | None = None) -> PlatformSpec:
    """Validate already-parsed data (a dict, as from YAML or JSON) into a PlatformSpec.

    With the `document` it was parsed from, each problem also names its line.
    """
    document = document or Document(data)
    try:
        return PlatformSpec.model_validate(data)
    except ValidationError as exc:
        problems = list(problems_from_validation_error(exc, data=data, scalars=document.scalars))
        # Rules across fields still run over the sections that are valid on their own.
        problems += problems_across_fields(Sections.valid_parts_of(data))
    except SpecError as exc:
        problems = exc.problems
    located = [_with_line(p, document.lines) for p in problems]
    located.sort(key=lambda p: p.line if p.line is not None else 0)
    raise SpecError(located, source) from None


# --- documents and their line numbers ----------------------------------------------------------


# libyaml's parser when PyYAML was built with it: several times faster on large specs.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _UniqueKeyLoader(_SafeLoader):
    """Safe YAML that rejects a key given twice in one mapping (PyYAML keeps the last silently)."""

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} appears twice in one mapping (first on line {seen[key]})",
                    key_node.start_mark,
                )
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


@dataclass
class Document:
    """Parsed spec data, with the 1-based line of each field path and the source text of scalars."""

    data: Any
    lines: LineMap = field(default_factory=dict)
    scalars: ScalarText = field(default_factory=dict)


def parse_document(text: str, source: str, *, as_json: bool = False) -> Document:
    """Parse YAML or JSON text; raise SpecError with the line on a syntax error."""
    if as_json:
        try:
            data = json.loads(text, object_pairs_hook=_json_object_without_duplicates)
        except json.JSONDecodeError as exc:
            raise SpecError([Problem((), f"invalid JSON: {exc.msg}", line=exc.lineno)], source) from None
        except _DuplicateKeyError as exc:
            raise SpecError([Problem((), str(exc))], source) from None
    loader = _UniqueKeyLoader(text)
    try:
        node = loader.get_single_node()
        yaml_data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        if as_json:  # valid JSON that PyYAML reads differently (tabs): keep the data, lose lines
            return Document(data)
        mark = exc.problem_mark or exc.context_mark
        message = " ".join(part for part in (exc.context, exc.problem) if part)
        raise SpecError(
            [Problem((), f"invalid YAML: {message}", line=mark.line + 1 if mark else None)], source
        ) from None
    finally:
        loader.dispose()
    document = Document(data if as_json else yaml_data)
    if node is not None:
        _collect_positions(node, (), document)
    return document


class _DuplicateKeyError(ValueError):
    pass


def _json_object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKeyError(f"invalid JSON: key {key!r} appears twice in one object")
        result[key] = value
    return result


def _collect_positions(node: yaml.Node, path: Path, document: Document) -> None:
    document.lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.ScalarNode):
        document.scalars[path] = node.value
    elif isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                child = (*path, key_node.value)
                document.lines[child] = key_node.start_mark.line + 1
                _collect_positions(value_node, child, document)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _collect_positions(item, (*path, index), document)


def _with_line(problem: Problem, lines: LineMap) -> Problem:
    """The line of the field, or of its nearest parent when the field is missing."""
    path = problem.path
    while path not in lines and path:
        path = path[:-1]
    return problem.at_line(lines.get(path))


# --- Pydantic errors as problems -------------------------------------------------------------


def problems_from_validation_error(
    error: ValidationError, *, data: Any = None, prefix: Path = (), scalars: ScalarText | None = None
) -> Iterator[Problem]:
    for detail in error.errors(include_url=False):
        path = _clean_location(detail["loc"], data)
        context = detail.get("ctx") or {}
        if detail["type"] == "spec_rule" and context.get("field"):
            path = (*path, context["field"])
        elif detail["type"] in ("union_tag_invalid", "union_tag_not_found"):
            path = (*path, context.get("discriminator", "'type'").strip("'"))
        written = (scalars or {}).get(path)
        yield Problem((*prefix, *path), _message(detail, path), _hint(detail, path, data, written))


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


def _message(detail: dict, path: Path) -> str:
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


def _hint(detail: dict, path: Path, data: Any, written: str | None) -> str | None:
    kind = detail["type"]
    context = detail.get("ctx") or {}
    value = detail.get("input")
    if kind == "spec_rule":
        return context.get("hint")
    if kind == "string_pattern_mismatch":
        rule = PATTERN_RULES.get(context.get("pattern", ""))
        return f"expected {rule}" if rule else None
    if kind == "extra_forbidden":
        allowed = _allowed_fields(path[:-1], data)
        if allowed:
            close = difflib.get_close_matches(str(path[-1]), allowed, n=1)
            suggestion = f"did you mean {close[0]!r}? " if close else ""
            return f"{suggestion}allowed here: {', '.join(allowed)}"
        return None
    if kind == "string_type" and isinstance(value, (int, float)) and not isinstance(value, bool):
        text = written if written is not None else str(value)
        return f'write it as a quoted string: "{text}" (unquoted, YAML reads it as the number {value})'
    if kind == "string_type" and value is None:
        return "the value is empty (YAML null); give a value or remove the field"
    return None


def _allowed_fields(path: Path, data: Any) -> list[str]:
    """Fields of the model at `path` in the spec, for suggesting the intended one."""
    model: Any = PlatformSpec
    for part in path:
        data = data[part] if isinstance(data, (Mapping, list)) and _has(data, part) else None
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
