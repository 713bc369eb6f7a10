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


def _karate_task(name="karate_custom"):
    return task_from_dataset(name, "node_cls", KarateClub()[0], epochs=5)


def test_inline_tuple_and_attribute_paths(tmp_path):
    rep = run_benchmark(models={"d0": (TinyGCN, "node_cls", lambda i, h, o: TinyGCN(i, h, o, dropout=0.0)),
                                "d5": (TinyGCN, {"node_cls"}, lambda i, h, o: TinyGCN(i, h, o, dropout=0.5))},
                        tasks=[_karate_task()], seeds=(0, 1), data_root=tmp_path, progress=False)
    assert rep.models == ["d0", "d5"] and rep.tasks == ["karate_custom"]
    fm = rep.final_metrics()["karate_custom"]
    assert fm["d0"].shape == (2,) and np.isfinite(fm["d0"]).all()

    class AttrEncoder(torch.nn.Module):
        task_types = {"node_cls", "link_pred"}
        node_encoder = True

        def __init__(self, i, h, o):
            super().__init__()
            self.lin = torch.nn.Linear(i, o)

        def forward(self, x, edge_index):
            return self.lin(x)

    rep = run_benchmark(models={"Attr": AttrEncoder, "GIN": "GIN"}, tasks=[_karate_task(), "random_tsp"],
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
