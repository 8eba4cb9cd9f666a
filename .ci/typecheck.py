"""Run mypy over the package as it is installed: `stacks/` and `providers/` install as
`hyperpod_teams.stacks` and `hyperpod_teams.providers` (pyproject's package-dir), a mapping mypy
cannot follow, so it checks a tree of symbolic links laid out as the installed package."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="hyperpod-teams-mypy-") as tmp:
        package = Path(tmp) / "hyperpod_teams"
        package.mkdir()
        for entry in (ROOT / "hyperpod_teams").iterdir():
            if entry.name != "__pycache__":
                (package / entry.name).symlink_to(entry)
        (package / "stacks").symlink_to(ROOT / "stacks")
        (package / "providers").symlink_to(ROOT / "providers")
        (Path(tmp) / "tests").symlink_to(ROOT / "tests")
        command = [
            sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
            "-p", "hyperpod_teams", "-p", "tests",
        ]  # fmt: skip
        result = subprocess.run(command, cwd=tmp, capture_output=True, text=True)
        # Name the files as they are in the repository, not in the temporary tree.
        output = (result.stdout + result.stderr).replace("hyperpod_teams/stacks/", "stacks/")
        output = output.replace("hyperpod_teams/providers/", "providers/")
        print(output, end="")
        return result.returncode


if __name__ == "__main__":
    sys.exit(main())
