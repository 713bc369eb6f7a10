"""A cell's plan: everything about one (task, model) cell before training.

:func:`plan_cell` reads the task from ``data/<task>/meta.json`` (family,
split, epoch budget, generator: the resolved task spec fetch recorded),
resolves the model and the hyperparameters (epochs: ``train.epochs.<task>``
if given, else that budget), decides cheap outcomes first (an incompatible pair
or unavailable data never imports torch for a built-in model), computes the
per-seed cache keys (:mod:`netzbench.identity`), takes finished seeds from
the cache and lists the jobs still to run. :meth:`CellPlan.finish` turns the
results into the run record (a :class:`~netzbench.records.RunRecord`).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..catalog.card import card_summary
from ..families import headline
from ..graphs.layout import data_hash, read_meta, seed_data_hash
from ..identity import code_version, seed_key, task_spec
from ..model_traits import model_families
from ..protocol import trained
from ..records import SCHEMA_VERSION, RunRecord, cell_status, check_finite, software_versions
from ..settings import Settings
from ..training.planning import batch_size
from ..training.search import select as select_trial
from ..training.search import trials as search_trials
from ..training.search import validation_series
from .cache import SeedCache
from .job import Job

log = logging.getLogger(__name__)


def resolve_epochs(settings: Settings, task_id: str, meta: dict, task_dir: Path) -> tuple[int, str]:
    """A task's epochs and where they come from: ``train.epochs.<task>`` (``"params"``), else the
    budget fetch recorded in ``meta.json`` (``"catalogue"``: the catalogue's or ``custom_tasks``')."""
    override = settings.epochs_override(task_id)
    if override is not None:
        return override, "params"
    if "epochs" not in meta:
        raise ValueError(f"{task_dir / 'meta.json'} has no epoch budget: it was written by an older netzbench; "
                         f"run `netzbench fetch {task_id}` (or `dvc repro`) again, or set `train.epochs.{task_id}`")
    return int(meta["epochs"]), "catalogue"


def display_name(model: str, model_args: dict | None) -> str:
    if not model_args:
        return model
    args = ",".join(f"{k}={model_args[k]}" for k in sorted(model_args))
    return f"{model}[{args}]"


@dataclass
class CellPlan:
    """One cell: its record so far, the cache keys, cached results, the jobs to run.

    ``record`` holds the :class:`~netzbench.records.RunRecord` fields known before training (all
    but ``seeds``, ``status`` and ``reason``); :meth:`finish` completes it.
    """

    record: dict
    seeds: list[int]
    grid: list[dict] = field(default_factory=list)
    keys: dict = field(default_factory=dict)
    results: dict = field(default_factory=dict)
    jobs: list[Job] = field(default_factory=list)
    decided: dict | None = None  # seed -> result when the cell is decided without training
    outcome: str | None = None  # "incompatible" or "unavailable" when decided without training
    reason: str | None = None
    cacheable: bool = True  # False for models defined in memory: their code cannot be hashed

    @property
    def label(self) -> str:
        return f"{self.record['task']}/{self.record['model']}"

    def finish(self) -> RunRecord:
        """The run record (seeds keyed by seed; search selection applied; diverged seeds failed)."""
        self.results = {key: check_finite(entry) for key, entry in self.results.items()}
        if self.decided is not None:
            per_seed = self.decided
        elif not self.grid:
            per_seed = {s: self.results[s, 0] for s in self.seeds}
        else:
            per_seed = {s: self._selected(s) for s in self.seeds}
        seeds = {str(s): per_seed[s] for s in self.seeds}
        done = {"reason": self.reason} if self.reason else {}
        return RunRecord(**self.record, seeds=seeds, status=cell_status(seeds.values()), **done)

    def _selected(self, seed: int) -> dict:
        runs = [self.results[seed, c] for c in range(len(self.grid))]
        best, trace = select_trial(runs, self.record["headline_metric"], self.record["direction"])
        for entry, c in zip(trace, self.grid):
            entry["config"] = c
        span = _time_span(runs)
        seconds = sum(r.get("seconds", 0.0) for r in runs)  # the search's full cost
        if best is None:
            return {"status": "failed", "error": "every search trial failed", "seconds": seconds,
                    "search": {"trace": trace}, **span}
        chosen = dict(runs[best])
        chosen["search"] = {"selected": self.grid[best], "selected_index": best, "trace": trace}
        chosen["seconds"] = seconds
        chosen.update(span)
        return chosen


def _time_span(runs: list[dict]) -> dict:
    """First start and last finish over a seed's search trials (when they were recorded)."""
    starts = [r["started_at"] for r in runs if "started_at" in r]
    ends = [r["finished_at"] for r in runs if "finished_at" in r]
    return {"started_at": min(starts), "finished_at": max(ends)} if starts and ends else {}


