"""The HTML environment of the results site: the page templates in ``templates/`` and the stylesheet
and script in ``assets/``, both package data.

Unlike REPORT.md's environment (:mod:`netzbench.report.markdown.templating`) everything is
HTML-escaped unless marked safe (:class:`markupsafe.Markup`: the site's own SVG drawings and the
HTML :mod:`.markup` makes of REPORT.md's sections), and an undefined name raises. Numbers go
through the report's formats as filters, so the site writes a number as REPORT.md does.
"""

from __future__ import annotations

import math
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from ..formatting import number, p_value

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
ASSETS = HERE / "assets"


def sort_value(v) -> str:
    """A cell's sort key for the page's script: a finite number in full (``repr``), else empty (sorted last)."""
    if isinstance(v, bool) or v is None:
        return ""
    if isinstance(v, (int, float)) and math.isfinite(v):
        return repr(float(v))
    return ""


def fixed(v, digits: int = 3) -> str:
    """``v`` with ``digits`` decimals (``n/a`` for None or NaN), as REPORT.md's tables write a mean."""
    return number(float(v), digits) if isinstance(v, (int, float)) and not isinstance(v, bool) else number(v)


ENV = Environment(loader=FileSystemLoader(TEMPLATES), undefined=StrictUndefined, autoescape=True,
                  trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
ENV.filters.update(number=fixed, p_value=p_value, sort_value=sort_value, fmt=format)


def render_page(template: str, **context) -> str:
    """The page ``templates/<template>.html.j2`` writes with ``context``."""
    return ENV.get_template(f"{template}.html.j2").render(**context)


def asset(name: str) -> str:
    """The text of ``assets/<name>`` (the stylesheet, the script), written beside the pages."""
    return (ASSETS / name).read_text(encoding="utf-8")
