"""The ``counts`` and ``dropped`` of ``meta.json``: the same names for every dataset of a family.

``counts`` are computed from the processed arrays, one function per family
(whatever reader or loader made them), so the names and their meaning never
depend on the source format:

- ``node_cls``: ``num_nodes``, ``num_edges``, ``num_classes``;
- ``link_pred``: ``num_nodes``, ``num_edges``; a knowledge graph (the
  relational layout) also ``num_relations`` and ``num_train_triples``,
  ``num_valid_triples``, ``num_test_triples``;
- ``graph_cls``: ``num_graphs``, ``num_nodes``, ``num_edges``,
  ``num_classes`` (for a multi-label target: the number of labels);
- ``graph_reg``: ``num_graphs``, ``num_nodes``, ``num_edges``, ``num_targets``;

plus ``num_features`` where the arrays hold node features ``x``.
``num_edges`` is the number of unique undirected node pairs, self-loops
excluded (over all graphs of a collection, over all splits of a knowledge
graph). A reader's further counts (``num_edge_records``,
``num_directed_edges``, ...) are kept beside these.

``dropped`` is what the reader left out between the raw records and the
arrays: always ``duplicate_edges`` (records repeating an earlier ``u v``
record; for a knowledge graph, repeated triples), ``self_loops`` (records
``u u``) and ``weights`` (whether per-edge values such as weights were
discarded), plus whatever else a reader reports (``timestamps``, ``layers``,
``edge_attributes``, ``isolated_nodes``, ``duplicate_<split>_triples``, ...).
"""

from __future__ import annotations

import numpy as np

from .edges import count_undirected_pairs

#: the counts every dataset of a family has (``link_pred`` of a knowledge graph: ``relational``)
COMMON = {
    "node_cls": ("num_nodes", "num_edges", "num_classes"),
    "link_pred": ("num_nodes", "num_edges"),
    "relational": ("num_nodes", "num_edges", "num_relations", "num_train_triples", "num_valid_triples",
                   "num_test_triples"),
    "graph_cls": ("num_graphs", "num_nodes", "num_edges", "num_classes"),
    "graph_reg": ("num_graphs", "num_nodes", "num_edges", "num_targets"),
}
#: what ``dropped`` always says, and its value when nothing of the kind was dropped
DROPPED = {"duplicate_edges": 0, "self_loops": 0, "weights": False}
SPLITS = ("train", "valid", "test")


def _scalar(value) -> int:
    return int(np.asarray(value).reshape(-1)[0])


def _features(arrays: dict) -> dict:
    if "x" not in arrays:
        return {}
    return {"num_features": int(np.asarray(arrays["x"]).reshape(len(arrays["x"]), -1).shape[1])}


def _num_classes(y) -> int:
    """Classes of integer labels (``max + 1``; negative labels mark unlabelled items), or the number
    of labels of a multi-label target ``[items, labels]``."""
    y = np.asarray(y)
    if y.ndim > 1 and y.shape[1] > 1:
        return int(y.shape[1])
    labelled = y.reshape(-1)[y.reshape(-1) >= 0]
    return int(labelled.max()) + 1 if labelled.size else 0


def node_counts(arrays: dict) -> dict:
    """Counts of a node-classification graph."""
    return {"num_nodes": _scalar(arrays["num_nodes"]), "num_edges": count_undirected_pairs(arrays["edge_index"]),
            "num_classes": _num_classes(arrays["y"]), **_features(arrays)}


def link_counts(arrays: dict) -> dict:
    """Counts of a link-prediction graph; a knowledge graph's over all three splits of triples."""
    if "train_edge_type" not in arrays:
        return {"num_nodes": _scalar(arrays["num_nodes"]),
                "num_edges": count_undirected_pairs(arrays["edge_index"]), **_features(arrays)}
    every = np.concatenate([np.asarray(arrays[f"{s}_edge_index"]).reshape(2, -1) for s in SPLITS], axis=1)
    return {"num_nodes": _scalar(arrays["num_nodes"]), "num_edges": count_undirected_pairs(every),
            "num_relations": _scalar(arrays["num_relations"]),
            **{f"num_{s}_triples": int(np.asarray(arrays[f"{s}_edge_type"]).size) for s in SPLITS},
            **_features(arrays)}


def collection_counts(arrays: dict, family: str) -> dict:
    """Counts of a graph collection (:mod:`.collection`); pairs are counted per graph (graphs are disjoint)."""
    node_ptr, edge_ptr = np.asarray(arrays["node_ptr"]), np.asarray(arrays["edge_ptr"])
    offsets = np.repeat(node_ptr[:-1], np.diff(edge_ptr))
    counts = {"num_graphs": len(node_ptr) - 1, "num_nodes": int(node_ptr[-1]),
              "num_edges": count_undirected_pairs(np.asarray(arrays["edge_index"]).reshape(2, -1) + offsets),
              **_features(arrays)}
    y = np.asarray(arrays["y"])
    if family == "graph_reg":
        counts["num_targets"] = int(y.reshape(counts["num_graphs"], -1).shape[1])
    else:
        counts["num_classes"] = _num_classes(y)
    return counts


def family_counts(family: str, arrays: dict) -> dict:
    """The counts of :data:`COMMON` (and ``num_features``) of ``arrays`` for ``family``."""
    if family in ("graph_cls", "graph_reg"):
        return collection_counts(arrays, family)
    if family == "node_cls":
        return node_counts(arrays)
    if family == "link_pred":
        return link_counts(arrays)
    raise ValueError(f"unknown family {family!r}")


def meta_counts(family: str, arrays: dict, reported: dict | None = None) -> dict:
    """``meta.json``'s ``counts``: a reader's own counts, overridden by :func:`family_counts`."""
    return dict(sorted({**(reported or {}), **family_counts(family, arrays)}.items()))


def dropped_record(reported: dict | None = None) -> dict:
    """``meta.json``'s ``dropped``: what a reader reported, with every key of :data:`DROPPED` present."""
    out = {**DROPPED, **(reported or {})}
    out["weights"] = bool(out["weights"])
    for key in ("duplicate_edges", "self_loops"):
        out[key] = int(out[key])
    return dict(sorted(out.items()))
