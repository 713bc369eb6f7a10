"""The protocol study: the strict protocol, and the paper protocol with one switch at a time set strict.

``netzbench protocols`` trains, for every task and roster model of
``params.yaml`` and the same seeds, each variant through the pipeline's
plan -> executor -> run record path and per-seed cache (cells the variants
share, like the paper protocol's own or a node-classification task's, are
trained once), then writes:

- ``reports/protocol_study.json``: per task, the switches that can move it,
  every variant's headline (``headlines``) and its seed values per model at
  the final epoch (read by the report stage: REPORT.md section 12, the
  measured causes of section 11, and every claim's robustness,
  :mod:`netzbench.report.conclusions`);
- ``reports/strict/``: the strict protocol's full report (``REPORT.md``,
  ``benchmark.json``, tables and ``plots/``), written by the report stage's
  own writer.

Both are published together and all or nothing (:class:`~netzbench.records.StagedFiles`):
every file is written to a temporary beside its target, and renamed into place
only once all are written; a failure before that leaves the previous study as it was.

A switch that cannot move a task is not run on it: the graph-level switches
on link tasks, ``structural_features`` on graphs that have node features,
``synthetic_graphs`` on real data.
"""

from __future__ import annotations

from pathlib import Path

from .catalog.data import fetch_task
from .catalog.table import get_dataset, get_task
from .graphs.layout import read_meta
from .identity import code_version
from .params import merge, ranked_tasks
from .paths import cache_root
from .protocol import BY_NAME, for_task, resolve
from .records import StagedFiles
from .report import BenchmarkReport
from .report.reproduction import STUDY_SCHEMA
from .report.runs import report_from_records
from .report.stage import write_outputs
from .run.execute import run_plans
from .run.plan import plan_cell

STUDY_FILE = Path("reports/protocol_study.json")
STRICT_DIR = Path("reports/strict")


def task_switches(task_id: str, meta: dict) -> list[str]:
    """The switches that can move ``task_id`` (given its fetched ``meta``)."""
    names = list(for_task(resolve("paper"), meta["family"], relational=meta.get("split") == "relational_canonical"))
    has_features = bool(meta.get("synthetic") or (meta.get("counts") or {}).get("num_features"))
    if has_features and "structural_features" in names:
        names.remove("structural_features")
    if get_dataset(get_task(task_id).dataset).reference_params:
        names.append("synthetic_graphs")
    return names


def variants(switches: list[str]) -> dict[str, tuple[str, dict]]:
    """Variant name -> (protocol, overrides): the paper protocol, the strict one, one switch each."""
    out = {"paper": ("paper", {}), "strict": ("strict", {})}
    for name in switches:
        out[f"{name}={BY_NAME[name].strict}"] = ("paper", {name: BY_NAME[name].strict})
    return out


def _data_dir(task_id: str, variant_params: dict, params: dict, data_root: Path, echo) -> Path:
    """The main ``data/<task>`` unless the variant generates other instances (``synthetic_graphs``)."""
    graphs = resolve(variant_params["protocol"], variant_params["protocol_overrides"])["synthetic_graphs"]
    if graphs == resolve(params["protocol"], params["protocol_overrides"])["synthetic_graphs"]:
        return data_root / task_id
    root = cache_root() / "study-data" / graphs
    # every time, like the fetch stage: an unchanged task is left as it is in well under a second, and a
    # folder an older netzbench wrote (another task spec) is brought up to date
    fetch_task(task_id, variant_params, root, echo=echo)
    return root / task_id


