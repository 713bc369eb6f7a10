r"""Link-prediction heuristics: a node pair's score from the training graph alone, no parameters.

Let :math:`A` be the adjacency matrix of the *training* graph, undirected and
simple (each pair once, self-loops dropped, relation types ignored),
:math:`N(u)` the neighbours of :math:`u` and :math:`d_u = |N(u)|`:

- ``CommonNeighbors``: :math:`s(u, v) = |N(u) \cap N(v)| = (A A)_{uv}`;
- ``AdamicAdar`` (Adamic & Adar 2003):
  :math:`s(u, v) = \sum_{w \in N(u) \cap N(v)} 1 / \log d_w = (A W A)_{uv}`
  with :math:`W = \mathrm{diag}(1/\log d_w)` (a common neighbour of two distinct
  nodes has :math:`d_w \ge 2`, so the weight is finite; it is 0 where :math:`d_w < 2`);
- ``ResourceAllocation`` (Zhou, Lü & Zhang 2009):
  :math:`s(u, v) = \sum_{w \in N(u) \cap N(v)} 1 / d_w = (A D^{-1} A)_{uv}`;
- ``PreferentialAttachment`` (Barabási & Albert 1999): :math:`s(u, v) = d_u d_v`.

The three path-based scores are rows of :math:`A W A`: for a block of distinct
query heads :math:`H` the rows :math:`A_{H,:} (W A)` are one sparse product,
densified block by block (about :data:`BLOCK_ENTRIES` floats at a time), so
scoring every candidate tail of every head -- or all of them -- costs one
pass over the heads' two-hop neighbourhoods (FB15k-237's 10k validation and
test heads: about a second).

Any class with ``heuristic = True``, ``task_types = {"link_pred"}`` and a
method ``scores(adjacency, heads, tails)`` is scored this way by the link
trainers (:mod:`netzbench.training.heuristic`): evaluated once, never trained.
numpy and scipy only.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .roster import LINK_FAMILIES

#: dense entries of one block of score rows (64 MiB of float64)
BLOCK_ENTRIES = 1 << 23


def training_adjacency(num_nodes: int, pairs: np.ndarray) -> sp.csr_matrix:
    """The symmetric 0/1 adjacency (CSR, float64) of the undirected simple graph on the ``[2, m]``
    ``pairs`` (either orientation, duplicates merged, self-loops dropped)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(2, -1)
    keep = pairs[0] != pairs[1]
    u, v = pairs[0, keep], pairs[1, keep]
    a = sp.coo_matrix((np.ones(2 * u.size), (np.concatenate([u, v]), np.concatenate([v, u]))),
                      shape=(num_nodes, num_nodes)).tocsr()
    a.data[:] = 1.0  # duplicates were summed: back to 0/1
    return a


def degrees(adjacency: sp.csr_matrix) -> np.ndarray:
    return np.diff(adjacency.indptr).astype(np.float64)


class PairHeuristic:
    """Base of the heuristics: ``scores(adjacency, heads, tails)`` for ``heads`` [m] and ``tails``
    [m] or [m, k] (each head's candidate tails), an array of ``tails``' shape."""

    task_types = LINK_FAMILIES
    heuristic = True  # evaluated once on the training graph, no optimiser
    baseline = "heuristic"

    def scores(self, adjacency: sp.csr_matrix, heads: np.ndarray, tails: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class _PathHeuristic(PairHeuristic):
    """A weighted count of common neighbours, :math:`(A W A)_{uv}`, with :meth:`weights` on the diagonal of W."""

    def weights(self, degree: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def scores(self, adjacency, heads, tails):
        heads = np.asarray(heads, dtype=np.int64).reshape(-1)
        tails = np.asarray(tails, dtype=np.int64)
        flat = tails.reshape(heads.size, -1)
        out = np.zeros(flat.shape, dtype=np.float64)
        if heads.size == 0:
            return out.reshape(tails.shape)
        weighted = sp.diags(self.weights(degrees(adjacency))) @ adjacency  # W A
        uniq, inverse = np.unique(heads, return_inverse=True)
        order = np.argsort(inverse, kind="stable")
        sorted_inverse = inverse[order]
        block = max(1, BLOCK_ENTRIES // max(adjacency.shape[1], 1))
        for start in range(0, uniq.size, block):
            rows = (adjacency[uniq[start:start + block]] @ weighted).toarray()  # A_H W A, dense
            lo, hi = np.searchsorted(sorted_inverse, [start, start + block])
            idx = order[lo:hi]
            out[idx] = rows[inverse[idx][:, None] - start, flat[idx]]
        return out.reshape(tails.shape)


class CommonNeighbors(_PathHeuristic):
    r""":math:`s(u, v) = |N(u) \cap N(v)|` on the training graph (module docstring)."""

    def weights(self, degree):
        return np.ones_like(degree)


class AdamicAdar(_PathHeuristic):
    r""":math:`s(u, v) = \sum_{w \in N(u) \cap N(v)} 1/\log d_w` on the training graph (module docstring)."""

    def weights(self, degree):
        out = np.zeros_like(degree)
        np.divide(1.0, np.log(degree, where=degree > 1, out=np.ones_like(degree)), out=out, where=degree > 1)
        return out


class ResourceAllocation(_PathHeuristic):
    r""":math:`s(u, v) = \sum_{w \in N(u) \cap N(v)} 1/d_w` on the training graph (module docstring)."""

    def weights(self, degree):
        out = np.zeros_like(degree)
        np.divide(1.0, degree, out=out, where=degree > 0)
        return out


class PreferentialAttachment(PairHeuristic):
    r""":math:`s(u, v) = d_u d_v` on the training graph (module docstring)."""

    def scores(self, adjacency, heads, tails):
        deg = degrees(adjacency)
        heads = np.asarray(heads, dtype=np.int64)
        tails = np.asarray(tails, dtype=np.int64)
        d_head = deg[heads].reshape(heads.shape + (1,) * (tails.ndim - heads.ndim))
        return d_head * deg[tails]
