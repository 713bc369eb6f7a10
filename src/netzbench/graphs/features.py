r"""Structural node features for graphs that come without any.

One home for every formula (training on featureless graphs, datasets whose
source has no node features). Degrees count the given endpoint list: pass
``edge_index.reshape(-1)`` for an undirected edge list stored once per pair
(each endpoint counts once), or only the heads of directed triples for
out-degrees.

- :func:`structural_features`: :math:`[1, \log(1 + d_v)]` (this benchmark's);
- :func:`log_degree_features`: :math:`[\ell_v, \ell_v^2, 1]` with
  :math:`\ell_v = \log(1 + d_v) / \log \max(n, 2)` (the reference
  implementation's, for large or relational graphs);
- :func:`identity_features`: one-hot node identities (the reference
  implementation's for networks of at most :data:`IDENTITY_LIMIT` nodes).
"""

from __future__ import annotations

import math

import numpy as np

#: the reference implementation gives networks up to this many nodes one-hot identities
IDENTITY_LIMIT = 8192


def degree_counts(num_nodes: int, endpoints: np.ndarray) -> np.ndarray:
    """How often each node occurs in ``endpoints`` (float32 ``[num_nodes]``)."""
    return np.bincount(np.asarray(endpoints, dtype=np.int64).reshape(-1), minlength=num_nodes).astype(np.float32)


def structural_features(num_nodes: int, edge_index: np.ndarray) -> np.ndarray:
    """``[1, log(1 + degree)]`` per node, float32 ``[num_nodes, 2]``."""
    deg = degree_counts(num_nodes, edge_index)
    return np.stack([np.ones(num_nodes, dtype=np.float32), np.log1p(deg)], axis=1)


def log_degree_features(num_nodes: int, endpoints: np.ndarray) -> np.ndarray:
    """``[l, l**2, 1]`` with ``l = log1p(degree) / log(max(n, 2))``, float32 ``[num_nodes, 3]``."""
    log_deg = np.log1p(degree_counts(num_nodes, endpoints)) / np.float32(math.log(max(num_nodes, 2)))
    return np.stack([log_deg, log_deg ** 2, np.ones(num_nodes, dtype=np.float32)], axis=1).astype(np.float32)


def identity_features(num_nodes: int) -> np.ndarray:
    """One-hot node identities, float32 ``[num_nodes, num_nodes]``."""
    return np.eye(num_nodes, dtype=np.float32)
