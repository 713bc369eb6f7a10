"""How numbers are written in the report's text, console lines and figure labels."""

from __future__ import annotations

import math
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
