"""What makes synth fast, in one place, behind one call: `enable()`.

Nothing here runs until a process opts in: importing hyperpod_teams (or its stacks and
constructs) changes neither the environment nor jsii. The `synth` command and the cdktf app
(`cdktf.json`) call `enable()` before cdktf loads; a library user may too, in a process that runs
only hyperpod-teams' stacks. The parts, each with its reason in its own module:

- `node_process`: jsii's node process preloads `node/preload.js`, whose rewriters make provider
  indexes lazy, skip cdktf's stack trace per token, run the kernel without a relay and resolve
  less (each rewrites a file only when it has exactly the text expected: jsii and constructs are
  pinned in pyproject.toml for that reason).
- `python_bindings`: provider bindings imported without their 2,213-submodule block (always, via
  hyperpod_teams.bindings), and jsii-generated modules without their Python argument checks.
- `jsii_requests`: requests to the kernel encoded in one walk; creates sent without waiting.

The output is the same bytes with or without them (tests/test_speedups.py);
HYPERPOD_TEAMS_FULL_BINDINGS_IMPORT=1 turns every one off.
"""

from __future__ import annotations

import os

from hyperpod_teams.speedups.node_process import NODE_PRELOAD_SCRIPT, tune_node_process
from hyperpod_teams.speedups.python_bindings import (
    FULL_IMPORT_ENV,
    TYPE_CHECKS_ENV,
    skip_argument_type_checks,
)

__all__ = [
    "FULL_IMPORT_ENV",
    "NODE_PRELOAD_SCRIPT",
    "TYPE_CHECKS_ENV",
    "enable",
    "skip_argument_type_checks",
    "tune_node_process",
]


def enable() -> bool:
    """Opt this process in, before it loads its engine (cdktn or cdktf; choose it first with
    hyperpod_teams.engine.use when not the default): the node preload, no Python argument checks
    in the generated modules (unless HYPERPOD_TEAMS_TYPE_CHECKS is set), and the kernel requests
    of jsii_requests. For a process that runs only hyperpod-teams' own stacks: an app of yours
    with Python classes that jsii calls back keeps working (jsii_requests steps aside), but loses
    the bindings' argument checks. Returns False, having changed nothing, when
    HYPERPOD_TEAMS_FULL_BINDINGS_IMPORT is set."""
    if os.environ.get(FULL_IMPORT_ENV):
        return False
    tune_node_process()
    from hyperpod_teams import engine

    engine.core()  # loaded now, with the preload in place: the process's engine (fixed here if not yet)

    from hyperpod_teams.speedups import jsii_requests

    skip_argument_type_checks()
    jsii_requests.install()
    return True
