"""Combinatorial generators (catalog/generators.py): seed behaviour and combinatorial sanity.

Structural checks use independent references where one exists (networkx
maximum flow, Hopcroft–Karp, triangle counts) rather than the generator's
own solver.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import netzbench.catalog
from netzbench.synthetic import optimisation, routing, triangles
from netzbench.catalog.data import fetch_task
from netzbench.graphs.layout import task_arrays
from netzbench.catalog.table import DATASETS, TASKS
from netzbench.params import DEFAULTS, merge
from helpers import as_settings

LINK = ("vrp", "max_flow", "bipartite_matching", "graph_coloring", "max_cut")
ALL = LINK + ("synthetic_triangles",)


def _gen(name: str, seed: int):
    ds = DATASETS[name]
    return ds.processor(seed, **ds.generator_params)


def _same(a: dict, b: dict) -> bool:
    return sorted(a) == sorted(b) and all(
        a[k].dtype == b[k].dtype and a[k].shape == b[k].shape and a[k].tobytes() == b[k].tobytes() for k in a)


def _pairs(a: dict) -> set[tuple[int, int]]:
    return {(int(u), int(v)) for u, v in a["edge_index"].T}


# ----------------------------------------------------------- catalogue & seeds


def test_entries_are_synthetic_seed_aware_and_registered():
    for name in ALL:
        ds, task = DATASETS[name], TASKS[name]
        assert ds.synthetic and ds.category == "combinatorial" and ds.generator_params
        assert ds.processor_ref.startswith("netzbench.synthetic.") and ds.processor.__name__ == name and task.seed_aware
    for name in LINK:
        assert DATASETS[name].families == ("link_pred",) and DATASETS[name].in_paper
        assert (TASKS[name].family, TASKS[name].split) == ("link_pred", "random_edge_80_10_10")
    tri = DATASETS["synthetic_triangles"]
    assert tri.families == ("graph_reg",) and not tri.in_paper and not TASKS["synthetic_triangles"].in_paper
    assert "not one of the paper's 63" in tri.description
    assert TASKS["synthetic_triangles"].split == "random_graph_80_10_10"


def test_entry_module_is_import_light():
    src = Path(netzbench.catalog.__file__).parent / "entries" / "combinatorial.py"
    top = [n for n in ast.parse(src.read_text()).body if isinstance(n, (ast.Import, ast.ImportFrom))]
    mods = {a.name for n in top for a in n.names} | {getattr(n, "module", None) or "" for n in top}
    assert not any(m.split(".")[0] in ("torch", "torch_geometric", "networkx") for m in mods)


@pytest.mark.parametrize("name", ALL)
def test_same_seed_same_bytes_new_seed_new_instance(name):
    first = _gen(name, 0)
    assert _same(first[0], _gen(name, 0)[0]) and first[1] == _gen(name, 0)[1]
    assert not _same(first[0], _gen(name, 1)[0])
    # generating other seeds (before or after) never changes seed 0's instance
    _gen(name, 7)
    _gen(name, 3)
    assert _same(first[0], _gen(name, 0)[0])


@pytest.mark.parametrize("name", LINK)
def test_link_layout(name):
    a, counts = _gen(name, 2)
    n = int(a["num_nodes"])
    ei = a["edge_index"]
    assert a["x"].dtype == np.float32 and a["x"].shape == (n, counts["num_features"]) and ei.dtype == np.int64
    assert np.all(ei[0] < ei[1]) and ei.max() < n  # undirected pairs i < j
    assert len(_pairs(a)) == ei.shape[1] == counts["num_edges"]
    assert np.array_equal(ei, ei[:, np.lexsort((ei[1], ei[0]))])  # sorted
    assert counts["num_nodes"] == n


def test_synthetic_task_stores_meta_and_generates_per_seed(tmp_path, monkeypatch):
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path / "cache"))
    meta = fetch_task("max_cut", as_settings(merge(DEFAULTS, {})), data_root=tmp_path / "data")
    # no arrays: the instance of each seed is generated at training time (the card describes seed 0's)
    assert meta["synthetic"] and sorted(p.name for p in (tmp_path / "data" / "max_cut").iterdir()) == [
        "card.json", "meta.json"]
    arrays = task_arrays(tmp_path / "data" / "max_cut", 4)
    assert _same(arrays, _gen("max_cut", 4)[0])


# ------------------------------------------------------------ per generator


@pytest.mark.parametrize("seed", [0, 1])
def test_vrp_routes_visit_every_customer_once_within_capacity(seed):
    params = DATASETS["vrp"].generator_params
    inst = routing.vrp_instance(seed, **params)
    a, _ = routing.vrp(seed, **params)
    n = params["num_customers"] + 1
    visits = sorted(c for r in inst["routes"] for c in r)
    assert visits == list(range(1, n))  # every customer exactly once, depot never inside a route
    assert all(inst["demand"][r].sum() <= inst["capacity"] for r in inst["routes"])
    assert len(inst["routes"]) >= int(np.ceil(inst["demand"].sum() / inst["capacity"]))
    legs = {tuple(sorted((u, v))) for r in inst["routes"] for u, v in zip([0, *r], [*r, 0]) if u != v}
    assert legs <= _pairs(a)
    assert a["x"][0, 3] == 1 and a["x"][1:, 3].sum() == 0  # is_depot
    assert np.allclose(a["x"][:, 2] * inst["capacity"], inst["demand"])
    # savings merge routes: far fewer routes than customers
    assert len(inst["routes"]) < params["num_customers"] // 3


@pytest.mark.parametrize("seed", [0, 5])
def test_max_flow_is_feasible_and_maximum(seed):
    params = DATASETS["max_flow"].generator_params
    inst = optimisation.max_flow_instance(seed, **params)
    cap, flow, s, t = inst["capacity"], inst["flow"], inst["source"], inst["sink"]
    assert np.array_equal(flow, -flow.T)  # skew-symmetric net flow
    u, v = np.nonzero(flow > 0)
    assert np.all(flow[u, v] <= cap[u, v]) and np.all(cap[u, v] > 0)  # respects capacities, only on arcs
    net = flow.sum(1)
    assert net[s] == inst["value"] == -net[t]
    assert np.all(np.delete(net, [s, t]) == 0)  # conservation
    g = nx.DiGraph()
    g.add_nodes_from(range(len(cap)))
    for a_, b_ in zip(*np.nonzero(cap)):
        g.add_edge(int(a_), int(b_), capacity=int(cap[a_, b_]))
    assert inst["value"] == nx.maximum_flow_value(g, s, t) > 0
    arrays, _ = optimisation.max_flow(seed, **params)
    assert {tuple(sorted((int(a_), int(b_)))) for a_, b_ in zip(u, v)} <= _pairs(arrays)
    assert arrays["x"][s, 2] == 1 and arrays["x"][t, 3] == 1 and arrays["x"][:, 2:4].sum() == 2


@pytest.mark.parametrize("seed", [0, 3])
def test_bipartite_matching_is_a_valid_maximum_matching(seed):
    params = DATASETS["bipartite_matching"].generator_params
    inst = optimisation.bipartite_matching_instance(seed, **params)
    left_n = params["num_left"]
    m = inst["matching"]
    edges = {(int(a), int(b)) for a, b in inst["edges"]}
    assert set(m) <= edges
    assert len({a for a, _ in m}) == len(m) == len({b for _, b in m})  # no node matched twice
    g = nx.Graph()
    g.add_nodes_from(range(left_n), bipartite=0)
    g.add_nodes_from(range(left_n, left_n + params["num_right"]), bipartite=1)
    g.add_edges_from((a, b + left_n) for a, b in edges)
    ref = nx.bipartite.hopcroft_karp_matching(g, top_nodes=range(left_n))
    assert len(m) == len(ref) // 2  # maximum
    others = len(edges) - len(m)
    assert len(inst["candidates"]) == round(params["candidate_share"] * others)
    arrays, _ = optimisation.bipartite_matching(seed, **params)
    pairs = _pairs(arrays)
    assert {(a, b + left_n) for a, b in m} <= pairs and len(pairs) == len(m) + len(inst["candidates"])
    assert all(a < left_n <= b for a, b in pairs)  # every edge crosses the sides
    assert np.array_equal(arrays["x"][:, 0], np.r_[np.zeros(left_n), np.ones(params["num_right"])])


@pytest.mark.parametrize("seed", [0, 4])
def test_graph_coloring_is_proper_and_one_hot(seed):
    params = DATASETS["graph_coloring"].generator_params
    inst = optimisation.graph_coloring_instance(seed, **params)
    adj, col = inst["adjacency"], inst["colors"]
    u, v = np.nonzero(np.triu(adj, 1))
    assert np.all(col[u] != col[v])  # proper: same-colour pairs are never edges
    assert col.max() + 1 <= adj.sum(1).max() + 1
    arrays, _ = optimisation.graph_coloring(seed, **params)
    assert _pairs(arrays) == {(int(a), int(b)) for a, b in zip(u, v)}  # the graph itself
    assert np.array_equal(arrays["x"].argmax(1), col) and np.all(arrays["x"].sum(1) == 1)
    assert arrays["x"].shape[1] == params["max_colors"]


def test_dsatur_colours_bipartite_and_odd_cycle_optimally():
    even = nx.to_numpy_array(nx.cycle_graph(8), dtype=bool)
    odd = nx.to_numpy_array(nx.cycle_graph(7), dtype=bool)
    assert optimisation.dsatur(even).max() + 1 == 2 and optimisation.dsatur(odd).max() + 1 == 3


@pytest.mark.parametrize("seed", [0, 2])
def test_max_cut_edges_cross_a_locally_optimal_partition(seed):
    params = DATASETS["max_cut"].generator_params
    inst = optimisation.max_cut_instance(seed, **params)
    adj, side = inst["adjacency"], inst["side"]
    arrays, _ = optimisation.max_cut(seed, **params)
    pairs = _pairs(arrays)
    assert all(adj[a, b] and side[a] != side[b] for a, b in pairs)  # cut edges of the graph
    u, v = np.nonzero(np.triu(adj, 1))
    assert pairs == {(int(a), int(b)) for a, b in zip(u, v) if side[a] != side[b]}  # all of them
    same = np.array([np.sum(adj[i] & (side == side[i])) for i in range(len(side))])
    assert np.all(same <= adj.sum(1) - same)  # no single flip improves the cut
    assert len(pairs) >= len(u) / 2
    assert np.array_equal(arrays["x"][:, 0], 2.0 * inst["initial_side"] - 1)


def test_synthetic_triangles_labels_match_networkx():
    arrays, counts = _gen("synthetic_triangles", 1)
    ptr, eptr, ei, y = arrays["node_ptr"], arrays["edge_ptr"], arrays["edge_index"], arrays["y"]
    assert y.dtype == np.float32 and y.shape == (counts["num_graphs"], 2) == (300, 2)
    assert arrays["x"].shape == (ptr[-1], 1) and np.all(arrays["x"] == 1)
    sizes = np.diff(ptr)
    assert sizes.min() >= 10 and sizes.max() <= 30
    total_pairs = 0
    for g in range(len(sizes)):
        local = ei[:, eptr[g]:eptr[g + 1]]
        assert local.size == 0 or (local.min() >= 0 and local.max() < sizes[g])
        pairs = {(int(a), int(b)) for a, b in local.T}
        assert pairs == {(b, a) for a, b in pairs}  # both directions
        graph = nx.Graph()
        graph.add_nodes_from(range(sizes[g]))
        graph.add_edges_from(pairs)
        total_pairs += graph.number_of_edges()
        assert y[g, 0] == sum(nx.triangles(graph).values()) / 3
        radius = np.linalg.eigvalsh(nx.to_numpy_array(graph, nodelist=range(sizes[g])))[-1]
        assert abs(y[g, 1] - radius) < 1e-4
    assert total_pairs == counts["num_edges"]
    assert y[:, 0].max() > 10 and len(np.unique(y[:, 0])) > 20  # a non-trivial regression target


def test_watts_strogatz_keeps_edge_count_and_ring_without_rewiring():
    rng = np.random.default_rng(0)
    ring = triangles.watts_strogatz(rng, 12, 4, 0.0)
    assert np.array_equal(ring, nx.to_numpy_array(nx.watts_strogatz_graph(12, 4, 0.0), dtype=bool))
    rewired = triangles.watts_strogatz(rng, 12, 4, 0.5)
    assert rewired.sum() == ring.sum() and not np.any(np.diag(rewired)) and np.array_equal(rewired, rewired.T)
