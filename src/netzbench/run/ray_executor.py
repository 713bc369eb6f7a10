"""Running seed jobs as Ray tasks (``exec.executor: ray``).

Each job (a seed, or a seed x search trial) becomes one Ray task with
its own CPU request (``exec.threads``) and, when the resolved device is
CUDA, a share of a GPU (``1 / exec.workers``: that many seeds share one; Ray
sets the task's ``CUDA_VISIBLE_DEVICES``, recorded as its ``cuda_device``), on the cluster named by ``exec.ray_address`` or ``RAY_ADDRESS`` (a
local Ray instance when neither is set). Processed data is shipped through
Ray's object store, so workers need no shared filesystem, only the same
Python environment (netzbench installed, user models importable).

- Results are identical to the local executor, seed for seed: the task runs
  the same ``run_seed`` in a fresh worker process (``max_calls=1``; Ray starts
  it, it is no fork of the driver, so CUDA works there) with the same thread
  pinning.
- A worker that dies is retried by Ray (``MAX_RETRIES``); an exception in
  training is not retried: it is a deterministic failure, recorded as
  ``failed`` with its error.
- Each result is handed back as soon as it is ready (``ray.wait``), so the
  driver stores it in the per-seed cache immediately: an interrupted sweep
  loses no finished seed.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from ..settings import Execution
from .arithmetic import PORTABLE_ENV
from .device import CUBLAS_WORKSPACE
from .job import Job
from .worker import MAX_RETRIES

INSTALL_HINT = "exec.executor is 'ray' but Ray is not installed: pip install 'netzbench[ray]'"


def _ray():
    try:
        import ray
    except ImportError as exc:
        raise RuntimeError(INSTALL_HINT) from exc
    return ray


def connect(execution: Execution):
    """Connect to the configured cluster (or start a local instance) and return the ray module."""
    ray = _ray()
    if not ray.is_initialized():
        address = execution.ray_address or os.environ.get("RAY_ADDRESS") or None
        ray.init(address=address, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    return ray


def _remote_run(job: Job, data_bytes: bytes | None) -> dict:
    from .worker import run_seed

    if data_bytes is not None:  # resolved by Ray from the object store: the data without a shared filesystem
        job = replace(job, data_bytes=data_bytes)
    return run_seed(job)


def task_options(job: Job, execution: Execution) -> dict:
    """The Ray resources and environment of ``job``'s task: its threads as CPUs; on CUDA ``1 / exec.workers``
    of a GPU (several seeds share one) and cuBLAS's deterministic workspace; the portable arithmetic's
    variables, set in the worker before it imports torch."""
    options: dict = {"num_cpus": int(job.threads)}
    env = dict(PORTABLE_ENV) if job.arithmetic == "portable" else {}
    if job.device == "cuda":
        share = int(execution.workers or 1)
        options["num_gpus"] = 1.0 / max(1, share)
        env["CUBLAS_WORKSPACE_CONFIG"] = CUBLAS_WORKSPACE
    if env:
        options["runtime_env"] = {"env_vars": env}
    return options


def run_jobs_ray(jobs: list[Job], execution: Execution, on_result, on_epochs=None) -> None:
    """Submit every job at once; call ``on_result(job, result)`` as each one finishes."""
    ray = connect(execution)
    remote = ray.remote(max_calls=1, max_retries=MAX_RETRIES, retry_exceptions=False)(_remote_run)
    shipped: dict[str, object] = {}
    pending = {}
    for i, job in enumerate(jobs):
        job = job.placed(i)
        ref = None
        if not job.meta.get("synthetic"):
            path = str(Path(job.data_dir) / "graph.npz")
            if path not in shipped:
                shipped[path] = ray.put(Path(path).read_bytes())
            ref = shipped[path]
        pending[remote.options(**task_options(job, execution)).remote(job, ref)] = job
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            job = pending.pop(ref)
            try:
                result = ray.get(ref)
            except Exception as exc:  # noqa: BLE001 - retries exhausted: the worker kept dying
                result = {"status": "failed", "seconds": 0.0,
                          "error": f"Ray task failed after {MAX_RETRIES} retries: {type(exc).__name__}: {exc}"}
            on_result(job, result)
