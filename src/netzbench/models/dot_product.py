r"""Dot-product training scores in blocks that stay in cache, bit for bit the unfused autograd graph.

A link-prediction step scores every training edge and one negative pair per edge (Internet AS:
2 x 41k pairs), :math:`s = \sum_d z_{u,d}\, z_{v,d}`. As tensor ops
(:meth:`.adapters.DotProductLink.score`) that is two gathers, a product and a sum over [m, d]
tensors, each a fresh array written and read again, and as many in the backward pass.

:class:`DotTrainScores` takes the same values in blocks of :data:`BLOCK` pairs and keeps no
[m, d] tensor for the backward pass, which gathers each block again. Every product has the same
operands as in the unfused graph, each score is the same one-row sum, and each gradient is
accumulated in the same order (index_add in index order, block after block):

.. math::
    \partial z = G_v + G_u, \qquad G_u = \mathrm{index\_add}(u, g\, z_v), \quad
    G_v = \mathrm{index\_add}(v, g\, z_u).

``tests/test_dot_product.py`` compares scores, gradients and whole histories with the unfused graph.
"""

from __future__ import annotations

import torch
from torch import Tensor

#: pairs per block: a block's [BLOCK, d] temporaries (d = 64: 256 KB each) stay in a core's cache
BLOCK = 1024


class DotTrainScores(torch.autograd.Function):
    """``DotProductLink.score(z, pairs)`` and its gradient, blockwise (module docstring)."""

    @staticmethod
    def forward(ctx, z: Tensor, pairs: Tensor) -> Tensor:
        ctx.save_for_backward(z, pairs)
        out = z.new_empty(pairs.shape[1])
        for i in range(0, pairs.shape[1], BLOCK):
            u, v = pairs[:, i:i + BLOCK]
            torch.sum(z.index_select(0, u) * z.index_select(0, v), -1, out=out[i:i + BLOCK])
        return out

    @staticmethod
    def backward(ctx, grad: Tensor):
        z, pairs = ctx.saved_tensors
        grad = grad.contiguous()
        grad_u, grad_v = torch.zeros_like(z), torch.zeros_like(z)
        for i in range(0, pairs.shape[1], BLOCK):
            u, v = pairs[:, i:i + BLOCK]
            ge = grad[i:i + BLOCK, None].expand(-1, z.shape[1])  # SumBackward: the score's gradient per column
            grad_u.index_add_(0, u, ge * z.index_select(0, v))  # MulBackward: grad * other, grad * self
            grad_v.index_add_(0, v, ge * z.index_select(0, u))
        return grad_v + grad_u, None


def train_scores(z: Tensor, pairs: Tensor) -> Tensor:
    """Scores [m] of the node pairs ``pairs`` ([2, m]) with gradients to ``z``: blockwise on the CPU,
    the adapter's tensor ops elsewhere (a GPU runs the whole product at once)."""
    if z.device.type != "cpu":
        return (z.index_select(0, pairs[0]) * z.index_select(0, pairs[1])).sum(-1)
    return DotTrainScores.apply(z, pairs)
