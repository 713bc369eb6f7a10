"""The Python API: run_benchmark with the three model paths and the task paths."""

import numpy as np
import pytest
import torch
from torch_geometric.data import Data
from torch_geometric.datasets import KarateClub

import netzbench
from netzbench import (BENCHMARK_TASKS, GCN, Task, iter_benchmark_tasks, register_model, register_task,
                       run_benchmark, task_from_dataset, unregister_model, unregister_task)
from netzbench.models.adapters import multi_task_factory


class TinyGCN(torch.nn.Module):
    def __init__(self, i, h, o, dropout=0.0):
        super().__init__()
        self.conv = GCN(i, h, o, dropout=dropout)

    def forward(self, data):
        return self.conv(data.x, data.edge_index)


class LinearEncoder(torch.nn.Module):
    """A node encoder that ignores edges, declaring its families as attributes."""

    task_types = {"node_cls", "link_pred"}
    node_encoder = True

    def __init__(self, i, h, o):
        super().__init__()
        self.lin = torch.nn.Linear(i, o)

    def forward(self, x, edge_index):
        return self.lin(x)


def _karate_task(name="karate_custom"):
    return task_from_dataset(name, "node_cls", KarateClub()[0], epochs=5)


def test_inline_tuple_and_attribute_paths(tmp_path):
    rep = run_benchmark(models={"d0": (TinyGCN, "node_cls", lambda i, h, o: TinyGCN(i, h, o, dropout=0.0)),
                                "d5": (TinyGCN, {"node_cls"}, lambda i, h, o: TinyGCN(i, h, o, dropout=0.5))},
                        tasks=[_karate_task()], seeds=(0, 1), data_root=tmp_path, progress=False)
    assert rep.models == ["d0", "d5"] and rep.tasks == ["karate_custom"]
    fm = rep.final_metrics()["karate_custom"]
    assert fm["d0"].shape == (2,) and np.isfinite(fm["d0"]).all()

    rep = run_benchmark(models={"Attr": LinearEncoder, "GIN": "GIN"}, tasks=[_karate_task(), "random_tsp"],
                        seeds=[0], epochs=3, data_root=tmp_path, progress=False)
    assert set(rep.histories["random_tsp"]) == {"Attr"}  # GIN cannot serve link_pred: no cell
    assert set(rep.histories["karate_custom"]) == {"Attr"}


def test_decorator_path_and_multi_task_factory(tmp_path):
    register_model(GCN, name="AnyGCN", task_type={"node_cls", "graph_reg", "link_pred"}, factory=multi_task_factory(GCN))
    try:
        rep = run_benchmark(models={"AnyGCN": "AnyGCN"}, tasks=["random_tsp", "synthetic_triangles"], seeds=[0, 1],
                            epochs=3, data_root=tmp_path, progress=False)
        assert rep.task_info["synthetic_triangles"].direction == "lower"
        assert np.isfinite(rep.final_metrics()["synthetic_triangles"]["AnyGCN"]).all()
    finally:
        unregister_model("AnyGCN")


def test_seed_aware_loader_gets_the_seed(tmp_path):
    seen = []

    def loader(_root, *, seed):
        seen.append(seed)
        g = torch.Generator().manual_seed(seed)
        n = 30
        ei = torch.randint(0, n, (2, 120), generator=g)
        return Data(x=torch.randn(n, 4, generator=g), edge_index=ei, num_nodes=n)

    task = Task("synthetic_lp", "link_pred", loader, epochs=3)
    assert task.seed_aware
    rep = run_benchmark(models={"GCN": "GCN"}, tasks=[task], seeds=[0, 1, 2], data_root=tmp_path, progress=False)
    assert seen == [0, 1, 2]
    assert rep.cells["synthetic_lp"]["GCN"]["status"] == "ok"


