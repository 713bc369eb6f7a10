r"""Deep Graph Infomax (Veličković et al. 2019) around any node-level encoder.

A self-supervised objective, *not* a benchmark task: its loss is its own
metric with no held-out signal, so DGI never enters the report. Use it to
pre-train representations.

With embeddings :math:`H = f(X, A)`, a corrupted graph :math:`\tilde H = f(PX, A)`
(rows of :math:`X` shuffled by a permutation :math:`P`), the summary
:math:`s = \sigma(\frac{1}{n}\sum_i h_i)` and the bilinear discriminator
:math:`D(h, s) = \sigma(h^\top W s)`, DGI minimises

.. math::
    \mathcal{L} = -\frac{1}{2n}\sum_i \big[\log D(h_i, s) + \log(1 - D(\tilde h_i, s))\big].
"""

from __future__ import annotations

import torch
from torch import nn

from .adapters import encode


class DGIWrapper(nn.Module):
    """Wraps an encoder producing ``hidden_channels``-dimensional node embeddings."""

    def __init__(self, encoder: nn.Module, hidden_channels: int):
        super().__init__()
        self.encoder = encoder
        self.weight = nn.Parameter(torch.empty(hidden_channels, hidden_channels))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if hasattr(self.encoder, "reset_parameters"):
            self.encoder.reset_parameters()
        nn.init.xavier_uniform_(self.weight)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, generator: torch.Generator | None = None):
        """Return (positive embeddings, corrupted embeddings, summary)."""
        pos = encode(self.encoder, x, edge_index)
        perm = torch.randperm(x.shape[0], generator=generator)
        neg = encode(self.encoder, x[perm], edge_index)
        summary = torch.sigmoid(pos.mean(0))
        return pos, neg, summary

    def discriminate(self, h: torch.Tensor, summary: torch.Tensor) -> torch.Tensor:
        return h @ (self.weight @ summary)

    def loss(self, pos: torch.Tensor, neg: torch.Tensor, summary: torch.Tensor) -> torch.Tensor:
        lp, ln = self.discriminate(pos, summary), self.discriminate(neg, summary)
        bce = nn.functional.binary_cross_entropy_with_logits
        return 0.5 * (bce(lp, torch.ones_like(lp)) + bce(ln, torch.zeros_like(ln)))

    @torch.inference_mode()
    def embed(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        """Node representations (the encoder's output, eval mode)."""
        was = self.training
        self.eval()
        out = encode(self.encoder, x, edge_index)
        self.train(was)
        return out
