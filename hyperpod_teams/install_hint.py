"""How an error tells a user to add an extra of hyperpod-teams.

hyperpod-teams is not on the package index yet (docs/releasing.md): an install line naming the
bare package would fetch whatever someone else registered under that name. Every hint installs
from a checkout of the release tag (or its wheel) instead, as README and `init`'s NEXT-STEPS do.
"""

from __future__ import annotations


def install_extras(extras: str) -> str:
    """`pip install` of this package with `extras` (comma-separated), from a checkout of its tag."""
    return f"pip install './hyperpod-teams[{extras}]' (from a checkout of the release tag, or its wheel)"