def test_register_and_iterate_tasks():
    assert "cora" in [t.name for t in BENCHMARK_TASKS["social"]["node_cls"]]
    task = _karate_task("my_assay")
    register_task("biology", task)
    try:
        names = [t.name for t in iter_benchmark_tasks("biology", task_type="node_cls")]
        assert "my_assay" in names
        with pytest.raises(ValueError, match="already registered"):
            register_task("biology", task)
    finally:
        unregister_task("biology", "my_assay")
    assert "my_assay" not in [t.name for t in iter_benchmark_tasks("biology")]
    with pytest.raises(ValueError, match="unknown category"):
        list(iter_benchmark_tasks("astrology"))
    with pytest.raises(ValueError, match="unknown task_type"):
        Task("x", "node_classification", lambda r: None)


def test_failing_seed_is_recorded(tmp_path):
    class Broken(torch.nn.Module):
        task_types = {"node_cls"}

        def __init__(self, i, h, o):
            super().__init__()
            self.lin = torch.nn.Linear(i, o)

        def forward(self, x, edge_index):
            raise RuntimeError("nope")

    rep = run_benchmark(models={"Broken": Broken, "GCN": "GCN"}, tasks=[_karate_task()], seeds=[0, 1],
                        data_root=tmp_path, progress=False)
    cell = rep.cells["karate_custom"]["Broken"]
    assert cell["status"] == "failed" and "nope" in cell["seeds"]["0"]["error"]
    assert rep.histories["karate_custom"]["Broken"] == [None, None]
    assert netzbench.TASK_TYPES == {"node_cls", "graph_cls", "graph_reg", "link_pred"}


def test_api_and_cli_give_the_same_histories(tmp_path, monkeypatch):
    """run_benchmark goes through the pipeline's plan -> executor -> record path: the histories of the
    same cells equal those of `netzbench fetch/train` (worker processes) seed for seed, bit for bit."""
    import yaml
    from click.testing import CliRunner

    from netzbench.cli import main
    from netzbench.records import read_record, seed_history

    cli_dir = tmp_path / "cli"
    cli_dir.mkdir()
    monkeypatch.chdir(cli_dir)
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path / "cli-cache"))
    tasks, models, seeds = ["karate", "random_tsp", "synthetic_triangles"], ["GCN", "GraphSAGE"], [0, 1]
    (cli_dir / "params.yaml").write_text(yaml.safe_dump({
        "tasks": tasks, "models": models, "seeds": seeds, "exec": {"workers": 2, "arithmetic": "native"},
        "train": {"epochs": {t: 3 for t in tasks}}}))
    runner = CliRunner()
    for task in tasks:
        assert runner.invoke(main, ["fetch", task]).exit_code == 0
        for model in models:
            out = runner.invoke(main, ["train", task, model])
            assert out.exit_code == 0, out.output
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path / "api-cache"))  # nothing cached for the API
    rep = run_benchmark(models={m: m for m in models}, tasks=tasks, seeds=seeds, epochs=3,
                        data_root=tmp_path / "api-data", progress=False)
    for task in tasks:
        for model in models:
            record = read_record(cli_dir / "metrics/runs" / task / f"{model}.json")
            assert record["status"] == "ok" and rep.cells[task][model]["status"] == "ok"
            for i, seed in enumerate(seeds):
                assert not rep.cells[task][model]["seeds"][str(seed)].get("cached")
                api, cli = rep.histories[task][model][i], seed_history(record["seeds"][str(seed)])
                assert api.keys() == cli.keys()
                for series in cli:
                    np.testing.assert_array_equal(api[series], cli[series], err_msg=f"{task}/{model}/{seed}")
    assert rep.task_info["synthetic_triangles"].direction == "lower"
    assert rep.task_info["karate"].category == "social"


