"""Flagged cells: what a constant predictor scores, and the cells whose number does not measure a model.

Each run record's seeds carry ``baseline`` -- what a constant predictor
scores on that seed's test set: the majority class's share
(``test_majority_acc``), 0.5 ROC-AUC (``test_constant_auc``), the MRR of
tied ranks (``test_constant_mrr``) or the MAE of the training mean
(``test_constant_mae``); the report shows the one of the headline's metric --, a ``test_constant`` series (1
at an epoch where every test prediction was the same), a ``test_distinct``
series (how many distinct test predictions there were: classes predicted,
predicted values or link scores) and ``leakage`` (the training channels a
held-out edge reached; :mod:`netzbench.training.leakage`). Three flags, each
counted per seed and raised per cell:

- *collapsed*: predictions constant at the reported epoch in more than half
  of the seeds; the score is then the baseline's, not a model's.
- *degenerate*: in more than half of the seeds, the headline does not move
  over training -- ``max - min <= RESOLUTION`` over every evaluated epoch up
  to the reported one, at least two of them (a heuristic's single evaluation,
  a one-epoch run or a first-epoch selection never count) -- or the test
  predictions take fewer than :data:`FEW_DISTINCT` distinct values at the
  reported epoch. A score-valued task (link prediction, regression) ranked by
  a handful of tied values measures ties, not a model; a classifier predicts
  a handful of classes by nature, so classification counts only constant
  predictions (``test_distinct <= 1``).
- *leakage*: a seed recorded a non-empty ``leakage``: the cell saw held-out
  edges in training, and its score is not a held-out score.

A classification task scored by ROC-AUC (a binary node task whose dataset is
scored so, :func:`netzbench.families.headline`) is judged on its scores, not
its predicted classes: a model that predicts the majority class everywhere can
still rank the nodes well. Its predictions are the ``test_distinctscores``
series: collapsed where there is one distinct test score, degenerate (as any
score-valued task) with fewer than :data:`FEW_DISTINCT`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ..stats import RESOLUTION
from .series import metric_label

COLLAPSE_SERIES = "test_constant"
DISTINCT_SERIES = "test_distinct"
#: the distinct test scores of a classifier whose headline ranks by score (ROC-AUC)
SCORE_DISTINCT_SERIES = "test_distinctscores"
#: fewer distinct test predictions than this at the reported epoch: a score-valued cell ranks by ties
FEW_DISTINCT = 5
#: the families whose predictions are classes (distinct counts flag only a constant classifier)
CLASSIFICATION = ("node_cls", "graph_cls")
#: the flags, in the order REPORT.md and ``metrics/report.json`` list them
FLAGS = ("collapsed", "degenerate", "leakage")


def baseline_name(metric: str, names) -> str | None:
    """The constant predictor's series that scores ``metric`` (``test_mrr`` -> ``test_constant_mrr``,
    ``test_acc`` -> ``test_majority_acc``); ``None`` where no recorded series measures that metric (a
    ROC-AUC is no reference for an MRR)."""
    rest = metric.partition("_")[2]  # test_full_mrr -> test_constant_full_mrr, before any other *_mrr
    exact = sorted(n for n in names if n in (f"test_constant_{rest}", f"test_majority_{rest}"))
    if exact:
        return exact[0]
    suffix = metric.rsplit("_", 1)[-1]
    return next((n for n in sorted(names) if n.rsplit("_", 1)[-1] == suffix), None)


def baselines(cells: Mapping, metrics: Mapping[str, str]) -> dict[str, dict]:
    """Per task: ``{name, value}``, the constant predictor's test score averaged over the seeds
    (every model of a task shares its splits, so any cell that recorded it serves), in the series of the
    task's headline metric (``metrics``: task -> metric); a task without one is left out."""
    out = {}
    for task, by_model in cells.items():
        per_seed: dict[str, dict] = {}
        for cell in by_model.values():
            for seed, fact in (cell.get("seeds") or {}).items():
                if fact.get("baseline"):
                    per_seed.setdefault(seed, fact["baseline"])
        names = sorted({k for b in per_seed.values() for k in b})
        name = baseline_name(metrics[task], names) if task in metrics else None
        if name:
            values = [b[name] for b in per_seed.values() if b.get(name) is not None]
            out[task] = {"name": name, "value": float(np.mean(values)) if values else math.nan}
    return out


