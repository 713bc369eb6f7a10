"""Checks of a user's dataset at fetch: labels, splits and indices, before anything trains.

A custom task (``custom_tasks`` in params.yaml, or a ``Task`` with a loader
in the Python API) is checked here once its loader's output is converted,
so that a dataset which cannot give an honest number stops at fetch with a
message saying what is wrong, instead of scoring 1.000 +- 0.000 with one
class, or failing every seed later with a string label:

- class labels: one per node (``node_cls``) or graph (``graph_cls``), at
  least two classes present, and at least two in the training part of a
  split given with the data. Labels that are not the integers ``0..C-1``
  (strings, ``-1/1``, floats that are whole numbers) are mapped to
  ``0..C-1`` in sorted order and the mapping is recorded in ``meta.json``
  (``label_mapping``: class index -> original label); a custom task's labels
  are mapped once more from those originals, missing codes left out as
  ``-1``, which counts as no class here (:mod:`.labels`);
- regression targets finite;
- every split part given with the data non-empty;
- edge indices inside ``[0, num_nodes)`` (per graph for collections),
  relation types inside ``[0, num_relations)``, node features finite with
  one row per node.
"""

from __future__ import annotations

import copy

import numpy as np

from ..errors import InputError
from ..graphs.convert import as_numpy


class DatasetError(InputError):
    """A user dataset cannot be benchmarked; the message names the task and what is wrong."""


def _label_mapping(labels: np.ndarray) -> tuple[np.ndarray, dict | None]:
    """``(labels as 0..C-1, mapping index -> original or None when already 0..C-1)``."""
    labels = np.asarray(labels).reshape(-1)
    if labels.dtype.kind in "iu" and (labels.size == 0 or (labels.min() >= 0)):
        return labels.astype(np.int64), None
    if labels.dtype.kind == "f":
        if not np.isfinite(labels).all():
            raise DatasetError("class labels contain NaN or infinite values")
        if np.all(labels == np.round(labels)) and (labels.size == 0 or labels.min() >= 0):
            return labels.astype(np.int64), None
    if labels.dtype.kind == "O":
        labels = labels.astype(str)
    values, inverse = np.unique(labels, return_inverse=True)
    mapping = {str(i): (v.item() if hasattr(v, "item") else v) for i, v in enumerate(values)}
    return inverse.astype(np.int64), mapping


def normalise_labels(obj, family: str):
    """``(obj with class labels 0..C-1, mapping or None)``; ``obj`` is never modified in place."""
    if family not in ("node_cls", "graph_cls"):
        return obj, None
    import torch

    if isinstance(obj, dict):
        if "y" not in obj:
            return obj, None
        mapped, mapping = _label_mapping(obj["y"])
        return ({**obj, "y": mapped} if mapping else obj), mapping
    if family == "node_cls":
        data = obj if hasattr(obj, "edge_index") else obj[0]
        if getattr(data, "y", None) is None:
            return obj, None
        mapped, mapping = _label_mapping(_labels(data.y))
        if mapping is None:
            return obj, None
        data = copy.copy(data)
        data.y = torch.as_tensor(mapped)
        return data, mapping
    graphs = list(obj)
    if any(getattr(g, "y", None) is None for g in graphs):
        return graphs, None
    per_graph = [_labels(g.y) for g in graphs]
    if any(y.size != 1 for y in per_graph):
        return graphs, None  # multi-label targets: floats with NaN for missing, not classes
    mapped, mapping = _label_mapping(np.concatenate(per_graph))
    if mapping is None:
        return graphs, None
    out = []
    for g, label in zip(graphs, mapped):
        g = copy.copy(g)
        g.y = torch.as_tensor([label])
        out.append(g)
    return out, mapping


def _labels(y) -> np.ndarray:
    if isinstance(y, (list, tuple)):
        return np.asarray(y, dtype=object if any(isinstance(v, str) for v in y) else None).reshape(-1)
    return np.asarray(as_numpy(y)).reshape(-1)


def _class_check(y: np.ndarray, train: np.ndarray | None, what: str) -> None:
    labelled = y >= 0  # -1: a missing label (:mod:`.labels`), no class
    classes = np.unique(y[labelled])
    if classes.size < 2:
        raise DatasetError(f"the {what} labels hold {classes.size} class{'es' if classes.size != 1 else ''} "
                           f"({classes.tolist()}): a classifier cannot be compared on one class (it scores "
                           "1.000 by predicting it); check the label field")
    if train is not None and np.unique(y[train & labelled]).size < 2:
        raise DatasetError(f"the training {what}s hold one class only ({np.unique(y[train & labelled]).tolist()}): "
                           "nothing to learn from; check the split")


