"""REPORT.md section 2, continued: the baselines' cells and, per task, whether the best GNN beats the best
baseline (:mod:`netzbench.report.baselines`)."""

from __future__ import annotations

from ..facts import ReportFacts
from ..formatting import p_value
from ..series import metric_label
from ..within_task import TEST_NAMES
from .text import arrow, label, names, table

#: what each baseline kind is, in words
KIND_NAMES = {"structure_free": "structure-free (the node features only, edges ignored)",
              "heuristic": "link heuristic (scored from each seed's training graph, no training; link prediction only)",
              "baseline": "baseline"}
VERDICT_TEXT = {"gnn_better": "**yes**", "baseline_better": "no: the baseline is better",
                "not_significant": "no significant difference"}


def ranked_columns(facts: ReportFacts) -> tuple[list[str], list[str]]:
    """The models of the main per-task table and their headers: every model (baselines marked °) under
    ``report.baselines: include``, the models under test only under ``separate``."""
    report, kinds = facts.report, facts.baseline_kinds
    if report.baseline_mode == "include":
        return report.models, [label(report, m) + (" °" if m in kinds else "") for m in report.models]
    models = [m for m in report.models if m not in kinds]
    return models, [label(report, m) for m in models]


def baseline_section(facts: ReportFacts, cell_texts) -> list[str]:
    """The baselines' block (under ``separate``) and the best-GNN-vs-best-baseline verdict per task;
    nothing when the roster has no baseline. ``cell_texts(facts, task, models)`` formats a row's cells."""
    report, kinds = facts.report, facts.baseline_kinds
    baselines = [m for m in report.models if m in kinds]
    if not baselines:
        return []
    L = ["### Baselines", ""]
    L.append("Baselines are reference points, not models under test: "
             + "; ".join(f"{names(ms)}: {KIND_NAMES.get(k, k)}" for k, ms in _by_kind(baselines, kinds).items())
             + ". " + ("`report.baselines: separate`: their cells are listed here, apart from the GNNs', and the "
                       "across-task analysis (section 5) ranks the models under test only."
                       if report.baseline_mode == "separate" else
                       "`report.baselines: include`: they are in the table above (°) and in the across-task "
                       "analysis, where, like any model, a baseline enters only with a result on every ranked "
                       "task (section 5 names the ones left out and why)."))
    L.append("")
    if report.baseline_mode == "separate":
        rows = [[f"`{t}`", f"{metric_label(report.task_info[t].metric)} {arrow(report.task_info[t].direction)}"]
                + cell_texts(facts, t, baselines) for t in report.tasks]
        L += table(["task", "metric"] + [label(report, m) for m in baselines], rows, "ll" + "r" * len(baselines))
        L += ["", "**Bold**: the best baseline in the row; † and ‡ as above.", ""]
    return L + _verdicts(facts)


def _by_kind(models: list[str], kinds: dict[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in models:
        out.setdefault(kinds[m], []).append(m)
    return out


def _verdicts(facts: ReportFacts) -> list[str]:
    """Per task: best GNN, best baseline, their difference, the Holm p and the verdict; then the
    tasks that do not reward structure."""
    report = facts.report
    rows, no_structure, structure, beaten = [], [], [], []
    for r in facts.baseline_comparison:
        if r["verdict"] == "no_comparison":
            rows.append([f"`{r['task']}`", label(report, r["best_gnn"]) or "n/a",
                         label(report, r["best_baseline"]) or "n/a", "", "",
                         f"n/a ({r['note']})"])
            continue
        rows.append([f"`{r['task']}`", f"{label(report, r['best_gnn'])} ({r['gnn_mean']:.3f})",
                     f"{label(report, r['best_baseline'])} ({r['baseline_mean']:.3f})", f"{r['mean_diff']:+.4f}",
                     p_value(r["p_holm"]) + (" ⁰" if r["degenerate"] else ""), VERDICT_TEXT[r["verdict"]]])
        if r["verdict"] == "baseline_better":
            beaten.append(r)
        if r["rewards_structure"] is False:
            no_structure.append(r)
        elif r["rewards_structure"]:
            structure.append(r)
    L = ["### Does the best GNN beat the best baseline?", ""]
    L += table(["task", "best GNN (mean)", "best baseline (mean)", "Δ (GNN − baseline)", "p (Holm)", "verdict"],
               rows, "lllrrl")
    L += ["", f"Best = highest seed mean under the task's metric direction (lowest for MAE). One "
          f"{TEST_NAMES[report.pairwise_method]} test over seed-aligned values per task (`report.pairwise_method`); "
          "where the best baseline is not structure-free but a structure-free one has results, the best GNN is "
          "also tested against the best structure-free baseline, and the task's two p-values are Holm-adjusted "
          f"together; α = {report.alpha:g}. **yes**: the best GNN is significantly better."
          + (" ⁰: zero spread of the paired differences (exact sign test)." if any(
              r["degenerate"] for r in facts.baseline_comparison) else ""), ""]
    for r in beaten:
        kind = KIND_NAMES.get(r["baseline_kind"], r["baseline_kind"]).split(" (")[0]
        L.append(f"- `{r['task']}`: the best baseline ({r['best_baseline']}, {kind}) is significantly better than "
                 f"the best GNN ({r['best_gnn']}).")
    for r in no_structure:
        L.append(f"- `{r['task']}`: the best GNN ({r['best_gnn']}) does not beat the structure-free "
                 f"{r['structure_free']} significantly (p_Holm = {p_value(r['structure_p_holm'])}): **the task does "
                 "not reward structure** at this number of seeds.")
    if structure:
        L.append("- The GNNs beat the structure-free baseline significantly on "
                 + ", ".join(f"`{r['task']}` ({r['best_gnn']} vs {r['structure_free']})" for r in structure) + ".")
    return L + ([""] if no_structure or structure or beaten else [])
