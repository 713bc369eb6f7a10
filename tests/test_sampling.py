"""Neighbour-sampled training (training/sampling.py, ``train.sampling``): the sampler's draws, determinism,
agreement with full batch on a small graph, the params checks and what the run record says."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from netzbench.errors import ParamsError, RecordError
from netzbench.models.registry import resolve_model
from netzbench.params import DEFAULTS, merge, validate
from netzbench.records import validate_record
from netzbench.settings import Settings
from netzbench.training import sampling as S
from netzbench.training.seed import fit_seed

#: the default `train.sampling` block (what Train.hyperparameters puts into node and link cells)
SAMPLING_DEFAULT = DEFAULTS["train"]["sampling"]


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """One intra-op thread, as seeds train: many small sampled steps slow down 50-fold when two threads
    contend with another process for two cores."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


NEIGHBOUR = {"mode": "neighbour", "min_edges": 0, "fanouts": [5, 5], "batch_size": 64, "eval": "full"}
HP = {"hidden_channels": 16, "lr": 0.01, "weight_decay": 5e-4, "epochs": 60, "eval_every": 1}


def _graph(n: int, deg: int, seed: int = 0) -> torch.Tensor:
    """A random directed multigraph-free edge index with about ``deg`` in-edges per node."""
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, n * deg), np.repeat(np.arange(n), deg)
    pairs = np.unique(np.stack([src, dst])[:, src != dst], axis=1)
    return torch.as_tensor(pairs)


