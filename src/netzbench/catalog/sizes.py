"""The recorded size of every dataset of the catalogue, for a stand-in of the right size where the data is not here.

:data:`SIZES` gives, per dataset id, the counts its processed data has (or would have) in ``meta.json``'s
``counts``, with the same names and meanings (:mod:`netzbench.graphs.counts`): ``num_nodes``;
``num_edges``, the unique undirected node pairs, self-loops excluded (a collection: summed over its
graphs; a knowledge graph: over all three splits of triples); ``num_features`` (columns of ``x``, where
the processed data has ``x``); ``num_classes`` (a multi-label target: its number of labels);
``num_graphs`` (collections: ``num_nodes``/``num_edges`` are totals over all graphs); ``num_relations``
and ``num_{train,valid,test}_triples`` (knowledge graphs); ``num_targets`` (graph regression). A dataset
serving two families (Cora, CiteSeer, PubMed, karate) has the union of their keys.

:data:`SOURCES` says where each entry's figures come from:

- ``processed data (meta.json)``: measured, the counts fetch writes for the data as the catalogue
  processes it (the shared mirror's datasets and the karate club shipped with PyG);
- ``generator parameters ...``: a synthetic dataset (a new instance per seed): the counts of the seed-0
  instance of the catalogue's ``generator_params``; node and feature counts are fixed by the
  parameters, edge counts vary a little from seed to seed (:data:`REFERENCE_SIZES`: the instances
  ``protocol: paper`` generates, where its ``synthetic_graphs: reference`` switch changes them);
- otherwise the publication or official statistics page the figures are taken from, converted to the
  processed form where the source counts differently (directed edges halved, per-graph means times
  the graph count, the processor's own parameters such as ShapeNet's 256 points per shape). Entries
  marked ``approximate`` are best estimates: the source counts something slightly different (repeated
  or timestamped records, self-loops) or only averages are published.
"""

from __future__ import annotations

MEASURED = "processed data (meta.json)"
GENERATED = "generator parameters (seed-0 instance; edge count varies by seed)"

