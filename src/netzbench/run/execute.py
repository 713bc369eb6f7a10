"""Running plans: one executor for the jobs of many cells, each result cached as it arrives.

``exec.executor`` picks the executor: ``local`` (a process pool, one process
per seed, :mod:`.pool`), ``ray`` (:mod:`.ray_executor`) or ``inprocess``
(:mod:`.inprocess`, the Python API's default). Every executor runs the same
worker code, so a cell's histories do not depend on the choice.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import replace
from pathlib import Path

from ..errors import RecordError
from ..records import check_finite, write_record
from .arithmetic import configure as configure_arithmetic
from .cache import SeedCache
from .job import Job
from .plan import CellPlan, plan_cell
from .progress import progress_bar

EXECUTORS = ("local", "ray", "inprocess")

log = logging.getLogger(__name__)


def workers(params: dict) -> int:
    """Number of seed worker processes (``exec.workers``; null = one per core)."""
    import os

    n = params["exec"].get("workers")
    return int(n) if n else max(1, os.cpu_count() or 1)


def run_plans(plans: list[CellPlan], params: dict, *, quiet: bool = False, progress: bool = True,
              desc: str | None = None):
    """Train the jobs of every plan together (one pool, one Ray submission, or in order here);
    cache each result the moment it arrives. ``quiet``: what it says is logged at DEBUG, not INFO."""
    say = log.debug if quiet else log.info

    def key_of(job: Job) -> str | None:
        plan = plans[job.plan]
        return plan.keys[job.spec["seed"], job.candidate] if plan.cacheable else None

    jobs: list[Job] = []
    twins: dict[str, list[Job]] = {}  # a unit whose cache key another job already has runs once; its twins get the result
    for i, plan in enumerate(plans):
        for job in plan.jobs:
            job = replace(job, plan=i)
            key = key_of(job)
            if key is not None and key in twins:
                twins[key].append(job)
                continue
            if key is not None:
                twins[key] = []
            jobs.append(job)
    if not jobs:
        return
    cache = SeedCache()
    # the workers' kernels follow the mode (the command line set it already; the Python callers may not)
    configure_arithmetic(params["exec"].get("arithmetic", "native"))
    n_workers = workers(params)
    executor = params["exec"].get("executor", "local")
    if len(plans) == 1:
        todo = sorted({j.spec["seed"] for j in jobs})
        where = {"local": f"{min(n_workers, len(jobs))} worker(s)", "ray": "ray", "inprocess": "in-process"}[executor]
        say(f"{plans[0].label}: training seeds {todo} ({len(plans[0].seeds) - len(todo)} cached), "
            f"{plans[0].record['hyperparameters']['epochs']} epochs, {where}")
    else:
        shared = sum(len(t) for t in twins.values())
        say(f"{desc or 'cells'}: {len(jobs)} run(s) to train in {len(plans)} cells"
            + (f" ({shared} more share a cache key with one of them)" if shared else ""))
    bar = None
    done_epochs: dict[int, int] = {}
    finished: list[int] = []
    if progress:
        bar = progress_bar(sum(j.spec["hp"]["epochs"] for j in jobs), desc or plans[0].label, sys.stderr)

    def on_epochs(job_index: int, epoch: int) -> None:
        if bar is not None:
            bar.update(max(0, epoch - done_epochs.get(job_index, 0)))
            done_epochs[job_index] = max(epoch, done_epochs.get(job_index, 0))

    locks: dict[str, int] = {}  # cache key -> the lock this process holds while it trains that seed

    def record(job: Job, result: dict, *, store: bool) -> None:
        plan = plans[job.plan]
        seed = job.spec["seed"]
        unit = (seed, job.candidate)
        plan.results[unit] = result
        key = key_of(job)
        for twin in twins.get(key, ()):
            plans[twin.plan].results[unit] = result
        # saved the moment it finishes: a crash later loses nothing. A diverged seed is as deterministic
        # as a finished one (it would diverge again), so it is kept too; other failures are retried.
        if store and key is not None and (result["status"] == "ok"
                                          or str(result.get("error", "")).startswith("diverged at")):
            cache.put(key, result)
        if key in locks:
            cache.unlock(locks.pop(key))
        checked = check_finite(result)  # a diverged seed is cached as trained, recorded as failed
        if checked["status"] != "ok":
            say(f"{plan.label} seed {seed} FAILED: {checked.get('error')}")
        finished.append(seed)
        if bar is not None:  # a failed or killed job still counts its whole budget
            if job.job_index is not None:  # trained here: top up what its epochs reported
                on_epochs(job.job_index, job.spec["hp"]["epochs"])
            else:  # another process trained it
                bar.update(job.spec["hp"]["epochs"])
            bar.set_postfix_str(f"runs done {len(finished)}/{len(jobs)}, last {plan.label} seed {seed}")

    def on_result(job: Job, result: dict) -> None:
        record(job, result, store=True)

    report = on_epochs if bar is not None else None

    def dispatch(batch: list[Job]) -> None:
        if not batch:
            return
        done_epochs.clear()  # job indices restart with each batch
        if executor == "ray":
            from .ray_executor import run_jobs_ray

            run_jobs_ray(batch, params, on_result, report)
        elif executor == "inprocess":
            from .inprocess import run_jobs as run_inprocess

            run_inprocess(batch, on_result, report)
        else:
            from .pool import run_jobs
            from .warm import idle_seconds

            run_jobs(batch, n_workers, on_result, report, warm_s=idle_seconds(params["exec"]))

    try:
        mine, theirs = [], []  # seeds this process trains; seeds another process is training right now
        for job in jobs:
            key = key_of(job)
            fd = cache.try_lock(key) if key is not None else None
            if key is not None and fd is None:
                theirs.append(job)
                continue
            if fd is not None:
                locks[key] = fd
            mine.append(job)
        dispatch(mine)
        if theirs:
            say(f"waiting for {len(theirs)} seed run(s) another netzbench process is training")
        retry = []
        for job in theirs:
            key = key_of(job)
            locks[key] = cache.wait_lock(key)
            hit = cache.get(key)
            if hit is not None:  # the other process finished it: use its result
                record(job, {**hit, "cached": True}, store=False)
            else:  # it failed or was killed: train it here, still holding the lock
                retry.append(job)
        dispatch(retry)
    finally:
        for fd in locks.values():
            cache.unlock(fd)
        if bar is not None:
            bar.close()


def _write(out_path: str | Path, record) -> None:
    try:
        write_record(out_path, record)
    except OSError as exc:  # e.g. a full disk: the record is written atomically, so nothing torn is left
        raise RecordError(f"{out_path}: cannot write the run record ({exc.strerror or exc}); the seeds stored in "
                          "the per-seed cache are reused when the stage runs again") from None


def train_task(task_id: str, params: dict, runs_dir: str | Path, candidate_path: str | Path, *,
               data_root: str | Path = "data", progress: bool = True) -> dict[str, dict]:
    """Every cell of one task the pipeline trains (each roster model, and the candidate) in one go: the
    uncached seeds of all of them share one pool (a stale cell still trains alone: the per-seed cache
    decides what runs), then each record is written, ``runs_dir/<model>.json`` for the roster and
    ``candidate_path`` for the candidate (a placeholder, ``no_candidate`` or ``in_roster``, when there is
    none to train). Returns the records by model (the candidate under ``"candidate"``)."""
    from .plan import candidate_placeholder, pipeline_cells

    cells = pipeline_cells(params, [task_id])
    plans = [plan_cell(t, m, params, role=role, model_args=args, data_root=data_root, quiet=True)
             for t, m, role, args in cells]
    run_plans([p for p in plans if p.jobs], params, progress=progress, desc=task_id)
    out: dict[str, dict] = {}
    for (_, model, role, _), plan in zip(cells, plans):
        record = plan.finish()
        if role == "roster":
            _write(Path(runs_dir) / f"{model}.json", record)
            out[model] = record.to_dict()
        else:
            _write(candidate_path, record)
            out["candidate"] = record.to_dict()
    placeholder = candidate_placeholder(task_id, params)
    if placeholder is not None:
        _write(candidate_path, placeholder)
        out["candidate"] = placeholder
    return out


def train_cell(task_id: str, model: str, params: dict, out_path: str | Path, *, role: str = "roster",
               model_args: dict | None = None, data_root: str | Path = "data",
               progress: bool = True) -> dict:
    """Train (or recall) every seed of the cell and write its run record to ``out_path``; returns the
    record as a dict (:meth:`~netzbench.records.RunRecord.to_dict`: what the report reads)."""
    plan = plan_cell(task_id, model, params, role=role, model_args=model_args, data_root=data_root)
    run_plans([plan], params, progress=progress)
    record = plan.finish()
    _write(out_path, record)
    return record.to_dict()
