"""REPORT.md section 5, continued: the two post-hoc tests side by side and the Bayesian comparison in words."""

from __future__ import annotations

import math

from ..comparisons import DESIGNS, POSTHOC_NAMES, PROBABLE
from ..facts import ReportFacts
from ..formatting import number, p_value
from .text import label, table


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
                 f"treating them as comparable. Monte Carlo: {bayes['n_samples']:,} posterior samples, seed "
                 f"{bayes['seed']} (reproducible; Monte-Carlo error ≤ {0.5 / math.sqrt(bayes['n_samples']):.3f}).")
        L.append("")
        rows = [[f"{label(facts.report, r['model_a'])} vs. {label(facts.report, r['model_b'])}",
                 f"{r['p_a_better']:.2f}", f"{r['p_rope']:.2f}", f"{r['p_b_better']:.2f}", _sentence(r)]
                for r in across]
        L += table(["pair (a vs. b)", "P(a better)", "P(equivalent)", "P(b better)", "reading"], rows, "lrrrl")
        L += ["", f"A region reached with probability ≥ {PROBABLE:.2f} is called probable; the rest is undecided. "
              "Use this when the question is \"how likely is a practically relevant difference\" rather than "
              "\"can equality be rejected\": unlike a p-value it can conclude practical equivalence.", ""]
    counts = bayes["per_task_counts"]
    if counts["comparisons"]:
        L.append("Per task, the Bayesian correlated t-test over the seeds (Corani & Benavoli 2015) with each task's "
                 f"margin as ROPE: of {counts['comparisons']} comparisons, {counts['one_better']} have one model "
                 f"better with probability ≥ {PROBABLE:.2f}, and in {counts['equivalent']} the two are practically "
                 f"equivalent with probability ≥ {PROBABLE:.2f}. {_rho_text(bayes)} Every comparison: "
                 "`reports/bayesian.csv` (column `rho`).")
        L.append("")
        L += _design_table(facts)
    return L


def _rho_text(bayes: dict) -> str:
    if bayes["split_design"] is None:
        rho = bayes["rho"]
        return (f"The correlation of the seeds is ρ = {number(float(rho), 2)}, as given." if not isinstance(rho, dict)
                else "The correlation of the seeds is given per task.")
    return ("The correlation ρ of a task's seeds comes from its split design (below): seeds that redraw the split "
            "of the same data overlap their training sets, so their differences are correlated, and ρ = n_test / "
            "(n_train + n_test) gives Nadeau & Bengio's variance correction 1/n + n_test/n_train; seeds on one "
            "fixed split, or on new data generated per seed, are independent repetitions (ρ = 0: the paired t "
            "test's posterior; on a fixed split, about the mean difference on that split's test set).")


def _design_table(facts: ReportFacts) -> list[str]:
    """The split design and ρ of each task with per-task comparisons, and the tasks without a recorded design."""
    bayes = facts.bayesian
    design = bayes["split_design"]
    tasks = list(dict.fromkeys(r["task"] for r in bayes["per_task"] if math.isfinite(r["p_rope"])))
    if design is None or not tasks:
        return []
    rows = [[f"`{t}`", DESIGNS[design[t]["design"]] + (f" ({design[t]['note']})" if design[t]["note"] else ""),
             number(design[t]["n_train"]), number(design[t]["n_test"]), number(design[t]["rho"], 3)]
            for t in tasks if t in design]
    L = table(["task", "split design (run records)", "n_train", "n_test", "ρ"], rows, "llrrr") + [""]
    unknown = [t for t in tasks if design.get(t, {}).get("design", "not_recorded") == "not_recorded"]
    if unknown:
        L += ["No split design recorded for " + ", ".join(f"`{t}`" for t in unknown) + " (run records written "
              "before seeds recorded it): ρ = 0 there, which is too narrow a posterior if the split was redrawn "
              "per seed.", ""]
    return L
