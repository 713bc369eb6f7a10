"""Descriptive statistics of a processed graph, for the dataset card (:mod:`.card`).

Pure functions, arrays in, numbers out (numpy and scipy only). Edges are
taken as undirected pairs, each counted once, self-loops left out, whatever
the stored layout (one direction per pair for link prediction, both for node
classification).

Homophily measures (Platonov et al. 2023, "Characterizing graph datasets for
node classification: homophily-heterophily dichotomy and beyond"), with
``E`` the undirected edges, ``D_k`` the summed degree of the nodes of class
``k`` and ``p_k = D_k / 2|E|``:

- edge homophily ``h_edge = |{(u, v) in E: y_u = y_v}| / |E|``;
- adjusted homophily ``h_adj = (h_edge - sum_k p_k^2) / (1 - sum_k p_k^2)``
  (0 for labels independent of the edges in expectation, 1 for perfect
  homophily; it equals Newman's attribute assortativity of the class);
- label informativeness ``LI = I(y_u; y_v) / H(y_u)`` for a uniformly drawn
  edge ``(u, v)`` in either direction: ``LI = 2 - sum_{c1,c2} p(c1,c2) log
  p(c1,c2) / sum_k p_k log p_k`` (1 when a neighbour's class determines the
  node's, 0 when it says nothing).

:func:`wl_hashes` gives each graph of a collection a Weisfeiler-Lehman hash
(node features as the initial colours), so identical graphs, up to
isomorphism for all graphs 1-WL tells apart, get identical hashes.
"""

from __future__ import annotations

import hashlib

import numpy as np

from ..graphs.edges import undirected_pairs


def pairs_of(edge_index) -> np.ndarray:
    """The unique undirected pairs ``[2, m]`` (``i < j``) of an edge index."""
    return undirected_pairs(np.asarray(edge_index, dtype=np.int64).reshape(2, -1))


def degrees(pairs: np.ndarray, num_nodes: int) -> np.ndarray:
    """Degree of every node in the simple undirected graph of ``pairs``."""
    return np.bincount(pairs.reshape(-1), minlength=num_nodes)[:num_nodes] if pairs.size else np.zeros(num_nodes, int)


def degree_summary(deg: np.ndarray) -> dict:
    """``min``, ``median``, ``mean`` and ``max`` degree (None for an empty graph)."""
    if deg.size == 0:
        return {"min": None, "median": None, "mean": None, "max": None}
    return {"min": int(deg.min()), "median": float(np.median(deg)), "mean": round(float(deg.mean()), 4),
            "max": int(deg.max())}


