r"""DistMult training scores in blocks that stay in cache, bit for bit the unfused autograd graph.

A training step scores every training triple and one corruption of each (FB15k-237: 2 x 272k
triples), :math:`s = \sum_d z_{h,d}\, w_{r,d}\, z_{t,d}`. Written as tensor ops
(:meth:`.adapters.DistMultLink.score` twice, then ``cat``) that is three gathers, two products
and a sum over [m, d] tensors per call, each a fresh 70 MB array written and read again, and
the backward pass as many more: a memory-bound step, and most of a knowledge-graph epoch.

:class:`DistMultTrainScores` takes the same values in blocks of :data:`BLOCK` triples (the
gathers, products and sums of one block stay in cache) and keeps no [m, d] tensor for the
backward pass, which gathers each block again. Every elementwise product has the same operands
as in the unfused graph, each score is the same one-row sum, and each gradient is accumulated
in the same order:

.. math::
    \partial z = \big((G^{-}_t + G^{-}_h) + G^{+}_t\big) + G^{+}_h, \qquad
    \partial w = G^{-}_r + G^{+}_r,

with :math:`G_t = \mathrm{index\_add}(t, g\, (z_h \odot w_r))`,
:math:`G_h = \mathrm{index\_add}(h, (g\, z_t) \odot w_r)` and
:math:`G_r = \mathrm{index\_add}(r, (g\, z_t) \odot z_h)` (negatives first: autograd runs the
nodes created last first). So the results are the same bits as the unfused graph
(``tests/test_parallel_edges.py``), at a fraction of the memory traffic.
"""

from __future__ import annotations

import torch
from torch import Tensor

#: triples per block: a block's [BLOCK, d] temporaries (d = 64: 256 KB each) stay in a core's cache
BLOCK = 1024


def _scores(z: Tensor, relations: Tensor, triples: Tensor, out: Tensor) -> None:
    """``out[i] = sum_d (z[h_i] * w[r_i]) * z[t_i]`` blockwise (the unfused ``score``'s products and sums)."""
    for i in range(0, triples.shape[1], BLOCK):
        h, r, t = triples[:, i:i + BLOCK]
        hr = z.index_select(0, h) * relations.index_select(0, r)
        torch.sum(hr * z.index_select(0, t), -1, out=out[i:i + BLOCK])


def _gradients(z: Tensor, relations: Tensor, triples: Tensor, g: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """The three gradients the unfused graph of one ``score`` call accumulates: into ``z`` through the
    tails and through the heads, into the relation vectors; index_add block after block, in index order."""
    grad_t, grad_h, grad_r = torch.zeros_like(z), torch.zeros_like(z), torch.zeros_like(relations)
    for i in range(0, triples.shape[1], BLOCK):
        h, r, t = triples[:, i:i + BLOCK]
        zh, wr, zt = z.index_select(0, h), relations.index_select(0, r), z.index_select(0, t)
        ge = g[i:i + BLOCK, None].expand(-1, z.shape[1])
        grad_hr = ge * zt  # MulBackward of (hr * zt): grad * other, grad * self
        grad_t.index_add_(0, t, ge * (zh * wr))
        grad_h.index_add_(0, h, grad_hr * wr)  # MulBackward of (zh * wr)
        grad_r.index_add_(0, r, grad_hr * zh)
    return grad_t, grad_h, grad_r


class DistMultTrainScores(torch.autograd.Function):
    """``cat([score(z, pos), score(z, neg)])`` of :class:`.adapters.DistMultLink`, and its gradients,
    blockwise (module docstring)."""

    @staticmethod
    def forward(ctx, z: Tensor, relations: Tensor, pos: Tensor, neg: Tensor) -> Tensor:
        ctx.save_for_backward(z, relations, pos, neg)
        out = z.new_empty(pos.shape[1] + neg.shape[1])
        _scores(z, relations, pos, out[:pos.shape[1]])
        _scores(z, relations, neg, out[pos.shape[1]:])
        return out

    @staticmethod
    def backward(ctx, grad: Tensor):
        z, relations, pos, neg = ctx.saved_tensors
        grad = grad.contiguous()
        m = pos.shape[1]
        neg_t, neg_h, neg_r = _gradients(z, relations, neg, grad[m:])
        pos_t, pos_h, pos_r = _gradients(z, relations, pos, grad[:m])
        grad_z = ((neg_t + neg_h) + pos_t) + pos_h if ctx.needs_input_grad[0] else None
        grad_rel = neg_r + pos_r if ctx.needs_input_grad[1] else None
        return grad_z, grad_rel, None, None


def train_scores(z: Tensor, relations: Tensor, pos: Tensor, neg: Tensor) -> Tensor:
    """Scores [m_pos + m_neg] of the triples ``pos`` then ``neg`` ([3, m] each: head, relation, tail)."""
    return DistMultTrainScores.apply(z, relations, pos, neg)
