"""The optional inner hyperparameter search of a cell.

For every (task, model, seed), each candidate configuration is trained with
the same seed and the candidate with the best *validation* headline metric
at the final evaluated epoch is selected (ties: the earlier candidate; a
failed candidate or a NaN score never wins). The held-out series of the
selected candidate becomes the seed's history; the whole trace goes into the
run record. The search space covers ``lr``, ``weight_decay`` and
``hidden_channels``; ``grid`` takes every combination, ``random`` takes ``n``
of them without replacement, drawn with ``search.seed``. An empty space is
the unsearched protocol, exactly.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

SEARCHABLE = ("lr", "weight_decay", "hidden_channels")


def candidates(search: dict | None) -> list[dict]:
    """The candidate overrides of the search (``[]`` when there is no search)."""
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
    return "val_" + headline_metric.split("_", 1)[1]


def select(results: list[dict], headline_metric: str, direction: str) -> tuple[int | None, list[dict]]:
    """Index of the winning candidate (or None if every candidate failed) and the trace."""
    val_key = validation_series(headline_metric)
    trace, best, best_score = [], None, None
    for i, res in enumerate(results):
        score = math.nan
        if res.get("status") == "ok":
            series = res["history"].get(val_key) or []
            if series and series[-1] is not None:
                score = float(series[-1])
        trace.append({"candidate": i, "status": res.get("status"), "val_score": score})
        if math.isnan(score):
            continue
        signed = score if direction == "higher" else -score
        if best_score is None or signed > best_score:
            best, best_score = i, signed
    return best, trace


def validate_search(search: dict) -> None:
    """Raise ValueError naming the problem in a ``search`` block."""
    from ..params import ParamsError

    space = search.get("space") or {}
    if not isinstance(space, dict):
        raise ParamsError(f"params.yaml: `search.space` must be a mapping, got {space!r}")
    unknown = sorted(set(space) - set(SEARCHABLE))
    if unknown:
        raise ParamsError(f"params.yaml: `search.space` has unknown keys {unknown}; searchable: {list(SEARCHABLE)}")
    for key, values in space.items():
        if not isinstance(values, list) or not values:
            raise ParamsError(f"params.yaml: `search.space.{key}` must be a non-empty list, got {values!r}")
        for v in values:
            ok = (isinstance(v, (int, float)) and not isinstance(v, bool)
                  and (v > 0 if key != "weight_decay" else v >= 0)
                  and (isinstance(v, int) if key == "hidden_channels" else True))
            if not ok:
                raise ParamsError(f"params.yaml: `search.space.{key}` has an invalid value {v!r}")
    method = search.get("method", "grid")
    if method not in ("grid", "random"):
        raise ParamsError(f"params.yaml: `search.method` must be one of ['grid', 'random'], got {method!r}")
    if method == "random" and space:
        n = search.get("n")
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ParamsError(f"params.yaml: `search.n` must be a positive integer for random search, got {n!r}")
