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
  implementation's for networks of at most :data:`IDENTITY_LIMIT` nodes);
- :func:`laplacian_eigenvectors`: the ``K`` lowest non-trivial eigenvectors of
  the normalised Laplacian :math:`L = I - D^{-1/2} A D^{-1/2}`, sign-fixed
  (positional features: a declared graph's choice, :mod:`netzbench.catalog.positional`).
"""

from __future__ import annotations

import math

import numpy as np

from .edges import undirected_pairs

#: the reference implementation gives networks up to this many nodes one-hot identities
IDENTITY_LIMIT = 8192
#: Laplacian eigenvectors per node by default
LAPLACIAN_K = 16
#: below this many nodes the eigenvectors come from a dense solver (exact, no iteration)
_DENSE = 3000


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


def laplacian_eigenvectors(edge_index, num_nodes: int, k: int = LAPLACIAN_K) -> np.ndarray:
    r"""float32 ``[num_nodes, k]``: the eigenvectors of :math:`L = I - D^{-1/2} A D^{-1/2}` (``A`` the simple
    undirected graph of ``edge_index``) with the ``k`` smallest eigenvalues after the first (the trivial
    :math:`D^{1/2}\mathbf 1` of the largest component), each of unit norm with its largest-magnitude entry
    positive (an eigenvector's sign is arbitrary); zero columns pad a graph of fewer than ``k + 1`` nodes."""
    from scipy.sparse import coo_matrix, diags

    pairs = undirected_pairs(edge_index)
    n = int(num_nodes)
    out = np.zeros((n, k), dtype=np.float32)
    if n < 2 or pairs.size == 0:
        return out
    rows, cols = np.concatenate([pairs[0], pairs[1]]), np.concatenate([pairs[1], pairs[0]])
    adj = coo_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n)).tocsr()
    deg = np.asarray(adj.sum(axis=1)).reshape(-1)
    inv = np.zeros(n)
    inv[deg > 0] = deg[deg > 0] ** -0.5
    norm = diags(inv) @ adj @ diags(inv)  # D^-1/2 A D^-1/2: its largest eigenvalues are L's smallest
    want = min(k + 1, n)
    if n <= _DENSE:
        values, vectors = np.linalg.eigh(norm.toarray())
        order = np.argsort(-values, kind="stable")[:want]
    else:
        from scipy.sparse.linalg import eigsh

        start = np.full(n, 1.0 / np.sqrt(n))  # a fixed start vector: the same result on every run
        values, vectors = eigsh(norm, k=want, which="LA", v0=start, tol=1e-8)
        order = np.argsort(-values, kind="stable")
    vectors = vectors[:, order][:, 1:]
    for j in range(vectors.shape[1]):
        v = vectors[:, j] / (np.linalg.norm(vectors[:, j]) or 1.0)
        if v[int(np.argmax(np.abs(v)))] < 0:
            v = -v
        out[:, j] = v
    return out
