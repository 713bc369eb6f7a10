"""REPORT.md section 5, continued: the two post-hoc tests side by side and the Bayesian comparison in words."""

from __future__ import annotations

import math

from ..comparisons import POSTHOC_NAMES
from ..facts import ReportFacts
from ..formatting import number, p_value
from .text import label, table

#: P(region) at or above which the Bayesian reading calls a region "probable"
PROBABLE = 0.95


def posthoc_tables(facts: ReportFacts) -> list[str]:
    """Nemenyi and Wilcoxon–Holm, one row per ranked pair, and which one the CD diagram's cliques use."""
    nem, wil = facts.posthoc["nemenyi"], facts.posthoc["wilcoxon_holm"]
    if not nem:
        return []
    report, alpha = facts.report, facts.report.alpha
    by_pair = {(r["model_a"], r["model_b"]): r for r in wil}
    rows = []
    for rn in nem:
        rw = by_pair.get((rn["model_a"], rn["model_b"]), {})
        rows.append([f"{label(report, rn['model_a'])} vs. {label(report, rn['model_b'])}",
                     f"{rn['mean_rank_a']:.2f} / {rn['mean_rank_b']:.2f}",
                     f"{rw.get('wins_a', rn['wins_a'])}–{rw.get('wins_b', rn['wins_b'])}",
                     p_value(rn["p_adjusted"]) + ("*" if rn["significant"] else ""),
                     p_value(rw.get("p_raw")) + (" ⁰" if rw.get("degenerate") else ""),
                     p_value(rw.get("p_holm")) + ("*" if rw.get("significant") else ""),
                     "✓" if rn["significant"] == rw.get("significant") else "✗"])
    source = facts.report.posthoc_method
    L = ["### Post-hoc tests: Nemenyi and Wilcoxon–Holm side by side", ""]
    L += table(["pair", "mean ranks", "wins", "p (Nemenyi)", "p (Wilcoxon)", "p_Holm (Wilcoxon)", "agree"], rows,
               "llcrrrc")
    L += ["", f"Pairs marked * are significant at α = {alpha:g}. **Nemenyi** compares mean ranks (its p-value is the "
          "single-step studentized-range p, significant exactly when the mean-rank gap reaches the CD); a pair's "
          "mean ranks, and so its verdict, change when other models join or leave the pool. **Wilcoxon–Holm** "
          "tests each pair on its own per-task scores (the seed means the ranks come from; signed-rank test over "
          f"the N = {facts.friedman['n_tasks']} tasks, Holm over the pairs), so adding a model changes only the "
          "size of the Holm family (Benavoli, Corani & Mangili 2016 recommend it); it weighs a large win more "
          "than a small one, treating differences on different tasks as comparable. Wins = tasks each model "
          "wins. Use Nemenyi to read the diagram as published, Wilcoxon–Holm when the verdict on a pair "
          "should not depend on the rest of the roster."
          + (" ⁰ marks a pair whose per-task differences are all equal or zero (exact sign test, or no test)."
             if any(r.get("degenerate") for r in wil) else ""),
          "", f"The CD diagram's cliques come from **{POSTHOC_NAMES[source]}** (`report.posthoc: {source}`)"
          + (", drawn without a CD bar." if source == "wilcoxon_holm" else ".")
          + " Full table: `reports/posthoc.csv`.", ""]
    return L


def _sentence(r: dict) -> str:
    a, b = r["model_a"], r["model_b"]
    pa, pr, pb = r["p_a_better"], r["p_rope"], r["p_b_better"]
    first, second, p_first, p_second = (a, b, pa, pb) if pa >= pb else (b, a, pb, pa)
    text = (f"{first} is better than {second} with probability {p_first:.2f}, practically equivalent with "
            f"{pr:.2f}" + (f", worse with {p_second:.2f}" if p_second >= 0.005 else "") + ".")
    if pr >= PROBABLE:
        return text + " **Practically equivalent.**"
    if p_first >= PROBABLE:
        return text + f" **{first} is probably better.**"
    return text + " Undecided."


def bayesian(facts: ReportFacts) -> list[str]:
    """The Bayesian signed-rank test over tasks in words, and a count of the per-task correlated t-tests."""
    L = ["### Bayesian comparison", ""]
    bayes = facts.bayesian
    if bayes is None:
        return L + [f"Not computed: {facts.bayesian_error}", ""]
    across = bayes["across_tasks"]
    rope = ("each task's equivalence margin (differences in margins, ROPE = 1)" if bayes["rope_scaled"] else
            f"±{number(bayes['rope'], 4)} in metric units (`report.equivalence_margin`)")
    if across:
        L.append(f"Bayesian signed-rank test over the N = {len(bayes['tasks'])} tasks (Benavoli et al. 2017), on "
                 "the same per-task scores as the ranks, with a region of practical equivalence (ROPE) of "
                 f"{rope}. Instead of a p-value it gives the probability that each model is better, and that the "
                 f"two are practically equivalent; like the Wilcoxon test it pools the differences of all tasks, "
                 "treating them as comparable. Monte Carlo: {bayes['n_samples']} posterior samples, seed "
                 f"{bayes['seed']} (reproducible; Monte-Carlo error ≤ {0.5 / math.sqrt(bayes['n_samples']):.3f}).")
        L.append("")
        rows = [[f"{label(facts.report, r['model_a'])} vs. {label(facts.report, r['model_b'])}",
                 f"{r['p_a_better']:.2f}", f"{r['p_rope']:.2f}", f"{r['p_b_better']:.2f}", _sentence(r)]
                for r in across]
        L += table(["pair (a vs. b)", "P(a better)", "P(equivalent)", "P(b better)", "reading"], rows, "lrrrl")
        L += ["", f"A region reached with probability ≥ {PROBABLE:.2f} is called probable; the rest is undecided. "
              "Use this when the question is \"how likely is a practically relevant difference\" rather than "
              "\"can equality be rejected\": unlike a p-value it can conclude practical equivalence.", ""]
    per_task = [r for r in bayes["per_task"] if math.isfinite(r["p_rope"])]
    if per_task:
        n_a = sum(max(r["p_a_better"], r["p_b_better"]) >= PROBABLE for r in per_task)
        n_eq = sum(r["p_rope"] >= PROBABLE for r in per_task)
        rho = bayes["rho"]
        L.append(f"Per task, the Bayesian correlated t-test over the seeds (Corani & Benavoli 2015; correlation ρ = "
                 f"{number(rho, 2) if not isinstance(rho, dict) else 'per task'}: seeds on one split are "
                 "independent repetitions, so the posterior of the mean difference is the paired t test's; ρ > 0 "
                 "would widen it for splits redrawn per seed) with each task's margin as ROPE: of "
                 f"{len(per_task)} comparisons, {n_a} have one model better with probability ≥ {PROBABLE:.2f}, and "
                 f"in {n_eq} the two are practically equivalent with probability ≥ {PROBABLE:.2f}. Every comparison: "
                 "`reports/bayesian.csv`.")
        L.append("")
    return L
