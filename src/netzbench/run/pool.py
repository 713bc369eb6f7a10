"""The local executor: a process pool on this machine, with limits, crash retries and progress.

- Each job runs in a fresh worker process forked from a server that has
  torch preloaded, pinned to ``exec.threads`` intra-op threads, so results
  do not depend on how many run at once. The server is the warm one shared
  by the stages of a pipeline (:mod:`.warm`, ``exec.warm_s``) or, with that
  off or unavailable, this process's own ``forkserver``.
- ``exec.timeout_s`` stops a job (SIGALRM in the worker) and ``exec.max_rss_gb``
  caps its memory (``RLIMIT_DATA``: an allocation past it fails instead of
  waking the kernel's OOM killer); either way the job is recorded as
  ``failed`` with the reason and the sweep goes on.
- A worker that dies (killed, segfault) breaks the pool; the jobs it took
  down are retried one by one in their own process, at most
  ``MAX_RETRIES`` times, so a job that crashes deterministically is
  recorded as failed without taking innocent jobs with it.
- Workers report finished epochs on a queue; the parent shows one progress
  bar in epochs (rate and ETA) for the cell.
"""

from __future__ import annotations

import multiprocessing
import os
import queue as queue_mod
import sys
import threading
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

from .worker import MAX_RETRIES, died_result, huge_page_allocations, init_worker, run_seed

_CONTEXT = None


def _arithmetic_env() -> tuple:
    from .arithmetic import PORTABLE_ENV

    return tuple(os.environ.get(k) for k in PORTABLE_ENV)


def pool_context():
    """The forkserver context (torch preloaded), started once per process with the environment of
    the first pool. Torch fixes its kernels when it is imported, so a later pool under another
    arithmetic mode cannot use that server: it gets fresh (spawned) workers instead."""
    global _CONTEXT
    if _CONTEXT is None:
        huge_page_allocations()  # before the server starts: workers inherit the environment
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        _CONTEXT = (multiprocessing.get_context(method), _arithmetic_env())
        if method == "forkserver":
            _CONTEXT[0].set_forkserver_preload(["netzbench.run.preload"])
    ctx, env = _CONTEXT
    return ctx if env == _arithmetic_env() else multiprocessing.get_context("spawn")


class _ProgressPump:
    """Drains (job_id, epochs_done) messages from workers into a callback."""

    def __init__(self, ctx, on_epochs):
        self.queue = ctx.Queue()
        self.on_epochs = on_epochs
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            try:
                msg = self.queue.get(timeout=0.2)
            except (queue_mod.Empty, EOFError, OSError):
                continue
            self.on_epochs(*msg)

    def close(self):
        self._stop.set()
        self._thread.join(timeout=2)
        self.queue.close()


def run_jobs(jobs: list[dict], workers: int, on_result, on_epochs=None, *, warm_s: float = 0.0) -> None:
    """Run ``jobs`` on ``workers`` processes; ``on_result(job, result)`` as each ends,
    ``on_epochs(job_index, epochs_done)`` as workers progress. With ``warm_s`` > 0 the processes
    are children of the warm server (:mod:`.warm`, kept ``warm_s`` seconds after its last seed);
    jobs it cannot take run in this process's own pool."""
    if not jobs:
        return
    for i, job in enumerate(jobs):
        job["job_index"] = i
    if warm_s > 0:
        from .warm import WarmUnavailable, run_jobs_warm

        huge_page_allocations()  # the server's environment, like the forkserver's
        try:
            jobs = run_jobs_warm(jobs, min(workers, len(jobs)), warm_s, on_result, on_epochs)
        except WarmUnavailable as exc:
            print(f"netzbench: no warm worker server ({exc}); starting this stage's own workers", file=sys.stderr)
        if not jobs:
            return
    ctx = pool_context()
    pump = _ProgressPump(ctx, on_epochs) if on_epochs is not None else None
    try:
        broken = _run_pool(jobs, min(workers, len(jobs)), on_result, ctx, pump)
        attempts = {id(j): 1 for j in broken}
        while broken:
            job = broken.pop(0)
            again = _run_pool([job], 1, on_result, ctx, pump)
            if again:
                attempts[id(job)] += 1
                if attempts[id(job)] > MAX_RETRIES:
                    on_result(job, died_result(attempts[id(job)]))
                else:
                    broken.append(job)
    finally:
        if pump is not None:
            pump.close()


def _run_pool(jobs, workers, on_result, ctx, pump) -> list[dict]:
    """One pool over ``jobs``; returns the jobs lost to a broken pool (to retry)."""
    lost = []
    initargs = (pump.queue if pump is not None else None,)
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, max_tasks_per_child=1,
                             initializer=init_worker, initargs=initargs) as pool:
        futures = {pool.submit(run_seed, job): job for job in jobs}
        for fut in as_completed(futures):
            job = futures[fut]
            try:
                result = fut.result()
            except BrokenProcessPool:
                lost.append(job)
                continue
            except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable result
                result = {"status": "failed", "error": f"{type(exc).__name__}: {exc}", "seconds": 0.0}
            on_result(job, result)
    return lost
