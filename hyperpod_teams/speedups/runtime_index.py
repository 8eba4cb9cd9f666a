"""jsii's runtime index of each bindings package, built by the CLI and kept in the package cache.

jsii 1.142 loads a package's assembly (the AWS provider's `.jsii`: 155 MB of JSON) in one of two
ways: through the package cache's runtime index (`.jsii.runtime.v1.json` with its index and
definitions files: only the types a program uses are read), or, without an index, whole. When it
loads one whole it starts a worker thread to build the index for next time; the kernel ends with
the process that started it, so a short-lived process (every `hyperpod-teams synth`) kills that
worker before it is done, and in a fresh HOME every synth loads the assemblies whole: about 4 s
and 1.4 GB more than with the index, until some long-lived process has built it.

So the CLI builds what is missing itself, after a synth, with the same worker script jsii ships
(`runtime-index-worker.js`, run as jsii runs it: a worker thread given `packageDir` and the
kernel's supported features), and waits for it. The next synth on this machine, or on a CI
runner that restores the cache (examples/pipelines), finds the index. docs/performance.md has the
figures; benchmarks/synth.py measures them.
"""

from __future__ import annotations

import os
import re
import subprocess
from importlib import resources
from pathlib import Path

#: The runtime index's manifest in a package's cache folder (jsii's `manifestFileName(1)`).
INDEX_MANIFEST = ".jsii.runtime.v1.json"
#: What marks a package folder of jsii's cache complete (jsii's DiskCache).
PACKAGE_MARKER = ".jsii-runtime-package-cache"

#: Builds each folder's index in a worker thread, one after another, as jsii's kernel starts it.
_BUILD_SCRIPT = r"""
const { Worker } = require("node:worker_threads");
const [script, features, ...folders] = process.argv.slice(1);
(async () => {
  for (const packageDir of folders) {
    await new Promise((resolve, reject) => {
      const worker = new Worker(script, { workerData: { packageDir, supportedFeatures: JSON.parse(features) } });
      worker.on("message", (m) => m && m.error && reject(new Error(`${packageDir}: ${m.error}`)));
      worker.on("error", reject);
      worker.on("exit", resolve);
    });
  }
})().catch((error) => { console.error(error.message); process.exit(1); });
"""


def cache_root() -> Path | None:
    """jsii's package cache on this machine, as its kernel finds it (None: the cache is off)."""
    if os.environ.get("JSII_RUNTIME_PACKAGE_CACHE", "enabled").lower() != "enabled":
        return None
    root = os.environ.get("JSII_RUNTIME_PACKAGE_CACHE_ROOT")
    if root:
        return Path(root)
    return Path.home() / ".cache" / "aws" / "jsii" / "package-cache"


def packages_without_index(root: Path) -> list[Path]:
    """The complete package folders in the cache (`<name>/<version>/<digest>`, scoped names one
    level deeper) that hold an assembly and no runtime index."""
    found = []
    for marker in [*root.glob(f"*/*/*/{PACKAGE_MARKER}"), *root.glob(f"@*/*/*/*/{PACKAGE_MARKER}")]:
        folder = marker.parent
        if (folder / ".jsii").is_file() and not (folder / INDEX_MANIFEST).is_file():
            found.append(folder)
    return sorted(found)


def _jsii_files() -> tuple[Path, list[str]] | None:
    """jsii's index worker script and the assembly features its kernel supports, from the jsii
    package installed (None when this jsii ships no such worker)."""
    embedded = resources.files("jsii._embedded.jsii")
    worker, program = embedded / "lib__runtime-index-worker.js", embedded / "lib__program.js"
    if not (worker.is_file() and program.is_file()):
        return None
    features = re.search(r"ASSEMBLY_SUPPORTED_FEATURES=\[([^\]]*)\]", program.read_text(encoding="utf-8"))
    if features is None:
        return None
    return Path(str(worker)), re.findall(r'"([^"]+)"', features.group(1))


def build_missing(node: str, *, timeout: float = 600) -> list[Path]:
    """Build the runtime index of every package in the cache that lacks one; returns the package
    folders indexed. Raises OSError or subprocess.SubprocessError when node fails."""
    root = cache_root()
    found = _jsii_files()
    if root is None or found is None or not root.is_dir():
        return []
    folders = packages_without_index(root)
    if not folders:
        return []
    worker, features = found
    import json

    subprocess.run(
        [node, "-e", _BUILD_SCRIPT, str(worker), json.dumps(features), *map(str, folders)],
        check=True,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return [folder for folder in folders if (folder / INDEX_MANIFEST).is_file()]
