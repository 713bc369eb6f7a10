"""Link-prediction evaluation that cannot be gamed (issue 25): tie-aware ranking metrics at chance for a
constant scorer, negatives that take a degree-only scorer's advantage away, hard candidates that are
filtered, fixed per seed and shared by every model and heuristic, knowledge graphs ranked over head and
tail corruptions, the leakage guard in the link trainers (every offline catalogue task and declared custom
tasks clean under strict; a planted held-out edge caught), the paper protocol's published AUC histories,
determinism."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import torch

from helpers import as_settings, REPO, make_params
from netzbench.models.adapters import DistMultLink, DotProductLink
from netzbench.models.heuristics import CommonNeighbors, PreferentialAttachment, ResourceAllocation, training_adjacency
from netzbench.protocol import Protocol
from netzbench.report.persistence import read as read_form
from netzbench.training import link as L
from netzbench.training import link_eval as LE
from netzbench.training import metrics as M
from netzbench.training import relational as R
from netzbench.training.fit import Hyper
from netzbench.training.leakage import pair_ids, triple_ids
from netzbench.training.splits import split_rng

K = LE.RANKING_CANDIDATES
ONE_EPOCH = Hyper(hidden_channels=8, lr=0.01, weight_decay=0.0, epochs=1)
SETTINGS = ("uniform", "degree", "hard")


def _arrays(g: nx.Graph, x: np.ndarray | None = None) -> dict:
    out = {"edge_index": np.array(list(g.edges())).T, "num_nodes": np.array([g.number_of_nodes()])}
    if x is not None:
        out["x"] = x
    return out


def _chance_mrr(k: int) -> float:
    return float(sum(Fraction(1, r) for r in range(1, k + 2)) / (k + 1))


class _Lin(torch.nn.Module):
    """A linear node encoder: the smallest trained model."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = torch.nn.Linear(in_channels, out_channels)

    def forward(self, x, edge_index):
        return self.lin(x)


class _Constant(torch.nn.Module):
    """Every node the same (learnable) embedding: every pair the same score."""

    def __init__(self, in_channels, hidden_channels, out_channels):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.ones(out_channels))

    def forward(self, x, edge_index):
        return self.bias.expand(x.shape[0], -1)


# ------------------------------------------------------------------------------------------- the metrics
def _by_permutations(row, true) -> tuple[Fraction, dict[int, Fraction]]:
    """E[1/rank] and P(rank <= k) of ``true`` among ``row`` over every order of the items (ties broken by it)."""
    items = list(row) + [true]
    me = len(row)
    rr, hits, count = Fraction(0), {k: Fraction(0) for k in M.HITS_AT}, 0
    for perm in itertools.permutations(range(len(items))):
        place = {i: p for p, i in enumerate(perm)}
        rank = sorted(range(len(items)), key=lambda i: (-items[i], place[i])).index(me) + 1
        rr += Fraction(1, rank)
        for k in hits:
            hits[k] += rank <= k
        count += 1
    return rr / count, {k: v / count for k, v in hits.items()}


def test_ranks_are_the_expectation_over_random_tie_breaking():
    # by hand: one candidate above, two tied -> the rank is 2, 3 or 4 with equal odds
    row = M.rank_metrics("t", torch.tensor([[3.0, 1.0, 1.0, 0.0]]), torch.tensor([1.0]))
    assert row["t_mrr"] == pytest.approx((1 / 2 + 1 / 3 + 1 / 4) / 3, abs=1e-15)
    assert (row["t_hits1"], row["t_hits3"], row["t_hits10"]) == (0.0, pytest.approx(2 / 3), 1.0)
    assert M.tail_ranks(torch.tensor([[3.0, 1.0, 1.0, 0.0]]), torch.tensor([1.0])).item() == 3.0  # E[rank]
    # against every order of the tied items, on rows with many ties (5 candidates: 720 orders a row)
    rng = np.random.default_rng(0)
    cands = rng.integers(0, 3, size=(12, 5)).astype(float)
    true = rng.integers(0, 3, size=12).astype(float)
    exact = [_by_permutations(c, t) for c, t in zip(cands, true)]
    got = M.rank_metrics("t", torch.tensor(cands), torch.tensor(true))
    assert got["t_mrr"] == pytest.approx(float(sum(e[0] for e in exact) / 12), abs=1e-12)
    for k in M.HITS_AT:
        assert got[f"t_hits{k}"] == pytest.approx(float(sum(e[1][k] for e in exact) / 12), abs=1e-12)


