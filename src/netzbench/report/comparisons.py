r"""Across-task comparisons of model pairs: post-hoc tests and the Bayesian analysis, with names.

Both read the same per-task aggregate as the rank table and the Friedman /
CD analysis (:func:`.across_task.score_table`: the seed mean of each cell,
over the counted tasks, for the models complete on them), oriented so that
larger is better on every task (lower-is-better metrics such as MAE are
negated).  The statistics are :mod:`netzbench.stats.posthoc` and
:mod:`netzbench.stats.bayesian`.

Post-hoc rows (:func:`posthoc`)
    one per unordered pair of ranked models, in model order: ``method,
    model_a, model_b, mean_rank_a, mean_rank_b, statistic, p_raw, p_holm,
    p_adjusted, significant, better, n_tasks, wins_a, wins_b, degenerate,
    note``.  ``nemenyi``: ``p_raw`` the unadjusted mean-rank z test,
    ``p_holm`` its Holm adjustment, ``p_adjusted`` Nemenyi's single-step
    p-value and ``significant`` the CD decision (the rank gap is at least
    CD).  ``wilcoxon_holm``: Wilcoxon signed-rank test of the per-task
    differences, ``p_adjusted = p_holm``, ``significant = p_holm < alpha``.
Bayesian (:func:`bayesian`)
    ``across_tasks``: per ranked pair, the Bayesian signed-rank test over the
    per-task differences (``p_a_better, p_rope, p_b_better``; Monte Carlo,
    seeded); ``per_task``: per task and pair of models with values, the
    Bayesian correlated t-test over the seeds, with the correlation
    :math:`\rho` of the task's split design (:func:`split_correlation`).  ROPE: the equivalence margin
    in metric units.  A ``{task: margin}`` margin cannot be one ROPE across
    tasks with different units, so each task's difference is divided by its
    margin and the ROPE is 1 (``rope_scaled``); a single margin is used as it
    is (the two are the same test when every task has that margin).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .. import stats
from ..stats.bayesian import N_SAMPLES
from ..stats.paired import RESOLUTION, at_resolution, paired_differences
from .across_task import RankTable
from .within_task import margin_for, model_pairs

Tensor = Mapping[str, Mapping[str, np.ndarray]]

#: the post-hoc tests in words
POSTHOC_NAMES = {"nemenyi": "Nemenyi (mean ranks)", "wilcoxon_holm": "Wilcoxon signed-rank + Holm"}


def _pairs_of(names: Sequence[str]) -> list[tuple[int, int]]:
    return [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]


def posthoc(scores: RankTable, ranks: RankTable, *, method: str, alpha: float) -> list[dict]:
    """Post-hoc rows of ``method`` over the models of ``scores`` (:func:`.across_task.score_table`) and
    ``ranks`` (:func:`.across_task.rank_table`, same tasks and models).  Columns: module docstring."""
    if method not in stats.POSTHOC_METHODS:
        raise ValueError(f"post-hoc method must be one of {list(stats.POSTHOC_METHODS)}, got {method!r}")
    tasks, names, table, _ = scores
    if len(names) < 2 or not tasks:
        return []
    r = ranks[2]
    mr = stats.mean_ranks(r)
    rows = []
    for p in stats.posthoc(table, method, alpha, ranks=r):
        rows.append({"method": method, "model_a": names[p.i], "model_b": names[p.j],
                     "mean_rank_a": float(mr[p.i]), "mean_rank_b": float(mr[p.j]), "statistic": p.statistic,
                     "p_raw": p.p_raw, "p_holm": p.p_holm, "p_adjusted": p.p_adjusted,
                     "significant": p.significant, "better": names[p.better] if p.better >= 0 else "",
                     "n_tasks": p.n_tasks, "wins_a": p.wins_i, "wins_b": p.wins_j, "degenerate": p.degenerate,
                     "note": p.note})
    return rows


def cliques(rows: Sequence[dict], mean_ranks: Mapping[str, float]) -> list[list[str]]:
    """CD-diagram cliques (names, best first) from post-hoc ``rows`` of the models in ``mean_ranks``."""
    names = list(mean_ranks)
    k = len(names)
    sig = np.zeros((k, k), dtype=bool)
    for r in rows:
        if r["model_a"] in mean_ranks and r["model_b"] in mean_ranks:
            i, j = names.index(r["model_a"]), names.index(r["model_b"])
            sig[i, j] = sig[j, i] = bool(r["significant"])
    return [[names[i] for i in c] for c in stats.cliques_from_matrix([mean_ranks[m] for m in names], sig)]


#: P(region) at or above which a Bayesian region is called probable (REPORT.md's reading and counts)
PROBABLE = 0.95
#: a task's split designs (:func:`split_correlation`), in words
DESIGNS = {"redrawn": "split redrawn per seed", "fixed": "one split for every seed",
           "generated": "new data generated per seed", "not_recorded": "no split design recorded"}


def split_correlation(cells: Mapping[str, Mapping[str, Mapping]]) -> dict[str, dict[str, Any]]:
    r"""Per task of ``cells`` (the report's cell facts): the correlated t-test's :math:`\rho` from the split
    design its run records carry, ``{rho, design, n_train, n_test, n_seeds, note}``.

    Each seed record's ``split`` is ``{redrawn, n_train, n_test}`` (the training and test parts' sizes:
    nodes, graphs, edges or triples); a cell's ``data_per_seed`` says its task's data are generated per
    seed (a generator, or a seed-aware loader). ``design`` and :math:`\rho`:

    ``redrawn``
        a new split of the same data per seed (repeated random hold-out): training sets overlap, the seed
        differences are positively correlated and Nadeau & Bengio's (2003) variance correction
        :math:`1/n + n_{test}/n_{train}` applies, i.e. :math:`\rho = n_{test}/(n_{train} + n_{test})`
        (:func:`netzbench.stats.correlated_t_test`); Euroroad, Internet AS, 9/11, MUTAG.
    ``fixed``
        the same split every seed (the public Planetoid split, a canonical knowledge-graph split): the
        seed differences vary only with the training randomness and are independent given the data,
        :math:`\rho = 0`; the posterior is then about the mean difference on this split's test set (the
        split-to-split variance that a claim about other splits would need cannot be estimated from one).
    ``generated``
        new data every seed (Random TSP, the Ising lattice): training and test sets of different seeds
        share nothing, the differences are independent draws, :math:`\rho = 0` -- even though such a
        task's records say ``redrawn``.
    ``not_recorded``
        no seed record carries a split design (records written before it was recorded): :math:`\rho =
        0`, as before, and REPORT.md names the task.

    When a task's seeds or cells disagree (they share the split, so they should not), the largest
    :math:`\rho` is kept -- the wider posterior -- and ``note`` says so; ``n_train, n_test`` are the
    sizes it comes from (of a generated task, whose sizes may vary: the seed with the largest test share).
    """
    out = {}
    for task, by_model in cells.items():
        facts = [f for c in by_model.values() for f in (c.get("seeds") or {}).values()
                 if isinstance(f.get("split"), Mapping)]
        row = {"rho": 0.0, "design": "not_recorded", "n_train": None, "n_test": None, "n_seeds": len(facts),
               "note": ""}
        generated = any(c.get("data_per_seed") for c in by_model.values())
        if facts:
            redrawn = [f["split"] for f in facts if f["split"].get("redrawn")]
            row["design"] = "generated" if generated else "redrawn" if redrawn else "fixed"
            if redrawn and len(redrawn) < len(facts) and not generated:
                row["note"] = f"{len(facts) - len(redrawn)} of {len(facts)} seed records say the split is fixed"
            sizes = {(int(s.get("n_train") or 0), int(s.get("n_test") or 0)) for s in redrawn or
                     [f["split"] for f in facts]}
            n_train, n_test = max(sorted(sizes), key=lambda nt: nt[1] / max(1, sum(nt)))  # the largest rho
            if len(sizes) > 1 and not generated:  # new data per seed may well differ in size
                row["note"] = (row["note"] + "; " if row["note"] else "") + f"{len(sizes)} different split sizes"
            row.update(n_train=n_train, n_test=n_test)
            if redrawn and not generated and n_train > 0:
                row["rho"] = n_test / (n_train + n_test)
        elif generated:
            row["design"] = "generated"
        out[task] = row
    return out


def _oriented(values: np.ndarray, direction: str) -> np.ndarray:
    return values if direction == "higher" else -values


def _rho_for(task: str, rho: float | Mapping[str, float]) -> float:
    return float(rho.get(task, 0.0)) if isinstance(rho, Mapping) else float(rho)


def bayesian(final: Tensor, directions: Mapping[str, str], scores: RankTable, *,
             margin: float | Mapping[str, float] | None, rho: float | Mapping[str, float] | None = None,
             cells: Mapping[str, Mapping[str, Mapping]] | None = None, n_samples: int = N_SAMPLES,
             seed: int = 0) -> dict[str, Any]:
    """Bayesian comparison of every pair: signed-rank test over tasks, correlated t-test per task.

    ``margin`` (a number or ``{task: margin}``, metric units) is the ROPE;
    ``rho`` (a number or ``{task: rho}``; default None: each task's from the
    split design in ``cells``, :func:`split_correlation`) the correlated
    t-test's correlation; ``n_samples`` and ``seed`` the signed-rank test's
    Monte-Carlo sample.  Keys ``rope, rope_scaled, rho, split_design`` (the
    designs, None for a given ``rho``), ``n_samples, seed, tasks, models,
    excluded, across_tasks, per_task`` (rows: module docstring) and
    ``per_task_counts`` (``comparisons`` with probabilities, ``one_better``
    and ``equivalent`` at :data:`PROBABLE`).
    """
    design = None
    if rho is None:
        design = split_correlation(cells or {})
        rho = {t: d["rho"] for t, d in design.items()}
    if margin is None:
        margin_for("", None)  # raises: the ROPE is the equivalence margin and there is none
    tasks, names, table, excluded = scores
    scaled = isinstance(margin, Mapping)
    across = []
    if tasks and len(names) >= 2:
        per_task_margin = np.array([margin_for(t, margin) for t in tasks]) if scaled else None
        for i, j in _pairs_of(names):
            a, b, rope = table[:, i], table[:, j], float(margin) if not scaled else 1.0
            if scaled:  # at the metric's resolution first, then in units of each task's margin
                d = paired_differences(a, b, RESOLUTION)
                a, b = at_resolution(d.a - d.b, d.unit) / per_task_margin, np.zeros(len(tasks))
            res = stats.signed_rank_test(a, b, rope, n_samples=n_samples, seed=seed)
            across.append({"model_a": names[i], "model_b": names[j], "p_a_better": res.p_a_better,
                           "p_rope": res.p_rope, "p_b_better": res.p_b_better, "rope": rope, "n_tasks": res.n,
                           "degenerate": res.degenerate, "note": res.note})
    per_task = []
    for task, by_model in final.items():
        for a, b in model_pairs(by_model):
            mg = margin_for(task, margin)
            res = stats.correlated_t_test(_oriented(by_model[a], directions[task]),
                                          _oriented(by_model[b], directions[task]), mg, _rho_for(task, rho))
            per_task.append({"task": task, "model_a": a, "model_b": b,
                             "mean_diff": res.mean_diff if directions[task] == "higher" else -res.mean_diff,
                             "p_a_better": res.p_a_better, "p_rope": res.p_rope, "p_b_better": res.p_b_better,
                             "rope": mg, "rho": _rho_for(task, rho), "n_seeds": res.n,
                             "degenerate": res.degenerate, "note": res.note})
    decided = [r for r in per_task if math.isfinite(r["p_rope"])]
    counts = {"probable": PROBABLE, "comparisons": len(decided),
              "one_better": sum(max(r["p_a_better"], r["p_b_better"]) >= PROBABLE for r in decided),
              "equivalent": sum(r["p_rope"] >= PROBABLE for r in decided)}
    return {"rope": dict(margin) if scaled else float(margin), "rope_scaled": scaled,
            "rho": dict(rho) if isinstance(rho, Mapping) else float(rho), "split_design": design,
            "n_samples": int(n_samples), "seed": int(seed), "tasks": tasks, "models": names, "excluded": excluded,
            "across_tasks": across, "per_task": per_task, "per_task_counts": counts}
