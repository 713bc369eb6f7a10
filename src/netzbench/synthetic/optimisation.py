"""Classic optimisation problems as link-prediction graphs: max-flow, bipartite matching,
graph colouring and max-cut (the edges are those a solution uses, plus candidates)."""

from __future__ import annotations

from collections import deque

import numpy as np

from ..graphs.rng import rng_for
from .common import avg_degree_p, gnp, knn_targets, link_graph


# -------------------------------------------------------------------- max flow


def edmonds_karp(capacity: np.ndarray, source: int, sink: int) -> tuple[int, np.ndarray]:
    """Maximum flow by shortest augmenting paths (Edmonds–Karp) on a dense capacity matrix.

    Returns ``(value, flow)`` with ``flow`` skew-symmetric (``flow[u, v]`` is
    the net flow from ``u`` to ``v``). Breadth-first search visits
    neighbours in increasing id, so the flow is deterministic.
    """
    cap = np.asarray(capacity, dtype=np.int64)
    n = cap.shape[0]
    c = cap.tolist()
    f = [[0] * n for _ in range(n)]
    nbrs = [np.flatnonzero((cap[u] > 0) | (cap[:, u] > 0)).tolist() for u in range(n)]
    value = 0
    while True:
        parent = [-1] * n
        parent[source] = source
        queue = deque([source])
        while queue and parent[sink] < 0:
            u = queue.popleft()
            for v in nbrs[u]:
                if parent[v] < 0 and c[u][v] - f[u][v] > 0:
                    parent[v] = u
                    queue.append(v)
        if parent[sink] < 0:
            break
        bottleneck, v = None, sink
        while v != source:
            u = parent[v]
            r = c[u][v] - f[u][v]
            bottleneck = r if bottleneck is None else min(bottleneck, r)
            v = u
        v = sink
        while v != source:
            u = parent[v]
            f[u][v] += bottleneck
            f[v][u] -= bottleneck
            v = u
        value += bottleneck
    return value, np.asarray(f, dtype=np.int64)


def max_flow_instance(seed: int, num_nodes: int = 100, out_degree: int = 4, max_capacity: int = 20,
                      k_neighbors: int = 2) -> dict:
    """A random capacitated directed network and a maximum flow through it.

    Nodes are uniform in the unit square; every pair in which one node is
    among the ``out_degree`` nearest neighbours of the other gets an arc in
    each direction, each with its own integer capacity uniform in
    ``1..max_capacity``. The source is the leftmost node, the sink the
    rightmost.
    """
    rng = rng_for("max_flow", seed)
    points = rng.random((num_nodes, 2))
    targets = knn_targets(points, min(out_degree, num_nodes - 1))
    near = np.zeros((num_nodes, num_nodes), dtype=bool)
    near[np.repeat(np.arange(num_nodes), targets.shape[1]), targets.reshape(-1)] = True
    arc_src, arc_dst = np.nonzero(near | near.T)  # both directions of every near pair, row-major order
    cap = np.zeros((num_nodes, num_nodes), dtype=np.int64)
    cap[arc_src, arc_dst] = rng.integers(1, max_capacity + 1, size=arc_src.size)
    source, sink = int(np.argmin(points[:, 0])), int(np.argmax(points[:, 0]))
    value, flow = edmonds_karp(cap, source, sink)
    return {"points": points, "capacity": cap, "source": source, "sink": sink, "value": value, "flow": flow}


def max_flow(seed: int, num_nodes: int = 100, out_degree: int = 4, max_capacity: int = 20,
             k_neighbors: int = 2) -> tuple[dict, dict]:
    """Max-flow graph: pairs carrying positive net flow + kNN candidate edges.

    Features: ``[x, y, is_source, is_sink, out_capacity, in_capacity]`` with
    the capacity sums divided by their maximum over nodes.
    """
    inst = max_flow_instance(seed, num_nodes, out_degree, max_capacity, k_neighbors)
    points, cap, flow = inst["points"], inst["capacity"], inst["flow"]
    fu, fv = np.nonzero(flow > 0)
    k = min(k_neighbors, num_nodes - 1)
    knn = knn_targets(points, k)
    src = np.concatenate([fu, np.repeat(np.arange(num_nodes), k)])
    dst = np.concatenate([fv, knn.reshape(-1)])
    flags = np.zeros((num_nodes, 2))
    flags[inst["source"], 0] = 1.0
    flags[inst["sink"], 1] = 1.0
    out_cap, in_cap = cap.sum(1).astype(np.float64), cap.sum(0).astype(np.float64)
    x = np.column_stack([points, flags, out_cap / max(out_cap.max(), 1), in_cap / max(in_cap.max(), 1)])
    return link_graph(x, src, dst)


