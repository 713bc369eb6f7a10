"""REPORT.md section 5, continued: the two post-hoc tests side by side and the Bayesian comparison in words.

The tables are built here; the text, a pair's posterior in words included, is ``templates/comparisons.md.j2``.
"""

from __future__ import annotations

import math

from ..comparisons import DESIGNS, POSTHOC_NAMES, PROBABLE
from ..facts import ReportFacts
from ..formatting import number, p_value
from .templating import phrase, render
from .text import label, table


def posthoc_tables(facts: ReportFacts) -> list[str]:
    """Nemenyi and Wilcoxon–Holm, one row per ranked pair, and which one the CD diagram's cliques use."""
    nem, wil = facts.posthoc["nemenyi"], facts.posthoc["wilcoxon_holm"]
    if not nem:
        return []
    report = facts.report
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
    source = report.posthoc_method
    return render("comparisons", "posthoc",
                  table=table(["pair", "mean ranks", "wins", "p (Nemenyi)", "p (Wilcoxon)", "p_Holm (Wilcoxon)",
                               "agree"], rows, "llcrrrc"),
                  alpha=report.alpha, n_tasks=facts.friedman["n_tasks"],
                  any_degenerate=any(r.get("degenerate") for r in wil), source=source,
                  source_name=POSTHOC_NAMES[source])


def _reading(r: dict) -> str:
    """A pair's posterior in words, the likelier-better model first (the table's last column)."""
    a, b = r["model_a"], r["model_b"]
    pa, pr, pb = r["p_a_better"], r["p_rope"], r["p_b_better"]
    first, second, p_first, p_second = (a, b, pa, pb) if pa >= pb else (b, a, pb, pa)
    verdict = "equivalent" if pr >= PROBABLE else ("better" if p_first >= PROBABLE else "undecided")
    # the chance of the other direction is left out where it rounds to 0.00
    return phrase("comparisons", "reading", first=first, second=second, p_first=p_first, p_rope=pr,
                  p_second=p_second, show_worse=p_second >= 0.005, verdict=verdict)


def bayesian(facts: ReportFacts) -> list[str]:
    """The Bayesian signed-rank test over tasks in words, and a count of the per-task correlated t-tests."""
    bayes = facts.bayesian
    if bayes is None:
        return render("comparisons", "not_computed", error=facts.bayesian_error)
    across = bayes["across_tasks"]
    rows = [[f"{label(facts.report, r['model_a'])} vs. {label(facts.report, r['model_b'])}",
             f"{r['p_a_better']:.2f}", f"{r['p_rope']:.2f}", f"{r['p_b_better']:.2f}", _reading(r)] for r in across]
    rho = bayes["rho"]
    rho_from = "design" if bayes["split_design"] is not None else ("task" if isinstance(rho, dict) else "given")
    return render("comparisons", "bayesian", rope_scaled=bayes["rope_scaled"], rope=bayes["rope"],
                  n_tasks=len(bayes["tasks"]), n_samples=bayes["n_samples"], seed=bayes["seed"],
                  mc_error=0.5 / math.sqrt(bayes["n_samples"]),
                  table=table(["pair (a vs. b)", "P(a better)", "P(equivalent)", "P(b better)", "reading"], rows,
                              "lrrrl") if across else [],
                  probable=PROBABLE, counts=bayes["per_task_counts"], rho_from=rho_from,
                  rho=float(rho) if rho_from == "given" else None, design=_design_table(facts))


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
    return render("comparisons", "design_table",
                  table=table(["task", "split design (run records)", "n_train", "n_test", "ρ"], rows, "llrrr"),
                  unknown=[t for t in tasks if design.get(t, {}).get("design", "not_recorded") == "not_recorded"])
