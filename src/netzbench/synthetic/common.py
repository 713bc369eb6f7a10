"""Helpers shared by the generators: distances, nearest neighbours, random graphs, the link bundle."""

from __future__ import annotations

import numpy as np

from ..graphs.edges import undirected_pairs


def sq_dist(points: np.ndarray) -> np.ndarray:
    return ((points[:, None, :] - points[None, :, :]) ** 2).sum(-1)


def knn_targets(points: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` nearest other points of every point, ``[n, k]`` (ties by index)."""
    dist = sq_dist(points)
    np.fill_diagonal(dist, np.inf)
    return np.argsort(dist, axis=1, kind="stable")[:, :k]


def link_graph(x: np.ndarray, src, dst, self_loops: bool = False) -> tuple[dict, dict]:
    """The link-prediction bundle of features ``x`` and edges ``src - dst`` (unique undirected pairs;
    self-loops kept only when asked for)."""
    n = int(x.shape[0])
    edges = undirected_pairs(np.stack([np.asarray(src, np.int64), np.asarray(dst, np.int64)]), self_loops)
    arrays = {"x": x.astype(np.float32), "edge_index": edges, "num_nodes": np.asarray(n, dtype=np.int64)}
    return arrays, {"num_nodes": n, "num_edges": int(edges.shape[1]), "num_features": int(x.shape[1])}


def gnp(rng: np.random.Generator, n: int, p: float) -> np.ndarray:
    """Erdős–Rényi G(n, p) as a symmetric boolean adjacency matrix (no self-loops)."""
    upper = np.triu(rng.random((n, n)) < p, k=1)
    return upper | upper.T


def avg_degree_p(n: int, avg_degree: float) -> float:
    return float(min(1.0, avg_degree / max(n - 1, 1)))
