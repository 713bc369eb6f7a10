"""Run records into a :class:`BenchmarkReport`: the report's one door to training results.

A run record is the only thing the report reads about a cell: its status,
per-seed facts and histories, the task's family, category and headline
metric. Records are read and schema-checked by :mod:`netzbench.records`
(errors name the file) and a cell's status is :func:`netzbench.records.cell_status`.

The roster (tasks x models) comes from ``params.yaml`` (or explicit
arguments), never from scanning ``metrics/runs/``: removed cells stay on
disk, and a cell whose record is missing is reported as missing, with the
reason, instead of silently shrinking the benchmark.
"""

from __future__ import annotations

from pathlib import Path

from ..records import PLACEHOLDERS, cell_status, read_record, seed_history

#: per-seed facts of a record that the report keeps beside the histories
SEED_FACTS = ("reason", "error", "seconds", "started_at", "finished_at", "num_params", "hidden_channels",
              "peak_rss_mb", "cached", "epochs", "baseline", "split", "leakage", "search", "sampling", "gpu")


def cell_facts(record: dict, seeds: list[int]) -> dict:
    """What the report keeps about a cell besides its histories: status, role, per-seed facts."""
    from ..params import validation_is_reported

    per_seed = {}
    for s in seeds:
        entry = record["seeds"].get(str(s))
        if entry is None:
            per_seed[str(s)] = {"status": "missing", "reason": "seed not in the run record"}
            continue
        per_seed[str(s)] = {"status": entry["status"], **{k: entry[k] for k in SEED_FACTS if k in entry}}
    out = {"status": cell_status(per_seed.values()), "role": record.get("role", "roster"), "seeds": per_seed,
           "model_ref": record.get("model_ref"), "hyperparameters": record.get("hyperparameters")}
    if "batch_size" in record:  # graphs per step (None: full batch); records before it say nothing
        out["batch_size"] = record["batch_size"]
    if record.get("protocol"):  # the protocol's name and the task's switches (REPORT.md section 1)
        out["protocol"] = record["protocol"]
    if record.get("reason"):
        out["reason"] = record["reason"]
    if record.get("baseline_kind"):  # a reference point, not a model under test (report.baselines)
        out["baseline_kind"] = record["baseline_kind"]
    if record.get("card"):  # the dataset card's figures and warnings (REPORT.md's dataset table)
        out["card"] = record["card"]
    spec = record.get("task_spec") or {}
    if spec.get("synthetic"):  # a generator or seed-aware loader: new data every seed (the t-test's rho is 0)
        out["data_per_seed"] = True
    switches = (record.get("protocol") or {}).get("switches") or {}
    if validation_is_reported(switches, record.get("family") or "", spec.get("split") or ""):
        out["validation_is_test"] = True  # best_val would select on the reported set: refused (.selection)
    return out


def report_from_records(cls, records: dict[str, dict[str, dict | None]], seeds: list[int], *,
                        config: dict | None = None, categories: dict[str, str | None] | None = None,
                        missing_reason=None, **options):
    """A ``cls`` (:class:`BenchmarkReport`) from ``records[task][model]`` (a record, or None if missing).

    ``categories`` supplies a task's research category where its records carry none;
    ``missing_reason(task, model)`` says why a record is missing.
    """
    histories: dict[str, dict[str, list]] = {}
    cells: dict[str, dict[str, dict]] = {}
    task_meta: dict[str, dict] = {}
    for task, by_model in records.items():
        histories[task], cells[task] = {}, {}
        meta = {"family": None, "category": (categories or {}).get(task)}
        for model, rec in by_model.items():
            if rec is None:
                why = missing_reason(task, model) if missing_reason else "no run record"
                cells[task][model] = {"status": "missing", "reason": why, "role": "roster", "seeds": {}}
                histories[task][model] = [None] * len(seeds)
                continue
            meta.setdefault("metric", rec["headline_metric"])
            meta.setdefault("direction", rec["direction"])
            meta["family"] = rec["family"]
            meta["category"] = rec.get("category") or meta["category"]
            cells[task][model] = cell_facts(rec, seeds)
            histories[task][model] = [seed_history(rec["seeds"].get(str(s), {})) for s in seeds]
        task_meta[task] = meta
    return cls(seeds, histories, config, tasks=task_meta, cells=cells, **options)


def read_roster(runs_dir, tasks: list[str], models: list[str], candidate_dir=None
                ) -> tuple[dict[str, dict[str, dict | None]], str | None]:
    """``records[task][model]`` of the roster (None where missing) and the candidate's name, if any."""
    runs_dir = Path(runs_dir)
    records = {t: {m: read_record(runs_dir / t / f"{m}.json", missing_ok=True) for m in models} for t in tasks}
    candidate = None
    if candidate_dir is not None:
        for t in tasks:
            rec = read_record(Path(candidate_dir) / f"{t}.json", missing_ok=True)
            if rec is None or rec.get("status") in PLACEHOLDERS:
                continue
            candidate = rec["model"]
            records[t][candidate] = rec
    return records, candidate


def load_from_runs(cls, runs_dir="metrics/runs", *, tasks=None, models=None, params="params.yaml",
                   candidate_dir=None, **options):
    """What :meth:`BenchmarkReport.from_runs` does (see there)."""
    from ..settings import Settings
    from .options import options_from_settings

    settings = None
    if isinstance(params, Settings):
        settings = params
    elif params is not None and Path(params).is_file():
        settings = Settings.load(params)  # a path: this call is an entry point (the Python API's)
    if (tasks is None or models is None) and settings is None:
        raise ValueError("from_runs needs the roster: pass tasks= and models=, or a params.yaml")
    tasks = list(tasks if tasks is not None else settings.tasks)
    models = list(models if models is not None else settings.models)
    seeds = list(options.pop("seeds", None) or (settings.seeds if settings else []))
    if settings is not None:
        options = {**options_from_settings(settings, tasks), **options}
    records, candidate = read_roster(runs_dir, tasks, models, candidate_dir)
    if not seeds:
        seeds = sorted({int(s) for by_model in records.values() for r in by_model.values() if r for s in r["seeds"]})
    config = {"tasks": tasks, "models": models, "candidate": candidate}
    codes = {r.get("code_version") for t in tasks for m in models if (r := records[t].get(m))}
    if len(codes) == 1 and None not in codes:  # the result code the roster trained with (report/publication.py)
        config["code"] = codes.pop()
    if settings is not None:  # the blocks as params.yaml holds them (benchmark.json's config)
        p = settings.to_params()
        config.update({"protocol": p["protocol"], "protocol_overrides": p["protocol_overrides"],
                       "train": p["train"], "model": p["model"], "model_args": p["model_args"],
                       "report": p["report"], "data": {"on_missing": p["data"]["on_missing"]}})
    return report_from_records(cls, records, seeds, config=config,
                               missing_reason=lambda t, m: f"no run record at {Path(runs_dir) / t / (m + '.json')}",
                               **options)


def task_finals(cls, records: dict[str, dict | None], task: str, seeds: list[int]):
    """``(finals, info)`` of one task's records: each model's headline per seed as a report reads it
    (:meth:`BenchmarkReport.final_metrics`, ``cls`` the report class) and the task's info (metric,
    direction): what the protocol study, the seed rounds and the structure controls decide on."""
    report = report_from_records(cls, {task: records}, seeds)
    return report.final_metrics().get(task, {}), report.task_info[task]
