"""Text from a spec, a usage report or a plan file reaches the Markdown outputs (report, runbook,
chargeback statement: pull-request comments and e-mail) as text, never as markup.

Rendered the way GitHub renders a comment before its sanitizer (cmark-gfm, GitHub's own renderer,
through PyPI's `cmarkgfm`, with raw HTML allowed), and the page opened in headless Chromium: no
script runs, no element or attribute comes from the input, no `@mention` is formed, and every
hostile string still reads as the characters it is."""

from __future__ import annotations

import json
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import QUICKSTART, require_module
from tests.test_report_in_browser import chromium_or_skip
from tests.test_untrusted_input import _usage_report, run

#: Each would run a script, add markup or ping people if it reached the page as Markdown or HTML.
PAYLOADS = [
    '<img src=x onerror="document.body.dataset.pwned=1">',
    "<script>document.body.dataset.pwned=1</script>",
    "@octo-org/platform and @someone",
    "`code` | pipe <details open><summary>more</summary>",
    "[click](javascript:document.body.dataset.pwned=1) ![pixel](https://attacker.example/p.png)",
    "*emph* **bold** ~~gone~~ &amp; &lt;b&gt; # not a heading",
    "1. not a list",
]

#: What the documents' own Markdown renders to.
OWN_ELEMENTS = {
    "h1", "h2", "h3", "h4", "p", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td",
    "code", "pre", "strong", "em", "blockquote", "br",
}  # fmt: skip


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, list]] = []
        self.text_outside_code: list[str] = []
        self._in_code = 0

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, attrs))
        self._in_code += tag in ("code", "pre")

    def handle_endtag(self, tag):
        self._in_code -= tag in ("code", "pre")

    def handle_data(self, data):
        if not self._in_code:
            self.text_outside_code.append(data)


