"""Every (family, model) pair of the skeleton trains and moves in the right direction;
the model registry's plug-in paths work and reject bad declarations."""

import numpy as np
import pytest
import torch

from netzbench.catalog.data import fetch_task
from netzbench.graphs.layout import task_arrays
from netzbench.models import GCN, GIN, ModelError, register_model, resolve_model, unregister_model
from netzbench.models.adapters import DotProductLink, GraphHead, NodeModel, multi_task_factory
from netzbench.models.registry import build_model
from netzbench.training.loops import Hyper, train
from netzbench.training.seed import set_seed

from helpers import as_settings, make_params


def _run(task, model, tmp_path, epochs, seed=0, lr=None, protocol=None):
    from netzbench.catalog.table import get_task

    fetch_task(task, as_settings(make_params()), tmp_path / "data")
    spec = get_task(task)
    arrays = task_arrays(tmp_path / "data" / task, seed)
    family_lr = {"node_cls": 0.01, "graph_cls": 0.001, "graph_reg": 0.001, "link_pred": 0.01}[spec.family]
    hp = Hyper(64, lr or family_lr, 5e-4 if spec.family == "node_cls" else 0.0, epochs)
    set_seed(seed)
    m = resolve_model(model)
    return train(spec.family, spec.split, lambda i, h, o: build_model(m, spec.family, i, h, o), arrays, seed, hp,
                 protocol=protocol)


def test_gcn_on_cora_beats_chance_by_a_wide_margin(tmp_path, mirror):
    fit = _run("cora", "GCN", tmp_path, 30)
    assert fit.history["test_acc"][-1] > 0.6  # chance is ~0.3 (largest class)
    assert fit.history["train_loss"][-1] < fit.history["train_loss"][0]
    assert {"val_acc", "test_acc", "val_f1", "test_f1", "val_loss", "train_loss"} <= set(fit.history)


@pytest.mark.parametrize("model", ["GCN", "GraphSAGE"])
def test_node_classification_on_karate(tmp_path, model):
    fit = _run("karate", model, tmp_path, 60)
    assert fit.history["train_loss"][-1] < 0.5 * fit.history["train_loss"][0]
    assert fit.history["val_acc"][-1] > 0.4  # 4 classes: chance 0.25
    assert len(fit.epochs) == 60


@pytest.mark.parametrize("model", ["GCN", "GraphSAGE"])
def test_link_prediction_beats_random_on_tsp(tmp_path, model):
    # uniform evaluation negatives: the strict protocol's hard ones are meant to be hard (tests/test_link_eval.py)
    fit = _run("random_tsp", model, tmp_path, 60, protocol={"link_eval_negatives": "uniform"})
    assert fit.history["test_auc"][-1] > 0.6
    assert fit.history["train_loss"][-1] < fit.history["train_loss"][0]
    assert {"val_auc", "test_auc", "val_ap", "test_ap"} <= set(fit.history)


@pytest.mark.parametrize("model", ["GCN", "GraphSAGE", "GIN"])
def test_graph_classification_on_mutag(tmp_path, mirror, model):
    fit = _run("mutag", model, tmp_path, 40, lr=0.01)
    assert fit.history["train_loss"][-1] < fit.history["train_loss"][0]
    assert fit.history["val_acc"][-1] >= 0.6
    assert {"val_acc", "test_acc", "val_f1", "test_f1"} <= set(fit.history)


def test_adapters_give_the_right_shapes():
    x, ei = torch.randn(6, 3), torch.tensor([[0, 1, 2, 3, 4], [1, 2, 3, 4, 5]])
    batch = torch.tensor([0, 0, 0, 1, 1, 1])
    spec = resolve_model("GCN")
    node = build_model(spec, "node_cls", 3, 8, 4)
    assert isinstance(node, NodeModel) and node(x, ei).shape == (6, 4)
    graph = build_model(spec, "graph_reg", 3, 8, 2)
    assert isinstance(graph, GraphHead) and graph(x, ei, batch).shape == (2, 2)
    link = build_model(spec, "link_pred", 3, 8, 8)
    assert isinstance(link, DotProductLink)
    z = link(x, ei)
    assert link.score(z, torch.tensor([[0, 1], [2, 3]])).shape == (2,)
    gin = build_model(resolve_model("GIN"), "graph_cls", 3, 8, 2)
    assert gin(x, ei, batch).shape == (2, 2)
    with pytest.raises(ModelError, match="does not serve node_cls"):
        build_model(resolve_model("GIN"), "node_cls", 3, 8, 2)


