"""The Jinja2 environment REPORT.md is written with: the templates in ``templates/``, one per section
module, each a set of macros, one per block of text; the Python side computes a block's values from the
facts and :func:`render` lays them out with its macro.

The templates' conventions:

- each line between ``{% macro %}`` and ``{% endmacro %}`` is one line of REPORT.md (block tags on a
  line of their own leave none: ``trim_blocks``, ``lstrip_blocks``; a line that ends in a block tag
  keeps its line break with ``+%}``);
- a line ending in a backslash continues on the next, whose indentation is dropped: a Markdown
  paragraph is one line of REPORT.md, wrapped in its template; a macro written as one such line
  is a phrase that a table cell or another block puts inline (:func:`phrase`);
- blocks nested in a section (its tables, a legend, a note shared by sections) arrive as lists of
  lines, written one per line;
- an undefined name raises (:class:`~jinja2.StrictUndefined`) instead of printing nothing, and nothing
  is HTML-escaped (this is Markdown);
- numbers go through the report's formats (:mod:`netzbench.report.formatting`) as filters:
  ``number``, ``p_value``, ``fmt`` (a format spec: ``x|fmt(".3f")``), ``duration``; lists through
  ``names`` (``A, B and C``) and ``code`` (```a`, `b```).
"""

from __future__ import annotations

import re
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from jinja2.ext import Extension

from ..formatting import number, p_value

TEMPLATES = Path(__file__).with_name("templates")
_CONTINUED = re.compile(r"\\\n[ \t]*")


class _LineContinuation(Extension):
    """A backslash at the end of a template line joins the next line to it (see the module docstring)."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return _CONTINUED.sub("", source)


def names(items: list[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def duration(seconds: float) -> str:
    """``1 h 02 min 03 s``, or ``2 min 03 s`` under an hour."""
    s = int(round(seconds))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h:d} h {m:02d} min {sec:02d} s" if h else f"{m:d} min {sec:02d} s"


def code(items) -> str:
    """Each item in backticks, comma-separated."""
    return ", ".join(f"`{x}`" for x in items)


ENV = Environment(loader=FileSystemLoader(TEMPLATES), undefined=StrictUndefined, autoescape=False,
                  trim_blocks=True, lstrip_blocks=True, extensions=[_LineContinuation])
ENV.filters.update(number=number, p_value=p_value, fmt=format, duration=duration, names=names, code=code)


def render(template: str, macro: str, **context) -> list[str]:
    """The lines macro ``macro`` of ``templates/<template>.md.j2`` writes with ``context`` (none when it
    writes nothing). A context variable the macro does not declare is a ``TypeError``."""
    text = str(getattr(ENV.get_template(f"{template}.md.j2").module, macro)(**context))
    return text.removesuffix("\n").split("\n") if text else []


def phrase(template: str, macro: str, **context) -> str:
    """What macro ``macro`` writes, as one string: a phrase a table cell or another block puts inline."""
    return "\n".join(render(template, macro, **context))
