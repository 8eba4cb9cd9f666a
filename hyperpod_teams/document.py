"""A small document model (headings, paragraphs, tables, warnings, images) rendered to Markdown
for pull-request comments and to one self-contained HTML page. Pure layer: the report and the
runbook build documents; nothing here knows about teams."""

from __future__ import annotations

import base64
import html
import re
import string
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Items:
    """A list; `ordered` numbers it (procedures)."""

    items: list[str]
    ordered: bool = False


@dataclass(frozen=True)
class Code:
    text: str
    language: str = "sh"


@dataclass(frozen=True)
class Table:
    headers: list[str]
    rows: list[list[str]]


@dataclass(frozen=True)
class Alert:
    text: str


@dataclass(frozen=True)
class Image:
    """An SVG, embedded in HTML; Markdown shows the alt text only (PR comments take no data URIs)."""

    alt: str
    svg: str
    #: Where a phone reads the chart's figures instead (e.g. "the table above"): a chart drawn
    #: for a desktop's width is unreadable scaled to a phone's, so there it gives way to this.
    on_phone: str = ""


Block = Heading | Paragraph | Items | Code | Table | Alert | Image


def standalone_svg(svg: str, chart_id: str) -> str:
    """A pygal chart as an Image's SVG: same input, same bytes, nothing that runs. pygal's random
    chart ID becomes `chart_id`; its dated comments and its script of tooltip settings go (an
    image in a page runs no script anyway)."""
    svg = re.sub(r"chart-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", chart_id, svg)
    svg = re.sub(r"<script.*?</script>", "", svg, flags=re.S)
    return re.sub(r"<!--.*?-->", "", svg, flags=re.S)


@dataclass
class Document:
    title: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)


#: What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(text: str) -> str:
    """A text cell of a CSV for a spreadsheet: a leading `'` when it begins with a character that
    would start a formula, as OWASP's CSV-injection guidance says. Only for text: numbers stay
    numbers (a negative amount is no formula). A carriage return inside becomes a line feed, which
    the CSV writer quotes (it would otherwise end the row for a reader)."""
    return (f"'{text}" if text.startswith(FORMULA_TRIGGERS) else text).replace("\r", "\n")


#: Markdown's own syntax among ASCII punctuation: a backslash before any of these makes it plain.
#: Only where it would be syntax (a reader of the statement in an e-mail sees every backslash):
#: `_` between two letters or digits is no emphasis, `&` only starts an entity, `#` only a heading.
_MARKDOWN_SYNTAX = frozenset("\\`*[]<>|~")
_ENTITY = re.compile(r"&(#\d+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")


def _needs_escape(text: str, i: int) -> bool:
    char = text[i]
    if char in _MARKDOWN_SYNTAX:
        return True
    if char == "_":
        return not (0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum())
    if char == "&":
        return bool(_ENTITY.match(text, i))
    return False


#: A zero-width space breaks what GitHub would turn into a mention (`@team`) or a link.
_ZERO_WIDTH_SPACE = "\u200b"


def md_text(text: object) -> str:
    """Text from a spec or a usage file, for a Markdown document: shown as the characters it is.
    Markdown and HTML syntax escaped with backslashes (so `<img onerror=...>` stays text), no line
    breaks (nothing can start a block), and mentions and links broken with a zero-width space."""
    plain = " ".join(str(text).split())
    escaped = "".join(f"\\{c}" if _needs_escape(plain, i) else c for i, c in enumerate(plain))
    escaped = re.sub(r"^(\d{1,9})([.)])(?=\s|$)", r"\1\\\2", escaped)  # "1. " or "1) " would start a list,
    escaped = re.sub(r"^([-+=#])", r"\\\1", escaped)  # "-" or "+" a bullet, "=" an underline, "#" a heading
    for trigger in ("@", "://", "www."):
        escaped = escaped.replace(trigger, trigger[:1] + _ZERO_WIDTH_SPACE + trigger[1:])
    return escaped


