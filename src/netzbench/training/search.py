"""The optional inner hyperparameter search of a cell.

For every (task, model, seed), each *trial* (one configuration of the
space) is trained with the same seed and the trial with the best
*validation* headline metric at the final evaluated epoch is selected (ties:
the earlier trial; a failed trial or a NaN score never wins). The held-out
series of the selected trial becomes the seed's history; the whole trace goes into the
run record. The search space covers ``lr``, ``weight_decay`` and
``hidden_channels``; ``grid`` takes every combination, ``random`` takes ``n``
of them without replacement, drawn with ``search.seed``. An empty space is
the unsearched protocol, exactly. The block is validated by
:func:`netzbench.params.validate_search`.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .. import families


def trials(search: dict | None) -> list[dict]:
    """The hyperparameter overrides of the search's trials (``[]`` when there is no search)."""
    space = (search or {}).get("space") or {}
    if not space:
        return []
    keys = sorted(space)
    grid = [dict(zip(keys, values)) for values in itertools.product(*(space[k] for k in keys))]
    if search.get("method", "grid") == "random":
        n = int(search["n"])
        rng = np.random.default_rng(int(search.get("seed", 0)))
        picked = np.sort(rng.choice(len(grid), size=min(n, len(grid)), replace=False))
        grid = [grid[i] for i in picked]
    return grid


def validation_series(headline_metric: str) -> str:
    return families.validation_series(headline_metric) or "val_" + headline_metric.split("_", 1)[1]


def select(results: list[dict], headline_metric: str, direction: str) -> tuple[int | None, list[dict]]:
    """Index of the winning trial (or None if every trial failed) and the trace."""
    val_key = validation_series(headline_metric)
    trace, best, best_score = [], None, None
    for i, res in enumerate(results):
        score = math.nan
        if res.get("status") == "ok":
            series = res["history"].get(val_key) or []
            if series and series[-1] is not None:
                score = float(series[-1])
        trace.append({"trial": i, "status": res.get("status"), "val_score": score})
        if math.isnan(score):
            continue
        signed = score if direction == "higher" else -score
        if best_score is None or signed > best_score:
            best, best_score = i, signed
    return best, trace
