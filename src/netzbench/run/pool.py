"""The local executor: a process per seed on this machine, with limits, crash retries and progress.

- Each job runs in a fresh worker process forked from a server that has
  torch preloaded, pinned to ``exec.threads`` intra-op threads, so results
  do not depend on how many run at once. The server is the warm one shared
  by the stages of a pipeline (:mod:`.warm`, ``exec.warm_s``) or, with that
  off or unavailable, this process's own ``forkserver``; ``exec.workers``
  processes run at a time, each for one seed only.
- A job that trains on a GPU runs in a *spawned* process instead (a fresh
  interpreter: CUDA cannot be used in a fork of a process that touched it,
  :mod:`.device`), never in a warm server's child, and pins one device
  before torch starts CUDA: round-robin over ``CUDA_VISIBLE_DEVICES`` by the
  job's index, so ``exec.workers`` seeds share the GPUs.
- ``exec.timeout_s`` stops a job (SIGALRM in the worker) and ``exec.max_rss_gb``
  caps its memory (``RLIMIT_DATA``: an allocation past it fails instead of
  waking the kernel's OOM killer); either way the job is recorded as
  ``failed`` with the reason and the sweep goes on. A seed that swallows
  its alarm (a model's ``except:``) is killed from here, with SIGKILL,
  :data:`.worker.KILL_GRACE_S` seconds after its timeout, and recorded as
  timed out (not as a crash, not retried).
- A worker that dies (killed, segfault) takes only its own job down (each
  process has its own pipe for progress and result): that job is retried
  alone, at most ``MAX_RETRIES`` times, then recorded as failed.
- Workers report finished epochs on their pipe; the parent shows one
  progress bar in epochs (rate and ETA) for the cell.
- The seeds' temporary files (PyG writes a generated module per seed) go to
  a scratch folder of the stage, removed when it ends (:mod:`.runtime`).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import tempfile
import time
from multiprocessing.connection import wait

from .job import Job
from .device import pin, start_method, visible_devices
from .runtime import MAX_SOCKET_PATH, scratch_folder
from .worker import MAX_RETRIES, died_result, huge_page_allocations, init_worker, kill_after, run_seed, stopped_result

_CONTEXT = None
#: seconds a worker may take to exit after it sent its result, before it is killed
_EXIT_S = 30.0


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
        if method == "forkserver" and _forkserver_address_too_long():
            method = "spawn"  # the same workers, each importing torch itself: slower, never stuck
        _CONTEXT = (multiprocessing.get_context(method), _arithmetic_env())
        if method == "forkserver":
            _CONTEXT[0].set_forkserver_preload(["netzbench.run.preload"])
    ctx, env = _CONTEXT
    return ctx if env == _arithmetic_env() else multiprocessing.get_context("spawn")


def _forkserver_address_too_long() -> bool:
    """Whether the forkserver's socket (``<temporary folder>/pymp-XXXXXXXX/listener-XXXXXXXX``) would not fit
    a Unix socket path: under a deep ``$TMPDIR`` it cannot start, and every worker would fail to."""
    return len(os.fsencode(tempfile.gettempdir())) + len("/pymp-XXXXXXXX/listener-XXXXXXXX") > MAX_SOCKET_PATH


class _PipeProgress:
    """The worker's progress queue: epochs go to the parent on the worker's own pipe."""

    def __init__(self, conn):
        self.conn = conn

    def put_nowait(self, msg) -> None:
        self.conn.send(("epoch", *msg))


def _seed_process(job: Job, conn, devices: list[str] | None = None) -> None:
    """A worker process: one seed; ``("limits",)``, ``("epoch", job_index, n)`` and one
    ``("result", result)`` on ``conn``. ``devices``: the GPUs, one of which it pins before torch
    starts CUDA (:func:`.device.pin`; recorded as the seed's ``cuda_device``)."""
    init_worker(_PipeProgress(conn), on_limits=lambda: conn.send(("limits",)))
    chosen = None
    if devices:
        try:
            chosen = pin(devices, job.job_index or 0)
        except Exception as exc:  # noqa: BLE001 - recorded, never raised: the sweep goes on
            conn.send(("result", _failed(exc)))
            return
    result = run_seed(job)
    if chosen is not None:
        result.setdefault("cuda_device", chosen)
    try:
        conn.send(("result", result))
    except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable result (pickled before anything is written)
        conn.send(("result", _failed(exc)))


def _failed(exc: BaseException) -> dict:
    """The result of a job that could not be sent to or from its worker."""
    return {"status": "failed", "error": f"{type(exc).__name__}: {exc}", "seconds": 0.0}


class _Worker:
    """One job's process as the parent sees it: its pipe, its deadline, whether it has reported."""

    def __init__(self, ctx, job: Job, devices: list[str] | None = None):
        self.job = job
        self.conn, writer = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_seed_process, args=(job, writer, devices))  # not daemonic: a model may fork
        try:
            self.proc.start()  # pickles the job: a model object from the Python API may refuse
        except BaseException:
            self.conn.close()
            raise
        finally:
            writer.close()  # the child's copy is the only one left: its exit reads as end of file
        self.deadline = None  # monotonic time at which the seed is killed
        self.armed_at = None  # Unix time at which its limits applied
        self.result = None
        self.reported_at = None  # monotonic time at which its result came (then it only has to exit)
        self.eof = False  # the pipe is closed at the child's end

    def read(self, on_epochs) -> None:
        """Take every message waiting on the pipe."""
        while True:
            try:
                if not self.conn.poll(0):
                    return
                msg = self.conn.recv()
            except (EOFError, OSError):
                self.eof = True
                return
            except Exception as exc:  # noqa: BLE001 - a result holding a class only the worker could import
                self.result = _failed(exc)
                return
            if msg[0] == "epoch":
                if on_epochs is not None:
                    on_epochs(msg[1], msg[2])
            elif msg[0] == "limits":
                after = kill_after(self.job.timeout_s)
                self.armed_at = time.time()
                self.deadline = None if after is None else time.monotonic() + after
            elif msg[0] == "result":
                self.result = msg[1]

    def stop(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        self.conn.close()


def _run_processes(jobs: list[Job], workers: int, on_result, on_epochs, ctx, devices=None) -> list[Job]:
    """Run ``jobs``, ``workers`` processes at a time, a fresh one per job (``devices``: the GPUs they pin);
    returns the jobs whose process died without a result (to retry)."""
    pending, running, died = list(jobs), [], []
    leaving: list[_Worker] = []  # reported, still exiting: the next job need not wait for that
    try:
        while pending or running:
            while pending and len(running) < workers:
                job = pending.pop(0)
                try:
                    running.append(_Worker(ctx, job, devices))
                except Exception as exc:  # noqa: BLE001 - recorded, never raised: the sweep goes on
                    on_result(job, _failed(exc))
            if not running and not leaving:  # every job left failed to start: nothing to wait for
                continue
            wakes = [w.deadline for w in running if w.deadline is not None]
            wakes += [w.reported_at + _EXIT_S for w in leaving]
            timeout = max(0.0, min(wakes) - time.monotonic()) if wakes else None
            ready = set(wait([w.conn for w in running if not w.eof]
                             + [w.proc.sentinel for w in running + leaving], timeout))
            now = time.monotonic()
            for w in list(leaving):
                if w.proc.sentinel in ready or now >= w.reported_at + _EXIT_S:
                    w.stop()
                    leaving.remove(w)
            for w in list(running):
                exited = w.proc.sentinel in ready
                if w.conn in ready or exited:
                    w.read(on_epochs)
                if w.result is not None:
                    running.remove(w)
                    w.reported_at = time.monotonic()
                    leaving.append(w)
                    on_result(w.job, w.result)
                elif exited:
                    w.stop()
                    running.remove(w)
                    died.append(w.job)
                elif w.deadline is not None and time.monotonic() >= w.deadline:  # it swallowed its alarm
                    w.stop()
                    running.remove(w)
                    on_result(w.job, stopped_result(w.job.timeout_s, w.armed_at))
        for w in leaving:
            w.proc.join(max(0.0, w.reported_at + _EXIT_S - time.monotonic()))
    finally:
        for w in running + leaving:  # interrupted (Ctrl-C), or one that would not exit: none outlives the stage
            w.stop()
    return died


def placement(jobs: list[Job]) -> list[tuple[list[Job], str | None, list[str] | None]]:
    """The jobs grouped by how their processes start: ``(jobs, start method, devices)``; a start method of
    None is the pool's own (the warm server's children, else the forkserver: CPU jobs), ``spawn`` with the
    GPUs to pin for jobs on CUDA (:func:`.device.start_method`). CUDA is not initialised here."""
    groups: dict[str | None, list[Job]] = {}
    for job in jobs:
        groups.setdefault(start_method(job.device), []).append(job)
    return [(group, method, visible_devices() if method is not None else None) for method, group in groups.items()]


def _run_with_retries(jobs: list[Job], workers: int, on_result, on_epochs, ctx, devices=None) -> None:
    died = _run_processes(jobs, min(workers, len(jobs)), on_result, on_epochs, ctx, devices)
    attempts = {id(j): 1 for j in died}
    while died:  # alone this time: a crash that came from running alongside others does not recur
        job = died.pop(0)
        if _run_processes([job], 1, on_result, on_epochs, ctx, devices):
            attempts[id(job)] += 1
            if attempts[id(job)] > MAX_RETRIES:
                on_result(job, died_result(attempts[id(job)]))
            else:
                died.append(job)


def run_jobs(jobs: list[Job], workers: int, on_result, on_epochs=None, *, warm_s: float = 0.0) -> None:
    """Run ``jobs`` on ``workers`` processes; ``on_result(job, result)`` as each ends,
    ``on_epochs(job_index, epochs_done)`` as workers progress. With ``warm_s`` > 0 the processes of CPU
    jobs are children of the warm server (:mod:`.warm`, kept ``warm_s`` seconds after its last seed);
    jobs it cannot take run in this process's own pool. GPU jobs are spawned (:func:`placement`).
    ``on_result`` gets the job as placed here (:meth:`.job.Job.placed`: its index and scratch folder set)."""
    if not jobs:
        return
    with scratch_folder() as scratch:
        jobs = [job.placed(i, scratch) for i, job in enumerate(jobs)]
        for group, method, devices in placement(jobs):
            if method is not None:
                huge_page_allocations()  # a spawned worker inherits this process's environment
                _run_with_retries(group, workers, on_result, on_epochs, multiprocessing.get_context(method), devices)
                continue
            if warm_s > 0:
                from .warm import WarmUnavailable, run_jobs_warm

                huge_page_allocations()  # the server's environment, like the forkserver's
                try:
                    group = run_jobs_warm(group, min(workers, len(group)), warm_s, on_result, on_epochs)
                except WarmUnavailable as exc:
                    print(f"netzbench: no warm worker server ({exc}); starting this stage's own workers",
                          file=sys.stderr)
                if not group:
                    continue
            _run_with_retries(group, workers, on_result, on_epochs, pool_context())