def _families(model: str, model_args: dict, model_spec) -> tuple[frozenset, str | None]:
    """The families the model serves and its baseline kind (None for a model under test)."""
    if model_spec is not None:
        return model_spec.task_types, model_spec.baseline
    return model_families(model, model_args)  # a user's module:Class: imported once per version of its source


def pool_weights(tasks: list[str], data_root: str | Path = "data") -> dict[str, float]:
    """A rough size of one seed of each task (epochs x nodes, edges and triples x feature width / 64, from
    ``data/<task>/meta.json``; 0 where it says nothing). The train stage hands the pool the heaviest tasks'
    seeds first, so that it ends on small seeds and no worker idles long behind the last one, and
    ``netzbench estimate`` packs them in the same order. Order only: what a seed computes does not depend
    on it."""
    out = {}
    for task in tasks:
        try:
            meta = json.loads((Path(data_root) / task / "meta.json").read_text())
            counts, epochs = meta.get("counts") or {}, float(meta.get("epochs") or 1)
            size = sum(float(counts.get(k) or 0) for k in ("num_nodes", "num_edges", "num_train_triples"))
            out[task] = epochs * size * max(1.0, float(counts.get("num_features") or 0) / 64)
        except (OSError, ValueError, TypeError, AttributeError):
            out[task] = 0.0
    return out