# ---------------------------------------------------------- bipartite matching


def maximum_bipartite_matching(adj: list[list[int]], num_right: int) -> list[tuple[int, int]]:
    """A maximum matching by augmenting paths (Kuhn's algorithm, breadth-first).

    ``adj[u]`` lists the right vertices of left vertex ``u``. Left vertices
    are tried in increasing id and neighbours visited in increasing id, so
    the matching is deterministic. Returns sorted ``(left, right)`` pairs.
    """
    match_l = [-1] * len(adj)
    match_r = [-1] * num_right
    for u in range(len(adj)):
        parent: dict[int, int] = {}
        queue, free = deque([u]), -1
        while queue and free < 0:
            a = queue.popleft()
            for b in adj[a]:
                if b in parent:
                    continue
                parent[b] = a
                if match_r[b] < 0:
                    free = b
                    break
                queue.append(match_r[b])
        b = free
        while b >= 0:  # flip the alternating path ending at the free right vertex
            a = parent[b]
            previous = match_l[a]
            match_l[a], match_r[b] = b, a
            b = -1 if a == u else previous
    return sorted((u, v) for u, v in enumerate(match_l) if v >= 0)


def bipartite_matching_instance(seed: int, num_left: int = 60, num_right: int = 60, avg_degree: float = 3.0,
                                candidate_share: float = 0.25) -> dict:
    """A random bipartite graph, a maximum matching, and the retained candidate edges.

    Each left-right pair is an edge with probability ``avg_degree / num_right``.
    Of the edges outside the matching, ``round(candidate_share * m)`` are kept
    (a uniformly random subset). Edges are ``(left, right)`` with right ids
    local to the right side.
    """
    rng = rng_for("bipartite_matching", seed)
    mask = rng.random((num_left, num_right)) < min(1.0, avg_degree / num_right)
    adj = [np.flatnonzero(row).tolist() for row in mask]
    matching = maximum_bipartite_matching(adj, num_right)
    matched = np.zeros_like(mask)
    for u, v in matching:
        matched[u, v] = True
    others = np.argwhere(mask & ~matched)
    n_keep = int(round(candidate_share * len(others)))
    keep = np.sort(rng.permutation(len(others))[:n_keep])
    return {"edges": np.argwhere(mask), "matching": matching, "candidates": others[keep],
            "num_left": num_left, "num_right": num_right}


def bipartite_matching(seed: int, num_left: int = 60, num_right: int = 60, avg_degree: float = 3.0,
                       candidate_share: float = 0.25) -> tuple[dict, dict]:
    """Matching graph on ``num_left + num_right`` nodes (left first): matching + kept candidates.

    Features: ``[side, degree]`` (side 0 left / 1 right; degree in the full
    bipartite graph divided by its maximum).
    """
    inst = bipartite_matching_instance(seed, num_left, num_right, avg_degree, candidate_share)
    pairs = np.concatenate([np.asarray(inst["matching"], dtype=np.int64).reshape(-1, 2),
                            inst["candidates"].astype(np.int64).reshape(-1, 2)])
    n = num_left + num_right
    deg = np.bincount(np.concatenate([inst["edges"][:, 0], inst["edges"][:, 1] + num_left]),
                      minlength=n).astype(np.float64)
    side = np.r_[np.zeros(num_left), np.ones(num_right)]
    x = np.column_stack([side, deg / max(deg.max(), 1)])
    return link_graph(x, pairs[:, 0], pairs[:, 1] + num_left)


# -------------------------------------------------------------- graph colouring


