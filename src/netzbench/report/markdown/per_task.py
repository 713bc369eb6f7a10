"""REPORT.md sections 2-4: results per task, its significant differences, and the paired t and
Wilcoxon tests side by side: where they disagree in every family, and node classification in the paper's
Table 2 layout (the paper's Tables 3 and 2)."""

from __future__ import annotations

from ...stats import RESOLUTION
from ..facts import ReportFacts
from ..formatting import number, p_value
from ..series import metric_label
from ..within_task import TEST_NAMES
from .baselines import baseline_section, ranked_columns
from .flags import LEGEND, flag_list, marks
from .robustness import legend as protocol_legend
from .robustness import mark as protocol_mark
from .text import arrow, cell_text, interval_name, label, overlaps, table, winners


BASELINE_NAMES = {"test_majority_acc": "majority class", "test_constant_auc": "constant score",
                  "test_constant_mae": "training mean"}


def cell_texts(facts: ReportFacts, task: str, models: list[str]) -> list[str]:
    """One task's cells of ``models``: mean ± CI, the best of them in bold, † where a CI overlaps the
    best one's, then the cell's flags (‡ collapsed, ≡ degenerate, ⊗ sees held-out edges; :mod:`.flags`)."""
    report = facts.report
    cells = {m: r for m, r in facts.nested.get(task, {}).items() if m in models}
    win = winners(report.task_info[task].direction, cells)
    out = []
    for m in models:
        r = cells.get(m)
        text = cell_text(r, report.cell_status(task, m), len(report.seeds))
        if r is not None and m in win:  # the best-model claim, ⚑/⚐ when it depends on the protocol
            text = f"**{text}**" + protocol_mark(facts, "best_model", task, *[x for x in models if x in win])
        elif r is not None and r["n_seeds"] > 0 and any(overlaps(r, cells[w]) for w in win):
            text += " †"
        out.append(text + (marks(facts, task, m) if r is not None and r["n_seeds"] > 0 else ""))
    return out


def results_per_task(facts: ReportFacts) -> list[str]:
    """Section 2: mean ± CI per cell, best per row in bold, † where a CI overlaps the best one,
    the constant predictor's score per task and the flags of collapsed, degenerate and leaking cells
    (listed with their reasons under the table); the baselines' block and, per task, the best GNN against
    the best baseline."""
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
    L += [""] + protocol_legend(facts, [c for row in rows for c in row])
    L += ["**Bold**: best mean in the row. †: the cell's confidence interval overlaps the best cell's "
          "interval (a coarse indication that the two are not clearly separated at this number of seeds; the "
          f"paired tests below are the actual comparison). {LEGEND} *Constant predictor*: what always "
          "predicting the majority test class (accuracy), one score (ROC-AUC) or the training mean (MAE) "
          "scores, averaged over the seeds' test sets. n/a (incompatible): the architecture does not serve the "
          "task. Compare cells within a row only: metrics differ between rows."
          + (" °: a baseline (`report.baselines: include`: in the table and the ranks like any model)."
             if report.baseline_mode == "include" and facts.baseline_kinds else ""), ""]
    if clipped:
        L += [f"§: the {ci_name} interval left the metric's range (e.g. above 1 for accuracy or ROC-AUC) and is "
              "shown as [lo, hi] clipped to it (" + "; ".join(f"`{r['task']}` {r['model']}" for r in clipped) +
              "); the unclipped half-width is in `reports/summary.csv` (column `clipped` flags these cells).", ""]
    L += flag_list(facts)
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
            better = f"**{label(report, r['better'])}**" + protocol_mark(facts, "significant_pair", r["task"],
                                                                          r["better"], worse)
            rows.append([f"`{r['task']}`", better, label(report, worse), f"{gain:.4f}",
                         number(abs(r["cohens_dz"]), 2), p_value(r["p_raw"]) + mark, p_value(r["p_holm"]),
                         f"{r['n_seeds']}{dropped}"])
        L += table(["task", "better", "worse", "\\|Δμ\\|", "\\|d_z\\|", "p (raw)", "p (Holm)", "seeds"], rows,
                   "lllrrrrl")
        L.append("")
        L += protocol_legend(facts, [row[1] for row in rows])
    L += ["The \\|Δμ\\| column is the absolute mean paired difference in metric units; d_z = Δμ / σ_d is Cohen's "
          "effect size "
          "of the paired differences. Full tables: `reports/pairwise_t.csv`, `reports/pairwise_wilcoxon.csv`, "
          "`reports/pairwise.tex`; matrix view: `plots/pairwise.png`.", ""]
    return L


