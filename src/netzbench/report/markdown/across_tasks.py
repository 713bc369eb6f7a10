"""REPORT.md section 5: across tasks -- Friedman test, Nemenyi CD diagram with a plain-language reading,
the paper's Figure 3 set and Friedman result, the post-hoc tests and the Bayesian comparison
(:mod:`.comparisons`), other aggregations, rank stability."""

from __future__ import annotations

import math

from ..facts import ReportFacts
from ..formatting import number, p_value
from ..paper import figure3_models, load_paper_table
from .comparisons import bayesian, posthoc_tables
from .flags import WORDS
from .robustness import dependent, legend, mark
from .text import label, names, table

_DIAGRAM_SCOPE = ("What the diagram shows: where each model sits on the mean-rank axis (lower is better; per-task "
                  "ranks already account for the metric direction), how long a gap must be to count (the CD bar, "
                  "fixed by k and N alone), and which models are statistically interchangeable (clique bars). "
                  "What it does not show: how large the metric differences are on any task (a rank is a rank: a "
                  "0.001 AUC lead counts as much as a 0.3 lead, and a small task as much as a large one), whether a "
                  "model is better on a particular task (see sections 2–3), or anything about models excluded for "
                  "missing cells. CD shrinks as 1/√N, so with few tasks only large rank gaps can be certified.")


def across_tasks(facts: ReportFacts) -> list[str]:
    """Section 5 (the diagram is ``plots/critical_difference.png``)."""
    report, fr = facts.report, facts.friedman
    L = ["## 5. Across tasks: Friedman test and critical-difference diagram", ""] + _scope(facts)
    if fr["k"] >= 2 and fr["n_tasks"] >= 1:
        L += _friedman(facts) + _figure3_set(report, fr) + _paper_friedman(fr)
        L += posthoc_tables(facts) + bayesian(facts)
        L += _aggregations(facts) + _stability(report, fr)
    else:
        L.append(f"Not enough complete models or tasks for a Friedman test (k = {fr['k']}, N = {fr['n_tasks']}).")
        L.append("")
    return L


def _scope(facts: ReportFacts) -> list[str]:
    """Which tasks the ranks cover and which models they exclude, and why."""
    fr, no_results = facts.friedman, facts.without_results
    L: list[str] = []
    if no_results:
        L.append(f"**Ranks over the N = {fr['n_tasks']} tasks present** ({len(no_results)} of "
                 f"{len(facts.report.tasks)} listed tasks have no results: "
                 + ", ".join(f"`{t}`" for t in no_results) + ").")
        L.append("")
    if fr["excluded"]:
        excluded = list(fr["excluded"])
        L.append("Excluded from the ranks (a model must have results on every task present): "
                 + "; ".join(f"**{m}** — {why}" for m, why in fr["excluded"].items()) + ".")
        L.append(f"{names(excluded)} {'is' if len(excluded) == 1 else 'are'} therefore not in the diagram: like "
                 "the paper's Figure 3, it covers only the models with a result on every task present"
                 + (f" ({', '.join(fr['models'])})." if fr["models"] else "."))
        L.append("")
    left_out = [m for m in facts.report.models if m in facts.baseline_kinds and m not in facts.report.ranked_models]
    if left_out:
        L.append(f"Baselines left out of the across-task analysis (`report.baselines: separate`): "
                 f"{names(left_out)}; the ranks cover the models under test only. Section 2 compares them per task.")
        L.append("")
    ranked = [c for c in facts.collapsed if c["task"] in fr["tasks"] and c["model"] in fr["models"]]
    if ranked:
        L.append("**Collapsed cells are ranked at their constant predictor's score** (‡ in section 2): "
                 + "; ".join(f"`{c['task']}` {c['model']}" for c in ranked) + ". A rank earned by predicting one "
                 "class or one score says nothing about the architecture on that task; read the ranks with "
                 "that in mind.")
        L.append("")
    flagged = [(c["task"], c["model"], kind) for kind, rows in (("degenerate", facts.degenerate),
                                                               ("leakage", facts.leakage))
               for c in rows if c["task"] in fr["tasks"] and c["model"] in fr["models"]]
    if flagged:
        L.append("**Flagged cells in the ranks** (section 2's list): "
                 + "; ".join(f"`{t}` {m} ({WORDS[k]})" for t, m, k in flagged) + ". Their ranks rest on a metric "
                 "that did not move or ranked ties, or on a score that saw held-out edges.")
        L.append("")
    return L


