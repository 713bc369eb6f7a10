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
import signal
import sys
import time
import traceback

#: progress queue of this worker process (set by :func:`init_worker`)
_PROGRESS = None


class SeedTimeout(Exception):
    """The seed ran past ``exec.timeout_s``."""


def init_worker(progress_queue=None) -> None:
    """Pool initializer: remember the queue on which epochs are reported."""
    global _PROGRESS
    _PROGRESS = progress_queue


def _report(job_index: int, epoch: int) -> None:
    if _PROGRESS is not None:
        try:
            _PROGRESS.put_nowait((job_index, epoch))
        except Exception:  # noqa: BLE001 - progress is best effort, never fatal
            pass


def _on_alarm(signum, frame):
    raise SeedTimeout("timeout")


def apply_limits(timeout_s: float | None, max_rss_gb: float | None) -> None:
    """Per-process limits: a SIGALRM timer and an address-space cap on data (``RLIMIT_DATA``)."""
    if timeout_s:
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, float(timeout_s))
    if max_rss_gb:
        cap = int(float(max_rss_gb) * 1024**3)
        resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))


def resolve_device(requested: str):
    """``auto`` -> CUDA when present, else CPU; ``cuda`` without a GPU is a clear error."""
    import torch

    if requested == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if requested == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("exec.device is 'cuda' but no CUDA device is available (use 'auto' or 'cpu')")
    return torch.device(requested)


def set_seed(seed: int) -> None:
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux reports KiB


def fit_seed(spec, family: str, split: str, arrays: dict, seed: int, hp: dict, device="cpu",
             on_epoch=None) -> dict:
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

    fit = train(family, split, build, arrays, seed, Hyper(**hp), device=device, on_epoch=on_epoch)
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
    """Train ``job['seed']`` and return ``{status, history, epochs, seconds, num_params, peak_rss_mb,
    started_at, finished_at}`` (the last two: Unix times, from which the report measures elapsed time).

    Any exception is caught and returned as ``{"status": "failed", "error": ...}``
    so one bad seed never stops the sweep.
    """
    started = time.time()
    result = _run_seed(job)
    result["started_at"], result["finished_at"] = started, time.time()
    return result


def _run_seed(job: dict) -> dict:
    t0 = time.perf_counter()
    try:
        if job.get("cwd") and os.path.isdir(job["cwd"]):  # not on a remote Ray node
            os.chdir(job["cwd"])
        for entry in reversed(job.get("sys_path") or []):
            if entry not in sys.path:
                sys.path.insert(0, entry)
        from .executor import huge_page_allocations

        huge_page_allocations()  # a Ray worker imports torch here first; a pool worker already has it
        import torch

        torch.set_num_threads(int(job["threads"]))
        apply_limits(job.get("timeout_s"), job.get("max_rss_gb"))
        from ..catalog.data import load_arrays_for_seed
        from ..models.registry import resolve_model

        spec = resolve_model(job["model_ref"], job.get("model_args") or {})
        if job.get("data_bytes") is not None:  # shipped by the Ray executor
            import io

            import numpy as np

            with np.load(io.BytesIO(job["data_bytes"]), allow_pickle=False) as npz:
                arrays = {name: npz[name] for name in npz.files}
        else:
            arrays = load_arrays_for_seed(job["data_dir"], job["seed"], job.get("meta"))
        index = job.get("job_index", 0)
        result = fit_seed(spec, job["family"], job["split"], arrays, job["seed"], job["hp"],
                          device=resolve_device(job.get("device", "cpu")),
                          on_epoch=lambda epoch: _report(index, epoch))
        result["seconds"] = time.perf_counter() - t0
        return result
    except SeedTimeout:
        return {**failure(SeedTimeout(f"stopped after exec.timeout_s = {job.get('timeout_s')} s"), t0),
                "error": f"timeout: stopped after exec.timeout_s = {job.get('timeout_s')} s"}
    except MemoryError as exc:
        return {**failure(exc, t0), "error": f"memory limit: exec.max_rss_gb = {job.get('max_rss_gb')} exceeded ({exc})"}
    except RuntimeError as exc:
        if "allocate" in str(exc) and job.get("max_rss_gb"):
            return {**failure(exc, t0),
                    "error": f"memory limit: exec.max_rss_gb = {job.get('max_rss_gb')} exceeded ({str(exc)[:200]})"}
        return failure(exc, t0)
    except Exception as exc:  # recorded, never raised: the sweep goes on
        return failure(exc, t0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
