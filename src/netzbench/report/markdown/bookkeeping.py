"""REPORT.md sections 8-10 and 12: the candidate, missing cells, compute cost and the list of files."""

from __future__ import annotations

from ..facts import ReportFacts
from ..formatting import number
from ..within_task import TEST_NAMES
from .robustness import dependent, legend
from .text import duration, label, table


def candidate(facts: ReportFacts) -> list[str]:
    """Section 8: the candidate's mean rank and significant wins/losses against the roster."""
    pw_name = TEST_NAMES[facts.report.pairwise_method]
    cand = facts.candidate_block
    if cand.get("name"):
        L = ["## 8. Candidate", ""]
        L.append(f"**{cand['name']}**: mean rank {number(cand['mean_rank'], 2)} over {cand['n_tasks']} task(s) among "
                 f"the roster models complete on those tasks; against the roster: {cand['wins']} significant wins, "
                 f"{cand['losses']} significant losses, {cand['ties']} not significant (Holm-corrected {pw_name} "
                 "tests within each task).")
        L.append("")
        moved = dependent(facts, "candidate")
        if moved:
            L += [f"Wins and losses that depend on the protocol: {'; '.join(moved)}.", ""] + legend(facts, moved)
        return L
    return ["## 8. Candidate", "", "No candidate model in this run (`model: null` in params.yaml).", ""]


def missing_cells(facts: ReportFacts) -> list[str]:
    """Section 9: tasks without data or results, and every cell without a complete set of ok seeds."""
    report, fr, unavailable, failed_tasks, missing = (facts.report, facts.friedman, facts.unavailable,
                                                      facts.failed_tasks, facts.missing)
    L = ["## 9. Missing cells", ""]
    if unavailable:
        L.append(f"**Tasks without data ({len(unavailable)}):** " + "; ".join(
            f"`{t}` — {why}" for t, why in unavailable.items()) + ". The ranks use the N = "
            f"{fr['n_tasks']} tasks present.")
        L.append("")
    if failed_tasks:
        L.append(f"**Tasks without any result ({len(failed_tasks)}):** " + "; ".join(
            f"`{t}` — {why}" for t, why in failed_tasks.items()) + ".")
        L.append("")
    if missing:
        rows = [[f"`{m['task']}`", label(report, m["model"]), m["status"], f"{m['n_ok']}/{len(report.seeds)}",
                 (m["reason"] or "").replace("|", "\\|").replace("\n", " ")] for m in missing]
        L += table(["task", "model", "status", "ok seeds", "reason"], rows, "lllrl")
    else:
        L.append("None: every cell has results for every seed.")
    L.append("")
    return L


def _cost_table(cost: dict, group: str, name) -> list[str]:
    """Elapsed and summed training time per task or model (``group``, each shown as ``name(group)``),
    largest first."""
    tot = cost["total_seconds"]
    wall_by = cost[f"wall_by_{group}"]
    rows = [[name(g), duration(wall_by[g]) if g in wall_by else "n/a", duration(s),
             f"{s / tot:.1%}" if tot else "n/a"]
            for g, s in sorted(cost[f"by_{group}"].items(), key=lambda kv: -kv[1])]
    return table([group, "elapsed", "summed over seeds", "share of compute"], rows, "lrrr")


def compute_cost(facts: ReportFacts) -> list[str]:
    """Section 10: elapsed and summed training time, split by task and by model."""
    cost = facts.cost
    L = ["## 10. Compute cost", ""]
    if cost["n_timed"]:
        tot, wall = cost["total_seconds"], cost["wall_seconds"]
        if wall:
            L.append(f"Elapsed training wall time: **{duration(wall)}** ({wall / 60:.1f} min): the time during "
                     "which at least one seed was training, from the start and finish times in the run records "
                     f"(first start to last finish: {duration(cost['span_seconds'])}). Summed over the "
                     f"{cost['n_timed']} (task, model, seed) runs, training took {duration(tot)} "
                     f"({tot / 3600:.2f} h): seeds ran in parallel worker processes, on average "
                     f"{cost['parallelism']:.2f} at a time. Cached seeds count the time of their original run; "
                     "data fetching and the report are not included.")
        else:
            L.append(f"Total training time: **{duration(tot)}** ({tot / 3600:.2f} h) summed over "
                     f"{cost['n_timed']} (task, model, seed) runs (no start/finish times recorded, so no elapsed "
                     "time; seeds run in parallel, so the elapsed time was shorter).")
        L.append("")
        L += (_cost_table(cost, "task", "`{}`".format) + [""]
              + _cost_table(cost, "model", lambda m: label(facts.report, m)))
    else:
        L.append("No per-seed timings recorded (the report was not built from run records).")
    L.append("")
    return L


def files() -> list[str]:
    """Section 13: what the report stage writes, and the protocol study beside it."""
    return ["## 13. Files", "",
            "- `reports/benchmark.json` — every history, seeds, options (re-analysis without training)",
            "- `reports/summary.csv`, `reports/summary.tex` — per-cell table (CSV, booktabs)",
            "- `reports/pairwise_t.csv`, `reports/pairwise_wilcoxon.csv`, `reports/pairwise.tex` — comparisons",
            "- `reports/power.csv`, `reports/equivalence.csv`, `reports/selected_epochs.csv` — power, TOST, "
            "epoch audit",
            "- `reports/posthoc.csv`, `reports/bayesian.csv` — post-hoc tests across tasks (Nemenyi, "
            "Wilcoxon–Holm), Bayesian signed-rank and correlated t-tests",
            "- `plots/critical_difference.png|svg`, `plots/mean_ranks.csv|png`, `plots/dashboard.png`, "
            "`plots/forest.png`, `plots/pairwise.png`, `plots/learning_curves.png` — figures",
            "- `metrics/report.json` — headline numbers for `dvc metrics show` / `dvc exp show`, and `conclusions`: "
            "every claim of this report with the protocol variants it holds and fails under",
            "- `reports/protocol_study.json`, `reports/strict/` — the protocol study and the strict protocol's "
            "report (`netzbench protocols`)", ""]