def test_a_constant_scorer_gets_chance_on_every_link_metric():
    m = 40
    flat = M.rank_metrics("t", torch.zeros(m, K), torch.zeros(m))
    assert flat["t_mrr"] == pytest.approx(_chance_mrr(K), abs=1e-12) and M.chance_mrr(K) == pytest.approx(_chance_mrr(K))
    for k in M.HITS_AT:
        assert flat[f"t_hits{k}"] == pytest.approx(k / (K + 1), abs=1e-12)
    assert torch.all(M.tail_ranks(torch.zeros(m, K), torch.zeros(m)) == (K + 2) / 2)
    # through the trainer, under every setting: chance MRR / Hits, AUC 0.5, AP the positive rate
    arrays = _arrays(nx.barabasi_albert_graph(300, 3, seed=0))
    for setting in SETTINGS:
        fit = L.train_link_pred(lambda i, h, o: DotProductLink(_Constant(i, h, o)), arrays, 0, ONE_EPOCH,
                                protocol={"link_eval_negatives": setting})
        h = {key: v[-1] for key, v in fit.history.items()}
        for name in ("val", "test"):
            assert h[f"{name}_mrr"] == pytest.approx(_chance_mrr(K), abs=1e-12), setting
            for k in M.HITS_AT:
                assert h[f"{name}_hits{k}"] == pytest.approx(k / (K + 1), abs=1e-12), setting
            assert h[f"{name}_auc"] == 0.5
            assert h[f"{name}_ap"] == pytest.approx(1 / (K + 1) if setting == "hard" else 1 / 2), setting
        assert h["test_constant"] == 1.0 and h["test_distinct"] == 1.0
        assert fit.baseline["test_constant_mrr"] == pytest.approx(_chance_mrr(K))


# ------------------------------------------------------------------- a degree-only scorer's advantage
@pytest.mark.parametrize("seed", [0, 1])
def test_a_degree_only_scorer_loses_its_advantage_from_uniform_to_degree_to_hard(seed):
    """Preferential attachment (the degree product) against uniform negatives looks informative on a
    Barabasi-Albert graph; degree-corrected negatives take most of that away, hard ones all of it."""
    arrays = _arrays(nx.barabasi_albert_graph(1000, 3, seed=0))
    auc, mrr = {}, {}
    for setting in SETTINGS:
        fit = L.train_link_pred(lambda i, h, o: PreferentialAttachment(), arrays, seed, ONE_EPOCH,
                                protocol={"link_eval_negatives": setting})
        auc[setting] = fit.history["test_auc"][0] - 0.5
        mrr[setting] = fit.history["test_mrr"][0] - M.chance_mrr(K)
    assert auc["uniform"] > 0.1 > abs(auc["degree"])
    assert auc["uniform"] > auc["degree"] > auc["hard"]
    assert mrr["uniform"] > mrr["degree"] > mrr["hard"]


def test_degree_negatives_come_from_the_positives_endpoints():
    g = nx.barabasi_albert_graph(400, 2, seed=3)
    split = L.random_edge_split(400, _arrays(g)["edge_index"], 0)
    sets = LE.held_out_sets(split, "degree", 0)
    for name, h in sets.items():
        stubs = set(h.pos.reshape(-1).tolist())
        assert set(h.neg.reshape(-1).tolist()) <= stubs and set(h.other.reshape(-1).tolist()) <= stubs
        assert h.neg.shape == h.pos.shape and len(set(pair_ids(h.neg, 400).tolist())) == h.neg.shape[1]


