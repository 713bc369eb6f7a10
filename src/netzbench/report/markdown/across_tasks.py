"""REPORT.md section 5: across tasks -- Friedman test, Nemenyi CD diagram with a plain-language reading,
the paper's Figure 3 set and Friedman result, the post-hoc tests and the Bayesian comparison
(:mod:`.comparisons`), other aggregations, rank stability.

What each block states is decided here; how it is worded is ``templates/across_tasks.md.j2``.
"""

from __future__ import annotations

import math

from ..facts import ReportFacts
from ..formatting import number
from ..paper import figure3_models, load_paper_table
from ..comparisons import PROBABLE
from .comparisons import bayesian, posthoc_tables
from .flags import WORDS
from .robustness import dependent, legend, mark
from .templating import render
from .text import label, table


def across_tasks(facts: ReportFacts) -> list[str]:
    """Section 5 (the diagram is ``plots/critical_difference.png``)."""
    report, fr = facts.report, facts.friedman
    L = render("across_tasks", "heading") + _scope(facts)
    if fr["k"] >= 2 and fr["n_tasks"] >= 1:
        L += _friedman(facts) + _figure3_set(report, fr) + _paper_friedman(fr)
        L += posthoc_tables(facts) + bayesian(facts) + _without_flagged(facts)
        L += _aggregations(facts) + _stability(report, fr)
    else:
        L += render("across_tasks", "not_enough", k=fr["k"], n_tasks=fr["n_tasks"])
    return L


def _scope(facts: ReportFacts) -> list[str]:
    """Which tasks the ranks cover and which models they exclude, and why."""
    fr, report = facts.friedman, facts.report
    ranked = [(c["task"], c["model"]) for c in facts.collapsed
              if c["task"] in fr["tasks"] and c["model"] in fr["models"]]
    flagged = [(c["task"], c["model"], WORDS[kind]) for kind, rows in (("degenerate", facts.degenerate),
                                                                      ("leakage", facts.leakage))
               for c in rows if c["task"] in fr["tasks"] and c["model"] in fr["models"]]
    return render("across_tasks", "scope", n_tasks=fr["n_tasks"], n_listed=len(report.tasks),
                  no_results=list(facts.without_results), excluded=fr["excluded"], ranked_models=fr["models"],
                  left_out=[m for m in report.models if m in facts.baseline_kinds and m not in report.ranked_models],
                  collapsed=ranked, flagged=flagged, uninformative=facts.uninformative)


def _probable(p: dict) -> str | None:
    """The region a pair's posterior reaches with probability ≥ PROBABLE (``a``, ``rope``, ``b``), or None."""
    return next((k for k, key in (("a", "p_a_better"), ("rope", "p_rope"), ("b", "p_b_better"))
                 if p[key] >= PROBABLE), None)


def _without_flagged(facts: ReportFacts) -> list[str]:
    """The mean ranks, Friedman p and Bayesian probabilities without the tasks holding a collapsed or leaking
    ranked cell, beside the all-cells ones above; the probable verdicts that depend on those tasks."""
    w = facts.without_flagged
    if not w["excluded"]:
        return []
    fr = w.get("friedman") or {}
    full = {f"{r['model_a']} vs {r['model_b']}": r for r in (facts.bayesian or {}).get("across_tasks", [])}
    depends = []
    for pair, p in w["bayesian"].items():
        if pair in full and _probable(full[pair]) and _probable(full[pair]) != _probable(p):
            a, b = pair.split(" vs ")
            key = {"a": "p_a_better", "rope": "p_rope", "b": "p_b_better"}[_probable(full[pair])]
            what = {"a": f"{a} better than {b}", "b": f"{b} better than {a}",
                    "rope": f"{a} and {b} practically equivalent"}[_probable(full[pair])]
            depends.append((what, full[pair][key], p[key]))
    return render("across_tasks", "without_flagged", excluded=w["excluded"], n_tasks=w["n_tasks"],
                  error=w.get("error"), ranked=_by_rank(fr.get("mean_ranks") or {}), p=fr.get("p_value"),
                  bayes=list(w["bayesian"].items()), depends=depends)


def _by_rank(mean_ranks: dict[str, float]) -> list[tuple[str, float]]:
    return sorted(mean_ranks.items(), key=lambda kv: kv[1])


