"""The cell runner: every seed of one (task, model) cell, cached, in parallel.

``train_cell`` resolves the task, the model and the hyperparameters, decides
cheap outcomes first (an incompatible pair or unavailable data never imports
torch for a built-in model), serves finished seeds from the per-seed cache,
trains the rest in worker processes (``exec.workers``; each seed in a fresh
process forked from a server that has torch preloaded, pinned to
``exec.threads`` intra-op threads so the result does not depend on how many
run at once), stores each seed in the cache the moment it finishes, and writes
the run record atomically.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..catalog.data import data_hash, read_meta
from ..catalog.table import get_task
from ..models.registry import ModelError, builtin_families, resolve_model
from ..params import workers as n_workers
from ..paths import repository_on_path
from .cache import SeedCache, canonical_json, seed_key, source_hash
from .executor import run_jobs
from .record import SCHEMA_VERSION, cell_status, software_versions, write_record
from .search import candidates as search_candidates
from .search import select as select_candidate
from .search import validation_series

PACKAGE_DIR = Path(__file__).resolve().parents[1]
HEADLINE = {
    "node_cls": ("test_acc", "higher"),
    "graph_cls": ("test_acc", "higher"),
    "graph_reg": ("test_mae", "lower"),
    "link_pred": ("test_auc", "higher"),
}


def resolve_hparams(params: dict, task_id: str, family: str) -> dict:
    train = params["train"]
    return {
        "hidden_channels": int(train["hidden_channels"]),
        "lr": float(train[family]["lr"]),
        "weight_decay": float(train[family].get("weight_decay", 0.0)),
        "epochs": int(train["epochs"][task_id]),
        "eval_every": int(train["eval_every"]),
    }


#: The code a training result depends on (paths relative to the package). The
#: train and candidate stages in dvc.yaml list the same paths as deps; the
#: catalogue's entries, readers and fetch code are left out on purpose: they
#: reach a result only through the processed data, which is hashed separately.
TRAINING_CODE = ("models", "training", "catalog/data.py", "catalog/arrays.py", "catalog/loaders.py", "catalog/convert.py",
                 "catalog/synthetic.py", "catalog/generators.py")


def code_version(model_ref: str | None = None) -> str:
    """Hash of the training code, plus the user model's source when given."""
    paths = [PACKAGE_DIR / rel for rel in TRAINING_CODE if (PACKAGE_DIR / rel).exists()]
    if model_ref and ":" in model_ref:
        top = model_ref.split(":")[0].split(".")[0]
        repository_on_path()
        spec = importlib.util.find_spec(top)
        if spec is not None and spec.origin:
            origin = Path(spec.origin)
            paths.append(origin.parent if origin.name == "__init__.py" else origin)
    return source_hash(paths)


def display_name(model: str, model_args: dict | None) -> str:
    if not model_args:
        return model
    args = ",".join(f"{k}={model_args[k]}" for k in sorted(model_args))
    return f"{model}[{args}]"


@dataclass
class CellPlan:
    """Everything about one cell before training: its record so far, cached results, the jobs to run."""

    record: dict
    seeds: list[int]
    grid: list[dict] = field(default_factory=list)
    keys: dict = field(default_factory=dict)
    results: dict = field(default_factory=dict)
    jobs: list[dict] = field(default_factory=list)
    decided: dict | None = None  # seed -> result when the cell is decided without training
    reason: str | None = None

    @property
    def label(self) -> str:
        return f"{self.record['task']}/{self.record['model']}"

    def finish(self) -> dict:
        """The run record (seeds keyed by seed; search selection applied)."""
        if self.decided is not None:
            per_seed = self.decided
        elif not self.grid:
            per_seed = {s: self.results[s, 0] for s in self.seeds}
        else:
            per_seed = {}
            for s in self.seeds:
                runs = [self.results[s, c] for c in range(len(self.grid))]
                best, trace = select_candidate(runs, self.record["headline_metric"], self.record["direction"])
                for entry, c in zip(trace, self.grid):
                    entry["config"] = c
                span = _time_span(runs)
                if best is None:
                    per_seed[s] = {"status": "failed", "error": "every search candidate failed",
                                   "seconds": sum(r.get("seconds", 0.0) for r in runs), "search": {"trace": trace},
                                   **span}
                    continue
                chosen = dict(runs[best])
                chosen["search"] = {"selected": self.grid[best], "selected_index": best, "trace": trace}
                chosen["seconds"] = sum(r.get("seconds", 0.0) for r in runs)  # the search's full cost
                chosen.update(span)
                per_seed[s] = chosen
        record = dict(self.record)
        record["seeds"] = {str(s): per_seed[s] for s in self.seeds}
        record["status"] = cell_status(record["seeds"])
        if self.reason:
            record["reason"] = self.reason
        return record


