"""Read a spec file (YAML or JSON), validate it, and report every problem with path and line."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path as FilePath
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import ValidationError

from hyperpod_teams import registry
from hyperpod_teams.input_files import NotAFile, TooLarge, read_at_most
from hyperpod_teams.spec.models import PlatformSpec
from hyperpod_teams.spec.problems import Path, Problem, SpecError
from hyperpod_teams.spec.rules import Sections, problems_across_fields
from hyperpod_teams.spec.validation_errors import ScalarText, problems_from_validation_error

if TYPE_CHECKING:
    from hyperpod_teams.spec.clusters import SeveralClusters

#: Where the cdktf app (cdktf_app.py) finds the spec: this environment variable, else this context
#: key in cdktf.json.
SPEC_ENV = "HYPERPOD_TEAMS_SPEC"
SPEC_CONTEXT_KEY = "hyperpod-teams:spec"

LineMap = dict[Path, int]


#: Bounds on what a spec may be, so that any input, however hostile, is answered in bounded time
#: and memory. A spec of 500 teams (the most the spec allows) with comments is a few hundred KB.
MAX_SPEC_BYTES = 1024 * 1024
#: Nodes a document may have once YAML aliases are expanded: what the validation walks.
MAX_EXPANDED_NODES = 250_000
#: Times a document may refer to an anchor (`*name`).
MAX_ALIASES = 2_000
#: Nesting of mappings and lists; the deepest field of a spec is at depth 7.
MAX_DEPTH = 32


def load_spec(path: str | FilePath) -> PlatformSpec:
    """Load and validate a spec file; raise SpecError naming every problem, with file lines."""
    path = FilePath(path)
    source = str(path)
    text = read_spec_text(path)
    document = parse_document(text, source, as_json=path.suffix.lower() == ".json")
    return validate_spec(document.data, source=source, document=document)


def load_platform(path: str | FilePath) -> PlatformSpec | SeveralClusters:
    """Load and validate a spec file of one cluster (`cluster`: a PlatformSpec) or of several
    (`clusters`: spec.clusters.SeveralClusters); raise SpecError naming every problem, with file lines."""
    path = FilePath(path)
    source = str(path)
    document = parse_document(read_spec_text(path), source, as_json=path.suffix.lower() == ".json")
    return validate_platform(document.data, source=source, document=document)


def validate_platform(
    data: Any, *, source: str | None = None, document: Document | None = None
) -> PlatformSpec | SeveralClusters:
    """Validate already-parsed data of one cluster (validate_spec) or of several clusters
    (spec.clusters.validate_several_clusters)."""
    if not (isinstance(data, dict) and "clusters" in data):
        return validate_spec(data, source=source, document=document)
    from hyperpod_teams.spec.clusters import validate_several_clusters

    document = document or Document(data)
    if "cluster" in data:
        problem = Problem(
            ("clusters",),
            "a spec has `cluster` (one cluster) or `clusters` (several), not both",
            "keep `cluster` for one cluster, or move it into `clusters`",
        )
        raise SpecError([_with_line(problem, document.lines)], source)
    try:
        return validate_several_clusters(data)
    except SpecError as exc:
        located = sorted((_with_line(p, document.lines) for p in exc.problems), key=lambda p: p.line or 0)
        raise SpecError(located, source) from None


def read_spec_text(path: FilePath) -> str:
    """The spec file's text, UTF-8 with or without a byte order mark, refusing what is too large
    to be a spec before reading it."""
    source = str(path)

    def refuse(message: str, hint: str | None = None) -> SpecError:
        return SpecError([Problem((), message, hint)], source)

    try:
        raw = read_at_most(path, MAX_SPEC_BYTES)
    except NotAFile as exc:
        if exc.folder:
            raise refuse("the spec path is a folder, not a file") from None
        raise refuse("the spec path is not a regular file (a pipe or a device): give the spec as a file") from None
    except TooLarge as exc:
        if exc.size is None:  # grew while read
            raise refuse(f"the spec file has more than {MAX_SPEC_BYTES:,} bytes, more than any spec can need") from None
        raise refuse(
            f"the spec file has {exc.size:,} bytes, more than any spec can need (at most {MAX_SPEC_BYTES:,})",
            "a spec of 500 teams, the most allowed, is a few hundred KB",
        ) from None
    except OSError as exc:
        raise refuse(f"cannot read the spec file: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SpecError(
            [
                Problem(
                    (),
                    f"the spec file is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
                    "save it as UTF-8",
                    line=line,
                )
            ],
            source,
        ) from None


def validate_spec(data: Any, *, source: str | None = None, document: Document | None = None) -> PlatformSpec:
    """Validate already-parsed data (a dict, as from YAML or JSON) into a PlatformSpec.

    With the `document` it was parsed from, each problem also names its line.
    """
    document = document or Document(data)
    if isinstance(data, dict) and "clusters" in data:
        problem = Problem(
            ("clusters",),
            "this reads a spec of one cluster (`cluster`), and this spec has several (`clusters`)",
            "load it with hyperpod_teams.load_platform (or validate_platform), which reads either",
        )
        raise SpecError([_with_line(problem, document.lines)], source)
    try:
        spec = PlatformSpec.model_validate(data)
        # What AWS's registry schemas refuse of the desired states this spec makes.
        problems = registry.spec_problems(spec)
        if not problems:
            return spec
    except ValidationError as exc:
        problems = list(problems_from_validation_error(exc, PlatformSpec, data=data, scalars=document.scalars))
        # Rules across fields still run over the sections that are valid on their own.
        problems += problems_across_fields(Sections.valid_parts_of(data))
    except SpecError as exc:
        problems = exc.problems
    located = [_with_line(p, document.lines) for p in problems]
    located.sort(key=lambda p: p.line if p.line is not None else 0)
    raise SpecError(located, source) from None


# --- documents and their line numbers ----------------------------------------------------------


# libyaml's parser when PyYAML was built with it: several times faster on large specs.
if TYPE_CHECKING:
    _SafeLoader = yaml.SafeLoader
else:
    _SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _UniqueKeyLoader(_SafeLoader):
    """Safe YAML that rejects a key given twice in one mapping (PyYAML keeps the last silently)."""

    def construct_mapping(self, node, deep=False):
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"key {key!r} appears twice in one mapping (first on line {seen[key]})",
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
    """Parse YAML or JSON text; raise SpecError with the line on a syntax error, and on a document
    whose nesting or alias expansion exceeds the bounds above."""
    text = text.removeprefix("\ufeff")
    data = _parse_json(text, source) if as_json else None
    loader = _UniqueKeyLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            _check_bounds(node, source)
        yaml_data = loader.construct_document(node) if node is not None else None
    except RecursionError:
        raise SpecError([Problem((), _too_deep())], source) from None
    except ValueError as exc:  # an integer past Python's 4,300-digit conversion limit
        raise SpecError([Problem((), _too_long_a_number(exc))], source) from None
    except yaml.YAMLError as exc:
        if as_json:  # valid JSON that PyYAML reads differently (tabs): keep the data, lose lines
            return Document(data)
        raise SpecError([_yaml_problem(exc, text)], source) from None
    finally:
        loader.dispose()
    document = Document(data if as_json else yaml_data)
    if node is not None:
        _collect_positions(node, (), document)
    return document


def _parse_json(text: str, source: str) -> Any:
    try:
        data = json.loads(text, object_pairs_hook=_json_object_without_duplicates)
    except json.JSONDecodeError as exc:
        raise SpecError([Problem((), f"invalid JSON: {exc.msg}", line=exc.lineno)], source) from None
    except _DuplicateKeyError as exc:
        raise SpecError([Problem((), str(exc))], source) from None
    except RecursionError:
        raise SpecError([Problem((), _too_deep())], source) from None
    except ValueError as exc:  # an integer past Python's 4,300-digit conversion limit
        raise SpecError([Problem((), _too_long_a_number(exc))], source) from None
    if _depth(data) > MAX_DEPTH:
        raise SpecError([Problem((), _too_deep())], source)
    return data


def _yaml_problem(exc: yaml.YAMLError, text: str) -> Problem:
    """A YAML syntax error as a problem at its line."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        message = " ".join(part for part in (exc.context, exc.problem) if part)
        if "tag:yaml.org,2002:merge" in message:
            message = "YAML merge keys (`<<:`) are not supported in a spec: write the keys out where they are used"
        line = mark.line + 1 if mark else None
    else:  # yaml.reader.ReaderError: a character YAML does not allow
        message = str(exc).splitlines()[0]
        position = getattr(exc, "position", None)
        line = text.count("\n", 0, position) + 1 if isinstance(position, int) else None
    source_line = text.splitlines()[line - 1] if line and line <= len(text.splitlines()) else ""
    if "\t" in source_line[: len(source_line) - len(source_line.lstrip())]:
        return Problem(
            (),
            f"invalid YAML: {message}",
            "indent with spaces: YAML does not allow tabs for indentation",
            line=line,
        )
    return Problem((), f"invalid YAML: {message}", line=line)


