"""Comparison with the paper from measurements: reference cells, the protocol study, degenerate cells."""

import json
import math

import numpy as np

from netzbench.records import write_record
from netzbench.report import BenchmarkReport
from netzbench.report.degenerate import baselines, below_constant, collapsed
from netzbench.report.reproduction import REFERENCE_SCHEMA, STUDY_SCHEMA, comparison, explain, study_effects
from netzbench.report.stage import run_report_stage

from helpers import as_settings, as_in_the_papers_setting, make_params

SEEDS = list(range(4))


def _summary(task, model, values):
    rep = BenchmarkReport(SEEDS, {task: {model: [{"test_auc": [v]} for v in values]}})
    return rep.summary()


def test_comparison_and_measured_causes():
    ours = _summary("euroroad", "GAT", [0.45, 0.46, 0.47, 0.46])  # far below the paper's 0.609 ± 0.022
    ref = {"schema": REFERENCE_SCHEMA, "cells": {"euroroad": {"GAT": {"values": [0.60, 0.61, 0.62, 0.61]}}}}
    (row,) = [r for r in comparison(ours, ref) if r["model"] == "GAT"]
    assert row["overlap"] is False and row["reference_overlap"] is True and row["ours_vs_reference"] is False
    study = {"schema": STUDY_SCHEMA, "seeds": SEEDS, "tasks": {"euroroad": {
        "direction": "higher", "switches": ["link_negatives"],
        "variants": {"paper": {"GAT": [0.45, 0.46, 0.47, 0.46]},
                     "link_negatives=fresh": {"GAT": [0.55, 0.56, 0.57, 0.56]}}}}}
    effects = study_effects(study, {"euroroad": {"GAT": np.array([0.45, 0.46, 0.47, 0.46])}}, SEEDS)
    assert not effects["stale"]
    assert abs(effects["tasks"]["euroroad"]["variants"]["link_negatives=fresh"]["delta"]["GAT"] - 0.10) < 1e-9
    assert "link_negatives=fresh (+0.100)" in explain(row, effects)
    # the reference itself misses the paper on this data: the data is the cause
    ref["cells"]["euroroad"]["GAT"]["values"] = [0.45, 0.44, 0.46, 0.45]
    (row,) = [r for r in comparison(ours, ref) if r["model"] == "GAT"]
    assert explain(row, effects).startswith("the data")
    # ours agrees with a reference run that overlaps the paper: random streams
    ref["cells"]["euroroad"]["GAT"]["values"] = [0.50, 0.62, 0.63, 0.49]
    (row,) = [r for r in comparison(ours, ref) if r["model"] == "GAT"]
    assert row["reference_overlap"] and row["ours_vs_reference"] and explain(row, effects).startswith("random")


def test_stale_study_is_detected():
    study = {"schema": STUDY_SCHEMA, "seeds": SEEDS, "tasks": {"t": {"variants": {"paper": {"M": [1.0, 2, 3, 4]}}}}}
    assert study_effects(study, {"t": {"M": np.array([1.0, 2, 3, 4])}}, SEEDS)["stale"] is False
    assert study_effects(study, {"t": {"M": np.array([1.0, 2, 3, 5])}}, SEEDS)["stale"] is True
    assert study_effects(study, {"t": {"M": np.array([1.0, 2, 3, 4])}}, SEEDS[:3])["stale"] is True
    assert study_effects(None, {}, SEEDS)["available"] is False


def test_a_study_of_other_result_code_or_an_older_netzbench_is_stale():
    """The paper protocol's AUC can stay bit for bit while the strict protocol and the switches changed: the
    study's result-code hash decides, and a study file of the previous schema (no hash) is stale."""
    final = {"t": {"M": np.array([1.0, 2, 3, 4])}}
    study = {"schema": STUDY_SCHEMA, "code": "abc", "seeds": SEEDS, "tasks": {"t": {"variants": {"paper": {
        "M": [1.0, 2, 3, 4]}}}}}
    assert study_effects(study, final, SEEDS, code="abc")["stale"] is False
    assert study_effects(study, final, SEEDS, code="def")["stale"] is True
    assert study_effects(study, final, SEEDS)["stale"] is False  # no code given: not checked
    old = dict(study, schema="netzbench.protocol_study/1")
    old.pop("code")
    effects = study_effects(old, final, SEEDS, code="abc")
    assert effects["available"] and effects["stale"]


