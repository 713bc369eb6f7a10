"""BenchmarkReport from run records: roster from params, missing cells, candidate block, JSON."""

import json
import math

import numpy as np
import pytest
import scipy.stats as st

from netzbench.report import BenchmarkReport
from netzbench.report.stage import headline_metrics, missing_cells
from netzbench.records import read_record, write_record

from helpers import as_settings, make_params


def _record(task, model, finals, family="node_cls", metric="test_acc", direction="higher", role="roster"):
    seeds = {}
    for s, v in enumerate(finals):
        if v is None:
            seeds[str(s)] = {"status": "failed", "error": "RuntimeError: boom"}
            continue
        seeds[str(s)] = {"status": "ok", "epochs": [1, 2],
                         "history": {"train_loss": [1.0, 0.5], metric.replace("test", "val"): [v - 0.1, v],
                                     metric: [v - 0.05, v]},
                         "seconds": 1.0, "num_params": 10, "peak_rss_mb": 1.0}
    statuses = {e["status"] for e in seeds.values()}
    return {"schema_version": 1, "task": task, "family": family, "model": model, "model_ref": model,
            "model_args": {}, "role": role, "headline_metric": metric, "direction": direction,
            "hyperparameters": {"hidden_channels": 8, "lr": 0.01, "weight_decay": 0.0, "epochs": 2, "eval_every": 1},
            "config_hash": "x", "data_hash": "y", "code_version": "z", "threads": 1, "software": {},
            "status": statuses.pop() if len(statuses) == 1 else "partial", "seeds": seeds}


@pytest.fixture
def runs(tmp_path):
    rng = np.random.default_rng(0)
    root = tmp_path / "runs"
    values = {}
    for t, fam, metric, direction in [("cora", "node_cls", "test_acc", "higher"),
                                      ("karate", "node_cls", "test_acc", "higher"),
                                      ("random_tsp", "link_pred", "test_auc", "higher"),
                                      ("mutag", "graph_cls", "test_acc", "higher")]:
        for i, m in enumerate(["GCN", "GAT", "GraphSAGE"]):
            v = list(np.round(0.6 + 0.1 * i + rng.normal(0, 0.01, 4), 4))
            values[(t, m)] = v
            write_record(root / t / f"{m}.json", _record(t, m, v, fam, metric, direction))
    # a stale record of a model no longer in the roster: must be ignored
    write_record(root / "cora" / "OldModel.json", _record("cora", "OldModel", [0.99] * 4))
    return root, values


def test_roster_comes_from_params_not_from_scanning(runs):
    root, values = runs
    p = make_params(tasks=["cora", "karate", "random_tsp", "mutag"], models=["GCN", "GAT", "GraphSAGE"],
                    seeds=[0, 1, 2, 3])
    rep = BenchmarkReport.from_runs(root, params=as_settings(p))
    assert rep.models == ["GCN", "GAT", "GraphSAGE"]
    fm = rep.final_metrics()
    assert np.allclose(fm["cora"]["GAT"], values[("cora", "GAT")])
    row = next(r for r in rep.summary() if r["task"] == "cora" and r["model"] == "GCN")
    lo, hi = st.t.interval(0.95, 3, loc=np.mean(values[("cora", "GCN")]), scale=st.sem(values[("cora", "GCN")]))
    assert row["lo"] == pytest.approx(lo) and row["hi"] == pytest.approx(hi)
    fr = rep.friedman()
    assert fr["k"] == 3 and fr["n_tasks"] == 4
    assert fr["mean_ranks"] == {"GCN": 3.0, "GAT": 2.0, "GraphSAGE": 1.0}
    chi2 = st.friedmanchisquare(*[[values[(t, m)] and np.mean(values[(t, m)]) for t in ("cora", "karate", "random_tsp", "mutag")]
                                   for m in ("GCN", "GAT", "GraphSAGE")]).statistic
    assert fr["chi2"] == pytest.approx(chi2)


def test_the_result_code_of_the_roster_records_is_recorded_in_the_config(runs):
    root, _ = runs
    p = make_params(tasks=["cora", "karate"], models=["GCN", "GAT"], seeds=[0, 1, 2, 3])
    assert BenchmarkReport.from_runs(root, params=as_settings(p)).config["code"] == "z"  # every record's code_version
    rec = read_record(root / "cora" / "GAT.json")
    write_record(root / "cora" / "GAT.json", {**rec, "code_version": "other"})
    assert "code" not in BenchmarkReport.from_runs(root, params=as_settings(p)).config  # mixed: none recorded (publication.py)


def test_missing_and_failed_cells_are_reported(runs, tmp_path):
    root, _ = runs
    write_record(root / "cora" / "GIN.json", _record("cora", "GIN", [0.5, None, 0.5, 0.5]))
    p = make_params(tasks=["cora", "karate"], models=["GCN", "GIN", "GraphTransformer"], seeds=[0, 1, 2, 3])
    rep = BenchmarkReport.from_runs(root, params=as_settings(p))
    missing = {(m["task"], m["model"]): m for m in missing_cells(rep)}
    assert missing[("cora", "GIN")]["status"] == "partial" and "boom" in missing[("cora", "GIN")]["reason"]
    assert missing[("karate", "GraphTransformer")]["status"] == "missing"
    fm = rep.final_metrics()
    assert np.isnan(fm["cora"]["GIN"][1]) and fm["cora"]["GIN"][0] == 0.5
    fr = rep.friedman()
    assert "GraphTransformer" in fr["excluded"] and "GIN" in fr["excluded"]  # GIN has nothing on karate


