"""Degenerate cells: what a constant predictor scores, and which models collapsed to one.

Each run record's seeds carry ``baseline`` -- what a constant predictor
scores on that seed's test set: the majority class's share
(``test_majority_acc``), 0.5 ROC-AUC (``test_constant_auc``) or the MAE of
the training mean (``test_constant_mae``) -- and a ``test_constant`` series,
1 at an epoch where every test prediction was the same. A cell is
*collapsed* when its predictions were constant at the reported epoch in more
than half of its seeds: its score is then the baseline's, not a model's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

COLLAPSE_SERIES = "test_constant"


def baselines(cells: Mapping) -> dict[str, dict]:
    """Per task: ``{name, value}``, the constant predictor's test score averaged over the seeds
    (every model of a task shares its splits, so any cell that recorded it serves)."""
    out = {}
    for task, by_model in cells.items():
        per_seed: dict[str, dict] = {}
        for cell in by_model.values():
            for seed, fact in (cell.get("seeds") or {}).items():
                if fact.get("baseline"):
                    per_seed.setdefault(seed, fact["baseline"])
        names = sorted({k for b in per_seed.values() for k in b})
        if names:
            values = [b[names[0]] for b in per_seed.values() if b.get(names[0]) is not None]
            out[task] = {"name": names[0], "value": float(np.mean(values)) if values else math.nan}
    return out


def collapsed(histories: Mapping, indices: Mapping) -> list[dict]:
    """Cells whose test predictions were constant at the selected epoch in more than half of their
    seeds: ``{task, model, n_constant, n_seeds}``."""
    out = []
    for task, by_model in histories.items():
        for model, runs in by_model.items():
            flags = [h[COLLAPSE_SERIES][i] for h, i in zip(runs, indices[task][model])
                     if h and i is not None and h.get(COLLAPSE_SERIES) and i < len(h[COLLAPSE_SERIES])]
            n_constant = sum(1 for f in flags if f is not None and f == f and f >= 0.5)
            if flags and n_constant * 2 > len(flags):
                out.append({"task": task, "model": model, "n_constant": n_constant, "n_seeds": len(flags)})
    return out
