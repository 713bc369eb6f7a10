"""REPORT.md's opening: the title, warnings about tasks without results, and section 1 (protocol).

The values come from the facts and the run's parameters; the wording is ``templates/protocol.md.j2``.
"""

from __future__ import annotations

from ...protocol import Protocol
from ..facts import ReportFacts
from ..figure_files import family_name
from ..within_task import TEST_NAMES
from .datasets import dataset_table
from .templating import render
from .text import interval_name, label, unavailable_reason


def header(facts: ReportFacts) -> list[str]:
    """Title, a warning per kind of task without results (and what the ranks then cover), one-line scope."""
    report = facts.report
    ranked = [t for t in report.tasks if report.rank_tasks is None or t in report.rank_tasks]
    rep = (report.config or {}).get("report") or {}
    return render("protocol", "header", n_tasks=facts.friedman["n_tasks"], n_total=len(report.tasks),
                  n_ranked=len(ranked) if report.rank_tasks is not None else None,
                  unavailable={t: unavailable_reason(report, t) or why for t, why in facts.unavailable.items()},
                  failed=facts.failed_tasks, n_models=len(report.models), n_present=len(facts.present),
                  n_seeds=len(report.seeds),
                  left_out=[t for t in (rep.get("rank_tasks") or []) if t not in report.tasks],
                  not_ranked=[t for t in report.tasks if report.rank_tasks is not None and t not in report.rank_tasks])


def budget_table(report) -> list[str]:
    """Under ``train.param_budget``: each cell's hidden width and parameter count (from its seeds; a
    cell whose seeds disagree shows the range), so the reader sees what "equal budget" meant."""
    rows = []
    for t in report.tasks:
        cells = []
        for m in report.models:
            seeds = [s for s in (report.cells.get(t, {}).get(m, {}).get("seeds") or {}).values()
                     if isinstance(s, dict) and s.get("num_params") is not None]
            if not seeds:
                cells.append("–")
                continue
            widths = sorted({s.get("hidden_channels") for s in seeds if s.get("hidden_channels") is not None})
            counts = sorted({s["num_params"] for s in seeds})
            w = "–" if not widths else "/".join(map(str, widths))
            cells.append(f"{w} ({'/'.join(f'{c:,}' for c in counts)})")
        rows.append((t, cells))
    return render("protocol", "budget_table", models=[label(report, m) for m in report.models], rows=rows)


def optimiser_settings(report, train: dict) -> list[str]:
    """Per family, the learning rates and weight decays the cells trained with (their run records'
    hyperparameters; a family none of whose cells has a record falls back to ``train``)."""
    families = []
    for fam in ("node_cls", "graph_cls", "graph_reg", "link_pred"):
        tasks = [t for t in report.tasks if report.task_info[t].family == fam]
        seen = sorted({(hp["lr"], hp.get("weight_decay", 0)) for t in tasks for c in report.cells.get(t, {}).values()
                       if "lr" in (hp := c.get("hyperparameters") or {})})
        if not seen and tasks and fam in train:
            seen = [(train[fam]["lr"], train[fam].get("weight_decay", 0))]
        if seen:
            families.append((fam, seen))
    return render("protocol", "optimiser_settings", families=families)


def batch_settings(report) -> dict:
    """How the trained cells batched, from their run records' ``batch_size`` and their seeds' ``sampling``:
    ``full`` (the levels trained full batch: ``node``, ``link``), ``sampled`` (``(level, fanouts, targets per
    step, evaluation)`` of the levels with neighbour-sampled seeds), ``mini`` (``(graphs per step, family name)``) and
    ``unrecorded`` (the families whose records predate the field)."""
    full, sampled, mini, unrecorded = [], [], [], []
    for fam in ("node_cls", "graph_cls", "graph_reg", "link_pred"):
        cells = [c for t in report.tasks if report.task_info[t].family == fam
                 for c in report.cells.get(t, {}).values() if c.get("hyperparameters")]
        sizes = {c["batch_size"] for c in cells if "batch_size" in c}
        if cells and not sizes:
            unrecorded.append(family_name(fam))
        elif sizes == {None}:
            level = fam.split("_")[0]
            ways = [(s.get("sampling") or {}) for c in cells for s in c.get("seeds", {}).values()
                    if s.get("status") == "ok"]
            drawn = sorted({(tuple(w["fanouts"]), w["batch_size"], w.get("eval", "full")) for w in ways
                            if w.get("train") == "neighbour"})
            if not drawn or any(w.get("train") != "neighbour" for w in ways):
                full.append(level)
            sampled.extend((level, "/".join(map(str, fan)), size, ev) for fan, size, ev in drawn)
        else:
            mini.extend((size, family_name(fam)) for size in sorted(v for v in sizes if v is not None))
    return {"full": full, "sampled": sampled, "mini": mini, "unrecorded": unrecorded}


def _task_bits(report, overrides: dict) -> list[tuple[str, list[str]]]:
    """Per task: its category, family and the epochs its cells trained (their records: an override or the
    task's budget; else the override)."""
    out = []
    for t in report.tasks:
        info = report.task_info[t]
        bits = [b for b in (info.category, info.family) if b]
        trained = sorted({c["hyperparameters"]["epochs"] for c in report.cells.get(t, {}).values()
                          if (c.get("hyperparameters") or {}).get("epochs")})
        trained = trained or ([overrides[t]] if t in overrides else [])
        if trained:
            bits.append(f"{'/'.join(map(str, trained))} epochs")
        out.append((t, bits))
    return out


def protocol(facts: ReportFacts, params: dict) -> list[str]:
    """Section 1: tasks, models, seeds, training, epoch selection and the statistics used (from ``params``)."""
    report, candidate = facts.report, facts.candidate
    train = params.get("train", {})
    shown_as = label(report, candidate) if candidate else None
    return render(
        "protocol", "protocol", n_total=len(report.tasks), tasks=_task_bits(report, train.get("epochs") or {}),
        datasets=dataset_table(report), roster=list(params.get("models", report.models)), candidate=candidate,
        candidate_label=shown_as if shown_as != candidate else None,
        baselines=[m for m in report.models if m in facts.baseline_kinds], baseline_mode=report.baseline_mode,
        seeds=report.seeds, train=bool(train), param_budget=train.get("param_budget"),
        hidden_channels=train.get("hidden_channels"),
        optimiser=optimiser_settings(report, train) if train else [], batches=batch_settings(report),
        budget=budget_table(report) if train.get("param_budget") else [],
        random_node_split=train.get("node_split") == "random", protocol=params.get("protocol"),
        overrides=params.get("protocol_overrides") or {},
        switches=Protocol.resolve(params["protocol"], params.get("protocol_overrides")).values() if params.get("protocol") else {},
        epoch_selection=report.epoch_selection,
        unsupported=[(r["task"], r["reason"]) for r in report.epoch_selection_support()
                     if not r["best_val_possible"] and r["n_runs"]],
        ci_name=interval_name(report), pw_name=TEST_NAMES[report.pairwise_method], alpha=report.alpha,
        aggregation=facts.aggregation, margin=report.equivalence_margin,
        on_missing_skip=(params.get("data") or {}).get("on_missing") == "skip",
        link=any(i.family == "link_pred" for i in report.task_info.values()))
