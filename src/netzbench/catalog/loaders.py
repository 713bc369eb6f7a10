"""Processors: raw files -> a processed array bundle (PyG classes where they exist).

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

from pathlib import Path

import numpy as np

from ..graphs.collection import collection_arrays, stack_graphs
from ..graphs.convert import graph_x, single_graph_arrays, single_graph_counts
from .readers.staging import stage
from .readers.text import count_dropped
from .readers.tu import tu_dropped


def _single_graph(data) -> tuple[dict, dict]:
    arrays = single_graph_arrays(data)
    if "y" in arrays:
        arrays["y"] = arrays["y"].astype(np.int64)
    return arrays, single_graph_counts(arrays)


def karate(raw_dir: Path | None = None, fmt: str = "builtin") -> tuple[dict, dict]:
    """Zachary's karate club, shipped inside PyG (no download)."""
    from torch_geometric.datasets import KarateClub

    data = KarateClub()[0]
    arrays, counts = _single_graph(data)
    for mask in ("train_mask", "val_mask", "test_mask"):
        arrays.pop(mask, None)  # PyG's 4-node mask is replaced by a per-seed stratified split
    return arrays, counts


def planetoid_dropped(folder: str | Path, name: str) -> dict:
    """Self-loops and repeated neighbours of ``ind.<name>.graph``, which PyG's Planetoid reader drops."""
    from torch_geometric.io.planetoid import read_file

    graph = read_file(str(folder), name, "graph")
    src = np.repeat(np.asarray(list(graph), dtype=np.int64), [len(v) for v in graph.values()])
    dst = np.asarray([v for vs in graph.values() for v in vs], dtype=np.int64)
    return count_dropped(src, dst)


def planetoid(raw_dir: Path, fmt: str = "planetoid") -> tuple[dict, dict, dict]:
    """Planetoid citation graph (Cora/CiteSeer/PubMed) with its public split, via PyG."""
    from torch_geometric.datasets import Planetoid

    prefix = next(Path(raw_dir).glob("ind.*.x")).name.split(".")[1]
    name = {"cora": "Cora", "citeseer": "CiteSeer", "pubmed": "PubMed"}[prefix]
    tmp, root = stage(raw_dir, name, "raw")
    with tmp:
        data = Planetoid(str(root), name)[0]
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