def components(pairs: np.ndarray, num_nodes: int) -> dict:
    """Connected components (isolated nodes are components of one) and the largest one's share of nodes."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    if num_nodes == 0:
        return {"count": 0, "largest": 0, "largest_share": None}
    adj = coo_matrix((np.ones(pairs.shape[1]), (pairs[0], pairs[1])), shape=(num_nodes, num_nodes))
    count, label = connected_components(adj, directed=False)
    largest = int(np.bincount(label).max())
    return {"count": int(count), "largest": largest, "largest_share": round(largest / num_nodes, 4)}


def _entropy_sum(p: np.ndarray) -> float:
    """``sum p log p`` over the non-zero entries (natural log)."""
    p = p[p > 0]
    return float(np.sum(p * np.log(p)))


def homophily(pairs: np.ndarray, y: np.ndarray) -> dict:
    """``edge_homophily``, ``adjusted_homophily`` and ``label_informativeness`` of labels ``y`` (module docstring).

    Edges with an unlabelled end (``y < 0``) are left out. None where undefined: no edge, or a single
    class (``sum p_k^2 = 1``, ``H = 0``).
    """
    y = np.asarray(y).reshape(-1)
    u, v = pairs
    keep = (y[u] >= 0) & (y[v] >= 0)
    u, v = u[keep], v[keep]
    out = {"edge_homophily": None, "adjusted_homophily": None, "label_informativeness": None}
    if u.size == 0:
        return out
    k = int(y.max()) + 1
    same = float(np.mean(y[u] == y[v]))
    ends = np.concatenate([y[u], y[v]])
    p = np.bincount(ends, minlength=k) / ends.size  # degree-weighted class distribution
    out["edge_homophily"] = round(same, 6)
    sq = float(np.sum(p ** 2))
    if sq < 1.0 - 1e-12:
        out["adjusted_homophily"] = round((same - sq) / (1.0 - sq), 6)
    joint = np.bincount(np.concatenate([y[u] * k + y[v], y[v] * k + y[u]]), minlength=k * k) / (2 * u.size)
    h = _entropy_sum(p)
    if h < -1e-12:
        out["label_informativeness"] = round(2.0 - _entropy_sum(joint) / h, 6)
    return out


def class_counts(y: np.ndarray) -> dict:
    """``{"counts": [...], "majority_share": ...}`` of integer labels (``y < 0``: unlabelled, left out)."""
    y = np.asarray(y).reshape(-1)
    y = y[y >= 0]
    if y.size == 0:
        return {"counts": [], "majority_share": None}
    counts = np.bincount(y)
    return {"counts": counts.tolist(), "majority_share": round(float(counts.max()) / y.size, 4)}


# ---------------------------------------------------------------------------------- WL hashes

_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


def _mix(values: np.ndarray, salt: int) -> np.ndarray:
    """A fixed 64-bit mixing of ``values`` (splitmix64 finaliser): the same on every machine."""
    z = (values.astype(np.uint64) + np.uint64(salt) * np.uint64(0x9E3779B97F4A7C15)) & _MASK
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _initial_colours(x: np.ndarray | None, n: int) -> np.ndarray:
    if x is None or np.asarray(x).size == 0:
        return np.zeros(n, dtype=np.int64)
    rows = np.ascontiguousarray(np.asarray(x, dtype=np.float32).reshape(n, -1))
    _, colour = np.unique(rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).reshape(-1),
                          return_inverse=True)
    return colour.reshape(-1).astype(np.int64)


def wl_hashes(edge_index, node_ptr, edge_ptr, x=None, iterations: int = 3) -> list[str]:
    """One hex hash per graph of a collection (local ``edge_index`` per graph, :mod:`netzbench.graphs.collection`).

    Each round a node's colour becomes a function of its colour and the multiset of its neighbours'
    colours (summed mixed values: order-free), relabelled to dense ids over all graphs at once; a
    graph's hash covers its node and edge counts and the multiset of its colours of every round.
    """
    node_ptr = np.asarray(node_ptr, dtype=np.int64)
    edge_ptr = np.asarray(edge_ptr, dtype=np.int64)
    n, g = int(node_ptr[-1]), len(node_ptr) - 1
    ei = np.asarray(edge_index, dtype=np.int64).reshape(2, -1) + np.repeat(node_ptr[:-1], np.diff(edge_ptr))
    pairs = undirected_pairs(ei) if ei.size else np.zeros((2, 0), dtype=np.int64)
    src, dst = np.concatenate([pairs[0], pairs[1]]), np.concatenate([pairs[1], pairs[0]])
    graph_of = np.repeat(np.arange(g), np.diff(node_ptr))
    colour = _initial_colours(x, n)
    signature = np.zeros((g, 0), dtype=np.uint64)
    for round_ in range(iterations + 1):
        per_graph = np.zeros(g, dtype=np.uint64)
        with np.errstate(over="ignore"):
            np.add.at(per_graph, graph_of, _mix(colour, 2 * round_ + 1))
        signature = np.concatenate([signature, per_graph[:, None]], axis=1)
        if round_ == iterations:
            break
        neighbours = np.zeros(n, dtype=np.uint64)
        with np.errstate(over="ignore"):
            np.add.at(neighbours, dst, _mix(colour[src], 2 * round_ + 2))
        _, colour = np.unique(np.stack([colour.astype(np.uint64), neighbours], axis=1), axis=0, return_inverse=True)
        colour = colour.reshape(-1).astype(np.int64)
    sizes = np.stack([np.diff(node_ptr), np.bincount(graph_of[pairs[0]], minlength=g) if pairs.size
                      else np.zeros(g, dtype=np.int64)], axis=1).astype(np.uint64)
    rows = np.ascontiguousarray(np.concatenate([sizes, signature], axis=1))
    return [hashlib.sha256(row.tobytes()).hexdigest()[:32] for row in rows]
