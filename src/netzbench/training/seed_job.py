"""Training one seed of one cell: the unit of work a worker process runs.

A job is a plain dict (picklable, JSON-able); the result is a plain dict that
goes into the run record under its seed. Everything random is seeded from the
job's seed: python, numpy, torch (model init, dropout) and, through
:mod:`netzbench.training.splits`, every split and negative sample.
"""

from __future__ import annotations

import os
import random
import resource
import sys
import time
import traceback


def set_seed(seed: int) -> None:
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux reports KiB


def fit_seed(spec, family: str, split: str, arrays: dict, seed: int, hp: dict) -> dict:
    """Train one seed of ``spec`` on ``arrays``; the result dict of a finished seed (raises on error)."""
    from ..models.registry import build_model
    from .loops import Hyper, train

    t0 = time.perf_counter()
    if split == "auto":  # a custom task without a declared split: chosen from the data
        from ..catalog.convert import default_split

        split = default_split(family, arrays)
    set_seed(seed)
    num_relations = None
    if split == "relational_canonical":
        num_relations = int(arrays["num_relations"].reshape(-1)[0])

    def build(i, h, o):
        return build_model(spec, family, i, h, o, num_relations=num_relations)

    fit = train(family, split, build, arrays, seed, Hyper(**hp))
    return {
        "status": "ok",
        "history": fit.history,
        "epochs": fit.epochs,
        "seconds": time.perf_counter() - t0,
        "num_params": fit.num_params,
        "peak_rss_mb": _peak_rss_mb(),
    }


def failure(exc: BaseException, t0: float) -> dict:
    return {
        "status": "failed",
        "error": f"{type(exc).__name__}: {exc}",
        "traceback": traceback.format_exc(limit=20),
        "seconds": time.perf_counter() - t0,
    }


def run_seed(job: dict) -> dict:
    """Train ``job['seed']`` and return ``{status, history, epochs, seconds, num_params, peak_rss_mb}``.

    Any exception is caught and returned as ``{"status": "failed", "error": ...}``
    so one bad seed never stops the sweep.
    """
    t0 = time.perf_counter()
    try:
        if job.get("cwd"):
            os.chdir(job["cwd"])
        for entry in reversed(job.get("sys_path") or []):
            if entry not in sys.path:
                sys.path.insert(0, entry)
        import torch

        torch.set_num_threads(int(job["threads"]))
        from ..catalog.data import load_arrays_for_seed
        from ..models.registry import resolve_model

        spec = resolve_model(job["model_ref"], job.get("model_args") or {})
        arrays = load_arrays_for_seed(job["data_dir"], job["seed"], job.get("meta"))
        result = fit_seed(spec, job["family"], job["split"], arrays, job["seed"], job["hp"])
        result["seconds"] = time.perf_counter() - t0
        return result
    except Exception as exc:  # recorded, never raised: the sweep goes on
        return failure(exc, t0)