def _check_edges(edge_index: np.ndarray, num_nodes: np.ndarray | int, what: str) -> None:
    ei = np.asarray(edge_index)
    if ei.ndim != 2 or ei.shape[0] != 2:
        raise DatasetError(f"{what} must have shape [2, E], got {list(ei.shape)}")
    if ei.size and (ei.min() < 0 or (ei >= num_nodes).any()):
        bad = int(ei.min()) if ei.min() < 0 else int(ei[ei >= num_nodes].max())
        raise DatasetError(f"{what} holds node index {bad}, outside [0, {int(np.max(num_nodes))}) "
                           "(node ids must be 0-based and below the node count)")


def _check_features(x: np.ndarray, rows: int) -> None:
    if x.shape[0] != rows:
        raise DatasetError(f"node features x have {x.shape[0]} rows for {rows} nodes")
    if x.dtype.kind == "f" and not np.isfinite(x).all():
        raise DatasetError("node features x contain NaN or infinite values")


def check_arrays(task_id: str, family: str, split: str, arrays: dict) -> None:
    """Raise :class:`DatasetError` naming ``task_id`` and the problem if ``arrays`` cannot be benchmarked."""
    try:
        if family in ("graph_cls", "graph_reg"):
            _check_collection(family, arrays)
        elif family == "node_cls":
            _check_node(arrays)
        else:
            _check_link(arrays)
    except DatasetError as exc:
        raise DatasetError(f"custom task {task_id!r} ({family}): {exc}") from None


def _check_collection(family: str, arrays: dict) -> None:
    node_ptr, edge_ptr = arrays["node_ptr"], arrays["edge_ptr"]
    num_graphs = len(node_ptr) - 1
    if num_graphs < 2:
        raise DatasetError(f"{num_graphs} graph(s): a collection needs graphs to split")
    _check_features(arrays["x"], int(node_ptr[-1]))
    sizes = np.repeat(np.diff(node_ptr), np.diff(edge_ptr))
    _check_edges(arrays["edge_index"], sizes, "edge_index (local node ids per graph)")
    split = arrays.get("split")
    train = None
    if split is not None:
        for k, part in enumerate(("train", "validation", "test")):
            if not (split == k).any():
                raise DatasetError(f"the given split has an empty {part} part")
        train = split == 0
    y = np.asarray(arrays["y"])
    if family == "graph_reg":
        if not np.isfinite(y).all():
            raise DatasetError("regression targets contain NaN or infinite values")
    elif y.ndim == 1:
        _class_check(y, train, "graph")


def _check_node(arrays: dict) -> None:
    n = int(np.asarray(arrays["num_nodes"]).reshape(-1)[0])
    if "y" not in arrays:
        raise DatasetError("no node labels y")
    y = np.asarray(arrays["y"]).reshape(-1) if np.asarray(arrays["y"]).ndim <= 1 else np.asarray(arrays["y"])
    if y.shape[0] != n:
        raise DatasetError(f"y has {y.shape[0]} labels for {n} nodes")
    if y.ndim != 1:
        raise DatasetError(f"node labels y must be one class per node, got shape {list(y.shape)}")
    if "x" in arrays:
        _check_features(arrays["x"], n)
    _check_edges(arrays["edge_index"], n, "edge_index")
    masks = [arrays.get(m) for m in ("train_mask", "val_mask", "test_mask")]
    train = None
    if all(m is not None for m in masks):
        for m, part in zip(masks, ("train", "validation", "test")):
            m = np.asarray(m, dtype=bool)
            if m.shape[0] != n:
                raise DatasetError(f"the {part} mask has {m.shape[0]} entries for {n} nodes")
            columns = m.reshape(n, -1)
            if not columns.any(axis=0).all():
                raise DatasetError(f"the {part} mask selects no node" + (" in some split column" if columns.shape[1] > 1
                                                                          else ""))
        train = np.asarray(masks[0], dtype=bool).reshape(n, -1)[:, 0]
    _class_check(y, train, "node")


def _check_link(arrays: dict) -> None:
    n = int(np.asarray(arrays["num_nodes"]).reshape(-1)[0])
    if "x" in arrays:
        _check_features(arrays["x"], n)
    if "train_edge_type" in arrays:
        num_relations = int(np.asarray(arrays.get("num_relations", 0)).reshape(-1)[0])
        for part in ("train", "valid", "test"):
            ei, et = arrays.get(f"{part}_edge_index"), arrays.get(f"{part}_edge_type")
            if ei is None or et is None or np.asarray(ei).reshape(2, -1).shape[1] == 0:
                raise DatasetError(f"the {part} triples are missing or empty")
            _check_edges(ei, n, f"{part}_edge_index")
            et = np.asarray(et)
            if et.size and (et.min() < 0 or et.max() >= num_relations):
                raise DatasetError(f"{part}_edge_type holds relation {int(et.max())}, outside [0, {num_relations})")
        return
    ei = np.asarray(arrays.get("edge_index", np.zeros((2, 0))))
    _check_edges(ei, n, "edge_index")
    if ei.reshape(2, -1).shape[1] < 10:
        raise DatasetError(f"{ei.reshape(2, -1).shape[1]} edges: too few to hold out validation and test edges")