def test_collapsed_cells_and_baselines():
    constant = {"test_acc": [0.5, 0.66], "test_constant": [1.0, 1.0]}
    varied = {"test_acc": [0.5, 0.7], "test_constant": [1.0, 0.0]}
    hist = {"mutag": {"GCN": [constant, constant, varied], "GIN": [varied, varied, constant]}}
    idx = {"mutag": {"GCN": [1, 1, 1], "GIN": [1, 1, 1]}}
    assert collapsed(hist, idx) == [{"task": "mutag", "model": "GCN", "n_constant": 2, "n_seeds": 3}]
    cells = {"mutag": {"GCN": {"seeds": {"0": {"baseline": {"test_majority_acc": 0.6}},
                                         "1": {"baseline": {"test_majority_acc": 0.7}}}}}}
    assert baselines(cells, {"mutag": "test_acc"})["mutag"]["name"] == "test_majority_acc"
    assert abs(baselines(cells, {"mutag": "test_acc"})["mutag"]["value"] - 0.65) < 1e-12


def _record(task, model, values, constant):
    seeds = {str(s): {"status": "ok", "epochs": [1], "seconds": 1.0, "num_params": 1, "peak_rss_mb": 1.0,
                      "history": {"train_loss": [0.5], "val_acc": [v], "test_acc": [v], "test_constant": [c]},
                      "baseline": {"test_majority_acc": 0.66}}
             for s, (v, c) in enumerate(zip(values, constant))}
    return {"schema_version": 1, "task": task, "family": "graph_cls", "category": "biology", "model": model,
            "model_ref": model, "role": "roster", "headline_metric": "test_acc", "direction": "higher",
            "hyperparameters": {"hidden_channels": 8, "lr": 0.01, "weight_decay": 0.0, "epochs": 1, "eval_every": 1},
            "config_hash": "c", "data_hash": "d", "code_version": "v", "threads": 1, "software": {}, "status": "ok",
            "seeds": seeds}


def test_report_stage_uses_reference_and_study(tmp_path, monkeypatch):
    as_in_the_papers_setting(monkeypatch)  # 4 seeds, 1 epoch: a fixture of the comparison, not a reproduction
    gcn = [0.5, 0.5, 0.5, 0.5]
    gin = [0.80, 0.85, 0.84, 0.83]
    write_record(tmp_path / "metrics/runs/mutag/GCN.json", _record("mutag", "GCN", gcn, [1, 1, 1, 0]))
    write_record(tmp_path / "metrics/runs/mutag/GIN.json", _record("mutag", "GIN", gin, [0, 0, 0, 0]))
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks/reference_cells.json").write_text(json.dumps(
        {"schema": REFERENCE_SCHEMA, "cells": {"mutag": {"GIN": {"values": [0.82, 0.84, 0.83, 0.85]}}}}))
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports/protocol_study.json").write_text(json.dumps(
        {"schema": STUDY_SCHEMA, "seeds": SEEDS, "tasks": {"mutag": {
            "direction": "higher", "switches": ["graph_split"],
            "variants": {"paper": {"GCN": gcn, "GIN": gin},
                         "graph_split=80_10_10": {"GCN": gcn, "GIN": [0.9, 0.9, 0.9, 0.9]},
                         "strict": {"GCN": gcn, "GIN": [0.9, 0.9, 0.9, 0.9]}}}}}))
    params = make_params(tasks=["mutag"], models=["GCN", "GIN"], seeds=SEEDS, protocol="paper",
                         train={"epochs": {"mutag": 1}})
    metrics = run_report_stage(as_settings(params), root=tmp_path)
    counts = {k: v for k, v in metrics["paper_comparison"].items() if k != "cells"}
    # GIN overlaps 0.834 ± 0.036, and its mean 0.83 is within 1.96 pooled SEs and covers the paper's mean
    assert counts == {"compared": 2, "overlapping": 1, "inside": 1, "z": 1, "strict": 1, "equivalent": 0}
    # TOST within the margin (0.01): GIN's 0.83 against 0.834 ± 0.036 cannot be shown equivalent on 4 seeds
    assert metrics["paper_comparison"]["cells"]["mutag/GIN"]["equivalent"] is False
    assert metrics["paper_comparison"]["cells"]["mutag/GIN"]["strict"] is True
    assert metrics["collapsed_cells"] == ["mutag/GCN"]
    md = (tmp_path / "reports/REPORT.md").read_text()
    assert "‡" in md and "0.660 (majority class)" in md and "Collapsed cells are ranked" in md
    assert "| `mutag` | GIN | 0.834 ± 0.036 | 0.835 ± 0.021 |" in md  # the reference column
    assert "| `mutag` | paper (means) | 0.500 | 0.830 | GIN > GCN |" in md
    assert "| | graph_split → 80_10_10 | +0.000 | +0.070 | same |" in md.replace("|  |", "| |")
    assert "**1 of 2**" in md and "largest single-switch effect measured on this cell is graph_split" in md
    assert "The protocol study is stale" not in md


