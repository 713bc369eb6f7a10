"""REPORT.md sections 2-4: results per task, its significant differences, and the paired t and
Wilcoxon tests side by side: where they disagree in every family, and node classification in the paper's
Table 2 layout (the paper's Tables 3 and 2). The tables are built here; the text around them is
``templates/per_task.md.j2``."""

from __future__ import annotations

from ...stats import RESOLUTION
from ..facts import ReportFacts
from ..figure_files import family_name, figure_families
from ..formatting import number, p_value
from ..series import metric_label
from ..within_task import TEST_NAMES
from .baselines import baseline_section, ranked_columns
from .flags import convergence_list, flag_list, marks, marks_legend
from .robustness import legend as protocol_legend
from .robustness import mark as protocol_mark
from .templating import render
from .text import arrow, cell_text, interval_name, label, overlaps, table, winners


BASELINE_NAMES = {"test_majority_acc": "majority class", "test_constant_auc": "constant score",
                  "test_constant_mae": "training mean", "test_constant_mrr": "constant score"}


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
    the best baseline; the dashboard of each task family the run has."""
    report = facts.report
    models, headers = ranked_columns(facts)
    below = {(r["task"], r["model"]): r for r in facts.below_constant}
    rows = []
    for t in report.tasks:
        info = report.task_info[t]
        base = facts.baselines.get(t)
        base_text = f"{number(base['value'])} ({BASELINE_NAMES.get(base['name'], base['name'])})" if base else "n/a"
        rows.append([info.category or "", f"`{t}`", info.family or "", f"{metric_label(info.metric)} "
                     f"{arrow(info.direction)}", base_text] + cell_texts(facts, t, models))
    return render("per_task", "results_per_task", ci_name=interval_name(report),
                  table=table(["category", "task", "kind", "metric", "constant predictor"] + headers, rows,
                              "lllll" + "r" * len(models)),
                  legend=protocol_legend(facts, [c for row in rows for c in row]), marks_legend=marks_legend(),
                  baselines_ranked=report.baseline_mode == "include" and bool(facts.baseline_kinds),
                  clipped=[(r["task"], r["model"]) for cells in facts.nested.values() for r in cells.values()
                           if r.get("clipped")],
                  flags=flag_list(facts) + convergence_list(facts), baselines=baseline_section(facts, cell_texts),
                  below=[(r["task"], label(report, r["model"]), number(r["mean"]), number(r["constant"]))
                         for t in report.tasks for m in models if (r := below.get((t, m)))],
                  families=[(f, family_name(f)) for f in figure_families(report)])


def significant_differences(facts: ReportFacts) -> list[str]:
    """Section 3: the Holm-significant comparisons of the headline paired test."""
    report = facts.report
    pw = facts.headline_pairwise
    sig = [r for r in pw if r["significant"]]
    degenerate = [r for r in pw if r.get("degenerate")]
    rows = []
    for r in sig:
        worse = r["model_b"] if r["better"] == r["model_a"] else r["model_a"]
        dropped = f" (dropped seeds {', '.join(map(str, r['dropped_seeds']))})" if r["dropped_seeds"] else ""
        better = f"**{label(report, r['better'])}**" + protocol_mark(facts, "significant_pair", r["task"],
                                                                      r["better"], worse)
        rows.append([f"`{r['task']}`", better, label(report, worse), f"{abs(r['mean_diff']):.4f}",
                     number(abs(r["cohens_dz"]), 2), p_value(r["p_raw"]) + (" ⁰" if r.get("degenerate") else ""),
                     p_value(r["p_holm"]), f"{r['n_seeds']}{dropped}"])
    return render("per_task", "significant_differences", pw_name=TEST_NAMES[report.pairwise_method],
                  alpha=report.alpha, n_sig=len(sig), n_pairs=len(pw), n_degenerate=len(degenerate),
                  resolution=RESOLUTION,
                  zero=[(r["task"], r["model_a"], r["model_b"]) for r in degenerate if r["mean_diff"] == 0],
                  table=table(["task", "better", "worse", "\\|Δμ\\|", "\\|d_z\\|", "p (raw)", "p (Holm)", "seeds"],
                              rows, "lllrrrrl") if rows else [],
                  legend=protocol_legend(facts, [row[1] for row in rows]))


#: the task families in words (section 4's rows)
FAMILY_NAMES = {"node_cls": "node classification", "graph_cls": "graph classification",
                "graph_reg": "graph regression", "link_pred": "link prediction"}


def _starred(p: float, significant: bool) -> str:
    return p_value(p) + ("*" if significant else "")


def _pair(report, r: dict) -> str:
    return f"{label(report, r['model_a'])} vs. {label(report, r['model_b'])}"


def paired_tests(facts: ReportFacts) -> list[str]:
    """Section 4: where the paired t and the Wilcoxon test decide differently (every family), how often they
    agree per family, and node classification's comparisons side by side (the paper's Table 2 layout)."""
    report = facts.report
    rows = facts.paired_agreement
    family = {t: report.task_info[t].family for t in report.tasks}
    per_family: dict[str, list[dict]] = {}
    for r in rows:
        per_family.setdefault(family[r["task"]] or "", []).append(r)
    split = [r for r in rows if not r["agree"]]
    node = [r for r in rows if family[r["task"]] == "node_cls"]
    return render(
        "per_task", "paired_tests", alpha=report.alpha, pw_name=TEST_NAMES[report.pairwise_method], n_rows=len(rows),
        families=table(["family", "comparisons", "same decision", "t only", "Wilcoxon only"],
                       [[FAMILY_NAMES.get(f, f or "n/a"), len(rs), sum(r["agree"] for r in rs),
                         sum(r["significant_t"] and not r["significant_wilcoxon"] for r in rs),
                         sum(r["significant_wilcoxon"] and not r["significant_t"] for r in rs)]
                        for f, rs in per_family.items()], "lrrrr"),
        n_split=len(split),
        split=table(["task", "family", "comparison", "Δμ", "p (t)", "p_Holm (t)", "p (Wilcoxon)", "p_Holm (Wilcoxon)",
                     "significant under"],
                    [[f"`{r['task']}`", FAMILY_NAMES.get(family[r["task"]], family[r["task"]] or "n/a"),
                      _pair(report, r),
                      f"{r['mean_diff']:+.3f}", p_value(r["p_raw_t"]), _starred(r["p_holm_t"], r["significant_t"]),
                      p_value(r["p_raw_wilcoxon"]), _starred(r["p_holm_wilcoxon"], r["significant_wilcoxon"]),
                      "t only" if r["significant_t"] else "Wilcoxon only"] for r in split], "lllrrrrrl"),
        node=table(["task", "comparison", "Δμ", "p_Holm (t)", "p_Holm (Wilcoxon)", "agree"],
                   [[f"`{r['task']}`", _pair(report, r), f"{r['mean_diff']:+.3f}",
                     _starred(r["p_holm_t"], r["significant_t"]),
                     _starred(r["p_holm_wilcoxon"], r["significant_wilcoxon"]), "✓" if r["agree"] else "✗"]
                    for r in node], "llrrrc") if node else [],
        n_node=len(node), n_node_agree=sum(r["agree"] for r in node))