def _hostile_project(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The quickstart with every free-text field hostile, a usage report with hostile namespaces
    and instance types, and a plan with a hostile resource key."""
    data = yaml.safe_load(QUICKSTART.read_text())
    for team, payload in zip(data["teams"], PAYLOADS, strict=False):
        team["display_name"] = payload
    data["teams"][0].setdefault("members", {})["scientists"] = "grp`<img src=x onerror=1>`@team"
    # chargeback of a cost given as one sum needs its CPU nodes priced (they have no accelerators)
    data["cost"] = {"instance_prices_usd": {"ml.p5.48xlarge": 98.32, "ml.c5.4xlarge": 0.82}}
    spec = tmp_path / "teams.yaml"
    spec.write_text(yaml.safe_dump(data))
    usage = _usage_report(tmp_path)
    usage.write_text(
        usage.read_text()
        + f'2026-11-01,"{PAYLOADS[0]}",@team,ml.p5.48xlarge,0.00,0.00,0.00,8.00,8.00,0.00,1.00,1.00,0.00\n'
        + f'2026-11-01,default,,"{PAYLOADS[1]}",0.00,0.00,0.00,8.00,8.00,0.00,1.00,1.00,0.00\n'
    )
    plan = tmp_path / "plan.json"
    address = f'aws_s3_bucket.data["{PAYLOADS[0]}"]'
    plan.write_text(
        json.dumps(
            {
                "format_version": "1.2",
                "resource_changes": [
                    {"address": address, "type": "aws_s3_bucket", "change": {"actions": ["delete"]}},
                    {"address": "aws_s3_bucket.other", "type": "aws_s3_bucket", "change": {"actions": ["create"]}},
                ],
            }
        )
    )
    return spec, usage, plan


@pytest.fixture(scope="module")
def rendered(tmp_path_factory) -> dict[str, str]:
    """The three Markdown outputs of the hostile project, each rendered as GitHub would."""
    require_module("cmarkgfm")
    import cmarkgfm
    from cmarkgfm.cmark import Options

    folder = tmp_path_factory.mktemp("hostile")
    spec, usage, plan = _hostile_project(folder)
    outputs = {
        "report": run("report", str(spec), "--plan", f"<b>{PAYLOADS[2]}</b>={plan}"),
        "runbook": run("runbook", str(spec)),
        "chargeback": run("chargeback", str(spec), "--usage", str(usage), "--cost", "1000"),
    }
    for name, result in outputs.items():
        assert result.returncode == 0, (name, result.stderr)
    return {
        name: cmarkgfm.github_flavored_markdown_to_html(result.stdout, options=Options.CMARK_OPT_UNSAFE)
        for name, result in outputs.items()
    }


@pytest.mark.parametrize("output", ["report", "runbook", "chargeback"])
def test_no_markup_from_the_input_appears(rendered, output):
    parser = _Elements()
    parser.feed(rendered[output])
    foreign = sorted({tag for tag, _ in parser.elements} - OWN_ELEMENTS)
    assert not foreign, f"elements from the input: {foreign}"
    # The runbook's own code blocks name their language (```sh): the one attribute of our own.
    attributes = [(tag, attrs) for tag, attrs in parser.elements if attrs and (tag, attrs) != ("pre", [("lang", "sh")])]
    assert not attributes, f"attributes from the input: {attributes[:5]}"
    mentions = [t for t in parser.text_outside_code if re.search(r"(?:^|[^\w`])@[A-Za-z0-9]", t)]
    assert not mentions, f"GitHub would turn these into mentions: {mentions[:5]}"


def test_the_hostile_text_still_reads_as_written(rendered):
    """Escaped, not dropped: a reader sees the display names as the spec wrote them."""
    text = re.sub(r"<[^>]+>", "", rendered["report"]).replace("\u200b", "")
    import html

    shown = html.unescape(text)
    for payload in PAYLOADS[:2]:
        assert payload in shown, payload


def test_no_script_runs_in_a_browser(rendered, tmp_path):
    chromium = chromium_or_skip()
    page = tmp_path / "comment.html"
    page.write_text("<!DOCTYPE html><html><body>" + "".join(rendered.values()) + "</body></html>")
    dom = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert "<body" in dom, "Chromium rendered nothing"
    assert "data-pwned" not in dom, "a script from the input ran"


def test_the_check_sees_markup_when_text_is_not_escaped(tmp_path):
    """The checks above fail on unescaped input (the fault they guard against)."""
    require_module("cmarkgfm")
    import cmarkgfm
    from cmarkgfm.cmark import Options

    parser = _Elements()
    parser.feed(
        cmarkgfm.github_flavored_markdown_to_html(
            f"| t |\n|---|\n| {PAYLOADS[0]} {PAYLOADS[2]} |", options=Options.CMARK_OPT_UNSAFE
        )
    )
    assert {tag for tag, _ in parser.elements} - OWN_ELEMENTS == {"img"}
    assert any("@someone" in t for t in parser.text_outside_code)


def test_a_failed_plans_output_is_shown_as_text_in_the_comment(tmp_path):
    """Terraform's output of a failed plan reaches the PR comment (report --failed-plan): whatever
    it holds (markup, a fence of its own, a mention), GitHub's renderer shows it as text inside
    the code block, and the comment's own structure after it is intact."""
    require_module("cmarkgfm")
    import html

    import cmarkgfm
    from cmarkgfm.cmark import Options

    output = tmp_path / "acme-team-nlp.failed"
    output.write_text(
        "Error: creating S3 Bucket\n```\n</details><img src=x onerror=1> @octo-org/platform\n"
        '| a | b |\n# heading?\n\u2502 with aws_s3_bucket.data["<b>x</b>"]\n'
    )
    result = run("report", str(QUICKSTART), "--failed-plan", str(output))
    assert result.returncode == 0, result.stderr
    page = cmarkgfm.github_flavored_markdown_to_html(result.stdout, options=Options.CMARK_OPT_UNSAFE)
    parser = _Elements()
    parser.feed(page)
    assert not {tag for tag, _ in parser.elements} - OWN_ELEMENTS - {"details", "summary"}
    assert not any("@octo-org" in t for t in parser.text_outside_code)
    blocks = [html.unescape(b) for b in re.findall(r"<pre[^>]*><code[^>]*>(.*?)</code></pre>", page, re.S)]
    shown = next(b for b in blocks if "creating S3 Bucket" in b)
    assert "<img src=x onerror=1> @octo-org/platform" in shown and '["<b>x</b>"]' in shown
    assert "<h2>" in page.split("creating S3 Bucket", 1)[1]  # the report goes on after the block


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab1 _*&#;<>[]()`|~\\.-+=!:/@9")), max_size=40))
def test_md_text_reads_as_written_and_forms_no_markup(text):
    """Any text, escaped by md_text and rendered by GitHub's renderer as a paragraph and as a list
    item, shows exactly its characters (white space collapsed, the zero-width spaces that break
    mentions aside) and no element but the paragraph's or the list's. md_text escapes only where
    the character would be syntax ("summary_report.csv", "R&D", "74.70 USD" without backslashes),
    so an e-mail reader sees few backslashes; this shows the fewer escapes still escape enough."""
    require_module("cmarkgfm")
    import html

    import cmarkgfm
    from cmarkgfm.cmark import Options

    from hyperpod_teams.document import md_text

    expected = " ".join(text.split())
    for markdown, wrapper in ((md_text(text), {"p"}), ("- " + md_text(text), {"ul", "li", "p"})):
        page = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
        parser = _Elements()
        parser.feed(page)
        assert {tag for tag, _ in parser.elements} <= wrapper, (text, markdown, page)
        shown = html.unescape(re.sub(r"<[^>]+>", "", page)).replace("\u200b", "").strip()
        assert shown == expected, (text, markdown, page)


def test_md_text_leaves_plain_punctuation_plain():
    from hyperpod_teams.document import md_text

    for plain in ("74.70 USD of the lines", "summary_report_2026.csv", "R&D", "hyperpod-teams:platform=shared"):
        assert md_text(plain) == plain
