"""`netzbench protocols`: the strict protocol and one-switch ablations through the same path and cache."""

import json

from click.testing import CliRunner

from netzbench.catalog.data import fetch_task
from netzbench.report.persistence import read as read_form
from netzbench.study import run_study, task_switches, variants

from helpers import as_settings, logged, make_params


def trained(said: list[str]) -> int:
    """Seed runs the study's messages say were trained (each variant runs its own cells)."""
    n = 0
    for m in said:
        if "training seeds [" in m:  # one cell: "task/model: training seeds [0, 1] (0 cached), ..."
            n += len(m.split("training seeds [", 1)[1].split("]", 1)[0].split(","))
        elif " run(s) to train in " in m:  # several: "task variant: 4 run(s) to train in 2 cells"
            n += int(m.split(" run(s) to train in ", 1)[0].rsplit(" ", 1)[1])
    return n


def test_study_trains_each_variant_once_and_writes_the_strict_report(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    params = make_params(tasks=["karate", "random_tsp"], models=["GCN", "GIN"], seeds=[0, 1], protocol="paper",
                         train={"epochs": {"karate": 2, "random_tsp": 2}})
    for task in params["tasks"]:
        fetch_task(task, as_settings(params), "data")
    with logged() as said:
        study = run_study(as_settings(params), progress=False)
    tsp = study["tasks"]["random_tsp"]
    assert tsp["switches"] == ["link_split", "link_negatives", "link_eval_negatives", "link_metric",
                               "synthetic_graphs"]  # random_tsp has coordinates
    assert set(tsp["variants"]) == {"paper", "strict", "link_split=10_10", "link_negatives=fresh",
                                    "link_eval_negatives=hard", "link_metric=mrr", "synthetic_graphs=netzbench"}
    # link_metric only picks the headline: the paper protocol's trained seeds, read as MRR
    assert tsp["headlines"]["link_metric=mrr"]["metric"] == "test_mrr"
    # each variant records its constant predictor's score in its headline (what tells an uninformative task)
    assert tsp["headlines"]["paper"]["constant"] == 0.5  # ROC-AUC of one score for all
    assert 0 < tsp["headlines"]["link_metric=mrr"]["constant"] < 0.5  # the MRR of one score among K candidates
    assert tsp["variants"]["link_metric=mrr"]["GCN"] != tsp["variants"]["paper"]["GCN"]
    assert set(tsp["variants"]["paper"]) == {"GCN"}  # GIN cannot serve link prediction: no cell
    assert tsp["variants"]["paper"]["GCN"] != tsp["variants"]["strict"]["GCN"]
    karate = study["tasks"]["karate"]
    assert karate["switches"] == [] and karate["variants"]["paper"] == karate["variants"]["strict"]
    # karate's strict cell is the paper one (same keys), and link_metric=mrr reads the paper seeds of tsp:
    # 9 cells listed, each seed key trained once (6 tsp variants + karate's two models)
    assert "18 seed run(s) not cached" in said[0] and trained(said) == 14
    on_disk = json.loads((tmp_path / "reports/protocol_study.json").read_text())
    assert on_disk["tasks"]["random_tsp"]["variants"]["strict"] == tsp["variants"]["strict"]
    md = (tmp_path / "reports/strict/REPORT.md").read_text()
    assert "- **Protocol**: `strict`" in md and "](plots/dashboard_link_pred.png)" in md and "../plots" not in md
    for rel in ("benchmark.json", "benchmark.histories.json.gz", "summary.csv", "report.json", "plots/critical_difference.png"):
        assert (tmp_path / "reports/strict" / rel).is_file(), rel
    assert not (tmp_path / "reports/strict/site").exists()  # the results site is the main report's
    # nothing left to train: the strict report is written again with this report code, from its benchmark
    # file; cells of records from before `batch_size` get this code's (a study resumes on the same code only)
    strict_file = tmp_path / "reports/strict/benchmark.json"
    form = read_form(strict_file)
    assert form["cells"]["karate"]["GCN"]["batch_size"] is None  # full batch, from the record
    for cells in form["cells"].values():
        for cell in cells.values():
            cell.pop("batch_size", None)
    strict_file.write_text(json.dumps(form))
    (tmp_path / "reports/strict/REPORT.md").unlink()
    with logged() as again:
        run_study(as_settings(params), progress=False)
    assert "0 seed run(s) not cached" in again[0] and trained(again) == 0
    md = (tmp_path / "reports/strict/REPORT.md").read_text()
    assert "Adam, full batch for node- and link-level tasks;" in md and "not recorded" not in md
    assert read_form(strict_file)["histories"] == form["histories"]


def test_switches_per_task(tmp_path):
    params = make_params(tasks=["karate"], protocol="paper")
    meta = fetch_task("karate", as_settings(params), tmp_path)
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
    fetch_task("random_tsp", as_settings(params), "data")
    study = run_study(as_settings(params), progress=False, variant_seeds=2)
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


def test_a_stopped_study_continues_where_it_stopped(tmp_path, monkeypatch):
    """The study is written after every variant; run again, it keeps what is done (trains nothing of
    it, even with the per-seed cache gone) and runs the rest; ``tasks`` limits a run to some tasks."""
    import shutil

    import netzbench.study as study_mod
    from netzbench.paths import cache_root

    monkeypatch.chdir(tmp_path)
    params = make_params(tasks=["karate", "random_tsp"], models=["GCN"], seeds=[0, 1], protocol="paper",
                         train={"epochs": {"karate": 2, "random_tsp": 2}})
    for task in params["tasks"]:
        fetch_task(task, as_settings(params), "data")
    real, calls = study_mod.run_plans, []

    def stop_at_third(plans, *a, **k):
        calls.append(k.get("desc"))
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(plans, *a, **k)

    monkeypatch.setattr(study_mod, "run_plans", stop_at_third)
    try:
        run_study(as_settings(params), progress=False, tasks=["random_tsp"])
    except KeyboardInterrupt:
        pass
    assert calls == ["random_tsp paper", "random_tsp strict", "random_tsp link_split=10_10"]
    first = json.loads((tmp_path / "reports/protocol_study.json").read_text())
    assert first["tasks"] == {} and not first["complete"]
    assert set(first["pending"]["random_tsp"]["variants"]) == {"paper", "strict"}  # strict: with its report
    assert "karate" in first["remaining"] and "link_split=10_10" in first["remaining"]["random_tsp"]
    strict = read_form(tmp_path / "reports/strict/benchmark.json")
    assert set(strict["histories"]) == {"random_tsp", "karate"}
    assert strict["histories"]["karate"]["GCN"] == [None, None]  # not run yet: a missing cell, with why
    assert "not run the strict protocol" in strict["cells"]["karate"]["GCN"]["reason"]
    tsp_strict = strict["histories"]["random_tsp"]

    monkeypatch.setattr(study_mod, "run_plans", real)
    shutil.rmtree(cache_root())  # what is in the study is never trained again
    with logged() as said:
        done = run_study(as_settings(params), progress=False)
    assert done["complete"] and done["remaining"] == {} and done["pending"] == {}
    assert set(done["tasks"]) == {"karate", "random_tsp"}
    assert done["tasks"]["random_tsp"]["variants"]["strict"] == first["pending"]["random_tsp"]["variants"]["strict"]
    # tsp: the 4 single switches but link_metric (it reads the paper seeds: trained once more, cache gone);
    # karate: paper (strict shares its keys)
    assert "resuming" in said[0] and trained(said) == 2 * 5 + 2
    strict = read_form(tmp_path / "reports/strict/benchmark.json")
    assert strict["histories"]["random_tsp"] == tsp_strict and strict["histories"]["karate"]["GCN"][0] is not None
    assert "not complete" not in (tmp_path / "reports/strict/REPORT.md").read_text()

    with logged() as again:
        run_study(as_settings(params), progress=False)
    assert "0 seed run(s) not cached" in again[0] and trained(again) == 0
    shutil.rmtree(tmp_path / "data" / "karate")  # a fresh checkout: a finished task need not be fetched again
    kept = run_study(as_settings(params), progress=False, tasks=["random_tsp"])
    assert kept["complete"] and kept["remaining"] == {} and set(kept["tasks"]) == {"karate", "random_tsp"}
    other = make_params(tasks=["karate", "random_tsp"], models=["GCN"], seeds=[0, 1, 2], protocol="paper",
                        train={"epochs": {"karate": 2, "random_tsp": 2}})
    with logged() as fresh:
        run_study(as_settings(other), progress=False, tasks=["karate"])
    assert any("written for another seeds" in m for m in fresh)


def test_a_switch_that_changes_nothing_on_the_data_is_not_run(tmp_path):
    import numpy as np

    from netzbench.study import _held_out_restated

    tri = {"num_nodes": np.array([4]), "num_relations": np.array([2]),
           "train_edge_index": np.array([[0, 1], [1, 2]]), "train_edge_type": np.array([0, 1]),
           "valid_edge_index": np.array([[2], [3]]), "valid_edge_type": np.array([0]),
           "test_edge_index": np.array([[3], [0]]), "test_edge_type": np.array([1])}
    np.savez(tmp_path / "graph.npz", **tri)
    relational = {"family": "link_pred", "split": "relational_canonical", "counts": {}}
    assert not _held_out_restated(tmp_path)
    assert "relational_held_out_overlap" not in task_switches("fb15k_237", relational, tmp_path)
    tri["valid_edge_index"] = np.array([[2], [1]])  # (2, r1, 1) restates training's (1, r1, 2) reversed
    tri["valid_edge_type"] = np.array([1])
    np.savez(tmp_path / "graph.npz", **tri)
    assert _held_out_restated(tmp_path)
    assert "relational_held_out_overlap" in task_switches("fb15k_237", relational, tmp_path)


def test_an_incomplete_study_is_named_in_the_report():
    from netzbench.report.markdown.text import incomplete_note
    from netzbench.report.reproduction import study_effects

    study = {"schema": "netzbench.protocol_study/2", "seeds": [0], "variant_seeds": [0], "code": "c",
             "tasks": {"karate": {"switches": [], "variants": {"paper": {"GCN": [0.5]}, "strict": {"GCN": [0.5]}}}},
             "remaining": {"fb15k_237": ["strict", "relation_init=xavier"]}, "complete": False}
    effects = study_effects(study, {"karate": {"GCN": [0.5]}, "fb15k_237": {"GCN": [0.7]}}, [0], code="c")
    assert not effects["stale"] and effects["remaining"] == study["remaining"]
    line = incomplete_note(effects)[0]
    assert "not complete" in line and "`fb15k_237` (`strict`, `relation_init=xavier`)" in line
    assert incomplete_note({**effects, "remaining": {}}) == []


def test_a_strict_report_the_study_did_not_write_is_not_kept(tmp_path, monkeypatch):
    """The study file is also written alone; a strict report left from other code is never merged into it."""
    monkeypatch.chdir(tmp_path)
    params = make_params(tasks=["karate"], models=["GCN"], seeds=[0, 1], protocol="paper",
                         train={"epochs": {"karate": 2}})
    fetch_task("karate", as_settings(params), "data")
    run_study(as_settings(params), progress=False)
    path = tmp_path / "reports/strict/benchmark.json"
    form = read_form(path)
    assert form["config"]["code"]  # written with the study's result code
    fresh = form["histories"]["karate"]["GCN"][0]["test_acc"]
    form["config"]["code"] = "another"
    form["histories"]["karate"]["GCN"][0]["test_acc"] = [0.123] * len(fresh)  # what another code had trained
    path.write_text(json.dumps(form))
    run_study(as_settings(params), progress=False)
    assert read_form(path)["histories"]["karate"]["GCN"][0]["test_acc"] == fresh


def test_a_resumed_study_in_a_fresh_checkout_waits_for_nothing_it_cannot_have(tmp_path, monkeypatch):
    """A task whose data was unavailable is no part of a resumed study, fetched or not; a new study with a
    task it cannot see (not fetched, not asked for) says so instead of calling itself complete."""
    import shutil

    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty-mirror").mkdir()
    monkeypatch.setenv("NETZBENCH_MIRROR", str(tmp_path / "empty-mirror"))
    params = make_params(tasks=["karate", "board_directors"], models=["GCN"], seeds=[0, 1], protocol="paper",
                         train={"epochs": {"karate": 2}})
    for task in params["tasks"]:
        fetch_task(task, as_settings(params), "data")
    assert json.loads((tmp_path / "data/board_directors/meta.json").read_text())["status"] == "unavailable"
    first = run_study(as_settings(params), progress=False)
    assert first["complete"] and set(first["tasks"]) == {"karate"}
    shutil.rmtree(tmp_path / "data")  # a fresh checkout: the study is in git, the data is not
    again = run_study(as_settings(params), progress=False, tasks=["karate"])
    assert again["complete"] and again["remaining"] == {} and set(again["tasks"]) == {"karate"}
    shutil.rmtree(tmp_path / "data")
    new = run_study(as_settings(params), progress=False, tasks=["karate"], afresh=True)
    assert new["remaining"] == {"board_directors": ["(not fetched)"]} and not new["complete"]