# ------------------------------------------------------------------------------------- hard negatives
def _known(split, name):
    parts = [split.train_pos, split.val_pos] + ([split.test_pos] if name == "test" else [])
    return set(pair_ids(np.concatenate(parts, axis=1), split.num_nodes).tolist())


@pytest.mark.parametrize("features", [None, "dense", "sparse"])
def test_candidates_are_filtered_oriented_and_fixed_per_seed(features):
    g = nx.powerlaw_cluster_graph(300, 3, 0.3, seed=1)
    rng = np.random.default_rng(0)
    x = None if features is None else (rng.normal(size=(300, 8)) if features == "dense"
                                       else (rng.random((300, 200)) < 0.03).astype(np.float32))
    split = L.random_edge_split(300, _arrays(g)["edge_index"], 4)
    for setting in SETTINGS:
        sets = LE._build(split, setting, 4, x, K)
        for name, h in sets.items():
            pairs = h.candidate_pairs()
            assert h.fixed.shape == h.other.shape == (h.pos.shape[1], K)
            assert (pairs[0] != pairs[1]).all()  # no self-loop
            assert not set(pair_ids(pairs, 300).tolist()) & _known(split, name)  # never a known edge, nor the positive
            u, v = np.repeat(h.pos[0], K), np.repeat(h.pos[1], K)
            side = h.head_side.reshape(-1)
            assert (pairs[1][side] == v[side]).all() and (pairs[0][~side] == u[~side]).all()  # (w, v) or (u, w)
            half = K // 2
            if setting != "degree":  # (degree: a hub's side can have fewer eligible endpoints than K/2)
                assert all(len(set(row)) == half for row in h.other[:, :half])  # distinct within a side
        again = LE._build(split, setting, 4, x, K)
        assert all(np.array_equal(sets[s].other, again[s].other) and np.array_equal(sets[s].fixed, again[s].fixed)
                   for s in sets)  # a function of the seed and the data
        other_seed = LE._build(split, setting, 5, x, K)
        assert not np.array_equal(sets["test"].other, other_seed["test"].other)


def test_hard_candidates_are_harder_than_uniform_ones():
    g = nx.powerlaw_cluster_graph(500, 3, 0.4, seed=2)
    split = L.random_edge_split(500, _arrays(g)["edge_index"], 0)
    adjacency = training_adjacency(500, split.train_pos)
    ra = {}
    for setting in ("uniform", "hard"):
        h = LE._build(split, setting, 0, None, K)["test"]
        ra[setting] = ResourceAllocation().scores(adjacency, h.fixed.reshape(-1), h.other.reshape(-1))
    assert (ra["hard"] > 0).mean() > 0.5 > 0.2 > (ra["uniform"] > 0).mean()
    assert ra["hard"].mean() > 5 * ra["uniform"].mean()


class _Recording(DotProductLink):
    """The dot-product adapter, remembering the pairs it scores at evaluation."""

    seen: list = []

    def score(self, z, pairs):
        if torch.is_inference_mode_enabled():
            _Recording.seen.append(pairs.clone())
        return DotProductLink.score(z, pairs)


class _SpyHeuristic(CommonNeighbors):
    seen: list = []

    def scores(self, adjacency, heads, tails):
        _SpyHeuristic.seen.append((np.asarray(heads).copy(), np.asarray(tails).copy()))
        return super().scores(adjacency, heads, tails)


