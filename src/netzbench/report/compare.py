"""Two runs compared for a reviewer (``netzbench compare A B``): what B changes against A, and whether it matters.

``verify`` asks whether a rerun reproduces a run; ``compare`` asks what a change (a new model, a fixed
bug, another protocol switch) does to the results, and with what evidence. Both read the part the two
runs share (:func:`.verify.common_part`: the cells both ran, the seeds both have), so seed ``s`` of
B is paired with seed ``s`` of A, and every difference is B − A:

- each cell whose histories differ, by how much relative to A's CI half-width (:func:`.verify.cell_differences`);
- per task, each model of both runs: the paired test of B's seeds against A's (B's ``pairwise_method``),
  Holm within the task; TOST at B's ``equivalence_margin`` (Holm within the task) and the verdict it
  gives with the difference test; the Bayesian correlated t-test's probability that B is better (ROPE:
  the margin; :math:`\\rho` from the task's split design, :func:`.comparisons.split_correlation`, of B's
  seed records, else A's, else 0 and said so). A model whose B − A is zero on every seed at the metric's
  resolution (:data:`netzbench.stats.RESOLUTION`: last-bit noise is no change) is ``unchanged`` and has no
  test (the stats layer leaves such a pair out of Holm);
- the mean ranks of each run and their change, the conclusions ``verify`` checks (which changed), and
  the compute each run cost (its seed records' seconds; unknown where none has any);
- the candidate of each run that has one (``dvc exp run -S model=...``), on that whole run: its wins,
  losses and ties against the roster and its mean rank among them (:meth:`.BenchmarkReport.candidate_block`)
  -- a candidate only B has is outside the common part, yet it is what a reviewer of B asks about.

:func:`compare` returns these as a dict; :mod:`.compare_render` writes them as Markdown or HTML.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .. import stats
from ..params import DEFAULTS
from .benchmark import BenchmarkReport
from .comparisons import DESIGNS, split_correlation
from .memo import computed_once
from .verify import common_part, present_cells, verify
from .verify_input import VerifyError
from .within_task import margin_for

__all__ = ["candidates", "compare", "default_margin", "paired", "rank_changes"]

#: a significant difference of B against A: B better, B worse
GAIN, LOSS = "gain", "loss"


def default_margin(report: BenchmarkReport) -> float | Mapping[str, float]:
    """The TOST margin and ROPE: the report's ``equivalence_margin``, else its config's
    ``report.equivalence_margin``, else the default of params.yaml's."""
    if report.equivalence_margin is not None:
        return report.equivalence_margin
    configured = (report.config.get("report") or {}).get("equivalence_margin")
    return configured if configured is not None else DEFAULTS["report"]["equivalence_margin"]


def _task_margin(task: str, margin) -> float | None:
    try:
        return margin_for(task, margin)
    except ValueError:  # a {task: margin} without this task: no equivalence test, no ROPE
        return None


def _correlation(b: BenchmarkReport, a: BenchmarkReport) -> dict[str, dict[str, Any]]:
    """Per task: ``rho``, ``design`` and ``source`` (the run whose split design gives it, or ``none``)."""
    mine, other = split_correlation(b.cells), split_correlation(a.cells)
    out = {}
    for task in b.tasks:
        for side, found in (("B", mine.get(task)), ("A", other.get(task))):
            if found is not None and found["design"] != "not_recorded":
                out[task] = {"rho": found["rho"], "design": DESIGNS[found["design"]], "source": side}
                break
        else:
            out[task] = {"rho": 0.0, "design": DESIGNS["not_recorded"], "source": "none"}
    return out


def _oriented(values: np.ndarray, direction: str) -> np.ndarray:
    return values if direction == "higher" else -values