def _separated(facts: ReportFacts, reject: bool) -> list[tuple[str, str]]:
    """The pairs the CD diagram's post-hoc test separates: beyond the CD (Nemenyi, lower mean rank first) or
    significant (Wilcoxon–Holm, the better first)."""
    fr = facts.friedman
    if facts.report.posthoc_method != "nemenyi":
        return [(r["better"], r["model_b"] if r["better"] == r["model_a"] else r["model_a"])
                for r in facts.posthoc["wilcoxon_holm"] if r["significant"]]
    if fr["max_gap"] < fr["cd"]:
        return []
    mr = fr["mean_ranks"]
    order = sorted(mr, key=mr.get)
    return [(a, b) for i, a in enumerate(order) for b in order[i + 1:] if mr[b] - mr[a] >= fr["cd"]]


def _friedman(facts: ReportFacts) -> list[str]:
    """Mean ranks, the Friedman / Iman–Davenport tests, the CD, the reading and the diagram."""
    fr, alpha = facts.friedman, facts.report.alpha
    if not math.isfinite(fr["chi2_tie_corrected"]):
        ties = "undefined"
    else:
        same = math.isclose(fr["chi2_tie_corrected"], fr["chi2"], rel_tol=1e-9, abs_tol=1e-12)
        ties = "same" if same else "larger"
    # order relations that do not hold under every protocol
    L = render("across_tasks", "friedman", fr=fr, alpha=alpha, ranked=_by_rank(fr["mean_ranks"]),
               moved=dependent(facts, "mean_rank_order"), mark=mark(facts, "friedman"), ties=ties)
    reject = math.isfinite(fr["p_value"]) and fr["p_value"] < alpha
    return L + legend(facts, L) + render(
        "across_tasks", "reading", posthoc=facts.report.posthoc_method, alpha=alpha, reject=reject,
        one_clique=len(fr["cliques"]) == 1 and len(fr["cliques"][0]) == fr["k"], beyond_cd=fr["max_gap"] >= fr["cd"],
        pairs=_separated(facts, reject), max_gap=fr["max_gap"],
        n_for_gap=fr["n_for_observed_gap"] if fr["n_for_observed_gap"] and fr["max_gap"] < fr["cd"] else None)


def _figure3_set(report, fr: dict) -> list[str]:
    """The Friedman test restricted to the paper's Figure 3 models, when they differ from the ranked ones."""
    figure3 = figure3_models()
    present = [m for m in report.models if m in figure3]  # in roster order
    if not figure3 or len(present) != len(figure3) or sorted(present) == sorted(fr["models"]):
        return []
    f3 = report.friedman(models=present)
    if f3["k"] != len(present):
        return []
    return render("across_tasks", "figure3_set", models=present, f3=f3, ranked=_by_rank(f3["mean_ranks"]))


def _paper_friedman(fr: dict) -> list[str]:
    """The paper's Friedman result, and why our CD differs from its."""
    paper = load_paper_table()
    if not paper or "friedman" not in paper:
        return []
    return render("across_tasks", "paper_friedman", pf=paper["friedman"], fr=fr)


def _aggregations(facts: ReportFacts) -> list[str]:
    """The ranked models' mean ranks under every defined aggregation (``custom`` only with weights)."""
    shown = ["uniform"] + [a for a in ("reliability", "hierarchical") if a in facts.mean_ranks]
    if facts.weights and "custom" in facts.mean_ranks:
        shown.append("custom")
    rows = [[label(facts.report, m)] + [number(facts.mean_ranks[a].get(m), 2) for a in shown]
            for m in facts.friedman["models"]]
    return render("across_tasks", "aggregations", table=table(["model"] + shown, rows, "l" + "r" * len(shown)),
                  custom_without_weights=facts.aggregation == "custom" and "custom" not in shown)


def _stability(report, fr: dict) -> list[str]:
    """How stable the mean-rank order is under resampling and leaving out tasks."""
    stab = report.rank_stability()
    if not stab["models"] or fr["n_tasks"] < 2:
        return []
    q = stab["largest_gap_quantiles"]
    return render("across_tasks", "stability", stab=stab, lo=q.get("0.025", math.nan), hi=q.get("0.975", math.nan),
                  separated=[(p, v) for p, v in stab["pair_separation"].items() if v > 0])
