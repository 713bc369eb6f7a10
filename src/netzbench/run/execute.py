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
from ..settings import Execution, Settings
from .arithmetic import configure as configure_arithmetic
from .cache import SeedCache
from .job import Job
from .plan import CellPlan, plan_cell
from .progress import progress_bar

EXECUTORS = ("local", "ray", "inprocess")

log = logging.getLogger(__name__)


def workers(execution: Execution) -> int:
    """Number of seed worker processes (``exec.workers``; null = one per core)."""
    import os

    n = execution.workers
    return int(n) if n else max(1, os.cpu_count() or 1)


def run_plans(plans: list[CellPlan], settings: Settings, *, quiet: bool = False, progress: bool = True,
              desc: str | None = None):
    """Train the jobs of every plan together (one pool, one Ray submission, or in order here);
    cache each result the moment it arrives. ``quiet``: what it says is logged at DEBUG, not INFO."""
    say = log.debug if quiet else log.info

    def key_of(job: Job) -> str | None:
        plan = plans[job.plan]
        return plan.keys[job.spec["seed"], job.trial] if plan.cacheable else None

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
    execution = settings.execution
    configure_arithmetic(execution.arithmetic)
    n_workers = workers(execution)
    executor = execution.executor
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
        unit = (seed, job.trial)
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

            run_jobs_ray(batch, execution, on_result, report)
        elif executor == "inprocess":
            from .inprocess import run_jobs as run_inprocess

            run_inprocess(batch, on_result, report)
        else:
            from .pool import run_jobs
            from .warm import idle_seconds

            run_jobs(batch, n_workers, on_result, report, warm_s=idle_seconds(execution))

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


def plan_roster(tasks: list[str], settings: Settings, paths, *, data_root: str | Path = "data") -> list:
    """Plan every roster cell of ``tasks`` and write, where ``paths(task)`` says, the record of each cell
    with nothing to train (every seed cached). Needs no candidate: the train stage runs it while a new
    candidate's facts are learnt (:func:`netzbench.cli_common.checked_params`' ``before_import``), so the
    roster's share of the stage is done before the candidate's seeds start. Returns ``[(cell, plan,
    written)]`` for :func:`_train`."""
    out = []
    for cell in [c for c in settings.cells(tasks) if c[2] == "roster"]:  # the roster's cells only
        task, model, role, args = cell
        plan = plan_cell(task, model, settings, role=role, model_args=args, data_root=data_root, quiet=True)
        written = None
        if not plan.jobs:
            written = plan.finish()
            _write(Path(paths(task)[0]) / f"{model}.json", written)
        out.append((cell, plan, written))
    return out


def _train(tasks: list[str], settings: Settings, paths, *, data_root: str | Path, progress: bool,
           desc: str, roster: list | None = None) -> dict[str, dict[str, dict]]:
    """Plan every cell of ``tasks`` (each roster model, and the candidate), train the uncached seeds of all
    of them in one :func:`run_plans` call (one pool: a worker takes the next seed of whichever cell when it
    is free; a stale cell still trains alone: the per-seed cache decides what runs), then write each
    record where ``paths(task)`` says: ``(runs_dir, candidate_path)``. Every cell is planned before
    anything trains, so a task without data stops the stage before a seed runs. ``roster``: what
    :func:`plan_roster` returned for the same arguments (planned already; default: planned here)."""
    from .plan import pool_weights

    if roster is None:
        roster = plan_roster(tasks, settings, paths, data_root=data_root)
    planned = list(roster)
    for cell in settings.cells(tasks):
        task, model, role, args = cell
        if role != "roster":
            planned.append((cell, plan_cell(task, model, settings, role=role, model_args=args,
                                            data_root=data_root, quiet=True), None))
    weight = pool_weights(tasks, data_root)  # the heaviest tasks' seeds first (stable: plan order within)
    run_plans(sorted((p for _, p, _ in planned if p.jobs), key=lambda p: -weight[p.record["task"]]), settings,
              progress=progress, desc=desc)
    out: dict[str, dict[str, dict]] = {task: {} for task in tasks}
    for (task, model, role, _), plan, written in planned:
        runs_dir, candidate_path = paths(task)
        if role == "roster":
            record = written if written is not None else plan.finish()
            if written is None:
                _write(Path(runs_dir) / f"{model}.json", record)
            out[task][model] = record.to_dict()
        else:
            record = plan.finish()
            _write(candidate_path, record)
            out[task]["candidate"] = record.to_dict()
    for task in tasks:
        placeholder = settings.candidate_placeholder(task)
        if placeholder is not None:
            _write(paths(task)[1], placeholder)
            out[task]["candidate"] = placeholder
    return out


