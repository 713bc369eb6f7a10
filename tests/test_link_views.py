"""The second view of link evaluation: under hard negatives (chosen by the heuristics' own signals), every
link model is also scored against degree-corrected negatives, in series of their own."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import torch

from netzbench import protocol as P
from netzbench.protocol import Protocol
from netzbench.models.heuristics import AdamicAdar, PreferentialAttachment
from netzbench.training import link as L
from netzbench.training import link_eval as LE
from netzbench.training.fit import Hyper
from netzbench.training.leakage import pair_ids

K = LE.RANKING_CANDIDATES
METRICS = ("auc", "ap", "mrr", "hits1", "hits3", "hits10")


def _arrays(g: nx.Graph) -> dict:
    return {"edge_index": np.array(list(g.edges())).T, "num_nodes": np.array([g.number_of_nodes()])}


class _Lin(torch.nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.lin = torch.nn.Linear(i, o)

    def forward(self, x, edge_index):
        return self.lin(x)


# ------------------------------------------------------------------------------------------ the sampler
def _split(seed=0, n=600):
    return L.random_edge_split(n, _arrays(nx.barabasi_albert_graph(n, 3, seed=1))["edge_index"], seed)


def test_degree_negatives_have_the_positives_degree_distribution():
    split = _split()
    n = split.num_nodes
    deg = np.bincount(np.concatenate([split.train_pos, split.val_pos, split.test_pos], axis=1).reshape(-1),
                      minlength=n)
    corr = {}
    for setting in ("degree", "uniform"):
        h = LE._build(split, setting, 0, None, K)["test"]
        pos_deg = deg[h.pos].mean()
        pooled, cand = deg[h.neg].mean(), deg[h.other].mean()
        stubs = np.bincount(h.pos.reshape(-1), minlength=n)  # how often a node ends a positive
        drawn = np.bincount(h.neg.reshape(-1), minlength=n)  # ... and a pooled negative
        corr[setting] = np.corrcoef(stubs, drawn)[0, 1]
        if setting == "degree":  # the positives' endpoint distribution, less the known edges a hub cannot take
            assert pooled == pytest.approx(pos_deg, rel=0.2) and cand == pytest.approx(pos_deg, rel=0.2)
            assert set(np.flatnonzero(drawn)) <= set(np.flatnonzero(stubs))
            assert set(np.flatnonzero(np.bincount(h.other.reshape(-1), minlength=n))) <= set(np.flatnonzero(stubs))
        else:  # uniform negatives: far lower degrees (a degree count separates them from the positives)
            assert pooled < 0.6 * pos_deg and cand < 0.6 * pos_deg
    assert corr["degree"] > 0.6 > 0.2 > corr["uniform"]  # node by node, as often as it ends a positive


def test_degree_negatives_are_never_true_edges_and_fixed_per_seed():
    split = _split(seed=2)
    n = split.num_nodes
    sets = LE._build(split, "degree", 2, None, K)
    for name, h in sets.items():
        known = [split.train_pos, split.val_pos] + ([split.test_pos] if name == "test" else [])
        known = set(pair_ids(np.concatenate(known, axis=1), n).tolist())
        for pairs in (h.neg, h.candidate_pairs()):
            assert (pairs[0] != pairs[1]).all()
            assert not set(pair_ids(pairs, n).tolist()) & known
        assert len(set(pair_ids(h.neg, n).tolist())) == h.neg.shape[1]  # pooled negatives distinct
    again, other = LE._build(split, "degree", 2, None, K), LE._build(split, "degree", 3, None, K)
    for name in sets:
        assert np.array_equal(sets[name].neg, again[name].neg) and np.array_equal(sets[name].other, again[name].other)
    assert not np.array_equal(sets["test"].neg, other["test"].neg)


# ------------------------------------------------------------------------------------ recorded in training
def test_under_hard_negatives_every_link_model_is_also_scored_on_degree_corrected_ones():
    arrays = _arrays(nx.powerlaw_cluster_graph(300, 3, 0.3, seed=0))
    strict = Protocol.resolve("strict").values()
    assert strict["link_eval_negatives"] == "hard"
    degree = {**strict, "link_eval_negatives": "degree"}
    hp = Hyper(8, 0.01, 0.0, 3)
    runs = {}
    for label, protocol in (("hard", strict), ("degree", degree)):
        torch.manual_seed(0)
        runs[label] = L.train_link_pred(lambda i, h, o: L.DotProductLink(_Lin(i, o)), arrays, 1, hp,
                                        protocol=protocol)
    hard, deg = runs["hard"].history, runs["degree"].history
    for split in ("val", "test"):
        for m in METRICS:  # the second view is exactly what a run on degree-corrected negatives reports
            assert hard[f"{split}_degree_{m}"] == deg[f"{split}_{m}"]
            assert len(hard[f"{split}_degree_{m}"]) == 3
    assert not any("_degree_" in k for k in deg)  # only hard negatives get the second view
    assert runs["hard"].baseline["test_constant_degree_mrr"] == runs["hard"].baseline["test_constant_mrr"]
    assert runs["hard"].baseline["test_constant_degree_auc"] == 0.5
    # the run's own series are those of a run without the view
    torch.manual_seed(0)
    monkey = dict(L.EVAL_VIEWS)
    try:
        L.EVAL_VIEWS.clear()
        alone = L.train_link_pred(lambda i, h, o: L.DotProductLink(_Lin(i, o)), arrays, 1, hp, protocol=strict)
    finally:
        L.EVAL_VIEWS.update(monkey)
    assert alone.history == {k: v for k, v in hard.items() if "_degree_" not in k}
    # the paper protocol (uniform negatives) records none
    paper = L.train_link_pred(lambda i, h, o: L.DotProductLink(_Lin(i, o)), arrays, 1, hp,
                              protocol=Protocol.resolve("paper").values())
    assert not any("_degree_" in k for k in paper.history)


@pytest.mark.parametrize("heuristic", [AdamicAdar, PreferentialAttachment])
def test_heuristics_are_scored_in_the_second_view_too(heuristic):
    arrays = _arrays(nx.barabasi_albert_graph(400, 3, seed=4))
    strict = Protocol.resolve("strict").values()
    hard = L.train_link_pred(lambda i, h, o: heuristic(), arrays, 0, Hyper(8, 0.01, 0.0, 1), protocol=strict)
    deg = L.train_link_pred(lambda i, h, o: heuristic(), arrays, 0, Hyper(8, 0.01, 0.0, 1),
                            protocol={**strict, "link_eval_negatives": "degree"})
    for split in ("val", "test"):
        for m in METRICS:
            assert hard.history[f"{split}_degree_{m}"] == deg.history[f"{split}_{m}"]
    assert "test_degree_constant" not in hard.history and hard.epochs == [1]


def test_each_series_says_which_negatives_it_was_scored_against():
    strict, paper = Protocol.resolve("strict"), Protocol.resolve("paper").values()
    assert P.eval_view("test_degree_mrr", strict) == "degree"
    assert P.eval_view("test_constant_degree_mrr", strict) == "degree"
    assert P.eval_view("test_mrr", strict) == "hard" and P.eval_view("val_hits10", strict) == "hard"
    assert P.eval_view("test_mrr", paper) == "uniform"
    assert P.in_view("val_hits10", "degree") == "val_degree_hits10"
