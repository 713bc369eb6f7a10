"""Tasks no model informs are not ranked; the across-task results without collapsed or leaking cells
(report/informative.py), checked against scipy."""

import json

import numpy as np
import pytest
import scipy.stats as st

from netzbench.report import BenchmarkReport
from netzbench.report.facts import collect_facts
from netzbench.report.informative import uninformative_tasks
from netzbench.report.markdown import render_markdown
from netzbench.report.stage import report_metrics

pytestmark = pytest.mark.unit

SEEDS = list(range(5))
MODELS = ["GCN", "GAT", "SAGE"]
CONSTANT = 0.0886  # the constant predictor's MRR against 50 candidates (H_51 / 51)


def _report(means: dict, *, constant=CONSTANT, leaking=(), spread=0.002):
    rng = np.random.default_rng(0)
    hist, cells = {}, {}
    for t, by_model in means.items():
        hist[t], cells[t] = {}, {}
        for m, mu in by_model.items():
            vals = mu + rng.normal(0, spread, len(SEEDS))
            hist[t][m] = [{"test_mrr": [float(v)]} for v in vals]
            cells[t][m] = {"status": "ok", "seeds": {str(s): {
                "status": "ok", "baseline": {"test_constant_mrr": constant},
                "leakage": ["train_negatives"] if (t, m) in leaking else []} for s in SEEDS}}
    tasks = {t: {"metric": "test_mrr", "direction": "higher", "family": "link_pred"} for t in means}
    return BenchmarkReport(SEEDS, hist, {"protocol": "strict", "protocol_overrides": {}}, tasks=tasks, cells=cells,
                           equivalence_margin=0.01)


MEANS = {"t1": {"GCN": 0.30, "GAT": 0.25, "SAGE": 0.20}, "t2": {"GCN": 0.40, "GAT": 0.30, "SAGE": 0.35},
         "t3": {"GCN": 0.20, "GAT": 0.22, "SAGE": 0.10}, "t4": {"GCN": 0.50, "GAT": 0.45, "SAGE": 0.40},
         # every model below the constant: the ranks here would order failures
         "dead": {"GCN": 0.03, "GAT": 0.08, "SAGE": 0.05}}


def test_uninformative_rule_at_or_below_the_constant_and_the_metric_direction():
    row = lambda t, m, lo, hi: {"task": t, "model": m, "n_seeds": 5, "lo": lo, "hi": hi}  # noqa: E731
    summary = [row("a", "X", 0.01, 0.05), row("a", "Y", 0.02, 0.0886),  # touching the constant counts
               row("b", "X", 0.01, 0.05), row("b", "Y", 0.05, 0.0887),  # one interval reaches above it
               row("c", "X", 2.0, 3.0), row("c", "Y", 1.5, 2.0),  # MAE: at or above the constant 1.5
               row("d", "X", 0.01, 0.02)]  # no constant score: never uninformative
    base = {t: {"name": "test_constant", "value": v} for t, v in (("a", 0.0886), ("b", 0.0886), ("c", 1.5))}
    out = uninformative_tasks(summary, base, {"a": "higher", "b": "higher", "c": "lower", "d": "higher"})
    assert list(out) == ["a", "c"]
    assert "at or below the constant predictor's 0.0886" in out["a"] and "at or above" in out["c"]


def _friedman_chi2(report, tasks, models):
    means = [[np.mean(report.final_metrics()[t][m]) for t in tasks] for m in models]
    return st.friedmanchisquare(*means).statistic


