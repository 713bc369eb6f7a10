"""Turning user data (PyG ``Data``, a PyG dataset, or an arrays dict) into the
processed layouts of :mod:`netzbench.catalog.data`, and picking the split a
task uses when the user does not name one.

Conventions per family (the trainer's contract):

- ``node_cls``: one ``Data`` with ``x``, ``edge_index``, ``y`` and, optionally,
  ``train_mask``/``val_mask``/``test_mask`` ([N] or [N, S]); without all
  three masks a per-seed stratified 50/25/25 split is used.
- ``graph_cls`` / ``graph_reg``: a sequence of ``Data`` with graph-level ``y``;
  shuffled per seed and cut 80/10/10.
- ``link_pred``: one ``Data`` with ``edge_index`` (held-out edge split per
  seed), or, for relational graphs, ``train_edge_index``/``train_edge_type``
  with their ``valid_*``/``test_*`` counterparts and ``num_relations``.
"""

from __future__ import annotations

import numpy as np

RELATIONAL_KEYS = ("train_edge_index", "train_edge_type", "valid_edge_index", "valid_edge_type",
                   "test_edge_index", "test_edge_type")


def _np(value):
    if hasattr(value, "detach"):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def _single(data) -> dict:
    out = {"num_nodes": np.asarray(int(data.num_nodes), dtype=np.int64)}
    for key in ("x", "edge_index", "y", "train_mask", "val_mask", "test_mask", "num_relations", *RELATIONAL_KEYS):
        value = getattr(data, key, None)
        if value is None:
            continue
        arr = _np(value)
        if key == "x":
            arr = arr.astype(np.float32)
        elif key.endswith("mask"):
            arr = arr.astype(bool)
        elif key in ("edge_index", "num_relations") or key.endswith(("edge_index", "edge_type")):
            arr = arr.astype(np.int64)
        out[key] = arr
    if "edge_index" not in out and "train_edge_index" in out:
        out["edge_index"] = out["train_edge_index"]
    return out


def _collection(graphs) -> dict:
    xs, eis, ys, node_ptr, edge_ptr = [], [], [], [0], [0]
    for g in graphs:
        xs.append(_np(g.x).astype(np.float32))
        ei = _np(g.edge_index).astype(np.int64)
        eis.append(ei)
        ys.append(_np(g.y).reshape(1, -1) if _np(g.y).ndim > 1 or _np(g.y).size > 1 else _np(g.y).reshape(1))
        node_ptr.append(node_ptr[-1] + int(g.num_nodes))
        edge_ptr.append(edge_ptr[-1] + ei.shape[1])
    return {"x": np.concatenate(xs), "edge_index": np.concatenate(eis, axis=1), "y": np.concatenate(ys),
            "node_ptr": np.asarray(node_ptr, dtype=np.int64), "edge_ptr": np.asarray(edge_ptr, dtype=np.int64)}


def to_arrays(obj, task_type: str) -> dict:
    """The processed arrays of ``obj`` for ``task_type`` (see the module docstring)."""
    if isinstance(obj, dict):
        return {k: np.asarray(v) for k, v in obj.items()}
    if task_type in ("graph_cls", "graph_reg"):
        if hasattr(obj, "edge_index") and not hasattr(obj, "__len__"):
            raise ValueError(f"{task_type} needs a collection of graphs, got a single graph")
        return _collection(list(obj))
    data = obj[0] if (hasattr(obj, "__getitem__") and not hasattr(obj, "edge_index")) else obj
    if hasattr(data, "__len__") and not hasattr(data, "edge_index"):
        data = data[0]
    return _single(data)


def default_split(task_type: str, arrays: dict) -> str:
    """The split a task uses when it does not name one."""
    if task_type == "node_cls":
        has_masks = all(m in arrays for m in ("train_mask", "val_mask", "test_mask"))
        return "dataset_masks" if has_masks else "stratified_per_seed_50_25_25"
    if task_type in ("graph_cls", "graph_reg"):
        return "dataset_split" if "split" in arrays else "random_graph_80_10_10"
    if task_type == "link_pred":
        return "relational_canonical" if "train_edge_type" in arrays else "random_edge_80_10_10"
    raise ValueError(f"unknown task type {task_type!r}")
