"""The report stage writes every artefact from synthetic run records, with sane content."""

import csv
import itertools
import json

import numpy as np
import pytest

from netzbench.report import BenchmarkReport
from netzbench.report.stage import run_report_stage
from netzbench.records import write_record

from helpers import as_settings, as_in_the_papers_setting, logged, make_params

PNG = b"\x89PNG\r\n\x1a\n"
TASKS = [("cora", "node_cls", "test_acc", "higher"), ("random_tsp", "link_pred", "test_auc", "higher"),
         ("mutag", "graph_cls", "test_acc", "higher"), ("karate", "node_cls", "test_acc", "higher"),
         ("board_directors", "link_pred", "test_auc", "higher")]
MODELS = ["GCN", "GAT", "GIN", "GraphSAGE", "GraphTransformer"]
S = 4
EPOCHS = 4

OUTPUTS = ["metrics/headline.json", "metrics/report.json", "reports/benchmark.json",
           "reports/benchmark.histories.json.gz", "reports/summary.csv", "reports/pairwise_t.csv",
           "reports/pairwise_wilcoxon.csv", "reports/power.csv", "reports/equivalence.csv", "reports/summary.tex",
           "reports/pairwise.tex", "reports/REPORT.md", "reports/selected_epochs.csv", "reports/posthoc.csv",
           "reports/bayesian.csv",
           "plots/critical_difference.png", "plots/critical_difference.svg",
           "plots/learning_curves.png", "plots/mean_ranks.csv", "plots/mean_ranks.png",
           *[f"plots/{kind}_{family}.png" for kind in ("dashboard", "forest", "pairwise")
             for family in ("node_cls", "graph_cls", "graph_reg", "link_pred")],
           "reports/site/index.html", "reports/site/tasks/cora.html", "reports/site/site.css", "reports/site/site.js"]


_CLOCK = itertools.count()


def _seed_entry(v):
    curve = [v - 0.02 * (EPOCHS - 1 - e) for e in range(EPOCHS)]
    start = 1.7e9 + 2.0 * next(_CLOCK)  # one seed after another, 2 s each
    return {"status": "ok", "epochs": list(range(1, EPOCHS + 1)),
            "history": {"train_loss": [1.0 / (e + 1) for e in range(EPOCHS)], "val_metric": curve, "test_metric": curve},
            "seconds": 2.0, "num_params": 10, "peak_rss_mb": 1.0, "started_at": start, "finished_at": start + 2.0}


def _record(task, family, metric, direction, model, seeds):
    for e in seeds.values():
        if "history" in e:
            h = e["history"]
            h[metric.replace("test", "val")] = h.pop("val_metric")
            h[metric] = h.pop("test_metric")
    statuses = {e["status"] for e in seeds.values()}
    return {"schema_version": 1, "task": task, "family": family, "model": model, "model_ref": model, "model_args": {},
            "role": "roster", "headline_metric": metric, "direction": direction,
            "hyperparameters": {"hidden_channels": 8, "lr": 0.01, "weight_decay": 0.0, "epochs": EPOCHS,
                                "eval_every": 1},
            "config_hash": "x", "data_hash": "y", "code_version": "z", "threads": 1, "software": {},
            "status": statuses.pop() if len(statuses) == 1 else "partial", "seeds": seeds}


@pytest.fixture
def workdir(tmp_path):
    rng = np.random.default_rng(0)
    for task, family, metric, direction in TASKS:
        for i, model in enumerate(MODELS):
            if task == "board_directors":
                seeds = {str(s): {"status": "unavailable", "reason": "no source reachable for board_directors"}
                         for s in range(S)}
            elif model == "GIN" and family != "graph_cls":
                seeds = {str(s): {"status": "incompatible", "reason": "GIN is a graph-level model"} for s in range(S)}
            else:
                seeds = {str(s): _seed_entry(float(0.6 + 0.03 * i + rng.normal(0, 0.01))) for s in range(S)}
                if task == "karate" and model == "GAT":
                    seeds["1"] = {"status": "failed", "error": "RuntimeError: boom", "seconds": 0.5}
            write_record(tmp_path / "metrics/runs" / task / f"{model}.json",
                         _record(task, family, metric, direction, model, seeds))
    return tmp_path


def _params(**report):
    return make_params(tasks=[t[0] for t in TASKS], models=MODELS, seeds=list(range(S)),
                       train={"epochs": {t[0]: EPOCHS for t in TASKS}}, report=report)


