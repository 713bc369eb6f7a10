r"""Attention layers whose neighbourhood sums run as sparse matrix products.

PyG's :class:`~torch_geometric.nn.GATConv` and
:class:`~torch_geometric.nn.TransformerConv` gather one message per edge and
head, :math:`\alpha_{ij}^h W^h x_j \in \mathbb{R}^{E \times H \times C}`, and
scatter them back. On large full-batch graphs that tensor (FB15k-237: 0.8 M
edges x 8 heads x 64 channels, about 1.7 GB per layer, written and read again
in the backward pass) makes the layers memory-bound. Given a CSR adjacency
(rows = targets) the same sums are, per head,

.. math::
    \mathrm{out}^h = A^h X^h, \qquad A^h_{ij} = \alpha^h_{ij},

an spmm, and the transformer's logits
:math:`s^h_{ij} = \langle q^h_i, k^h_j\rangle` are a sampled dense-dense
product (SDDMM) on the adjacency pattern. Neither materialises per-edge
vectors. The backward passes are the transposed spmm and an SDDMM:

.. math::
    \partial X^h = (A^h)^\top G^h, \qquad
    \partial\alpha^h_{ij} = \langle G^h_i, X^h_j\rangle .

The layers below are the PyG classes with only the fused
``message_and_aggregate`` added, used when the edge index is a CSR tensor
(:func:`netzbench.training.fit.model_graph`); with an edge-index tensor
they are the PyG layers unchanged. Same parameters, same function; sums are
taken in a different order, so results agree to float rounding.

A multigraph (a knowledge graph's triples, head -> tail, several relations
between one pair) keeps each parallel edge as its own stored entry of the CSR
(:func:`multigraph_adjacency`): a repeated entry is one more term of the
softmax and of the sum, as a repeated edge is to the per-edge layers.
PyG's GATConv re-adds self-loops to a sparse adjacency by coalescing it, which
would merge the parallel edges; :class:`FusedGATConv` adds them itself to such
an adjacency, as ``remove_self_loops`` then ``add_self_loops`` do to an edge index.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor
from torch_geometric.nn import GATConv, TransformerConv
from torch_geometric.utils import softmax

from .dropout import dropout


class CSRPattern:
    """The index structure of a CSR adjacency and of its transpose.

    ``row`` is each stored entry's row (target) index; ``perm`` maps transposed
    (CSC-ordered) positions to CSR positions, so edge values ``w`` (in CSR
    order) become ``w[perm]`` for the transpose.
    """

    def __init__(self, adj: Tensor):
        if adj.layout != torch.sparse_csr:
            adj = adj.to_sparse_csr()
        self.shape = tuple(adj.shape)
        self.crow = adj.crow_indices()
        self.col = adj.col_indices()
        n_rows, n_cols = self.shape
        self.row = torch.repeat_interleave(torch.arange(n_rows, device=self.col.device), self.crow.diff())
        # stable: a multigraph's repeated entries keep their order in the transpose too
        self.perm = torch.argsort(self.col * n_rows + self.row, stable=True)
        self.t_col = self.row[self.perm]
        counts = torch.bincount(self.col, minlength=n_cols)
        self.t_crow = torch.cat([counts.new_zeros(1), counts.cumsum(0)])

    def matrix(self, values: Tensor) -> Tensor:
        return torch.sparse_csr_tensor(self.crow, self.col, values, self.shape)

    def transposed(self, values: Tensor) -> Tensor:
        """:math:`A^\\top` as CSR, for ``values`` given in CSR order of :math:`A`."""
        return torch.sparse_csr_tensor(self.t_crow, self.t_col, values[self.perm], self.shape[::-1])


def _spmm_heads(pattern: CSRPattern, w: Tensor, x: Tensor, transpose: bool = False) -> Tensor:
    """``out[:, h] = A(w[:, h]) @ x[:, h]`` for ``w`` [E, H] and ``x`` [N, H, C] (``A^T`` if ``transpose``)."""
    make = pattern.transposed if transpose else pattern.matrix
    n_out = pattern.shape[1] if transpose else pattern.shape[0]
    out = x.new_empty(w.shape[1], n_out, x.shape[2])
    xh = x.transpose(0, 1).contiguous()
    for h in range(w.shape[1]):
        out[h] = torch.sparse.mm(make(w[:, h].contiguous()), xh[h])
    return out.transpose(0, 1).contiguous()


def _sddmm_heads(pattern: CSRPattern, a: Tensor, b: Tensor) -> Tensor:
    """``s[e, h] = <a[row_e, h], b[col_e, h]>`` for ``a`` [N_rows, H, C], ``b`` [N_cols, H, C]."""
    heads = a.shape[1]
    out = a.new_empty(pattern.col.numel(), heads)
    empty = pattern.matrix(a.new_zeros(pattern.col.numel()))
    ah, bh = a.transpose(0, 1).contiguous(), b.transpose(0, 1).contiguous()
    for h in range(heads):
        out[:, h] = torch.sparse.sampled_addmm(empty, ah[h], bh[h].t(), beta=0.0).values()
    return out


class EdgeWeightedSum(torch.autograd.Function):
    r""":math:`\mathrm{out}_{i,h} = \sum_{j} w_{ij,h}\, x_{j,h}` over the CSR pattern (per-head spmm)."""

    @staticmethod
    def forward(ctx, w: Tensor, x: Tensor, pattern: CSRPattern) -> Tensor:
        ctx.pattern = pattern
        ctx.save_for_backward(w, x)
        return _spmm_heads(pattern, w, x)

    @staticmethod
    def backward(ctx, grad: Tensor):
        w, x = ctx.saved_tensors
        grad_w = _sddmm_heads(ctx.pattern, grad, x) if ctx.needs_input_grad[0] else None
        grad_x = _spmm_heads(ctx.pattern, w, grad, transpose=True) if ctx.needs_input_grad[1] else None
        return grad_w, grad_x, None


class EdgeDot(torch.autograd.Function):
    r""":math:`s_{ij,h} = \langle a_{i,h}, b_{j,h}\rangle` on the CSR pattern (per-head SDDMM)."""

    @staticmethod
    def forward(ctx, a: Tensor, b: Tensor, pattern: CSRPattern) -> Tensor:
        ctx.pattern = pattern
        ctx.save_for_backward(a, b)
        return _sddmm_heads(pattern, a, b)

    @staticmethod
    def backward(ctx, grad: Tensor):
        a, b = ctx.saved_tensors
        grad_a = _spmm_heads(ctx.pattern, grad, b) if ctx.needs_input_grad[0] else None
        grad_b = _spmm_heads(ctx.pattern, grad, a, transpose=True) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b, None


class _PatternCache:
    """The :class:`CSRPattern` of the last adjacency seen, reused while the same graph comes back.

    GATConv re-adds self-loops, building a new (equal) CSR tensor on every
    call; comparing the index arrays costs far less than rebuilding the
    transposed structure (a sort over the edges).
    """

    def __init__(self):
        self._pattern = None

    def __call__(self, adj: Tensor) -> CSRPattern:
        p = self._pattern
        # a graph on another device (the model was moved) is a new pattern: torch.equal would raise
        if adj.layout != torch.sparse_csr or p is None or tuple(adj.shape) != p.shape \
                or adj.device != p.col.device \
                or not torch.equal(adj.crow_indices(), p.crow) or not torch.equal(adj.col_indices(), p.col):
            self._pattern = CSRPattern(adj)
        return self._pattern


def multigraph_adjacency(edge_index: Tensor, num_nodes: int) -> Tensor:
    """The CSR adjacency (rows = targets) of ``edge_index`` [2, E] (source, target) with one stored entry
    per edge: parallel edges are kept as repeated entries, in their order in ``edge_index``. Marked
    ``parallel_edges`` so that :class:`FusedGATConv` adds its self-loops without merging them."""
    src, dst = edge_index
    order = torch.argsort(dst * num_nodes + src, stable=True)
    counts = torch.bincount(dst, minlength=num_nodes)
    crow = torch.cat([counts.new_zeros(1), counts.cumsum(0)])
    adj = torch.sparse_csr_tensor(crow, src[order], torch.ones(order.numel(), device=src.device),
                                  (num_nodes, num_nodes))
    adj.parallel_edges = True
    return adj


def _with_self_loops(adj: Tensor) -> Tensor:
    """A multigraph adjacency without its self-loops and with one self-loop per node, parallel edges kept
    (what GATConv's ``remove_self_loops`` then ``add_self_loops`` do to an edge index)."""
    n = adj.shape[0]
    crow, col = adj.crow_indices(), adj.col_indices()
    row = torch.repeat_interleave(torch.arange(n, device=col.device), crow.diff())
    keep = row != col
    loops = torch.arange(n, device=col.device)
    edges = torch.stack([torch.cat([col[keep], loops]), torch.cat([row[keep], loops])])
    return multigraph_adjacency(edges, n)


class FusedGATConv(GATConv):
    r""":class:`~torch_geometric.nn.GATConv` whose aggregation :math:`\sum_j \alpha^h_{ij} W^h x_j`
    is a per-head spmm when the adjacency is a CSR tensor."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._patterns = _PatternCache()
        self._looped: tuple[Tensor, Tensor] | None = None  # (a multigraph adjacency, it with self-loops)

    def forward(self, x, edge_index, *args, **kwargs):
        if not (self.add_self_loops and getattr(edge_index, "parallel_edges", False)):
            return super().forward(x, edge_index, *args, **kwargs)
        if self._looped is None or self._looped[0] is not edge_index:
            self._looped = (edge_index, _with_self_loops(edge_index))
        self.add_self_loops = False  # added above, parallel edges kept (PyG's sparse path would merge them)
        try:
            return super().forward(x, self._looped[1], *args, **kwargs)
        finally:
            self.add_self_loops = True

    def edge_update(self, alpha_j: Tensor, alpha_i: Tensor | None, edge_attr: Tensor | None, index: Tensor,
                    ptr: Tensor | None, dim_size: int | None) -> Tensor:
        # GATConv's coefficients with its attention dropout switched off (p = 0 returns them as they are),
        # then the same dropout drawn by models/dropout.py (the same bits, twice as fast)
        p, self.dropout = self.dropout, 0.0
        try:
            alpha = super().edge_update(alpha_j, alpha_i, edge_attr, index, ptr, dim_size)
        finally:
            self.dropout = p
        return dropout(alpha, p, self.training) if index.numel() else alpha

    def message_and_aggregate(self, adj_t: Tensor, x: tuple[Tensor, Tensor], alpha: Tensor) -> Tensor:
        return EdgeWeightedSum.apply(alpha, x[0], self._patterns(adj_t))


class FusedTransformerConv(TransformerConv):
    r""":class:`~torch_geometric.nn.TransformerConv` with the logits
    :math:`\langle q_i, k_j\rangle/\sqrt{c}` as an SDDMM and the value sum as an spmm
    when the adjacency is a CSR tensor (no edge features)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._patterns = _PatternCache()

    def message_and_aggregate(self, adj_t: Tensor, query: Tensor, key: Tensor, value: Tensor) -> Tensor:
        if self.lin_edge is not None:
            raise ValueError("FusedTransformerConv: edge features need the edge-index form")
        pattern = self._patterns(adj_t)
        logits = EdgeDot.apply(query, key, pattern) / math.sqrt(self.out_channels)
        alpha = softmax(logits, pattern.row, ptr=pattern.crow, num_nodes=pattern.shape[0])
        self._alpha = alpha
        alpha = dropout(alpha, self.dropout, self.training)
        return EdgeWeightedSum.apply(alpha, value, pattern)