def _sbm(seed: int, n_per: int = 80, blocks: int = 3, p_in: float = 0.15, p_out: float = 0.005):
    """A stochastic block model with weakly informative features: the graph carries the labels."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(blocks), n_per)
    n = len(y)
    prob = np.where(y[:, None] == y[None, :], p_in, p_out)
    upper = np.triu(rng.random((n, n)) < prob, 1)
    i, j = np.nonzero(upper)
    edge_index = np.concatenate([np.stack([i, j]), np.stack([j, i])], axis=1).astype(np.int64)
    x = (np.eye(blocks)[y] * 0.6 + rng.standard_normal((n, blocks))).astype(np.float32)
    return {"x": x, "edge_index": edge_index, "y": y.astype(np.int64), "num_nodes": np.asarray(n)}


def _geometric(seed: int, n: int = 300, radius: float = 0.12) -> dict:
    """A random geometric graph (points in the unit square, an edge below ``radius``), the points as features."""
    rng = np.random.default_rng(seed)
    pos = rng.random((n, 2)).astype(np.float32)
    i, j = np.nonzero(np.triu(np.linalg.norm(pos[:, None] - pos[None], axis=-1) < radius, 1))
    return {"x": pos, "edge_index": np.stack([i, j]).astype(np.int64), "num_nodes": np.asarray(n)}


def test_auto_samples_from_the_threshold_on_full_never_neighbour_always():
    auto = {**SAMPLING_DEFAULT, "min_edges": 100}
    assert not S.applies(auto, 99) and S.applies(auto, 100)
    assert not S.applies({**auto, "mode": "full"}, 10 ** 9)
    assert S.applies({**auto, "mode": "neighbour"}, 1)
    assert not S.applies(None, 10 ** 9)  # graph-level and older callers: full batch


def test_each_target_gets_at_most_fanout_distinct_true_in_neighbours():
    edges = _graph(300, 12)
    sampler = S.NeighbourSampler(edges, 300, [4, 3], S.generator(0, 1))
    true = {(int(s), int(d)) for s, d in edges.T}
    indeg = torch.bincount(edges[1], minlength=300)
    targets = torch.tensor([5, 17, 250, 3])
    nodes, local = sampler.sample(targets)
    assert torch.equal(nodes[:4], targets) and len(set(nodes.tolist())) == len(nodes)
    glob = nodes[local]
    assert all((int(s), int(d)) in true for s, d in glob.T), "a sampled edge is not an edge of the graph"
    assert len({(int(s), int(d)) for s, d in glob.T}) == glob.shape[1], "an edge was drawn twice"
    per_target = torch.bincount(local[1], minlength=len(nodes))
    for t in range(4):  # hop 1: min(fanout, in-degree) in-neighbours of every target
        assert per_target[t] == min(4, int(indeg[targets[t]]))
    hop1 = set(glob[0, torch.isin(local[1], torch.arange(4))].tolist()) - set(targets.tolist())
    for node in hop1:  # hop 2: at most 3 in-neighbours of every node first reached at hop 1
        assert 1 <= int(per_target[nodes.tolist().index(node)]) <= min(3, int(indeg[node]))
    assert torch.all(sampler._local == -1), "the id map was not reset"


def test_a_low_degree_node_keeps_every_in_neighbour_and_draws_are_uniform():
    # node 0 has in-neighbours 1..4: fanout 2 draws each with probability 1/2
    edges = torch.tensor([[1, 2, 3, 4], [0, 0, 0, 0]])
    sampler = S.NeighbourSampler(edges, 5, [2], S.generator(3, 1))
    counts = np.zeros(5)
    draws = 4000
    for _ in range(draws):
        nodes, local = sampler.sample(torch.tensor([0]))
        counts[nodes[local[0]].numpy()] += 1
    share = counts[1:] / draws
    assert np.all(np.abs(share - 0.5) < 4 * np.sqrt(0.25 / draws)), share
    nodes, local = S.NeighbourSampler(edges, 5, [10], S.generator(0, 1)).sample(torch.tensor([0]))
    assert sorted(nodes.tolist()) == [0, 1, 2, 3, 4] and local.shape[1] == 4


def test_the_sampler_stream_depends_on_the_seed():
    edges = _graph(200, 10)
    a = S.NeighbourSampler(edges, 200, [3], S.generator(0, 1)).sample(torch.arange(20))
    b = S.NeighbourSampler(edges, 200, [3], S.generator(0, 1)).sample(torch.arange(20))
    c = S.NeighbourSampler(edges, 200, [3], S.generator(1, 1)).sample(torch.arange(20))
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    assert not torch.equal(a[1], c[1])


@pytest.mark.parametrize("family", ["node_cls", "link_pred"])
def test_a_sampled_seed_gives_the_same_history_twice(family):
    arrays = _sbm(0)
    if family == "link_pred":
        arrays = {k: arrays[k] for k in ("x", "edge_index", "num_nodes")}
    split = "stratified_per_seed_50_25_25" if family == "node_cls" else "random_edge_80_10_10"
    hp = {**HP, "epochs": 5, "sampling": {**NEIGHBOUR, "eval": "sampled"}}
    runs = [fit_seed(resolve_model("GraphSAGE"), family, split, arrays, seed, hp) for seed in (0, 0, 1)]
    assert runs[0]["history"] == runs[1]["history"]
    assert runs[0]["history"] != runs[2]["history"]
    assert runs[0]["sampling"] == {"train": "neighbour", "eval": "sampled", "fanouts": [5, 5], "batch_size": 64}


@pytest.mark.parametrize("model", ["GCN", "GraphSAGE", "GAT"])
def test_sampled_and_full_batch_node_training_agree(model):
    """Both learn the block structure; the sampled run is within a few points of the full-batch one."""
    arrays, split = _sbm(1), "stratified_per_seed_50_25_25"
    full = fit_seed(resolve_model(model), "node_cls", split, arrays, 0, {**HP, "sampling": SAMPLING_DEFAULT})
    sampled = fit_seed(resolve_model(model), "node_cls", split, arrays, 0, {**HP, "sampling": NEIGHBOUR})
    assert full["sampling"] == {"train": "full"} and sampled["sampling"]["train"] == "neighbour"
    f, s = full["history"]["test_acc"][-1], sampled["history"]["test_acc"][-1]
    assert f > 0.9 and s > 0.9, (f, s)
    assert abs(f - s) < 0.1, (f, s)
    assert full["history"] != sampled["history"]


def test_sampled_and_full_batch_link_training_agree():
    arrays, split = _geometric(0), "random_edge_80_10_10"
    full = fit_seed(resolve_model("GraphSAGE"), "link_pred", split, arrays, 0, {**HP, "sampling": SAMPLING_DEFAULT})
    sampled = fit_seed(resolve_model("GraphSAGE"), "link_pred", split, arrays, 0, {**HP, "sampling": NEIGHBOUR})
    assert full["sampling"] == {"train": "full"} and sampled["sampling"]["train"] == "neighbour"
    f, s = full["history"]["test_auc"][-1], sampled["history"]["test_auc"][-1]
    assert f > 0.58 and s > 0.58, (f, s)  # chance: 0.5
    assert abs(f - s) < 0.1, (f, s)


def test_sampled_evaluation_scores_the_same_subgraphs_every_epoch():
    """With learning switched off, every epoch's sampled evaluation is the same number."""
    arrays = _sbm(3)
    hp = {**HP, "lr": 1e-12, "weight_decay": 0.0, "epochs": 3, "sampling": {**NEIGHBOUR, "eval": "sampled"}}
    res = fit_seed(resolve_model("GCN"), "node_cls", "stratified_per_seed_50_25_25", arrays, 0, hp)
    assert len(set(res["history"]["val_acc"])) == 1


