"""REPORT.md section 14 and report.json's ``questions`` (issue 30): what the structure controls, a search's
trials and the seed rounds answer, shown only where the run has them."""

from __future__ import annotations

import numpy as np
import pytest

from netzbench.report import BenchmarkReport
from netzbench.report.facts import collect_facts
from netzbench.report.markdown import render_markdown
from netzbench.report.stage import report_metrics

from helpers import as_settings, REPO

MODELS = ["GCN", "GraphSAGE"]


def _report(search: bool) -> BenchmarkReport:
    rng = np.random.default_rng(3)
    hist, cells = {"cora": {}}, {"cora": {}}
    for i, m in enumerate(MODELS):
        hist["cora"][m] = [{"test_acc": [0.7 + 0.05 * i + 0.01 * rng.normal()]} for _ in range(3)]
        seeds = {}
        for s in range(3):
            entry = {"status": "ok"}
            if search:  # GCN steady at 0.80, GraphSAGE a lottery: GCN wins with one trial, GraphSAGE with more
                scores = [0.80] * 4 if m == "GCN" else [0.70, 0.70, 0.95, 0.70]
                entry["search"] = {"trace": [{"candidate": c, "status": "ok", "val_score": v}
                                             for c, v in enumerate(scores)]}
            seeds[str(s)] = entry
        cells["cora"][m] = {"status": "ok", "seeds": seeds}
    return BenchmarkReport.from_json(BenchmarkReport([0, 1, 2], hist, {}, tasks={
        "cora": {"metric": "test_acc", "direction": "higher", "family": "node_cls", "category": "social"}},
        cells=cells).to_json())


CONTROLS = {"seeds": [0, 1, 2], "rows": [
    {"task": "cora", "model": "GCN", "control": "no_edges", "original_mean": 0.81, "control_mean": 0.55,
     "verdict": "structure helps", "mean_diff": 0.26, "lo": 0.2, "hi": 0.32, "p_value": 1e-4, "mde": 0.05, "n_seeds": 3},
    {"task": "cora", "model": "GCN", "control": "rewired", "original_mean": 0.81, "control_mean": 0.80,
     "verdict": "no detectable effect", "mean_diff": 0.01, "lo": -0.02, "hi": 0.04, "p_value": 0.4, "mde": 0.031,
     "n_seeds": 3},
    {"task": "cora", "model": "GraphSAGE", "control": "no_edges", "original_mean": 0.9, "control_mean": 0.4,
     "verdict": "no detectable effect", "mean_diff": 0.5, "lo": 0.5, "hi": 0.5, "p_value": 0.25, "mde": None,
     "n_seeds": 3},
    {"task": "elsewhere", "model": "GCN", "control": "rewired", "original_mean": 0.5, "control_mean": 0.5,
     "verdict": "no detectable effect", "mean_diff": 0.0, "lo": -0.1, "hi": 0.1, "p_value": 1.0, "mde": 0.2,
     "n_seeds": 3}]}
SEEDS = {"target_effect": 0.01, "alpha": 0.05, "looks": [3, 5], "level": 0.0294,
         "seed_runs": {"used": 6, "cap": 10, "saved": 4, "share_saved": 0.4},
         "comparisons": [{"task": "cora", "model_a": "GCN", "model_b": "GraphSAGE", "decision": "different", "n": 3,
                          "p_diff": 0.001, "p_equiv": None}]}


def _built(report, **inputs):
    facts = collect_facts(report, None, MODELS, **inputs)
    return facts, render_markdown(facts)


def test_a_run_without_them_says_nothing():
    facts, md = _built(_report(search=False))
    assert facts.questions == {} and "## 14." not in md and "questions" not in report_metrics(facts)


def test_each_question_is_answered_where_the_run_has_what_answers_it():
    facts, md = _built(_report(search=True), controls=CONTROLS, seed_plan=SEEDS)
    assert "## 14. Three questions" in md
    assert "| `cora` | GCN | no edges | 0.8100 | 0.5500 | – | +0.2600 [+0.2000, +0.3200] | structure helps |" in md
    assert "no detectable effect (smallest detectable: 0.031)" in md and "elsewhere" not in md  # the run's tasks only
    assert "GCN and GraphSAGE change places at a budget of 2 trial(s)" in md
    assert "6 seed runs instead of 10 (40 % saved)" in md and "| `cora` | GCN | GraphSAGE | different | 3 |" in md
    q = report_metrics(facts)["questions"]
    assert "(the same difference on each of the 3 seeds: too few seeds for even that)" in md
    assert set(q) == {"controls", "seeds", "tuning"} and len(q["controls"]["rows"]) == 3
    curves = q["tuning"]["cora"]["curves"]
    assert abs(curves["GCN"]["mean"][0] - 0.8) < 1e-12 and curves["GraphSAGE"]["mean"][0] < 0.8 < curves["GraphSAGE"]["mean"][1]
    assert q["tuning"]["cora"]["crossing"] == [{"model_a": "GCN", "model_b": "GraphSAGE", "at": [2]}]


def test_the_tuning_curves_figure_draws_each_models_curve_and_names_the_crossing():
    from netzbench.report.figures.curves import tuning_curves_figure

    facts, md = _built(_report(search=True))
    assert "![tuning-budget curves](../plots/tuning_curves.png)" in md
    tuning = facts.questions["tuning"]
    fig = tuning_curves_figure(tuning, MODELS, {"cora": "test_acc"})
    (ax,) = fig.axes
    assert ax.get_title() == "cora  (1 crossing pair)" and ax.get_xlabel() == "trials (search budget)"
    assert ax.get_ylabel() == "expected best validation accuracy"
    lines = {ln.get_label(): ln for ln in ax.lines}
    assert set(lines) == set(MODELS)
    for m in MODELS:  # each line is the model's curve over the budgets 1..4
        assert list(lines[m].get_xdata()) == [1, 2, 3, 4]
        assert np.allclose(lines[m].get_ydata(), tuning["cora"]["curves"][m]["mean"])
    with pytest.raises(ValueError, match="no search trials"):
        tuning_curves_figure({})


def test_the_quick_profiles_questions_are_params_blocks_the_commands_read(tmp_path):
    """`netzbench quick --questions` writes its controls and seed rounds into the workspace's params.yaml and
    runs `netzbench controls` and `netzbench seeds` without arguments: the blocks must be valid there."""
    import shutil

    from netzbench.config import check_names
    from netzbench.params import load_params
    from netzbench.quick import PROFILE, QUESTIONS, prepare

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    target = prepare(tmp_path / "quick", REPO, {**PROFILE, **QUESTIONS})
    p = check_names(as_settings(load_params(target / "params.yaml"))).to_params()
    assert p["controls"] == {**QUESTIONS["controls"], "kinds": ["no_edges", "rewired", "random_graph"]}
    assert p["seed_plan"] == {**QUESTIONS["seed_plan"], "alpha": None}
    assert p["search"]["space"] == QUESTIONS["search"]["space"] and p["tasks"] == PROFILE["tasks"]