def test_a_study_of_other_seeds_is_stale_not_an_error():
    from netzbench.report.reproduction import STUDY_SCHEMA, study_effects

    study = {"schema": STUDY_SCHEMA, "seeds": list(range(10)), "tasks": {"t": {
        "switches": [], "metric": "test_auc", "direction": "higher",
        "variants": {"paper": {"GCN": [0.5] * 10}, "strict": {"GCN": [0.6] * 10}}}}}
    effects = study_effects(study, {"t": {"GCN": [0.5, 0.5, 0.5]}}, [0, 1, 2])
    assert effects["available"] and effects["stale"]


def test_a_run_outside_the_papers_setting_is_not_compared_and_shows_only_its_tasks_study(tmp_path):
    """A 3-seed quick-style run: no Table 3 comparison (its misses would measure the setting), and a
    study of other tasks is not shown as this run's."""
    for model, values in (("GCN", [0.70, 0.71, 0.69]), ("GIN", [0.80, 0.82, 0.81])):
        write_record(tmp_path / "metrics/runs/mutag" / f"{model}.json", _record("mutag", model, values, [0, 0, 0]))
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports/protocol_study.json").write_text(json.dumps(
        {"schema": STUDY_SCHEMA, "seeds": [0, 1, 2], "tasks": {"cora": {
            "direction": "higher", "switches": [], "variants": {"paper": {"GCN": [0.8] * 3},
                                                               "strict": {"GCN": [0.7] * 3}}}},
         "remaining": {"karate": ["strict"]}}))
    params = make_params(tasks=["mutag"], models=["GCN", "GIN"], seeds=[0, 1, 2], protocol="paper",
                         train={"epochs": {"mutag": 1}})
    metrics = run_report_stage(as_settings(params), root=tmp_path)
    assert metrics["paper_comparison"]["compared"] == 0 and metrics["paper_comparison"]["cells"] == {}
    md = (tmp_path / "reports/REPORT.md").read_text()
    section = md.split("## 11.")[1].split("## 12.")[0]
    assert "Not compared" in section and "3 seeds, the paper's 10" in section
    assert "epochs set in params for `mutag`" in section and "not explained by a measurement" not in md
    assert "`cora`" not in md.split("## 12.")[1] and "karate" not in md  # the study's tasks are not this run's


def test_baseline_follows_the_headline_metric():
    """A link task scored by MRR shows the constant scorer's MRR (about 0.09 against 50 candidates), not
    its ROC-AUC of 0.5; a metric no constant series measures gets none."""
    seeds = {str(s): {"baseline": {"test_constant_auc": 0.5, "test_constant_mrr": 0.0882}} for s in range(2)}
    cells = {"fb": {"GCN": {"seeds": seeds}}, "other": {"GCN": {"seeds": seeds}}}
    out = baselines(cells, {"fb": "test_mrr", "other": "test_hits10"})
    assert out["fb"] == {"name": "test_constant_mrr", "value": 0.0882}
    assert "other" not in out
    assert baselines(cells, {"fb": "test_auc"})["fb"]["value"] == 0.5


def test_cells_worse_than_the_constant_predictor():
    """A cell is listed when its whole interval lies on the wrong side of the constant score: above it for
    an MRR only when ``lo`` is, below it for an MAE only when ``hi`` is."""
    from types import SimpleNamespace as NS

    cell = lambda mean, lo, hi: {"mean": mean, "lo": lo, "hi": hi, "n_seeds": 10}
    info = {"as": NS(direction="higher"), "tsp": NS(direction="higher"), "reg": NS(direction="lower"),
            "nan": NS(direction="higher")}
    baselines = {"as": {"value": 0.089}, "tsp": {"value": 0.089}, "reg": {"value": 3.0}, "nan": {"value": math.nan}}
    nested = {"as": {"GCN": cell(0.030, 0.029, 0.031), "GAT": cell(0.088, 0.080, 0.096)},
              "tsp": {"GCN": cell(0.087, 0.075, 0.099), "GAT": cell(0.05, math.nan, math.nan)},
              "reg": {"GCN": cell(3.5, 3.2, 3.8), "GAT": cell(3.1, 2.9, 3.3)},
              "nan": {"GCN": cell(0.01, 0.0, 0.02)}}
    out = below_constant(nested, baselines, info, ["reg", "as", "tsp", "nan"])
    assert [(r["task"], r["model"]) for r in out] == [("reg", "GCN"), ("as", "GCN")]
    assert out[1]["constant"] == 0.089 and out[0]["mean"] == 3.5
