"""The 0.1.0 import paths of the modules that moved into `hyperpod_teams.review` still work, and
say where the module went (CHANGELOG, "Library")."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hyperpod_teams import MOVED_MODULES


def _python(code: str, *flags: str) -> subprocess.CompletedProcess:
    # A fresh process: the warning comes once per import, and this one has imported them all.
    return subprocess.run([sys.executable, *flags, "-c", code], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("old", sorted(MOVED_MODULES))
def test_an_old_import_path_gives_the_moved_module_itself(old):
    new = MOVED_MODULES[old]
    result = _python(f"import {old} as old, {new} as new; assert old is new, (old, new)")
    assert result.returncode == 0, result.stderr


def test_an_old_import_path_warns_with_the_new_one():
    result = _python("from hyperpod_teams.report import render_report", "-W", "error::DeprecationWarning")
    assert result.returncode != 0
    assert "hyperpod_teams.report moved to hyperpod_teams.review.report" in result.stderr


def test_a_module_that_never_existed_is_still_not_found():
    result = _python("import hyperpod_teams.reports")
    assert "ModuleNotFoundError: No module named 'hyperpod_teams.reports'" in result.stderr