def test_every_model_and_every_heuristic_ranks_the_same_candidates():
    """The candidates are built again for each run (the memo cleared) and are the same for every model;
    each heuristic scores exactly them, as (kept endpoint, replacement)."""
    arrays = _arrays(nx.powerlaw_cluster_graph(200, 3, 0.3, seed=0), x=np.random.default_rng(1).normal(size=(200, 4)))
    protocol = {"link_eval_negatives": "hard"}
    sets = LE._build(L.random_edge_split(200, arrays["edge_index"], 2), "hard", 2, arrays["x"], K)
    scored = []
    for width in (8, 16):  # two models
        LE._MEMO.clear()
        _Recording.seen = []
        L.train_link_pred(lambda i, h, o: _Recording(_Lin(i, o)), arrays, 2,
                          Hyper(width, 0.01, 0.0, 1), protocol=protocol)
        scored.append(_Recording.seen)
    for val_pairs, test_pairs, *_degree_view in (scored[0], scored[1]):  # per split: positives, then candidates
        for name, pairs in (("val", val_pairs), ("test", test_pairs)):
            h = sets[name]
            want = np.concatenate([h.pos, h.candidate_pairs()], axis=1)
            assert np.array_equal(pairs.numpy(), want)
    LE._MEMO.clear()
    _SpyHeuristic.seen = []
    L.train_link_pred(lambda i, h, o: _SpyHeuristic(), arrays, 2, ONE_EPOCH, protocol=protocol)
    (heads, tails), *_degree_view = _SpyHeuristic.seen
    want_heads = np.concatenate([np.concatenate([sets[s].pos[0], sets[s].fixed.reshape(-1)]) for s in ("val", "test")])
    want_tails = np.concatenate([np.concatenate([sets[s].pos[1], sets[s].other.reshape(-1)]) for s in ("val", "test")])
    assert np.array_equal(heads, want_heads) and np.array_equal(tails.reshape(-1), want_tails)


def test_the_same_history_twice():
    arrays = _arrays(nx.powerlaw_cluster_graph(150, 3, 0.3, seed=5))
    from netzbench.models.registry import build_model, resolve_model

    spec = resolve_model("GCN")
    runs = []
    for _ in range(2):
        LE._MEMO.clear()
        torch.manual_seed(0)
        runs.append(L.train_link_pred(lambda i, h, o: build_model(spec, "link_pred", i, h, o), arrays, 3,
                                      Hyper(8, 0.01, 0.0, 3), protocol={"link_eval_negatives": "hard"}).history)
    assert runs[0] == runs[1] and {"val_mrr", "test_mrr", "test_hits10", "test_distinct"} <= set(runs[0])


# ------------------------------------------------------------------------------------ knowledge graphs
def _kg(n=60, num_rel=3, seed=0):
    rng = np.random.default_rng(seed)
    out = {"num_nodes": np.array([n]), "num_relations": np.array([num_rel])}
    heads = rng.integers(0, n, 500)
    trip = np.stack([heads, rng.integers(0, num_rel, 500), (heads + rng.integers(1, 6, 500)) % n])
    trip = np.unique(trip, axis=1)
    trip = trip[:, rng.permutation(trip.shape[1])]
    for part, sl in (("train", slice(0, 300)), ("valid", slice(300, 340)), ("test", slice(340, 380))):
        out[f"{part}_edge_index"] = trip[[0, 2], sl]
        out[f"{part}_edge_type"] = trip[1, sl]
    return out


def _triples(arrays, part):
    return np.stack([arrays[f"{part}_edge_index"][0], arrays[f"{part}_edge_type"], arrays[f"{part}_edge_index"][1]])


def test_knowledge_graph_candidates_replace_heads_and_tails_and_are_filtered():
    arrays = _kg()
    trip = {s: _triples(arrays, s) for s in ("train", "valid", "test")}
    every = {tuple(t) for p in trip.values() for t in p.T.tolist()}
    sets = R.held_out_sets(trip, 60, 3, 0)
    for name, h in sets.items():
        assert h["tails"].shape == h["heads"].shape == (h["pos"].shape[1], R.RANKING_NEGATIVES)
        for (hd, r, tl), tails, heads in zip(h["pos"].T, h["tails"], h["heads"]):
            assert not {(hd, r, int(c)) for c in tails} & every  # filtered: never a known fact
            assert not {(int(c), r, tl) for c in heads} & every
    again = R.held_out_sets(trip, 60, 3, 0)
    assert all(np.array_equal(sets[s][k], again[s][k]) for s in sets for k in sets[s])


