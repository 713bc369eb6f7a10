"""Graph collections: many small graphs in one bundle (graph classification and regression).

Layout: ``x`` float32 ``[sum n_g, F]``, ``edge_index`` int64 ``[2, sum e_g]``
with per-graph *local* node ids, ``node_ptr``/``edge_ptr`` int64 ``[G + 1]``
offsets, ``y`` and optionally ``split`` int8 ``[G]`` (0 train, 1 val, 2 test)
for a canonical split. ``y`` by target kind:

- ``"class"``: int64 ``[G]``, one label per graph;
- ``"multilabel"``: float32 ``[G, T]``, NaN where a label is missing;
- ``"regression"``: float32 ``[G, T]``.
"""

from __future__ import annotations

import numpy as np

from .counts import collection_counts

TARGETS = ("class", "multilabel", "regression")


def stack_graphs(xs, eis) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Concatenate per-graph ``x [n_g, F]`` and local ``edge_index [2, e_g]``:
    ``(x, edge_index, node_ptr, edge_ptr)``."""
    xs = [np.asarray(x, dtype=np.float32).reshape(len(x), -1) for x in xs]
    eis = [np.asarray(e, dtype=np.int64).reshape(2, -1) for e in eis]
    node_ptr = np.concatenate([[0], np.cumsum([len(x) for x in xs], dtype=np.int64)]).astype(np.int64)
    edge_ptr = np.concatenate([[0], np.cumsum([e.shape[1] for e in eis], dtype=np.int64)]).astype(np.int64)
    x = np.concatenate(xs) if xs else np.zeros((0, 0), dtype=np.float32)
    edge_index = np.concatenate(eis, axis=1) if eis else np.zeros((2, 0), dtype=np.int64)
    return x, edge_index, node_ptr, edge_ptr


def collection_arrays(x, edge_index, node_ptr, edge_ptr, y, *, target: str = "class",
                      split=None) -> tuple[dict, dict]:
    """The collection bundle and its ``meta.json`` counts (see the module docstring).

    ``y`` is anything that reshapes to one row per graph. Counts:
    ``num_graphs``, ``num_nodes``, ``num_edges`` (unique undirected pairs
    over all graphs), ``num_features``, ``num_classes`` (class) or
    ``num_targets`` (+ ``num_missing_labels`` for multilabel), and
    ``num_{train,val,test}_graphs`` with a split.
    """
    if target not in TARGETS:
        raise ValueError(f"unknown target kind {target!r}; one of {list(TARGETS)}")
    node_ptr = np.asarray(node_ptr, dtype=np.int64)
    edge_ptr = np.asarray(edge_ptr, dtype=np.int64)
    num_graphs = len(node_ptr) - 1
    y = np.asarray(y)
    y = y.reshape(num_graphs, -1) if num_graphs else y.reshape(0, y.shape[-1] if y.ndim > 1 else 1)
    if target == "class":
        if y.shape[1] != 1:
            raise ValueError(f"single-label classification expects one target per graph, got {y.shape}")
        y = y.reshape(-1).astype(np.int64)
    else:
        y = y.astype(np.float32)
    arrays = {
        "x": np.asarray(x, dtype=np.float32).reshape(int(node_ptr[-1]), -1),
        "edge_index": np.asarray(edge_index, dtype=np.int64).reshape(2, -1),
        "y": y,
        "node_ptr": node_ptr,
        "edge_ptr": edge_ptr,
    }
    # num_classes for a class target, num_targets otherwise
    counts = collection_counts(arrays, "graph_cls" if target == "class" else "graph_reg")
    if target == "multilabel":
        counts["num_missing_labels"] = int(np.isnan(y).sum())
    if split is not None:
        split = np.asarray(split, dtype=np.int8)
        if split.shape != (num_graphs,):
            raise ValueError(f"split has shape {split.shape}, expected ({num_graphs},)")
        arrays["split"] = split
        counts.update({f"num_{name}_graphs": int((split == k).sum()) for k, name in enumerate(("train", "val", "test"))})
    return arrays, counts