def test_candidate_block_counts_holm_significant_wins(runs, tmp_path):
    root, values = runs
    cand_dir = tmp_path / "cand"
    for t in ("cora", "karate", "random_tsp", "mutag"):
        best = [v + 0.2 for v in values[(t, "GraphSAGE")]]
        fam, metric = ("link_pred", "test_auc") if t == "random_tsp" else ("node_cls", "test_acc")
        write_record(cand_dir / f"{t}.json", _record(t, "MyGNN", best, fam, metric, role="candidate"))
    p = make_params(tasks=["cora", "karate", "random_tsp", "mutag"], models=["GCN", "GAT", "GraphSAGE"],
                    seeds=[0, 1, 2, 3])
    rep = BenchmarkReport.from_runs(root, params=as_settings(p), candidate_dir=cand_dir)
    block = rep.candidate_block("MyGNN", p["models"])
    assert block["n_tasks"] == 4 and block["mean_rank"] == 1.0
    assert block["wins"] + block["losses"] + block["ties"] == 12
    assert block["losses"] == 0 and block["wins"] > 0
    metrics = headline_metrics(rep, "MyGNN", p["models"])
    assert set(metrics["candidate"]) == {"name", "mean_rank", "wins", "losses", "ties", "n_tasks"}
    json.dumps(metrics, allow_nan=False)


def test_json_round_trip_is_exact_and_schema_checked(runs, tmp_path):
    root, _ = runs
    p = make_params(tasks=["cora", "mutag"], models=["GCN", "GAT"], seeds=[0, 1, 2, 3])
    rep = BenchmarkReport.from_runs(root, params=as_settings(p))
    text = rep.to_json()
    again = BenchmarkReport.from_json(text)
    assert again.to_json() == text
    assert again.summary() == rep.summary()
    path = tmp_path / "b.json"
    rep.to_json(path)
    assert BenchmarkReport.from_json(path).friedman()["chi2"] == rep.friedman()["chi2"]
    bad = json.loads(text)
    bad["schema"] = "netzbench.benchmark/999"
    with pytest.raises(ValueError, match="unsupported benchmark schema"):
        BenchmarkReport.from_json(json.dumps(bad))


def test_best_val_selects_on_validation_never_on_test():
    hist = {"val_acc": [0.5, 0.9, 0.9, 0.4], "test_acc": [0.1, 0.2, 0.3, 0.99]}
    rep = BenchmarkReport([0], {"t": {"m": [hist]}}, epoch_selection="best_val")
    assert rep.selected_epochs()["t"]["m"] == [1]  # earliest of the tied maxima
    assert rep.final_metrics()["t"]["m"][0] == 0.2
    rep.epoch_selection = "final"
    assert rep.final_metrics()["t"]["m"][0] == 0.99
    mae = BenchmarkReport([0], {"t": {"m": [{"val_mae": [3.0, 1.0, 2.0], "test_mae": [9.0, 8.0, 7.0]}]}},
                          epoch_selection="best_val")
    assert mae.task_info["t"].direction == "lower" and mae.final_metrics()["t"]["m"][0] == 8.0


def test_rank_tasks_limit_the_across_task_analysis_only(runs):
    root, _ = runs
    p = make_params(tasks=["cora", "karate", "random_tsp", "mutag"], models=["GCN", "GAT", "GraphSAGE"],
                    seeds=[0, 1, 2, 3], report={"rank_tasks": ["cora", "random_tsp", "mutag"]})
    rep = BenchmarkReport.from_runs(root, params=as_settings(p))
    assert rep.friedman()["n_tasks"] == 3
    assert {r["task"] for r in rep.summary()} == {"cora", "karate", "random_tsp", "mutag"}
    assert BenchmarkReport.from_json(rep.to_json()).rank_tasks == ["cora", "random_tsp", "mutag"]
    # narrowing `tasks` needs no edit of rank_tasks: listed tasks not trained are left out, and said
    narrow = make_params(tasks=["cora", "karate", "random_tsp"], models=["GCN", "GAT", "GraphSAGE"], seeds=[0, 1, 2, 3],
                         report={"rank_tasks": ["cora", "random_tsp", "mutag"]})
    rep = BenchmarkReport.from_runs(root, params=as_settings(narrow))
    assert rep.rank_tasks == ["cora", "random_tsp"] and rep.friedman()["n_tasks"] == 2
    from netzbench.report.facts import collect_facts
    from netzbench.report.markdown.protocol import header

    text = "\n".join(header(collect_facts(rep, None, rep.models)))
    assert "`report.rank_tasks` also lists `mutag`, which this run does not train" in text
    assert "Trained but not ranked (`report.rank_tasks` / `report.rank_exclude`): `karate`." in text
    # an exclusion list ranks whatever `tasks` holds, but those
    excl = make_params(tasks=["cora", "karate", "random_tsp", "mutag"], models=["GCN", "GAT", "GraphSAGE"],
                       seeds=[0, 1, 2, 3], report={"rank_exclude": ["karate"]})
    assert BenchmarkReport.from_runs(root, params=as_settings(excl)).rank_tasks == ["cora", "random_tsp", "mutag"]
    with pytest.raises(Exception, match="not both"):
        make_params(tasks=["cora"], report={"rank_tasks": ["cora"], "rank_exclude": ["mutag"]})