def test_a_constant_relational_scorer_ranks_at_chance_over_both_sides():
    fit = R.train_relational(lambda i, h, o: DistMultLink(_Constant(i, h, o), 3, h), _kg(), 0, ONE_EPOCH)
    h = {k: v[-1] for k, v in fit.history.items()}
    assert h["test_mrr"] == pytest.approx(_chance_mrr(R.RANKING_NEGATIVES), abs=1e-12)
    assert h["test_hits10"] == pytest.approx(10 / (R.RANKING_NEGATIVES + 1), abs=1e-12)
    assert h["test_auc"] == 0.5 and h["test_ap"] == pytest.approx(0.5)
    assert h["test_distinct"] <= 3  # one score per relation: a corruption keeps the relation, so all tie


class _RecordingDistMult(DistMultLink):
    seen: list = []

    def score(self, z, triples):
        if torch.is_inference_mode_enabled() and triples.shape[1] == 40:  # the AUC sets, not the ranked ones
            _RecordingDistMult.seen.append(triples.clone().numpy())
        return super().score(z, triples)


@pytest.mark.parametrize("negatives, side", list(itertools.product(["resampled", "fixed"], ["tail", "head_or_tail"])))
def test_relational_eval_switches_choose_the_auc_corruption_one_thing_each(negatives, side):
    arrays = _kg()
    _RecordingDistMult.seen = []
    R.train_relational(lambda i, h, o: _RecordingDistMult(_Lin(i, o), 3, o), arrays, 0,
                       Hyper(8, 0.01, 0.0, 2), protocol={"relational_eval_negatives": negatives,
                                                          "relational_eval_side": side})
    calls = _RecordingDistMult.seen  # per evaluation: val positives, val negatives, test positives, test negatives
    assert len(calls) == 8
    for epoch in range(2):
        for split in range(2):
            pos, neg = calls[4 * epoch + 2 * split], calls[4 * epoch + 2 * split + 1]
            heads_kept, tails_kept = pos[0] == neg[0], pos[2] == neg[2]
            assert (pos[1] == neg[1]).all() and (heads_kept | tails_kept).all()  # one entity replaced at most
            assert heads_kept.all() if side == "tail" else (~heads_kept).sum() > 5
    same = all(np.array_equal(calls[i + 1], calls[i + 5]) for i in (0, 2))
    assert same == (negatives == "fixed")
    if (negatives, side) == ("resampled", "tail"):  # the paper's draws: the reference's stream, as published
        want = R._fresh_tails(_triples(arrays, "valid"), 60, split_rng(0, "relational_eval_resampled"))
        assert np.array_equal(calls[1], want)


def test_strict_training_corruptions_are_never_a_known_fact():
    arrays = _kg(n=12, seed=1)  # dense: many corruptions hit known facts first
    trip = np.concatenate([_triples(arrays, s) for s in ("train", "valid", "test")], axis=1)
    known = np.unique(triple_ids(trip, 12, 3))
    train = _triples(arrays, "train")
    out = R._corrupt_unknown(train, 12, 3, known, np.random.default_rng(0))
    assert not np.isin(triple_ids(out, 12, 3), known).any()
    assert ((out[0] == train[0]) ^ (out[2] == train[2]) | (out == train).all(0)).all() and (out[1] == train[1]).all()