SIZES: dict[str, dict[str, int]] = {
    # ------------------------------------------------------------------ synthetic (generated per seed)
    "random_tsp": {"num_nodes": 200, "num_edges": 396, "num_features": 2},
    "ising_lattice": {"num_nodes": 400, "num_edges": 800, "num_features": 1},
    "vrp": {"num_nodes": 101, "num_edges": 232, "num_features": 4},
    "max_flow": {"num_nodes": 100, "num_edges": 168, "num_features": 6},
    "bipartite_matching": {"num_nodes": 120, "num_edges": 81, "num_features": 2},
    "graph_coloring": {"num_nodes": 100, "num_edges": 266, "num_features": 16},
    "max_cut": {"num_nodes": 100, "num_edges": 212, "num_features": 2},
    "synthetic_triangles": {"num_graphs": 300, "num_nodes": 6009, "num_edges": 13843, "num_features": 1,
                            "num_targets": 2},
    # ------------------------------------------------------------------ measured: builtin and mirror
    "karate": {"num_nodes": 34, "num_edges": 78, "num_features": 34, "num_classes": 4},
    "cora": {"num_nodes": 2708, "num_edges": 5278, "num_features": 1433, "num_classes": 7},
    "citeseer": {"num_nodes": 3327, "num_edges": 4552, "num_features": 3703, "num_classes": 6},
    "minesweeper": {"num_nodes": 10000, "num_edges": 39402, "num_features": 7, "num_classes": 2},
    "tolokers": {"num_nodes": 11758, "num_edges": 519000, "num_features": 10, "num_classes": 2},
    "mutag": {"num_graphs": 188, "num_nodes": 3371, "num_edges": 3721, "num_features": 7, "num_classes": 2},
    "proteins": {"num_graphs": 1113, "num_nodes": 43471, "num_edges": 81044, "num_features": 3, "num_classes": 2},
    "enzymes": {"num_graphs": 600, "num_nodes": 19580, "num_edges": 37282, "num_features": 3, "num_classes": 6},
    "fb15k_237": {"num_nodes": 14541, "num_edges": 247294, "num_relations": 237, "num_train_triples": 272115,
                  "num_valid_triples": 17535, "num_test_triples": 20466},
    "wordnet18rr": {"num_nodes": 40943, "num_edges": 75753, "num_relations": 11, "num_train_triples": 86835,
                    "num_valid_triples": 3034, "num_test_triples": 3134},
    "board_directors": {"num_nodes": 1421, "num_edges": 3855},
    "celegans": {"num_nodes": 297, "num_edges": 2148},
    "dnc_emails": {"num_nodes": 1866, "num_edges": 4384},
    "eu_airlines": {"num_nodes": 417, "num_edges": 2953},
    "euroroad": {"num_nodes": 1174, "num_edges": 1417},
    "facebook_friends": {"num_nodes": 348, "num_edges": 1988},
    "high_school_contacts": {"num_nodes": 327, "num_edges": 5818},
    "hospital_contacts": {"num_nodes": 75, "num_edges": 1139},
    "internet_as": {"num_nodes": 22963, "num_edges": 48436},
    "london_transport": {"num_nodes": 369, "num_edges": 430},
    "power_grid": {"num_nodes": 4941, "num_edges": 6594},
    "terrorists_911": {"num_nodes": 61, "num_edges": 131},
    "train_terrorists": {"num_nodes": 64, "num_edges": 243},
    # ------------------------------------------------------------------ literature: node classification
    "pubmed": {"num_nodes": 19717, "num_edges": 44324, "num_features": 500, "num_classes": 3},
    "wikics": {"num_nodes": 11701, "num_edges": 215863, "num_features": 300, "num_classes": 10},
    "roman_empire": {"num_nodes": 22662, "num_edges": 32927, "num_features": 300, "num_classes": 18},
    "amazon_ratings": {"num_nodes": 24492, "num_edges": 93050, "num_features": 300, "num_classes": 5},
    "questions": {"num_nodes": 48921, "num_edges": 153540, "num_features": 301, "num_classes": 2},
    "ogbn_arxiv": {"num_nodes": 169343, "num_edges": 1157799, "num_features": 128, "num_classes": 40},
    "ogbn_products": {"num_nodes": 2449029, "num_edges": 61859140, "num_features": 100, "num_classes": 47},
    "elliptic_bitcoin": {"num_nodes": 203769, "num_edges": 234355, "num_features": 165, "num_classes": 2},
    "shapenet": {"num_nodes": 4321536, "num_edges": 15600000, "num_features": 22, "num_classes": 50},
    # ------------------------------------------------------------------ literature: link prediction
    "movielens_100k": {"num_nodes": 2625, "num_edges": 100000, "num_features": 42},
    "ogbl_collab": {"num_nodes": 235868, "num_edges": 1285465, "num_features": 128},
    "ppi": {"num_nodes": 56944, "num_edges": 818716, "num_features": 50},
    # homogeneous link prediction (relation types dropped): no num_relations, which would make a
    # stand-in a knowledge graph
    "wordnet": {"num_nodes": 146005, "num_edges": 656999},
    "budapest_connectome": {"num_nodes": 1015, "num_edges": 91244},
    "urban_streets": {"num_nodes": 488, "num_edges": 729},
    "product_space": {"num_nodes": 774, "num_edges": 1779},
    "dblp_coauthor": {"num_nodes": 1314050, "num_edges": 10724828},
    "internet_topology": {"num_nodes": 34761, "num_edges": 107720},
    "route_views": {"num_nodes": 6474, "num_edges": 12572},
    "as_skitter": {"num_nodes": 1696415, "num_edges": 11095298},
    "us_roads": {"num_nodes": 1965206, "num_edges": 2766607},
    "us_patents": {"num_nodes": 3774768, "num_edges": 16518948},
    # ------------------------------------------------------------------ literature: graph collections
    "ogbg_molhiv": {"num_graphs": 41127, "num_nodes": 1049163, "num_edges": 1129688, "num_features": 9,
                    "num_classes": 2},
    "ogbg_molpcba": {"num_graphs": 437929, "num_nodes": 11386154, "num_edges": 12305805, "num_features": 9,
                     "num_classes": 128},
    "peptides_func": {"num_graphs": 15535, "num_nodes": 2344859, "num_edges": 2386987, "num_features": 9,
                      "num_classes": 10},
    "peptides_struct": {"num_graphs": 15535, "num_nodes": 2344859, "num_edges": 2386987, "num_features": 9,
                        "num_targets": 11},
    "qm9": {"num_graphs": 130831, "num_nodes": 2354958, "num_edges": 2439998, "num_features": 11, "num_targets": 12},
    "zinc": {"num_graphs": 12000, "num_nodes": 278400, "num_edges": 298800, "num_features": 28, "num_targets": 1},
    "malnet_tiny": {"num_graphs": 5000, "num_nodes": 7051500, "num_edges": 14299500, "num_features": 2,
                    "num_classes": 5},
    "mnist_superpixels": {"num_graphs": 1500, "num_nodes": 112500, "num_edges": 1044750, "num_features": 1,
                          "num_classes": 10},
    "cifar10_superpixels": {"num_graphs": 60000, "num_nodes": 7056000, "num_edges": 32460000, "num_features": 5,
                            "num_classes": 10},
    "modelnet10": {"num_graphs": 4899, "num_nodes": 4899000, "num_edges": 14697000, "num_features": 3,
                   "num_classes": 10},
    "modelnet40": {"num_graphs": 12311, "num_nodes": 12311000, "num_edges": 36933000, "num_features": 3,
                   "num_classes": 40},
}