class _DuplicateKeyError(ValueError):
    pass


def _too_long_a_number(error: ValueError) -> str:
    if "digits" not in str(error):
        raise error
    return "the document holds a number of more than 4,300 digits; no spec field takes one"


def _too_deep() -> str:
    return f"the document is nested deeper than {MAX_DEPTH} levels; a spec is at most 7 deep"


def _check_bounds(root: yaml.Node, source: str) -> None:
    """Refuse a node graph that is too deep, refers to itself, uses too many aliases, or would
    expand (aliases resolved) to more than MAX_EXPANDED_NODES nodes: a "billion laughs" document is
    a few hundred bytes that expand to billions. Iterative, linear in the graph's size."""

    def refuse(message: str, node: yaml.Node, hint: str | None = None) -> SpecError:
        return SpecError([Problem((), message, hint, line=node.start_mark.line + 1)], source)

    expanded: dict[int, int] = {}
    seen: set[int] = set()
    aliases = 0
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            total = 1 + sum(expanded[id(child)] for child in _children(node))
            if total > MAX_EXPANDED_NODES:
                if not aliases:
                    raise refuse(
                        f"the document has more than {MAX_EXPANDED_NODES:,} values, more than any spec can need", node
                    )
                raise refuse(
                    f"the document expands to more than {MAX_EXPANDED_NODES:,} values once its aliases are resolved",
                    node,
                    "a YAML alias (*name) repeats its anchor's whole value; use fewer",
                )
            expanded[key] = total
            continue
        if key in on_path:
            raise refuse("a YAML alias refers to a value that contains it", node)
        if depth > MAX_DEPTH:
            raise refuse(_too_deep(), node)
        if key in seen:  # an alias: depth-first, so its anchor's value is expanded already
            aliases += 1
            if aliases > MAX_ALIASES:
                raise refuse(f"the document uses more than {MAX_ALIASES:,} YAML aliases", node)
            continue
        seen.add(key)
        on_path.add(key)
        stack.append((node, depth, True))
        stack.extend((child, depth + 1, False) for child in _children(node))


def _depth(data: Any) -> int:
    """How deeply lists and objects nest in parsed JSON (iterative: any depth is safe)."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            deepest = max(deepest, depth)
            if depth <= MAX_DEPTH:
                stack.extend((item, depth + 1) for item in value)
    return deepest


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


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


def pipeline_problems(spec: PlatformSpec, path: str | FilePath) -> list[Problem]:
    """What a spec valid for a workstation lacks for a pipeline: a state that outlives the job.

    A `local` backend (the default) keeps each stack's state in its folder on the runner, which is
    thrown away when the job ends: the next run would plan to create everything again, and its
    apply would fail on every name already taken.
    """
    if spec.backend.type != "local":
        return []
    path = FilePath(path)
    document = parse_document(read_spec_text(path), str(path), as_json=path.suffix.lower() == ".json")
    problem = Problem(
        path=("backend",),
        message="a local backend keeps each stack's state on the runner, thrown away when the job ends: "
        "the next run would create everything again",
        hint="give backend: {type: s3, bucket: <state bucket>} or {type: remote, organization: ..., "
        "workspace_prefix: ...} (docs/deploy.md)",
    )
    return [_with_line(problem, document.lines)]