def md_code(text: object) -> str:
    """Text from a spec or a usage file as an inline code span: literal whatever it holds (a
    backtick inside gets a longer fence, as CommonMark allows), on one line."""
    plain = " ".join(str(text).split())
    longest = max((len(run) for run in re.findall(r"`+", plain)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {plain} " if plain.startswith("`") or plain.endswith("`") else plain
    return f"{fence}{padded}{fence}"


def _fence(text: str) -> str:
    """A code block's fence, longer than any run of backticks in it."""
    return "`" * max([3, *(len(run) + 1 for run in re.findall(r"`{3,}", text))])


def _cell(text: str) -> str:
    """A table cell: every pipe not escaped yet escaped (GFM splits cells on them, in code spans
    too), line breaks as <br>."""
    return re.sub(r"(?<!\\)((?:\\\\)*)\|", r"\1\\|", text).replace("\n", "<br>")


def to_markdown(document: Document) -> str:
    out = [f"# {document.title}", ""]
    for block in document.blocks:
        if isinstance(block, Heading):
            out += [f"{'#' * block.level} {block.text}", ""]
        elif isinstance(block, Paragraph):
            out += [block.text, ""]
        elif isinstance(block, Items):
            out += [f"{f'{i}.' if block.ordered else '-'} {item}" for i, item in enumerate(block.items, 1)] + [""]
        elif isinstance(block, Code):
            fence = _fence(block.text)
            out += [f"{fence}{block.language}", block.text.rstrip("\n"), fence, ""]
        elif isinstance(block, Table):
            out.append("| " + " | ".join(_cell(h) for h in block.headers) + " |")
            out.append("|" + "|".join(" --- " for _ in block.headers) + "|")
            out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in block.rows]
            out.append("")
        elif isinstance(block, Alert):
            out += [f"> [!WARNING]\n> **{block.text}**", ""]
        elif isinstance(block, Image):
            out += [f"*{block.alt}* (chart in the HTML report)", ""]
    return "\n".join(out).rstrip() + "\n"


_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:1.5rem auto;max-width:72rem;padding:0 1rem;
color:#1f2328;line-height:1.45}
h3{margin:1.6rem 0 .4rem}
.table{overflow-x:auto;max-width:100%;margin:0 0 1.2rem}
table{border-collapse:collapse}
th,td{border:1px solid #d0d7de;padding:.3rem .6rem;text-align:left;vertical-align:top;overflow-wrap:break-word}
td:first-child{min-width:7rem}
th{background:#f6f8fa}code,pre{font-family:ui-monospace,monospace;background:#f6f8fa}pre{padding:.8rem;overflow-x:auto}
.warning{border-left:.3rem solid #cf222e;background:#ffebe9;padding:.6rem 1rem;font-weight:600;margin:0 0 1rem}
img{max-width:100%;height:auto}
.n{white-space:nowrap}.phone-only{display:none}
@media (max-width:40rem){img.wide{display:none}.phone-only{display:block;font-style:italic}
body{padding:0 .6rem}.table thead{display:none}.table tr{display:block;margin:0 0 .8rem;
border:1px solid #d0d7de}.table td{display:block;border:0;border-top:1px solid #eaeef2;overflow-wrap:anywhere}
.table td:first-child{font-weight:600;background:#f6f8fa;border-top:0}
.table td[data-label]:not(:first-child)::before{content:attr(data-label) ": ";font-weight:600}}
@media print{body{max-width:none;margin:0;padding:0;font-size:10pt}.table{overflow:visible}
h2,h3{break-after:avoid}tr,img,.warning{break-inside:avoid}}
"""


def _inline_html(text: str) -> str:
    """The documents' inline Markdown as HTML: backslash escapes, code spans (of any fence length)
    and `**` (dropped); everything else escaped as text."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text) and text[i + 1] in string.punctuation:
            out.append(html.escape(text[i + 1]))
            i += 2
        elif char == "`":
            fence = re.match(r"`+", text[i:]).group()  # type: ignore[union-attr]
            closing = re.compile(rf"(?<!`){fence}(?!`)")
            end = closing.search(text, i + len(fence))
            if end is None:
                out.append(html.escape(fence))
                i += len(fence)
                continue
            content = text[i + len(fence) : end.start()]
            if len(content) > 2 and content.startswith(" ") and content.endswith(" ") and content.strip():
                content = content[1:-1]
            out.append(f"<code>{html.escape(content)}</code>")
            i = end.end()
        elif text.startswith("**", i):
            i += 2
        else:
            out.append(html.escape(char))
            i += 1
    return "".join(out)


#: A number as the documents print one: an amount, hours, a count, a percentage, maybe a unit
#: or currency after it ("1,234.56", "-50.00", "57.14%", "2,688.00 GPU", "12 nodes").
_NUMBER = re.compile(r"-?\d[\d,]*(\.\d+)?%?( [A-Za-z]{1,12})?")


def _cell_html(text: str) -> str:
    """A table cell; a number in one piece, never broken across lines (the cells wrap anywhere
    else, so that a long name never widens the page)."""
    if _NUMBER.fullmatch(text.strip()):
        return f'<span class="n">{_inline_html(text)}</span>'
    return _inline_html(text)


def to_html(document: Document) -> str:
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_inline_html(document.title).replace('<code>', '').replace('</code>', '')}</title>"
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{_inline_html(document.title)}</h1>",
    ]
    for block in document.blocks:
        if isinstance(block, Heading):
            out.append(f"<h{block.level}>{_inline_html(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            out.append(f"<p>{_inline_html(block.text)}</p>")
        elif isinstance(block, Items):
            tag = "ol" if block.ordered else "ul"
            out.append(f"<{tag}>" + "".join(f"<li>{_inline_html(i)}</li>" for i in block.items) + f"</{tag}>")
        elif isinstance(block, Code):
            out.append(f"<pre><code>{html.escape(block.text)}</code></pre>")
        elif isinstance(block, Table):
            head = "".join(f"<th>{_inline_html(h)}</th>" for h in block.headers)
            # Each cell carries its column's header: on a phone the rows stack, each cell labelled.
            # The header as text (its markup and entities resolved), escaped once for the attribute:
            # escaped twice, a phone showed `teams&#x27; quota`.
            labels = [
                html.escape(html.unescape(re.sub(r"<[^>]*>", "", _inline_html(h))), quote=True) for h in block.headers
            ]
            body = "".join(
                "<tr>"
                + "".join(
                    f'<td data-label="{labels[i]}">{_cell_html(c)}</td>'
                    if i < len(labels) and labels[i]
                    else f"<td>{_cell_html(c)}</td>"
                    for i, c in enumerate(row)
                )
                + "</tr>"
                for row in block.rows
            )
            # A wide table scrolls inside its box; the page itself never scrolls sideways.
            out.append(f'<div class="table"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>')
        elif isinstance(block, Alert):
            out.append(f'<div class="warning">{_inline_html(block.text)}</div>')
        elif isinstance(block, Image):
            data = base64.b64encode(block.svg.encode()).decode()
            wide = ' class="wide"' if block.on_phone else ""
            out.append(f'<img{wide} alt="{html.escape(block.alt)}" src="data:image/svg+xml;base64,{data}">')
            if block.on_phone:
                out.append(f'<p class="phone-only">{_inline_html(block.alt)}: {_inline_html(block.on_phone)}.</p>')
    out.append("</body></html>")
    return "\n".join(out) + "\n"


# --- the charts' palette (the report's and the statement's) ---------------------------------

#: Segment colours of the named teams: Tableau 20 without its two greys, which mark the other
#: teams and unallocated capacity. The nine darker ones first, each of its own hue, then the nine
#: lighter ones in the same order: up to nine teams never share a hue (they did: blue and light blue
#: for the first two).
TEAM_COLOURS = (
    "#4e79a7",
    "#f28e2b",
    "#59a14f",
    "#b6992d",
    "#499894",
    "#e15759",
    "#d37295",
    "#b07aa1",
    "#9d7660",
    "#a0cbe8",
    "#ffbe7d",
    "#8cd17d",
    "#f1ce63",
    "#86bcb6",
    "#ff9d9a",
    "#fabfd2",
    "#d4a6c8",
    "#d7b5a6",
)
#: The other teams' segment, and capacity no team holds.
OTHER_TEAMS_COLOUR = "#79706e"
UNALLOCATED_COLOUR = "#e8e8e8"