def dsatur(adjacency: np.ndarray) -> np.ndarray:
    """DSATUR greedy colouring (Brélaz 1979): most distinct neighbour colours first.

    Ties are broken by larger degree, then smaller id; each node gets the
    smallest colour not used by a neighbour. Uses at most max degree + 1
    colours.
    """
    adjacency = np.asarray(adjacency, dtype=bool)
    n = adjacency.shape[0]
    nbrs = [np.flatnonzero(adjacency[v]).tolist() for v in range(n)]
    deg = [len(a) for a in nbrs]
    colours = [-1] * n
    seen: list[set[int]] = [set() for _ in range(n)]
    for _ in range(n):
        v = max((u for u in range(n) if colours[u] < 0), key=lambda u: (len(seen[u]), deg[u], -u))
        c = 0
        while c in seen[v]:
            c += 1
        colours[v] = c
        for w in nbrs[v]:
            seen[w].add(c)
    return np.asarray(colours, dtype=np.int64)


def graph_coloring_instance(seed: int, num_nodes: int = 100, avg_degree: float = 5.0, max_colors: int = 16) -> dict:
    """A G(n, p) random graph (mean degree ``avg_degree``) and its DSATUR colouring."""
    rng = rng_for("graph_coloring", seed)
    adj = gnp(rng, num_nodes, avg_degree_p(num_nodes, avg_degree))
    colours = dsatur(adj)
    used = int(colours.max()) + 1 if num_nodes else 0
    if used > max_colors:
        raise ValueError(f"DSATUR used {used} colours > max_colors={max_colors}; raise max_colors")
    return {"adjacency": adj, "colors": colours}


def graph_coloring(seed: int, num_nodes: int = 100, avg_degree: float = 5.0, max_colors: int = 16) -> tuple[dict, dict]:
    """Colouring graph: all edges of the random graph; features one-hot DSATUR colour (``max_colors`` wide)."""
    inst = graph_coloring_instance(seed, num_nodes, avg_degree, max_colors)
    u, v = np.nonzero(np.triu(inst["adjacency"], k=1))
    x = np.zeros((num_nodes, max_colors))
    x[np.arange(num_nodes), inst["colors"]] = 1.0
    return link_graph(x, u, v)


# --------------------------------------------------------------------- max cut


def local_search_cut(adjacency: np.ndarray, side: np.ndarray) -> np.ndarray:
    """One-flip local search for max cut from the partition ``side`` (0/1 per node).

    Repeatedly moves the node with the largest gain (same-side minus
    other-side neighbours; ties by smallest id) while some gain is positive.
    Each move adds at least one cut edge, so it stops; at the end every node
    has at least half of its edges cut (so the cut holds >= |E| / 2 edges).
    """
    a = np.asarray(adjacency, dtype=np.int64)
    s = np.asarray(side, dtype=np.int64).copy()
    sign = 2 * s - 1
    deg = a.sum(1)
    while True:
        same = (deg + sign * (a @ sign)) // 2
        gain = 2 * same - deg
        v = int(np.argmax(gain))
        if gain[v] <= 0:
            return s
        s[v] = 1 - s[v]
        sign[v] = -sign[v]


def max_cut_instance(seed: int, num_nodes: int = 100, avg_degree: float = 6.0) -> dict:
    """A G(n, p) random graph, a random initial partition and its local-search max cut."""
    rng = rng_for("max_cut", seed)
    adj = gnp(rng, num_nodes, avg_degree_p(num_nodes, avg_degree))
    init = rng.integers(0, 2, size=num_nodes)
    return {"adjacency": adj, "initial_side": init, "side": local_search_cut(adj, init)}


def max_cut(seed: int, num_nodes: int = 100, avg_degree: float = 6.0) -> tuple[dict, dict]:
    """Cut graph: the edges crossing the locally optimal partition.

    Features: ``[initial side, degree]`` (the random start of the local
    search as +/-1, and the degree in the full graph divided by its maximum);
    the final side is not a feature.
    """
    inst = max_cut_instance(seed, num_nodes, avg_degree)
    side = inst["side"]
    u, v = np.nonzero(np.triu(inst["adjacency"], k=1))
    cut = side[u] != side[v]
    deg = inst["adjacency"].sum(1).astype(np.float64)
    x = np.column_stack([2.0 * inst["initial_side"] - 1.0, deg / max(deg.max(), 1)])
    return link_graph(x, u[cut], v[cut])
