"""REPORT.md's Markdown as HTML, for the sections the site shows as REPORT.md words them.

Only the dialect the report's templates write (:mod:`netzbench.report.markdown`): ``#`` headings,
paragraphs (one line each), ``- `` lists nested by two spaces, ``> `` quotes, pipe tables with an
alignment row, and inline code, ``**bold**``, ``*italic*`` and ``\\|`` (a pipe inside a table cell).
Everything is HTML-escaped first; a Markdown link keeps its text only and an image is left out, since
their targets are relative to ``reports/`` and the site stands alone (it has figures of its own).
"""

from __future__ import annotations

import html
import re

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)\s]+\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)\s]+\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_ITEM = re.compile(r"^( *)- (.*)$")
_ALIGN = {"---:": "right", ":---:": "center"}


def inline(text: str) -> str:
    """One line's inline Markdown as HTML (escaped; code spans are left as they are inside)."""
    spans: list[str] = []

    def keep(m: re.Match) -> str:
        spans.append(f"<code>{html.escape(m.group(1), quote=False)}</code>")
        return f"\x00{len(spans) - 1}\x00"

    text = _LINK.sub(lambda m: m.group(1), _IMAGE.sub("", text))
    text = html.escape(_CODE.sub(keep, text), quote=False).replace("\\|", "|")
    text = _ITALIC.sub(r"<em>\1</em>", _BOLD.sub(r"<strong>\1</strong>", text))
    return re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], text)


def _cells(line: str) -> list[str]:
    inner = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    return [c.strip() for c in re.split(r"(?<!\\)\|", inner)]


def _table(lines: list[str]) -> str:
    head, align, body = _cells(lines[0]), [_ALIGN.get(a.strip(), "") for a in _cells(lines[1])], lines[2:]

    def row(cells: list[str], tag: str) -> str:
        out = []
        for c, a in zip(cells, align + [""] * len(cells)):
            attr = f' class="{a}"' if a else ""
            out.append(f"<{tag}{attr}>{inline(c)}</{tag}>")
        return "<tr>" + "".join(out) + "</tr>"

    return ('<div class="scroll"><table class="report-table"><thead>' + row(head, "th") + "</thead><tbody>"
            + "".join(row(_cells(r), "td") for r in body) + "</tbody></table></div>")


def _list(lines: list[str]) -> str:
    """Nested ``<ul>`` from ``- `` items indented by two spaces a level (a line that is no item continues
    the item above)."""
    items: list[list] = []  # [level, html]
    for line in lines:
        m = _ITEM.match(line)
        if m is None:
            items[-1][1] += " " + inline(line.strip())
        else:
            items.append([min(len(m.group(1)) // 2, items[-1][0] + 1 if items else 0), inline(m.group(2))])
    out, depth = [], -1  # depth: the level of the innermost open <ul>
    for level, text in items:
        if level > depth:
            out.append("<ul>")  # nested inside the item before, which stays open
            depth = level
        else:
            out.append("</li>")
            while depth > level:
                out.append("</ul></li>")
                depth -= 1
        out.append(f"<li>{text}")
    out.append("</li>" + "</ul></li>" * depth + "</ul>")
    return "".join(out)


def to_html(lines: list[str], drop_heading: bool = False) -> str:
    """The HTML of REPORT.md ``lines`` (one section, say); ``drop_heading``: without its first heading,
    where the page gives the section a heading of its own."""
    lines = list(lines)
    if drop_heading and lines and _HEADING.match(lines[0]):
        lines = lines[1:]
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        block = [line]
        kind = ("table" if line.lstrip().startswith("|") else "list" if _ITEM.match(line)
                else "quote" if line.startswith(">") else "heading" if _HEADING.match(line) else "para")
        i += 1
        if kind in ("table", "list", "quote"):
            while i < len(lines) and lines[i].strip() and (
                    (kind == "table" and lines[i].lstrip().startswith("|"))
                    or (kind == "list" and (_ITEM.match(lines[i]) or lines[i].startswith("  ")))
                    or (kind == "quote" and lines[i].startswith(">"))):
                block.append(lines[i])
                i += 1
        if kind == "heading":
            m = _HEADING.match(line)
            level = min(6, len(m.group(1)) + 1)  # under the page's own h1 and the section's h2
            out.append(f"<h{level}>{inline(m.group(2))}</h{level}>")
        elif kind == "table":
            out.append(_table([b.strip() for b in block]))
        elif kind == "list":
            out.append(_list(block))
        elif kind == "quote":
            out.append("<blockquote>" + "".join(f"<p>{inline(b.lstrip('>').strip())}</p>" for b in block
                                                if b.lstrip(">").strip()) + "</blockquote>")
        elif inline(line.strip()).strip():  # a line holding only an image leaves nothing
            out.append(f"<p>{inline(line.strip())}</p>")
    return "\n".join(out)
