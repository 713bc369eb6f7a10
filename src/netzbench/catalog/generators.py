"""Seed-aware generators for the combinatorial category (and one extra regression task).

Every generator is a pure function ``(seed, **params) -> (arrays, counts)``
with the conventions of :mod:`netzbench.catalog.synthetic`: one independent
random stream per (generator name, seed) from :func:`~.synthetic.rng_for`, so
the same seed gives byte-identical arrays and adding seeds never changes
the instances of the existing ones; link-prediction graphs are returned as
sorted unique undirected pairs ``i < j`` with ``x`` float32 node features
and ``num_nodes``.

Each link-prediction generator has an ``*_instance`` companion returning the
problem and the solution it is built from (routes, flow, matching,
colouring, partition), so tests can check the combinatorics directly.
All solvers are deterministic given the instance (ties broken by node id).

Graph meaning, in short (the catalogue entries say more):

- ``vrp``: savings-heuristic routes + k-nearest-neighbour candidate edges;
- ``max_flow``: node pairs carrying positive net flow in a maximum flow
  (Edmonds–Karp) + k-nearest-neighbour candidate edges;
- ``bipartite_matching``: a maximum matching + a fixed share of the other
  edges of the bipartite graph;
- ``graph_coloring``: the graph itself, with the DSATUR colour class of
  each node as one-hot features (same-colour pairs are never edges);
- ``max_cut``: the edges cut by a locally optimal partition;
- ``synthetic_triangles``: a collection of small random graphs labelled
  with their triangle count and spectral radius (graph regression).
"""

from __future__ import annotations

from collections import deque

import numpy as np

from .loaders import undirected_pairs
from .synthetic import rng_for


# --------------------------------------------------------------------- helpers


def _sq_dist(points: np.ndarray) -> np.ndarray:
    return ((points[:, None, :] - points[None, :, :]) ** 2).sum(-1)


