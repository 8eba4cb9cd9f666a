"""Where each member of HyperPod's create requests comes from: a spec field, the stacks, or
nowhere, with the reason. tests/test_api_coverage.py reads botocore's SageMaker model (the
version tests/service-models-requirements.txt pins) and fails on a member this table does not
name, so the next addition to the API is a decision, not an accident. Pure data, kept in
`api_coverage.toml` beside this module: a table per request shape (and per nested shape a spec
section mirrors), `Member = [kind, text]` in it.

Each entry of COVERAGE is `"<Shape>.<Member>": (kind, text)`: kind "spec" (text: the spec field,
`[]` for a list's items, checked to exist), "stacks" (text: what the stacks set it to) or
"left out" (text: why).
"""

from __future__ import annotations

import tomllib
from importlib import resources

_TABLE = tomllib.loads(resources.files(__package__).joinpath("api_coverage.toml").read_text(encoding="utf-8"))

#: The request shapes read, and the nested ones a spec section mirrors, in the file's order.
SHAPES: tuple[str, ...] = tuple(_TABLE)

COVERAGE: dict[str, tuple[str, str]] = {
    f"{shape}.{member}": (kind, text) for shape, members in _TABLE.items() for member, (kind, text) in members.items()
}
