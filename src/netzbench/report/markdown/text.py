"""Markdown building blocks shared by the sections: tables, cell texts, model labels, and the note on an
incomplete protocol study."""

from __future__ import annotations

import math
from typing import Any

from ..formatting import display_names
from .templating import render


def table(headers: list[str], rows: list[list[Any]], align: str | None = None) -> list[str]:
    """A Markdown table; ``align`` has one letter per column: ``l``, ``r`` or ``c``."""
    align = align or "l" * len(headers)
    sep = ["---:" if a == "r" else (":---:" if a == "c" else "---") for a in align]
    out = ["| " + " | ".join(headers) + " |", "| " + " | ".join(sep) + " |"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def label(report, model: str | None) -> str | None:
    """How the tables name ``model``: its :func:`~netzbench.report.formatting.display_names` label
    among the report's models (``EdgeFreeMLP`` for ``user_models.mlp:EdgeFreeMLP``); None stays None."""
    if model is None:
        return None
    return display_names(report.models).get(model, model)


def arrow(direction: str) -> str:
    return "↑" if direction == "higher" else "↓"


def interval_name(report) -> str:
    """The per-cell interval in words: level and method (with the bootstrap's resamples and seed)."""
    return f"{report.ci:.0%} " + ("Student-t" if report.ci_method == "t" else
                                  f"percentile-bootstrap (B = {report.bootstrap_n}, seed {report.bootstrap_seed})")


def cell_text(r: dict | None, status: str, n_seeds: int, digits: int = 3) -> str:
    """A summary cell as ``mean ± half-width`` (or why it has none), with its seed count when partial;
    an interval clipped to the metric's range as ``mean [lo, hi] §`` (``mean ± h`` would leave the range)."""
    if r is None or r["n_seeds"] == 0:
        return {"incompatible": "n/a (incompatible)", "no cell": "n/a", "unavailable": "unavailable"}.get(
            status, status or "missing")
    text = f"{r['mean']:.{digits}f}"
    if r.get("clipped"):
        text += f" [{r['lo']:.{digits}f}, {r['hi']:.{digits}f}] §"
    elif math.isfinite(r["half_width"]):
        text += f" ± {r['half_width']:.{digits}f}"
    else:
        text += " (1 seed, no CI)"
    if 1 < r["n_seeds"] < n_seeds:
        text += f" ({r['n_seeds']}/{n_seeds} seeds)"
    return text


def overlaps(a: dict, b: dict) -> bool:
    """Whether two summary cells' intervals overlap (False when either has none)."""
    vals = (a["lo"], a["hi"], b["lo"], b["hi"])
    return all(math.isfinite(v) for v in vals) and a["lo"] <= b["hi"] and b["lo"] <= a["hi"]


def winners(direction: str, cells: dict[str, dict]) -> set[str]:
    """The models with the best mean of a task's summary cells (every tied best)."""
    means = {m: r["mean"] for m, r in cells.items() if r["n_seeds"] > 0 and math.isfinite(r["mean"])}
    if not means:
        return set()
    target = (max if direction == "higher" else min)(means.values())
    return {m for m, v in means.items() if v == target}


def unavailable_reason(report, task: str) -> str:
    """The data-unavailable reason of a task (not the incompatible cells' reasons beside it)."""
    reasons = {report.cell_reason(task, m) for m in report.histories[task]
               if report.cell_status(task, m) == "unavailable"}
    return "; ".join(sorted(r for r in reasons if r))


def incomplete_note(study: dict) -> list[str]:
    """A quoted line naming what a study still being run does not hold yet (nothing when complete)."""
    return render("text", "incomplete_note", left=study.get("remaining") or {})
