"""Knowledge graphs passing messages along their triples: DistMult's blockwise training scores are the
unfused graph's bits; GAT and GraphTransformer over a multigraph CSR (``train.parallel_edges: fused``)
compute PyG's per-edge layers' function, every parallel edge its own term."""

import numpy as np
import pytest
import torch
from torch_geometric.nn import GATConv, TransformerConv
from torch_geometric.utils import to_torch_csr_tensor

from helpers import assert_fused_history_is_unfused
from netzbench.models import distmult
from netzbench.models.distmult import train_scores
from netzbench.models.fused import FusedGATConv, FusedTransformerConv, _with_self_loops, multigraph_adjacency
from netzbench.models.registry import build_model
from netzbench.models import resolve_model
from netzbench.params import DEFAULTS, ParamsError, merge, validate
from netzbench.settings import Settings
from netzbench.training.fit import Hyper, multigraph_graph
from netzbench.training.relational import train_relational
from netzbench.training.seed import set_seed


def _unfused(z, rel, pos, neg):
    def score(t):  # DistMultLink.score, as the trainer called it before
        return ((z.index_select(0, t[0]) * rel.index_select(0, t[1])) * z.index_select(0, t[2])).sum(-1)
    return torch.cat([score(pos), score(neg)])


@pytest.mark.parametrize("m,block", [(37, 1024), (5000, 1024), (5000, 7), (1, 3)])
def test_blockwise_distmult_scores_and_gradients_are_the_unfused_bits(m, block, monkeypatch):
    monkeypatch.setattr(distmult, "BLOCK", block)
    gen = torch.Generator().manual_seed(m)
    n, num_rel, d = 300, 5, 16
    x = torch.randn(n, 8, generator=gen)
    pos = torch.stack([torch.randint(0, n, (m,), generator=gen), torch.randint(0, num_rel, (m,), generator=gen),
                       torch.randint(0, n, (m,), generator=gen)])
    pos[:, : m // 3] = pos[:, :1]  # repeated triples: many gradient terms land on one row
    neg = pos.clone()
    neg[2] = torch.randint(0, n, (m,), generator=gen)
    labels = torch.cat([torch.ones(m), torch.zeros(m)])
    out = []
    for scores in (_unfused, train_scores):
        torch.manual_seed(0)
        lin = torch.nn.Linear(8, d)
        rel = torch.nn.Parameter(torch.randn(num_rel, d, generator=torch.Generator().manual_seed(1)))
        z = torch.relu(lin(x))
        z.retain_grad()
        s = scores(z, rel, pos, neg)
        torch.nn.functional.binary_cross_entropy_with_logits(s, labels).backward()
        out.append((s.detach(), z.grad, rel.grad, lin.weight.grad))
    for a, b in zip(*out):
        assert torch.equal(a, b)


def _tiny_kg(n=60, num_rel=4, m=400, seed=0):
    gen = torch.Generator().manual_seed(seed)

    def triples(k):
        return (torch.stack([torch.randint(0, n, (k,), generator=gen), torch.randint(0, n, (k,), generator=gen)])
                .numpy(), torch.randint(0, num_rel, (k,), generator=gen).numpy())
    arrays = {"num_nodes": np.asarray(n), "num_relations": np.asarray(num_rel)}
    for split, k in (("train", m), ("valid", 40), ("test", 40)):
        arrays[f"{split}_edge_index"], arrays[f"{split}_edge_type"] = triples(k)
    return arrays


@pytest.mark.parametrize("model", ["GCN", "GAT"])
def test_the_relational_trainer_scores_distmult_blockwise_with_the_same_history(model, monkeypatch):
    from netzbench.training import relational

    arrays, spec = _tiny_kg(), resolve_model(model)
    protocol = {"relational_message_passing": "directed_triples", "relational_negatives": "tail_filtered"}

    def run():
        set_seed(0)
        return train_relational(lambda i, h, o: build_model(spec, "link_pred", i, h, o, num_relations=4),
                                arrays, 0, Hyper(8, 0.01, 0.0, 3), protocol=protocol).history

    assert_fused_history_is_unfused(monkeypatch, relational, train_scores, _unfused, run, steps=3)


def _multigraph(n=30, seed=0):
    gen = torch.Generator().manual_seed(seed)
    src, dst = torch.randint(0, n, (200,), generator=gen), torch.randint(0, n, (200,), generator=gen)
    src = torch.cat([src, src[:40], torch.arange(5)])  # 40 parallel edges, 5 self-loops
    dst = torch.cat([dst, dst[:40], torch.arange(5)])
    src[:3], dst[:3] = src[3], dst[3]  # one edge four times
    return torch.stack([src, dst])


def test_multigraph_adjacency_keeps_every_edge_and_marks_itself():
    ei = _multigraph()
    adj = multigraph_adjacency(ei, 30)
    assert adj.layout == torch.sparse_csr and adj.parallel_edges
    assert adj.col_indices().numel() == ei.shape[1]  # nothing merged
    rows = torch.repeat_interleave(torch.arange(30), adj.crow_indices().diff())
    got = sorted(zip(adj.col_indices().tolist(), rows.tolist()))
    assert got == sorted(zip(ei[0].tolist(), ei[1].tolist()))
    looped = _with_self_loops(adj)
    lrow = torch.repeat_interleave(torch.arange(30), looped.crow_indices().diff())
    loops = lrow == looped.col_indices()
    assert int(loops.sum()) == 30 and torch.equal(lrow[loops], torch.arange(30))  # one per node, old ones gone
    assert looped.col_indices().numel() == ei.shape[1] - int((ei[0] == ei[1]).sum()) + 30


@pytest.mark.parametrize("pyg,fused,kw", [(GATConv, FusedGATConv, {"heads": 3}),
                                          (TransformerConv, FusedTransformerConv, {"heads": 2})])
def test_fused_attention_over_a_multigraph_is_the_per_edge_function(pyg, fused, kw):
    ei, n = _multigraph(), 30
    x = torch.randn(n, 7, requires_grad=True)
    torch.manual_seed(1)
    ref = pyg(7, 5, dropout=0.0, **kw)
    torch.manual_seed(1)
    ours = fused(7, 5, dropout=0.0, **kw)
    adj = multigraph_adjacency(ei, n)
    y_ref, y = ref(x, ei), ours(x, adj)
    assert torch.allclose(y, y_ref, atol=1e-5)
    g_ref = torch.autograd.grad(y_ref.square().sum(), [x, *ref.parameters()])
    g = torch.autograd.grad(ours(x, adj).square().sum(), [x, *ours.parameters()])
    for a, b in zip(g, g_ref):
        assert torch.allclose(a, b, rtol=1e-4, atol=1e-4)
    # merging the parallel edges (a coalesced CSR) is another function: the repeats count
    merged = ours(x, to_torch_csr_tensor(ei.flip(0), size=(n, n)))
    assert (merged - y_ref).abs().max() > 1e-2
    if fused is FusedGATConv:
        assert ours.add_self_loops  # restored after the call


def test_parallel_edges_switch_picks_the_graph_form():
    ei = _multigraph()
    gat = build_model(resolve_model("GAT"), "link_pred", 4, 8, 8, num_relations=3)
    gcn = build_model(resolve_model("GCN"), "link_pred", 4, 8, 8, num_relations=3)
    assert multigraph_graph(gat, ei, 30, "fused").layout == torch.sparse_csr
    assert multigraph_graph(gat, ei, 30, "per_edge") is ei
    assert multigraph_graph(gcn, ei, 30, "fused") is ei  # GCN and GraphSAGE keep the per-edge layers


def test_parallel_edges_param_is_checked_and_reaches_knowledge_graphs_only():
    params = validate(merge(DEFAULTS, {"tasks": ["cora"], "models": ["GCN"]}))
    assert params["train"]["parallel_edges"] == "fused"
    train = Settings.from_params(params).train
    assert train.hyperparameters("link_pred", 5, relational=True)["parallel_edges"] == "fused"
    assert "parallel_edges" not in train.hyperparameters("link_pred", 5)
    assert "parallel_edges" not in train.hyperparameters("node_cls", 5)
    per_edge = validate(merge(DEFAULTS, {"tasks": ["cora"], "models": ["GCN"], "train": {"parallel_edges": "per_edge"}}))
    assert Settings.from_params(per_edge).train.hyperparameters("link_pred", 5, relational=True)["parallel_edges"] \
        == "per_edge"
    with pytest.raises(ParamsError, match="parallel_edges.*fused"):
        validate(merge(DEFAULTS, {"tasks": ["cora"], "models": ["GCN"], "train": {"parallel_edges": "fusd"}}))
