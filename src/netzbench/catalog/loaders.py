"""Processors: raw files -> a processed array bundle (the arrays PyG's classes give).

The processors of Zachary's karate club, the Planetoid citation graphs and TU collections. Karate and the
TU collections are built with numpy alone, as PyG's ``KarateClub`` and ``TUDataset`` build them (tests hold
them equal): importing torch and PyG would be most of their fetch's time. Planetoid is read by PyG. The
module keeps its name from before the catalogue's glossary (a loader is a user's callable there):
a processor's module is part of the name fetch records for it (``netzbench.catalog.loaders:karate``).

Each processor takes the raw directory and returns ``(arrays, counts)`` or
``(arrays, counts, dropped)``. ``arrays`` is a flat dict of numpy arrays
(see :mod:`netzbench.graphs.layout` for the layout); ``counts`` are the
processor's own counts and ``dropped`` what it left out of the raw records
(self-loops, duplicate edges, weights, ...): fetch writes both into
``meta.json`` beside the counts every dataset of the family has
(:mod:`netzbench.graphs.counts`). Processing must be a deterministic
function of the raw bytes.
"""

from __future__ import annotations

import pickle
import shutil
import tempfile
from pathlib import Path

import numpy as np

from ..graphs.collection import collection_arrays
from ..graphs.convert import single_graph_arrays, single_graph_counts
from ..graphs.edges import undirected_pairs
from ..graphs.features import structural_features
from .readers.safe_pickle import load_planetoid
from .readers.files import ReadError, count_dropped
from .readers.tu import FMT as TU_FMT
from .readers.tu import node_label_onehot, tu_edge_values, tu_edges, tu_files, tu_graph_labels, tu_graphs


def _single_graph(data) -> tuple[dict, dict]:
    arrays = single_graph_arrays(data)
    if "y" in arrays:
        arrays["y"] = arrays["y"].astype(np.int64)
    return arrays, single_graph_counts(arrays)


