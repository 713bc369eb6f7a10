"""REPORT.md sections 2-4: results per task, its significant differences, and the paired t and
Wilcoxon tests side by side on node classification (the paper's Tables 3 and 2)."""

from __future__ import annotations

from ...stats import RESOLUTION
from ..facts import ReportFacts
from ..formatting import number, p_value
from ..series import metric_label
from ..within_task import TEST_NAMES
from .baselines import baseline_section, ranked_columns
from .text import arrow, cell_text, interval_name, label, overlaps, table, winners


BASELINE_NAMES = {"test_majority_acc": "majority class", "test_constant_auc": "constant score",
                  "test_constant_mae": "training mean"}


def cell_texts(facts: ReportFacts, task: str, models: list[str]) -> list[str]:
    """One task's cells of ``models``: mean ± CI, the best of them in bold, † where a CI overlaps the
    best one's, ‡ when collapsed."""
    report = facts.report
    collapsed = {(c["task"], c["model"]) for c in facts.collapsed}
    cells = {m: r for m, r in facts.nested.get(task, {}).items() if m in models}
    win = winners(report.task_info[task].direction, cells)
    out = []
    for m in models:
        r = cells.get(m)
        text = cell_text(r, report.cell_status(task, m), len(report.seeds))
        if r is not None and m in win:
            text = f"**{text}**"
        elif r is not None and r["n_seeds"] > 0 and any(overlaps(r, cells[w]) for w in win):
            text += " †"
        if (task, m) in collapsed:
            text += " ‡"
        out.append(text)
    return out


def results_per_task(facts: ReportFacts) -> list[str]:
    """Section 2: mean ± CI per cell, best per row in bold, † where a CI overlaps the best one,
    the constant predictor's score per task and ‡ on collapsed cells; the baselines' block and,
    per task, the best GNN against the best baseline."""
    report, nested = facts.report, facts.nested
    ci_name = interval_name(report)
    models, headers = ranked_columns(facts)
    L = [f"## 2. Results per task (mean ± {ci_name} CI half-width over seeds)", ""]
    rows = []
    for t in report.tasks:
        info = report.task_info[t]
        out = cell_texts(facts, t, models)
        base = facts.baselines.get(t)
        base_text = f"{number(base['value'])} ({BASELINE_NAMES.get(base['name'], base['name'])})" if base else "n/a"
        rows.append([info.category or "", f"`{t}`", info.family or "", f"{metric_label(info.metric)} "
                     f"{arrow(info.direction)}", base_text] + out)
    L += table(["category", "task", "kind", "metric", "constant predictor"] + headers, rows,
               "lllll" + "r" * len(models))
    clipped = [r for cells in nested.values() for r in cells.values() if r.get("clipped")]
    L += ["", "**Bold**: best mean in the row. †: the cell's confidence interval overlaps the best cell's "
          "interval (a coarse indication that the two are not clearly separated at this number of seeds; the "
          "paired tests below are the actual comparison). ‡: **collapsed**, the model's test predictions were "
          "one constant (a single class, or one score for every pair) at the reported epoch in most seeds, so "
          "the cell measures the constant predictor, not the model. *Constant predictor*: what always "
          "predicting the majority test class (accuracy), one score (ROC-AUC) or the training mean (MAE) "
          "scores, averaged over the seeds' test sets. n/a (incompatible): the architecture does not serve the "
          "task. Compare cells within a row only: metrics differ between rows."
          + (" °: a baseline (`report.baselines: include`: in the table and the ranks like any model)."
             if report.baseline_mode == "include" and facts.baseline_kinds else ""), ""]
    if clipped:
        L += [f"§: the {ci_name} interval left the metric's range (e.g. above 1 for accuracy or ROC-AUC) and is "
              "shown as [lo, hi] clipped to it (" + "; ".join(f"`{r['task']}` {r['model']}" for r in clipped) +
              "); the unclipped half-width is in `reports/summary.csv` (column `clipped` flags these cells).", ""]
    if facts.collapsed:
        L += ["Collapsed cells: " + "; ".join(f"`{c['task']}` {c['model']} ({c['n_constant']} of {c['n_seeds']} "
                                             "seeds constant)" for c in facts.collapsed) + ".", ""]
    L += baseline_section(facts, cell_texts)
    L += ["Figures: `plots/dashboard.png` (one panel per research category, as the paper's Figure 2), "
          "`plots/forest.png` (per task, mean and CI per model), `plots/learning_curves.png` (mean ± t-CI per "
          "epoch; ▼ marks the selected epoch).", "",
          "![per-category dashboard](../plots/dashboard.png)", ""]
    return L