@pytest.mark.parametrize("model", ["GCN", "GAT", "GraphSAGE", "GraphTransformer"])
def test_layerwise_inference_is_the_full_graph_forward_pass(model):
    """Exact: every node's output equals the whole-graph forward pass to float rounding, over ranges
    small enough that most neighbours lie in another range (and one node alone exceeds the budget)."""
    from netzbench.graphs.edges import message_passing_graph
    from netzbench.training.fit import maybe_adjacency
    from netzbench.models import encoders
    from netzbench.models.adapters import NodeModel
    from netzbench.training.layerwise import layerwise_inference, target_ranges

    torch.manual_seed(0)
    n = 300
    edges = message_passing_graph(torch.cat([_graph(n, 6, seed=2), torch.stack([torch.arange(1, 80),
                                                                                  torch.zeros(79, dtype=torch.long)])], 1), n)
    net = NodeModel(getattr(encoders, model)(16, 8, 5)).eval()  # node 0 has 79+ in-edges: a range of its own
    x = torch.randn(n, 16)
    sampler = S.NeighbourSampler(edges, n, [5], S.generator(0, 0))
    ranges = target_ranges(sampler.rowptr, 40)
    assert ranges[0] == (0, 1) and ranges[-1][1] == n and len(ranges) > 20
    assert all(b > a for a, b in ranges) and all(r[1] == q[0] for r, q in zip(ranges, ranges[1:]))
    with torch.no_grad():
        full = net(x, maybe_adjacency(net, edges, n))
    layered = layerwise_inference(net, x, sampler.rowptr, sampler.sources, "cpu", budget=40)
    assert layered.shape == full.shape
    torch.testing.assert_close(layered, full, rtol=1e-4, atol=1e-5)
    assert not torch.equal(layered[:, 0], layered[:, 1])  # not a degenerate all-same output


def test_layerwise_evaluation_is_recorded_and_falls_back_to_full_for_other_encoders():
    arrays = _sbm(5)
    split = "stratified_per_seed_50_25_25"
    hp = {**HP, "epochs": 3, "sampling": {**NEIGHBOUR, "eval": "layerwise"}}
    layered = fit_seed(resolve_model("GraphSAGE"), "node_cls", split, arrays, 0, hp)
    exact = fit_seed(resolve_model("GraphSAGE"), "node_cls", split, arrays, 0, {**hp, "sampling": NEIGHBOUR})
    assert layered["sampling"]["eval"] == "layerwise" and exact["sampling"]["eval"] == "full"
    for key in ("val_acc", "test_acc"):  # the same trained model scored exactly both ways
        assert layered["history"][key] == exact["history"][key]
    mlp = fit_seed(resolve_model("MLP"), "node_cls", split, arrays, 0, hp)
    assert mlp["sampling"]["eval"] == "full"


