"""REPORT.md's opening: the title, warnings about tasks without results, and section 1 (protocol)."""

from __future__ import annotations

from ...protocol import resolve
from ..facts import ReportFacts
from ..within_task import TEST_NAMES
from .datasets import dataset_table
from .text import interval_name, label, unavailable_reason


def header(facts: ReportFacts) -> list[str]:
    """Title, a warning per kind of task without results (and what the ranks then cover), one-line scope."""
    report, fr, unavailable, failed_tasks = facts.report, facts.friedman, facts.unavailable, facts.failed_tasks
    n_total = len(report.tasks)
    L = ["# netzbench report", ""]
    ranked = [t for t in report.tasks if report.rank_tasks is None or t in report.rank_tasks]
    scope = (f"the **N = {fr['n_tasks']} tasks present**" + (
        f" of the {len(ranked)} in `report.rank_tasks`" if report.rank_tasks is not None else f", not {n_total}"))
    if unavailable:
        L += [f"> **⚠ DATA UNAVAILABLE for {len(unavailable)} of {n_total} tasks:** "
              + "; ".join(f"`{t}` ({unavailable_reason(report, t) or why})" for t, why in unavailable.items())
              + f". Their cells are reported as missing, and every across-task statistic ranks over {scope}.", ""]
    if failed_tasks:
        L += [f"> **⚠ NO RESULTS for {len(failed_tasks)} of {n_total} tasks** (every run failed or is missing): "
              + "; ".join(f"`{t}` ({why})" for t, why in failed_tasks.items())
              + f". Every across-task statistic ranks over {scope}.", ""]
    L += [f"Benchmark of {len(report.models)} models on {len(facts.present)} task(s) with results "
          f"({n_total} listed), {len(report.seeds)} seeds each. Every number below is recomputed from the raw "
          "per-epoch histories in `reports/benchmark.json` "
          "(`BenchmarkReport.from_json(\"reports/benchmark.json\")`).", ""]
    rep = (report.config or {}).get("report") or {}
    left_out = [t for t in (rep.get("rank_tasks") or []) if t not in report.tasks]
    not_ranked = [t for t in report.tasks if report.rank_tasks is not None and t not in report.rank_tasks]
    if left_out:
        L += [f"`report.rank_tasks` also lists {', '.join(f'`{t}`' for t in left_out)}, which this run does not "
              "train (not in `tasks`): left out of the ranks.", ""]
    if not_ranked:
        L += [f"Trained but not ranked (`report.rank_tasks` / `report.rank_exclude`): "
              f"{', '.join(f'`{t}`' for t in not_ranked)}.", ""]
    return L


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
        rows.append(f"| `{t}` | " + " | ".join(cells) + " |")
    return ["", "  Hidden width (parameters) per cell under the budget:", "",
            "  | task | " + " | ".join(label(report, m) for m in report.models) + " |",
            "  |---|" + "---|" * len(report.models)] + ["  " + r for r in rows] + [""]


def optimiser_settings(report, train: dict) -> list[str]:
    """Per family, the learning rates and weight decays the cells trained with (their run records'
    hyperparameters; a family none of whose cells has a record falls back to ``train``)."""
    out = []
    for fam in ("node_cls", "graph_cls", "graph_reg", "link_pred"):
        tasks = [t for t in report.tasks if report.task_info[t].family == fam]
        seen = sorted({(hp["lr"], hp.get("weight_decay", 0)) for t in tasks for c in report.cells.get(t, {}).values()
                       if "lr" in (hp := c.get("hyperparameters") or {})})
        if not seen and tasks and fam in train:
            seen = [(train[fam]["lr"], train[fam].get("weight_decay", 0))]
        if seen:
            out.append(f"{fam}: " + " or ".join(f"lr {lr}, weight decay {wd}" for lr, wd in seen))
    return out


