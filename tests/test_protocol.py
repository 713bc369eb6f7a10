"""The paper and strict protocols: one named switch per difference, each doing what it says."""

import numpy as np
import pytest
import torch

from netzbench import protocol as P
from netzbench.catalog.data import fetch_task
from netzbench.errors import ParamsError
from netzbench.graphs.features import identity_features, log_degree_features
from netzbench.graphs.layout import task_arrays
from netzbench.models import GIN
from netzbench.models.adapters import DistMultLink
from netzbench.synthetic.physics import ising_lattice
from netzbench.synthetic.routing import random_tsp
from netzbench.training.graph_level import BATCH_SIZE, graph_split
from netzbench.training.link import EdgeSplit, link_inputs, random_edge_split
from netzbench.training.relational import _corrupt_tails_filtered, _triple_ids
from netzbench.training.seed import fit_seed
from netzbench.models.registry import resolve_model

from helpers import as_settings, make_params


def test_presets_and_overrides():
    paper, strict = P.Protocol.resolve("paper").values(), P.Protocol.resolve("strict").values()
    assert set(paper) == set(strict) == set(P.BY_NAME)
    assert all(paper[n] != strict[n] for n in P.BY_NAME)  # every switch is a real difference
    one = P.Protocol.resolve("paper", {"link_negatives": "fresh"}).values()
    assert P.differences(one) == {"link_negatives": "fresh"}
    assert P.for_task(paper, "node_cls") == {}
    assert set(P.for_task(paper, "graph_cls")) == {"graph_split"}
    assert set(P.for_task(paper, "link_pred")) == {"link_split", "link_negatives", "link_eval_negatives",
                                                   "link_metric", "structural_features"}
    assert set(P.for_task(paper, "link_pred", relational=True)) == {
        "structural_features", "relational_message_passing", "relational_negatives", "relational_eval_negatives",
        "relational_eval_side", "relational_held_out_overlap", "relational_inputs", "relational_ranking",
        "relation_init", "link_metric"}


@pytest.mark.parametrize("bad, message", [
    ({"protocol": "loose"}, "protocol"),
    ({"protocol_overrides": {"link_negatives": "sometimes"}}, "link_negatives"),
    ({"protocol_overrides": {"negatives": "fresh"}}, "unknown switch"),
])
def test_params_reject_bad_protocols(bad, message):
    with pytest.raises(ParamsError, match=message):
        make_params(**bad)


def test_graph_split_80_20_reports_on_the_holdout():
    arrays = {"node_ptr": np.arange(101)}
    train, val, test = graph_split("random_graph_80_10_10", arrays, 0, P.Protocol(graph_split="80_20"))
    assert len(train) == 80 and len(val) == 20 and np.array_equal(val, test)
    train, val, test = graph_split("random_graph_80_10_10", arrays, 0, P.Protocol(graph_split="80_10_10"))
    assert (len(train), len(val), len(test)) == (80, 10, 10) and not set(val) & set(test)


def test_link_split_fractions_and_reference_features():
    pairs = np.array([[i, j] for i in range(30) for j in range(i + 1, 30) if (i + j) % 3 == 0]).T
    five = random_edge_split(30, pairs, 0, val=0.05)
    assert five.val_pos.shape[1] == round(0.05 * pairs.shape[1]) and five.test_pos.shape[1] == round(0.1 * pairs.shape[1])
    x = link_inputs({"edge_index": pairs, "num_nodes": np.asarray(30)}, five, P.Protocol(structural_features="reference"))
    assert torch.equal(x, torch.eye(30))  # a small featureless network: one-hot identities
    x = link_inputs({"edge_index": pairs, "num_nodes": np.asarray(30)}, five, P.Protocol())
    assert x.shape == (30, 2) and torch.all(x[:, 0] == 1)  # [1, log(1 + training degree)]


def test_reference_log_degree_features():
    x = log_degree_features(4, np.array([0, 0, 1]))
    l0 = np.log1p(2) / np.log(4)
    assert np.allclose(x[0], [l0, l0 ** 2, 1]) and np.allclose(x[3], [0, 0, 1])
    assert identity_features(3).shape == (3, 3)


def test_tail_corruptions_avoid_training_triples():
    rng = np.random.default_rng(0)
    n, r = 6, 2
    train = np.array([[h, 0, t] for h in range(n) for t in range(n) if t != h]).T  # relation 0 is nearly full
    ids = np.unique(_triple_ids(train, r, n))
    out = _corrupt_tails_filtered(train, n, r, ids, rng)
    assert np.array_equal(out[:2], train[:2])  # heads and relations kept: tails only
    hits = np.isin(_triple_ids(out, r, n), ids)
    assert hits.mean() < 0.5  # redrawn up to 8 times: most find the one free tail
    assert np.all(out[2][~hits] == out[0][~hits])  # the only tail that is no training triple: the head itself


def test_relation_init_switch():
    enc = torch.nn.Linear(2, 8)
    torch.manual_seed(0)
    normal = DistMultLink(enc, 50, 8, init="normal").relations.detach()
    torch.manual_seed(0)
    xavier = DistMultLink(enc, 50, 8, init="xavier").relations.detach()
    assert normal.std() > 0.8 and xavier.abs().max() <= (6 / 58) ** 0.5 + 1e-6
    with pytest.raises(ValueError, match="init"):
        DistMultLink(enc, 2, 8, init="zeros")