def test_a_relational_heuristic_scores_the_trainers_candidates():
    arrays = _kg()
    trip = {s: _triples(arrays, s) for s in ("train", "valid", "test")}
    sets = R.held_out_sets(trip, 60, 3, 0)
    _SpyHeuristic.seen = []
    fit = R.train_relational(lambda i, h, o: _SpyHeuristic(), arrays, 0, ONE_EPOCH)
    (heads, tails), *_degree_view = _SpyHeuristic.seen
    pairs = set(zip(heads.tolist(), tails.reshape(-1).tolist()))
    for h in sets.values():
        pos = h["pos"]
        assert {(a, int(c)) for a, row in zip(pos[0], h["tails"]) for c in row} <= pairs
        assert {(b, int(c)) for b, row in zip(pos[2], h["heads"]) for c in row} <= pairs  # (kept tail, head)
    assert fit.split == {"redrawn": False, "n_train": 300, "n_test": 40} and fit.leakage == []


# ------------------------------------------------------------------------------------- the leakage guard
def _strict_run(task_dir: Path, meta: dict, model: str = "MLP") -> dict:
    from netzbench.graphs.layout import task_arrays
    from netzbench.models.registry import resolve_model
    from netzbench.training.seed import fit_seed

    relational = meta["split"] == "relational_canonical"
    return fit_seed(resolve_model(model), "link_pred", meta["split"], task_arrays(task_dir, 0), 0,
                    dict(hidden_channels=8, lr=0.01, weight_decay=0.0, epochs=1),
                    protocol=Protocol.resolve("strict").for_task("link_pred", relational=relational))


def test_strict_keeps_every_offline_link_task_and_declared_ones_clean(tmp_path, mirror, monkeypatch):
    """Every catalogue link task obtainable here (generators and the mirror) and two declared custom
    tasks (an edge list, a knowledge graph): under ``protocol: strict`` no held-out positive reaches the
    messages, the training negatives or the features (a one-epoch MLP: every channel is used)."""
    import raw_fixtures as rf

    from netzbench.catalog import custom
    from netzbench.catalog.data import fetch_task
    from netzbench.catalog.table import DATASETS, TASKS

    monkeypatch.chdir(tmp_path)
    rf.write_edgelist_csv(tmp_path / "raw" / "edges")
    rf.write_triples(tmp_path / "raw" / "kg")
    declared = {"my_links": {"format": "edgelist", "family": "link_pred", "path": "raw/edges"},
                "my_kg": {"format": "triples", "family": "link_pred", "path": "raw/kg"}}
    params = make_params(protocol="strict", custom_tasks=declared)
    custom.register_custom_tasks(declared)
    try:
        links = sorted(t for t, task in TASKS.items() if task.family == "link_pred")
        clean, relational = [], 0
        for tid in links:
            meta = fetch_task(tid, as_settings(params), tmp_path / "data")
            if meta.get("status") != "ok":
                continue
            rec = _strict_run(tmp_path / "data" / tid, meta)
            assert rec["leakage"] == [], (tid, rec["leakage"])
            assert rec["split"]["redrawn"] is (meta["split"] != "relational_canonical") and rec["split"]["n_test"] > 0
            relational += meta["split"] == "relational_canonical"
            clean.append(tid)
    finally:
        for tid in declared:
            TASKS.pop(tid, None)
            DATASETS.pop(tid, None)
            custom._REGISTERED.pop(tid, None)
    assert {"my_links", "my_kg", "internet_as", "fb15k_237", "wordnet18rr", "random_tsp"} <= set(clean)
    assert relational >= 3 and len(clean) >= 20


