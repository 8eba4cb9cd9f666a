"""How many teams a report shows in full, and what it says of the rest: a pull-request comment has a
size limit (COMMENT_LIMIT), a report of many teams shows each compactly.

Pure layer.
"""

from __future__ import annotations

from collections.abc import Callable

from hyperpod_teams.document import Document, to_html, to_markdown
from hyperpod_teams.spec.models import Team


def teams_shown(teams: list[Team], max_teams: int | None) -> tuple[list[Team], list[Team]]:
    if max_teams is None or len(teams) <= max_teams:
        return list(teams), []
    return list(teams[:max_teams]), list(teams[max_teams:])


def hidden_note(hidden: list[Team], what: str) -> str:
    return (
        f"The {what} of {len(hidden)} more teams ({', '.join(t.name for t in hidden[:5])}"
        + (", …" if len(hidden) > 5 else "")
        + f") are in the HTML report (`--format html`): a pull-request comment holds at most "
        f"{COMMENT_LIMIT:,} characters."
    )


#: GitHub's limit on the body of a pull-request comment, in characters.
COMMENT_LIMIT = 65_536


#: Teams shown in full in a Markdown report that would not fit in one comment, in each fallback.
COMPACT_TEAMS = (25, 10, 0)


def rendered(build: Callable[..., Document], format: str) -> str:
    """A report as HTML (`build(chart=True)`, its capacity chart drawn), or as Markdown that fits a
    pull-request comment (fitted_markdown)."""
    return to_html(build(chart=True)) if format == "html" else fitted_markdown(build)


def fitted_markdown(build: Callable[..., Document]) -> str:
    """A report's Markdown (`build(max_teams=...)` makes its document) with every team in full, or
    with fewer shown per section (COMPACT_TEAMS) until it fits a pull-request comment."""
    text = to_markdown(build())
    for max_teams in COMPACT_TEAMS:
        if len(text) <= COMMENT_LIMIT:
            break
        text = to_markdown(build(max_teams=max_teams))
    return text