def plan_cell(task_id: str, model: str, settings: Settings, *, role: str = "roster", model_args: dict | None = None,
              data_root: str | Path = "data", task_dir: str | Path | None = None, model_spec=None,
              quiet: bool = False) -> CellPlan:
    """Resolve a cell: decide it cheaply (incompatible, unavailable), or list its uncached jobs.

    The task is read from ``task_dir`` (default ``data_root/<task_id>``). ``model_spec`` is a
    :class:`~netzbench.models.registry.ModelSpec` of a model defined in memory (the Python API):
    such a cell runs only in-process and is never cached. ``quiet``: what the plan says is logged at
    DEBUG, not INFO (for callers that plan many cells and report them in aggregate).
    """
    say = log.debug if quiet else log.info
    task_dir = Path(task_dir) if task_dir is not None else Path(data_root) / task_id
    meta = read_meta(task_dir)
    if not {"family", "split"} <= set(meta):
        raise ValueError(f"{task_dir / 'meta.json'} has no task spec (family, split): it was written by an "
                         f"older netzbench; run `netzbench fetch {task_id}` (or `dvc repro`) again")
    spec_of_task = task_spec(meta)
    family = meta["family"]
    seeds = list(settings.seeds)
    epochs, epochs_source = resolve_epochs(settings, task_id, meta, task_dir)
    relational = meta.get("split") == "relational_canonical"
    hp = settings.train.hyperparameters(family, epochs, relational=relational)
    switches = settings.protocol.for_task(family, relational=relational)
    metric, direction = headline(family, switches, meta.get("metric"))  # meta: the dataset's, if not the default
    if role == "roster" and model_args is None:
        model_args = settings.model_config(model)  # overrides of the reference configuration
    model_args = dict(model_args or {})
    record = {
        "schema_version": SCHEMA_VERSION,
        "task": task_id,
        "family": family,
        "category": meta.get("category"),
        "task_spec": spec_of_task,
        # roster cells keep the roster name (the report's key); candidates show their arguments
        "model": model if role == "roster" else display_name(model, model_args),
        "model_ref": model,
        "model_args": model_args,
        "role": role,
        "headline_metric": metric,
        "direction": direction,
        "hyperparameters": hp,
        "epochs_source": epochs_source,  # hyperparameters.epochs: a train.epochs override or meta.json's budget
        "batch_size": batch_size(family),  # graphs per step; None: full batch (REPORT.md says which)
        "protocol": {"name": settings.protocol_name, "switches": switches},
        "threads": int(settings.execution.threads),
        "arithmetic": settings.execution.arithmetic,
        "software": software_versions(),
    }
    plan = CellPlan(record, seeds, cacheable=model_spec is None)
    families, record["baseline_kind"] = _families(model, model_args, model_spec)
    record["config_hash"] = seed_key(task=task_id, task_spec=spec_of_task, model=model, model_args=model_args, hp=hp,
                                     protocol=switches)
    record["code_version"] = code_version(model if model_spec is None else None)
    if family not in families:
        plan.reason = f"{model} does not serve {family} (it serves {', '.join(sorted(families))})"
        record["data_hash"] = None
        say(f"{task_id}/{model}: incompatible: {plan.reason}")
        plan.outcome = "incompatible"
        plan.decided = {s: {"status": plan.outcome, "reason": plan.reason} for s in seeds}
        return plan

    record["data_hash"] = data_hash(task_dir)
    record["card"] = card_summary(task_dir, record["data_hash"])  # key figures and warnings, for the report
    if meta.get("status") != "ok":
        plan.reason = f"data for {task_id} unavailable: {meta.get('reason', 'unknown reason')}"
        say(f"{task_id}/{model}: {plan.reason}")
        plan.outcome = "unavailable"
        plan.decided = {s: {"status": plan.outcome, "reason": plan.reason} for s in seeds}
        return plan

    device = settings.execution.device
    if device != "cpu":
        from .device import resolve as resolve_device

        device = resolve_device(device)  # results differ across devices: part of the cache key (CUDA left untouched here)
    record["device"] = device
    plan.grid = search_trials(settings.search.as_dict())
    # a unit of work is (seed, trial); without a search there is one trial: the protocol's hp
    hps = [{**hp, **c} for c in plan.grid] or [hp]
    if plan.grid:
        say(f"{task_id}/{model}: search over {len(plan.grid)} trials per seed: {len(plan.grid)}x the "
            f"training cost of the unsearched protocol ({len(plan.grid) * len(seeds)} runs)")
        record["search"] = {**settings.search.as_dict(), "trials": plan.grid,
                            "criterion": f"{validation_series(metric)} at the final evaluated epoch"}
    cache = SeedCache() if plan.cacheable else None
    how = {"data_dir": str(task_dir.resolve()), "meta": meta,
           # workers fork from a long-lived server: give them this process's cwd and import path
           "cwd": os.getcwd(), "sys_path": list(sys.path), "threads": record["threads"], "device": device,
           "timeout_s": settings.execution.timeout_s, "max_rss_gb": settings.execution.max_rss_gb,
           "arithmetic": record["arithmetic"], "model_spec": model_spec}
    seed_data = {s: seed_data_hash(task_dir, s) for s in seeds}
    for s in seeds:
        for c, hp_c in enumerate(hps):
            # what the job computes: exactly what the key hashes, besides data and code
            spec = {"task": task_id, "task_spec": spec_of_task, "model": model, "model_args": model_args,
                    "hp": hp_c, "protocol": trained(switches), "seed": s}
            extra = {"device": device} if device != "cpu" else {}
            if record["arithmetic"] != "native":  # native keys stay as they were before the mode existed
                extra["arithmetic"] = record["arithmetic"]
            if seed_data[s] is not None:
                extra["seed_data"] = seed_data[s]  # a stored per-seed instance
            plan.keys[s, c] = seed_key(**spec, data=record["data_hash"], code=record["code_version"],
                                       threads=record["threads"], **extra)
            hit = cache.get(plan.keys[s, c]) if cache is not None else None
            if hit is not None:
                plan.results[s, c] = {**hit, "cached": True}
            else:
                plan.jobs.append(Job(spec=spec, trial=c, **how))
    return plan