def _pair_name(r: dict) -> str:
    return f"`{r['task']}` {r['model_a']}–{r['model_b']}"


#: the task families in words (section 4's rows)
FAMILY_NAMES = {"node_cls": "node classification", "graph_cls": "graph classification",
                "graph_reg": "graph regression", "link_pred": "link prediction"}


def paired_tests(facts: ReportFacts) -> list[str]:
    """Section 4: where the paired t and the Wilcoxon test decide differently (every family), how often they
    agree per family, and node classification's comparisons side by side (the paper's Table 2 layout)."""
    report, alpha = facts.report, facts.report.alpha
    rows = facts.paired_agreement
    L = ["## 4. Paired t and Wilcoxon side by side", ""]
    if not rows:
        return L + ["No task has two models with results, so there is no paired comparison.", ""]
    family = {t: report.task_info[t].family for t in report.tasks}
    per_family: dict[str, list[dict]] = {}
    for r in rows:
        per_family.setdefault(family[r["task"]] or "", []).append(r)
    L += table(["family", "comparisons", "same decision", "t only", "Wilcoxon only"],
               [[FAMILY_NAMES.get(f, f or "n/a"), len(rs), sum(r["agree"] for r in rs),
                 sum(r["significant_t"] and not r["significant_wilcoxon"] for r in rs),
                 sum(r["significant_wilcoxon"] and not r["significant_t"] for r in rs)]
                for f, rs in per_family.items()], "lrrrr")
    split = [r for r in rows if not r["agree"]]
    L += ["", f"Every within-task comparison is tested both ways (Holm within the task, α = {alpha:g}); the "
          f"headline tables use the {TEST_NAMES[report.pairwise_method]} test (`report.pairwise_method`). *t only* "
          "/ *Wilcoxon only*: significant under that test alone. "
          + (f"The two decide differently on **{len(split)} of {len(rows)}** comparisons:" if split else
             f"They agree on all {len(rows)} comparisons."), ""]
    if split:
        L += table(["task", "family", "comparison", "Δμ", "p (t)", "p_Holm (t)", "p (Wilcoxon)",
                    "p_Holm (Wilcoxon)", "significant under"],
                   [[f"`{r['task']}`", FAMILY_NAMES.get(family[r["task"]], family[r["task"]] or "n/a"),
                     f"{label(report, r['model_a'])} vs. {label(report, r['model_b'])}", f"{r['mean_diff']:+.3f}",
                     p_value(r["p_raw_t"]), p_value(r["p_holm_t"]) + ("*" if r["significant_t"] else ""),
                     p_value(r["p_raw_wilcoxon"]), p_value(r["p_holm_wilcoxon"])
                     + ("*" if r["significant_wilcoxon"] else ""),
                     "t only" if r["significant_t"] else "Wilcoxon only"] for r in split], "lllrrrrrl")
        L += ["", f"Δμ = mean(first − second); * marks p_Holm < {alpha:g}. The t test weighs each difference by "
              "its size and assumes roughly normal differences; the Wilcoxon test uses only their signs and ranks, "
              "and at S seeds cannot go below p = 2·2⁻ˢ (section 6), so after Holm it misses differences the t "
              "test finds, while one large outlying seed can sink the t test but not the ranks. A difference only "
              "one of them finds deserves less confidence than one both find.", ""]
    node = [r for r in rows if family[r["task"]] == "node_cls"]
    if node:
        L += ["### Node classification (the paper's Table 2 layout)", ""]
        L += table(["task", "comparison", "Δμ", "p_Holm (t)", "p_Holm (Wilcoxon)", "agree"],
                   [[f"`{r['task']}`", f"{label(report, r['model_a'])} vs. {label(report, r['model_b'])}",
                     f"{r['mean_diff']:+.3f}", p_value(r["p_holm_t"]) + ("*" if r["significant_t"] else ""),
                     p_value(r["p_holm_wilcoxon"]) + ("*" if r["significant_wilcoxon"] else ""),
                     "✓" if r["agree"] else "✗"] for r in node], "llrrrc")
        L += ["", f"The two tests agree on {sum(r['agree'] for r in node)} of {len(node)} node-classification "
              "comparisons (agreement = same significance decision).", ""]
    return L