def protocol(facts: ReportFacts, params: dict) -> list[str]:
    """Section 1: tasks, models, seeds, training, epoch selection and the statistics used (from ``params``)."""
    report = facts.report
    n_total = len(report.tasks)
    ci_name = interval_name(report)
    pw_name = TEST_NAMES[report.pairwise_method]
    L = ["## 1. Protocol", ""]
    train = params.get("train", {})
    overrides = train.get("epochs") or {}
    task_bits = []
    for t in report.tasks:
        info = report.task_info[t]
        bits = [b for b in (info.category, info.family) if b]
        # what the cells trained (their records: an override or the task's budget), else the override
        trained = sorted({c["hyperparameters"]["epochs"] for c in report.cells.get(t, {}).values()
                          if (c.get("hyperparameters") or {}).get("epochs")})
        trained = trained or ([overrides[t]] if t in overrides else [])
        if trained:
            bits.append(f"{'/'.join(map(str, trained))} epochs")
        task_bits.append(f"`{t}` ({', '.join(bits)})" if bits else f"`{t}`")
    L.append(f"- **Tasks** ({n_total}): " + ", ".join(task_bits) + ".")
    L += dataset_table(report)
    roster = list(params.get("models", report.models))
    L.append(f"- **Models** (roster): {', '.join(roster)}"
             + (f"; candidate: **{facts.candidate}**" if facts.candidate else "")
             + (f" (shown as {label(report, facts.candidate)} in tables and figures)"
                if facts.candidate and label(report, facts.candidate) != facts.candidate else "") + ".")
    if facts.baseline_kinds:
        ranked = ("ranked with the models under test" if report.baseline_mode == "include"
                  else "kept out of the across-task analysis")
        L.append(f"- **Baselines** (reference points, not models under test): "
                 f"{', '.join(m for m in report.models if m in facts.baseline_kinds)}; `report.baselines: "
                 f"{report.baseline_mode}` ({ranked}; section 2 tests the best GNN against the best baseline "
                 "per task).")
    L.append(f"- **Seeds**: S = {len(report.seeds)} ({', '.join(map(str, report.seeds))}); every (task, model, "
             "seed) trains independently, with its random number generators reset.")
    if train:
        width = (f"a budget of {train['param_budget']} parameters per model (each model's hidden width the largest "
                 "whose parameter count fits it; the run records give width and count per seed)"
                 if train.get("param_budget") else f"hidden channels {train.get('hidden_channels')}")
        L.append(f"- **Training**: {width}, Adam, full batch for node- and "
                 "link-level tasks, shuffled mini-batches of 32 (graph classification) and 64 (graph regression) "
                 "graphs; " + "; ".join(optimiser_settings(report, train)) + ".")
        if train.get("param_budget"):
            L += budget_table(report)
        if train.get("node_split") == "random":
            L.append("- **Node splits**: random per seed (20 labelled nodes per class for training, 30 for "
                     "validation, the rest test; Shchur et al. 2018), the same for every model, instead of the "
                     "datasets' public splits: the spread across seeds includes the split.")
    if params.get("protocol"):
        switches = resolve(params["protocol"], params.get("protocol_overrides"))
        L.append(f"- **Protocol**: `{params['protocol']}`"
                 + (" (the reference implementation the paper ran, as closely as the data allows)"
                    if params["protocol"] == "paper" else " (held-out test sets, selection on validation only, "
                                                           "fresh negatives, features from training edges)")
                 + ("; overridden: " + ", ".join(f"`{k}: {v}`" for k, v in params["protocol_overrides"].items())
                    if params.get("protocol_overrides") else "") + ". Switches: "
                 + "; ".join(f"`{name}: {value}`" for name, value in switches.items()) + " (section 12).")
    if report.epoch_selection == "final":
        sel = "`final` — the held-out test metric at the last evaluated epoch (the paper's protocol)"
    else:
        sel = ("`best_val` — the held-out test metric at the epoch with the best validation value of the same "
               "metric (earliest on ties); the reported series is never used for the choice")
    L.append(f"- **Epoch selection**: {sel}. The epoch used for every (task, model, seed) is listed in "
             "`reports/selected_epochs.csv`.")
    unsupported = [r for r in report.epoch_selection_support() if not r["best_val_possible"] and r["n_runs"]]
    if unsupported:
        L.append("  - `best_val` is not possible for: " + "; ".join(f"`{r['task']}` ({r['reason']})"
                                                                     for r in unsupported) + ".")
    L.append(f"- **Per cell**: mean over seeds ± {ci_name} confidence-interval half-width "
             "(one seed gives no interval and is marked so).")
    L.append(f"- **Within a task**: every model pair compared on seed-aligned values (a seed missing for one "
             f"model is dropped from that pair only); headline test **{pw_name}**, both the paired t and the "
             f"Wilcoxon tables are written; Holm–Bonferroni correction within each task; α = {report.alpha:g}.")
    L.append(f"- **Across tasks**: per-task ranks (1 = best, metric direction applied per task, so MAE ranks "
             f"lower-is-better in the same diagram as accuracy and AUC), Friedman test and Nemenyi critical "
             f"difference over the models with results on every task present; mean-rank aggregation for "
             f"`plots/mean_ranks.*`: `{facts.aggregation}`.")
    if report.equivalence_margin is not None:
        L.append(f"- **Equivalence**: TOST with margin ±{report.equivalence_margin} (metric units), Holm within "
                 "task.")
    on_missing = (params.get("data") or {}).get("on_missing")
    if on_missing == "skip":
        L.append("- **`data.on_missing: skip`**: a task whose data cannot be obtained is recorded as unavailable "
                 "with the reason, its cells are reported as missing and the ranks use the tasks present.")
    L.append("")
    return L
