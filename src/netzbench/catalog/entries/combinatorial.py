"""Combinatorial category: seed-aware synthetic instances of classic optimisation problems.

The random TSP lives in :mod:`netzbench.catalog.table`; the other five of the
paper's combinatorial datasets (VRP, max-flow, bipartite matching, colouring,
max-cut) and one extra regression task are made by generators in
:mod:`netzbench.synthetic`. Each seed gets its own instance.
"""

from __future__ import annotations

from ...synthetic import optimisation, routing, triangles
from ..table import Dataset, TaskSpec, add_dataset, add_task

_LICENSE = "synthetic (generated, no license needed)"

add_dataset(Dataset(
    id="vrp",
    name="Random capacitated VRP",
    category="combinatorial",
    families=("link_pred",),
    description=(
        "A capacitated vehicle-routing instance: a depot (node 0) and 100 customers uniform in the "
        "unit square, integer demands 1-9, vehicle capacity 50 (Kool et al. 2019 sizes). The graph "
        "is the set of routes found by the Clarke-Wright savings heuristic (depot-customer and "
        "consecutive-customer legs) plus each node's 3 nearest neighbours as candidate edges. Node "
        "features: coordinates, demand / capacity, is_depot. Predicting a held-out edge means "
        "deciding whether two stops are joined by a leg of a good, capacity-feasible route plan or "
        "are close candidates for one."
    ),
    license=_LICENSE,
    citation="netzbench generator; Clarke & Wright (1964) savings; instances as in Kool, van Hoof, Welling (2019)",
    processor=routing.vrp,
    synthetic=True,
    generator_params={"num_customers": 100, "capacity": 50, "k_neighbors": 3},
))
add_dataset(Dataset(
    id="max_flow",
    name="Random max-flow network",
    category="combinatorial",
    families=("link_pred",),
    description=(
        "100 nodes uniform in the unit square; every pair in which one node is among the other's 4 "
        "nearest neighbours is joined by an arc in each direction, each with its own integer "
        "capacity 1-20; the source is the leftmost node, the sink the rightmost. A "
        "maximum flow is computed by Edmonds-Karp. The graph holds every node pair carrying positive "
        "net flow plus each node's 2 nearest neighbours as candidate edges (treated as undirected). "
        "Node features: coordinates, is_source, is_sink, and the node's total outgoing and incoming "
        "capacity (each divided by its maximum). Predicting a held-out edge means deciding whether "
        "the maximum flow routes through that connection (or it is a nearest-neighbour candidate)."
    ),
    license=_LICENSE,
    citation="netzbench generator; Edmonds & Karp (1972)",
    processor=optimisation.max_flow,
    synthetic=True,
    generator_params={"num_nodes": 100, "out_degree": 4, "max_capacity": 20, "k_neighbors": 2},
))
add_dataset(Dataset(
    id="bipartite_matching",
    name="Random bipartite matching",
    category="combinatorial",
    families=("link_pred",),
    description=(
        "A random bipartite graph with 60 left and 60 right nodes (each pair an edge with "
        "probability 3/60). The graph holds a maximum matching (augmenting paths) plus 25% of the "
        "remaining edges, chosen uniformly at random, as candidate edges. Node features: side (0 "
        "left, 1 right) and degree in the full bipartite graph (divided by its maximum). Predicting "
        "a held-out edge means deciding whether a left-right pair belongs to the matching or to the "
        "kept candidate edges; same-side pairs are never edges."
    ),
    license=_LICENSE,
    citation="netzbench generator; maximum bipartite matching by augmenting paths (Kuhn 1955)",
    processor=optimisation.bipartite_matching,
    synthetic=True,
    generator_params={"num_left": 60, "num_right": 60, "avg_degree": 3.0, "candidate_share": 0.25},
))
add_dataset(Dataset(
    id="graph_coloring",
    name="Random graph colouring",
    category="combinatorial",
    families=("link_pred",),
    description=(
        "An Erdos-Renyi graph on 100 nodes with mean degree 5, coloured by DSATUR (Brelaz 1979). "
        "The graph is the random graph itself; node features are the one-hot DSATUR colour class "
        "(16 slots). Because the colouring is proper, every colour class is an independent set: "
        "two nodes of the same colour are never joined. Predicting a held-out edge means deciding "
        "whether two nodes conflict, i.e. must receive different colours; a model can use the "
        "colours to rule out same-colour pairs and the remaining edges for the rest."
    ),
    license=_LICENSE,
    citation="netzbench generator; DSATUR colouring (Brelaz 1979)",
    processor=optimisation.graph_coloring,
    synthetic=True,
    generator_params={"num_nodes": 100, "avg_degree": 5.0, "max_colors": 16},
))
add_dataset(Dataset(
    id="max_cut",
    name="Random max-cut",
    category="combinatorial",
    families=("link_pred",),
    description=(
        "An Erdos-Renyi graph on 100 nodes with mean degree 6 and a max-cut partition found by "
        "one-flip local search from a random start (locally optimal: every node has at least half "
        "of its edges cut). The graph holds only the cut edges, so it is bipartite between the two "
        "sides. Node features: the random initial side (+1/-1) and the degree in the full graph "
        "(divided by its maximum); the final side is not given. Predicting a held-out edge means "
        "deciding whether a pair is an edge of the graph that the partition cuts, which requires "
        "recovering the two sides from the remaining cut edges."
    ),
    license=_LICENSE,
    citation="netzbench generator; local search for max-cut (e.g. Papadimitriou & Steiglitz 1982)",
    processor=optimisation.max_cut,
    synthetic=True,
    generator_params={"num_nodes": 100, "avg_degree": 6.0},
))
add_dataset(Dataset(
    id="synthetic_triangles",
    name="Triangle counting on random graphs (extra)",
    category="combinatorial",
    families=("graph_reg",),
    description=(
        "An extra offline graph-regression task, not one of the paper's 63 datasets. A collection of "
        "300 random graphs with 10-30 nodes per seed, half Erdos-Renyi (p in 0.1-0.4), half "
        "Watts-Strogatz (k in {2, 4, 6}, rewiring 0-0.3). Targets (float32 [G, 2]): the number of "
        "triangles and the spectral radius (largest adjacency eigenvalue). Node features are a "
        "constant 1, so the counts must come from structure; message-passing GNNs bounded by the "
        "1-WL test cannot count triangles exactly, which makes this a small expressivity probe."
    ),
    license=_LICENSE,
    citation="netzbench generator; Erdos & Renyi (1959); Watts & Strogatz (1998)",
    processor=triangles.synthetic_triangles,
    synthetic=True,
    in_paper=False,
    generator_params={"num_graphs": 300, "min_nodes": 10, "max_nodes": 30},
))

for _id, _what in (
    ("vrp", "capacitated VRP instances (savings routes + kNN candidates)"),
    ("max_flow", "max-flow networks (flow-carrying pairs + kNN candidates)"),
    ("bipartite_matching", "bipartite graphs (maximum matching + 25% of the other edges)"),
    ("graph_coloring", "DSATUR-coloured random graphs (colour classes as features)"),
    ("max_cut", "local-search max-cut partitions (cut edges only)"),
):
    add_task(TaskSpec(_id, _id, "link_pred", 80, "random_edge_80_10_10",
                      f"Link prediction on random {_what}; one instance per seed."))

add_task(TaskSpec("synthetic_triangles", "synthetic_triangles", "graph_reg", 60, "random_graph_80_10_10",
                  "Extra (not in the paper): regress triangle count and spectral radius of 300 random "
                  "graphs per seed; graphs shuffled per seed and cut 80/10/10.", in_paper=False))