def below_constant(nested: Mapping, baselines: Mapping, task_info: Mapping, tasks) -> list[dict]:
    """The cells whose whole interval lies on the wrong side of the constant predictor's score (``baselines``):
    the model orders the test items worse than one score for all of them would. ``{task, model, mean,
    constant}`` per such cell of ``nested`` (``{task: {model: cell}}``), in ``tasks`` order; a task without a
    finite constant score and a cell without a finite interval are never listed."""
    out = []
    for t in tasks:
        base = baselines.get(t)
        if not base or not math.isfinite(base["value"]):
            continue
        lower = task_info[t].direction == "lower"
        for m, r in nested.get(t, {}).items():
            if r["n_seeds"] == 0 or not (math.isfinite(r["lo"]) and math.isfinite(r["hi"])):
                continue
            if (r["lo"] > base["value"]) if lower else (r["hi"] < base["value"]):
                out.append({"task": t, "model": m, "mean": r["mean"], "constant": base["value"]})
    return out


def scored_by_rank(info) -> bool:
    """Whether a classification task's headline ranks its test items by score (ROC-AUC): its
    predictions are then the scores (``test_distinctscores``), not the classes (module docstring)."""
    return info is not None and info.family in CLASSIFICATION and info.metric.rsplit("_", 1)[-1] == "auc"


def _constant_series(h: Mapping, by_scores: bool) -> list | None:
    """Per evaluated epoch, 1 where every test prediction was the same (classes, or scores when ``by_scores``)."""
    if not by_scores:
        return h.get(COLLAPSE_SERIES)
    distinct = h.get(SCORE_DISTINCT_SERIES)
    return None if distinct is None else [None if d is None or d != d else float(d <= 1) for d in distinct]


def collapsed(histories: Mapping, indices: Mapping, task_info: Mapping | None = None) -> list[dict]:
    """Cells whose test predictions were constant at the selected epoch in more than half of their
    seeds: ``{task, model, n_constant, n_seeds}``. With ``task_info``, a classification task scored by
    ROC-AUC is judged on its test scores (:func:`scored_by_rank`)."""
    out = []
    for task, by_model in histories.items():
        by_scores = scored_by_rank((task_info or {}).get(task))
        for model, runs in by_model.items():
            series = [(_constant_series(h, by_scores) if h else None, i) for h, i in zip(runs, indices[task][model])]
            flags = [c[i] for c, i in series if c and i is not None and i < len(c)]
            n_constant = sum(1 for f in flags if f is not None and f == f and f >= 0.5)
            if flags and n_constant * 2 > len(flags):
                out.append({"task": task, "model": model, "n_constant": n_constant, "n_seeds": len(flags)})
    return out


def _classifies(info) -> bool:
    """Whether a task's predictions are classes: its family, else (hand-built) an accuracy/F1 headline."""
    if info.family is not None:
        return info.family in CLASSIFICATION
    return info.metric.split("_")[-1] in ("acc", "accuracy", "f1")


def headline_flat(values, index: int) -> bool:
    """True when ``values[:index + 1]`` (the headline up to the reported epoch) holds at least two finite
    values and they span at most :data:`~netzbench.stats.RESOLUTION`: the metric did not move in training."""
    seen = np.asarray([v for v in values[:index + 1] if v is not None], dtype=float)
    seen = seen[np.isfinite(seen)]
    return seen.size >= 2 and float(seen.max() - seen.min()) <= RESOLUTION


def few_distinct(values, index: int, classifies: bool) -> float | None:
    """The distinct test predictions at the reported epoch when they are too few (fewer than
    :data:`FEW_DISTINCT`, or at most one for a classifier), else None (also when not recorded)."""
    if values is None or index >= len(values) or values[index] is None or not math.isfinite(values[index]):
        return None
    n = float(values[index])
    return n if n <= (1 if classifies else FEW_DISTINCT - 1) else None