def test_register_model_decorator_attribute_and_factory():
    @register_model(task_type={"node_cls"})
    class TinyGCN(torch.nn.Module):
        def __init__(self, i, h, o):
            super().__init__()
            self.conv = GCN(i, h, o)

        def forward(self, data):  # the paper's data-object convention
            return self.conv(data.x, data.edge_index)

    try:
        spec = resolve_model("TinyGCN")
        assert spec.task_types == {"node_cls"} and not spec.serves("link_pred")
        out = build_model(spec, "node_cls", 3, 8, 2)(torch.randn(4, 3), torch.tensor([[0, 1], [1, 2]]))
        assert out.shape == (4, 2)
    finally:
        unregister_model("TinyGCN")
    with pytest.raises(ModelError, match="valid task types"):
        register_model(task_type={"node_classification"})(type("Bad", (torch.nn.Module,), {}))

    class AttrModel(torch.nn.Module):
        task_types = {"graph_cls"}
    assert resolve_model.__module__  # attribute path: read without registration
    from netzbench.models.registry import spec_from_class
    assert spec_from_class("AttrModel", AttrModel).task_types == {"graph_cls"}

    register_model(GCN, name="AllFamiliesGCN", task_type={"node_cls", "graph_cls", "graph_reg", "link_pred"},
                   factory=multi_task_factory(GCN))
    try:
        spec = resolve_model("AllFamiliesGCN")
        assert isinstance(build_model(spec, "graph_cls", 3, 8, 2), GraphHead)
        assert isinstance(build_model(spec, "link_pred", 3, 8, 8), DotProductLink)
    finally:
        unregister_model("AllFamiliesGCN")


def test_model_references_are_resolved_with_clear_errors():
    spec = resolve_model("user_models.example:MyGNN")
    assert spec.task_types == {"node_cls", "graph_cls", "graph_reg", "link_pred"}
    with pytest.raises(ModelError, match="classes there: .*MyGNN"):
        resolve_model("user_models.example:Missing")
    with pytest.raises(ModelError, match="cannot import module"):
        resolve_model("no_such_pkg.models:X")
    with pytest.raises(ModelError, match="known models: AdamicAdar, CommonNeighbors, DistMult, GAT, GCN, GIN"):
        resolve_model("GCNN")


ROSTER = ["GCN", "GAT", "GraphSAGE", "GraphTransformer", "GIN"]
SERVES = {"GIN": {"graph_cls", "graph_reg"}}


@pytest.mark.parametrize("model", ROSTER)
@pytest.mark.parametrize("task, family, series", [
    ("karate", "node_cls", {"val_acc", "test_acc", "val_f1", "test_f1"}),
    ("random_tsp", "link_pred", {"val_auc", "test_auc", "val_ap", "test_ap"}),
    ("synthetic_triangles", "graph_reg", {"val_mae", "test_mae", "val_rmse", "test_rmse"}),
])
def test_every_family_model_pair_trains_or_is_incompatible(tmp_path, model, task, family, series):
    if family not in SERVES.get(model, {"node_cls", "graph_cls", "graph_reg", "link_pred"}):
        with pytest.raises(ModelError, match=f"does not serve {family}"):
            _run(task, model, tmp_path, 2)
        return
    fit = _run(task, model, tmp_path, 12)
    assert series | {"train_loss"} <= set(fit.history)
    assert all(len(v) == 12 for v in fit.history.values())
    assert all(np.isfinite(v).all() for v in map(np.asarray, fit.history.values()))
    assert min(fit.history["train_loss"][-4:]) < fit.history["train_loss"][0]  # dropout makes single epochs noisy


def test_regression_mae_falls(tmp_path):
    fit = _run("synthetic_triangles", "GIN", tmp_path, 40, lr=0.01)
    mae = fit.history["val_mae"]
    assert mae[-1] < 0.8 * mae[0]
    assert fit.history["test_mae"][-1] < fit.history["test_mae"][0]
