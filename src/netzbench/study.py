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
``synthetic_graphs`` on real data, ``relational_ranking`` anywhere (it adds the
full-ranking series, which the paper's ROC-AUC headline never reads).
"""

from __future__ import annotations

import json
import logging
import math
import signal
from pathlib import Path

from .catalog.data import fetch_task
from .catalog.table import get_dataset, get_task
from .graphs.layout import read_meta
from .identity import code_version
from .paths import cache_root
from .protocol import BY_NAME, Protocol
from .settings import Settings, thaw
from .records import StagedFiles, write_json_atomic
from .report import BenchmarkReport
from .report.options import options_from_settings
from .report.reproduction import STUDY_SCHEMA
from .report.runs import report_from_records
from .report.stage import write_outputs
from .run.execute import run_plans
from .run.plan import batch_size, plan_cell

log = logging.getLogger(__name__)

STUDY_FILE = Path("reports/protocol_study.json")
STRICT_DIR = Path("reports/strict")


def task_switches(task_id: str, meta: dict, task_dir: str | Path | None = None) -> list[str]:
    """The switches that can move ``task_id`` (given its fetched ``meta``; ``task_dir``, where its data
    is, lets a switch that would change nothing on these data be left out, e.g.
    ``relational_held_out_overlap`` where no training triple restates a held-out one)."""
    names = list(Protocol().for_task(meta["family"], relational=meta.get("split") == "relational_canonical"))
    has_features = bool(meta.get("synthetic") or (meta.get("counts") or {}).get("num_features"))
    if has_features and "structural_features" in names:
        names.remove("structural_features")
    if "relational_held_out_overlap" in names and task_dir is not None and not _held_out_restated(Path(task_dir)):
        names.remove("relational_held_out_overlap")  # dropping nothing trains the paper protocol's seeds again
    if "relational_ranking" in names:  # adds series the paper headline (ROC-AUC) never reads: the same value
        names.remove("relational_ranking")
    if get_dataset(get_task(task_id).dataset).reference_params:
        names.append("synthetic_graphs")
    return names


def _held_out_restated(task_dir: Path) -> bool:
    """Does a training triple of the stored knowledge graph restate a validation or test triple (the same
    relation, either direction: what ``relational_held_out_overlap: drop`` leaves out)?"""
    import numpy as np

    from .training.leakage import triple_ids

    path = task_dir / "graph.npz"
    if not path.is_file():
        return True  # not stored here: assume the switch can act
    with np.load(path, allow_pickle=False) as z:
        n, r = int(z["num_nodes"].reshape(-1)[0]), int(z["num_relations"].reshape(-1)[0])

        def ids(split):
            return triple_ids(np.stack([z[f"{split}_edge_index"][0], z[f"{split}_edge_type"],
                                        z[f"{split}_edge_index"][1]]), n, r)
        held = np.concatenate([ids("valid"), ids("test")])
        return bool(np.isin(ids("train"), held).any())


def variants(switches: list[str]) -> dict[str, tuple[str, dict]]:
    """Variant name -> (protocol, overrides): the paper protocol, the strict one, one switch each."""
    out = {"paper": ("paper", {}), "strict": ("strict", {})}
    for name in switches:
        out[f"{name}={BY_NAME[name].strict}"] = ("paper", {name: BY_NAME[name].strict})
    return out


def _data_dir(task_id: str, variant: Settings, settings: Settings, data_root: Path) -> Path:
    """The main ``data/<task>`` unless the variant generates other instances (``synthetic_graphs``)."""
    graphs = variant.protocol.synthetic_graphs
    if graphs == settings.protocol.synthetic_graphs:
        return data_root / task_id
    root = cache_root() / "study-data" / graphs
    # every time, like the fetch stage: an unchanged task is left as it is in well under a second, and a
    # folder an older netzbench wrote (another task spec) is brought up to date
    fetch_task(task_id, variant, root)
    return root / task_id


#: what a study must share with the run it resumes (else it starts afresh)
RESUME_KEYS = ("schema", "code", "seeds", "variant_seeds", "models", "base")


def _previous(out_dir: Path, header: dict) -> tuple[dict | None, dict]:
    """The study at ``out_dir`` and its strict report's JSON form when they can be resumed: the same
    :data:`RESUME_KEYS` as ``header`` (same result code, seeds, roster). Else ``(None, {})``."""
    from .report import persistence

    path = out_dir / STUDY_FILE
    if not path.is_file():
        return None, {}
    try:
        study = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        log.info(f"protocol study: {path} is not readable ({exc}); starting afresh")
        return None, {}
    differ = [k for k in RESUME_KEYS if study.get(k) != header[k]]
    if differ:
        log.info(f"protocol study: {path} was written for another {', '.join(differ)}; starting afresh")
        return None, {}
    strict_path = out_dir / STRICT_DIR / "benchmark.json"
    try:
        strict = persistence.read(strict_path) if strict_path.is_file() else {}
    except (OSError, ValueError):
        strict = {}
    # only the strict report this study wrote (the study file is also written alone, after each variant)
    if strict and (strict.get("seeds") != header["seeds"] or (strict.get("config") or {}).get("code") != header["code"]):
        strict = {}
    return study, strict


def _remaining(study: dict, todo: dict[str, list[str]], held: dict | None = None) -> None:
    """Set ``complete`` and ``remaining`` (task -> variants not yet in the study) from ``todo`` and the
    tasks whose strict values are ``held`` back until the strict report is written."""
    study["remaining"] = {t: names + (["strict"] if t in (held or {}) else []) for t, names in todo.items()
                          if names or t in (held or {})}
    study["complete"] = not study["remaining"]


def run_study(settings: Settings, *, data_root: str | Path = "data", out_dir: str | Path = ".",
              progress: bool = True, variant_seeds: int | None = None, tasks: list[str] | None = None,
              afresh: bool = False) -> dict:
    """Train every variant's cells, write the study JSON and the strict report; return the study.

    ``variant_seeds``: train the single-switch variants on the first this many seeds only (their
    effect is measured against the paper protocol on the same seeds); the paper and strict
    protocols always get every seed. None: every seed for every variant.

    Resumable: a study already at ``out_dir`` for the same result code, seeds and roster is
    continued -- its finished variants are kept (their values are the study's; nothing is
    retrained) and only the missing ones run. ``tasks`` (default: every task of ``settings``) limits
    this run to some tasks, run in that order. The study is written after every (task, variant); a task enters
    ``tasks`` once all its variants are in (until then it is under ``pending``, which the report
    does not read), ``remaining`` lists what is still to run and ``complete`` says whether anything
    is. Strict values enter the study together with the strict report that holds their histories
    (at the end, and when interrupted). ``afresh``: ignore a previous study.
    """
    data_root, out_dir = Path(data_root), Path(out_dir)
    seeds = list(settings.seeds)
    switch_seeds = seeds[:variant_seeds] if variant_seeds else seeds
    header = {"schema": STUDY_SCHEMA, "code": code_version(), "seeds": seeds, "variant_seeds": switch_seeds,
              "models": list(settings.models),
              "base": {"protocol": settings.protocol_name, "protocol_overrides": thaw(settings.protocol_overrides)}}
    previous, strict_form = (None, {}) if afresh else _previous(out_dir, header)
    study = previous or {**header, "tasks": {}}
    study.setdefault("pending", {})
    strict_done = set((strict_form.get("histories") or {}))
    strict_settings = settings.replace(protocol="strict", protocol_overrides={})
    chosen = list(tasks) if tasks else list(settings.tasks)
    unknown = [t for t in chosen if t not in settings.tasks]
    if unknown:
        raise ValueError(f"protocol study: task(s) {unknown} are not in params.yaml's tasks {list(settings.tasks)}")
    groups, todo = [], {}
    before = dict(study.get("remaining") or {})  # what the study resumed still lacked
    for task_id in settings.tasks:
        if not (data_root / task_id / "meta.json").is_file():
            if task_id not in chosen:  # not asked for: what the study holds of it stays as it is
                part = study["pending"].get(task_id)
                if part:
                    todo[task_id] = [n for n in variants(part["switches"]) if n not in part["variants"]]
                elif task_id not in study["tasks"]:
                    # a resumed study knows what it still lacked (a task whose data was unavailable: nothing);
                    # a new one cannot tell without the data
                    left = list(before.get(task_id, [])) if previous else ["(not fetched)"]
                    if left:
                        todo[task_id] = left
                continue
            fetch_task(task_id, settings, data_root)
        meta = read_meta(data_root / task_id)
        if meta.get("status") != "ok":
            study["tasks"].pop(task_id, None)
            study["pending"].pop(task_id, None)
            continue
        switches = task_switches(task_id, meta, data_root / task_id)
        entry = study["tasks"].pop(task_id, None) or study["pending"].get(task_id) or {"switches": switches,
                                                                                        "variants": {}}
        if entry.get("switches") != switches:  # another catalogue spec: its variants measured other things
            entry = {"switches": switches, "variants": {}}
        if "strict" in entry["variants"] and task_id not in strict_done:
            del entry["variants"]["strict"]  # its histories never reached reports/strict/: run it again
        study["pending"][task_id] = entry
        todo[task_id] = [n for n in variants(switches) if n not in entry["variants"]]
        for name, (protocol, overrides) in variants(switches).items():
            if name in entry["variants"] or task_id not in chosen:
                continue
            # the variant's own overrides only (replace sets protocol_overrides as given, never merged)
            variant = settings.replace(protocol=protocol, protocol_overrides=dict(overrides),
                                       **({} if name in ("paper", "strict") else {"seeds": list(switch_seeds)}))
            groups.append((task_id, name, variant, _data_dir(task_id, variant, settings, data_root)))  # fetched once
    groups.sort(key=lambda g: chosen.index(g[0]))  # in the order asked for (stable: variants as listed)
    _promote(study, todo)
    kept = sum(len(e["variants"]) for e in (*study["tasks"].values(), *study["pending"].values()))
    cells = [plan_cell(g[0], m, g[2], task_dir=g[3], quiet=True) for g in groups for m in settings.models]
    live = [p for p in cells if p.outcome is None]
    log.info(f"protocol study: {len(live)} cells, {sum(len(p.jobs) for p in live)} seed run(s) not cached"
             + (f"; resuming {out_dir / STUDY_FILE} ({kept} variant(s) kept)" if previous else ""))
    strict_records: dict[str, dict] = {}
    strict_values: dict[str, dict] = {}
    previous_term = _stop_on_terminate()
    try:
        for task_id, name, variant, task_dir in groups:
            # planned again now: an earlier variant may have trained (and cached) some of these seeds
            plans = {m: plan_cell(task_id, m, variant, task_dir=task_dir, quiet=True)
                     for m in settings.models}
            plans = {m: p for m, p in plans.items() if p.outcome is None}
            run_plans(list(plans.values()), settings, progress=progress, desc=f"{task_id} {name}")
            records = {m: p.finish().to_dict() for m, p in plans.items()}
            values = _variant_values(records, task_id, name, seeds if name in ("paper", "strict") else switch_seeds)
            if name == "strict":  # enters the study with the strict report that holds its histories
                strict_records[task_id], strict_values[task_id] = records, values
            else:
                _store(study["pending"][task_id], name, values)
            todo[task_id].remove(name)
            _promote(study, todo, held=strict_values)
            write_json_atomic(out_dir / STUDY_FILE, study)
    finally:
        if previous_term is not None:
            signal.signal(signal.SIGTERM, previous_term)
        if strict_records:  # also when stopped: what finished is kept
            for task_id, values in strict_values.items():
                _store(study["pending"][task_id], "strict", values)
            _promote(study, todo)
            with StagedFiles() as out:  # renamed into place when both are written
                out.write_json(out_dir / STUDY_FILE, study, indent=1)
                pending = [t for t, names in study["remaining"].items() if "strict" in names]
                _write_strict_report(strict_records, strict_form, strict_settings, out_dir / STRICT_DIR, out, pending)
    if not groups:
        write_json_atomic(out_dir / STUDY_FILE, study)
        if strict_form.get("histories"):  # nothing to train: the strict report again, with this report code
            with StagedFiles() as out:
                pending = [t for t, names in study["remaining"].items() if "strict" in names]
                _write_strict_report({}, strict_form, strict_settings, out_dir / STRICT_DIR, out, pending)
    left = sum(len(v) for v in study["remaining"].values())
    log.info(f"protocol study: {out_dir / STUDY_FILE}, strict report in {out_dir / STRICT_DIR}/"
             + (f"; {left} variant(s) of {len(study['remaining'])} task(s) still to run "
                f"(`netzbench protocols` continues)" if left else "; complete"))
    return study


def _stop_on_terminate():
    """SIGTERM (``kill``, a scheduler's stop) stops the study like Ctrl-C, so what finished is written; returns
    the handler it replaced (None off the main thread, where no handler can be set)."""
    def stop(_signum, _frame):
        raise KeyboardInterrupt("terminated")
    try:
        return signal.signal(signal.SIGTERM, stop)
    except ValueError:
        return None


def _variant_values(records: dict, task_id: str, name: str, seeds: list[int]) -> dict:
    """A variant's part of the study: its headline, the constant predictor's score in it (where the records
    give one: what tells an uninformative task, report/informative.py) and each model's final value per seed."""
    report = report_from_records(BenchmarkReport, {task_id: records}, seeds)
    finals, info = report.final_metrics().get(task_id, {}), report.task_info[task_id]
    constant = (report.baselines().get(task_id) or {}).get("value")
    return {"metric": info.metric, "direction": info.direction,
            "constant": constant if constant is not None and math.isfinite(constant) else None,
            "values": {m: [float(v) for v in vals] for m, vals in finals.items()}}


def _store(entry: dict, name: str, values: dict) -> None:
    entry.setdefault("metric", values["metric"])
    entry.setdefault("direction", values["direction"])
    # each variant's own headline (a link task's follows link_metric): what its values are
    head = {"metric": values["metric"], "direction": values["direction"]}
    if values.get("constant") is not None:
        head["constant"] = values["constant"]
    entry.setdefault("headlines", {})[name] = head
    entry["variants"][name] = values["values"]


def _promote(study: dict, todo: dict[str, list[str]], held: dict | None = None) -> None:
    """Move every pending task whose variants are all in to ``tasks`` (the part the report reads)."""
    for task_id in list(study["pending"]):
        if not todo.get(task_id) and task_id not in (held or {}):
            study["tasks"][task_id] = study["pending"].pop(task_id)
    _remaining(study, todo, held)


def strict_place(target: Path):
    """Where the strict report's outputs go: ``reports/*`` and ``plots/`` straight under ``target``,
    ``metrics/report.json`` as ``target/report.json`` (no ``headline.json``: DVC shows the main one; no
    results site: the main one's paper-vs-strict page shows the study)."""
    def place(rel: str) -> Path | None:
        if rel == "metrics/headline.json" or rel.startswith("reports/site/"):
            return None
        if rel == "metrics/report.json":
            return target / "report.json"
        return target / rel.removeprefix("reports/")
    return place


def _write_strict_report(records: dict, previous: dict, settings: Settings, target: Path,
                         staging: StagedFiles, pending: list[str] = ()) -> None:
    """The report stage's outputs for the strict protocol's records, staged under ``target``; the
    tasks of ``previous`` (the strict report's JSON form a resumed study started from) that
    ``records`` does not hold are kept from it, histories and all; ``pending`` tasks, which the study
    has not run the strict protocol on yet, are listed as missing cells with that reason."""
    old = previous.get("histories") or {}
    for task_id, cells in (previous.get("cells") or {}).items():
        family = (previous.get("tasks") or {}).get(task_id, {}).get("family")
        for cell in cells.values():  # records written before they carried it; a study resumes on the same
            if cell.get("hyperparameters") and "batch_size" not in cell and family:  # result code only, so
                cell["batch_size"] = batch_size(family)  # this code's batch size is the one they trained with
    order = [t for t in settings.tasks if t in records or t in old or t in pending]
    options = options_from_settings(settings, order)
    blocks = settings.to_params()  # the report's config records the blocks as params.yaml holds them
    config = {"tasks": order, "models": list(settings.models), "protocol": "strict",
              "protocol_overrides": {}, "train": blocks["train"], "report": blocks["report"], "code": code_version()}
    fresh = {t: records.get(t) or dict.fromkeys(settings.models) for t in order if t in records or t not in old}
    new = report_from_records(BenchmarkReport, fresh, list(settings.seeds), config=config, **options,
                              missing_reason=lambda t, m: "the protocol study has not run the strict protocol "
                                                          "on this task yet (`netzbench protocols` continues it)"
                              ).to_dict()
    parts = {key: {t: (new if t in fresh else previous)[key][t] for t in order
                   if t in (new if t in fresh else previous).get(key, {})} for key in ("histories", "cells", "tasks")}
    report = BenchmarkReport(list(settings.seeds), parts["histories"], config, tasks=parts["tasks"],
                             cells=parts["cells"], **options)
    write_outputs(report, settings, None, staging=staging, place=strict_place(target))