def _paired_row(task: str, model: str, va: np.ndarray, vb: np.ndarray, direction: str, *, method: str,
                alpha: float, margin: float | None, rho: float) -> dict[str, Any]:
    """One model on one task: the tests of B's seeds against A's (B − A; larger = better once oriented)."""
    test = stats.paired_test(vb, va, method=method)
    row = {"task": task, "model": model, "direction": direction, "mean_a": float(np.nanmean(va)),
           "mean_b": float(np.nanmean(vb)), "mean_diff": test.mean_diff, "n_seeds": test.n, "p_raw": test.p_value,
           "unchanged": bool(test.degenerate and test.mean_diff == 0.0), "note": test.note, "margin": margin,
           "p_tost": math.nan, "p_b_better": math.nan, "p_rope": math.nan, "bayes_note": ""}
    if margin is not None:
        row["p_tost"] = stats.tost_paired(vb, va, margin, alpha=alpha).p_value
    bayes = stats.correlated_t_test(_oriented(vb, direction), _oriented(va, direction), margin or 0.0, rho)
    row.update(p_b_better=bayes.p_a_better, p_rope=bayes.p_rope, bayes_note=bayes.note)
    return row


def _outcome(row: dict[str, Any], alpha: float) -> str:
    """``unchanged``, ``gain``/``loss`` (a significant difference, B better/worse), ``trivial gain``/``trivial
    loss`` (significant, and equivalent within the margin), ``equivalent`` or ``undetermined``."""
    if row["unchanged"]:
        return "unchanged"
    verdict = stats.verdict(row["p_holm"], row["p_tost_holm"], alpha=alpha)
    better = (row["mean_diff"] > 0) == (row["direction"] == "higher")
    side = GAIN if better else LOSS
    return {"different": side, "trivial": f"trivial {side}"}.get(verdict, verdict)


def paired(a: BenchmarkReport, b: BenchmarkReport, margin) -> list[dict[str, Any]]:
    """Per task of ``b``, a row per model with values in both (seed-aligned reports: :func:`.common_part`'s):
    keys of :func:`_paired_row` plus ``p_holm``, ``p_tost_holm`` (Holm within the task), ``significant``,
    ``outcome`` (:func:`_outcome`), ``rho``, ``design`` and ``rho_source``."""
    fa, fb = a.final_metrics(), b.final_metrics()
    rho = _correlation(b, a)
    rows = []
    for task, by_model in fb.items():
        direction, mg = b.task_info[task].direction, _task_margin(task, margin)
        task_rows = [_paired_row(task, m, fa[task][m], vb, direction, method=b.pairwise_method, alpha=b.alpha,
                                 margin=mg, rho=rho[task]["rho"])
                     for m, vb in by_model.items() if m in fa.get(task, {})
                     and np.isfinite(vb).any() and np.isfinite(fa[task][m]).any()]
        for key, adjusted in (("p_holm", "p_raw"), ("p_tost_holm", "p_tost")):
            for r, p in zip(task_rows, stats.holm([r[adjusted] for r in task_rows])):
                r[key] = float(p)
        for r in task_rows:
            r["significant"] = bool(math.isfinite(r["p_holm"]) and r["p_holm"] < b.alpha)
            r.update(outcome=_outcome(r, b.alpha), rho=rho[task]["rho"], design=rho[task]["design"],
                     rho_source=rho[task]["source"])
        rows.extend(task_rows)
    return rows


def rank_changes(a: BenchmarkReport, b: BenchmarkReport) -> dict[str, Any]:
    """Mean ranks (uniform aggregation, the Friedman test's) of each run, a row per model ranked in either:
    ``model, rank_a, rank_b, change`` (B − A; negative: B ranks it better; NaN where one run does not
    rank it), best in B first; and each run's Friedman p-value and number of tasks ranked over."""
    fa, fb = a.friedman(), b.friedman()
    ra, rb = fa.get("mean_ranks") or {}, fb.get("mean_ranks") or {}
    rows = [{"model": m, "rank_a": ra.get(m, math.nan), "rank_b": rb.get(m, math.nan),
             "change": rb.get(m, math.nan) - ra.get(m, math.nan)} for m in dict.fromkeys([*rb, *ra])]
    rows.sort(key=lambda r: (not math.isfinite(r["rank_b"]), r["rank_b"], r["rank_a"], r["model"]))
    return {"rows": rows, "friedman_p": (fa.get("p_value", math.nan), fb.get("p_value", math.nan)),
            "n_tasks": (fa.get("n_tasks", 0), fb.get("n_tasks", 0))}


