"""Processors: raw files -> a processed array bundle (PyG classes where they exist).

Each processor takes the raw directory and returns ``(arrays, counts)``.
``arrays`` is a flat dict of numpy arrays (see :mod:`netzbench.catalog.data`
for the layout); ``counts`` goes into ``meta.json``. Processing must be a
deterministic function of the raw bytes.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np


def undirected_pairs(edge_index: np.ndarray) -> np.ndarray:
    """Unique undirected pairs (i < j) of an edge index, self-loops dropped, sorted."""
    ei = np.asarray(edge_index, dtype=np.int64)
    lo, hi = np.minimum(ei[0], ei[1]), np.maximum(ei[0], ei[1])
    keep = lo != hi
    lo, hi = lo[keep], hi[keep]
    if lo.size == 0:
        return np.zeros((2, 0), dtype=np.int64)
    n = int(hi.max()) + 1
    # one int64 key per pair: a 1-D sort is far faster than a row-wise np.unique
    keys = np.sort(lo * n + hi)
    keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
    return np.stack([keys // n, keys % n])


def _single_graph(data) -> tuple[dict, dict]:
    from .convert import _single

    arrays = _single(data)
    if "y" in arrays:
        arrays["y"] = arrays["y"].astype(np.int64)
    counts = {
        "num_nodes": int(data.num_nodes),
        "num_edges": int(undirected_pairs(arrays["edge_index"]).shape[1]),
        "num_features": int(arrays["x"].shape[1]),
    }
    if "y" in arrays:
        counts["num_classes"] = int(arrays["y"].max()) + 1
    return arrays, counts


def karate(raw_dir: Path | None = None, fmt: str = "builtin") -> tuple[dict, dict]:
    """Zachary's karate club, shipped inside PyG (no download)."""
    from torch_geometric.datasets import KarateClub

    data = KarateClub()[0]
    arrays, counts = _single_graph(data)
    for mask in ("train_mask", "val_mask", "test_mask"):
        arrays.pop(mask, None)  # PyG's 4-node mask is replaced by a per-seed stratified split
    return arrays, counts


def _staged(raw_dir: Path, name: str) -> tuple[tempfile.TemporaryDirectory, Path]:
    """A writable PyG root whose ``<name>/raw`` holds copies of the raw files."""
    tmp = tempfile.TemporaryDirectory(prefix="netzbench-pyg-")
    root = Path(tmp.name)
    shutil.copytree(raw_dir, root / name / "raw")
    return tmp, root


def planetoid(raw_dir: Path, fmt: str = "planetoid") -> tuple[dict, dict]:
    """Planetoid citation graph (Cora/CiteSeer/PubMed) with its public split, via PyG."""
    from torch_geometric.datasets import Planetoid

    prefix = next(Path(raw_dir).glob("ind.*.x")).name.split(".")[1]
    name = {"cora": "Cora", "citeseer": "CiteSeer", "pubmed": "PubMed"}[prefix]
    tmp, root = _staged(raw_dir, name)
    with tmp:
        data = Planetoid(str(root), name)[0]
        return _single_graph(data)


def tudataset(raw_dir: Path, fmt: str = "tu") -> tuple[dict, dict]:
    """A TUDataset graph collection, via PyG; graphs concatenated with offsets."""
    from torch_geometric.datasets import TUDataset

    name = next(Path(raw_dir).glob("*_graph_indicator.txt")).name[: -len("_graph_indicator.txt")]
    tmp, root = _staged(raw_dir, name)
    with tmp:
        ds = TUDataset(str(root), name)
        xs, eis, ys, node_ptr, edge_ptr = [], [], [], [0], [0]
        for g in ds:
            xs.append(g.x.numpy().astype(np.float32))
            eis.append(g.edge_index.numpy().astype(np.int64))
            ys.append(g.y.numpy().reshape(-1))
            node_ptr.append(node_ptr[-1] + g.num_nodes)
            edge_ptr.append(edge_ptr[-1] + g.edge_index.shape[1])
        arrays = {
            "x": np.concatenate(xs),
            "edge_index": np.concatenate(eis, axis=1),
            "y": np.concatenate(ys).astype(np.int64),
            "node_ptr": np.asarray(node_ptr, dtype=np.int64),
            "edge_ptr": np.asarray(edge_ptr, dtype=np.int64),
        }
        counts = {
            "num_graphs": len(ds),
            "num_nodes": int(node_ptr[-1]),
            "num_edges": int(sum(undirected_pairs(e).shape[1] for e in eis)),
            "num_features": int(arrays["x"].shape[1]),
            "num_classes": int(arrays["y"].max()) + 1,
        }
        return arrays, counts
