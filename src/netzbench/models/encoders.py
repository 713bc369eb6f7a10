r"""The four node-level encoders of the GraphNetz protocol (reference configurations), and the MLP baseline.

Each maps node features :math:`X \in \mathbb{R}^{n \times d}` and an edge
index to node outputs :math:`\mathbb{R}^{n \times c}` with two message-passing
layers. Used directly for node classification; wrapped by the adapters in
:mod:`netzbench.models.adapters` for graph-level and link-level families.
Every keyword can be overridden (``model_args``), the defaults reproduce the
paper's Table 3.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.nn import GCNConv, Linear, SAGEConv

from .dropout import dropout
from .fused import FusedGATConv, FusedTransformerConv

from .roster import ALL_FAMILIES


def input_dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    """Dropout on the input features, also for a sparse CSR ``x`` (bag-of-words features).

    Zeros stay zero either way, so dropping only the stored values has the
    same distribution as dense dropout (survivors scaled by 1 / (1 - p)).
    """
    if x.layout != torch.sparse_csr:
        return dropout(x, p, training)
    if not training or p == 0.0:
        return x
    return torch.sparse_csr_tensor(x.crow_indices(), x.col_indices(), dropout(x.values(), p, True), x.shape)


class TwoLayers:
    """Two message-passing layers, ``conv1`` then ``conv2``, with ``hidden_activation`` between
    (dropout aside): offered to exact layer-wise inference (:mod:`netzbench.training.layerwise`)."""

    hidden_activation = staticmethod(F.relu)

    def inference_layers(self) -> list:
        """The message-passing layers in order, each with the activation after it."""
        return [(self.conv1, self.hidden_activation), (self.conv2, None)]


class GCN(TwoLayers, nn.Module):
    r"""Kipf & Welling (2017): :math:`H' = \hat D^{-1/2}\hat A\hat D^{-1/2} H W`, twice, ReLU between.

    Reference configuration: two layers, no dropout.
    """

    task_types = ALL_FAMILIES
    node_encoder = True
    sparse_input = True  # first op is a linear map: a sparse CSR x is used as is
    sparse_adjacency = True  # normalised propagation as a CSR spmm

    def __init__(self, in_channels: int, hidden_channels: int, out_channels: int, dropout: float = 0.0):
        super().__init__()
        self.dropout = dropout
        self.conv1 = GCNConv(in_channels, hidden_channels)
        self.conv2 = GCNConv(hidden_channels, out_channels)

    def reset_parameters(self) -> None:
        self.conv1.reset_parameters()
        self.conv2.reset_parameters()

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        x = input_dropout(x, self.dropout, self.training)
        x = F.relu(self.conv1(x, edge_index))
        x = dropout(x, self.dropout, self.training)
        return self.conv2(x, edge_index)


class GAT(TwoLayers, nn.Module):
    r"""Veličković et al. (2018): attention-weighted neighbourhood averages.

    :math:`h_i' = \Vert_{k=1}^{K} \sigma(\sum_j \alpha^k_{ij} W^k h_j)` with
    :math:`\alpha_{ij} = \mathrm{softmax}_j(\mathrm{LeakyReLU}(a^\top[Wh_i \Vert Wh_j]))`.
    Reference configuration: first layer ``heads`` (8) heads of ``hidden``
    channels, concatenated, ELU; second layer one head; dropout 0.6 on inputs,
    hidden features and attention coefficients.
    """

    task_types = ALL_FAMILIES
    node_encoder = True
    sparse_input = True  # first op is a linear map: a sparse CSR x is used as is
    sparse_adjacency = True  # attention sums as per-head spmm on a CSR adjacency (models/fused.py)
    parallel_edges = True  # ... also on a multigraph's, one stored entry per parallel edge
    hidden_activation = staticmethod(F.elu)

    def __init__(self, in_channels: int, hidden_channels: int, out_channels: int,
                 heads: int = 8, dropout: float = 0.6):
        super().__init__()
        self.dropout = dropout
        self.conv1 = FusedGATConv(in_channels, hidden_channels, heads=heads, dropout=dropout)
        self.conv2 = FusedGATConv(hidden_channels * heads, out_channels, heads=1, concat=False, dropout=dropout)

    def reset_parameters(self) -> None:
        self.conv1.reset_parameters()
        self.conv2.reset_parameters()

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        x = input_dropout(x, self.dropout, self.training)
        x = F.elu(self.conv1(x, edge_index))
        x = dropout(x, self.dropout, self.training)
        return self.conv2(x, edge_index)


class InputAggregatingSAGEConv(SAGEConv):
    r""":class:`~torch_geometric.nn.SAGEConv` that keeps the neighbourhood aggregation of an input without
    gradients: a first layer aggregates the same features :math:`\mathrm{mean}_{j\in N(i)} x_j` in every
    forward pass, training and evaluation (CiteSeer: a sparse product over 3,703 feature columns), the
    same bits each time. Kept while the input and the adjacency are the same objects and the input is
    unmodified (its version counter); made outside inference mode only, so that training may use it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._kept: tuple | None = None  # (input, its version, adjacency, aggregation)

    def message_and_aggregate(self, adj_t, x):
        src = x[0]
        if src.requires_grad:
            return super().message_and_aggregate(adj_t, x)
        kept = self._kept
        if kept is not None and kept[0] is src and kept[1] == src._version and kept[2] is adj_t:
            return kept[3]
        out = super().message_and_aggregate(adj_t, x)
        if not torch.is_inference_mode_enabled() and not src.is_inference():
            self._kept = (src, src._version, adj_t, out)
        return out