def test_paper_protocol_records_where_held_out_edges_reach_training(tmp_path, mirror):
    """Internet AS (featureless, above the identity limit): degrees over every edge; WN18RR: training
    triples that restate held-out ones reversed; the reference's knowledge-graph corruptions can draw
    held-out facts. The paper protocol records each; a small network with identities records none."""
    from netzbench.catalog.data import fetch_task
    from netzbench.graphs.layout import task_arrays
    from netzbench.models.registry import resolve_model
    from netzbench.training.seed import fit_seed

    params = make_params(protocol="paper")
    want = {"internet_as": ["structural_features"], "euroroad": [],
            "wordnet18rr": ["message_passing", "train_negatives", "structural_features"]}
    for tid, leak in want.items():
        meta = fetch_task(tid, as_settings(params), tmp_path)
        rel = meta["split"] == "relational_canonical"
        rec = fit_seed(resolve_model("MLP"), "link_pred", meta["split"], task_arrays(tmp_path / tid, 0), 0,
                       dict(hidden_channels=8, lr=0.01, weight_decay=0.0, epochs=1),
                       protocol=Protocol.resolve("paper").for_task("link_pred", relational=rel))
        assert rec["leakage"] == leak, tid
    kg = R.train_relational(lambda i, h, o: DistMultLink(_Lin(i, o), 3, o), _kg(), 0, ONE_EPOCH,
                            protocol=Protocol.resolve("paper").for_task("link_pred", relational=True))
    assert kg.leakage == ["train_negatives"]


def test_a_planted_held_out_edge_is_caught(monkeypatch):
    arrays = _arrays(nx.powerlaw_cluster_graph(120, 3, 0.3, seed=0))
    honest = L.random_edge_split

    def planted(*args, **kwargs):
        split = honest(*args, **kwargs)
        split.train_pos = np.concatenate([split.train_pos, split.test_pos[:, :1]], axis=1)  # a test edge trained on
        return split

    fresh = L.train_link_pred(lambda i, h, o: DotProductLink(_Lin(i, o)), arrays, 0, ONE_EPOCH)
    assert fresh.leakage == []
    monkeypatch.setattr(L, "random_edge_split", planted)
    LE._MEMO.clear()
    caught = L.train_link_pred(lambda i, h, o: DotProductLink(_Lin(i, o)), arrays, 0, ONE_EPOCH)
    assert caught.leakage == ["message_passing", "structural_features"]  # strict: degrees of the training edges
    heuristic = L.train_link_pred(lambda i, h, o: CommonNeighbors(), arrays, 0, ONE_EPOCH)
    assert heuristic.leakage == ["message_passing"]
    # a knowledge graph whose training triples restate a test triple reversed
    kg = _kg()
    kg["train_edge_index"] = np.concatenate([kg["train_edge_index"], kg["test_edge_index"][::-1, :1]], axis=1)
    kg["train_edge_type"] = np.concatenate([kg["train_edge_type"], kg["test_edge_type"][:1]])
    paper_like = {"relational_held_out_overlap": "keep", "relational_inputs": "features"}  # inputs from degrees
    kept = R.train_relational(lambda i, h, o: DistMultLink(_Lin(i, o), 3, o), kg, 0, ONE_EPOCH,
                              protocol=paper_like)
    assert kept.leakage == ["message_passing", "structural_features"]
    dropped = R.train_relational(lambda i, h, o: DistMultLink(_Lin(i, o), 3, o), kg, 0, ONE_EPOCH)
    assert dropped.leakage == [] and dropped.split["n_train"] == 300


# --------------------------------------------------------------- the paper protocol's published histories
REPRO = textwrap.dedent("""
    import json, sys
    import torch
    from netzbench.catalog.data import fetch_task
    from netzbench.graphs.layout import task_arrays
    from netzbench.models.registry import resolve_model
    from netzbench.params import DEFAULTS, merge, validate
    from netzbench.protocol import Protocol
    from netzbench.training.seed import fit_seed

    torch.set_num_threads(1)
    data, out = sys.argv[1], {}
    from netzbench.settings import Settings
    params = Settings.from_params(validate(merge(DEFAULTS, {"tasks": ["euroroad"], "models": ["GCN"], "seeds": [0],
                                                            "protocol": "paper"})))
    for task, model, epochs in json.loads(sys.argv[2]):
        meta = fetch_task(task, params, data)
        rel = meta["split"] == "relational_canonical"
        hp = dict(hidden_channels=64, lr=0.01, weight_decay=0.0, epochs=epochs)
        run = fit_seed(resolve_model(model), "link_pred", meta["split"], task_arrays(f"{data}/{task}", 0), 0, hp,
                       protocol=Protocol.resolve("paper").for_task("link_pred", relational=rel))
        out[f"{task}/{model}"] = run["history"]
    json.dump(out, open(sys.argv[3], "w"))
""")


