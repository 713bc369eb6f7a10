"""REPORT.md section 2, continued: the baselines' cells and, per task, whether the best GNN beats the best
baseline (:mod:`netzbench.report.baselines`)."""

from __future__ import annotations

from ..facts import ReportFacts
from ..formatting import p_value
from ..series import metric_label
from ..within_task import TEST_NAMES
from .flags import caveat
from .robustness import legend as protocol_legend
from .robustness import mark as protocol_mark
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
        L += ["", "**Bold**: the best baseline in the row; †, ‡, ≡ and ⊗ as above.", ""]
    return L + _verdicts(facts)


def _by_kind(models: list[str], kinds: dict[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in models:
        out.setdefault(kinds[m], []).append(m)
    return out


def _verdicts(facts: ReportFacts) -> list[str]:
    """Per task: best GNN, best baseline, their difference, the Holm p and the verdict, with the flags of
    either compared cell beside it (a verdict on a flagged cell is not a verdict on the models); then the
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
                     p_value(r["p_holm"]) + (" ⁰" if r["degenerate"] else ""),
                     VERDICT_TEXT[r["verdict"]] + _mark(facts, "gnn_vs_baseline", r)
                     + caveat(facts, r["task"], [r["best_gnn"], r["best_baseline"]])])
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
          "also tested against the best structure-free baseline; where a structure-only baseline (a link "
          "heuristic: the graph alone) and a structure-free one (the features alone) have results, the best of "
          "each are tested against each other; the task's two or three p-values are Holm-adjusted together; "
          f"α = {report.alpha:g}. **yes**: the best GNN is significantly better. *flagged*: a compared "
          "cell is collapsed, degenerate or sees held-out edges (section 2's list), so the verdict does not "
          "compare the models as they generalise."
          + (" ⁰: zero spread of the paired differences (exact sign test)." if any(
              r["degenerate"] for r in facts.baseline_comparison) else ""), ""]
    for r in beaten:
        kind = KIND_NAMES.get(r["baseline_kind"], r["baseline_kind"]).split(" (")[0]
        L.append(f"- `{r['task']}`: the best baseline ({r['best_baseline']}, {kind}) is significantly better than "
                 f"the best GNN ({r['best_gnn']})" + _mark(facts, "gnn_vs_baseline", r)
                 + caveat(facts, r["task"], [r["best_gnn"], r["best_baseline"]]) + ".")
    for r in no_structure:
        L.append(_structure_sentence(r) + _mark(facts, "gnn_vs_structure_free", r)
                 + caveat(facts, r["task"], [r["best_gnn"], r["structure_free"]]) + ".")
    if structure:
        L.append("- The GNNs beat the structure-free baseline significantly on "
                 + ", ".join(f"`{r['task']}` ({r['best_gnn']} vs {r['structure_free']}"
                             f"{_mark(facts, 'gnn_vs_structure_free', r)}"
                             f"{caveat(facts, r['task'], [r['best_gnn'], r['structure_free']], inside=True)})"
                             for r in structure)
                 + ".")
    return L + ([""] if no_structure or structure or beaten else []) + protocol_legend(facts, L)


def _structure_sentence(r: dict) -> str:
    """Why the best GNN of row ``r`` does not beat the structure-free baseline, in the direction the test
    found, and whether the task rewards structure all the same (a structure-only baseline beats it)."""
    t, g, free, only = r["task"], r["best_gnn"], r["structure_free"], r["structure_only"]
    p = p_value(r["structure_p_holm"])
    head = (f"- `{t}`: the structure-free {free} is significantly better than the best GNN ({g}; p_Holm = {p})"
            if r["structure_free_better"] else
            f"- `{t}`: the best GNN ({g}) does not beat the structure-free {free} significantly (p_Holm = {p})")
    if r["structure_only_beats_free"]:
        return (head + f", but the structure-only {only} beats {free} (p_Holm = "
                f"{p_value(r['structure_only_p_holm'])}): the task rewards structure, **the GNNs do not use it**")
    tail = (f", and the structure-only {only} does not beat {free} significantly either (p_Holm = "
            f"{p_value(r['structure_only_p_holm'])})") if only else ""
    return head + tail + ": **the task does not reward structure** at this number of seeds"


def _mark(facts: ReportFacts, kind: str, r: dict) -> str:
    """⚑/⚐ when the verdict (``gnn_vs_baseline``) or the best GNN against the structure-free baseline
    (``gnn_vs_structure_free``) of baseline comparison row ``r`` depends on the protocol (:mod:`.robustness`)."""
    other = r["best_baseline"] if kind == "gnn_vs_baseline" else r["structure_free"]
    return protocol_mark(facts, kind, r["task"], r["best_gnn"], other)
