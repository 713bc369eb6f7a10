"""The fast paths compute the same function as the plain PyG layers.

CSR adjacencies (fused attention spmm/SDDMM, GCN/GraphSAGE spmm) and sparse
CSR inputs are speed-ups only: outputs and gradients must match the
edge-index form to float rounding, on graphs with parallel edges and
self-loops too (which :func:`message_passing_graph` removes for every encoder alike).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch_geometric.nn import GATConv, TransformerConv

from netzbench.models.adapters import wrap_encoder
from netzbench.models.encoders import GAT, GCN, GraphSAGE, GraphTransformer
from netzbench.models.fused import CSRPattern, EdgeWeightedSum, FusedGATConv, FusedTransformerConv
from netzbench.graphs.edges import message_passing_graph
from netzbench.training.fit import maybe_adjacency, maybe_sparse
from netzbench.training.relational import _ranking_candidates


def _graph(n=40, m=260, seed=0):
    g = torch.Generator().manual_seed(seed)
    ei = torch.randint(0, n, (2, m), generator=g)
    ei = torch.cat([ei, ei[:, :30], torch.arange(5).repeat(2, 1)], dim=1)  # parallel edges and self-loops
    return ei, torch.randn(n, 12, generator=g)


def test_message_passing_graph_merges_parallel_edges_and_drops_loops():
    ei, _ = _graph()
    out = message_passing_graph(ei, 40)
    pairs = {tuple(p) for p in ei.t().tolist() if p[0] != p[1]}
    assert out.shape[1] == len(pairs)
    assert {tuple(p) for p in out.t().tolist()} == pairs


@pytest.mark.parametrize("base, fused, kwargs", [
    (GATConv, FusedGATConv, {"heads": 3}),
    (GATConv, FusedGATConv, {"heads": 1, "concat": False}),
    (TransformerConv, FusedTransformerConv, {"heads": 4}),
    (TransformerConv, FusedTransformerConv, {"heads": 1, "concat": False}),
])
def test_fused_attention_matches_pyg_values_and_gradients(base, fused, kwargs, monkeypatch):
    ei, x = _graph()
    ei = message_passing_graph(ei, 40)
    torch.manual_seed(0)
    ref = base(12, 8, **kwargs)
    new = fused(12, 8, **kwargs)
    new.load_state_dict(ref.state_dict())
    ref.train(), new.train()  # dropout is 0 here: the training graph is compared without noise
    calls = []
    original = EdgeWeightedSum.apply
    monkeypatch.setattr(EdgeWeightedSum, "apply", lambda *a: calls.append(1) or original(*a))
    adj = maybe_adjacency(type("M", (), {"encoder": GAT})(), ei, 40)
    xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
    a, b = ref(xa, ei), new(xb, adj)
    assert calls, "the CSR adjacency did not take the fused path"
    w = torch.randn_like(a)
    (a * w).sum().backward()
    (b * w).sum().backward()
    torch.testing.assert_close(b, a, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(xb.grad, xa.grad, atol=1e-5, rtol=1e-5)
    for p, q in zip(ref.parameters(), new.parameters()):
        torch.testing.assert_close(q.grad, p.grad, atol=1e-4, rtol=1e-4)
    # with an edge index the fused class is the PyG layer
    calls.clear()
    torch.testing.assert_close(new(x, ei), ref(x, ei))
    assert not calls


def test_csr_pattern_transpose_is_the_transpose():
    ei, _ = _graph()
    adj = maybe_adjacency(type("M", (), {"encoder": GAT})(), message_passing_graph(ei, 40), 40)
    p = CSRPattern(adj)
    vals = torch.rand(p.col.numel())
    dense = p.matrix(vals).to_dense()
    torch.testing.assert_close(p.transposed(vals).to_dense(), dense.t())


@pytest.mark.parametrize("encoder", [GCN, GAT, GraphSAGE, GraphTransformer])
@pytest.mark.parametrize("family", ["node_cls", "link_pred"])
def test_every_encoder_same_output_with_csr_adjacency_and_sparse_input(encoder, family):
    ei, _ = _graph()
    g = torch.Generator().manual_seed(1)
    x = (torch.rand(40, 80, generator=g) < 0.05).float()  # bag-of-words-like: taken as CSR where accepted
    torch.manual_seed(0)
    model = wrap_encoder(encoder, family, 80, 16, 5)
    model.eval()
    ei = message_passing_graph(ei, 40)
    fast_x, fast_adj = maybe_sparse(model, x), maybe_adjacency(model, ei, 40)
    assert (fast_adj.layout == torch.sparse_csr) == bool(getattr(encoder, "sparse_adjacency", False))
    assert (fast_x.layout == torch.sparse_csr) == bool(getattr(encoder, "sparse_input", False))
    with torch.no_grad():
        torch.testing.assert_close(model(fast_x, fast_adj), model(x, ei), atol=1e-5, rtol=1e-5)


def _reference_candidates(triples, n, true_ids, num_rel, rng, k):
    tails = rng.integers(0, n, size=(triples.shape[1], k))
    ids = (triples[0][:, None] * num_rel + triples[1][:, None]) * n + tails
    bad = np.isin(ids, true_ids)
    while bad.any():
        tails[bad] = rng.integers(0, n, size=int(bad.sum()))
        ids = (triples[0][:, None] * num_rel + triples[1][:, None]) * n + tails
        bad = np.isin(ids, true_ids)
    return tails


def test_ranking_candidates_are_filtered_and_match_a_plain_isin_loop():
    rng = np.random.default_rng(3)
    n, num_rel = 30, 4
    triples = np.stack([rng.integers(0, n, 200), rng.integers(0, num_rel, 200), rng.integers(0, n, 200)])
    true_ids = np.unique((triples[0] * num_rel + triples[1]) * n + triples[2])
    got = _ranking_candidates(triples[:, :50], n, true_ids, num_rel, np.random.default_rng(7), k=20)
    want = _reference_candidates(triples[:, :50], n, true_ids, num_rel, np.random.default_rng(7), 20)
    np.testing.assert_array_equal(got, want)
    ids = (triples[0, :50, None] * num_rel + triples[1, :50, None]) * n + got
    assert not np.isin(ids, true_ids).any()


def _plain_tail_redraws(triples, n, num_rel, true_ids, rng, rounds):
    """The reference's tail corruptions, every triple checked again after each round of redraws."""
    out = triples.copy()
    out[2] = rng.integers(0, n, triples.shape[1])
    for _ in range(rounds):
        bad = np.isin((out[0] * num_rel + out[1]) * n + out[2], true_ids)
        if not bad.any():
            break
        out[2, bad] = rng.integers(0, n, int(bad.sum()))
    return out


