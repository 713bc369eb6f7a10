"""Comparison of our cells with the paper's Table 3 (GraphNetz, arXiv:2605.09099).

``paper_table3.json`` (next to this module) quotes the paper's Table 3: per
task (keyed by our task ids) and model, the seed mean and the 95 % Student-t
CI half-width ``h`` over seeds 0-9, so the paper's interval is
``[mean - h, mean + h]``.  Cells the paper marks n/a are absent.

:func:`compare_with_paper` pairs each of our cells with the paper's cell of
the same (task, model) -- only tasks present in both -- and says whether the
two intervals overlap (closed intervals: touching counts as overlap).
Overlap is a coarse consistency check, not a test: two intervals can overlap
while the means differ significantly, and intervals computed under different
protocols measure different quantities.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

PAPER_TABLE = Path(__file__).with_name("paper_table3.json")

@lru_cache(maxsize=1)
def load_paper_table() -> dict | None:
    """The quoted Table 3, or None when the data file is not installed."""
    try:
        return json.loads(PAPER_TABLE.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def figure3_models() -> list[str]:
    """The models of the paper's Figure 3 (its Friedman test), in the order of its mean ranks; none
    without the quoted table."""
    table = load_paper_table()
    return list(table["friedman"]["mean_ranks"]) if table and "friedman" in table else []


def _overlap(a_lo: float, a_hi: float, b_lo: float, b_hi: float) -> bool | None:
    if not all(math.isfinite(v) for v in (a_lo, a_hi, b_lo, b_hi)):
        return None
    return a_lo <= b_hi and b_lo <= a_hi


def compare_with_paper(summary_rows: list[dict], table: dict | None = None) -> list[dict]:
    """Rows ``{task, model, paper_mean, paper_h, paper_lo, paper_hi, ours_mean, ours_h, ours_lo,
    ours_hi, ours_n_seeds, overlap, diff}`` for every (task, model) of the paper's Table 3
    whose task is in ``summary_rows`` (rows of :meth:`BenchmarkReport.summary`).

    ``overlap`` is None when our cell has no interval (no or one seed);
    ``diff`` = ours − paper (NaN without our mean).  Cells we do not have
    (model not in our roster, or missing) appear with NaN for ours.
    """
    table = table if table is not None else load_paper_table()
    if not table:
        return []
    ours = {(r["task"], r["model"]): r for r in summary_rows}
    our_tasks = {r["task"] for r in summary_rows}
    out = []
    for task, entry in table["tasks"].items():
        if task not in our_tasks:
            continue
        for model, (mean, h) in entry["cells"].items():
            r = ours.get((task, model))
            nan = math.nan
            o_mean = r["mean"] if r else nan
            o_lo = r["lo"] if r else nan
            o_hi = r["hi"] if r else nan
            out.append({"task": task, "model": model, "paper_mean": mean, "paper_h": h, "paper_lo": mean - h,
                        "paper_hi": mean + h, "ours_mean": o_mean, "ours_h": r["half_width"] if r else nan,
                        "ours_lo": o_lo, "ours_hi": o_hi, "ours_n_seeds": r["n_seeds"] if r else 0,
                        "overlap": _overlap(mean - h, mean + h, o_lo, o_hi),
                        "diff": (o_mean - mean) if math.isfinite(o_mean) else nan})
    return out
