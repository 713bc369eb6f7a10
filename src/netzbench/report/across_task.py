r"""Across-task statistics: which tasks count, the rank table, mean ranks, Friedman/Nemenyi,
rank stability and the candidate's standing.

Ranks are per task (1 = best, ties averaged) with the task's metric
direction applied, so lower-is-better metrics (MAE) rank in the same table
as accuracy and AUC; the score of a cell is its seed mean.  A task counts
when at least one model has a value on it (the others are unavailable and
leave N), and, when ``rank_tasks`` is given, when it is one of them.  A
model enters the table only if it has a value on every counted task.

The statistics are those of :mod:`netzbench.stats`; this module attaches
model and task names.  A rank table is the tuple ``(tasks, models,
ranks[N, k], excluded)`` of :func:`rank_table`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .. import stats

Tensor = Mapping[str, Mapping[str, np.ndarray]]
RankTable = tuple[list[str], list[str], np.ndarray, dict[str, str]]


def present_tasks(final: Tensor) -> list[str]:
    """Tasks where at least one model has a value (the others are unavailable and leave N)."""
    return [t for t in final if any(np.isfinite(v).any() for v in final[t].values())]


def score_table(final: Tensor, directions: Mapping[str, str], status: Callable[[str, str], str], *,
                models: Sequence[str], rank_tasks: Sequence[str] | None) -> RankTable:
    """Per-task scores of the complete ``models``, oriented so that larger is better on every task:
    ``(tasks, models, scores[N, k], excluded)`` -- the seed means the ranks are taken of, negated on
    lower-is-better tasks.  Which tasks count and which models are excluded: :func:`rank_table`."""
    tasks, keep, scores, higher, excluded = _scores(final, directions, status, models=models, rank_tasks=rank_tasks)
    return tasks, keep, np.where(higher[:, None], scores, -scores) if scores.size else scores, excluded


def rank_table(final: Tensor, directions: Mapping[str, str], status: Callable[[str, str], str], *,
               models: Sequence[str], rank_tasks: Sequence[str] | None) -> RankTable:
    """Ranks of the complete ``models`` over the counted tasks: ``(tasks, models, ranks[N, k], excluded)``.

    ``excluded`` maps each model without a value on some counted task to the
    reason, naming the tasks grouped by the cell's ``status(task, model)``.
    """
    tasks, keep, scores, higher, excluded = _scores(final, directions, status, models=models, rank_tasks=rank_tasks)
    if not keep or not tasks:
        return tasks, keep, np.zeros((len(tasks), len(keep))), excluded
    return tasks, keep, stats.rank_matrix(scores, higher), excluded


def _scores(final: Tensor, directions: Mapping[str, str], status: Callable[[str, str], str], *,
            models: Sequence[str], rank_tasks: Sequence[str] | None):
    """``(tasks, models, seed means[N, k], higher[N], excluded)`` of the complete models."""
    tasks = [t for t in final if (rank_tasks is None or t in rank_tasks)
             and any(np.isfinite(v).any() for v in final[t].values())]
    excluded: dict[str, str] = {}
    keep = []
    for m in models:
        missing = [t for t in tasks if m not in final[t] or not np.isfinite(final[t][m]).any()]
        if missing:
            by_status: dict[str, list[str]] = {}
            for t in missing:
                by_status.setdefault(status(t, m), []).append(t)
            excluded[m] = "no result on " + "; ".join(f"{', '.join(ts)} ({s})" for s, ts in by_status.items())
        else:
            keep.append(m)
    if not keep or not tasks:
        return tasks, keep, np.zeros((len(tasks), len(keep))), np.zeros(len(tasks), dtype=bool), excluded
    scores = np.array([[np.nanmean(final[t][m]) for m in keep] for t in tasks])
    higher = np.array([directions[t] == "higher" for t in tasks])
    return tasks, keep, scores, higher, excluded


def _weights_for(tasks: list[str], weights) -> np.ndarray | None:
    if weights is None:
        return None
    if isinstance(weights, Mapping):
        missing = [t for t in tasks if t not in weights]
        if missing:
            raise ValueError(f"custom weights have no entry for task(s) {missing}")
        return np.array([float(weights[t]) for t in tasks])
    return np.asarray(weights, dtype=float)


def mean_ranks(table: RankTable, aggregation: str = "uniform", *,
               half_widths: Mapping[tuple[str, str], float] | None = None, groups=None, weights=None,
               categories: Mapping[str, str | None] | None = None) -> dict[str, float]:
    r"""Mean rank per model of ``table`` under an aggregation (:func:`netzbench.stats.aggregate_ranks`).

    ``uniform`` (the only one with a Friedman/Nemenyi null);
    ``reliability`` (task weight :math:`1/\bar h_n`, the mean of the ranked
    models' CI half-widths ``half_widths[(task, model)]`` on the task);
    ``hierarchical`` (mean within ``groups`` -- a sequence aligned with the
    table's tasks or ``{task: group}`` -- default the task's research
    category from ``categories``, then across groups); ``custom``
    (``weights``: a sequence aligned with the table's tasks or
    ``{task: weight}``).
    """
    tasks, names, ranks, _ = table
    if not names:
        return {}
    hw = None
    if aggregation == "reliability":
        with np.errstate(all="ignore"):
            hw = np.array([np.nanmean([half_widths[(t, m)] for m in names])
                           if np.isfinite([half_widths[(t, m)] for m in names]).any() else np.nan for t in tasks])
    if aggregation == "hierarchical" and groups is None:
        groups = [(categories or {}).get(t) or t for t in tasks]
    elif aggregation == "hierarchical" and isinstance(groups, Mapping):
        groups = [groups.get(t, t) for t in tasks]
    w = _weights_for(tasks, weights) if aggregation == "custom" else None
    mr = stats.aggregate_ranks(ranks, aggregation, ci_half_widths=hw, groups=groups, weights=w)
    return dict(zip(names, map(float, mr)))


def friedman(table: RankTable, *, alpha: float) -> dict[str, Any]:
    """Friedman test, Iman–Davenport F, Nemenyi CD, cliques, max gap over the models of ``table``.

    Keys ``k, n_tasks, tasks, models, excluded, alpha, chi2, p_value, df,
    iman_davenport_f, iman_davenport_p, friedman_note, chi2_tie_corrected,
    p_value_tie_corrected, cd, mean_ranks, cliques, max_gap,
    n_for_observed_gap``.  ``chi2``/``p_value`` are the textbook statistic
    (the headline); the tie-corrected one is scipy's ``friedmanchisquare``.
    ``cliques`` are Nemenyi's (mean-rank span below CD).  ``k < 2`` or ``N < 1``:
    statistics NaN, no cliques.  ``N = 1``: chi2 defined, Iman–Davenport
    NaN.  ``k = 2``: Iman–Davenport NaN (the Friedman test is the sign test);
    complete agreement of every task: F infinite with the exact p-value
    (``friedman_note`` says which; see :func:`netzbench.stats.friedman`).
    """
    tasks, names, ranks, excluded = table
    k, n = len(names), len(tasks)
    out: dict[str, Any] = {"k": k, "n_tasks": n, "tasks": tasks, "models": names, "excluded": excluded,
                           "alpha": alpha, "df": max(k - 1, 0), "friedman_note": ""}
    if k < 2 or n < 1:
        out.update(chi2=math.nan, p_value=math.nan, iman_davenport_f=math.nan, iman_davenport_p=math.nan,
                   chi2_tie_corrected=math.nan, p_value_tie_corrected=math.nan, cd=math.nan,
                   mean_ranks={m: (1.0 if n else math.nan) for m in names}, cliques=[],
                   max_gap=math.nan, n_for_observed_gap=None)
        return out
    fr = stats.friedman(ranks)
    mr = stats.mean_ranks(ranks)
    cd = stats.critical_difference(k, n, alpha)
    gap = stats.max_rank_gap(mr)
    out.update(chi2=fr.chi2, p_value=fr.p_value, iman_davenport_f=fr.iman_davenport_f,
               iman_davenport_p=fr.iman_davenport_p, friedman_note=fr.note,
               chi2_tie_corrected=fr.chi2_tie_corrected, p_value_tie_corrected=fr.p_value_tie_corrected, cd=cd,
               mean_ranks=dict(zip(names, map(float, mr))),
               cliques=[[names[i] for i in c] for c in stats.cliques(mr, cd)],
               max_gap=gap, n_for_observed_gap=stats.n_for_observed_gap(cd, n, gap))
    return out


def rank_stability(table: RankTable, *, n_boot: int, seed: int, alpha: float) -> dict[str, Any]:
    """Bootstrap-over-tasks and leave-one-task-out stability of the mean-rank order of ``table``.

    :func:`netzbench.stats.rank_stability` with model/task names:
    ``order_reproduced`` (fraction of task resamples reproducing the
    observed order), ``largest_gap_quantiles`` (2.5/50/97.5 % of the largest
    mean-rank gap), ``pair_separation`` (``"A vs B"`` -> fraction of
    resamples separating the pair by more than CD), ``jackknife_max_shift``
    (per model), ``jackknife_mean_ranks`` (per left-out task) and
    ``observed_order``; reproducible for a given ``seed``.
    """
    tasks, names, ranks, excluded = table
    out: dict[str, Any] = {"models": names, "tasks": tasks, "excluded": excluded, "n_boot": int(n_boot),
                           "seed": seed}
    if not names:
        out.update(order_reproduced=math.nan, largest_gap_quantiles={}, pair_separation={},
                   jackknife_max_shift={}, jackknife_mean_ranks={},
                   observed_order=[])
        return out
    rs = stats.rank_stability(ranks, n_boot=n_boot, seed=seed, alpha=alpha)
    mr = stats.mean_ranks(ranks) if tasks else np.full(len(names), np.nan)
    out.update(
        order_reproduced=rs.order_reproduced,
        largest_gap_quantiles={f"{q:g}": v for q, v in rs.largest_gap_quantiles.items()},
        pair_separation={f"{names[i]} vs {names[j]}": v for (i, j), v in rs.pair_separation.items()},
        jackknife_max_shift=dict(zip(names, map(float, rs.jackknife_max_shift))),
        jackknife_mean_ranks={t: dict(zip(names, map(float, row)))
                              for t, row in zip(tasks, rs.jackknife_mean_ranks)} if len(tasks) > 1 else {},
        observed_order=[names[i] for i in np.argsort(mr, kind="stable")],
    )
    return out


def empty_candidate_block(name: str | None = None) -> dict[str, Any]:
    """The candidate block before counting: no rank, no comparison, no task."""
    return {"name": name, "mean_rank": None, "wins": 0, "losses": 0, "ties": 0, "n_tasks": 0}


def candidate_block(name: str, roster: Sequence[str], final: Tensor, pairwise_rows: Sequence[dict],
                    directions: Mapping[str, str], status: Callable[[str, str], str], *,
                    rank_tasks: Sequence[str] | None) -> dict[str, Any]:
    """Wins/losses/ties (Holm-significant paired differences) of ``name`` against the roster.

    Counted over the tasks where the candidate has results; a win is a
    significant difference in the candidate's favour under the task's
    metric direction (``pairwise_rows``: :func:`.within_task.pairwise`).
    ``mean_rank`` comes from ranking the candidate with the roster models
    complete on those tasks.
    """
    block = empty_candidate_block(name)
    tasks = [t for t in final if name in final[t] and np.isfinite(final[t][name]).any()]
    block["n_tasks"] = len(tasks)
    if not tasks:
        return block
    for row in pairwise_rows:
        if row["task"] not in tasks or name not in (row["model_a"], row["model_b"]):
            continue
        other = row["model_b"] if row["model_a"] == name else row["model_a"]
        if other not in roster:
            continue
        if not row["significant"]:
            block["ties"] += 1
        else:
            block["wins" if row["better"] == name else "losses"] += 1
    _, models, ranks, _ = rank_table({t: final[t] for t in tasks}, directions, status,
                                     models=[m for m in roster if m != name] + [name], rank_tasks=rank_tasks)
    if name in models:
        block["mean_rank"] = float(stats.mean_ranks(ranks)[models.index(name)])
    return block
