"""``netzbench estimate``: what ``dvc repro`` of a task list will cost here, before it runs.

For every cell the pipeline would train (each task x roster model, and the candidate), the plan
(:func:`.plan.plan_cell`) says what is decided without training (an incompatible pair, unavailable
data) and which seeds the per-seed cache already holds. A cell with seeds to train is *probed*, and the
sample is stated with the result: its first seed runs for k epochs (:data:`PROBE_EPOCHS`, :mod:`.probe`),
as the train stage runs seeds (children of the warm worker server, ``exec.workers`` at a time). The probe's
own seconds ``t(k)`` hold what every seed pays once (the fork, data loading, the first and slower epochs);
the epochs after the first :data:`SETTLING_EPOCHS` give the steady seconds of an epoch ``e`` (the median of
their times, as they finished). A seed of ``E`` epochs costs ``t(E) = t(k) + (E - k) e``, and needs the
probe's peak resident memory. Each probe is kept under a key made like a seed's (the
probe cache): asked again with unchanged code and data, the estimate measures only what changed.

The probes run on the task's fetched data (``data/<task>/``) when it is here, and otherwise on a
stand-in of the dataset's recorded size (:mod:`netzbench.catalog.sizes`,
:mod:`netzbench.catalog.standin`). A fetched graph with more edges than ``max_probe_edges``, and a
stand-in with more than :data:`MAX_STANDIN_EDGES` (or a 1/:data:`MAX_EXTRAPOLATION` of its size, where
that is more), is probed as two stand-ins, at that size and a quarter of it, and time and memory are
extrapolated linearly in the edges (GNN epochs are linear in nodes and edges; the scaling table in
benchmarks/RESULTS.md shows where that holds).

The plan's wall time follows how the pipeline runs: one train stage, the uncached seeds of every cell
of every task in one pool of ``exec.workers`` processes (each takes the next seed, cell by cell, in the
order the stage hands them out, the heaviest tasks first: :func:`.plan.pool_weights`, when it is free),
plus a fixed cost of the stage besides training (measured in benchmarks/RESULTS.md: 1.35 s with the
warm worker server, 3.37 s without). A cell does not fit when a seed's peak exceeds ``exec.max_rss_gb``
or the machine's memory, or when the seeds it runs at once do not fit together; each says what would
make it fit.
"""

from __future__ import annotations

import heapq
import logging
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..catalog.sizes import size_of
from ..catalog.standin import describe, edges_of, scale_for, scaled, write_standin
from ..catalog.table import get_dataset, get_task
from ..graphs.layout import read_meta
from ..training.planning import sampling_applies
from ..paths import CACHE_ENV
from ..settings import Settings
from .arithmetic import configure as configure_arithmetic
from .execute import workers
from .plan import plan_cell, pool_weights
from .job import Job
from .probe import ProbeCache, probe_key, run_probes, with_epochs, with_sampling
from .progress import progress_bar
from .warm import idle_seconds

log = logging.getLogger(__name__)

#: seconds per stage besides training (benchmarks/RESULTS.md, the quick profile): warm server, cold workers;
#: the pipeline has one train stage
STAGE_OVERHEAD_S = {"warm": 1.35, "cold": 3.37}
#: fetched graphs with more edges are probed as scaled stand-ins and extrapolated
MAX_PROBE_EDGES = 2_000_000
#: a stand-in (no data here) is probed at most this large, and extrapolated beyond: it is random data of the
#: recorded size, so a smaller one loses nothing a larger one has, and a larger probe takes longer than the
#: question is worth (MNIST superpixels' 1 M edges: 4 epochs of GAT, 46 s, against 12 s for two stand-ins) ...
MAX_STANDIN_EDGES = 250_000
#: ... unless that would extrapolate further than this factor: a slope measured over a few hundred thousand
#: edges, carried to tens of millions, multiplies its noise (ogbn-products' 62 M edges from 250,000-edge
#: stand-ins: 27-89 GB a seed, where bench_products measured 9.6-18.8 GB); such a graph is probed at
#: 1/16 of its size, up to ``max_probe_edges``
MAX_EXTRAPOLATION = 16
#: epochs of a probe: the first few settle, the rest give the steady time of an epoch
PROBE_EPOCHS = 6
#: epochs of a probe on a stand-in above MAX_STANDIN_EDGES: its epochs take seconds, the first alone settles
LARGE_PROBE_EPOCHS = 3
#: a fresh worker's first epochs run slower than the rest (first calls, the allocator finding its sizes)
SETTLING_EPOCHS = 3
#: how far the estimate may be from what the run then takes, as benchmarks/bench_estimate.py measured it
STATED_ERROR = ("per task 0.75-1.35 times what the run takes, the whole plan within 10 % (fetched data; "
                "stand-ins of data not here are rougher)")


