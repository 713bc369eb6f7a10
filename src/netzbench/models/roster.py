"""Which built-in model serves which task family, known without importing torch.

The CLI uses this table to decide an incompatible (task, model) cell in well
under a second; :mod:`netzbench.models.registry` checks it against the
classes' own ``task_types``.
"""

from __future__ import annotations

from ..families import TASK_TYPES

ALL_FAMILIES = TASK_TYPES
GRAPH_FAMILIES = frozenset({"graph_cls", "graph_reg"})

#: name -> (module:class, families it serves)
BUILTIN_MODELS: dict[str, tuple[str, frozenset[str]]] = {
    "GCN": ("netzbench.models.encoders:GCN", ALL_FAMILIES),
    "GAT": ("netzbench.models.encoders:GAT", ALL_FAMILIES),
    "GraphSAGE": ("netzbench.models.encoders:GraphSAGE", ALL_FAMILIES),
    "GraphTransformer": ("netzbench.models.encoders:GraphTransformer", ALL_FAMILIES),
    "GIN": ("netzbench.models.gin:GIN", GRAPH_FAMILIES),
}
