"""Spec problems: what is wrong, where (field path and file line), and how to fix it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

Path = tuple[str | int, ...]


def format_path(path: Path) -> str:
    """`("teams", 2, "compute", "quota", 0, "count")` -> `teams[2].compute.quota[0].count`."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "(top level)"


@dataclass(frozen=True)
class Problem:
    path: Path
    message: str
    hint: str | None = None
    line: int | None = None

    @property
    def location(self) -> str:
        return format_path(self.path)

    def at_line(self, line: int | None) -> Problem:
        return replace(self, line=line)

    def render(self, source: str | None = None) -> str:
        where = self.location
        if source and self.line is not None:
            where = f"{source}:{self.line}: {where}"
        elif self.line is not None:
            where = f"line {self.line}: {where}"
        text = f"{where}: {self.message}"
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text


@dataclass
class SpecError(Exception):
    """The spec is invalid. Carries every problem found, not just the first.

    Deliberately not a ValueError: raised from a Pydantic validator it passes through unchanged,
    so rules across fields can report several problems with their own field paths.
    """

    problems: list[Problem]
    source: str | None = field(default=None)

    def __post_init__(self) -> None:
        super().__init__(self.render())

    def render(self) -> str:
        count = len(self.problems)
        head = f"{self.source or 'spec'}: {count} problem{'s' if count != 1 else ''}"
        return "\n".join([head, *(f"  {p.render(self.source)}".replace("\n", "\n  ") for p in self.problems)])

    def __str__(self) -> str:
        return self.render()
