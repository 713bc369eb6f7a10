r"""Comparison of our cells with the paper's Table 3 (GraphNetz, arXiv:2605.09099).

``paper_table3.json`` (next to this module) quotes the paper's Table 3: per
task (keyed by our task ids) and model, the seed mean and the 95 % Student-t
CI half-width ``h`` over seeds 0-9, so the paper's interval is
``[mean - h, mean + h]``.  Cells the paper marks n/a are absent.

:func:`compare_with_paper` pairs each of our cells with the paper's cell of
the same (task, model) -- only tasks present in both -- and judges their
agreement under three criteria (:data:`CRITERIA`):

``overlap``
    the two intervals overlap (closed intervals: touching counts).  A coarse
    consistency check, not a test: two 95 % intervals can overlap while the
    means differ significantly (up to :math:`\sqrt 2` standard errors more
    than a test would allow).
``inside``
    the paper's mean lies inside our interval.
``z``
    :math:`|\Delta| / \sqrt{se_{ours}^2 + se_{paper}^2} \le 1.96`, with
    :math:`\Delta` = ours − paper and each side's standard error of the mean:
    ours :math:`s/\sqrt n` (the summary's ``sem``), the paper's from its
    printed half-width, :math:`h / t_{0.975,\,n-1}` with its :math:`n = 10`
    seeds (Table 3 prints :math:`h`, the 95 % Student-t half-width, not the
    standard deviation; :math:`s_{paper} = h\sqrt n / t_{0.975,\,n-1}`).  A
    two-sided z test of equal means at 5 %, the normal approximation the
    criterion is stated in (a Welch t at about 18 degrees of freedom would
    allow 2.10).

``strict`` = ``inside`` and ``z``: the stricter criterion.

``equivalent``, the reproduction criterion: an equivalence test, since the question is "is ours the
paper's number", which overlap and z cannot answer (a wide interval overlaps anything; a z test that
fails to reject says nothing). Two one-sided Welch t tests (TOST, :func:`netzbench.stats.tost_welch`)
of ours against the paper's mean with the standard errors above, margin :math:`\delta` =
``report.equivalence_margin`` (metric units; a per-task mapping gives each task its own), p-values
Holm-adjusted over the compared cells; a cell reproduces when ``tost_p_holm < alpha``. Without a margin
the criterion is not computed (None).  Intervals
computed under different protocols measure different quantities; none of
the three is a proof of reproduction, a miss under ``strict`` is a reason to
look.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

from scipy import stats

from ..stats import holm, tost_welch

PAPER_TABLE = Path(__file__).with_name("paper_table3.json")
#: the agreement criteria of a cell (module docstring): row key -> what it means
CRITERIA = {"overlap": "CIs overlap", "inside": "paper's mean inside our CI", "z": "|Δ| / pooled SE ≤ 1.96",
            "strict": "inside and |Δ| / pooled SE ≤ 1.96", "equivalent": "TOST within ±margin (Holm)"}
#: the z criterion's bound (two-sided 5 %)
Z_BOUND = 1.96
#: the per-cell fields of ``metrics/report.json``'s ``paper_comparison.cells``
CELL_FIELDS = ("paper_mean", "paper_h", "paper_se", "ours_mean", "ours_h", "ours_se", "ours_n_seeds", "diff",
               "pooled_se", "z", "overlap", "inside", "z_ok", "strict", "tost_margin", "tost_p", "tost_p_holm",
               "equivalent")

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


def _paper_se(h: float, n: int, ci: float) -> float:
    """The standard error of the mean behind a printed Student-t half-width ``h`` at level ``ci`` over ``n``."""
    return h / float(stats.t.ppf(0.5 + ci / 2, n - 1)) if n >= 2 else math.nan


def _agreement(row: dict, ours_se: float) -> dict:
    """The ``inside``, ``z``, ``strict`` criteria of one row (None where our cell has no interval)."""
    pooled = math.sqrt(ours_se ** 2 + row["paper_se"] ** 2)
    have = all(math.isfinite(v) for v in (row["ours_lo"], row["ours_hi"], ours_se)) and pooled > 0
    z = abs(row["diff"]) / pooled if have else math.nan
    inside = (row["ours_lo"] <= row["paper_mean"] <= row["ours_hi"]) if have else None
    within = bool(z <= Z_BOUND) if have else None
    return {"ours_se": ours_se, "pooled_se": pooled, "z": z, "inside": inside, "z_ok": within,
            "strict": (inside and within) if have else None}


def counts(rows: list[dict]) -> dict[str, int]:
    """How many of ``rows`` (:func:`compare_with_paper`) are comparable and agree under each criterion:
    ``compared, overlapping, inside, z, strict``."""
    return {"compared": sum(r["overlap"] is not None for r in rows),
            "overlapping": sum(r["overlap"] is True for r in rows), "inside": sum(r["inside"] is True for r in rows),
            "z": sum(r["z_ok"] is True for r in rows), "strict": sum(r["strict"] is True for r in rows),
            "equivalent": sum(r.get("equivalent") is True for r in rows)}


def _equivalence(rows: list[dict], margin, alpha: float, n_paper: int) -> None:
    """Each row's TOST against the paper (``tost_margin, tost_p, tost_p_holm, equivalent``), Holm over the rows
    with a p-value; all None without a margin."""
    for r in rows:
        m = margin.get(r["task"]) if isinstance(margin, dict) else margin
        r["tost_margin"] = m
        if m is None or not r["ours_n_seeds"]:
            r["tost_p"] = math.nan
            continue
        r["tost_p"] = tost_welch(r["ours_mean"], r["ours_se"], r["ours_n_seeds"], r["paper_mean"], r["paper_se"],
                                 n_paper, m, alpha).p_value
    tested = [r for r in rows if math.isfinite(r["tost_p"])]
    for r, p in zip(tested, holm([r["tost_p"] for r in tested])):
        r["tost_p_holm"], r["equivalent"] = float(p), bool(p < alpha)
    for r in rows:
        if not math.isfinite(r["tost_p"]):
            r["tost_p_holm"], r["equivalent"] = math.nan, None


def compare_with_paper(summary_rows: list[dict], table: dict | None = None, *, margin=None,
                       alpha: float = 0.05) -> list[dict]:
    """Rows ``{task, model, paper_mean, paper_h, paper_se, paper_lo, paper_hi, ours_mean, ours_h,
    ours_se, ours_lo, ours_hi, ours_n_seeds, diff, pooled_se, z, overlap, inside, z_ok, strict}`` for
    every (task, model) of the paper's Table 3 whose task is in ``summary_rows`` (rows of
    :meth:`BenchmarkReport.summary`); the criteria: module docstring.

    ``overlap``, ``inside``, ``z_ok`` and ``strict`` are None when our cell has no interval (no or one
    seed); ``diff`` = ours − paper (NaN without our mean); ``z`` = abs(diff) / pooled_se.  Cells we do
    not have (model not in our roster, or missing) appear with NaN for ours. With ``margin`` (a number
    or ``{task: margin}``) each row also has ``tost_margin, tost_p, tost_p_holm, equivalent`` at ``alpha``.
    """
    table = table if table is not None else load_paper_table()
    if not table:
        return []
    n_paper, ci_paper = int(table.get("n_seeds", 10)), float(table.get("ci", 0.95))
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
            row = {"task": task, "model": model, "paper_mean": mean, "paper_h": h,
                   "paper_se": _paper_se(h, n_paper, ci_paper), "paper_lo": mean - h, "paper_hi": mean + h,
                   "ours_mean": o_mean, "ours_h": r["half_width"] if r else nan, "ours_lo": o_lo, "ours_hi": o_hi,
                   "ours_n_seeds": r["n_seeds"] if r else 0, "overlap": _overlap(mean - h, mean + h, o_lo, o_hi),
                   "diff": (o_mean - mean) if math.isfinite(o_mean) else nan}
            row.update(_agreement(row, float(r["sem"]) if r and r.get("sem") is not None else nan))
            out.append(row)
    _equivalence(out, margin, alpha, n_paper)
    return out