def train_task(task_id: str, settings: Settings, runs_dir: str | Path, candidate_path: str | Path, *,
               data_root: str | Path = "data", progress: bool = True) -> dict[str, dict]:
    """Every cell of one task the pipeline trains (each roster model, and the candidate) in one go: the
    uncached seeds of all of them share one pool, then each record is written, ``runs_dir/<model>.json``
    for the roster and ``candidate_path`` for the candidate (a placeholder, ``no_candidate`` or
    ``in_roster``, when there is none to train). Returns the records by model (the candidate under
    ``"candidate"``)."""
    return _train([task_id], settings, lambda _: (runs_dir, candidate_path), data_root=data_root,
                  progress=progress, desc=task_id)[task_id]


def _paths_of(runs_root: str | Path, candidate_dir: str | Path):
    from ..paths import child

    return lambda t: (child(runs_root, t), child(candidate_dir, f"{t}.json"))


def train_tasks(tasks: list[str], settings: Settings, runs_root: str | Path = "metrics/runs",
                candidate_dir: str | Path = "metrics/candidate", *, data_root: str | Path = "data",
                progress: bool = True, prune: bool = False, roster: list | None = None) -> dict[str, dict[str, dict]]:
    """:func:`train_task` for every task of ``tasks`` at once (the pipeline's one train stage): the uncached
    seeds of every cell of every task in one pool, then the records, ``runs_root/<task>/<model>.json`` and
    ``candidate_dir/<task>.json``. ``prune``: the two folders are then exactly this run's output: a record
    it did not write (a task or a roster model no longer in params) is removed, as DVC removes the stage's
    outputs before it runs, so the folders are the same whether DVC or a person ran it. ``roster``: what
    :func:`roster_ahead` returned for the same arguments. Returns the records by task, then by model (the
    candidate under ``"candidate"``)."""
    tasks = list(tasks)
    out = _train(tasks, settings, _paths_of(runs_root, candidate_dir), data_root=data_root, progress=progress,
                 desc=f"{len(tasks)} task(s)", roster=roster)
    if prune:
        _prune(Path(runs_root), Path(candidate_dir), tasks, list(settings.models))
    return out


def roster_ahead(tasks: list[str], settings: Settings, runs_root: str | Path = "metrics/runs",
                 candidate_dir: str | Path = "metrics/candidate", *, data_root: str | Path = "data") -> list | None:
    """:func:`plan_roster` for :func:`train_tasks`' arguments, as a head start: None where anything fails
    (a task not fetched, a full disk), since :func:`train_tasks` then plans the roster again and reports
    the error where the stage reports errors."""
    try:
        return plan_roster(list(tasks), settings, _paths_of(runs_root, candidate_dir), data_root=data_root)
    except Exception:  # noqa: BLE001 - said by train_tasks, which plans again
        return None


def _prune(runs_root: Path, candidate_dir: Path, tasks: list[str], models: list[str]) -> None:
    """Remove the run records under ``runs_root`` (``<task>/<model>.json``) and ``candidate_dir``
    (``<task>.json``) of a task not in ``tasks`` or a roster model not in ``models``, and the task folders
    left empty. Only ``*.json`` files are touched: anything else there (a ``.gitignore``) stays."""
    for folder in sorted(runs_root.iterdir()) if runs_root.is_dir() else []:
        if not folder.is_dir() or folder.name.startswith("."):
            continue
        kept = set(models) if folder.name in tasks else set()
        for path in sorted(folder.glob("*.json")):
            if not path.name.startswith(".") and path.stem not in kept:
                path.unlink()
                log.info(f"removed {path}: {folder.name}/{path.stem} is no longer in params.yaml")
        if not any(folder.iterdir()):
            folder.rmdir()
    for path in sorted(candidate_dir.glob("*.json")) if candidate_dir.is_dir() else []:
        if not path.name.startswith(".") and path.stem not in tasks:
            path.unlink()
            log.info(f"removed {path}: task {path.stem} is no longer in params.yaml")


def train_cell(task_id: str, model: str, settings: Settings, out_path: str | Path, *, role: str = "roster",
               model_args: dict | None = None, data_root: str | Path = "data",
               progress: bool = True) -> dict:
    """Train (or recall) every seed of the cell and write its run record to ``out_path``; returns the
    record as a dict (:meth:`~netzbench.records.RunRecord.to_dict`: what the report reads)."""
    plan = plan_cell(task_id, model, settings, role=role, model_args=model_args, data_root=data_root)
    run_plans([plan], settings, progress=progress)
    record = plan.finish()
    _write(out_path, record)
    return record.to_dict()
