"""Processors: raw files -> a processed array bundle (PyG classes where they exist).

The processors of Zachary's karate club, the Planetoid citation graphs and TU collections. The
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

from ..graphs.collection import collection_arrays, stack_graphs
from ..graphs.convert import graph_x, single_graph_arrays, single_graph_counts
from .readers.safe_pickle import load_planetoid
from .readers.staging import stage
from .readers.files import count_dropped
from .readers.tu import tu_dropped


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


def tudataset(raw_dir: Path, fmt: str = "tu") -> tuple[dict, dict, dict]:
    """A TUDataset graph collection, via PyG; graphs concatenated with offsets. Graphs without node
    labels or attributes (PyG leaves ``x`` empty) get ``[1, log(1 + degree)]`` within the graph."""
    from torch_geometric.datasets import TUDataset

    name = next(Path(raw_dir).glob("*_graph_indicator.txt")).name[: -len("_graph_indicator.txt")]
    tmp, root = stage(raw_dir, name, "raw")
    with tmp:
        ds = TUDataset(str(root), name)
        graphs = list(ds)
        stacked = stack_graphs([graph_x(g) for g in graphs], [g.edge_index.numpy() for g in graphs])
        arrays, counts = collection_arrays(*stacked, np.concatenate([g.y.numpy().reshape(-1) for g in graphs]))
    return arrays, counts, tu_dropped(raw_dir)