def _wilcoxon_reading(facts: ReportFacts) -> str:
    """What the diagram's Wilcoxon–Holm cliques establish, in words."""
    fr, alpha = facts.friedman, facts.report.alpha
    reject = math.isfinite(fr["p_value"]) and fr["p_value"] < alpha
    sig = [r for r in facts.posthoc["wilcoxon_holm"] if r["significant"]]
    if not sig:
        return ("**Reading.** No pair differs significantly in the pairwise Wilcoxon signed-rank tests over tasks "
                f"(Holm, α = {alpha:g}): the clique bar joins every model, and this benchmark does not establish "
                "any ordering of these models.")
    pairs = [f"{r['better']} > {r['model_b'] if r['better'] == r['model_a'] else r['model_a']}" for r in sig]
    reading = ("**Reading.** These pairs differ in the pairwise Wilcoxon signed-rank tests over tasks (Holm, "
               f"α = {alpha:g}): {', '.join(pairs)}. Models joined by a clique bar are not distinguishable.")
    if not reject:
        reading += " The Friedman omnibus test does not reject, however: read these differences with care."
    return reading


def _reading(fr: dict, alpha: float) -> str:
    """What the CD diagram establishes, in words: one clique, the pairs beyond the CD, or no such pair."""
    reject = math.isfinite(fr["p_value"]) and fr["p_value"] < alpha
    one_clique = len(fr["cliques"]) == 1 and len(fr["cliques"][0]) == fr["k"]
    if one_clique:
        reading = ("**Reading.** All models fall within one Nemenyi clique: no mean rank differs from another "
                   "by more than the CD, so this benchmark does not establish any ordering of these models at "
                   f"α = {alpha:g}")
        return reading + (" (and the Friedman test does not reject equal mean ranks either)." if not reject else
                          ", even though the Friedman omnibus test rejects equal mean ranks — the post-hoc test is "
                          "too coarse at this N to say which models differ.")
    if fr["max_gap"] >= fr["cd"]:
        mr = fr["mean_ranks"]
        order = sorted(mr, key=mr.get)
        pairs = [f"{a} < {b}" for i, a in enumerate(order) for b in order[i + 1:] if mr[b] - mr[a] >= fr["cd"]]
        reading = ("**Reading.** These pairs differ in mean rank by at least the CD (Nemenyi, α = "
                   f"{alpha:g}): {', '.join(pairs)}. Models joined by a clique bar are not "
                   "distinguishable.")
        if not reject:
            reading += (" The Friedman omnibus test does not reject, however, so these post-hoc differences "
                        "should not be claimed.")
        return reading
    return "**Reading.** No pair of models differs in mean rank by more than the CD."


def _ties(fr: dict) -> str:
    """The tie-corrected Friedman statistic, and which of the two the report uses."""
    if not math.isfinite(fr["chi2_tie_corrected"]):
        return (" With the tie correction (scipy's `friedmanchisquare`) the statistic is undefined: every task "
                "ties every model.")
    same = math.isclose(fr["chi2_tie_corrected"], fr["chi2"], rel_tol=1e-9, abs_tol=1e-12)
    return (f" With the tie correction (scipy's `friedmanchisquare`): χ²({fr['df']}) = "
            f"{fr['chi2_tie_corrected']:.3f}, p = {p_value(fr['p_value_tie_corrected'])}"
            + (" (no tied ranks, so the same)" if same else " (tied ranks within tasks make it larger)")
            + ". The reading below and the Iman–Davenport F use the textbook statistic; the CD depends on "
            "k and N only.")


def _friedman(facts: ReportFacts) -> list[str]:
    """Mean ranks, the Friedman / Iman–Davenport tests, the CD, the reading and the diagram."""
    fr, alpha = facts.friedman, facts.report.alpha
    ranks = ", ".join(f"{m} {r:.2f}" for m, r in sorted(fr["mean_ranks"].items(), key=lambda kv: kv[1]))
    moved = dependent(facts, "mean_rank_order")  # order relations that do not hold under every protocol
    L = [f"Mean ranks over N = {fr['n_tasks']} tasks and k = {fr['k']} models (1 = best): {ranks}."
         + (f" Order relations that depend on the protocol: {', '.join(moved)}." if moved else ""), ""]
    if fr["k"] == 2:  # the F correction is a t test on the win signs: infinite when one model wins every task
        iman = ("Iman–Davenport not reported at k = 2 (with two models the Friedman test is the sign test "
                "over tasks)")
    else:
        iman = f"Iman–Davenport F = {number(fr['iman_davenport_f'])}, p = {p_value(fr['iman_davenport_p'])}"
        iman += f" ({fr['friedman_note']})" if fr.get("friedman_note") else ""
    L.append(f"Friedman χ²({fr['df']}) = {fr['chi2']:.3f}, p = {p_value(fr['p_value'])}{mark(facts, 'friedman')}; "
             f"{iman}. Nemenyi critical "
             f"difference at α = {alpha:g}: CD = {fr['cd']:.3f} (k = {fr['k']}, N = {fr['n_tasks']}). Largest "
             f"mean-rank gap: {fr['max_gap']:.2f}." + _ties(fr))
    reading = _reading(fr, alpha) if facts.report.posthoc_method == "nemenyi" else _wilcoxon_reading(facts)
    scope = _DIAGRAM_SCOPE if facts.report.posthoc_method == "nemenyi" else _DIAGRAM_SCOPE.replace(
        "how long a gap must be to count (the CD bar, fixed by k and N alone), and ", "")
    L += [""] + legend(facts, L) + [reading, "", scope]
    if fr["n_for_observed_gap"] and fr["max_gap"] < fr["cd"]:
        L.append("")
        L.append(f"The largest observed gap ({fr['max_gap']:.2f}) would become significant at about "
                 f"N = {fr['n_for_observed_gap']} tasks, if it persisted.")
    return L + ["", "![critical difference diagram](../plots/critical_difference.png)", ""]