def _csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_stage_writes_every_file_with_sane_content(workdir, monkeypatch):
    as_in_the_papers_setting(monkeypatch)
    with logged() as said:
        metrics = run_report_stage(as_settings(_params()), root=workdir)
    for rel in OUTPUTS:
        assert (workdir / rel).is_file() and (workdir / rel).stat().st_size > 0, rel
    for rel in OUTPUTS:
        if rel.endswith(".png"):
            assert (workdir / rel).read_bytes()[:8] == PNG, rel
    assert (workdir / "plots/critical_difference.svg").read_text().lstrip().startswith(("<?xml", "<svg"))

    report = json.loads((workdir / "metrics/report.json").read_text())
    assert set(report) == set(metrics)
    for key in ("friedman", "cd", "k", "n_tasks", "mean_ranks", "cells", "candidate", "missing"):
        assert key in report, key
    assert set(report["candidate"]) == {"name", "mean_rank", "wins", "losses", "ties", "n_tasks"}
    assert report["k"] == 4 and report["n_tasks"] == 4 and "GIN" in report["excluded_from_ranks"]
    assert report["unavailable_tasks"] == {"board_directors": "no source reachable for board_directors"}
    assert report["missing"]["karate/GAT"] == "partial" and report["missing"]["cora/GIN"] == "incompatible"
    assert report["compute"]["total_seconds"] == pytest.approx(2.0 * (4 * 4 * S + S - 1) + 0.5)
    assert any("DATA UNAVAILABLE" in line for line in said)

    summary = _csv(workdir / "reports/summary.csv")
    assert list(summary[0]) == ["task", "model", "metric", "direction", "mean", "std", "sem", "n_seeds", "lo", "hi",
                                "half_width", "ci", "ci_method", "status", "clipped"]
    assert len(summary) == len(TASKS) * len(MODELS)
    assert next(r for r in summary if r["task"] == "karate" and r["model"] == "GAT")["n_seeds"] == "3"
    for method in ("t", "wilcoxon"):
        rows = _csv(workdir / f"reports/pairwise_{method}.csv")
        assert {"mean_diff", "sigma_d", "cohens_dz", "p_raw", "p_holm", "significant", "n_seeds",
                "dropped_seeds"} <= set(rows[0])
        assert {r["method"] for r in rows} == {method}
        assert next(r for r in rows if r["task"] == "karate" and "GAT" in (r["model_a"], r["model_b"]))[
            "dropped_seeds"] == "1"
    power = _csv(workdir / "reports/power.csv")
    assert {"mde", "observed_power", "detectable", "seeds_needed_0.02", "seeds_needed_0.01",
            "seeds_needed_0.005"} <= set(power[0])
    equiv = _csv(workdir / "reports/equivalence.csv")
    assert {r["verdict"] for r in equiv} <= {"different", "equivalent", "trivial", "undetermined"}
    assert {r["margin"] for r in equiv} == {"0.01"}
    audit = _csv(workdir / "reports/selected_epochs.csv")
    assert len(audit) == len(TASKS) * len(MODELS) * S and {r["epoch"] for r in audit} == {"4", ""}
    ranks = _csv(workdir / "plots/mean_ranks.csv")
    assert list(ranks[0]) == ["model", "mean_rank", "aggregation", "uniform_mean_rank"] and len(ranks) == 4
    posthoc = _csv(workdir / "reports/posthoc.csv")
    assert [r["method"] for r in posthoc] == ["nemenyi"] * 6 + ["wilcoxon_holm"] * 6  # 4 ranked models, 6 pairs
    assert {"model_a", "model_b", "p_raw", "p_holm", "significant"} <= set(posthoc[0])
    bayes = _csv(workdir / "reports/bayesian.csv")
    across = [r for r in bayes if r["scope"] == "across_tasks"]
    assert len(across) == 6 and {r["rope"] for r in across} == {"0.01"} and {r["seed"] for r in across} == {"0"}
    for r in across:
        assert float(r["p_a_better"]) + float(r["p_rope"]) + float(r["p_b_better"]) == pytest.approx(1.0)
    assert {r["task"] for r in bayes if r["scope"] == "task"} == {"cora", "random_tsp", "mutag", "karate"}
    assert report["posthoc"]["cliques_from"] == "nemenyi" and set(report["bayesian"]) == {
        f"{r['model_a']} vs {r['model_b']}" for r in across}
    assert report["friedman"]["chi2_tie_corrected"] == pytest.approx(report["friedman"]["chi2"])

    for rel in ("reports/summary.tex", "reports/pairwise.tex"):
        tex = (workdir / rel).read_text()
        assert r"\toprule" in tex and r"\midrule" in tex and r"\bottomrule" in tex

    md = (workdir / "reports/REPORT.md").read_text()
    for section in ("# netzbench report", "## 1. Protocol", "## 2. Results per task", "## 3. Significant",
                    "## 4. Paired t and Wilcoxon side by side", "### Node classification", "## 5. Across tasks", "## 6. Is the evidence sufficient",
                    "## 7. Equivalence", "## 8. Candidate", "## 9. Missing cells", "## 10. Compute cost",
                    "## 11. Comparison with the paper's Table 3", "remain by construction",
                    "## 12. Paper vs strict", "No protocol study in this run", "constant predictor",
                    "DATA UNAVAILABLE", "N = 4 tasks present",
                    "What the diagram shows", "What it does not show", "min Wilcoxon p",
                    "GIN is therefore not in the diagram", "With the tie correction",
                    "### Post-hoc tests: Nemenyi and Wilcoxon–Holm side by side", "### Bayesian comparison",
                    "practically equivalent with", "cliques come from **Nemenyi"):
        assert section in md, section
    assert "`karate`" in md and "`cora` | GCN vs. GAT" in md  # Table 2 layout with both node_cls tasks
    assert "0.811 ± 0.001" in md  # the paper's Cora GCN cell is quoted
    assert "board_directors" not in md.split("## 11.")[1].split("## 12.")[0]  # only tasks present in both
    assert report["paper_comparison"]["compared"] >= 1 and report["collapsed_cells"] == []

    again = BenchmarkReport.from_json(workdir / "reports/benchmark.json")
    assert again.friedman()["chi2"] == pytest.approx(report["friedman"]["chi2"])
    # elapsed time: the union of the ok seeds' intervals (sequential here, so their count x 2 s)
    n_ok = sum(1 for t in (workdir / "metrics/runs").glob("*/*.json")
               for e in json.loads(t.read_text())["seeds"].values() if "started_at" in e)
    assert report["compute"]["wall_seconds"] == pytest.approx(2.0 * n_ok)
    assert again.compute_cost()["wall_seconds"] == pytest.approx(2.0 * n_ok)
    assert "Elapsed training wall time" in md


