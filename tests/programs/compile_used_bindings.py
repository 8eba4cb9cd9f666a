"""Compile, in the test venv, the bytecode of the CDK Terrain bindings modules the project uses.

The Makefile compiles the test venv's packages on every core, but not the submodules of CDK
Terrain's prebuilt bindings (cdktn_provider_*): those packages load a submodule when it is first
used, and the project uses a few dozen of their 2,500 (hyperpod_teams.bindings names them, a
plugin registers its own), so compiling them all (276 MB of source) cost about 60 CPU-seconds for
modules no test imports. These are the ones the stacks import; a module a test imports besides
compiles in that process, as any module does where PYTHONDONTWRITEBYTECODE is set.

CDK for Terraform's packages (cdktf_cdktf_provider_*) stay compiled whole: a test imports every
submodule of them the ordinary way (tests/test_speedups.py).
"""

from __future__ import annotations

import compileall
import importlib.util
import sys
from pathlib import Path

from hyperpod_teams import bindings, engine, plugins


def used_modules() -> list[Path]:
    """The `__init__.py` of every bindings submodule the core stacks and the installed plugins use,
    in CDK Terrain's packages."""
    for name in plugins.installed_identity_providers():
        try:
            plugins.load_identity_provider(name)  # each plugin registers its bindings modules as it loads
        except plugins.PluginError:
            continue  # the tests' broken plugins
    cdktn = engine.ENGINES["cdktn"]
    files = []
    for neutral in sorted({*bindings.MODULES.values(), *bindings.PLUGIN_MODULES.values()}):
        provider, _, submodule = neutral.partition(".")
        spec = importlib.util.find_spec(cdktn.provider_package(provider))  # a top-level package: not imported
        if spec is None or spec.origin is None:
            continue  # that provider's bindings are not installed
        files.append(Path(spec.origin).parent / submodule / "__init__.py")
    return files


def main() -> int:
    files = used_modules()
    failed = [path for path in files if not compileall.compile_file(path, quiet=2)]
    print(f"compiled {len(files) - len(failed)} CDK Terrain bindings modules the project uses")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
