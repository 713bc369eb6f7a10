"""netzbench: a DVC-tracked, statistically honest benchmark of graph neural networks.

The heavy modules (torch, PyG) are imported lazily so that the CLI can decide
cheap things (an incompatible cell, a bad ``params.yaml``) without paying for
``import torch``.
"""

__version__ = "0.1.0"

TASK_TYPES = frozenset({"node_cls", "graph_cls", "graph_reg", "link_pred"})

__all__ = ["__version__", "TASK_TYPES"]
