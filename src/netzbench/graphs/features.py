r"""Structural node features for graphs that come without any.

One definition for every use (training on featureless graphs, datasets
whose source has no node features): per node :math:`v`,
:math:`[1, \log(1 + \deg v)]`, degrees counted over the given edge list (each
listed direction counts once, so pass each undirected edge once per
direction it should count).
"""

from __future__ import annotations

import numpy as np


def structural_features(num_nodes: int, edge_index: np.ndarray) -> np.ndarray:
    """``[1, log(1 + degree)]`` per node, float32 ``[num_nodes, 2]``."""
    deg = np.bincount(np.asarray(edge_index, dtype=np.int64).reshape(-1), minlength=num_nodes).astype(np.float32)
    return np.stack([np.ones(num_nodes, dtype=np.float32), np.log1p(deg)], axis=1)