def knn_targets(points: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` nearest other points of every point, ``[n, k]`` (ties by index)."""
    dist = _sq_dist(points)
    np.fill_diagonal(dist, np.inf)
    return np.argsort(dist, axis=1, kind="stable")[:, :k]


def _link_graph(x: np.ndarray, src, dst) -> tuple[dict, dict]:
    n = int(x.shape[0])
    edges = undirected_pairs(np.stack([np.asarray(src, np.int64), np.asarray(dst, np.int64)]))
    arrays = {"x": x.astype(np.float32), "edge_index": edges, "num_nodes": np.asarray(n, dtype=np.int64)}
    return arrays, {"num_nodes": n, "num_edges": int(edges.shape[1]), "num_features": int(x.shape[1])}


def _gnp(rng: np.random.Generator, n: int, p: float) -> np.ndarray:
    """Erdős–Rényi G(n, p) as a symmetric boolean adjacency matrix (no self-loops)."""
    upper = np.triu(rng.random((n, n)) < p, k=1)
    return upper | upper.T


def _avg_degree_p(n: int, avg_degree: float) -> float:
    return float(min(1.0, avg_degree / max(n - 1, 1)))


# ------------------------------------------------------------------------- VRP


def savings_routes(points: np.ndarray, demand: np.ndarray, capacity: int) -> list[list[int]]:
    """Clarke–Wright parallel savings routes for a CVRP with the depot at node 0.

    Every customer starts on its own route; pairs are considered in order of
    decreasing saving ``d(0,i) + d(0,j) - d(i,j)`` (ties by ``(i, j)``) and two
    routes are joined end to end when ``i`` and ``j`` are ends of different
    routes and the joined load fits the capacity. Returns the routes (depot
    excluded), each starting at its smaller end customer, sorted by first
    customer.
    """
    n = len(points)
    if n < 2:
        return []
    if int(demand[1:].max()) > capacity:
        raise ValueError(f"a customer demands {int(demand[1:].max())} > capacity {capacity}")
    dist = np.sqrt(_sq_dist(points))
    i_idx, j_idx = np.triu_indices(n - 1, k=1)
    i_idx, j_idx = i_idx + 1, j_idx + 1
    saving = dist[0, i_idx] + dist[0, j_idx] - dist[i_idx, j_idx]
    order = np.lexsort((j_idx, i_idx, -saving))
    route_of = list(range(n))
    routes = {c: [c] for c in range(1, n)}
    load = {c: int(demand[c]) for c in range(1, n)}
    for o in order:
        i, j = int(i_idx[o]), int(j_idx[o])
        ri, rj = route_of[i], route_of[j]
        if ri == rj or load[ri] + load[rj] > capacity:
            continue
        a, b = routes[ri], routes[rj]
        if not (i in (a[0], a[-1]) and j in (b[0], b[-1])):
            continue  # only route ends can be joined
        if a[-1] != i:
            a.reverse()
        if b[0] != j:
            b.reverse()
        routes[ri] = a + b
        load[ri] += load.pop(rj)
        del routes[rj]
        for c in b:
            route_of[c] = ri
    out = [r if r[0] <= r[-1] else r[::-1] for r in routes.values()]
    return sorted(out, key=lambda r: r[0])


def vrp_instance(seed: int, num_customers: int = 100, capacity: int = 50, k_neighbors: int = 3) -> dict:
    """A random CVRP instance (Kool et al. 2019 style) and its savings routes.

    Node 0 is the depot; depot and customers are uniform in the unit square,
    demands uniform in 1..9.
    """
    rng = rng_for("vrp", seed)
    points = rng.random((num_customers + 1, 2))
    demand = np.zeros(num_customers + 1, dtype=np.int64)
    demand[1:] = rng.integers(1, 10, size=num_customers)
    routes = savings_routes(points, demand, capacity)
    return {"points": points, "demand": demand, "capacity": capacity, "routes": routes}


def vrp(seed: int, num_customers: int = 100, capacity: int = 50, k_neighbors: int = 3) -> tuple[dict, dict]:
    """CVRP graph: route edges (depot-first, consecutive, last-depot) + kNN candidate edges.

    Features: ``[x, y, demand / capacity, is_depot]``.
    """
    inst = vrp_instance(seed, num_customers, capacity, k_neighbors)
    points, demand = inst["points"], inst["demand"]
    n = len(points)
    src, dst = [], []
    for route in inst["routes"]:
        stops = [0, *route, 0]
        src += stops[:-1]
        dst += stops[1:]
    k = min(k_neighbors, n - 1)
    knn = knn_targets(points, k)
    src = np.concatenate([np.asarray(src, np.int64), np.repeat(np.arange(n), k)])
    dst = np.concatenate([np.asarray(dst, np.int64), knn.reshape(-1)])
    is_depot = np.zeros(n)
    is_depot[0] = 1.0
    x = np.column_stack([points, demand / capacity, is_depot])
    return _link_graph(x, src, dst)


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
    return _link_graph(x, src, dst)


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
    return _link_graph(x, pairs[:, 0], pairs[:, 1] + num_left)


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
    adj = _gnp(rng, num_nodes, _avg_degree_p(num_nodes, avg_degree))
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
    return _link_graph(x, u, v)


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
    adj = _gnp(rng, num_nodes, _avg_degree_p(num_nodes, avg_degree))
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
    return _link_graph(x, u[cut], v[cut])


# ------------------------------------------------------- triangle regression


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
    xs, eis, ys, node_ptr, edge_ptr = [], [], [], [0], [0]
    num_pairs = 0
    for _ in range(num_graphs):
        n = int(rng.integers(min_nodes, max_nodes + 1))
        if rng.random() < 0.5:
            adj = _gnp(rng, n, float(rng.uniform(0.1, 0.4)))
        else:
            k = int(rng.choice([2, 4, 6]))
            adj = watts_strogatz(rng, n, min(k, n - 1 - (n - 1) % 2), float(rng.uniform(0.0, 0.3)))
        a = adj.astype(np.float64)
        triangles = float(np.trace(a @ a @ a) / 6.0)
        radius = float(np.linalg.eigvalsh(a)[-1]) if n else 0.0
        ei = np.stack(np.nonzero(adj)).astype(np.int64)  # row-major: sorted by (source, target)
        xs.append(np.ones((n, 1), dtype=np.float32))
        eis.append(ei)
        ys.append([round(triangles), radius])
        node_ptr.append(node_ptr[-1] + n)
        edge_ptr.append(edge_ptr[-1] + ei.shape[1])
        num_pairs += ei.shape[1] // 2
    arrays = {
        "x": np.concatenate(xs) if xs else np.zeros((0, 1), np.float32),
        "edge_index": np.concatenate(eis, axis=1) if eis else np.zeros((2, 0), np.int64),
        "node_ptr": np.asarray(node_ptr, dtype=np.int64),
        "edge_ptr": np.asarray(edge_ptr, dtype=np.int64),
        "y": np.asarray(ys, dtype=np.float32).reshape(-1, 2),
    }
    counts = {"num_graphs": num_graphs, "num_nodes": int(node_ptr[-1]), "num_edges": int(num_pairs),
              "num_features": 1, "num_targets": 2}
    return arrays, counts