@dataclass
class CellEstimate:
    """One cell of the plan. ``status``: ``train`` (seeds to train), ``cached`` (nothing to train),
    ``incompatible``, ``unavailable`` (no data and no recorded size), ``does_not_fit``, ``failed``
    (the probe failed: the cell would fail the same way). Seconds and GB are per seed; ``train_s`` is
    the seeds' to train summed (the train stage pools them with the other cells': ``stages``)."""

    task: str
    model: str
    role: str
    status: str
    seeds_to_train: int = 0
    seeds_cached: int = 0
    epochs: int | None = None
    seconds_per_seed: float | None = None
    peak_gb: float | None = None
    train_s: float = 0.0
    basis: str = ""
    reason: str | None = None
    probe_epochs: int = 0


def machine_memory_gb() -> float:
    """This machine's physical memory."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3


def seed_seconds(probe_s: float, per_epoch: float, k: int, epochs: int) -> float:
    """Seconds of one seed of ``epochs`` epochs from a probe of ``k`` of them that took ``probe_s`` (its start,
    data and first epochs included) and ran ``per_epoch`` seconds an epoch once steady."""
    return probe_s + max(0, epochs - k) * max(0.0, per_epoch)


def extrapolate(points: list[tuple[float, float]], at: float) -> float:
    """The line through two ``(edges, value)`` points at ``at`` edges; never below the larger measured value
    (a noisy slope must not make a larger graph cheaper)."""
    (e1, v1), (e2, v2) = sorted(points)
    if e2 == e1:
        return max(v1, v2)
    slope = max(0.0, (v2 - v1) / (e2 - e1))
    return max(v1, v2 + slope * (at - e2))


def standin_probe_edges(edges: int, max_edges: int = MAX_PROBE_EDGES) -> int:
    """The most edges a stand-in of a graph of ``edges`` edges is probed at: :data:`MAX_STANDIN_EDGES`, or
    1/:data:`MAX_EXTRAPOLATION` of the graph where that is more, never over ``max_edges``."""
    return min(max_edges, max(MAX_STANDIN_EDGES, edges // MAX_EXTRAPOLATION))


def _fetched(data_root: Path, task: str) -> dict | None:
    path = data_root / task
    if not (path / "meta.json").is_file():
        return None
    meta = read_meta(path)
    return meta if meta.get("status") == "ok" else None


def _task_dirs(task: str, settings: Settings, data_root: Path, scratch: Path, max_edges: int):
    """``(dirs, basis, full_edges)``: where the task's cells are probed, ``[(task_dir, edges)]`` (one entry:
    probe there; two: extrapolate), and what the figures rest on. None dirs: no data and no size."""
    meta = _fetched(data_root, task)
    spec = get_task(task)
    size = None
    if meta is not None:
        if meta.get("synthetic") or edges_of(meta.get("counts") or {}) <= max_edges:
            return [(data_root / task, None)], f"data/{task}", None
        size = dict(meta["counts"])  # fetched but too large to probe whole: a stand-in of its counts
    else:
        try:
            size = size_of(spec.dataset)
        except KeyError:
            return None, "no data here and no recorded size", None
    epochs = int(spec.epochs)
    category = get_dataset(spec.dataset).category
    factor = scale_for(size, standin_probe_edges(edges_of(size), max_edges))
    if factor >= 1.0:
        write_standin(scratch / task, task, spec.family, size, epochs, category)
        return [(scratch / task, None)], f"stand-in ({describe(size)})", None
    dirs = []
    for name, f in (("quarter", factor / 4), ("probe", factor)):
        part = scaled(size, f)
        write_standin(scratch / f"{task}.{name}", task, spec.family, part, epochs, category)
        dirs.append((scratch / f"{task}.{name}", edges_of(part)))
    return dirs, f"extrapolated from stand-ins of {dirs[0][1]:,} and {dirs[1][1]:,} edges ({describe(size)})", \
        edges_of(size)


def samples(hp: dict, pairs: int) -> bool:
    """Whether a node or link cell of ``hp`` trains neighbour-sampled on a graph of ``pairs`` undirected pairs
    (``train.sampling``: its threshold counts message-passing edges, both directions)."""
    return sampling_applies(hp.get("sampling"), 2 * pairs)


def _fit(peak: float, concurrent: int, cap: float | None, machine: float, hint: str = "") -> str | None:
    """Why a seed of ``peak`` GB does not fit (None: it does), with what would make it fit (``hint``: another
    way, appended where the seed is larger than the machine)."""
    if cap is not None and peak > cap:
        return f"a seed needs about {peak:.1f} GB, over exec.max_rss_gb = {cap:g}: raise it (the machine has {machine:.0f} GB)" \
            if peak < machine else f"a seed needs about {peak:.1f} GB: more than exec.max_rss_gb = {cap:g} and " \
                                   f"this machine's {machine:.0f} GB; it needs a machine with at least {peak:.0f} GB"
    if peak > machine:
        return f"a seed needs about {peak:.1f} GB, this machine has {machine:.0f} GB: it needs a machine with at " \
               f"least {math.ceil(peak)} GB{hint}"
    if concurrent * peak > machine:
        fits = max(1, int(machine // peak))
        return f"{concurrent} seeds at once need about {concurrent * peak:.1f} GB, this machine has {machine:.0f} GB: " \
               f"set exec.workers: {fits}"
    return None


def stage_seconds(cells: list[list[float]], workers: int) -> float:
    """Training wall seconds of a train stage: the seeds of ``cells`` (each a list of its seeds' seconds,
    in the order the stage plans them) taken in turn by ``workers`` processes, each the next one when it is
    free (as the pool runs them)."""
    free = [0.0] * max(1, workers)
    for seconds in (s for cell in cells for s in cell):
        heapq.heappush(free, heapq.heappop(free) + seconds)
    return max(free)


def estimate_plan(settings: Settings, tasks: list[str] | None = None, *, data_root: str | Path = "data",
                  probe_epochs: int = PROBE_EPOCHS, max_probe_edges: int = MAX_PROBE_EDGES, timeout_s: float | None = 900,
                  machine_gb: float | None = None, afresh: bool = False, remeasure: bool = False,
                  progress: bool = True) -> dict:
    """The cost of ``dvc repro`` for ``tasks`` (default every task of ``settings``) as the module docstring
    describes: ``cells`` (:class:`CellEstimate` as dicts), ``workers``, ``machine_gb``, ``compute_s`` (the
    seeds' seconds summed), ``stages`` (each train stage of the pipeline -- one, ``train``, for every
    task -- and its wall seconds), ``wall_s`` (the stages one after another), ``stage_overhead_s``,
    ``probe_epochs``, ``does_not_fit`` (the cells that cannot run, with the reason), ``sample`` (what was
    measured: cells probed, probe runs, runs reused from the probe cache), ``error`` (the stated error)
    and ``took_s`` (how long the estimate took). ``afresh``: as if the per-seed cache were empty (what a
    fresh clone pays; to set beside a finished run's times). ``remeasure``: probe again what the probe cache
    holds. ``progress``: a progress line on standard error while probes run."""
    started = time.monotonic()
    tasks = list(tasks or settings.tasks)
    data_root = Path(data_root)
    if settings.execution.timeout_s is not None:  # a probe runs at most a seed's epochs: a candidate
        # that hangs is stopped where its seed would be, not after 900 s
        seed_limit = 2 * float(settings.execution.timeout_s)
        timeout_s = seed_limit if timeout_s is None else min(timeout_s, seed_limit)
    # the probes' kernels follow the mode, as the workers' do (a caller other than the command line may
    # not have set it: on a CPU beyond AVX2 a portable probe would then refuse to run)
    execution = settings.execution
    configure_arithmetic(execution.arithmetic)
    n_workers = workers(execution)
    machine = machine_gb or machine_memory_gb()
    cap = execution.max_rss_gb
    overhead = STAGE_OVERHEAD_S["warm" if execution.warm_s else "cold"]
    kept = ProbeCache()  # resolved before --afresh points the seed cache elsewhere
    seen: set[str] = set()  # a seed key another cell trains first runs once in the stage's pool
    out: list[CellEstimate] = []
    wanted: list[tuple[int, int, Job, str | None]] = []  # (cell, part, job, probe key)
    found: dict[tuple[int, int], dict] = {}  # (cell, part) -> a probe's result
    shapes: dict[int, tuple] = {}  # cell -> (dirs, full edges, todo, hp of its first job)
    scratch = Path(tempfile.mkdtemp(prefix="netzbench-estimate-"))
    saved = os.environ.get(CACHE_ENV)
    if afresh:  # plan against an empty per-seed cache: every seed is to train
        os.environ[CACHE_ENV] = str(scratch / "empty-cache")
    try:
        for task in tasks:
            dirs, basis, full_edges = _task_dirs(task, settings, data_root, scratch, max_probe_edges)
            for t, model, role, args in [c for c in settings.cells(tasks) if c[0] == task]:
                cell = CellEstimate(task=t, model=model, role=role, status="train", basis=basis,
                                    probe_epochs=probe_epochs)
                out.append(cell)
                if dirs is None:
                    cell.status, cell.reason = "unavailable", basis
                    continue
                plans = [plan_cell(t, model, settings, role=role, model_args=args, task_dir=d, quiet=True)
                         for d, _ in dirs]
                plan = plans[-1]
                cell.epochs = int(plan.record["hyperparameters"]["epochs"])
                if plan.outcome is not None:
                    cell.status, cell.reason = plan.outcome, plan.reason
                    continue
                keys = {plan.keys.get((j.spec["seed"], j.trial)) for j in plan.jobs} - {None}
                todo = [j for j in plan.jobs if plan.keys.get((j.spec["seed"], j.trial)) not in seen]
                seen |= keys
                cell.seeds_to_train = len(todo)
                cell.seeds_cached = len(plan.seeds) * max(1, len(plan.grid)) - len(plan.jobs)
                if not todo:
                    cell.status = "cached"
                    continue
                index = len(out) - 1
                shapes[index] = (dirs, full_edges, len(todo), plan.jobs[0].spec["hp"])
                if max(e or 0 for _, e in dirs) > MAX_STANDIN_EDGES:  # epochs of seconds each: one settles them
                    cell.probe_epochs = min(probe_epochs, LARGE_PROBE_EPOCHS)
                _want(index, plans, full_edges, min(cell.probe_epochs, cell.epochs), timeout_s, n_workers,
                      None if remeasure else kept, wanted, found)
        _probe(wanted, found, kept, n_workers, execution, out, progress)
    finally:
        if afresh and saved is None:
            os.environ.pop(CACHE_ENV, None)
        elif afresh:
            os.environ[CACHE_ENV] = saved
        shutil.rmtree(scratch, ignore_errors=True)
    for index, (dirs, full_edges, todo, hp) in shapes.items():
        _settle(out[index], dirs, full_edges, found, index)
        _judge(out[index], full_edges, todo, hp, min(n_workers, todo), cap, machine, execution.timeout_s)
    trained = [c for c in out if c.status == "train"]
    order = {(t, m, role): i for i, (t, m, role, _) in enumerate(settings.cells(tasks))}
    weight = pool_weights(tasks, data_root)
    # as the stage hands them out: the heaviest tasks first, the planned order within
    pooled = sorted(trained, key=lambda c: (-weight[c.task], order[c.task, c.model, c.role]))
    stages = {"train": stage_seconds([[c.seconds_per_seed] * c.seeds_to_train for c in pooled], n_workers)
              + overhead}
    reused = sum(1 for r in found.values() if r.get("reused"))
    return {"cells": [asdict(c) for c in out], "workers": n_workers, "machine_gb": machine,
            "compute_s": sum(c.train_s for c in trained), "stages": stages,
            "wall_s": sum(stages.values()), "stage_overhead_s": overhead, "probe_epochs": probe_epochs,
            "does_not_fit": [f"{c.task}/{c.model}: {c.reason}" for c in out if c.status == "does_not_fit"],
            "sample": {"cells": len(shapes), "runs": len(found), "reused": reused,
                       "measured": len(found) - reused, "seeds": sum(s[2] for s in shapes.values())},
            "error": STATED_ERROR, "took_s": time.monotonic() - started}


def _want(index: int, plans: list, full_edges, epochs: int, timeout_s, n_workers: int, kept: ProbeCache | None,
          wanted: list, found: dict) -> None:
    """The probes of cell ``index`` (one per probed directory, from its ``plans``): taken from ``kept`` where it
    holds them (None: measure every one again), else added to ``wanted``."""
    for part, plan in enumerate(plans):
        job = plan.jobs[0]
        if full_edges is not None and samples(job.spec["hp"], full_edges):
            job = with_sampling(job)  # the whole graph trains sampled (mode auto): so does its stand-in
        run = with_epochs(job, epochs, timeout_s)
        key = plan.keys.get((job.spec["seed"], job.trial))
        pkey = probe_key(key, run, n_workers) if key is not None else None
        hit = kept.get(pkey) if pkey is not None and kept is not None else None
        if hit is not None:
            found[index, part] = {**hit, "status": "ok", "reused": True}
        else:
            wanted.append((index, part, run, pkey))


def _judge(cell: CellEstimate, full_edges, todo: int, hp: dict, concurrent: int, cap, machine: float,
           timeout) -> None:
    """Whether a probed cell fits (memory, ``exec.timeout_s``), and its seeds' seconds if it does."""
    if cell.status != "train":
        return
    hint = "" if "sampling" not in hp or samples(hp, full_edges or 0) else \
        ", or train it neighbour-sampled (train.sampling.mode: neighbour)"
    cell.reason = _fit(cell.peak_gb, concurrent, cap, machine, hint)
    if cell.reason is None and timeout is not None and cell.seconds_per_seed > timeout:
        cell.reason = f"a seed takes about {cell.seconds_per_seed:.0f} s, over exec.timeout_s = {timeout:g}: raise it"
    if cell.reason is not None:
        cell.status = "does_not_fit"
        return
    cell.train_s = todo * cell.seconds_per_seed


def _probe(wanted, found: dict, kept: ProbeCache, n_workers: int, execution, cells: list, progress: bool) -> None:
    """Run the ``wanted`` probes through the stage's executor (the largest graphs first), fill ``found`` (each
    result with its ``per_epoch`` seconds) and keep each ok result."""
    if not wanted:
        return
    # the largest graphs first, so that the last probes to finish are short ones
    wanted = sorted(wanted, key=lambda w: (-_edges(w[2]), w[0], w[1]))
    bar = progress_bar(len(wanted), f"estimate: probing {len({w[0] for w in wanted})} cell(s)", sys.stderr,
                       unit="runs", interval=5.0) if progress else None
    stamps: dict[int, dict[int, float]] = {}

    def epoch(i: int, n: int) -> None:
        stamps.setdefault(i, {}).setdefault(n, time.monotonic())

    def done(i: int, result: dict) -> None:
        index, part, run, pkey = wanted[i]
        result = dict(result)
        if result.get("status") == "ok":
            trained = len(result.get("epochs") or ())  # a heuristic scores once: one "epoch" whatever the budget
            result["per_epoch"] = steady_epoch_seconds(stamps.get(i, {}), float(result["seconds"]),
                                                       trained if trained > 1 else 0)
            if pkey is not None:
                kept.put(pkey, result)
        found[index, part] = result
        if bar is not None:
            bar.set_postfix_str(f"last {cells[index].task}/{cells[index].model}")
            bar.update(1)

    try:
        run_probes([w[2] for w in wanted], n_workers, idle_seconds(execution), done, epoch)
    finally:
        if bar is not None:
            bar.close()


def _edges(job: Job) -> int:
    """The edges of a probe's graph (0 for a task generated per seed)."""
    return edges_of((job.meta or {}).get("counts") or {})


def steady_epoch_seconds(stamps: dict[int, float], seconds: float, epochs: int) -> float:
    """Seconds of an epoch once a seed runs steadily, from the times its ``epochs`` epochs finished
    (``stamps``: epoch -> time): the median of the epochs after the first :data:`SETTLING_EPOCHS` (a fresh
    worker's first epochs are slower: first calls, the allocator finding its sizes), of every epoch after the
    first when the probe is shorter; without times, the run's ``seconds`` shared over its epochs. 0 for a run
    of fewer than two epochs: a one-epoch probe says nothing of the next epochs, and a model that trains
    no epochs (a heuristic) costs the same whatever the budget."""
    if epochs < 2:
        return 0.0
    took = {e: stamps[e] - stamps[e - 1] for e in range(2, epochs + 1) if e in stamps and e - 1 in stamps}
    if not took:
        return seconds / epochs
    steady = [t for e, t in took.items() if e > SETTLING_EPOCHS]
    return max(0.0, statistics.median(steady or took.values()))


def _settle(cell: CellEstimate, dirs, full_edges, found: dict, index: int) -> None:
    """A cell's seconds per seed and peak GB from its probes (one per probed directory), or its failure."""
    points_t, points_m = [], []
    for part, (_, edges) in enumerate(dirs):
        run = found.get((index, part))
        if run is None or run.get("status") != "ok":
            cell.status = "failed"
            cell.reason = f"the probe failed: {(run or {}).get('error') or 'no result'}"
            return
        points_t.append((edges or 0, seed_seconds(float(run["seconds"]), float(run["per_epoch"]),
                                                  min(cell.probe_epochs, cell.epochs), cell.epochs)))
        points_m.append((edges or 0, float(run["peak_rss_mb"]) / 1024.0))
    if full_edges is None:
        cell.seconds_per_seed, cell.peak_gb = points_t[0][1], points_m[0][1]
    else:
        cell.seconds_per_seed, cell.peak_gb = extrapolate(points_t, full_edges), extrapolate(points_m, full_edges)


def _duration(s: float | None) -> str:
    if s is None:
        return "-"
    if s < 90:
        return f"{s:.1f} s"
    return f"{s / 60:.1f} min" if s < 5400 else f"{s / 3600:.1f} h"


def render(result: dict) -> str:
    """The estimate as a table (a row per cell) and its totals."""
    rows = [["task", "model", "status", "seeds", "per seed", "peak GB", "seeds in all", "measured on"]]
    for c in result["cells"]:
        seeds = f"{c['seeds_to_train']}" + (f" (+{c['seeds_cached']} cached)" if c["seeds_cached"] else "")
        model = c["model"] + (" (candidate)" if c["role"] == "candidate" else "")
        rows.append([c["task"], model, c["status"], seeds, _duration(c["seconds_per_seed"]),
                     "-" if c["peak_gb"] is None else f"{c['peak_gb']:.2f}", _duration(c["train_s"] or None),
                     c["basis"] if c["status"] in ("train", "does_not_fit") else (c["reason"] or "")[:60]])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    n = sum(c["seeds_to_train"] for c in result["cells"] if c["status"] == "train")
    lines += ["", f"{n} seed run(s) to train: {_duration(result['compute_s'])} of training, about "
                  f"{_duration(result['wall_s'])} of wall time for `dvc repro` with {result['workers']} worker(s) "
                  f"({result['stage_overhead_s']:g} s for the train stage besides training; fetch and report not "
                  "included)"]
    sample = result.get("sample")
    if sample:
        short = sum(1 for c in result["cells"] if 0 < c["probe_epochs"] < result["probe_epochs"])
        large = f" ({short} on stand-ins over {MAX_STANDIN_EDGES:,} edges: {LARGE_PROBE_EPOCHS})" if short else ""
        lines += [f"Measured: the first seed of {sample['cells']} cell(s) for {result['probe_epochs']} epochs{large}: "
                  f"{sample['measured']} probe run(s) now, {sample['reused']} kept from an earlier estimate of the "
                  f"same code and data; {sample['seeds']} seed(s) extrapolated from them. Expected error: "
                  f"{result['error']}. The estimate took {_duration(result['took_s'])}."]
    if result["does_not_fit"]:
        lines += ["", f"{len(result['does_not_fit'])} cell(s) would not run here:"]
        lines += [f"  {line}" for line in result["does_not_fit"]]
    return "\n".join(lines)