def test_api_validates_like_the_pipeline(tmp_path):
    from netzbench.errors import ParamsError

    for bad, arg in (({"epochs": 0}, "epochs"), ({"epochs": -3}, "epochs"), ({"hidden_channels": 0}, "hidden_channels"),
                     ({"lr": {"node_cls": (0.0, 0.0)}}, "lr"), ({"threads": 0}, "threads"), ({"seeds": []}, "seeds")):
        with pytest.raises(ParamsError, match=f"run_benchmark argument `{arg}`"):
            run_benchmark(models={"GCN": "GCN"}, tasks=[_karate_task()], data_root=tmp_path,
                          progress=False, **{"seeds": [0], **bad})
    for bad in ({"lr": 0}, {"lr": {"node_classification": (0.1, 0.0)}}, {"lr": {"node_cls": 0.1}}):
        with pytest.raises(ValueError, match="run_benchmark: `lr"):
            run_benchmark(models={"GCN": "GCN"}, tasks=[_karate_task()], seeds=[0], data_root=tmp_path,
                          progress=False, **bad)


class NaNOutputs(LinearEncoder):
    """A node encoder whose outputs are NaN: every score computed from them is meaningless."""

    def forward(self, x, edge_index):
        return super().forward(x, edge_index) * torch.tensor(float("nan"))


def test_nan_outputs_fail_every_seed_instead_of_scoring(tmp_path):
    rep = run_benchmark(models={"NaN": NaNOutputs, "GCN": "GCN"}, tasks=[_karate_task(), "random_tsp"], seeds=[0, 1],
                        epochs=3, data_root=tmp_path, progress=False)
    for task in ("karate_custom", "random_tsp"):
        cell = rep.cells[task]["NaN"]
        assert cell["status"] == "failed", cell["status"]
        assert all(s["error"].startswith("diverged at epoch 1: train_loss is nan") for s in cell["seeds"].values())
        assert rep.histories[task]["NaN"] == [None, None]  # nothing to rank
        assert rep.cells[task]["GCN"]["status"] == "ok"


def test_a_diverging_learning_rate_fails_the_seed(tmp_path):
    rep = run_benchmark(models={"GCN": "GCN"}, tasks=["random_tsp"], seeds=[0], epochs=20, lr={"link_pred": (1e8, 0.0)},
                        data_root=tmp_path, progress=False)
    seed = rep.cells["random_tsp"]["GCN"]["seeds"]["0"]
    assert seed["status"] == "failed" and seed["error"].startswith("diverged at epoch ")


def test_api_reuses_cached_seeds_of_models_named_by_reference(tmp_path):
    first = run_benchmark(models={"GCN": "GCN"}, tasks=["random_tsp"], seeds=[0], epochs=2, data_root=tmp_path,
                          progress=False)
    again = run_benchmark(models={"GCN": "GCN", "inline": (GCN, "link_pred", multi_task_factory(GCN))},
                          tasks=["random_tsp"], seeds=[0], epochs=2, data_root=tmp_path, progress=False)
    assert again.cells["random_tsp"]["GCN"]["seeds"]["0"]["cached"] is True
    assert again.histories["random_tsp"]["GCN"] == first.histories["random_tsp"]["GCN"]
    inline = again.cells["random_tsp"]["inline"]["seeds"]["0"]
    assert inline["status"] == "ok" and not inline.get("cached")  # code given in memory: never cached


def test_a_task_with_a_missing_label_code_trains_on_the_labelled_nodes(tmp_path):
    """Task(missing=...): the coded nodes get no class and no split part; the run's classes are the rest."""
    data = KarateClub()[0]
    data.y = torch.where(torch.arange(data.num_nodes) % 5 == 0, torch.tensor(9), data.y + 1)  # 1..4, 9: no answer
    task = Task("poll", "node_cls", lambda _root: data, epochs=3, missing=9)
    rep = run_benchmark(models={"GCN": "GCN"}, tasks=[task], seeds=[0], data_root=tmp_path, progress=False)
    assert np.isfinite(rep.final_metrics()["poll"]["GCN"]).all()
    from netzbench.paths import cache_root
    import json

    meta = json.loads((cache_root() / "api-data" / "poll" / "meta.json").read_text())
    assert meta["counts"]["num_classes"] == 4 and meta["label_missing"]["count"] == 7