def _figure3_set(report, fr: dict) -> list[str]:
    """The Friedman test restricted to the paper's Figure 3 models, when they differ from the ranked ones."""
    figure3 = figure3_models()
    present = [m for m in report.models if m in figure3]  # in roster order
    if not figure3 or len(present) != len(figure3) or sorted(present) == sorted(fr["models"]):
        return []
    f3 = report.friedman(models=present)
    if f3["k"] != len(present):
        return []
    return [f"Restricted to the paper's Figure 3 set ({', '.join(present)}): Friedman "
            f"χ²({f3['df']}) = {f3['chi2']:.3f}, p = {p_value(f3['p_value'])}, CD = {f3['cd']:.3f}, mean "
            "ranks " + ", ".join(f"{m} {r:.2f}" for m, r in sorted(f3["mean_ranks"].items(),
                                                               key=lambda kv: kv[1])) + ".", ""]


def _paper_friedman(fr: dict) -> list[str]:
    """The paper's Friedman result, and why our CD differs from its."""
    paper = load_paper_table()
    if not paper or "friedman" not in paper:
        return []
    pf = paper["friedman"]
    L = [f"The paper (k = {pf['k']}, N = {pf['n_tasks']}) reports χ²₃ = {pf['chi2']}, p = "
         f"{pf['p_value']}, CD = {pf['cd']}, mean ranks " + ", ".join(
             f"{m} {r:.2f}" for m, r in pf["mean_ranks"].items()) + "."]
    if fr["n_tasks"] != pf["n_tasks"] or fr["k"] != pf["k"]:
        L.append(f"Here k = {fr['k']} and N = {fr['n_tasks']}, so CD = {fr['cd']:.2f} instead of the "
                 f"paper's {pf['cd']}: " + ("fewer tasks widen the threshold (CD ∝ 1/√N)."
                                            if fr["n_tasks"] < pf["n_tasks"] else
                                            "the threshold depends on k and N only."))
    return L + [""]


def _aggregations(facts: ReportFacts) -> list[str]:
    """The ranked models' mean ranks under every defined aggregation (``custom`` only with weights)."""
    shown = ["uniform"] + [a for a in ("reliability", "hierarchical") if a in facts.mean_ranks]
    if facts.weights and "custom" in facts.mean_ranks:
        shown.append("custom")
    rows = [[label(facts.report, m)] + [number(facts.mean_ranks[a].get(m), 2) for a in shown]
            for m in facts.friedman["models"]]
    L = ["Mean ranks under other aggregations (diagnostics: only `uniform` has the Friedman/Nemenyi null; "
         "`reliability` weighs tasks by 1 / mean CI half-width, `hierarchical` averages within research "
         "category first):", ""]
    L += table(["model"] + shown, rows, "l" + "r" * len(shown)) + [""]
    if facts.aggregation == "custom" and "custom" not in shown:
        L.append("`report.aggregation: custom` needs `report.weights` ({task: weight}); none were given, so "
                 "`plots/mean_ranks.*` is empty. The uniform ranks above are the headline.")
        L.append("")
    return L


def _stability(report, fr: dict) -> list[str]:
    """How stable the mean-rank order is under resampling and leaving out tasks."""
    stab = report.rank_stability()
    if not stab["models"] or fr["n_tasks"] < 2:
        return []
    q = stab["largest_gap_quantiles"]
    shifts = ", ".join(f"{m} {v:.2f}" for m, v in stab["jackknife_max_shift"].items())
    sep = [f"{p} {v:.0%}" for p, v in stab["pair_separation"].items() if v > 0]
    return [f"**Rank stability** ({stab['n_boot']} bootstrap resamples of the tasks, seed {stab['seed']}): "
            f"the observed order ({' < '.join(stab['observed_order'])}) is reproduced in "
            f"{stab['order_reproduced']:.0%} of resamples; the largest mean-rank gap has a 95 % range of "
            f"{q.get('0.025', math.nan):.2f}–{q.get('0.975', math.nan):.2f}. Leaving one task out moves a "
            f"mean rank by at most: {shifts}. "
            + (f"Pairs separated by more than CD in some resamples: {', '.join(sep)}." if sep else
               "No pair is separated by more than CD in any resample."), ""]
