r"""Exact full-neighbourhood inference, one layer at a time (``train.sampling.eval: layerwise``).

A node's output after layer :math:`l` depends only on its in-neighbours' outputs after
layer :math:`l-1`. So, for a graph whose full forward pass does not fit, every layer is
computed for all nodes before the next, over contiguous ranges of target nodes: a range
takes its targets, all of their in-neighbours (no sampling) and the previous layer's
rows for those, and runs the layer bipartitely (sources -> targets, a rectangular CSR
adjacency with the targets numbered first, so a layer that adds self-loops adds the
right ones). The result equals the full-graph forward pass to float rounding, at the
memory of one range; each layer's input rows of a range are recomputed by at most
those ranges that hold their neighbours. GCN's symmetric normalisation needs the
source's degree in the whole graph, so its layer is written out:
:math:`h_i' = \sum_{j \in N(i) \cup \{i\}} (d_i d_j)^{-1/2}\, W h_j + b` with
:math:`d` the in-degree plus one (what ``GCNConv`` computes on the full graph).

An encoder offers it by ``inference_layers()``: its message-passing layers in order,
each with the activation that follows it (evaluation mode: dropout is the identity).
"""

from __future__ import annotations

import torch
from torch_geometric.nn import GCNConv

from ..models.encoders import TwoLayers

#: in-edges per range: larger ranges recompute fewer neighbour rows, smaller ones hold less memory
#: (a 512-wide layer's range holds about 4 GB at products' density)
RANGE_EDGES = 1 << 22


def layerwise_ready(model) -> bool:
    """Whether ``model`` (a node or link adapter around an encoder) offers layer-wise inference: its
    encoder's ``forward`` is that of a :class:`~netzbench.models.encoders.TwoLayers` encoder (a subclass
    that rewrites ``forward`` may compute something else, so it evaluates full)."""
    encoder = getattr(model, "encoder", None)
    if encoder is None:
        return False
    owner = next(c for c in type(encoder).__mro__ if "forward" in vars(c))
    return TwoLayers in owner.__bases__


def target_ranges(rowptr: torch.Tensor, budget: int = RANGE_EDGES) -> list[tuple[int, int]]:
    """Contiguous node ranges ``[a, b)`` covering every node, each with at most ``budget`` in-edges
    (by the CSR-by-target ``rowptr``), except a single node that has more on its own."""
    n, bounds = len(rowptr) - 1, [0]
    while bounds[-1] < n:
        a = bounds[-1]
        b = int(torch.searchsorted(rowptr, rowptr[a] + budget, right=True)) - 1
        bounds.append(min(n, max(b, a + 1)))
    return list(zip(bounds[:-1], bounds[1:]))


def _range_graph(rowptr: torch.Tensor, sources: torch.Tensor, local: torch.Tensor, a: int, b: int):
    """Targets ``a..b-1`` and all their in-neighbours: the nodes (global ids, targets first), the
    rectangular adjacency's CSR rows (targets) and columns (local source ids)."""
    src = sources[rowptr[a]:rowptr[b]]
    targets = torch.arange(a, b)
    local[targets] = torch.arange(b - a)
    others = torch.unique(src[local[src] < 0])
    local[others] = torch.arange(b - a, b - a + len(others))
    nodes = torch.cat([targets, others])
    crow, col = rowptr[a:b + 1] - rowptr[a], local[src]
    local[nodes] = -1
    return nodes, crow, col


def _gcn_layer(conv: GCNConv, h: torch.Tensor, crow, col, dinv_nodes: torch.Tensor, n_t: int) -> torch.Tensor:
    """``GCNConv`` on the range with the whole graph's normalisation (``dinv_nodes``: d^{-1/2} per local node)."""
    if not conv.normalize or not conv.add_self_loops or conv.improved:
        raise ValueError("layer-wise inference writes out GCNConv's default normalisation only: "
                         "use train.sampling.eval: full or sampled for this GCNConv")
    row = torch.repeat_interleave(torch.arange(n_t), crow.diff())
    rows = torch.cat([row, torch.arange(n_t)])
    cols = torch.cat([col, torch.arange(n_t)])  # the self-loops GCNConv adds
    values = dinv_nodes[rows] * dinv_nodes[cols]
    adj = torch.sparse_coo_tensor(torch.stack([rows, cols]), values, (n_t, len(dinv_nodes))).coalesce()
    out = torch.sparse.mm(adj.to(h.device), conv.lin(h))
    return out + conv.bias if conv.bias is not None else out


@torch.no_grad()
def layerwise_inference(model, x: torch.Tensor, rowptr: torch.Tensor, sources: torch.Tensor, device,
                        budget: int = RANGE_EDGES) -> torch.Tensor:
    """Every node's output of ``model.encoder``, layer by layer over target ranges (see the module doc).

    ``rowptr``/``sources``: the message-passing graph as CSR by target (in-neighbours of node ``i`` are
    ``sources[rowptr[i]:rowptr[i+1]]``), as :class:`netzbench.training.sampling.NeighbourSampler` keeps it.
    """
    from torch_geometric.utils import to_torch_csr_tensor

    n = len(rowptr) - 1
    local = torch.full((n,), -1, dtype=torch.long)
    dinv = (rowptr.diff() + 1).to(torch.float32).pow(-0.5)  # GCN: in-degree with the self-loop
    ranges = target_ranges(rowptr, budget)
    h = x
    for conv, act in model.encoder.inference_layers():
        parts = []
        for a, b in ranges:
            nodes, crow, col = _range_graph(rowptr, sources, local, a, b)
            h_sub = h[nodes.to(h.device)].to(device)
            if isinstance(conv, GCNConv):
                out = _gcn_layer(conv, h_sub, crow, col, dinv[nodes].to(device), b - a)
            else:
                row = torch.repeat_interleave(torch.arange(b - a), crow.diff())
                adj = to_torch_csr_tensor(torch.stack([row, col]), size=(b - a, len(nodes)))
                out = conv((h_sub, h_sub[:b - a]), adj.to(device))
            parts.append(out if act is None else act(out))
        h = torch.cat(parts)
    return h
