r"""Task adapters: how one node-level encoder serves all four families.

- node classification: the encoder's node outputs are the class logits;
- graph classification / regression: :class:`GraphHead`, mean pooling
  :math:`h_G = \frac{1}{|V_G|}\sum_{i\in G} h_i` then a linear layer;
- link prediction: :class:`DotProductLink`, score
  :math:`s_{ij} = \langle z_i, z_j\rangle` on encoder embeddings.

Encoders may take ``(x, edge_index)`` (PyG convention) or a single ``data``
object (the paper's examples); :func:`encode` calls either.
"""

from __future__ import annotations

import inspect
from typing import Callable

import torch
from torch import nn
from torch_geometric.data import Data
from torch_geometric.nn import global_mean_pool


def _takes_data(module: nn.Module) -> bool:
    params = [p for p in inspect.signature(module.forward).parameters.values() if p.name != "self"]
    return len(params) >= 1 and params[0].name == "data"


def encode(module: nn.Module, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor | None = None):
    """Call ``module`` with ``(x, edge_index[, batch])`` or with a ``Data`` object."""
    if _takes_data(module):
        data = Data(x=x, edge_index=edge_index)
        if batch is not None:
            data.batch = batch
        return module(data)
    if batch is not None:
        return module(x, edge_index, batch)
    return module(x, edge_index)


def _reset(module: nn.Module) -> None:
    for child in module.children():
        if hasattr(child, "reset_parameters"):
            child.reset_parameters()


class NodeModel(nn.Module):
    """Node classification: the encoder itself, called through :func:`encode`."""

    def __init__(self, encoder: nn.Module):
        super().__init__()
        self.encoder = encoder

    def reset_parameters(self) -> None:
        _reset(self)

    def forward(self, x, edge_index):
        return encode(self.encoder, x, edge_index)


class GraphHead(nn.Module):
    """Graph-level adapter: encoder -> mean pool -> linear."""

    def __init__(self, encoder: nn.Module, hidden_channels: int, out_channels: int):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(hidden_channels, out_channels)

    def reset_parameters(self) -> None:
        _reset(self)

    def forward(self, x, edge_index, batch):
        h = encode(self.encoder, x, edge_index)
        return self.head(global_mean_pool(h, batch))


class NativeGraphModel(nn.Module):
    """A model that pools internally (e.g. GIN): called with ``batch``."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def reset_parameters(self) -> None:
        _reset(self)

    def forward(self, x, edge_index, batch):
        return encode(self.model, x, edge_index, batch)


class DotProductLink(nn.Module):
    """Link-prediction adapter: embeddings from the encoder, inner-product scores."""

    def __init__(self, encoder: nn.Module):
        super().__init__()
        self.encoder = encoder

    def reset_parameters(self) -> None:
        _reset(self)

    def forward(self, x, edge_index):
        return encode(self.encoder, x, edge_index)

    @staticmethod
    def score(z: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
        return (z.index_select(0, pairs[0]) * z.index_select(0, pairs[1])).sum(-1)


class DistMultLink(nn.Module):
    r"""Relational link-prediction adapter (Yang et al. 2015, DistMult).

    A triple :math:`(h, r, t)` scores :math:`\sum_d z_{h,d}\, w_{r,d}\, z_{t,d}` with
    node embeddings :math:`z` from the encoder and one diagonal relation
    matrix :math:`\mathrm{diag}(w_r)` per relation, initialised Xavier-uniform
    or (``init="normal"``) :math:`N(0, 1)` as an embedding table would be.
    """

    INITS = ("xavier", "normal")

    def __init__(self, encoder: nn.Module, num_relations: int, hidden_channels: int, init: str = "xavier"):
        super().__init__()
        if init not in self.INITS:
            raise ValueError(f"DistMult init must be one of {list(self.INITS)}, got {init!r}")
        self.encoder = encoder
        self.init = init
        self.relations = nn.Parameter(torch.empty(num_relations, hidden_channels))
        self._init_relations()

    def _init_relations(self) -> None:
        if self.init == "normal":
            nn.init.normal_(self.relations)
        else:
            nn.init.xavier_uniform_(self.relations)

    def reset_parameters(self) -> None:
        _reset(self)
        self._init_relations()

    def forward(self, x, edge_index):
        return encode(self.encoder, x, edge_index)

    def head_relation(self, z: torch.Tensor, triples: torch.Tensor) -> torch.Tensor:
        r""":math:`z_h \odot w_r` per triple ([m, d]): the part of a score that does not depend on the tail."""
        return z.index_select(0, triples[0]) * self.relations.index_select(0, triples[1])

    def score(self, z: torch.Tensor, triples: torch.Tensor) -> torch.Tensor:
        """Scores of triples given as a [3, m] tensor (head, relation, tail)."""
        return (self.head_relation(z, triples) * z.index_select(0, triples[2])).sum(-1)

    def score_tails(self, z: torch.Tensor, triples: torch.Tensor, tails: torch.Tensor, chunk: int = 2048):
        """Scores [m, k] of each triple's head and relation with ``k`` candidate tails ``tails`` [m, k]."""
        hr = self.head_relation(z, triples)
        out = [torch.einsum("mh,mkh->mk", hr[i:i + chunk], z[tails[i:i + chunk]])
               for i in range(0, hr.shape[0], chunk)]
        return torch.cat(out) if out else hr.new_zeros((0, tails.shape[1]))


def wrap_encoder(encoder_factory: Callable[[int, int, int], nn.Module], task_type: str,
                 in_channels: int, hidden_channels: int, out_channels: int,
                 num_relations: int | None = None, relation_init: str = "xavier") -> nn.Module:
    """Build the adapter for ``task_type`` around a node-level encoder
    (DistMult instead of the dot product when ``num_relations`` is given)."""
    if task_type == "node_cls":
        return NodeModel(encoder_factory(in_channels, hidden_channels, out_channels))
    if task_type in ("graph_cls", "graph_reg"):
        return GraphHead(encoder_factory(in_channels, hidden_channels, hidden_channels), hidden_channels, out_channels)
    if task_type == "link_pred":
        encoder = encoder_factory(in_channels, hidden_channels, hidden_channels)
        if num_relations:
            return DistMultLink(encoder, num_relations, hidden_channels, init=relation_init)
        return DotProductLink(encoder)
    raise ValueError(f"unknown task type {task_type!r}")


def multi_task_factory(cls: type, **kwargs) -> Callable:
    """A factory ``(in, hidden, out, task_type)`` serving all four families with ``cls`` as encoder."""

    def factory(in_channels: int, hidden_channels: int, out_channels: int, task_type: str = "node_cls",
                num_relations: int | None = None, relation_init: str = "xavier"):
        return wrap_encoder(lambda i, h, o: cls(i, h, o, **kwargs), task_type, in_channels, hidden_channels,
                            out_channels, num_relations, relation_init)

    return factory
