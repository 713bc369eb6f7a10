"""`netzbench protocols`: the strict protocol and one-switch ablations through the same path and cache."""

import json

from click.testing import CliRunner

from netzbench.catalog.data import fetch_task
from netzbench.study import run_study, task_switches, variants

from helpers import make_params


def test_study_trains_each_variant_once_and_writes_the_strict_report(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    params = make_params(tasks=["karate", "random_tsp"], models=["GCN", "GIN"], seeds=[0, 1], protocol="paper",
                         train={"epochs": {"karate": 2, "random_tsp": 2}})
    for task in params["tasks"]:
        fetch_task(task, params, "data", echo=lambda m: None)
    said = []
    study = run_study(params, echo=said.append, progress=False)
    tsp = study["tasks"]["random_tsp"]
    assert tsp["switches"] == ["link_split", "link_negatives", "link_eval_negatives", "link_metric",
                               "synthetic_graphs"]  # random_tsp has coordinates
    assert set(tsp["variants"]) == {"paper", "strict", "link_split=10_10", "link_negatives=fresh",
                                    "link_eval_negatives=hard", "link_metric=mrr", "synthetic_graphs=netzbench"}
    # link_metric only picks the headline: the paper protocol's trained seeds, read as MRR
    assert tsp["headlines"]["link_metric=mrr"]["metric"] == "test_mrr"
    assert tsp["variants"]["link_metric=mrr"]["GCN"] != tsp["variants"]["paper"]["GCN"]
    assert set(tsp["variants"]["paper"]) == {"GCN"}  # GIN cannot serve link prediction: no cell
    assert tsp["variants"]["paper"]["GCN"] != tsp["variants"]["strict"]["GCN"]
    karate = study["tasks"]["karate"]
    assert karate["switches"] == [] and karate["variants"]["paper"] == karate["variants"]["strict"]
    # karate's strict cell is the paper one (same keys), and link_metric=mrr reads the paper seeds of tsp:
    # 9 cells listed, each seed key trained once (6 tsp variants + karate's two models)
    assert "18 seed run(s) not cached" in said[0] and any("14 run(s) to train" in m for m in said)
    on_disk = json.loads((tmp_path / "reports/protocol_study.json").read_text())
    assert on_disk["tasks"]["random_tsp"]["variants"]["strict"] == tsp["variants"]["strict"]
    md = (tmp_path / "reports/strict/REPORT.md").read_text()
    assert "- **Protocol**: `strict`" in md and "](plots/dashboard.png)" in md and "../plots" not in md
    for rel in ("benchmark.json", "summary.csv", "report.json", "plots/critical_difference.png"):
        assert (tmp_path / "reports/strict" / rel).is_file(), rel
    again = []
    run_study(params, echo=again.append, progress=False)
    assert "0 seed run(s) not cached" in again[0]


def test_switches_per_task(tmp_path):
    params = make_params(tasks=["karate"], protocol="paper")
    meta = fetch_task("karate", params, tmp_path, echo=lambda m: None)
    assert task_switches("karate", meta) == []
    featureless = {"family": "link_pred", "split": "random_edge_80_10_10", "counts": {"num_nodes": 5}}
    assert task_switches("euroroad", featureless) == ["link_split", "link_negatives", "link_eval_negatives",
                                                      "link_metric", "structural_features"]
    relational = {"family": "link_pred", "split": "relational_canonical", "counts": {}}
    assert set(task_switches("fb15k_237", relational)) == {
        "structural_features", "relational_message_passing", "relational_negatives", "relational_eval_negatives",
        "relational_eval_side", "relational_held_out_overlap", "relational_inputs", "relation_init", "link_metric"}
    assert list(variants(["link_split"])) == ["paper", "strict", "link_split=10_10"]


def test_cli_protocols_checks_params_first(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text("tasks: [karate]\nmodels: [NoSuchModel]\ntrain: {epochs: {karate: 1}}\n")
    from netzbench.cli import main

    out = CliRunner().invoke(main, ["protocols"])
    assert out.exit_code == 2 and "NoSuchModel" in out.output


def test_single_switch_variants_on_fewer_seeds_are_compared_on_those_seeds(tmp_path, monkeypatch):
    from netzbench.report.reproduction import study_effects

    monkeypatch.chdir(tmp_path)
    params = make_params(tasks=["random_tsp"], models=["GCN"], seeds=[0, 1, 2], protocol="paper",
                         train={"epochs": {"random_tsp": 2}})
    fetch_task("random_tsp", params, "data", echo=lambda m: None)
    study = run_study(params, echo=lambda m: None, progress=False, variant_seeds=2)
    assert study["seeds"] == [0, 1, 2] and study["variant_seeds"] == [0, 1]
    tsp = study["tasks"]["random_tsp"]["variants"]
    assert len(tsp["paper"]["GCN"]) == 3 and len(tsp["strict"]["GCN"]) == 3
    assert len(tsp["link_negatives=fresh"]["GCN"]) == 2
    effects = study_effects(study, {"random_tsp": {"GCN": tsp["paper"]["GCN"]}}, [0, 1, 2])
    assert not effects["stale"]
    var = effects["tasks"]["random_tsp"]["variants"]["link_negatives=fresh"]
    paper_on_two = sum(tsp["paper"]["GCN"][:2]) / 2  # the same two seeds, not all three
    assert abs(var["delta"]["GCN"] - (sum(tsp["link_negatives=fresh"]["GCN"]) / 2 - paper_on_two)) < 1e-12
    strict = effects["tasks"]["random_tsp"]["variants"]["strict"]
    # strict headlines a link task by MRR, the paper protocol by AUC: means side by side, no change, no cause
    assert strict["metric"] == "test_mrr" and strict["delta"] == {} and not strict["same_metric"]
    assert abs(strict["means"]["GCN"] - sum(tsp["strict"]["GCN"]) / 3) < 1e-12
    assert effects["tasks"]["random_tsp"]["variants"]["link_metric=mrr"]["delta"] == {}
    hard = effects["tasks"]["random_tsp"]["variants"]["link_eval_negatives=hard"]  # AUC, against hard negatives
    assert hard["same_metric"] and abs(hard["delta"]["GCN"] - (sum(tsp["link_eval_negatives=hard"]["GCN"]) / 2
                                                              - paper_on_two)) < 1e-12