def test_stage_params_drive_the_options(workdir):
    run_report_stage(as_settings(_params(ci_method="bootstrap", bootstrap_n=500, pairwise_method="wilcoxon",
                             epoch_selection="best_val", aggregation="reliability", equivalence_margin=0.05,
                             alpha=0.1, ci=0.9, posthoc="wilcoxon_holm")), root=workdir)
    report = json.loads((workdir / "metrics/report.json").read_text())
    assert report["options"]["posthoc_method"] == "wilcoxon_holm"
    assert report["posthoc"]["cliques_from"] == "wilcoxon_holm"
    assert {r["rope"] for r in _csv(workdir / "reports/bayesian.csv")} == {"0.05"}
    assert report["options"]["ci_method"] == "bootstrap" and report["options"]["pairwise_method"] == "wilcoxon"
    assert report["options"]["epoch_selection"] == "best_val" and report["alpha"] == 0.1
    assert report["aggregation"]["name"] == "reliability"
    assert {r["ci_method"] for r in _csv(workdir / "reports/summary.csv")} == {"bootstrap"}
    assert {r["ci"] for r in _csv(workdir / "reports/summary.csv")} == {"0.9"}
    assert {r["margin"] for r in _csv(workdir / "reports/equivalence.csv")} == {"0.05"}
    assert {r["pairwise_method"] for r in _csv(workdir / "reports/equivalence.csv")} == {"wilcoxon"}
    assert {r["selection"] for r in _csv(workdir / "reports/selected_epochs.csv")} == {"best_val"}
    assert {r["aggregation"] for r in _csv(workdir / "plots/mean_ranks.csv")} == {"reliability"}
    md = (workdir / "reports/REPORT.md").read_text()
    assert "`best_val`" in md and "percentile-bootstrap" in md and "Wilcoxon signed-rank, Holm" in md
    assert "cliques come from **Wilcoxon signed-rank + Holm** (`report.posthoc: wilcoxon_holm`)" in md
    assert "Wilcoxon" in (workdir / "reports/pairwise.tex").read_text()