def _time_span(runs: list[dict]) -> dict:
    """First start and last finish over a seed's search candidates (when they were recorded)."""
    starts = [r["started_at"] for r in runs if "started_at" in r]
    ends = [r["finished_at"] for r in runs if "finished_at" in r]
    return {"started_at": min(starts), "finished_at": max(ends)} if starts and ends else {}


def plan_cell(task_id: str, model: str, params: dict, *, role: str = "roster", model_args: dict | None = None,
              data_root: str | Path = "data", echo=print) -> CellPlan:
    """Resolve a cell: decide it cheaply (incompatible, unavailable), or list its uncached jobs."""
    task = get_task(task_id)
    family = task.family
    seeds = list(params["seeds"])
    hp = resolve_hparams(params, task_id, family)
    metric, direction = HEADLINE[family]
    if role == "roster" and model_args is None:
        model_args = params["train"]["model_config"].get(model)  # overrides of the reference configuration
    model_args = dict(model_args or {})
    task_dir = Path(data_root) / task_id
    record = {
        "schema_version": SCHEMA_VERSION,
        "task": task_id,
        "family": family,
        # roster cells keep the roster name (the report's key); candidates show their arguments
        "model": model if role == "roster" else display_name(model, model_args),
        "model_ref": model,
        "model_args": model_args,
        "role": role,
        "headline_metric": metric,
        "direction": direction,
        "hyperparameters": hp,
        "threads": int(params["exec"]["threads"]),
        "software": software_versions(),
    }
    plan = CellPlan(record, seeds)
    families = builtin_families(model)
    if families is None:
        families = resolve_model(model, model_args).task_types  # user model: importing is unavoidable
    record["config_hash"] = seed_key(task=task_id, model=model, model_args=model_args, hp=hp)
    record["code_version"] = code_version(model)
    if family not in families:
        plan.reason = f"{model} does not serve {family} (it serves {', '.join(sorted(families))})"
        record["data_hash"] = None
        echo(f"{task_id}/{model}: incompatible: {plan.reason}")
        plan.decided = {s: {"status": "incompatible", "reason": plan.reason} for s in seeds}
        return plan

    meta = read_meta(task_dir)
    record["data_hash"] = data_hash(task_dir)
    if meta.get("status") != "ok":
        plan.reason = f"data for {task_id} unavailable: {meta.get('reason', 'unknown reason')}"
        echo(f"{task_id}/{model}: {plan.reason}")
        plan.decided = {s: {"status": "unavailable", "reason": plan.reason} for s in seeds}
        return plan

    cache = SeedCache()
    device = params["exec"].get("device", "cpu")
    if device != "cpu":
        from .seed_job import resolve_device

        device = resolve_device(device).type  # results differ across devices: part of the cache key
    record["device"] = device
    plan.grid = search_candidates(params.get("search"))
    # a unit of work is (seed, candidate); without a search there is one candidate: the protocol's hp
    hps = [{**hp, **c} for c in plan.grid] or [hp]
    if plan.grid:
        echo(f"{task_id}/{model}: search over {len(plan.grid)} candidates per seed: {len(plan.grid)}x the "
             f"training cost of the unsearched protocol ({len(plan.grid) * len(seeds)} runs)")
        record["search"] = {"space": params["search"]["space"], "method": params["search"].get("method", "grid"),
                            "n": params["search"].get("n"), "seed": params["search"].get("seed", 0),
                            "candidates": plan.grid,
                            "criterion": f"{validation_series(metric)} at the final evaluated epoch"}
    for s in seeds:
        for c, hp_c in enumerate(hps):
            plan.keys[s, c] = seed_key(task=task_id, model=model, model_args=model_args, hp=hp_c, seed=s,
                                       data=record["data_hash"], code=record["code_version"],
                                       threads=record["threads"], **({"device": device} if device != "cpu" else {}))
            hit = cache.get(plan.keys[s, c])
            if hit is not None:
                plan.results[s, c] = {**hit, "cached": True}
    base_job = {"task": task_id, "family": family, "split": task.split, "data_dir": str(task_dir.resolve()),
                # workers fork from a long-lived server: give them this process's cwd and import path
                "cwd": os.getcwd(), "sys_path": list(sys.path),
                "model_ref": model, "model_args": model_args, "meta": meta, "threads": record["threads"],
                "device": device, "timeout_s": params["exec"].get("timeout_s"),
                "max_rss_gb": params["exec"].get("max_rss_gb")}
    plan.jobs = [{**base_job, "seed": s, "candidate": c, "hp": hps[c]}
                 for s in seeds for c in range(len(hps)) if (s, c) not in plan.results]
    return plan