def test_a_subclass_that_rewrites_forward_is_not_evaluated_layerwise():
    from netzbench.models.adapters import NodeModel
    from netzbench.models.encoders import GCN
    from netzbench.training.layerwise import layerwise_ready

    class Skip(GCN):
        def forward(self, x, edge_index):
            return super().forward(x, edge_index) + x[:, :self.conv2.out_channels]

    class Wider(GCN):
        pass

    assert layerwise_ready(NodeModel(GCN(4, 4, 4))) and layerwise_ready(NodeModel(Wider(4, 4, 4)))
    assert not layerwise_ready(NodeModel(Skip(4, 4, 4)))
    assert not layerwise_ready(GCN(4, 4, 4))  # no adapter around it


def _params(**sampling):
    return merge(DEFAULTS, {"tasks": ["cora"], "models": ["GCN"], "train": {"sampling": sampling}})


@pytest.mark.parametrize("sampling, message", [
    ({"mode": "neighbor"}, "did you mean 'neighbour'"),
    ({"eval": "approx"}, "train.sampling.eval"),
    ({"fanouts": []}, "train.sampling.fanouts"),
    ({"fanouts": [10, 0]}, "train.sampling.fanouts"),
    ({"batch_size": 0}, "train.sampling.batch_size"),
    ({"min_edges": -1}, "train.sampling.min_edges"),
    ({"min_edges": 1.5}, "train.sampling.min_edges"),
])
def test_bad_sampling_settings_are_refused_with_the_key(sampling, message):
    with pytest.raises(ParamsError, match=message.replace("(", r"\(")):
        validate(_params(**sampling))


def test_node_and_link_tasks_carry_the_setting_graph_level_ones_do_not():
    train = Settings.from_params(validate(_params(mode="neighbour"))).train
    for family in ("node_cls", "link_pred"):
        assert train.hyperparameters(family, 5)["sampling"]["mode"] == "neighbour"
    for family in ("graph_cls", "graph_reg"):
        assert "sampling" not in train.hyperparameters(family, 5)


def test_the_record_of_a_sampled_seed_is_valid_and_a_bad_one_is_not():
    arrays = _sbm(4)
    hp = {**HP, "epochs": 2, "sampling": NEIGHBOUR}
    res = fit_seed(resolve_model("GCN"), "node_cls", "stratified_per_seed_50_25_25", arrays, 0, hp)
    record = {"schema_version": 1, "task": "sbm", "family": "node_cls", "model": "GCN", "model_ref": "GCN",
              "headline_metric": "test_acc", "direction": "higher", "hyperparameters": hp, "config_hash": "c",
              "data_hash": "d", "code_version": "v", "threads": 1, "software": {}, "status": "ok",
              "seeds": {"0": res}}
    validate_record(record)
    for seed_part, hp_part in (({"train": "sometimes"}, NEIGHBOUR), (res["sampling"], {**NEIGHBOUR, "fanouts": [0]})):
        bad = {**record, "hyperparameters": {**hp, "sampling": hp_part}, "seeds": {"0": {**res, "sampling": seed_part}}}
        with pytest.raises(RecordError, match="sampling"):
            validate_record(bad)


def test_the_estimate_probes_a_cell_that_will_train_sampled_sampled():
    from netzbench.run.estimate import _fit, samples
    from netzbench.run.job import Job
    from netzbench.run.probe import with_sampling

    hp = {"epochs": 3, "sampling": {**SAMPLING_DEFAULT, "min_edges": 1000}}
    assert samples(hp, 500) and not samples(hp, 499)  # the threshold counts both directions of each pair
    assert not samples({"epochs": 3}, 10 ** 9)  # graph-level: never
    assert samples({"sampling": {**SAMPLING_DEFAULT, "mode": "neighbour"}}, 1)
    job = Job(spec={"hp": hp, "seed": 0}, trial=0, data_dir="d", meta={}, cwd=".", sys_path=[], threads=1,
              device="cpu", timeout_s=None, max_rss_gb=None, arithmetic="native")
    assert with_sampling(job).spec["hp"]["sampling"]["mode"] == "neighbour"
    assert job.spec["hp"]["sampling"]["mode"] == "auto", "the planned job was changed"
    reason = _fit(30.0, 1, None, 24.0, hint=", or train it neighbour-sampled (train.sampling.mode: neighbour)")
    assert reason.endswith("train.sampling.mode: neighbour)") and "at least 30 GB" in reason
