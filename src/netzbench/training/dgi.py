"""``train_dgi``: self-supervised pre-training with Deep Graph Infomax.

Excluded from the benchmark report on purpose (its loss is not a held-out
metric); returns the trained wrapper, whose ``embed`` gives representations.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..models.dgi import DGIWrapper
from .fit import adam
from .seed import set_seed


@dataclass
class DGIResult:
    model: DGIWrapper
    losses: list[float]

    def embed(self, x, edge_index):
        return self.model.embed(x, edge_index)


def train_dgi(encoder_cls, x: torch.Tensor, edge_index: torch.Tensor, *, hidden_channels: int = 64,
              epochs: int = 100, lr: float = 1e-3, weight_decay: float = 0.0, seed: int = 0,
              **encoder_kwargs) -> DGIResult:
    """Train ``encoder_cls(in, hidden, hidden, **encoder_kwargs)`` with DGI, full batch, seeded."""
    set_seed(seed)
    encoder = encoder_cls(x.shape[1], hidden_channels, hidden_channels, **encoder_kwargs)
    model = DGIWrapper(encoder, hidden_channels)
    opt = adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    gen = torch.Generator().manual_seed(seed)
    losses = []
    for _ in range(epochs):
        model.train()
        opt.zero_grad(set_to_none=True)
        loss = model.loss(*model(x, edge_index, generator=gen))
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
    return DGIResult(model, losses)