def run_plans(plans: list[CellPlan], params: dict, *, echo=print, progress: bool = True, desc: str | None = None):
    """Train the jobs of every plan together (one pool, or one Ray submission); cache each result."""
    jobs = []
    for i, plan in enumerate(plans):
        for job in plan.jobs:
            job["plan"] = i
            jobs.append(job)
    if not jobs:
        return
    cache = SeedCache()
    workers = n_workers(params)
    executor = params["exec"].get("executor", "local")
    if len(plans) == 1:
        todo = sorted({j["seed"] for j in jobs})
        echo(f"{plans[0].label}: training seeds {todo} ({len(plans[0].seeds) - len(todo)} cached), "
             f"{plans[0].record['hyperparameters']['epochs']} epochs, "
             f"{min(workers, len(jobs)) if executor == 'local' else 'ray'} worker(s)")
    bar = None
    done_epochs: dict[int, int] = {}
    finished: list[int] = []
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=sum(j["hp"]["epochs"] for j in jobs), desc=desc or plans[0].label, unit="epoch",
                   file=sys.stderr, dynamic_ncols=True, mininterval=0.5)

    def on_epochs(job_index: int, epoch: int) -> None:
        if bar is not None:
            bar.update(max(0, epoch - done_epochs.get(job_index, 0)))
            done_epochs[job_index] = max(epoch, done_epochs.get(job_index, 0))

    def on_result(job: dict, result: dict) -> None:
        plan = plans[job["plan"]]
        unit = (job["seed"], job["candidate"])
        plan.results[unit] = result
        if result["status"] == "ok":
            cache.put(plan.keys[unit], result)  # saved the moment it finishes: a crash later loses nothing
        else:
            echo(f"{plan.label} seed {job['seed']} FAILED: {result.get('error')}")
        finished.append(job["seed"])
        if bar is not None:  # a failed or killed job still counts its whole budget
            on_epochs(job["job_index"], job["hp"]["epochs"])
            bar.set_postfix_str(f"runs done {len(finished)}/{len(jobs)}, last {plan.label} seed {job['seed']}")

    try:
        if executor == "ray":
            from .ray_executor import run_jobs_ray

            run_jobs_ray(jobs, params, on_result, on_epochs if bar is not None else None)
        else:
            run_jobs(jobs, workers, on_result, on_epochs if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()


def train_cell(task_id: str, model: str, params: dict, out_path: str | Path, *, role: str = "roster",
               model_args: dict | None = None, data_root: str | Path = "data", echo=print,
               progress: bool = True) -> dict:
    """Train (or recall) every seed of the cell and write its run record to ``out_path``."""
    plan = plan_cell(task_id, model, params, role=role, model_args=model_args, data_root=data_root, echo=echo)
    run_plans([plan], params, echo=echo, progress=progress)
    record = plan.finish()
    write_record(out_path, record)
    return record


def check_model(model: str, model_args: dict | None = None) -> None:
    """Fail early, with the valid choices, for an unknown or unimportable model."""
    if builtin_families(model) is None:
        resolve_model(model, model_args or {})


__all__ = ["train_cell", "check_model", "resolve_hparams", "HEADLINE", "ModelError", "canonical_json"]