def test_reference_generators():
    a, _ = random_tsp(0, num_nodes=50, k_neighbors=4, tour=False)
    b, _ = random_tsp(0, num_nodes=50, k_neighbors=4, tour=True)
    assert set(map(tuple, a["edge_index"].T)) < set(map(tuple, b["edge_index"].T))  # the tour adds edges
    grid, _ = ising_lattice(0, side=5, lattice="reference_grid", spins="independent")
    ei = grid["edge_index"]
    assert (ei[0] == ei[1]).sum() == 25  # a self-loop per node, as the reference's grid
    assert ei.shape[1] == 25 + 2 * 5 * 4 + 2 * 4 * 4  # + horizontal/vertical + both diagonals
    square, _ = ising_lattice(0, side=5)
    assert (square["edge_index"][0] != square["edge_index"][1]).all() and square["edge_index"].shape[1] == 50
    with pytest.raises(ValueError, match="lattice"):
        ising_lattice(0, side=5, lattice="hex")


def test_gin_is_the_reference_configuration():
    model = GIN(3, 8, 2)
    assert any(isinstance(m, torch.nn.BatchNorm1d) for m in model.modules())


def test_synthetic_graphs_switch_reaches_fetch(tmp_path):
    paper = fetch_task("random_tsp", as_settings(make_params(protocol="paper")), tmp_path / "p")
    strict = fetch_task("random_tsp", as_settings(make_params(protocol="strict")), tmp_path / "s")
    assert paper["generator_params"]["tour"] is False and paper["generator_params"]["k_neighbors"] == 4
    assert "tour" not in strict["generator_params"]
    assert task_arrays(tmp_path / "p" / "random_tsp", 0)["edge_index"].shape != \
        task_arrays(tmp_path / "s" / "random_tsp", 0)["edge_index"].shape


def _mutag_like(n_graphs=70):
    rng = np.random.default_rng(0)
    sizes = rng.integers(5, 9, n_graphs)
    eis = [np.array([[i, i + 1] for i in range(s - 1)] + [[i + 1, i] for i in range(s - 1)]).T for s in sizes]
    ptr = np.concatenate([[0], np.cumsum(sizes)])
    eptr = np.concatenate([[0], np.cumsum([e.shape[1] for e in eis])])
    return {"x": rng.random((ptr[-1], 3)).astype(np.float32), "edge_index": np.concatenate(eis, axis=1),
            "node_ptr": ptr, "edge_ptr": eptr, "y": (sizes > 6).astype(np.int64)}


def test_graph_training_steps_once_per_mini_batch_and_records_baselines():
    arrays = _mutag_like()
    steps = []
    spec = resolve_model("GCN")
    hp = {"hidden_channels": 8, "lr": 0.01, "weight_decay": 0.0, "epochs": 2, "eval_every": 1}
    orig = torch.optim.Adam.step
    torch.optim.Adam.step = lambda self, *a, **k: (steps.append(1), orig(self, *a, **k))[1]
    try:
        res = fit_seed(spec, "graph_cls", "random_graph_80_10_10", arrays, 0, hp,
                       protocol={"graph_split": "80_20"})
    finally:
        torch.optim.Adam.step = orig
    n_train = 56  # 80 % of 70
    assert len(steps) == 2 * -(-n_train // BATCH_SIZE["graph_cls"])
    assert res["history"]["val_acc"] == res["history"]["test_acc"]  # 80/20: one holdout, reported as both
    assert 0.5 <= res["baseline"]["test_majority_acc"] <= 1 and res["history"]["test_constant"][-1] in (0.0, 1.0)


def test_a_headline_only_switch_stays_out_of_the_seed_key(tmp_path, monkeypatch):
    """link_metric picks the headline series and nothing else: both values share one trained seed
    (one cache key, one history), while the records' headline differs."""
    from helpers import make_params

    from netzbench.catalog.data import fetch_task
    from netzbench.run.plan import plan_cell

    strict = P.Protocol.resolve("strict").values()
    assert P.trained(strict) == {k: v for k, v in strict.items() if k != "link_metric"}
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path / "cache"))
    plans = {}
    for metric in ("auc", "mrr"):
        params = make_params(protocol="paper", protocol_overrides={"link_metric": metric})
        fetch_task("random_tsp", as_settings(params), tmp_path / "data")
        plans[metric] = plan_cell("random_tsp", "GCN", as_settings(params), data_root=tmp_path / "data")
    assert plans["auc"].keys == plans["mrr"].keys
    assert plans["auc"].record["headline_metric"] == "test_auc"
    assert plans["mrr"].record["headline_metric"] == "test_mrr"
    assert plans["auc"].record["config_hash"] != plans["mrr"].record["config_hash"]
    assert all("link_metric" not in job.spec["protocol"] for job in plans["mrr"].jobs)
    assert plans["mrr"].record["protocol"]["switches"]["link_metric"] == "mrr"