#: Zachary's karate club (Zachary 1977): its 78 friendships as pairs ``i < j`` ...
KARATE_PAIRS = (
    (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (0, 7), (0, 8), (0, 10), (0, 11), (0, 12), (0, 13), (0, 17),
    (0, 19), (0, 21), (0, 31), (1, 2), (1, 3), (1, 7), (1, 13), (1, 17), (1, 19), (1, 21), (1, 30), (2, 3), (2, 7),
    (2, 8), (2, 9), (2, 13), (2, 27), (2, 28), (2, 32), (3, 7), (3, 12), (3, 13), (4, 6), (4, 10), (5, 6), (5, 10),
    (5, 16), (6, 16), (8, 30), (8, 32), (8, 33), (9, 33), (13, 33), (14, 32), (14, 33), (15, 32), (15, 33), (18, 32),
    (18, 33), (19, 33), (20, 32), (20, 33), (22, 32), (22, 33), (23, 25), (23, 27), (23, 29), (23, 32), (23, 33),
    (24, 25), (24, 27), (24, 31), (25, 31), (26, 29), (26, 33), (27, 33), (28, 31), (28, 33), (29, 32), (29, 33),
    (30, 32), (30, 33), (31, 32), (31, 33), (32, 33))
#: ... and the four communities of its members, from modularity-based clustering (Kipf & Welling 2017), the
#: labels PyG's ``KarateClub`` carries (tests/test_catalog_core.py holds both equal to PyG's)
KARATE_COMMUNITY = (1, 1, 1, 1, 3, 3, 3, 1, 0, 1, 3, 1, 1, 1, 0, 0, 3, 1, 0, 1, 0, 1, 0, 0, 2, 2, 0, 0, 2, 0, 0, 2, 0, 0)


def karate(raw_dir: Path | None = None, fmt: str = "builtin") -> tuple[dict, dict]:
    """Zachary's karate club (no download): one-hot identities as features, both directions of every
    friendship sorted by source then target, the four communities as labels; the arrays PyG's
    ``KarateClub`` gives, without importing PyG (seconds of a fetch stage's start)."""
    pairs = np.asarray(KARATE_PAIRS, dtype=np.int64).T
    both = np.concatenate([pairs, pairs[::-1]], axis=1)
    n = len(KARATE_COMMUNITY)
    arrays = {"num_nodes": np.asarray(n, dtype=np.int64), "x": np.eye(n, dtype=np.float32),
              "edge_index": both[:, np.lexsort((both[1], both[0]))],
              "y": np.asarray(KARATE_COMMUNITY, dtype=np.int64)}
    return arrays, single_graph_counts(arrays)


PLANETOID_SUFFIXES = ("x", "tx", "allx", "y", "ty", "ally", "graph", "test.index")


def planetoid_copy(folder: str | Path, prefix: str, dst: str | Path) -> None:
    """The eight files ``ind.<prefix>.*`` of ``folder`` (named as PyG reads them: prefix lower-cased)
    rewritten into ``dst``: each pickle read by the restricted unpickler
    (:func:`~.readers.safe_pickle.load_planetoid`) and pickled again, so that PyG, which reads
    them with a plain ``pickle.load``, only ever unpickles the numpy/scipy objects netzbench wrote."""
    dst = Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    for suffix in PLANETOID_SUFFIXES:
        name = f"ind.{prefix.lower()}.{suffix}"
        if suffix == "test.index":  # text
            shutil.copyfile(Path(folder) / name, dst / name)
            continue
        obj = load_planetoid(Path(folder) / name)
        with open(dst / name, "wb") as fh:
            pickle.dump(obj, fh, protocol=pickle.HIGHEST_PROTOCOL)


def planetoid_dropped(folder: str | Path, name: str) -> dict:
    """Self-loops and repeated neighbours of ``ind.<name>.graph``, which PyG's Planetoid reader drops."""
    graph = load_planetoid(Path(folder) / f"ind.{name.lower()}.graph")
    src = np.repeat(np.asarray(list(graph), dtype=np.int64), [len(v) for v in graph.values()])
    dst = np.asarray([v for vs in graph.values() for v in vs], dtype=np.int64)
    return count_dropped(src, dst)


def planetoid(raw_dir: Path, fmt: str = "planetoid") -> tuple[dict, dict, dict]:
    """Planetoid citation graph (Cora/CiteSeer/PubMed) with its public split, via PyG (which reads
    a restricted-unpickled copy of the raw files, :func:`planetoid_copy`)."""
    from torch_geometric.datasets import Planetoid

    prefix = next(Path(raw_dir).glob("ind.*.x")).name.split(".")[1]
    name = {"cora": "Cora", "citeseer": "CiteSeer", "pubmed": "PubMed"}[prefix]
    with tempfile.TemporaryDirectory(prefix="netzbench-pyg-") as tmp:
        planetoid_copy(raw_dir, prefix, Path(tmp) / name / "raw")
        data = Planetoid(tmp, name)[0]
        return (*_single_graph(data), planetoid_dropped(raw_dir, prefix))


def _coalesced(records: np.ndarray, num_nodes: int) -> np.ndarray:
    """``[2, m]`` from the directed records ``[m, 2]``: self-loops and repeated records dropped, sorted by
    source then target (PyG's ``remove_self_loops`` then ``coalesce``). Nothing is symmetrised: a pair
    the file lists in one direction only stays one directed edge, as in PyG's ``TUDataset``."""
    src, dst = records[:, 0], records[:, 1]
    loops = src == dst
    # one int64 key per record, ordered as coalesce orders them; a 1-D sort is far faster than np.unique
    keys = np.sort(src[~loops] * num_nodes + dst[~loops])
    first = np.ones(keys.size, dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    keys = keys[first]
    return np.stack([keys // num_nodes, keys % num_nodes])


def _tu_x(files: dict, num_nodes: int, edge_index: np.ndarray) -> np.ndarray:
    """PyG's node features with ``use_node_attr=False``, filled in where PyG leaves none."""
    onehot = node_label_onehot(files, num_nodes)
    if onehot is not None:  # the node attributes PyG puts before them are sliced off again: not read
        return onehot
    if "node_attributes" in files:
        # PyG's x is then the attributes alone, all sliced off: rows and no column, not None, so that
        # the degree features below were never filled in either (no catalogue collection is like this)
        return np.zeros((num_nodes, 0), dtype=np.float32)
    # PyG's x is None: [1, log(1 + degree)] (graph_x); edges stay within a graph, so the degrees over
    # the whole collection are the degrees within each graph
    return structural_features(num_nodes, undirected_pairs(edge_index).reshape(-1))


def tudataset(raw_dir: Path, fmt: str = "tu") -> tuple[dict, dict, dict]:
    """A TU graph collection, read with numpy alone as PyG's ``TUDataset(root, name)`` reads it (its
    default ``use_node_attr=False``); graphs concatenated with offsets. tests/test_tu_catalogue_reader.py
    holds the arrays, counts and ``dropped`` equal to those of the PyG path on the mirror's MUTAG,
    PROTEINS and ENZYMES and on fixtures. PyG's choices, kept:

    - ``x``: each node-label column shifted to start at 0 and one-hot encoded, the columns side by side;
      node attributes are not used. Without node labels or attributes, ``[1, log(1 + degree)]`` within
      the graph; with attributes but no labels, no feature column at all (PyG slices them all off).
    - ``edge_index``: the records of ``_A.txt`` as listed (not symmetrised), self-loops and repeated
      records dropped, sorted by source then target over the collection; local ids per graph.
    - ``y``: the graph labels mapped to ``0..C-1`` in sorted order (``-1``/``1`` -> 0/1).

    Departures, where PyG's result is no collection: files are checked (:func:`~.readers.tu.tu_graphs`,
    :func:`~.readers.tu.tu_edges`; 0-based ids are read as such), trailing graphs without edges are kept
    (PyG's slices lose them), and ``_graph_attributes.txt`` (regression targets, which PyG would take
    for ``y``) is refused: this processor makes a classification collection.
    """
    _, files = tu_files(raw_dir)
    if "graph_attributes" in files:
        raise ReadError(TU_FMT, files["graph_attributes"], "graph classes in _graph_labels.txt (the catalogue's "
                        "TU processor makes graph_cls collections)", "regression targets")
    graph, node_ptr = tu_graphs(files)
    records, dropped = tu_edges(files, graph)  # dropped: self-loops, repeated records (one read of _A.txt)
    edge_index = _coalesced(records, graph.size)
    owner = graph[edge_index[0]]
    edge_ptr = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=len(node_ptr) - 1))]).astype(np.int64)
    x = _tu_x(files, graph.size, edge_index)
    # PyG's unique(sorted=True, return_inverse=True)
    y = np.unique(tu_graph_labels(files, len(node_ptr) - 1), return_inverse=True)[1]
    arrays, counts = collection_arrays(x, edge_index - node_ptr[owner], node_ptr, edge_ptr, y)
    return arrays, counts, {**dropped, **tu_edge_values(files)}
