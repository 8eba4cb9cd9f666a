"""The node side of the speed-ups: the script jsii's node process preloads (`node/preload.js` and
the rewriters beside it, each of which says why it exists)."""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from pathlib import Path

from hyperpod_teams.speedups.python_bindings import FULL_IMPORT_ENV

#: Script preloaded into jsii's node process (see the script and the rewriters beside it for why):
#: provider indexes load their submodules on first use, the engine records no stack trace per token,
#: and the kernel runs in the process Python started instead of behind a relay. Node's peak memory
#: drops from about 1,000 MiB to about 200, the quickstart synth from about 7 s to 3, and a 100-team
#: synth by another 5 s (docs/performance.md; benchmarks/synth.py). The output is the same bytes.
NODE_PRELOAD_SCRIPT = Path(__file__).parent / "node" / "preload.js"
CREATION_STACK_ENV = "CDKTN_DISABLE_CREATION_STACK"


def tune_node_process(environ: MutableMapping[str, str] = os.environ) -> None:
    """Preload NODE_PRELOAD_SCRIPT in the node process jsii starts: call before jsii starts it.

    Left out when HYPERPOD_TEAMS_FULL_BINDINGS_IMPORT is set (the ordinary path everywhere) or
    when NODE_OPTIONS preloads it already.
    """
    current = environ.get("NODE_OPTIONS", "")
    if environ.get(FULL_IMPORT_ENV) or NODE_PRELOAD_SCRIPT.name in current:
        return
    if not NODE_PRELOAD_SCRIPT.is_file():  # a broken install: node would refuse to start
        return
    script = str(NODE_PRELOAD_SCRIPT)
    option = f'--require "{script}"' if " " in script else f"--require={script}"
    environ["NODE_OPTIONS"] = f"{current} {option}".strip()
    # jsii's launcher starts its kernel with --preserve-symlinks, so that the packages it links
    # into its work folder share one copy of cdktf and constructs; the kernel run in place of the
    # launcher needs the same, and node reads this one only at startup.
    environ["NODE_PRESERVE_SYMLINKS"] = "1"
    # CDK Terrain's own switch for what the no-creation-stacks rewriter does to CDKTF: no JavaScript
    # stack trace per token (cdktn's lib/tokens/private/stack-trace.js, captureCreationStack).
    environ.setdefault(CREATION_STACK_ENV, "1")
