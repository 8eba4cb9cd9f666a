"""The package's modules import each other without a circle: every import counts that runs,
at module level or inside a function (an import moved into a function to dodge a circle is still
the circle). Imports under `if TYPE_CHECKING:` do not run and are left out.

The graph is read from the source with `ast`, so a circle is found whether or not any test
happens to import the modules in the order that would break."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "hyperpod_teams"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py") if "functions" not in p.parts}


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.AST, module: str, *, typing_too: bool = False) -> set[str]:
    """The project modules `module` imports when it runs (any depth; with `typing_too`, those
    under `if TYPE_CHECKING:` as well)."""
    found: set[str] = set()
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking_only(node) and not typing_too:
            for statement in node.orelse:
                visit(statement)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {name for name in found if name in MODULES and name != module}


def import_graph(*, typing_too: bool = False) -> dict[str, set[str]]:
    return {
        name: _runtime_imports(ast.parse(path.read_text()), name, typing_too=typing_too)
        for name, path in MODULES.items()
    }


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each strongly connected group of more than one module (Tarjan), as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


@pytest.mark.parametrize("typing_too", [False, True], ids=["imports that run", "type annotations' imports too"])
def test_the_package_has_no_import_circle(typing_too):
    """Not even through an import under TYPE_CHECKING: a type checker or a picture of the house
    reads those as the circle they are."""
    # Package __init__ modules re-export their parts; a part importing a sibling through its
    # package is an edge to the sibling, not to the package, so the packages themselves are left out.
    graph = {
        m: {t for t in targets if MODULES[t].name != "__init__.py"}
        for m, targets in import_graph(typing_too=typing_too).items()
    }
    assert circles(graph) == []


def test_the_check_finds_a_circle_made_of_a_function_level_import():
    a = ast.parse("from hyperpod_teams.spec import rules\n")
    b = ast.parse("def f():\n    from hyperpod_teams.spec import models\n")
    graph = {
        "hyperpod_teams.spec.models": _runtime_imports(a, "hyperpod_teams.spec.models"),
        "hyperpod_teams.spec.rules": _runtime_imports(b, "hyperpod_teams.spec.rules"),
    }
    assert circles(graph) == [["hyperpod_teams.spec.models", "hyperpod_teams.spec.rules"]]


GROUND_FLOOR = [
    "naming", "instance_types", "accelerator_partitions", "regions", "addons", "plugins", "input_files",
    "spec.problems", "wording",
]  # fmt: skip


@pytest.mark.parametrize("module", [f"hyperpod_teams.{name}" for name in GROUND_FLOOR])
def test_the_ground_floor_imports_nothing_of_the_project(module):
    """When it runs (naming names the spec's field models in its annotations only)."""
    assert import_graph()[module] == set()


#: The spec's sections (gathered by spec/fields.py): on the ground floor and on each other only.
SPEC_SECTIONS = ("field_types", "organization", "instance_groups", "cluster_addons", "cluster", "teams", "cost")


def test_the_spec_fields_and_the_instance_worth_stand_on_the_ground_floor_only():
    graph = import_graph()
    ground = {f"hyperpod_teams.{name}" for name in GROUND_FLOOR}
    assert graph["hyperpod_teams.instance_worth"] == {"hyperpod_teams.instance_types"}
    sections = {f"hyperpod_teams.spec.{name}" for name in SPEC_SECTIONS}
    assert graph["hyperpod_teams.spec.fields"] <= sections
    for section in sections:
        assert graph[section] <= ground | sections, section
    assert graph["hyperpod_teams.spec.field_types"] <= ground


#: A module a newcomer reads in one sitting (#59): at most this many lines.
ROOM_LINES = 600


def test_every_module_is_a_room_a_newcomer_reads_in_one_sitting():
    """The product's modules by concern, none over ~600 lines (data tables aside): the policies by
    principal, the spec by section, chargeback, the CLI by command, the report and runbook by
    section, the add-ons one module each. Data tables (AWS's instance types) are JSON beside the
    module that loads them, not code."""
    root = PACKAGE.parent
    sizes = {
        str(path.relative_to(root)): len(path.read_text().splitlines())
        for folder in ("hyperpod_teams", "stacks", "providers")
        for path in (root / folder).rglob("*.py")
    }
    assert not {name: n for name, n in sizes.items() if n > ROOM_LINES}


def test_nothing_below_the_review_imports_it():
    """The review (report, runbook, plan summary) is read by the CLI and nothing else of the product:
    no import runs back up into it (adoption imported review.document; the statement's chart the
    report's colours)."""
    graph = import_graph()
    above = {"hyperpod_teams.cli", "hyperpod_teams.review"}
    offenders = {
        module: sorted(t for t in targets if t.startswith("hyperpod_teams.review"))
        for module, targets in graph.items()
        if not module.startswith(tuple(above)) and any(t.startswith("hyperpod_teams.review") for t in targets)
    }
    assert offenders == {}
