"""The README and docs/: every relative link reaches a file, and the README stays what a
newcomer needs (the two commands, the CLI, the stack table, links)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

DOCUMENTS = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file(document):
    text = re.sub(r"```.*?```", "", document.read_text(), flags=re.DOTALL)
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    broken = [
        link
        for link in links
        if not link.startswith(("http://", "https://", "#", "mailto:"))
        and not (document.parent / link.split("#")[0]).exists()
    ]
    assert not broken, f"{document.name}: {broken}"


def test_the_readme_holds_the_two_commands_the_cli_the_stack_table_and_links():
    readme = (ROOT / "README.md").read_text()
    assert "make quickstart" in readme and "make test" in readme
    for command in ("validate", "synth", "schema", "report", "runbook"):
        assert f"hyperpod-teams {command}" in readme
    assert "| `<org>-team-<team>` |" in readme
    assert len(readme.splitlines()) < 150, "the README is for a newcomer; details go to docs/"
    for doc in (ROOT / "docs").glob("*.md"):
        assert f"docs/{doc.name}" in readme, f"the README does not link docs/{doc.name}"


PYTHON_BLOCKS = [
    (document, n, block)
    for document in DOCUMENTS
    for n, block in enumerate(re.findall(r"```python\n(.*?)```", document.read_text(), re.S), start=1)
]


@pytest.mark.parametrize(
    "document, number, block", PYTHON_BLOCKS, ids=[f"{d.relative_to(ROOT)}#{n}" for d, n, _ in PYTHON_BLOCKS]
)
def test_every_python_block_of_the_docs_runs(document, number, block, tmp_path):
    """As a reader would run it: in a fresh interpreter, in a folder holding the quickstart's
    teams.yaml (what the blocks load), with the environment CI gives the tests."""
    import subprocess
    import sys

    (tmp_path / "teams.yaml").write_text((ROOT / "examples" / "quickstart" / "teams.yaml").read_text())
    result = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{document.name} block {number}:\n{result.stderr[-3000:]}"
    if "app.synth()" in block:
        assert (tmp_path / "cdktf.out" / "manifest.json").is_file()
