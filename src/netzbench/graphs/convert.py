"""PyG objects (``Data``, a dataset, a list of ``Data``) or arrays dicts to the processed layout,
and the split a task uses when it names none.

Conventions per family (the trainers' contract):

- ``node_cls``: one ``Data`` with ``x``, ``edge_index``, ``y`` and, optionally,
  ``train_mask``/``val_mask``/``test_mask`` ([N] or [N, S]); without all
  three masks a per-seed stratified 50/25/25 split is used.
- ``graph_cls`` / ``graph_reg``: a sequence of ``Data`` (a PyG dataset too)
  with a graph-level ``y`` and node features ``x`` (a graph without ``x``
  gets ``[1, log(1 + degree)]``: :func:`graph_x`); shuffled per seed and cut 80/10/10.
- ``link_pred``: one ``Data`` with ``edge_index`` (held-out edge split per
  seed), or, for relational graphs, ``train_edge_index``/``train_edge_type``
  with their ``valid_*``/``test_*`` counterparts and ``num_relations``.
"""

from __future__ import annotations

import numpy as np

from .collection import collection_arrays, stack_graphs
from .edges import count_undirected_pairs, undirected_pairs
from .features import structural_features

RELATIONAL_KEYS = ("train_edge_index", "train_edge_type", "valid_edge_index", "valid_edge_type",
                   "test_edge_index", "test_edge_type")
GRAPH_FAMILIES = ("graph_cls", "graph_reg")


def as_numpy(value) -> np.ndarray:
    """A tensor (any device) or array-like as a numpy array."""
    if hasattr(value, "detach"):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def single_graph_arrays(data) -> dict:
    """The single-graph layout of a PyG ``Data``: the fields present, in the layout's dtypes."""
    out = {"num_nodes": np.asarray(int(data.num_nodes), dtype=np.int64)}
    for key in ("x", "edge_index", "y", "train_mask", "val_mask", "test_mask", "num_relations", *RELATIONAL_KEYS):
        value = getattr(data, key, None)
        if value is None:
            continue
        arr = as_numpy(value)
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


def single_graph_counts(arrays: dict) -> dict:
    """``meta.json`` counts of a single-graph bundle."""
    counts = {"num_nodes": int(np.asarray(arrays["num_nodes"]).reshape(-1)[0]),
              "num_edges": count_undirected_pairs(arrays["edge_index"])}
    if "x" in arrays:
        counts["num_features"] = int(arrays["x"].shape[1])
    if "y" in arrays:
        counts["num_classes"] = int(np.asarray(arrays["y"]).max()) + 1
    return counts


def graph_x(graph) -> np.ndarray:
    """A graph's node features; ``[1, log(1 + degree)]`` (degrees within the graph, each undirected pair
    once) for a graph without ``x``, such as those of PyG's ``TUDataset`` of a collection without node
    labels or attributes."""
    if getattr(graph, "x", None) is not None:
        return as_numpy(graph.x)
    pairs = undirected_pairs(as_numpy(graph.edge_index).reshape(2, -1))
    return structural_features(int(graph.num_nodes), pairs.reshape(-1))


def _collection(graphs, family: str) -> tuple[dict, dict]:
    graphs = list(graphs)
    ys = [as_numpy(g.y).reshape(-1) for g in graphs]
    if family == "graph_reg":
        target = "regression"
    else:
        target = "class" if all(y.size == 1 for y in ys) else "multilabel"
    x, ei, node_ptr, edge_ptr = stack_graphs([graph_x(g) for g in graphs], [as_numpy(g.edge_index) for g in graphs])
    y = np.concatenate([y.reshape(1, -1) for y in ys]) if ys else np.zeros((0, 1))
    return collection_arrays(x, ei, node_ptr, edge_ptr, y, target=target)


def to_bundle(obj, task_type: str) -> tuple[dict, dict]:
    """The processed arrays of ``obj`` for ``task_type`` and their counts (see the module docstring)."""
    if isinstance(obj, dict):
        arrays = {k: np.asarray(v) for k, v in obj.items()}
        counts = {}
        if "node_ptr" in arrays:
            counts = {"num_graphs": len(arrays["node_ptr"]) - 1, "num_nodes": int(arrays["node_ptr"][-1])}
        elif "num_nodes" in arrays:
            counts = {"num_nodes": int(arrays["num_nodes"].reshape(-1)[0])}
        return arrays, counts
    if task_type in GRAPH_FAMILIES:
        if hasattr(obj, "edge_index") and not hasattr(obj, "__len__"):
            raise ValueError(f"{task_type} needs a collection of graphs, got a single graph")
        return _collection(obj, task_type)
    data = obj[0] if (hasattr(obj, "__getitem__") and not hasattr(obj, "edge_index")) else obj
    if hasattr(data, "__len__") and not hasattr(data, "edge_index"):
        data = data[0]
    arrays = single_graph_arrays(data)
    return arrays, single_graph_counts(arrays)


def discarded(obj) -> dict:
    """What :func:`to_bundle` leaves out of a PyG object (``dropped`` in ``meta.json``): ``weights`` (an
    ``edge_weight``) and ``edge_attributes`` (an ``edge_attr``), judged on the first graph of a
    collection. Edges are kept as given (nothing merged or dropped); an arrays dict is kept whole."""
    if isinstance(obj, dict) or (not hasattr(obj, "edge_index") and hasattr(obj, "__len__") and len(obj) == 0):
        return {}
    graph = obj if hasattr(obj, "edge_index") or not hasattr(obj, "__getitem__") else obj[0]
    present = {key: getattr(graph, key, None) is not None for key in ("edge_weight", "edge_attr")}
    out = {"weights": present["edge_weight"]}
    if present["edge_attr"]:
        out["edge_attributes"] = True
    return out


def to_arrays(obj, task_type: str) -> dict:
    """The processed arrays of ``obj`` for ``task_type`` (see :func:`to_bundle`)."""
    return to_bundle(obj, task_type)[0]


def default_split(task_type: str, arrays: dict) -> str:
    """The split a task uses when it does not name one."""
    if task_type == "node_cls":
        has_masks = all(m in arrays for m in ("train_mask", "val_mask", "test_mask"))
        return "dataset_masks" if has_masks else "stratified_per_seed_50_25_25"
    if task_type in GRAPH_FAMILIES:
        return "dataset_split" if "split" in arrays else "random_graph_80_10_10"
    if task_type == "link_pred":
        return "relational_canonical" if "train_edge_type" in arrays else "random_edge_80_10_10"
    raise ValueError(f"unknown task type {task_type!r}")