def run_study(params: dict, *, data_root: str | Path = "data", out_dir: str | Path = ".", echo=print,
              progress: bool = True, variant_seeds: int | None = None) -> dict:
    """Train every variant's cells, write the study JSON and the strict report; return the study.

    ``variant_seeds``: train the single-switch variants on the first this many seeds only (their
    effect is measured against the paper protocol on the same seeds); the paper and strict
    protocols always get every seed. None: every seed for every variant.
    """
    data_root, out_dir = Path(data_root), Path(out_dir)
    plans, where = [], []
    seeds = list(params["seeds"])
    switch_seeds = seeds[:variant_seeds] if variant_seeds else seeds
    study = {"schema": STUDY_SCHEMA, "code": code_version(), "seeds": seeds, "variant_seeds": switch_seeds,
             "models": list(params["models"]),
             "base": {"protocol": params["protocol"], "protocol_overrides": params["protocol_overrides"]},
             "tasks": {}}
    strict_params = merge(params, {"protocol": "strict", "protocol_overrides": {}})
    for task_id in params["tasks"]:
        if not (data_root / task_id / "meta.json").is_file():
            fetch_task(task_id, params, data_root, echo=echo)
        meta = read_meta(data_root / task_id)
        if meta.get("status") != "ok":
            continue
        switches = task_switches(task_id, meta)
        study["tasks"][task_id] = {"switches": switches, "variants": {}}
        for name, (protocol, overrides) in variants(switches).items():
            variant_params = merge(params, {"protocol": protocol, "protocol_overrides": overrides})
            variant_params["protocol_overrides"] = dict(overrides)  # merge keeps params' own overrides otherwise
            if name not in ("paper", "strict"):
                variant_params["seeds"] = list(switch_seeds)
            task_dir = _data_dir(task_id, variant_params, params, data_root, echo)
            for model in params["models"]:
                plan = plan_cell(task_id, model, variant_params, task_dir=task_dir, echo=lambda _m: None)
                if plan.outcome is None:
                    plans.append(plan)
                    where.append((task_id, name, model))
    echo(f"protocol study: {len(plans)} cells, {sum(len(p.jobs) for p in plans)} seed run(s) not cached")
    run_plans(plans, params, echo=echo, progress=progress, desc="protocols")
    records: dict[str, dict[str, dict[str, dict]]] = {}
    for plan, (task_id, name, model) in zip(plans, where):
        records.setdefault(name, {}).setdefault(task_id, {})[model] = plan.finish()
    for name, by_task in records.items():
        report = report_from_records(BenchmarkReport, by_task, seeds if name in ("paper", "strict") else switch_seeds)
        for task_id, values in report.final_metrics().items():
            entry = study["tasks"][task_id]
            entry.setdefault("metric", report.task_info[task_id].metric)
            entry.setdefault("direction", report.task_info[task_id].direction)
            # each variant's own headline (a link task's follows link_metric): what its values are
            entry.setdefault("headlines", {})[name] = {"metric": report.task_info[task_id].metric,
                                                       "direction": report.task_info[task_id].direction}
            entry["variants"][name] = {m: [float(v) for v in vals] for m, vals in values.items()}
    strict = {t: records["strict"].get(t, {}) for t in params["tasks"] if t in records.get("strict", {})}
    with StagedFiles() as out:  # renamed into place when both are written
        out.write_json(out_dir / STUDY_FILE, study, indent=1)
        _write_strict_report(strict, strict_params, out_dir / STRICT_DIR, echo, out)
    echo(f"protocol study: {out_dir / STUDY_FILE}, strict report in {out_dir / STRICT_DIR}/")
    return study


def strict_place(target: Path):
    """Where the strict report's outputs go: ``reports/*`` and ``plots/`` straight under ``target``,
    ``metrics/report.json`` as ``target/report.json`` (no ``headline.json``: DVC shows the main one)."""
    def place(rel: str) -> Path | None:
        if rel == "metrics/headline.json":
            return None
        if rel == "metrics/report.json":
            return target / "report.json"
        return target / rel.removeprefix("reports/")
    return place


def _write_strict_report(records: dict, params: dict, target: Path, echo, staging: StagedFiles) -> None:
    """The report stage's outputs for the strict protocol's records, staged under ``target``."""
    rep = params["report"]
    options = {k: rep[k] for k in ("ci_method", "bootstrap_n", "pairwise_method", "epoch_selection", "alpha", "ci")}
    options["equivalence_margin"] = rep.get("equivalence_margin")
    ranked, _ = ranked_tasks({**params, "tasks": list(records)})
    if ranked is not None:
        options["rank_tasks"] = ranked
    config = {"tasks": list(records), "models": list(params["models"]), "protocol": "strict",
              "protocol_overrides": {}, "train": params["train"], "report": rep}
    report = report_from_records(BenchmarkReport, records, list(params["seeds"]), config=config, **options)
    write_outputs(report, params, None, echo=echo, staging=staging, place=strict_place(target))
