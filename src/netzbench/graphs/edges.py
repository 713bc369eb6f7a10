"""Edge lists: undirected pairs, symmetric lists, and the simple message-passing graph."""

from __future__ import annotations

import numpy as np


def undirected_pairs(edge_index: np.ndarray, self_loops: bool = False) -> np.ndarray:
    """Unique undirected pairs ``(i, j)`` with ``i < j`` of an edge index, sorted; self-loops
    ``(i, i)`` dropped unless ``self_loops``."""
    ei = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    lo, hi = np.minimum(ei[0], ei[1]), np.maximum(ei[0], ei[1])
    if not self_loops:
        keep = lo != hi
        lo, hi = lo[keep], hi[keep]
    if lo.size == 0:
        return np.zeros((2, 0), dtype=np.int64)
    n = int(hi.max()) + 1
    # one int64 key per pair: a 1-D sort is far faster than a row-wise np.unique
    keys = np.sort(lo * n + hi)
    keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
    return np.stack([keys // n, keys % n])


def count_undirected_pairs(edge_index: np.ndarray) -> int:
    """Number of unique undirected pairs (self-loops dropped): ``num_edges`` in every ``meta.json``."""
    return int(undirected_pairs(edge_index).shape[1])


def symmetric_edges(pairs: np.ndarray) -> np.ndarray:
    """Both directions of unique undirected pairs ``[2, m]``, sorted by (source, target)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(2, -1)
    both = np.concatenate([pairs, pairs[::-1]], axis=1)
    order = np.lexsort((both[1], both[0]))
    return np.ascontiguousarray(both[:, order])


def message_passing_graph(edge_index, num_nodes: int):
    """The graph a fixed-graph task passes messages over: duplicate edges merged, self-loops dropped.

    A torch ``[2, E]`` edge index in, the same out, sorted. Every encoder then sees the same
    graph whether it takes an edge index or a CSR adjacency (a CSR tensor cannot hold parallel
    edges); layers that want self-loops (GCN, GAT) add them themselves. Relational graphs have
    many parallel edges (one per relation between a pair: 22 % of FB15k-237's).
    """
    from torch_geometric.utils import coalesce, remove_self_loops

    edge_index, _ = remove_self_loops(edge_index)
    return coalesce(edge_index, num_nodes=num_nodes)
