"""Controls that cannot be fooled (issue 52): a collapsed or degenerate side gives "cannot tell: collapsed",
identical controls say so, each row carries the constant predictor's score, and a side still learning at its
last epoch is "not converged" (report/convergence.py), in controls.json, on the command line and in REPORT.md."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from click.testing import CliRunner

from netzbench.cli import main
from netzbench.cli_common import epoch_budgets
from netzbench.cli_common import UserError
from netzbench.report import BenchmarkReport
from netzbench.report.convergence import MIN_EVALUATIONS, cell_convergence, not_converged, still_rising
from netzbench.report.degenerate import collapsed, degenerate
from netzbench.report.facts import collect_facts
from netzbench.report.markdown import render_markdown
from netzbench.structure_controls import CANNOT_TELL, compare, describe_row, identical_to, side_facts


SEEDS = [0, 1, 2]
NODE_AUC = {"metric": "test_auc", "direction": "higher", "family": "node_cls", "category": "social"}


# ------------------------------------------------------------------ convergence


def test_a_curve_still_rising_at_the_end_is_not_converged():
    rising = [0.5 + 0.01 * e for e in range(40)]
    plateau = [0.5 + 0.2 * (1 - np.exp(-e / 3)) for e in range(40)]
    assert still_rising(rising) is True
    assert still_rising(plateau) is False
    assert still_rising(rising[:MIN_EVALUATIONS - 1]) is None  # too short to tell
    assert still_rising([None, float("nan")] + plateau) is False  # gaps skipped
    falling_loss = [1.0 - 0.01 * e for e in range(40)]  # a lower-is-better series still improving
    assert still_rising(falling_loss, "lower") is True and still_rising(falling_loss, "higher") is False


def test_the_tail_must_beat_the_best_before_it_not_just_the_previous_epoch():
    noisy = [0.7, 0.72] * 20  # flat with noise: the tail only repeats the best seen long before
    assert still_rising(noisy) is False
    late_jump = [0.7] * 36 + [0.7, 0.7, 0.7, 0.75]
    assert still_rising(late_jump) is True


def test_a_cell_is_not_converged_when_most_seeds_still_rise():
    rising = {"val_auc": [0.5 + 0.01 * e for e in range(30)]}
    flat = {"val_auc": [0.7] * 30}
    assert cell_convergence([rising, rising, flat], "test_auc", "higher") == {
        "converged": False, "n_rising": 2, "n_seeds": 3, "series": "val_auc"}
    assert cell_convergence([rising, flat, flat], "test_auc", "higher")["converged"] is True
    assert cell_convergence([{"test_auc": [0.5] * 30}], "test_auc", "higher")["converged"] is None  # no val series
    from netzbench.report.series import TaskInfo

    rows = not_converged({"t": {"A": [rising] * 3, "B": [flat] * 3}}, {"t": TaskInfo("test_auc", "higher")})
    assert [(r["task"], r["model"], r["n_rising"]) for r in rows] == [("t", "A", 3)]
    assert "val_auc still rising over the last 10% of the epochs in 3 of 3 seeds" in rows[0]["reason"]


# ------------------------------------------------------- collapse judged on scores


def _node_history(auc, distinct_scores, argmax_constant=1.0, epochs=20):
    return {"val_auc": [auc] * epochs, "test_auc": [auc + 0.001 * e for e in range(epochs)],
            "test_constant": [argmax_constant] * epochs, "test_distinct": [1.0 if argmax_constant else 2.0] * epochs,
            "test_distinctscores": [distinct_scores] * epochs}


def _one_task(histories, meta=NODE_AUC):
    return BenchmarkReport(SEEDS, {"t": histories}, {}, tasks={"t": meta})


def test_an_auc_scored_classifier_is_collapsed_by_its_scores_not_its_classes():
    # predicts the majority class everywhere (argmax constant) but ranks the nodes: not collapsed
    ranking = _one_task({"GCN": [_node_history(0.72, 2400.0) for _ in SEEDS]})
    assert ranking.collapsed() == []
    # one score for every node: collapsed
    constant = _one_task({"GCN": [_node_history(0.5, 1.0) for _ in SEEDS]})
    assert [(r["model"], r["n_constant"]) for r in constant.collapsed()] == [("GCN", 3)]
    # three distinct scores: ties, degenerate as a score-valued cell (a classifier alone needs one)
    tied = _one_task({"GCN": [_node_history(0.6, 3.0) for _ in SEEDS]})
    rows = degenerate(tied.histories, tied.selected_epochs(), tied.task_info)
    assert rows and "fewer than 5 distinct test predictions" in rows[0]["reason"]
    # an accuracy-scored task keeps the class rule: argmax constant is collapsed
    acc = dict(NODE_AUC, metric="test_acc")
    hist = [{**_node_history(0.7, 2400.0), "test_acc": [0.8] * 20, "val_acc": [0.8] * 20} for _ in SEEDS]
    assert [r["model"] for r in collapsed({"t": {"GCN": hist}}, _one_task({"GCN": hist}, acc).selected_epochs(),
                                          {"t": _one_task({"GCN": hist}, acc).task_info["t"]})] == ["GCN"]


# ------------------------------------------------------------------ the verdicts


def _side(histories_by_model):
    return side_facts(_one_task(histories_by_model), "t")


def _learning(start, seed):
    return {"val_auc": [start + 0.1 * (1 - np.exp(-e / 3)) for e in range(30)],
            "test_auc": [start + 0.1 * (1 - np.exp(-e / 3)) + 0.01 * seed for e in range(30)],
            "test_constant": [0.0] * 30, "test_distinct": [2.0] * 30, "test_distinctscores": [2400.0] * 30}


def test_a_planted_collapsed_control_cannot_give_a_verdict():
    original = _side({"GCN": [_learning(0.7, s) for s in SEEDS]})["GCN"]
    collapsed_control = _side({"GCN": [_node_history(0.5, 1.0) for _ in SEEDS]})["GCN"]
    assert "collapsed" in collapsed_control["flags"] and not original["flags"]
    row = compare("t", "GCN", "no_edges", original, collapsed_control, 0.05, 1.0, 0.5, None)
    assert row["verdict"] == CANNOT_TELL
    assert row["why"].startswith("the control is collapsed (test predictions constant at the reported epoch in 3 of 3")
    assert row["original_mean"] > 0.79 and row["constant"] == 0.5
    # the same pair without the collapse is a verdict: the rule, not the numbers, decides
    learning_control = _side({"GCN": [_learning(0.5, 1.5 * s) for s in SEEDS]})["GCN"]
    assert compare("t", "GCN", "no_edges", original, learning_control, 0.05, 1.0, 0.5, None)["verdict"] == \
        "structure helps"
    # a collapsed original: cannot tell either, and the line names the side
    row = compare("t", "GCN", "rewired", collapsed_control, original, 0.05, 1.0, 0.5, None)
    assert row["verdict"] == CANNOT_TELL and row["why"].startswith("the original is collapsed")
    assert "cannot tell: collapsed" in describe_row(row) and "constant predictor 0.5000" in describe_row(row)


def test_identical_controls_name_each_other():
    a = np.array([0.8, 0.8, 0.8])
    same = identical_to({"original": np.array([0.81, 0.8, 0.82]), "no_edges": a, "rewired": a.copy(),
                         "random_graph": np.array([0.8, 0.79, 0.8])})
    assert same == {"no_edges": "rewired", "rewired": "no_edges"}
    assert identical_to({"original": a, "no_edges": a.copy()}) == {"original": "no_edges", "no_edges": "original"}
    assert identical_to({"no_edges": np.array([np.nan] * 3), "rewired": np.array([np.nan] * 3)}) == {}


def test_a_side_still_learning_is_said_not_converged():
    original = _side({"GCN": [{"val_auc": [0.5 + 0.01 * e for e in range(30)],
                                "test_auc": [0.5 + 0.01 * e + 0.001 * s for e in range(30)],
                                "test_distinctscores": [99.0] * 30} for s in SEEDS]})["GCN"]
    control = _side({"GCN": [_learning(0.5, s) for s in SEEDS]})["GCN"]
    row = compare("t", "GCN", "no_edges", original, control, 0.05, 1.0, 0.5, "rewired")
    assert row["original_converged"] is False and row["control_converged"] is True
    assert row["not_converged"] == ["the original: not converged: val_auc still rising over the last 10% of the "
                                    "epochs in 3 of 3 seeds (more epochs would likely score higher)"]
    line = describe_row(row)
    assert "identical to rewired on every seed" in line and "the original: not converged" in line


# ------------------------------------------------------------ command line, report


def test_epoch_budgets_are_task_equals_n():
    assert epoch_budgets(("minesweeper=200", "tolokers=300"), ["minesweeper", "tolokers"]) == \
        {"minesweeper": 200, "tolokers": 300}
    for bad, said in ((("minesweeper",), "give TASK=N"), (("minesweeper=0",), "give TASK=N"),
                      (("minesweeper=ten",), "give TASK=N"), (("cora=10",), "not one of the tasks being run")):
        with pytest.raises(UserError, match=said):
            epoch_budgets(bad, ["minesweeper"])


def test_the_command_passes_the_budgets_on(tmp_path, monkeypatch):
    import yaml

    import netzbench.structure_controls as structure_controls

    calls = []
    monkeypatch.setattr(structure_controls, "run_controls",
                        lambda params, tasks, models, kinds, **kw: calls.append((tasks, kw)))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"tasks": ["karate"], "models": ["GCN"]}))
    r = CliRunner()
    assert r.invoke(main, ["controls", "karate", "--epochs", "karate=7"]).exit_code == 0
    assert calls[-1] == (["karate"], {"data_root": "data", "epochs": {"karate": 7}})
    out = r.invoke(main, ["controls", "karate", "--epochs", "karate"])
    assert out.exit_code == 2 and "give TASK=N" in out.output and "Traceback" not in out.output


def test_the_report_shows_the_constant_predictor_and_what_leaves_a_verdict_open():
    report = BenchmarkReport.from_json(BenchmarkReport(SEEDS, {"cora": {
        "GCN": [{"test_acc": [0.8 + 0.01 * s], "val_acc": [0.8]} for s in SEEDS]}}, {}, tasks={
        "cora": {"metric": "test_acc", "direction": "higher", "family": "node_cls", "category": "social"}}).to_json())
    rows = [{"task": "cora", "model": "GCN", "control": "no_edges", "original_mean": 0.8027, "control_mean": 0.8,
             "constant": 0.8, "verdict": CANNOT_TELL, "mean_diff": 0.0027, "lo": -0.0008, "hi": 0.0062,
             "p_value": 0.07, "mde": 0.004, "n_seeds": 3, "original_flags": {},
             "control_flags": {"collapsed": "test predictions constant"}, "original_converged": False,
             "control_converged": True, "identical_to": "rewired"}]
    facts = collect_facts(report, None, ["GCN"], controls={"seeds": SEEDS, "rows": rows})
    md = render_markdown(facts)
    assert ("| `cora` | GCN | no edges | 0.8027 | 0.8000 | 0.8000 | +0.0027 [−0.0008, +0.0062] | cannot tell: "
            "collapsed (the control); identical to rewired on every seed; not converged (original: validation "
            "still rising at the last epoch) |") in md


def test_the_report_lists_cells_still_learning_at_the_last_epoch():
    rising = [{"val_acc": [0.5 + 0.01 * e for e in range(30)], "test_acc": [0.5 + 0.01 * e + 0.001 * s
                                                                            for e in range(30)]} for s in SEEDS]
    flat = [{"val_acc": [0.7] * 30, "test_acc": [0.7 + 0.001 * s] * 30} for s in SEEDS]
    report = BenchmarkReport(SEEDS, {"cora": {"GCN": rising, "MLP": flat}}, {}, tasks={
        "cora": {"metric": "test_acc", "direction": "higher", "family": "node_cls", "category": "social"}})
    facts = collect_facts(report, None, ["GCN", "MLP"])
    assert [(r["model"], r["n_rising"]) for r in facts.not_converged] == [("GCN", 3)]
    md = render_markdown(facts)
    assert "Cells still learning at the last epoch" in md
    assert "- `cora` GCN: not converged: val_acc still rising over the last 10% of the epochs in 3 of 3 seeds" in md
    assert "`cora` MLP: not converged" not in md
