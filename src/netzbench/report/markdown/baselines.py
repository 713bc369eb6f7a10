"""REPORT.md section 2, continued: the baselines' cells and, per task, whether the best GNN beats the best
baseline (:mod:`netzbench.report.baselines`); the wording: ``templates/baselines.md.j2``."""

from __future__ import annotations

from ..facts import ReportFacts
from ..formatting import p_value
from ..series import metric_label
from ..within_task import TEST_NAMES
from .flags import caveat
from .robustness import legend as protocol_legend
from .robustness import mark as protocol_mark
from .templating import render
from .text import arrow, label, table

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
    rows = [[f"`{t}`", f"{metric_label(report.task_info[t].metric)} {arrow(report.task_info[t].direction)}"]
            + cell_texts(facts, t, baselines) for t in report.tasks]
    return render("baselines", "baseline_section",
                  kinds=[(KIND_NAMES.get(k, k), ms) for k, ms in _by_kind(baselines, kinds).items()],
                  mode=report.baseline_mode,
                  table=table(["task", "metric"] + [label(report, m) for m in baselines], rows,
                              "ll" + "r" * len(baselines))) + _verdicts(facts)


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
        against_best = caveat(facts, r["task"], [r["best_gnn"], r["best_baseline"]])
        rows.append([f"`{r['task']}`", f"{label(report, r['best_gnn'])} ({r['gnn_mean']:.3f})",
                     f"{label(report, r['best_baseline'])} ({r['baseline_mean']:.3f})", f"{r['mean_diff']:+.4f}",
                     p_value(r["p_holm"]) + (" ⁰" if r["degenerate"] else ""),
                     VERDICT_TEXT[r["verdict"]] + _mark(facts, "gnn_vs_baseline", r) + against_best])
        if r["verdict"] == "baseline_better":
            kind = KIND_NAMES.get(r["baseline_kind"], r["baseline_kind"]).split(" (")[0]
            beaten.append((r, kind, _mark(facts, "gnn_vs_baseline", r), against_best))
        if r["rewards_structure"] is False:
            no_structure.append((r, _mark(facts, "gnn_vs_structure_free", r),
                                 caveat(facts, r["task"], [r["best_gnn"], r["structure_free"]])))
        elif r["rewards_structure"]:
            structure.append((r, _mark(facts, "gnn_vs_structure_free", r),
                              caveat(facts, r["task"], [r["best_gnn"], r["structure_free"]], inside=True)))
    L = render("baselines", "verdicts",
               table=table(["task", "best GNN (mean)", "best baseline (mean)", "Δ (GNN − baseline)", "p (Holm)",
                            "verdict"], rows, "lllrrl"),
               pw_name=TEST_NAMES[report.pairwise_method], alpha=report.alpha,
               any_degenerate=any(r["degenerate"] for r in facts.baseline_comparison),
               beaten=beaten, no_structure=no_structure, structure=structure)
    return L + protocol_legend(facts, L)


def _mark(facts: ReportFacts, kind: str, r: dict) -> str:
    """⚑/⚐ when the verdict (``gnn_vs_baseline``) or the best GNN against the structure-free baseline
    (``gnn_vs_structure_free``) of baseline comparison row ``r`` depends on the protocol (:mod:`.robustness`)."""
    other = r["best_baseline"] if kind == "gnn_vs_baseline" else r["structure_free"]
    return protocol_mark(facts, kind, r["task"], r["best_gnn"], other)