class GraphSAGE(TwoLayers, nn.Module):
    r"""Hamilton et al. (2017): :math:`h_i' = W_1 h_i + W_2\,\mathrm{mean}_{j\in N(i)} h_j`.

    Reference configuration: two layers, mean aggregation, ReLU, dropout 0.5.
    """

    task_types = ALL_FAMILIES
    node_encoder = True
    sparse_adjacency = True  # mean aggregation as a CSR spmm: same result, no gathered copy of x

    def __init__(self, in_channels: int, hidden_channels: int, out_channels: int,
                 dropout: float = 0.5, aggr: str = "mean"):
        super().__init__()
        self.dropout = dropout
        self.conv1 = InputAggregatingSAGEConv(in_channels, hidden_channels, aggr=aggr)
        self.conv2 = SAGEConv(hidden_channels, out_channels, aggr=aggr)

    def reset_parameters(self) -> None:
        self.conv1.reset_parameters()
        self.conv2.reset_parameters()

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.conv1(x, edge_index))
        x = dropout(x, self.dropout, self.training)
        return self.conv2(x, edge_index)


class GraphTransformer(TwoLayers, nn.Module):
    r"""Shi et al. (2021), TransformerConv: scaled dot-product attention over neighbours.

    :math:`h_i' = W_s h_i + \sum_j \mathrm{softmax}_j\big((W_q h_i)^\top (W_k h_j)/\sqrt{c}\big) W_v h_j`.
    Reference configuration: first layer ``heads`` (4) heads of ``hidden``
    channels, concatenated, ReLU; second layer one head; dropout 0.1.
    """

    task_types = ALL_FAMILIES
    node_encoder = True
    sparse_input = True  # first op is a linear map: a sparse CSR x is used as is
    sparse_adjacency = True  # attention sums as per-head spmm on a CSR adjacency (models/fused.py)
    parallel_edges = True  # ... also on a multigraph's, one stored entry per parallel edge

    def __init__(self, in_channels: int, hidden_channels: int, out_channels: int,
                 heads: int = 4, dropout: float = 0.1):
        super().__init__()
        self.dropout = dropout
        self.conv1 = FusedTransformerConv(in_channels, hidden_channels, heads=heads, dropout=dropout)
        self.conv2 = FusedTransformerConv(hidden_channels * heads, out_channels, heads=1, concat=False, dropout=dropout)

    def reset_parameters(self) -> None:
        self.conv1.reset_parameters()
        self.conv2.reset_parameters()

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.conv1(x, edge_index))
        x = dropout(x, self.dropout, self.training)
        return self.conv2(x, edge_index)


class MLP(nn.Module):
    r"""A structure-free baseline: :math:`H' = \mathrm{ReLU}(X W_1 + b_1) W_2 + b_2`.

    GCN with the propagation :math:`\hat D^{-1/2}\hat A\hat D^{-1/2}` replaced by the identity: two
    layers, ReLU between, Glorot weights and zero biases as GCNConv's, no dropout. The edge index is
    accepted and ignored, so every node is classified from its own features; through the adapters it
    serves graph-level tasks (mean pool + linear) and link prediction (dot product of embeddings).
    When a GNN does not beat it, the task does not reward the graph structure (on a featureless graph
    the inputs are the structural features every model gets, so only the message passing is missing).
    """

    task_types = ALL_FAMILIES
    node_encoder = True
    sparse_input = True  # first op is a linear map: a sparse CSR x is used as is
    baseline = "structure_free"

    def __init__(self, in_channels: int, hidden_channels: int, out_channels: int, dropout: float = 0.0):
        super().__init__()
        self.dropout = dropout
        self.lin1 = Linear(in_channels, hidden_channels, weight_initializer="glorot", bias_initializer="zeros")
        self.lin2 = Linear(hidden_channels, out_channels, weight_initializer="glorot", bias_initializer="zeros")

    def reset_parameters(self) -> None:
        self.lin1.reset_parameters()
        self.lin2.reset_parameters()

    def forward(self, x: torch.Tensor, edge_index=None) -> torch.Tensor:
        x = input_dropout(x, self.dropout, self.training)
        x = F.relu(self.lin1(x))
        x = dropout(x, self.dropout, self.training)
        return self.lin2(x)