def test_relational_sampling_fast_paths_match_plain_loops():
    from netzbench.training import relational as R
    from netzbench.training.leakage import triple_ids

    rng = np.random.default_rng(5)
    n, num_rel = 40, 3  # dense: most corruptions hit a known triple, some after several redraws
    triples = np.stack([rng.integers(0, n, 6000), rng.integers(0, num_rel, 6000), rng.integers(0, n, 6000)])
    ids = (triples[0] * num_rel + triples[1]) * n + triples[2]
    true_ids = np.unique(ids)
    np.testing.assert_array_equal(R._sorted_unique(ids), true_ids)
    assert R._sorted_unique(ids[:0]).size == 0
    query = rng.integers(0, n * num_rel * n, (R.SORTED_SEARCH + 7, 3))  # above the cut: the sorted search
    np.testing.assert_array_equal(R._is_known(true_ids, query), np.isin(query, true_ids))
    np.testing.assert_array_equal(R._is_known(true_ids, query[:5]), np.isin(query[:5], true_ids))
    got = R._corrupt_tails_filtered(triples, n, num_rel, true_ids, np.random.default_rng(1))
    np.testing.assert_array_equal(got, _plain_tail_redraws(triples, n, num_rel, true_ids, np.random.default_rng(1),
                                                           R.MAX_REDRAWS))
    assert np.isin((got[0] * num_rel + got[1]) * n + got[2], true_ids).any()  # some kept after the last redraw
    # strict corruptions: head or tail redrawn while the undirected triple is known
    known = np.unique(triple_ids(triples[:, :3000], n, num_rel))
    draws = np.random.default_rng(2)
    out, side = R._corrupt_sides(triples, n, draws)
    while (bad := np.isin(triple_ids(out, n, num_rel), known)).any():
        out[0, bad & side] = draws.integers(0, n, int((bad & side).sum()))
        out[2, bad & ~side] = draws.integers(0, n, int((bad & ~side).sum()))
    np.testing.assert_array_equal(R._corrupt_unknown(triples, n, num_rel, known, np.random.default_rng(2)), out)
    # ranking candidates with enough ids for the sorted search
    got = _ranking_candidates(triples[:, :300], n, true_ids, num_rel, np.random.default_rng(7), k=20)
    want = _reference_candidates(triples[:, :300], n, true_ids, num_rel, np.random.default_rng(7), 20)
    np.testing.assert_array_equal(got, want)


def _bits(t):
    return t.contiguous().view(torch.int32)


def test_blockwise_evaluation_scores_are_the_plain_products_bit_for_bit():
    from netzbench.models.adapters import DistMultLink, DotProductLink
    from netzbench.training import link as L, relational as R
    from netzbench.training.fit import distinct_values

    g = torch.Generator().manual_seed(0)
    n, hidden, m, k = 90, 16, R.RANK_CHUNK + 37, 9  # a last chunk shorter than the others
    z = torch.randn(n, hidden, generator=g)
    model = DistMultLink(torch.nn.Identity(), 4, hidden, init="normal")
    pos = torch.stack([torch.randint(0, n, (m,), generator=g), torch.randint(0, 4, (m,), generator=g),
                       torch.randint(0, n, (m,), generator=g)])
    cand = torch.randint(0, n, (m, k), generator=g)
    for side in ("tail", "head"):
        trip = pos if side == "tail" else pos[[2, 1, 0]]
        every = torch.cat([trip[2][:, None], cand], dim=1)
        want = (model.head_relation(z, trip)[:, None, :] * z[every]).sum(-1).detach()
        with torch.inference_mode():
            true, scores = R._score_corrupted(model, z, pos, cand, side)
        assert torch.equal(_bits(true), _bits(want[:, 0])) and torch.equal(_bits(scores), _bits(want[:, 1:]))
        true, scores = R._score_corrupted(model, z, pos, cand, side)  # with gradients: differentiable
        assert scores.requires_grad and torch.equal(_bits(scores.detach()), _bits(want[:, 1:]))
    pairs = torch.randint(0, n, (2, L.DOT_CHUNK + 123), generator=g)
    with torch.inference_mode():
        got = L._score_pairs(DotProductLink(torch.nn.Identity()), z, pairs)
    assert torch.equal(_bits(got), _bits(DotProductLink.score(z, pairs)))
    assert L._score_pairs(DotProductLink(torch.nn.Identity()), z.requires_grad_(), pairs).requires_grad
    # distinct single scores: the plain unique, NaNs counted one by one as row-wise unique counts them
    values = torch.tensor([0.0, -0.0, 1.0, 1.0, float("nan"), float("nan"), float("inf")])
    assert distinct_values(values) == torch.unique(values[:, None], dim=0).shape[0] == 5
