"""Baselines in the report: which models are reference points, and whether the GNNs beat them.

A model is a **baseline** when its run records carry a ``baseline_kind``
(the class attribute ``baseline``; :mod:`netzbench.models.registry`):
``structure_free`` (MLP: ignores the edges), ``heuristic`` (link
heuristics: scored from the training graph, no training), ``baseline``
(declared ``baseline = True``) or a kind a user's class names. Every other
model is a model under test, "GNN" below. The report reads this from the
records' cell facts only (``cells[task][model]["baseline_kind"]``).

``report.baselines`` (the report option ``baseline_mode``):

- ``separate`` (default): the across-task analysis (ranks, Friedman, CD
  diagram, post-hoc and Bayesian comparisons, rank stability, the candidate's
  standing) covers the models under test only; REPORT.md lists the
  baselines' cells in their own block after the GNNs'.
- ``include``: baselines are ranked like any model; as for every model, only
  those with a result on every ranked task enter (a link heuristic cannot
  serve other families, so with other families present it is left out, and
  REPORT.md says so with the reason).

Either way, per task (:func:`comparison`): the best GNN and the best baseline
(highest seed mean, metric direction applied; first in roster order on a
tie) are compared with one paired test over seed-aligned values (the report's
``pairwise_method``, :func:`netzbench.stats.paired_test`). When the best
baseline is not structure-free but a structure-free baseline has a result,
the best GNN is also tested against the best structure-free one; and when a
structure-only baseline (a link heuristic: the graph alone, no features) and
a structure-free one both have results, the best structure-only baseline is
tested against the best structure-free one. The task's two or three p-values
are Holm-adjusted together (one family: every claim the report makes about
the task's baselines). If neither the best GNN nor the best structure-only
baseline beats the best structure-free baseline significantly, the task does
not reward structure; if the structure-only one does and the best GNN does
not, the task rewards structure and the best GNN, given graph and features, does not beat the features alone.
The best of each group is chosen on the test values its test then uses: the p-values do not account for
that selection (REPORT.md says so).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .. import stats

BASELINE_MODES = ("separate", "include")
STRUCTURE_FREE = "structure_free"
#: the baseline kind that scores from the graph alone (the link heuristics)
STRUCTURE_ONLY = "heuristic"
#: per-task verdicts of :func:`comparison`
VERDICTS = ("gnn_better", "baseline_better", "not_significant", "no_comparison")


def baseline_models(cells: Mapping[str, Mapping[str, Mapping]]) -> dict[str, str]:
    """``{model: baseline kind}`` of the models whose cell facts name a ``baseline_kind`` (first seen)."""
    out: dict[str, str] = {}
    for by_model in cells.values():
        for model, facts in by_model.items():
            if facts.get("baseline_kind") and model not in out:
                out[model] = facts["baseline_kind"]
    return out


def ranked_models(models: Sequence[str], kinds: Mapping[str, str], mode: str) -> list[str]:
    """The models the across-task analysis considers: every model (``include``) or those under test."""
    return list(models) if mode == "include" else [m for m in models if m not in kinds]


def _best(by_model: Mapping[str, np.ndarray], names: list[str], direction: str) -> str | None:
    means = {m: float(np.nanmean(by_model[m])) for m in names}
    if not means:
        return None
    pick = max if direction == "higher" else min
    return pick(means, key=means.get)  # the first of tied models, in roster order


def _test(a: np.ndarray, b: np.ndarray, method: str) -> dict:
    r = stats.paired_test(a, b, method=method)
    return {"mean_diff": r.mean_diff, "p_raw": r.p_value, "n_seeds": r.n, "degenerate": r.degenerate}


def _favours(mean_diff: float, significant: bool, direction: str) -> bool | None:
    """True when a significant ``a - b`` favours ``a`` under ``direction``, False for ``b``, None if not significant."""
    if not significant or mean_diff == 0:
        return None
    return (mean_diff > 0) == (direction == "higher")


def comparison(final: Mapping[str, Mapping[str, np.ndarray]], directions: Mapping[str, str],
               kinds: Mapping[str, str], *, method: str, alpha: float) -> list[dict]:
    """Per task: the best GNN against the best baseline (and the best structure-free baseline).

    Rows ``task, direction, best_gnn, gnn_mean, best_baseline, baseline_kind, baseline_mean,
    mean_diff`` (GNN − baseline), ``p_raw, p_holm, n_seeds, degenerate, significant, verdict``
    (:data:`VERDICTS`), ``structure_free`` (the best structure-free baseline or None),
    ``structure_p_holm`` and ``rewards_structure`` (True: the best GNN beats it significantly; False:
    it does not; None: no structure-free baseline), ``structure_free_better`` (the structure-free
    baseline is significantly better than the best GNN), ``structure_only`` (the best structure-only
    baseline or None), ``structure_only_p_holm`` and ``structure_only_beats_free`` (it beats the best
    structure-free baseline significantly; None without both), ``structure_free_beats_only`` (the reverse),
    ``method`` and ``note``. The task does
    not reward structure when ``rewards_structure`` and ``structure_only_beats_free`` are both not
    True (module docstring). A task without a GNN or without a baseline result has
    ``verdict = "no_comparison"``.
    """
    rows = []
    for task, by_model in final.items():
        direction = directions[task]
        present = [m for m, v in by_model.items() if np.isfinite(v).any()]
        gnn = _best(by_model, [m for m in present if m not in kinds], direction)
        base = _best(by_model, [m for m in present if m in kinds], direction)
        free = _best(by_model, [m for m in present if kinds.get(m) == STRUCTURE_FREE], direction)
        only = _best(by_model, [m for m in present if kinds.get(m) == STRUCTURE_ONLY], direction)
        row = {"task": task, "direction": direction, "best_gnn": gnn, "best_baseline": base,
               "baseline_kind": kinds.get(base), "structure_free": free, "method": method,
               "gnn_mean": float(np.nanmean(by_model[gnn])) if gnn else None,
               "baseline_mean": float(np.nanmean(by_model[base])) if base else None,
               "mean_diff": None, "p_raw": None, "p_holm": None, "n_seeds": 0, "degenerate": False,
               "significant": False, "verdict": "no_comparison", "structure_p_holm": None,
               "rewards_structure": None, "structure_free_better": False, "structure_only": only,
               "structure_only_p_holm": None, "structure_only_beats_free": None,
               "structure_free_beats_only": None, "note": ""}
        if gnn is None or base is None:
            row["note"] = "no result of a model under test" if gnn is None else "no baseline result"
            rows.append(row)
            continue
        tests = [_test(by_model[gnn], by_model[base], method)]
        if free is not None and free != base:
            tests.append(_test(by_model[gnn], by_model[free], method))
        if free is not None and only is not None:  # does the graph alone beat the features alone?
            tests.append(_test(by_model[only], by_model[free], method))
        adjusted = [float(p) for p in stats.holm([t["p_raw"] for t in tests])]
        main = tests[0]
        significant = bool(np.isfinite(adjusted[0]) and adjusted[0] < alpha)
        favours = _favours(main["mean_diff"], significant, direction)
        row.update(main, p_holm=adjusted[0], significant=significant,
                   verdict={True: "gnn_better", False: "baseline_better", None: "not_significant"}[favours])
        if free is not None:
            k = 0 if free == base else 1
            beats = _favours(tests[k]["mean_diff"], bool(np.isfinite(adjusted[k]) and adjusted[k] < alpha),
                             direction)
            row["structure_p_holm"], row["rewards_structure"] = adjusted[k], beats is True
            row["structure_free_better"] = beats is False
            if only is not None:
                row["structure_only_p_holm"] = adjusted[-1]
                only_wins = _favours(tests[-1]["mean_diff"], bool(np.isfinite(adjusted[-1]) and adjusted[-1] < alpha),
                                     direction)
                row["structure_only_beats_free"], row["structure_free_beats_only"] = only_wins is True, only_wins is False
        if main["degenerate"]:
            row["note"] = "zero spread of the paired differences: exact sign test (or no test when all are zero)"
        rows.append(row)
    return rows
