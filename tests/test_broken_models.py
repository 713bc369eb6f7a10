"""Broken models never become numbers: metrics refuse non-finite scores, a diverged run stops with
"diverged at epoch k", a model of the wrong output shape is refused before it trains, and featureless
graph collections get per-graph degrees."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import torch
from torch_geometric.datasets import KarateClub

from netzbench import run_benchmark, task_from_dataset
from netzbench.training import metrics as M
from netzbench.training.fit import Diverged, OutputShapeError, check_output, features
from netzbench.training.link_eval import RANKING_CANDIDATES


@pytest.mark.parametrize("call", [
    lambda s, y: M.accuracy(s, y),
    lambda s, y: M.macro_f1(s, y, 2),
    lambda s, y: M.roc_auc(s[:, 0], y),
    lambda s, y: M.average_precision(s[:, 0], y),
    lambda s, y: M.mae(s[:, 0], y.float()),
    lambda s, y: M.rmse(s[:, 0], y.float()),
])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_metrics_refuse_non_finite_scores(call, bad):
    y = torch.tensor([0, 1, 1, 0])
    scores = torch.tensor([[0.1, 0.9], [0.8, 0.2], [0.4, 0.6], [0.3, 0.7]])
    assert math.isfinite(call(scores, y))  # finite scores are scored
    scores[2, 0] = bad
    with pytest.raises(M.NonFiniteScores, match="1 of .* not finite"):
        call(scores, y)


def test_all_nan_scores_are_refused_not_ranked():
    labels = torch.tensor([1, 1, 0, 0])
    with pytest.raises(M.NonFiniteScores):
        M.roc_auc(torch.full((4,), float("nan")), labels)


def _karate(epochs=4):
    return task_from_dataset("karate_broken", "node_cls", KarateClub()[0], epochs=epochs)


class NaNWhenEvaluated(torch.nn.Module):
    """Finite while training (the loss looks fine), NaN outputs in eval mode: only the metrics can see it."""

    task_types = frozenset({"node_cls"})

    def __init__(self, in_channels, hidden_channels, out_channels):
        super().__init__()
        self.lin = torch.nn.Linear(in_channels, out_channels)

    def forward(self, x, edge_index):
        out = self.lin(x)
        return out if self.training else out * float("nan")


def test_nan_at_evaluation_fails_the_seed_with_the_epoch(tmp_path):
    rep = run_benchmark(models={"EvalNaN": NaNWhenEvaluated}, tasks=[_karate()], seeds=[0, 1], data_root=tmp_path,
                        progress=False)
    cell = rep.cells["karate_broken"]["EvalNaN"]
    assert cell["status"] == "failed"
    for s in cell["seeds"].values():
        assert s["error"].startswith("diverged at epoch 1: accuracy: "), s["error"]


class WrongWidth(torch.nn.Module):
    """Three outputs per node where karate has four classes."""

    task_types = frozenset({"node_cls"})

    def __init__(self, in_channels, hidden_channels, out_channels):
        super().__init__()
        self.lin = torch.nn.Linear(in_channels, 3)

    def forward(self, x, edge_index):
        return self.lin(x)


def test_wrong_output_width_fails_every_seed_with_the_expected_shape(tmp_path):
    rep = run_benchmark(models={"Wrong": WrongWidth}, tasks=[_karate()], seeds=[0, 1, 2], data_root=tmp_path,
                        progress=False)
    seeds = rep.cells["karate_broken"]["Wrong"]["seeds"]
    assert {s["status"] for s in seeds.values()} == {"failed"}
    for s in seeds.values():
        assert "OutputShapeError" in s["error"] and "[34, 3]" in s["error"] and "[34, 4]" in s["error"], s["error"]
        assert "history" not in s  # refused before the first optimiser step


def test_check_output_and_diverged_carry_what_they_say():
    check_output(torch.zeros(5, 2), (5, 2), "x")
    with pytest.raises(OutputShapeError, match=r"shape \[5\]; this task needs \[5, 2\] \(rows\)"):
        check_output(torch.zeros(5), (5, 2), "rows")
    err = Diverged("diverged at epoch 3: x", {"train_loss": [1.0, 2.0]}, [1, 2])
    assert err.history["train_loss"] == [1.0, 2.0] and err.epochs == [1, 2]


def test_featureless_collection_degrees_are_per_graph():
    rng = np.random.default_rng(0)
    graphs = [nx.gnm_random_graph(n, m, seed=int(rng.integers(1 << 30))) for n, m in ((5, 6), (9, 14), (4, 3), (7, 10))]
    local = [np.array(list(g.edges()), dtype=np.int64).T.reshape(2, -1) for g in graphs]
    arrays = {
        "edge_index": np.concatenate(local, axis=1),
        "node_ptr": np.concatenate([[0], np.cumsum([g.number_of_nodes() for g in graphs])]),
        "edge_ptr": np.concatenate([[0], np.cumsum([e.shape[1] for e in local])]),
    }
    x = features(arrays).numpy()
    expected = np.concatenate([[d for _, d in sorted(g.degree())] for g in graphs])
    assert x.shape == (len(expected), 2)
    np.testing.assert_allclose(x[:, 1], np.log1p(expected), rtol=1e-6)
    np.testing.assert_array_equal(x[:, 0], 1.0)


LOADERS = '''
def load(root):
    raise RuntimeError("boom: file missing")


def load_per_seed(root, seed=0):
    if seed == 1:
        raise ValueError("no instance for seed 1")
    from torch_geometric.datasets import KarateClub
    return KarateClub()[0]
'''


def test_a_raising_loader_names_the_task_and_the_loader(tmp_path, monkeypatch):
    """At fetch (a plain loader) and at training (a seed-aware one): one line naming task, loader and
    error, never a traceback; the other seeds of the cell still train."""
    import json

    import yaml
    from click.testing import CliRunner

    from netzbench.cli import main

    (tmp_path / "brokenloaders.py").write_text(LOADERS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({
        "tasks": ["bad", "perseed"], "models": ["GCN"], "seeds": [0, 1],
        "exec": {"workers": 1, "arithmetic": "native"},
        "custom_tasks": {"bad": {"loader": "brokenloaders:load", "family": "node_cls"},
                         "perseed": {"loader": "brokenloaders:load_per_seed", "family": "node_cls", "epochs": 2}}}))
    out = CliRunner().invoke(main, ["fetch", "bad"])
    assert out.exit_code != 0 and "Traceback" not in out.output
    assert "custom task 'bad': its loader brokenloaders:load raised RuntimeError: boom: file missing" in out.output
    assert CliRunner().invoke(main, ["fetch", "perseed"]).exit_code == 0
    assert CliRunner().invoke(main, ["train", "perseed", "GCN"]).exit_code == 0
    seeds = json.loads((tmp_path / "metrics/runs/perseed/GCN.json").read_text())["seeds"]
    assert seeds["0"]["status"] == "ok"
    assert seeds["1"]["status"] == "failed"
    assert seeds["1"]["error"] == ("DataLoadError: task 'perseed', seed 1: loading the data "
                                   "(brokenloaders:load_per_seed) raised ValueError: no instance for seed 1")


class ConstantEmbedding(torch.nn.Module):
    """The same embedding for every node: every pair gets the same score."""

    task_types = frozenset({"link_pred"})
    node_encoder = True

    def __init__(self, in_channels, hidden_channels, out_channels):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.ones(out_channels))

    def forward(self, x, edge_index):
        return self.bias.expand(x.shape[0], -1)


def test_a_constant_link_scorer_records_chance_level_ap_and_auc(tmp_path):
    """Positives are listed before negatives in the held-out sets; counting tied positives as hits would
    record AP 1.0. Tie-aware, it is the positive rate: 1/(K + 1) under the strict protocol's hard
    negatives (each positive's K candidates pooled; 1/2 with the paper's one negative per positive)."""
    task = task_from_dataset("karate_link", "link_pred", KarateClub()[0], epochs=2)
    rep = run_benchmark(models={"Const": ConstantEmbedding}, tasks=[task], seeds=[0], data_root=tmp_path,
                        progress=False)
    seed = rep.cells["karate_link"]["Const"]["seeds"]["0"]
    assert seed["status"] == "ok", seed
    history = rep.histories["karate_link"]["Const"][0]
    for name in ("val", "test"):
        assert history[f"{name}_auc"][-1] == 0.5
        assert history[f"{name}_ap"][-1] == pytest.approx(1 / (RANKING_CANDIDATES + 1))
    assert history["test_constant"][-1] == 1.0
