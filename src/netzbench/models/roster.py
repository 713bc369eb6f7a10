"""Which built-in model serves which task family, known without importing torch.

The CLI uses this table to decide an incompatible (task, model) cell in well
under a second; :mod:`netzbench.models.registry` checks it against the
classes' own ``task_types``.
"""

from __future__ import annotations

from ..families import TASK_TYPES

ALL_FAMILIES = TASK_TYPES
GRAPH_FAMILIES = frozenset({"graph_cls", "graph_reg"})
LINK_FAMILIES = frozenset({"link_pred"})

#: name -> (module:class, families it serves)
BUILTIN_MODELS: dict[str, tuple[str, frozenset[str]]] = {
    "GCN": ("netzbench.models.encoders:GCN", ALL_FAMILIES),
    "GAT": ("netzbench.models.encoders:GAT", ALL_FAMILIES),
    "GraphSAGE": ("netzbench.models.encoders:GraphSAGE", ALL_FAMILIES),
    "GraphTransformer": ("netzbench.models.encoders:GraphTransformer", ALL_FAMILIES),
    "GIN": ("netzbench.models.gin:GIN", GRAPH_FAMILIES),
    # knowledge-graph embeddings: a learnt vector per entity and per relation, no message passing
    "DistMult": ("netzbench.models.kge:DistMult", LINK_FAMILIES),
    # baselines: a structure-free encoder and link-prediction heuristics without training
    "MLP": ("netzbench.models.encoders:MLP", ALL_FAMILIES),
    "CommonNeighbors": ("netzbench.models.heuristics:CommonNeighbors", LINK_FAMILIES),
    "AdamicAdar": ("netzbench.models.heuristics:AdamicAdar", LINK_FAMILIES),
    "ResourceAllocation": ("netzbench.models.heuristics:ResourceAllocation", LINK_FAMILIES),
    "PreferentialAttachment": ("netzbench.models.heuristics:PreferentialAttachment", LINK_FAMILIES),
}

#: baseline kinds (the classes' ``baseline`` attribute), known without importing torch: a baseline is a
#: reference point the report keeps apart from the models under test (``report.baselines``).
#: ``structure_free``: ignores the edges; ``heuristic``: scores pairs from the training graph, no training.
BUILTIN_BASELINES: dict[str, str] = {
    "MLP": "structure_free",
    "CommonNeighbors": "heuristic",
    "AdamicAdar": "heuristic",
    "ResourceAllocation": "heuristic",
    "PreferentialAttachment": "heuristic",
}