def _cost(whole: BenchmarkReport, part: BenchmarkReport) -> dict[str, Any]:
    """Seconds summed over the timed seeds and elapsed, of the whole run and of the cells both ran; None
    for what no seed record carries (a report built from hand, or records without times)."""
    full, common = whole.compute_cost(), part.compute_cost()
    return {"n_timed": full["n_timed"], "seconds": full["total_seconds"] if full["n_timed"] else None,
            "wall_seconds": full["wall_seconds"],
            "common_seconds": common["total_seconds"] if common["n_timed"] else None}


def _option_changes(a: BenchmarkReport, b: BenchmarkReport) -> dict[str, tuple[Any, Any]]:
    """The analysis options that differ between the runs (they change the statistics, not the training)."""
    oa, ob = a.options(), b.options()
    return {k: (oa[k], ob[k]) for k in oa if oa[k] != ob[k]}


def candidates(a: BenchmarkReport, b: BenchmarkReport) -> dict[str, dict]:
    """``{"A": block, "B": block}`` for each run whose config names a candidate it has results of: the
    candidate against that run's roster (``config.models``), over the whole run."""
    out = {}
    for side, run in (("A", a), ("B", b)):
        name = run.config.get("candidate")
        if name and name in run.models:
            roster = [m for m in (run.config.get("models") or run.models) if m != name and m in run.models]
            out[side] = run.candidate_block(name, roster)
    return out


def compare(a: BenchmarkReport, b: BenchmarkReport, labels: tuple[str, str] = ("A", "B")) -> dict[str, Any]:
    """B against A on the part both have (module docstring); :class:`.VerifyError` when they share no cell
    or no seed. Keys: ``labels``, ``cells`` (:func:`.verify.cell_differences` rows, B as ``ours``),
    ``n_cells``, ``identical_cells``, ``left_out``, ``tasks``, ``seeds``, ``margin``, ``alpha``, ``method``,
    ``paired`` (:func:`paired`), ``ranks`` (:func:`rank_changes`), ``conclusions`` (the :func:`.verify`
    result), ``candidates`` (:func:`candidates`), ``options`` (:func:`_option_changes`), ``cost`` (``{"A": ..., "B": ...}``) and ``no_change``
    (every compared cell identical, nothing left out, no conclusion changed, the same options)."""
    if not set(present_cells(a)) & set(present_cells(b)):  # said in compare's terms, before common_part says it
        raise VerifyError(f"{labels[0]} and {labels[1]} have no (task, model) cell in common: nothing to compare")
    if not set(a.seeds) & set(b.seeds):
        raise VerifyError(f"{labels[0]} and {labels[1]} have no seed in common (seeds {a.seeds} and {b.seeds})")
    rb, ra, left = common_part(b, a)
    margin = default_margin(b)
    with computed_once(ra), computed_once(rb):
        checked = verify(rb, ra, whole=True)
        checked["left_out"] = left
        rows = paired(ra, rb, margin)
        ranks = rank_changes(ra, rb)
    options = _option_changes(a, b)
    no_change = (checked["identical_cells"] == checked["n_cells"] and not any(left.values())
                 and not checked["changed"] and not options)
    return {"labels": labels, "cells": checked["cells"], "n_cells": checked["n_cells"],
            "identical_cells": checked["identical_cells"], "left_out": left, "tasks": rb.tasks, "seeds": rb.seeds,
            "margin": margin, "alpha": b.alpha, "method": b.pairwise_method, "paired": rows, "ranks": ranks,
            "conclusions": checked, "candidates": candidates(a, b), "options": options, "cost": {"A": _cost(a, ra), "B": _cost(b, rb)},
            "no_change": no_change}
