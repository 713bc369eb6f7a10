r"""GIN (Xu et al. 2019): a graph-level model with sum pooling.

:math:`h_i^{(l+1)} = \mathrm{MLP}^{(l)}\big((1+\epsilon^{(l)}) h_i^{(l)} + \sum_{j\in N(i)} h_j^{(l)}\big)`,
three layers with trainable :math:`\epsilon`, each MLP ``Linear -> BatchNorm -> ReLU -> Linear -> ReLU``
(the reference configuration), then :math:`h_G = \sum_i h_i^{(L)}` and a linear classifier. GIN pools
internally, so it serves only the graph-level families.
"""

from __future__ import annotations

import torch
from torch import nn
from torch_geometric.nn import GINConv, global_add_pool

from .roster import GRAPH_FAMILIES


def _mlp(i: int, h: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(i, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Linear(h, h), nn.ReLU())


class GIN(nn.Module):
    task_types = GRAPH_FAMILIES
    graph_level = True

    def __init__(self, in_channels: int, hidden_channels: int, out_channels: int, num_layers: int = 3):
        super().__init__()
        self.convs = nn.ModuleList(
            GINConv(_mlp(in_channels if i == 0 else hidden_channels, hidden_channels), train_eps=True)
            for i in range(num_layers)
        )
        self.classifier = nn.Linear(hidden_channels, out_channels)

    def reset_parameters(self) -> None:
        for conv in self.convs:
            conv.reset_parameters()
        self.classifier.reset_parameters()

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
        for conv in self.convs:
            x = conv(x, edge_index)
        return self.classifier(global_add_pool(x, batch))