def test_an_uninformative_task_is_left_out_of_every_across_task_analysis_and_said():
    report = _report(MEANS)
    facts = collect_facts(report, None, MODELS)
    assert list(facts.uninformative) == ["dead"]
    fr = facts.friedman
    assert fr["tasks"] == ["t1", "t2", "t3", "t4"] and fr["n_tasks"] == 4
    assert fr["chi2_tie_corrected"] == pytest.approx(_friedman_chi2(report, fr["tasks"], fr["models"]))
    assert {r["model_a"] for r in report.posthoc("wilcoxon_holm")} and report.score_table()[0] == fr["tasks"]
    assert facts.bayesian["tasks"] == fr["tasks"]
    metrics = report_metrics(facts)
    assert list(metrics["uninformative_tasks"]) == ["dead"] and metrics["n_tasks"] == 4
    json.dumps(metrics, allow_nan=False)
    md = render_markdown(facts)
    assert "**Not ranked: tasks no model informs**: `dead` (every model's interval (3 models) lies at or below" in md
    # the task stays in the per-task sections: only the across-task analysis leaves it out
    assert "| `dead` |" in md
    from netzbench.report.site import build_site

    index = build_site(facts)["index.html"]
    assert "Not ranked, no model informs:</strong>" in index and "<code>dead</code> (every model" in index
    # a task with one model above the constant is ranked
    alive = _report({**MEANS, "dead": {**MEANS["dead"], "GAT": 0.12}})
    assert alive.friedman()["n_tasks"] == 5 and not collect_facts(alive, None, MODELS).uninformative


def test_across_tasks_without_flagged_cells_beside_the_all_cells_version():
    means = {t: v for t, v in MEANS.items() if t != "dead"}
    means["t3"] = {"GCN": 0.20, "GAT": 0.32, "SAGE": 0.10}  # GAT's one clear win
    means["t5"] = {"GCN": 0.60, "GAT": 0.30, "SAGE": 0.35}
    means["t6"] = {"GCN": 0.55, "GAT": 0.35, "SAGE": 0.30}
    means["t7"] = {"GCN": 0.65, "GAT": 0.35, "SAGE": 0.30}
    report = _report(means, leaking={("t5", "GCN"), ("t6", "GAT"), ("t7", "SAGE")})
    facts = collect_facts(report, None, MODELS)
    w = facts.without_flagged
    assert w["excluded"] == {"t5": ["GCN ⊗"], "t6": ["GAT ⊗"], "t7": ["SAGE ⊗"]}
    assert w["tasks"] == ["t1", "t2", "t3", "t4"]
    assert w["friedman"]["chi2_tie_corrected"] == pytest.approx(_friedman_chi2(report, w["tasks"], MODELS))
    assert facts.friedman["n_tasks"] == 7  # the all-cells version keeps them
    metrics = report_metrics(facts)["across_tasks_without_flagged"]
    assert metrics["n_tasks"] == 4 and set(metrics["bayesian"]) == {"GCN vs GAT", "GCN vs SAGE", "GAT vs SAGE"}
    assert metrics["friedman_p"] == pytest.approx(w["friedman"]["p_value"])
    md = render_markdown(facts)
    section = md[md.index("### Without collapsed and leaking cells"):]
    from netzbench.report.site import build_site

    assert "Without the tasks holding collapsed (‡) or leaking (⊗) cells" in build_site(facts)["index.html"]
    assert "`t5` (GCN ⊗); `t6` (GAT ⊗); `t7` (SAGE ⊗), the ranks cover N = 4 tasks" in section
    full = {f"{r['model_a']} vs {r['model_b']}": r for r in facts.bayesian["across_tasks"]}
    assert full["GCN vs GAT"]["p_a_better"] >= 0.95 > w["bayesian"]["GCN vs GAT"]["p_a_better"]
    assert full["GCN vs SAGE"]["p_a_better"] >= 0.95 and w["bayesian"]["GCN vs SAGE"]["p_a_better"] >= 0.95
    # the probable verdict that rests on the flagged tasks says so; the one that does not, does not
    depends = section[section.index("**Probable only with the flagged cells**"):].split("\n")[0]
    assert (f"GCN better than GAT ({full['GCN vs GAT']['p_a_better']:.2f} with them, "
            f"{w['bayesian']['GCN vs GAT']['p_a_better']:.2f} without)") in depends and "SAGE" not in depends
    clean = _report(means)  # nothing flagged: no second version
    assert not collect_facts(clean, None, MODELS).without_flagged["excluded"]
    assert "### Without collapsed" not in render_markdown(collect_facts(clean, None, MODELS))
