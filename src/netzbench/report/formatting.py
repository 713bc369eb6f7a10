"""How numbers and model names are written in the report's text, console lines and figure labels."""

from __future__ import annotations

import math
import re
from typing import Any


def number(v: Any, digits: int = 3) -> str:
    """A float with ``digits`` decimals, ``∞`` / ``−∞`` for infinities, ``n/a`` for None or NaN;
    anything else as ``str``."""
    if isinstance(v, float) and math.isinf(v):
        return "∞" if v > 0 else "−∞"
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def p_value(p: Any) -> str:
    """A p-value with 3 significant digits (never rounds 0.0496 up to 0.050); ``n/a`` for None or NaN."""
    if p is None or not math.isfinite(p):
        return "n/a"
    return f"{p:.3g}"


def display_names(models) -> dict[str, str]:
    """The label each model is shown under in figures and REPORT.md's tables: a class reference
    ``package.module:ClassName`` becomes ``ClassName``, any other name stays as it is.  Where two of
    ``models`` would then share a label (``a:GCN`` beside ``GCN``, or ``a:X`` beside ``b:X``), those
    keep their full names, so a label always names one model.  Machine-readable outputs keep the full
    names."""
    short = {m: str(m).rsplit(":", 1)[-1] or str(m) for m in models}
    taken: dict[str, int] = {}
    for label in short.values():
        taken[label] = taken.get(label, 0) + 1
    return {m: label if taken[label] == 1 else str(m) for m, label in short.items()}


_FENCE = re.compile(r"^\s*(```|~~~)")
_SPAN = re.compile(r"(`+)(.+?)\1")
#: what starts raw HTML in Markdown: a tag, a closing tag, a comment, a declaration or an instruction
_TAG = re.compile(r"<(?=[A-Za-z/!?])")


def inert_html(markdown: str) -> str:
    """``markdown`` with every ``<`` that would start raw HTML (a tag, ``</``, ``<!--``) outside code written
    ``&lt;``, so that user-supplied text in it (model arguments, dataset names, labels) renders as text: a
    ``<!--`` in a model's arguments can no longer hide the rest of a rendered report. Code spans and fenced
    blocks are left as they are (HTML is not read there); ``p < 0.05`` is not a tag and stays."""
    out, fenced = [], False
    for line in markdown.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            pieces, last = [], 0
            for m in _SPAN.finditer(line):
                pieces += [_TAG.sub("&lt;", line[last:m.start()]), m.group(0)]
                last = m.end()
            line = "".join(pieces) + _TAG.sub("&lt;", line[last:])
        out.append(line)
    return "\n".join(out)

