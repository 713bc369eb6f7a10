"""Models: the five GraphNetz architectures, the baselines, task adapters and the registry.

The registry is importable without torch; the model classes are loaded on
first access (``from netzbench.models import GCN``).
"""

from .registry import MODEL_REGISTRY, ModelError, ModelSpec, register_model, resolve_model, unregister_model
from .roster import ALL_FAMILIES, BUILTIN_MODELS, GRAPH_FAMILIES

_LAZY = {
    "GCN": "encoders", "GAT": "encoders", "GraphSAGE": "encoders", "GraphTransformer": "encoders",
    "MLP": "encoders", "CommonNeighbors": "heuristics", "AdamicAdar": "heuristics",
    "ResourceAllocation": "heuristics", "PreferentialAttachment": "heuristics",
    "GIN": "gin", "GraphHead": "adapters", "DotProductLink": "adapters", "NodeModel": "adapters",
    "multi_task_factory": "adapters", "wrap_encoder": "adapters", "encode": "adapters",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(name)


__all__ = ["MODEL_REGISTRY", "ModelError", "ModelSpec", "register_model", "resolve_model", "unregister_model",
           "ALL_FAMILIES", "BUILTIN_MODELS", "GRAPH_FAMILIES", *_LAZY]