SOURCES: dict[str, str] = {
    **{d: GENERATED for d in ("random_tsp", "ising_lattice", "vrp", "max_flow", "bipartite_matching",
                              "graph_coloring", "max_cut", "synthetic_triangles")},
    **{d: MEASURED for d in (
        "karate", "cora", "citeseer", "minesweeper", "tolokers", "mutag", "proteins", "enzymes", "fb15k_237",
        "wordnet18rr", "board_directors", "celegans", "dnc_emails", "eu_airlines", "euroroad",
        "facebook_friends", "high_school_contacts", "hospital_contacts", "internet_as", "london_transport",
        "power_grid", "terrorists_911", "train_terrorists")},
    "pubmed": "PyG dataset statistics (Planetoid PubMed: 19,717 nodes, 88,648 directed edges = 44,324 pairs)",
    "wikics": "Mernyei & Cangea 2020 (nodes, features, classes); edges approximate: PyG's symmetrised "
              "431,726 / 2 (the paper lists 216,123 links)",
    "roman_empire": "Platonov et al. 2023, Table 1 (= PyG HeterophilousGraphDataset statistics)",
    "amazon_ratings": "Platonov et al. 2023, Table 1 (= PyG HeterophilousGraphDataset statistics)",
    "questions": "Platonov et al. 2023, Table 1 (= PyG HeterophilousGraphDataset statistics)",
    "ogbn_arxiv": "OGB paper, Hu et al. 2020, Table 2 (169,343 nodes, 1,166,243 directed citations); pairs: "
                  "the symmetrised graph's 2,315,598 directed edges / 2",
    "ogbn_products": "OGB paper, Hu et al. 2020, Table 2 (61,859,140 undirected edges)",
    "elliptic_bitcoin": "PyG dataset statistics (EllipticBitcoinDataset); Weber et al. 2019",
    "shapenet": "processor parameters: 16,881 shapes (PyG ShapeNet) x 256 points, 22 features, 50 parts; "
                "edges approximate (k=6 symmetrised kNN, ~3.6 pairs per point, simulated)",
    "movielens_100k": "PyG MovieLens100K statistics: 943 users (24 features) + 1,682 movies (18), 100,000 ratings",
    "ogbl_collab": "OGB paper, Hu et al. 2020, Table 3; edges approximate (OGB's count repeats a pair per "
                   "year, the processed graph collapses repeats)",
    "ppi": "GraphSAGE / PyG PPI: 24 graphs, 56,944 nodes, 50 features; edges approximate (818,716 as in "
           "Cluster-GCN, Chiang et al. 2019, Table 2)",
    "wordnet": "KONECT wordnet-words (146,005 words, 656,999 relations); approximate",
    "budapest_connectome": "Netzschleuder budapest_connectome (Szalkai et al. 2015); approximate, sub-network unverified",
    "urban_streets": "Cardillo et al. 2006, Table I (London, 1 square mile); approximate",
    "product_space": "Netzschleuder product_space/SITC (Hidalgo et al. 2007); approximate",
    "dblp_coauthor": "KONECT dblp_coauthor (1,314,050 authors, 18,986,618 records); unique pairs approximate",
    "internet_topology": "KONECT topology (34,761 ASes, 171,403 timestamped records); unique pairs approximate",
    "route_views": "SNAP as-733, as20000102 (6,474 nodes, 13,895 edges with self-loops); pairs approximate",
    "as_skitter": "SNAP as-skitter statistics",
    "us_roads": "SNAP roadNet-CA statistics",
    "us_patents": "SNAP cit-Patents statistics",
    "ogbg_molhiv": "OGB paper, Hu et al. 2020, Table 4 (41,127 graphs; 25.5 nodes, 27.5 edges on average); "
                   "totals approximate",
    "ogbg_molpcba": "OGB paper, Hu et al. 2020, Table 4 (437,929 graphs; 26.0 nodes, 28.1 edges on "
                    "average); totals approximate",
    "peptides_func": "LRGB paper, Dwivedi et al. 2022, Table 1 (2,344,859 nodes, 4,773,974 directed edges / 2)",
    "peptides_struct": "LRGB paper, Dwivedi et al. 2022, Table 1 (2,344,859 nodes, 4,773,974 directed edges / 2)",
    "qm9": "PyG QM9 statistics (130,831 graphs; ~18.0 nodes, ~37.3 directed edges each); totals approximate",
    "zinc": "PyG ZINC subset statistics (12,000 graphs; ~23.2 nodes, ~49.8 directed edges each); totals approximate",
    "malnet_tiny": "Freitas et al. 2021 (5,000 graphs; 1,410.3 nodes, 2,859.9 edges on average); totals approximate",
    "mnist_superpixels": "PyG MNISTSuperpixels statistics (75 nodes, ~1,393 directed edges each) x the "
                         "processor's 1,500 graphs; edges approximate",
    "cifar10_superpixels": "PyG GNNBenchmarkDataset statistics (60,000 graphs; ~117.6 nodes, 8-NN edges); "
                           "pairs approximate (~4.6 per node, simulated)",
    "modelnet10": "rough estimate, approximate: ~1,000 nodes and ~3,000 pairs per mesh after the processor's "
                  "24^3 vertex clustering (PyG's full meshes: ~9,508 vertices)",
    "modelnet40": "rough estimate, approximate: ~1,000 nodes and ~3,000 pairs per mesh after the processor's "
                  "24^3 vertex clustering (PyG's full meshes: ~17,744 vertices)",
}

#: the instances ``protocol: paper`` generates (its ``synthetic_graphs: reference`` switch) where they differ
#: from :data:`SIZES` (seed 0, the catalogue's ``reference_params`` over its ``generator_params``)
REFERENCE_SIZES: dict[str, dict[str, int]] = {
    "random_tsp": {"num_nodes": 200, "num_edges": 479, "num_features": 2},
    "ising_lattice": {"num_nodes": 400, "num_edges": 1482, "num_features": 1},
}


def size_of(dataset_id: str) -> dict[str, int]:
    """A copy of the recorded size of dataset ``dataset_id`` (:data:`SIZES`)."""
    try:
        return dict(SIZES[dataset_id])
    except KeyError:
        raise KeyError(f"no recorded size for dataset {dataset_id!r}; netzbench.catalog.sizes.SIZES has the "
                       f"{len(SIZES)} datasets of the catalogue") from None


__all__ = ["GENERATED", "MEASURED", "REFERENCE_SIZES", "SIZES", "SOURCES", "size_of"]