def test_stage_survives_when_nothing_can_be_ranked(tmp_path):
    for task, family, metric, direction in TASKS[:2]:
        for model in ("GCN", "GAT"):
            seeds = {str(s): {"status": "unavailable", "reason": f"{task} is offline"} for s in range(S)}
            write_record(tmp_path / "metrics/runs" / task / f"{model}.json",
                         _record(task, family, metric, direction, model, seeds))
    params = make_params(tasks=["cora", "random_tsp"], models=["GCN", "GAT"], seeds=list(range(S)),
                         train={"epochs": {"cora": EPOCHS, "random_tsp": EPOCHS}})
    metrics = run_report_stage(as_settings(params), root=tmp_path)
    assert metrics["n_tasks"] == 0 and metrics["friedman"]["chi2"] is None and metrics["cd"] is None
    assert set(metrics["unavailable_tasks"]) == {"cora", "random_tsp"}
    for rel in OUTPUTS:
        assert (tmp_path / rel).is_file(), rel
    assert (tmp_path / "plots/forest_link_pred.png").read_bytes()[:8] == PNG
    assert "DATA UNAVAILABLE for 2 of 2 tasks" in (tmp_path / "reports/REPORT.md").read_text()


def test_stage_tells_failed_tasks_apart_from_unavailable_data(workdir):
    for model in MODELS:
        seeds = {str(s): {"status": "failed", "error": "RuntimeError: out of memory"} for s in range(S)}
        write_record(workdir / "metrics/runs/mutag" / f"{model}.json",
                     _record("mutag", "graph_cls", "test_acc", "higher", model, seeds))
    with logged() as said:
        metrics = run_report_stage(as_settings(_params()), root=workdir)
    assert list(metrics["unavailable_tasks"]) == ["board_directors"]
    assert set(metrics["tasks_without_results"]) == {"board_directors", "mutag"} and metrics["n_tasks"] == 3
    md = (workdir / "reports/REPORT.md").read_text()
    assert "NO RESULTS for 1 of 5 tasks" in md and "out of memory" in md
    assert any("NO RESULTS" in line and "mutag" in line for line in said)


def test_compact_metrics_hold_the_numbers_compared_across_experiments():
    from netzbench.report.stage import compact_metrics

    full = {"friedman": {"p_value": 0.0654321}, "mean_ranks": {"GCN": 1.875, "GAT": 3.0},
            "cells": {"cora": {"GCN": {"mean": 0.81123, "lo": 0.8, "hi": 0.82, "n_seeds": 10},
                               "GAT": {"mean": None, "lo": None, "hi": None, "n_seeds": 0}},
                      "board_directors": {"GCN": {"mean": None, "lo": None, "hi": None, "n_seeds": 0}}},
            "candidate": {"name": "MyGNN", "wins": 3, "losses": 1, "ties": 4, "mean_rank": 2.25, "n_tasks": 8}}
    out = compact_metrics(full)
    assert out == {"friedman_p": 0.0654, "mean_rank": {"GCN": 1.875, "GAT": 3.0}, "mean": {"cora": {"GCN": 0.8112}},
                   "candidate": {"wins": 3, "losses": 1, "ties": 4, "mean_rank": 2.25}}
    full["candidate"] = {"name": None, "wins": 0, "losses": 0, "ties": 0, "mean_rank": None, "n_tasks": 0}
    assert "candidate" not in compact_metrics(full)


@pytest.mark.stage_figures  # compares the rasterised files
def test_figures_rendered_in_forked_workers_are_the_same_bytes(workdir, tmp_path, monkeypatch):
    """The stage draws its figures in forked processes where there are cores: the same files as drawn here."""
    import multiprocessing
    import shutil

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork start method here: the stage renders every figure in its own process")
    other = tmp_path / "forked"
    shutil.copytree(workdir, other)
    run_report_stage(as_settings(_params()), root=workdir)
    monkeypatch.setenv("NETZBENCH_FIGURE_WORKERS", "2")
    run_report_stage(as_settings(_params()), root=other)
    plots = sorted(p.name for p in (workdir / "plots").iterdir())
    assert len(plots) > 10 and plots == sorted(p.name for p in (other / "plots").iterdir())
    for name in plots:
        assert (workdir / "plots" / name).read_bytes() == (other / "plots" / name).read_bytes(), name
