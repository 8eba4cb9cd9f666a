"""Counted words in what the tool prints (pure layer, ground floor: imports nothing of the
project): "1 line" and "3 lines", "is" and "are", one way everywhere."""

from __future__ import annotations


def by_count(n: int, one: str, many: str) -> str:
    """`one` when `n` is 1, else `many` (0 lines, 2 lines)."""
    return one if n == 1 else many


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` with thousands separators and `noun` in its number: "1 line", "1,204 lines"."""
    return f"{n:,} {by_count(n, noun, plural or noun + 's')}"
