"""Processors: raw files -> a processed array bundle (PyG classes where they exist).

Each processor takes the raw directory and returns ``(arrays, counts)``.
``arrays`` is a flat dict of numpy arrays (see :mod:`netzbench.graphs.layout`
for the layout); ``counts`` goes into ``meta.json``. Processing must be a
deterministic function of the raw bytes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..graphs.collection import collection_arrays, stack_graphs
from ..graphs.convert import single_graph_arrays, single_graph_counts
from ..graphs.edges import undirected_pairs
from ..graphs.features import structural_features
from .readers.staging import stage


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


def planetoid(raw_dir: Path, fmt: str = "planetoid") -> tuple[dict, dict]:
    """Planetoid citation graph (Cora/CiteSeer/PubMed) with its public split, via PyG."""
    from torch_geometric.datasets import Planetoid

    prefix = next(Path(raw_dir).glob("ind.*.x")).name.split(".")[1]
    name = {"cora": "Cora", "citeseer": "CiteSeer", "pubmed": "PubMed"}[prefix]
    tmp, root = stage(raw_dir, name, "raw")
    with tmp:
        data = Planetoid(str(root), name)[0]
        return _single_graph(data)


def _tu_x(g) -> np.ndarray:
    """A graph's node features; ``[1, log(1 + degree)]`` (within the graph) for a collection without
    node labels or attributes, where PyG leaves ``x`` empty."""
    if g.x is not None:
        return g.x.numpy()
    return structural_features(int(g.num_nodes), undirected_pairs(g.edge_index.numpy()).reshape(-1))


def tudataset(raw_dir: Path, fmt: str = "tu") -> tuple[dict, dict]:
    """A TUDataset graph collection, via PyG; graphs concatenated with offsets."""
    from torch_geometric.datasets import TUDataset

    name = next(Path(raw_dir).glob("*_graph_indicator.txt")).name[: -len("_graph_indicator.txt")]
    tmp, root = stage(raw_dir, name, "raw")
    with tmp:
        ds = TUDataset(str(root), name)
        graphs = list(ds)
        stacked = stack_graphs([_tu_x(g) for g in graphs], [g.edge_index.numpy() for g in graphs])
        return collection_arrays(*stacked, np.concatenate([g.y.numpy().reshape(-1) for g in graphs]))
