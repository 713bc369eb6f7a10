"""REPORT.md's opening: the title, warnings about tasks without results, and section 1 (protocol).

The values come from the facts (how the cells trained: their run records alone); the wording is ``templates/protocol.md.j2``.
"""

from __future__ import annotations

from ...protocol import BY_NAME, SWITCHES
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


def optimiser_settings(report) -> list[str]:
    """Per family, the learning rates and weight decays the cells trained with (their run records'
    hyperparameters)."""
    families = []
    for fam in ("node_cls", "graph_cls", "graph_reg", "link_pred"):
        tasks = [t for t in report.tasks if report.task_info[t].family == fam]
        seen = sorted({(hp["lr"], hp.get("weight_decay", 0)) for t in tasks for c in report.cells.get(t, {}).values()
                       if "lr" in (hp := c.get("hyperparameters") or {})})
        if seen:
            families.append((fam, seen))
    return render("protocol", "optimiser_settings", families=families)


def recorded_setup(report) -> dict:
    """How the cells trained, from their run records alone (REPORT.md's one source for section 1): the
    widths or parameter budgets, whether node splits were random, the protocol's name and the switches
    that could move the tasks (each record holds its task's), and those that differ from the preset."""
    cells = [c for t in report.tasks for c in report.cells.get(t, {}).values() if c.get("hyperparameters")]
    hps = [c["hyperparameters"] for c in cells]

    def joined(key):
        values = sorted({hp.get(key) for hp in hps if hp.get(key) is not None})
        return "/".join(map(str, values)) or None

    names = sorted({(c.get("protocol") or {}).get("name") for c in cells} - {None})
    switches: dict[str, str] = {}
    for c in cells:
        switches.update((c.get("protocol") or {}).get("switches") or {})
    switches = {s.name: switches[s.name] for s in SWITCHES if s.name in switches}
    preset = names[0] if len(names) == 1 else None
    return {"trained": bool(cells), "hidden_channels": joined("hidden_channels"), "param_budget": joined("param_budget"),
            "random_node_split": any(hp.get("node_split") == "random" for hp in hps),
            "protocol": "/".join(names) or None, "switches": switches,
            "overrides": {k: v for k, v in switches.items() if preset and v != getattr(BY_NAME[k], preset)},
            "unavailable": any(c.get("status") == "unavailable" for t in report.tasks
                               for c in report.cells.get(t, {}).values())}


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


def _task_bits(report) -> list[tuple[str, list[str]]]:
    """Per task: its category, family and the epochs its cells trained (their records: an override or the
    task's budget)."""
    out = []
    for t in report.tasks:
        info = report.task_info[t]
        bits = [b for b in (info.category, info.family) if b]
        trained = sorted({c["hyperparameters"]["epochs"] for c in report.cells.get(t, {}).values()
                          if (c.get("hyperparameters") or {}).get("epochs")})
        if trained:
            bits.append(f"{'/'.join(map(str, trained))} epochs")
        out.append((t, bits))
    return out


def protocol(facts: ReportFacts) -> list[str]:
    """Section 1: tasks, models, seeds, training, epoch selection and the statistics used: how the cells
    trained from their run records (:func:`recorded_setup`), how they are analysed from the report."""
    report, candidate = facts.report, facts.candidate
    setup = recorded_setup(report)
    shown_as = label(report, candidate) if candidate else None
    return render(
        "protocol", "protocol", n_total=len(report.tasks), tasks=_task_bits(report),
        datasets=dataset_table(report), roster=list(report.models), candidate=candidate,
        candidate_label=shown_as if shown_as != candidate else None,
        baselines=[m for m in report.models if m in facts.baseline_kinds], baseline_mode=report.baseline_mode,
        seeds=report.seeds, train=setup["trained"], param_budget=setup["param_budget"],
        hidden_channels=setup["hidden_channels"],
        optimiser=optimiser_settings(report), batches=batch_settings(report),
        budget=budget_table(report) if setup["param_budget"] else [],
        random_node_split=setup["random_node_split"], protocol=setup["protocol"],
        overrides=setup["overrides"], switches=setup["switches"],
        epoch_selection=report.epoch_selection,
        unsupported=[(r["task"], r["reason"]) for r in report.epoch_selection_support()
                     if not r["best_val_possible"] and r["n_runs"]],
        ci_name=interval_name(report), pw_name=TEST_NAMES[report.pairwise_method], alpha=report.alpha,
        aggregation=facts.aggregation, margin=report.equivalence_margin,
        on_missing_skip=setup["unavailable"],
        link=any(i.family == "link_pred" for i in report.task_info.values()))
