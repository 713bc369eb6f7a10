"""Routing problems as graphs: the random Euclidean TSP and the capacitated VRP."""

from __future__ import annotations

import numpy as np

from ..graphs.rng import rng_for
from .common import knn_targets, link_graph, sq_dist


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


def random_tsp(seed: int, num_nodes: int = 200, k_neighbors: int = 3, tour: bool = True) -> tuple[dict, dict]:
    """Random Euclidean TSP instance as a graph: each city's ``k_neighbors`` nearest cities, plus
    (``tour``) a 2-opt tour through them; without the tour it is the reference implementation's
    k-nearest-neighbour graph. Features: the coordinates.
    """
    rng = rng_for("random_tsp", seed)
    pts = rng.random((num_nodes, 2))
    knn = knn_targets(pts, k_neighbors)
    src, dst = np.repeat(np.arange(num_nodes), k_neighbors), knn.reshape(-1)
    if tour:
        order = two_opt_tour(pts)
        src, dst = np.concatenate([order, src]), np.concatenate([np.roll(order, -1), dst])
    return link_graph(pts, src, dst)


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
    dist = np.sqrt(sq_dist(points))
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
    return link_graph(x, src, dst)