#: the CPU vendor the published run trained on (docs/results.md says which CPU): portable arithmetic gives
#: the same bits on one vendor's CPUs only (MKL picks its code by vendor; docs/reproducibility.md)
PUBLISHED_VENDOR = "intel"


def test_the_published_vendor_is_the_one_docs_results_names():
    text = (REPO / "docs" / "results.md").read_text(encoding="utf-8")
    where = " ".join(text.split("- the published run used", 1)[1].split("`exec.threads")[0].split())
    assert {"intel": "Intel", "amd": "AMD"}[PUBLISHED_VENDOR] in where, where


def test_paper_protocol_auc_histories_equal_the_published_ones(tmp_path, mirror):
    """Retrained under ``protocol: paper`` with the published run's arithmetic (portable: AVX2 kernels, one
    thread) on a CPU of the published run's vendor: every AUC (and the loss) equals reports/benchmark.json's,
    bit for bit -- Euroroad's GCN over its 80 epochs, a heuristic, and FB15k-237's GCN over its first epoch
    (fresh tail corruptions)."""
    import golden

    published = read_form(REPO / "reports" / "benchmark.json")  # with its histories beside it
    if published["config"].get("protocol") != "paper":
        pytest.skip("reports/benchmark.json is not a paper-protocol run")
    if golden.vendor() != PUBLISHED_VENDOR:
        pytest.skip(f"the published run trained on an {PUBLISHED_VENDOR} CPU and this one is {golden.vendor()}: "
                    "portable arithmetic agrees within a vendor only (docs/reproducibility.md)")
    from netzbench.run.arithmetic import PORTABLE_ENV

    cells = [("euroroad", "GCN", 80), ("euroroad", "CommonNeighbors", 1), ("fb15k_237", "GCN", 1),
             ("fb15k_237", "ResourceAllocation", 1)]
    script, out = tmp_path / "repro.py", tmp_path / "out.json"
    script.write_text(REPRO)
    env = {**os.environ, **PORTABLE_ENV, "NETZBENCH_MIRROR": str(mirror)}
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "data"), json.dumps(cells), str(out)],
                          env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(out.read_text())
    for task, model, epochs in cells:
        mine, theirs = got[f"{task}/{model}"], published["histories"][task][model][0]
        for key in ("val_auc", "test_auc", "train_loss", "test_constant"):
            if key in theirs:
                assert mine[key] == theirs[key][:epochs], (task, model, key)
        assert {"test_mrr", "val_mrr", "test_distinct"} <= set(mine)


def test_degree_negatives_of_a_tiny_split_are_topped_up_uniformly_and_a_full_graph_is_an_error():
    from netzbench.training.link_eval import _degree_pairs, _Known

    # nodes 10, 11, 12 end the two positives: one non-edge (10, 12) among them, the second from elsewhere
    known = _Known(20, np.array([[10, 11], [11, 12]]))
    pairs = _degree_pairs(np.array([11, 10, 12, 11]), known, 2, np.random.default_rng(0))
    ids = {(int(i), int(j)) for i, j in pairs.T}
    assert len(ids) == 2 and (10, 12) in ids
    assert all(i < j and not known.has(np.array([i]), np.array([j]))[0] for i, j in ids)
    complete = _Known(3, np.array([[0, 0, 1], [1, 2, 2]]))
    with pytest.raises(ValueError, match="cannot draw 1 degree-corrected negatives: only 0 non-edges"):
        _degree_pairs(np.array([0, 1, 2]), complete, 1, np.random.default_rng(0))