def significant_differences(facts: ReportFacts) -> list[str]:
    """Section 3: the Holm-significant comparisons of the headline paired test."""
    report = facts.report
    pw_name = TEST_NAMES[report.pairwise_method]
    pw = facts.headline_pairwise
    sig = [r for r in pw if r["significant"]]
    degenerate = [r for r in pw if r.get("degenerate")]
    L = [f"## 3. Significant paired differences ({pw_name}, Holm within task, α = {report.alpha:g})", ""]
    L.append(f"{len(sig)} of {len(pw)} within-task comparisons are significant after Holm correction.")
    L.append("")
    if degenerate:
        zero = [r for r in degenerate if r["mean_diff"] == 0]
        L.append(f"{len(degenerate)} comparison(s) are **degenerate**: their paired differences have zero spread "
                 f"at the metric's resolution ({RESOLUTION:g}), so the {pw_name} test is undefined. A constant "
                 "nonzero difference is tested with the exact sign test (p = 2^(1−S), marked ⁰ below); all-zero "
                 "differences get no p-value and stay out of the Holm family"
                 + (f" ({'; '.join(_pair_name(r) for r in zero)})" if zero else "") + ".")
        L.append("")
    if sig:
        rows = []
        for r in sig:
            worse = r["model_b"] if r["better"] == r["model_a"] else r["model_a"]
            gain = abs(r["mean_diff"])
            dropped = f" (dropped seeds {', '.join(map(str, r['dropped_seeds']))})" if r["dropped_seeds"] else ""
            mark = " ⁰" if r.get("degenerate") else ""
            rows.append([f"`{r['task']}`", f"**{label(report, r['better'])}**", label(report, worse), f"{gain:.4f}",
                         number(abs(r["cohens_dz"]), 2), p_value(r["p_raw"]) + mark, p_value(r["p_holm"]),
                         f"{r['n_seeds']}{dropped}"])
        L += table(["task", "better", "worse", "\\|Δμ\\|", "\\|d_z\\|", "p (raw)", "p (Holm)", "seeds"], rows,
                   "lllrrrrl")
        L.append("")
    L += ["The \\|Δμ\\| column is the absolute mean paired difference in metric units; d_z = Δμ / σ_d is Cohen's "
          "effect size "
          "of the paired differences. Full tables: `reports/pairwise_t.csv`, `reports/pairwise_wilcoxon.csv`, "
          "`reports/pairwise.tex`; matrix view: `plots/pairwise.png`.", ""]
    return L


def _pair_name(r: dict) -> str:
    return f"`{r['task']}` {r['model_a']}–{r['model_b']}"


def node_classification(facts: ReportFacts) -> list[str]:
    """Section 4: paired t and Wilcoxon decisions of every node-classification comparison, and their agreement."""
    report, present = facts.report, facts.present
    node_tasks = [t for t in present if report.task_info[t].family == "node_cls"]
    L = ["## 4. Node classification: paired t and Wilcoxon side by side", ""]
    if node_tasks:
        t_rows = {(r["task"], r["model_a"], r["model_b"]): r for r in facts.pairwise["t"]}
        w_rows = {(r["task"], r["model_a"], r["model_b"]): r for r in facts.pairwise["wilcoxon"]}
        rows, agree, total = [], 0, 0
        for key, rt in t_rows.items():
            if key[0] not in node_tasks:
                continue
            rw = w_rows[key]
            same = rt["significant"] == rw["significant"]
            total += 1
            agree += same
            rows.append([f"`{key[0]}`", f"{label(report, key[1])} vs. {label(report, key[2])}",
                         f"{rt['mean_diff']:+.3f}",
                         p_value(rt["p_holm"]) + ("*" if rt["significant"] else ""),
                         p_value(rw["p_holm"]) + ("*" if rw["significant"] else ""), "✓" if same else "✗"])
        L += table(["task", "comparison", "Δμ", "p_Holm (t)", "p_Holm (Wilcoxon)", "agree"], rows, "llrrrc")
        L.append("")
        L.append(f"Δμ = mean(first − second); * marks p_Holm < {report.alpha:g}. The two tests agree on "
                 f"{agree} of {total} comparisons (agreement = same significance decision). Pairs where they "
                 "agree deserve more confidence than pairs where they disagree.")
        L.append("")
    else:
        L += ["No node-classification task has results in this run.", ""]
    return L
