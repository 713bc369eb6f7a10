"""Graph regression: small random graphs labelled with their triangle count and spectral radius."""

from __future__ import annotations

import numpy as np

from ..graphs.collection import collection_arrays, stack_graphs
from ..graphs.rng import rng_for
from .common import gnp


def watts_strogatz(rng: np.random.Generator, n: int, k: int, beta: float) -> np.ndarray:
    """Watts–Strogatz small world: ring lattice (``k`` nearest, ``k`` even) with each edge rewired w.p. ``beta``.

    Rewiring keeps the first end and draws a new, non-adjacent second end
    (no self-loops or duplicates); an edge is left alone when its first end
    is already adjacent to every node.
    """
    adj = np.zeros((n, n), dtype=bool)
    idx = np.arange(n)
    for j in range(1, k // 2 + 1):
        adj[idx, (idx + j) % n] = True
        adj[(idx + j) % n, idx] = True
    for j in range(1, k // 2 + 1):
        for u in range(n):
            if rng.random() >= beta:
                continue
            v = (u + j) % n
            free = np.flatnonzero(~adj[u])
            free = free[free != u]
            if free.size == 0 or not adj[u, v]:
                continue
            w = int(free[rng.integers(free.size)])
            adj[u, v] = adj[v, u] = False
            adj[u, w] = adj[w, u] = True
    return adj


def synthetic_triangles(seed: int, num_graphs: int = 300, min_nodes: int = 10,
                        max_nodes: int = 30) -> tuple[dict, dict]:
    """A collection of small random graphs labelled ``[triangles, spectral radius]``.

    Each graph is, with equal probability, Erdős–Rényi G(n, p) with
    ``p ~ U(0.1, 0.4)`` or Watts–Strogatz with ``k`` in {2, 4, 6} and
    ``beta ~ U(0, 0.3)``; ``n`` is uniform in ``min_nodes..max_nodes``.
    Targets: the number of triangles (trace(A^3) / 6) and the largest
    adjacency eigenvalue. Node features are a constant 1, so a model must
    read the counts from structure. Edges are stored in both directions.
    """
    rng = rng_for("synthetic_triangles", seed)
    xs, eis, ys = [], [], []
    for _ in range(num_graphs):
        n = int(rng.integers(min_nodes, max_nodes + 1))
        if rng.random() < 0.5:
            adj = gnp(rng, n, float(rng.uniform(0.1, 0.4)))
        else:
            k = int(rng.choice([2, 4, 6]))
            adj = watts_strogatz(rng, n, min(k, n - 1 - (n - 1) % 2), float(rng.uniform(0.0, 0.3)))
        a = adj.astype(np.float64)
        triangles = float(np.trace(a @ a @ a) / 6.0)
        radius = float(np.linalg.eigvalsh(a)[-1]) if n else 0.0
        xs.append(np.ones((n, 1), dtype=np.float32))
        eis.append(np.stack(np.nonzero(adj)))  # row-major: sorted by (source, target)
        ys.append([round(triangles), radius])
    return collection_arrays(*stack_graphs(xs, eis), np.asarray(ys).reshape(-1, 2), target="regression")
