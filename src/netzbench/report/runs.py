"""Reading run records into a :class:`BenchmarkReport`.

The roster (tasks x models) comes from ``params.yaml`` (or explicit
arguments), never from scanning ``metrics/runs/``: removed cells stay on
disk, and a cell whose record is missing is reported as missing, with the
reason, instead of silently shrinking the benchmark.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

CANDIDATE_PLACEHOLDERS = ("no_candidate", "in_roster")


def _read(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def _history(seed_entry: dict) -> dict | None:
    if seed_entry.get("status") != "ok":
        return None
    return {k: [math.nan if v is None else v for v in vals] for k, vals in seed_entry["history"].items()}


def _cell_facts(record: dict, seeds: list[int]) -> dict:
    per_seed = {}
    for s in seeds:
        e = record["seeds"].get(str(s))
        if e is None:
            per_seed[str(s)] = {"status": "missing", "reason": "seed not in the run record"}
            continue
        fact = {"status": e["status"]}
        for key in ("reason", "error"):
            if key in e:
                fact[key] = e[key]
        for key in ("seconds", "started_at", "finished_at", "num_params", "peak_rss_mb", "cached"):
            if key in e:
                fact[key] = e[key]
        if "epochs" in e:
            fact["epochs"] = e["epochs"]
        per_seed[str(s)] = fact
    statuses = {f["status"] for f in per_seed.values()}
    status = statuses.pop() if len(statuses) == 1 else "partial"
    out = {"status": status, "role": record.get("role", "roster"), "seeds": per_seed,
           "model_ref": record.get("model_ref"), "hyperparameters": record.get("hyperparameters")}
    if record.get("reason"):
        out["reason"] = record["reason"]
    return out


def load_from_runs(cls, runs_dir="metrics/runs", *, tasks=None, models=None, params="params.yaml",
                   candidate_dir=None, **options):
    from ..catalog.table import DATASETS, TASKS
    from ..params import load_params

    p = None
    if isinstance(params, dict):
        p = params
    elif params is not None and Path(params).is_file():
        p = load_params(params)
    if (tasks is None or models is None) and p is None:
        raise ValueError("from_runs needs the roster: pass tasks= and models=, or a params.yaml")
    tasks = list(tasks if tasks is not None else p["tasks"])
    models = list(models if models is not None else p["models"])
    seeds = list(options.pop("seeds", None) or (p["seeds"] if p else []))
    if p is not None:
        rep = p["report"]
        defaults = {"ci_method": rep["ci_method"], "bootstrap_n": rep["bootstrap_n"],
                    "pairwise_method": rep["pairwise_method"], "epoch_selection": rep["epoch_selection"],
                    "alpha": rep["alpha"], "ci": rep["ci"]}
        if rep.get("equivalence_margin") is not None:
            defaults["equivalence_margin"] = rep["equivalence_margin"]
        if rep.get("rank_tasks") is not None:
            defaults["rank_tasks"] = [t for t in rep["rank_tasks"] if t in tasks]
        options = {**defaults, **options}
    runs_dir = Path(runs_dir)
    records: dict[str, dict[str, dict | None]] = {t: {} for t in tasks}
    for t in tasks:
        for m in models:
            records[t][m] = _read(runs_dir / t / f"{m}.json")
    if not seeds:
        found = {int(s) for bm in records.values() for r in bm.values() if r for s in r["seeds"]}
        seeds = sorted(found)
    candidate_name = None
    if candidate_dir is not None:
        for t in tasks:
            rec = _read(Path(candidate_dir) / f"{t}.json")
            if rec is None or rec.get("status") in CANDIDATE_PLACEHOLDERS:
                continue
            candidate_name = rec["model"]
            records[t][candidate_name] = rec
    histories: dict[str, dict[str, list]] = {}
    cells: dict[str, dict[str, dict]] = {}
    task_meta: dict[str, dict] = {}
    for t in tasks:
        histories[t], cells[t] = {}, {}
        spec = TASKS.get(t)
        meta = {"family": spec.family if spec else None,
                "category": DATASETS[spec.dataset].category if spec else None}
        for m, rec in records[t].items():
            if rec is None:
                cells[t][m] = {"status": "missing", "reason": f"no run record at {runs_dir / t / (m + '.json')}",
                               "role": "roster", "seeds": {}}
                histories[t][m] = [None] * len(seeds)
                continue
            meta.setdefault("metric", rec["headline_metric"])
            meta.setdefault("direction", rec["direction"])
            meta["family"] = rec["family"]
            cells[t][m] = _cell_facts(rec, seeds)
            histories[t][m] = [_history(rec["seeds"].get(str(s), {})) for s in seeds]
        if "metric" not in meta and spec is not None:
            from ..training.runner import HEADLINE

            meta["metric"], meta["direction"] = HEADLINE[spec.family]
        task_meta[t] = meta
    config = {"tasks": tasks, "models": models, "candidate": candidate_name}
    if p is not None:
        config.update({"train": p["train"], "model": p["model"], "model_args": p["model_args"],
                       "report": p["report"], "data": {"on_missing": p["data"]["on_missing"]}})
    return cls(seeds, histories, config, tasks=task_meta, cells=cells, **options)
