"""An example user model: a two-layer GCN with a residual linear path.

Benchmark it against the roster with::

    dvc exp run -S model=user_models.example:MyGNN

A class that declares no ``task_types`` is treated as a node-level encoder
``cls(in_channels, hidden_channels, out_channels)`` returning per-node outputs;
netzbench adds the graph-level and link-prediction adapters itself.
"""

import torch
from torch import nn
from torch_geometric.nn import GCNConv


class MyGNN(nn.Module):
    def __init__(self, in_channels: int, hidden_channels: int, out_channels: int, dropout: float = 0.5):
        super().__init__()
        self.dropout = dropout
        self.conv1 = GCNConv(in_channels, hidden_channels)
        self.conv2 = GCNConv(hidden_channels, out_channels)
        self.skip = nn.Linear(in_channels, out_channels)

    def reset_parameters(self) -> None:
        self.conv1.reset_parameters()
        self.conv2.reset_parameters()
        self.skip.reset_parameters()

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.conv1(x, edge_index))
        h = nn.functional.dropout(h, self.dropout, self.training)
        return self.conv2(h, edge_index) + self.skip(x)