def degenerate(histories: Mapping, indices: Mapping, task_info: Mapping) -> list[dict]:
    """Cells degenerate in more than half of their seeds with a value (see the module docstring):
    ``{task, model, n_flat, n_few_distinct, n_degenerate, n_seeds, distinct_median, reason}``, where
    ``n_degenerate`` counts the seeds with either sign and ``distinct_median`` is the median count of the
    seeds with too few distinct predictions (None when none)."""
    out = []
    for task, by_model in histories.items():
        info = task_info[task]
        by_scores = scored_by_rank(info)
        classifies = _classifies(info) and not by_scores
        distinct_series = SCORE_DISTINCT_SERIES if by_scores else DISTINCT_SERIES
        for model, runs in by_model.items():
            n_seeds, n_either, flat, few = 0, 0, 0, []
            for h, i in zip(runs, indices[task][model]):
                if not h or i is None or info.metric not in h:
                    continue
                n_seeds += 1
                is_flat = headline_flat(h[info.metric], i)
                distinct = few_distinct(h.get(distinct_series), i, classifies)
                flat += is_flat
                if distinct is not None:
                    few.append(distinct)
                n_either += is_flat or distinct is not None
            if n_seeds and n_either * 2 > n_seeds:
                median = float(np.median(few)) if few else None
                out.append({"task": task, "model": model, "n_flat": flat, "n_few_distinct": len(few),
                            "n_degenerate": n_either, "n_seeds": n_seeds, "distinct_median": median,
                            "reason": _degenerate_reason(info, flat, len(few), median, n_either, n_seeds, classifies)})
    return out


def _degenerate_reason(info, flat: int, few: int, median, n: int, n_seeds: int, classifies: bool) -> str:
    parts = []
    if flat:
        parts.append(f"{metric_label(info.metric)} the same at every evaluated epoch ({flat} seeds)")
    if few:
        what = "one class predicted for every test item" if classifies else \
            f"fewer than {FEW_DISTINCT} distinct test predictions (median {median:g})"
        parts.append(f"{what} ({few} seeds)")
    return f"degenerate in {n} of {n_seeds} seeds: " + "; ".join(parts)


def leakage(cells: Mapping) -> list[dict]:
    """Cells with an ok seed whose ``leakage`` names a channel: ``{task, model, channels, n_leaking, n_seeds,
    reason}``, channels in the order the seeds recorded them, ``n_seeds`` the ok seeds that recorded leakage
    at all (an empty list included)."""
    out = []
    for task, by_model in cells.items():
        for model, cell in by_model.items():
            recorded = [f["leakage"] for f in (cell.get("seeds") or {}).values()
                        if f.get("status", "ok") == "ok" and f.get("leakage") is not None]
            leaking = [channels for channels in recorded if channels]
            if leaking:
                channels = list(dict.fromkeys(c for chans in leaking for c in chans))
                out.append({"task": task, "model": model, "channels": channels, "n_leaking": len(leaking),
                            "n_seeds": len(recorded),
                            "reason": f"sees held-out edges ({', '.join(channels)}) in {len(leaking)} of "
                                      f"{len(recorded)} seeds"})
    return out


def cell_flags(collapsed_rows: list[dict], degenerate_rows: list[dict], leakage_rows: list[dict]
               ) -> dict[tuple[str, str], dict[str, dict]]:
    """Per flagged (task, model): ``{flag: {reason, n_flagged, n_seeds, ...}}`` in :data:`FLAGS` order."""
    out: dict[tuple[str, str], dict[str, dict]] = {}
    for c in collapsed_rows:
        out.setdefault((c["task"], c["model"]), {})["collapsed"] = {
            "reason": f"test predictions constant at the reported epoch in {c['n_constant']} of {c['n_seeds']} seeds",
            "n_flagged": c["n_constant"], "n_seeds": c["n_seeds"]}
    for d in degenerate_rows:
        out.setdefault((d["task"], d["model"]), {})["degenerate"] = {
            "reason": d["reason"], "n_flagged": d["n_degenerate"], "n_seeds": d["n_seeds"], "n_flat": d["n_flat"],
            "n_few_distinct": d["n_few_distinct"], "distinct_median": d["distinct_median"]}
    for r in leakage_rows:
        out.setdefault((r["task"], r["model"]), {})["leakage"] = {
            "reason": r["reason"], "n_flagged": r["n_leaking"], "n_seeds": r["n_seeds"], "channels": r["channels"]}
    return {key: {k: flags[k] for k in FLAGS if k in flags} for key, flags in out.items()}
