r"""Within-task statistics on X[task][model] (seed-aligned arrays): per-cell intervals, paired
tests, power, the Wilcoxon floor and equivalence.

Every function takes the metric tensor of :func:`.selection.final_metrics`
(NaN where a seed has no value) and plain options, and returns rows (dicts).
The statistics are those of :mod:`netzbench.stats` (formulas and edge cases
in its docstrings); this module arranges them over tasks and model pairs.

Pairs
    only models with at least one value on the task take part, in model
    order; a seed with a value for only one of the two models is dropped
    from that pair (``dropped_seeds``) -- pairs are aligned by seed.
Holm
    every family of comparisons is one task: p-values are Holm–Bonferroni
    adjusted over the task's comparisons with a defined p-value (undefined
    ones stay NaN and are never significant).
Resolution
    paired values are compared at :data:`netzbench.stats.RESOLUTION` (1e-6
    metric units; float32 run records): differences with zero spread at it
    are *degenerate* -- the t test is undefined, the p-value is the exact
    sign test's (all differences zero: no p-value) -- and TOST concludes
    nothing from them.
Bounds
    per-cell intervals are clipped to the metric's range
    (:func:`.series.metric_range`: [0, 1] for accuracy, AUC, AP, F1, ...) and
    flagged ``clipped``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from .. import stats
from ..stats.paired import RESOLUTION, paired_differences
from .series import metric_range

POWER_EFFECTS = (0.02, 0.01, 0.005)
#: the paired tests in words
TEST_NAMES = {"t": "paired t", "wilcoxon": "Wilcoxon signed-rank"}

Tensor = Mapping[str, Mapping[str, np.ndarray]]


def summary(final: Tensor, metrics: Mapping[str, str], directions: Mapping[str, str],
            status: Callable[[str, str], str], *, ci: float, method: str, n_resamples: int,
            seed: int) -> list[dict]:
    """One row per (task, model): mean, std, sem, n_seeds and the CI of ``method``.

    Columns ``task, model, metric, direction, mean, std, sem, n_seeds, lo,
    hi, half_width, ci_method, ci, status, clipped``.  ``t``: ``mean ±
    t·sem``; ``bootstrap``: percentile bounds (possibly asymmetric) and
    ``half_width = (hi - lo)/2`` (``n_resamples`` resamples seeded by
    ``seed``).  ``lo``/``hi`` are clipped to the metric's range
    (:func:`.series.metric_range`) and ``clipped`` says when that happened
    (``half_width`` stays unclipped).  One seed gives NaN bounds (no
    interval), no seed gives NaN everywhere.
    """
    rows = []
    for task, by_model in final.items():
        bounds = metric_range(metrics[task])
        for model, values in by_model.items():
            d = stats.interval(values, ci=ci, method=method, n_resamples=n_resamples, seed=seed,
                               bounds=bounds).to_dict()
            rows.append({"task": task, "model": model, "metric": metrics[task], "direction": directions[task],
                         "mean": d["mean"], "std": d["std"], "sem": d["sem"], "n_seeds": d["n"],
                         "lo": d["lo"], "hi": d["hi"], "half_width": d["half_width"], "ci_method": method,
                         "ci": ci, "status": status(task, model), "clipped": d["clipped"]})
    return rows


def nested_summary(rows: Sequence[dict]) -> dict[str, dict[str, dict]]:
    """Summary rows as ``{task: {model: row}}``."""
    out: dict[str, dict[str, dict]] = {}
    for r in rows:
        out.setdefault(r["task"], {})[r["model"]] = r
    return out


def model_pairs(by_model: Mapping[str, np.ndarray]) -> list[tuple[str, str]]:
    """Every unordered pair of the models with at least one value, in model order."""
    names = [m for m in by_model if np.isfinite(by_model[m]).any()]
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]


def _dropped(a: np.ndarray, b: np.ndarray, seeds: Sequence[int]) -> list[int]:
    """Seeds where exactly one of the two models has a value (dropped from the pair)."""
    fa, fb = np.isfinite(a), np.isfinite(b)
    return [seeds[i] for i in np.flatnonzero(fa ^ fb)]


def pairwise(final: Tensor, directions: Mapping[str, str], seeds: Sequence[int], *, method: str,
             alpha: float) -> list[dict]:
    """Every model pair per task: paired test on seed-aligned values, Holm within the task.

    Columns ``task, model_a, model_b, direction, mean_diff (a − b), sigma_d,
    cohens_dz, p_raw, p_holm, significant, better, n_seeds, dropped_seeds,
    method, note, degenerate``.  ``significant`` is ``p_holm < alpha``.
    ``better`` names the model favoured under the task's metric direction
    when the difference is significant, else ``""``.  Degenerate inputs
    follow :func:`netzbench.stats.paired_test` (``note`` says which;
    ``degenerate``: zero spread at the resolution, the t test undefined and
    the p-value the exact sign test's, or none when every difference is zero).
    """
    if method not in stats.PAIRED_METHODS:
        raise ValueError(f"pairwise method must be one of {list(stats.PAIRED_METHODS)}, got {method!r}")
    rows = []
    for task, by_model in final.items():
        direction = directions[task]
        task_rows = []
        for a, b in model_pairs(by_model):
            r = stats.paired_test(by_model[a], by_model[b], method=method)
            task_rows.append({"task": task, "model_a": a, "model_b": b, "direction": direction,
                              "mean_diff": r.mean_diff, "sigma_d": r.sigma_d, "cohens_dz": r.cohens_dz,
                              "p_raw": r.p_value, "n_seeds": r.n,
                              "dropped_seeds": _dropped(by_model[a], by_model[b], seeds),
                              "method": method, "note": r.note, "degenerate": r.degenerate})
        adjusted = stats.holm([r["p_raw"] for r in task_rows]) if task_rows else []
        for r, p in zip(task_rows, adjusted):
            r["p_holm"] = float(p)
            r["significant"] = bool(np.isfinite(p) and p < alpha)
            better = ""
            if r["significant"] and r["mean_diff"] != 0:
                a_larger = r["mean_diff"] > 0
                better = r["model_a"] if a_larger == (direction == "higher") else r["model_b"]
            r["better"] = better
        rows.extend(task_rows)
    return rows


def pairwise_matrix(rows: Sequence[dict], task: str) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(models, p_holm[k, k], mean_diff[k, k])`` of one task's :func:`pairwise` rows
    (symmetric p, antisymmetric Δμ, NaN on the diagonal)."""
    rows = [r for r in rows if r["task"] == task]
    names: list[str] = []
    for r in rows:
        for m in (r["model_a"], r["model_b"]):
            if m not in names:
                names.append(m)
    k = len(names)
    P = np.full((k, k), np.nan)
    D = np.full((k, k), np.nan)
    for r in rows:
        i, j = names.index(r["model_a"]), names.index(r["model_b"])
        P[i, j] = P[j, i] = r["p_holm"]
        D[i, j], D[j, i] = r["mean_diff"], -r["mean_diff"]
    return names, P, D


def paired_agreement(t_rows: Sequence[dict], w_rows: Sequence[dict]) -> list[dict]:
    """The paired t and the Wilcoxon decision of every comparison in both tables (:func:`pairwise` of each
    method: the same tasks, pairs and Holm families), in the t table's order: ``task, model_a, model_b,
    mean_diff, p_raw_t, p_holm_t, significant_t, p_raw_wilcoxon, p_holm_wilcoxon, significant_wilcoxon,
    agree`` (the same Holm decision at the report's alpha)."""
    by_pair = {(r["task"], r["model_a"], r["model_b"]): r for r in w_rows}
    out = []
    for rt in t_rows:
        rw = by_pair.get((rt["task"], rt["model_a"], rt["model_b"]))
        if rw is None:
            continue
        out.append({"task": rt["task"], "model_a": rt["model_a"], "model_b": rt["model_b"],
                    "mean_diff": rt["mean_diff"], "p_raw_t": rt["p_raw"], "p_holm_t": rt["p_holm"],
                    "significant_t": bool(rt["significant"]), "p_raw_wilcoxon": rw["p_raw"],
                    "p_holm_wilcoxon": rw["p_holm"], "significant_wilcoxon": bool(rw["significant"]),
                    "agree": bool(rt["significant"]) == bool(rw["significant"])})
    return out


def power_analysis(final: Tensor, *, alpha: float, power: float = 0.8,
                   effects: Sequence[float] = POWER_EFFECTS) -> list[dict]:
    r"""Power of the paired t test for every comparison (see :mod:`netzbench.stats.power`).

    Columns ``task, model_a, model_b, mean_diff, sigma_d, n_seeds, mde,
    observed_power, detectable, power, degenerate, seeds_needed_<e>`` for
    each effect ``e`` (metric units).  ``mde = (t_{S-1,1-α/2} + t_{S-1,power})·σ_d/√S``
    at the pair's ``S`` seeds; observed power from the non-central t at the
    observed mean difference; ``seeds_needed_<e>`` is the smallest S with
    MDE ≤ e holding σ_d fixed (None beyond 10,000).  The analysis is that of
    the paired t test whatever test the report headlines (the Wilcoxon floor
    is :func:`wilcoxon_floor`).  A degenerate pair (zero spread at the
    resolution) has no t test, so no MDE, power or seeds needed (NaN/None).
    """
    rows = []
    for task, by_model in final.items():
        for a, b in model_pairs(by_model):
            r = stats.paired_power(by_model[a], by_model[b], alpha=alpha, power=power, effects=effects)
            d = paired_differences(by_model[a], by_model[b])
            row = {"task": task, "model_a": a, "model_b": b, "mean_diff": d.mean_diff, "sigma_d": r.sigma_d,
                   "n_seeds": r.n, "mde": r.mde, "observed_power": r.observed_power,
                   "detectable": r.detectable, "power": power, "degenerate": r.degenerate}
            for e in effects:
                row[f"seeds_needed_{e:g}"] = r.seeds_needed[float(e)]
            rows.append(row)
    return rows


def wilcoxon_floor(final: Tensor, *, alpha: float) -> list[dict]:
    r"""The smallest p-value the exact Wilcoxon signed-rank test can give, per task.

    The test drops zero differences (zero at the resolution,
    :data:`netzbench.stats.RESOLUTION`), so what counts is ``S'``, the number
    of nonzero paired differences.  With ``S'`` of them the two-sided exact
    null puts mass :math:`2^{-S'}` on "all differences positive", so
    :math:`p_{min} = \min(1, 2\cdot 2^{-S'})`.  Holm multiplies the smallest
    p of a family of ``m`` comparisons by ``m``: :math:`p^{Holm}_{min} =
    \min(1, m\cdot 2^{1-S'})`.  ``reachable`` says whether that is below
    alpha, i.e. whether the Wilcoxon test can declare anything on the task.
    ``n_seeds`` is the largest number of paired seeds and ``n_nonzero`` the
    largest ``S'`` among the task's pairs (NaN p when every difference is zero).
    Rows ``{task, n_seeds, n_nonzero, comparisons, p_min, p_min_holm, reachable}``.
    """
    rows = []
    for task, by_model in final.items():
        pairs = model_pairs(by_model)
        diffs = [paired_differences(by_model[a], by_model[b], RESOLUTION) for a, b in pairs]
        s = max((d.n for d in diffs), default=0)
        nz = max((d.n_nonzero for d in diffs), default=0)
        m = len(pairs)
        p_min = min(1.0, 2.0 * 2.0 ** (-nz)) if nz >= 1 else math.nan
        p_holm = min(1.0, m * p_min) if m and nz >= 1 else math.nan
        rows.append({"task": task, "n_seeds": s, "n_nonzero": nz, "comparisons": m, "p_min": p_min,
                     "p_min_holm": p_holm, "reachable": bool(np.isfinite(p_holm) and p_holm < alpha)})
    return rows


def margin_for(task: str, margin: float | Mapping[str, float] | None) -> float:
    """The TOST margin of ``task``: one number for every task, or ``{task: margin}``."""
    if isinstance(margin, Mapping):
        if task not in margin:
            raise ValueError(f"equivalence margin has no entry for task {task!r}")
        margin = margin[task]
    if margin is None:
        raise ValueError("equivalence needs a margin in metric units: pass margin= or set "
                         "report.equivalence_margin (params.yaml: report.equivalence_margin)")
    return float(margin)


def equivalence(final: Tensor, difference_rows: Sequence[dict], margin: float | Mapping[str, float] | None, *,
                alpha: float) -> list[dict]:
    r"""TOST equivalence of every pair within ``±margin`` and the four-way verdict.

    Two one-sided paired t tests (:func:`netzbench.stats.tost_paired`),
    :math:`p_{TOST} = \max(p^-, p^+)`, Holm-adjusted within the task
    (``p_tost_holm``).  Crossed with the Holm-adjusted difference test of
    ``difference_rows`` (:func:`pairwise` rows: ``p_diff_holm``) each
    comparison gets exactly one verdict (:func:`netzbench.stats.verdict`):
    ``different`` (difference significant, equivalence not), ``equivalent``
    (the reverse), ``trivial`` (both: a real difference inside the margin)
    or ``undetermined`` (neither; also when undefined, e.g. one seed).  A
    zero-spread pair has no TOST p-value (``note`` says so): it is never
    ``equivalent``.
    ``margin`` is a number or ``{task: margin}`` (:func:`margin_for`; only
    tasks with a pair need one).
    """
    diff = {(r["task"], r["model_a"], r["model_b"]): r for r in difference_rows}
    rows = []
    for task, by_model in final.items():
        task_rows = []
        for a, b in model_pairs(by_model):
            mg = margin_for(task, margin)
            t = stats.tost_paired(by_model[a], by_model[b], mg, alpha=alpha)
            d = diff[(task, a, b)]
            task_rows.append({"task": task, "model_a": a, "model_b": b, "mean_diff": d["mean_diff"],
                              "n_seeds": t.n, "margin": mg, "p_lower": t.p_lower, "p_upper": t.p_upper,
                              "p_tost": t.p_value, "p_diff_holm": d["p_holm"],
                              "pairwise_method": d["method"], "note": t.note})
        adjusted = stats.holm([r["p_tost"] for r in task_rows]) if task_rows else []
        for r, p in zip(task_rows, adjusted):
            r["p_tost_holm"] = float(p)
            r["equivalent"] = bool(np.isfinite(p) and p < alpha)
            r["verdict"] = stats.verdict(r["p_diff_holm"], r["p_tost_holm"], alpha=alpha)
        rows.extend(task_rows)
    return rows
