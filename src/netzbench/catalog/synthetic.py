"""Seed-aware synthetic graph generators.

Every generator is a pure function of ``(seed, generator parameters)``: the
same seed gives the same graph byte for byte, and adding seeds to a run never
changes the instances of the existing ones (each seed has its own random
stream, derived from the seed and the generator's name). Outputs follow the
processed-bundle layout of :mod:`netzbench.catalog.data` (``x``,
``edge_index`` as undirected pairs, ``num_nodes``).
"""

from __future__ import annotations

import zlib

import numpy as np


def rng_for(name: str, seed: int) -> np.random.Generator:
    """An independent numpy stream for generator ``name`` and ``seed``."""
    return np.random.default_rng(np.random.SeedSequence([int(seed), zlib.crc32(name.encode())]))


def _pairs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    keep = lo != hi
    return np.unique(np.stack([lo[keep], hi[keep]], axis=1), axis=0).T.astype(np.int64)


def two_opt_tour(points: np.ndarray) -> np.ndarray:
    """A locally 2-optimal tour: nearest-neighbour start, then 2-opt until no move improves.

    Deterministic given ``points``. Returns the visiting order (a permutation).
    """
    n = len(points)
    dist = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(-1))
    tour = [0]
    unvisited = np.ones(n, dtype=bool)
    unvisited[0] = False
    for _ in range(n - 1):
        d = np.where(unvisited, dist[tour[-1]], np.inf)
        nxt = int(np.argmin(d))
        tour.append(nxt)
        unvisited[nxt] = False
    tour = np.asarray(tour)
    improved = True
    while improved:
        improved = False
        for i in range(n - 2):
            a, b = tour[i], tour[i + 1]
            js = np.arange(i + 2, n if i > 0 else n - 1)
            c, d = tour[js], tour[(js + 1) % n]
            gain = dist[a, b] + dist[c, d] - dist[a, c] - dist[b, d]
            best = int(np.argmax(gain))
            if gain[best] > 1e-12:
                j = int(js[best])
                tour[i + 1 : j + 1] = tour[i + 1 : j + 1][::-1]
                improved = True
    return tour


def random_tsp(seed: int, num_nodes: int = 200, k_neighbors: int = 3) -> tuple[dict, dict]:
    """Random Euclidean TSP instance as a graph (see the catalogue entry)."""
    rng = rng_for("random_tsp", seed)
    pts = rng.random((num_nodes, 2))
    tour = two_opt_tour(pts)
    tour_src, tour_dst = tour, np.roll(tour, -1)
    dist = ((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(dist, np.inf)
    knn = np.argsort(dist, axis=1, kind="stable")[:, :k_neighbors]
    knn_src = np.repeat(np.arange(num_nodes), k_neighbors)
    edges = _pairs(np.concatenate([tour_src, knn_src]), np.concatenate([tour_dst, knn.reshape(-1)]))
    arrays = {
        "x": pts.astype(np.float32),
        "edge_index": edges,
        "num_nodes": np.asarray(num_nodes, dtype=np.int64),
    }
    return arrays, {"num_nodes": num_nodes, "num_edges": int(edges.shape[1]), "num_features": 2}


def ising_lattice(seed: int, side: int = 20, temperature: float = 2.27, sweeps: int = 50) -> tuple[dict, dict]:
    """Periodic square lattice with a Metropolis-sampled Ising spin field as node features."""
    rng = rng_for("ising_lattice", seed)
    spins = rng.choice(np.array([-1, 1], dtype=np.int8), size=(side, side))
    ii, jj = np.indices((side, side))
    checker = [(ii + jj) % 2 == parity for parity in (0, 1)]
    for _ in range(sweeps):
        for mask in checker:  # checkerboard updates keep each half-sweep exact
            nb = (
                np.roll(spins, 1, 0) + np.roll(spins, -1, 0) + np.roll(spins, 1, 1) + np.roll(spins, -1, 1)
            ).astype(np.float64)
            delta = 2.0 * spins * nb
            accept = (delta <= 0) | (rng.random((side, side)) < np.exp(-delta / temperature))
            spins = np.where(mask & accept, -spins, spins).astype(np.int8)
    idx = np.arange(side * side).reshape(side, side)
    right, down = np.roll(idx, -1, 1), np.roll(idx, -1, 0)
    edges = _pairs(np.concatenate([idx.ravel(), idx.ravel()]), np.concatenate([right.ravel(), down.ravel()]))
    x = spins.reshape(-1, 1).astype(np.float32)
    n = side * side
    arrays = {"x": x, "edge_index": edges, "num_nodes": np.asarray(n, dtype=np.int64)}
    return arrays, {"num_nodes": n, "num_edges": int(edges.shape[1]), "num_features": 1}
