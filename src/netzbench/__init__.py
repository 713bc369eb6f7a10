"""netzbench: a DVC-tracked, statistically honest benchmark of graph neural networks.

The heavy modules (torch, PyG) are imported lazily so that the CLI can decide
cheap things (an incompatible cell, a bad ``params.yaml``) without paying for
``import torch``.
"""

import logging

from .families import TASK_TYPES

__version__ = "0.1.0"

# a library prints nothing unless its program asks (netzbench.console: the command line, run_benchmark)
logging.getLogger(__name__).addHandler(logging.NullHandler())

_LAZY = {
    "run_benchmark": "api", "Task": "api", "task_from_dataset": "api", "register_task": "api",
    "unregister_task": "api", "iter_benchmark_tasks": "api", "BENCHMARK_TASKS": "api",
    "BenchmarkReport": "report", "register_model": "models.registry", "unregister_model": "models.registry",
    "multi_task_factory": "models.adapters", "GCN": "models.encoders", "GAT": "models.encoders",
    "GraphSAGE": "models.encoders", "GraphTransformer": "models.encoders", "GIN": "models.gin",
    "train_dgi": "training.dgi", "DGIWrapper": "models.dgi",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'netzbench' has no attribute {name!r}")


__all__ = ["__version__", "TASK_TYPES", *_LAZY]
