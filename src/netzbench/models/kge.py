r"""DistMult as a model of its own (Yang et al. 2015): knowledge-graph embeddings without message passing.

A triple :math:`(h, r, t)` scores :math:`s = \sum_d e_{h,d}\, w_{r,d}\, e_{t,d}`, with one learnt
vector :math:`e_v` per entity and one :math:`w_r` per relation. The relation vectors are the
DistMult decoder every encoder gets on a relational task (:class:`.adapters.DistMultLink`); what
this model adds is the entity side: it asks the trainer for a learnt input row per entity
(``entity_inputs``, whatever the protocol's ``relational_inputs`` says, as knowledge-graph models
have; initialised small, ``entity_init_std``) and passes it through unchanged: no message passing, the edges are ignored.

Why it is there: with fixed structural inputs (``relational_inputs: features``) a GNN sees
entities of equal degree as the same, and on a small dense knowledge graph (Nations: 14
entities, every one of a similar degree) its scores are no better than chance; DistMult learns
each entity's vector from the triples it is in. A user's own knowledge graph gets it beside the
roster (``custom_tasks`` of format ``triples``/``openke``).

Given node features (a knowledge graph with ``x``, or homogeneous link prediction) the input is
mapped to the embedding width by one linear layer (no bias, Glorot), so the model is a
structure-free factorisation of its inputs there.
"""

from __future__ import annotations

import torch
from torch import nn
from torch_geometric.nn import Linear

from .roster import LINK_FAMILIES


class DistMult(nn.Module):
    """Entity embeddings passed through as they are (module docstring); the relational trainer gives
    a learnt embedding per entity as ``x`` (``entity_inputs``) and adds the DistMult decoder."""

    task_types = LINK_FAMILIES
    node_encoder = True
    #: the relational trainer's input is a learnt embedding per entity (hidden_channels wide), not features
    entity_inputs = True
    #: ... initialised N(0, 0.1^2), not an embedding table's N(0, 1): on a small graph, unit-variance 64-d
    #: vectors are near orthogonal and the relation vectors memorise the training triples through them
    #: (Nations-like fixture, tests/kg_fixture.py: test AUC 0.53 with N(0, 1), 0.60 with N(0, 0.01))
    entity_init_std = 0.1

    def __init__(self, in_channels: int, hidden_channels: int, out_channels: int):
        super().__init__()
        self.lin = (None if in_channels == out_channels else
                    Linear(in_channels, out_channels, bias=False, weight_initializer="glorot"))

    def reset_parameters(self) -> None:
        if self.lin is not None:
            self.lin.reset_parameters()

    def forward(self, x: torch.Tensor, edge_index=None) -> torch.Tensor:
        return x if self.lin is None else self.lin(x)
