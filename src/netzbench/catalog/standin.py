"""A synthetic stand-in for a dataset that is not here: random data of its recorded size, in its family's layout.

``netzbench estimate`` measures a few epochs of each cell before ``dvc repro`` trains it. Where a task's
data is fetched it measures on that; where it is not (a download of gigabytes, a dataset only a
cluster holds) it measures on a stand-in with the same counts (:mod:`.sizes`: nodes, edges, features,
classes, graphs, relations) written as ``data/<task>/`` would be (:mod:`netzbench.graphs.layout`).
What a GNN epoch costs depends on those counts, not on what the numbers mean, so the stand-in's
labels and features are random (seeded) and its edges uniform random pairs:

- node classification: ``x`` [N, F], ``edge_index`` with both directions of E pairs, ``y`` in C
  classes, split ``stratified_per_seed_50_25_25`` (the tasks with shipped masks train as long per epoch);
- link prediction: E unique undirected pairs (``random_edge_80_10_10``); a knowledge graph
  (``num_relations``): E triples with random relation types, split 90/5/5 as ``relational_canonical``;
- collections: G graphs of about N/G nodes and E/G pairs each (both directions), ``y`` in C classes or
  T regression targets, ``random_graph_80_10_10``.

:func:`scaled` shrinks a size by a factor (nodes, edges, graphs; features and classes kept) for graphs
too large to probe whole: the estimate extrapolates from two such probes.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..graphs.layout import GRAPH, save_arrays, write_meta

#: the split a stand-in of each family trains on
SPLITS = {"node_cls": "stratified_per_seed_50_25_25", "link_pred": "random_edge_80_10_10",
          "graph_cls": "random_graph_80_10_10", "graph_reg": "random_graph_80_10_10"}


def scaled(size: dict, factor: float) -> dict:
    """``size`` with nodes, edges, triples and graphs times ``factor`` (at least 2 nodes, 1 edge, 4 graphs)."""
    out = dict(size)
    for key, floor in (("num_nodes", 2), ("num_edges", 1), ("num_graphs", 4), ("num_train_triples", 1),
                       ("num_valid_triples", 1), ("num_test_triples", 1)):
        if key in out:
            out[key] = max(floor, int(round(out[key] * factor)))
    if "num_graphs" in out:  # a graph keeps its size: fewer graphs, not smaller ones
        per_graph = size["num_nodes"] / size["num_graphs"], size["num_edges"] / size["num_graphs"]
        out["num_nodes"] = max(2 * out["num_graphs"], int(round(per_graph[0] * out["num_graphs"])))
        out["num_edges"] = max(out["num_graphs"], int(round(per_graph[1] * out["num_graphs"])))
    return out


def random_pairs(rng: np.random.Generator, n: int, e: int) -> np.ndarray:
    """``e`` distinct unordered pairs ``i < j`` of ``n`` nodes, ``[2, e]`` (all of them when fewer exist)."""
    e = min(e, n * (n - 1) // 2)
    found = np.zeros(0, dtype=np.int64)
    while len(found) < e:
        draw = max(16, int((e - len(found)) * 1.2))
        i = rng.integers(0, n, draw, dtype=np.int64)
        j = rng.integers(0, n, draw, dtype=np.int64)
        keep = i != j
        lo, hi = np.minimum(i[keep], j[keep]), np.maximum(i[keep], j[keep])
        found = np.unique(np.concatenate([found, lo * n + hi]))
    found = rng.permutation(found)[:e]
    return np.stack([found // n, found % n])


def both_ways(pairs: np.ndarray) -> np.ndarray:
    """``[2, E]`` pairs as both directions, ``[2, 2E]`` int64 (the node-level and collection layouts)."""
    return np.concatenate([pairs, pairs[::-1]], axis=1).astype(np.int64)


def _features(rng: np.random.Generator, n: int, f: int) -> np.ndarray:
    return rng.standard_normal((n, max(1, f)), dtype=np.float32)


def standin_arrays(family: str, size: dict, seed: int = 0) -> tuple[dict, str]:
    """The stand-in's arrays for ``family`` and the split it trains on (module docstring)."""
    rng = np.random.default_rng(seed)
    n, e = int(size["num_nodes"]), int(size["num_edges"])
    if family == "node_cls":
        classes = max(2, int(size.get("num_classes", 2)))
        y = np.arange(n, dtype=np.int64) % classes  # every class well populated: stratification holds
        arrays = {"x": _features(rng, n, int(size.get("num_features", 1))), "edge_index": both_ways(random_pairs(rng, n, e)),
                  "num_nodes": np.asarray(n, dtype=np.int64), "y": rng.permutation(y)}
        return arrays, SPLITS[family]
    if family == "link_pred" and size.get("num_relations"):
        triples = sum(int(size.get(f"num_{p}_triples", 0)) for p in ("train", "valid", "test")) or e
        pairs = random_pairs(rng, n, triples)
        types = rng.integers(0, int(size["num_relations"]), pairs.shape[1], dtype=np.int64)
        order = rng.permutation(pairs.shape[1])
        cut = (int(len(order) * 0.9), int(len(order) * 0.95))
        parts = {"train": order[:cut[0]], "valid": order[cut[0]:cut[1]], "test": order[cut[1]:]}
        arrays = {"num_nodes": np.asarray(n, dtype=np.int64),
                  "num_relations": np.asarray(int(size["num_relations"]), dtype=np.int64)}
        for name, idx in parts.items():
            arrays[f"{name}_edge_index"], arrays[f"{name}_edge_type"] = pairs[:, idx], types[idx]
        return arrays, "relational_canonical"
    if family == "link_pred":
        arrays = {"edge_index": random_pairs(rng, n, e), "num_nodes": np.asarray(n, dtype=np.int64)}
        if size.get("num_features"):
            arrays["x"] = _features(rng, n, int(size["num_features"]))
        return arrays, SPLITS[family]
    if family in ("graph_cls", "graph_reg"):
        return _collection(rng, family, size), SPLITS[family]
    raise ValueError(f"no stand-in for family {family!r}")


def _collection(rng: np.random.Generator, family: str, size: dict) -> dict:
    g = max(4, int(size["num_graphs"]))
    spread = lambda total, low: np.maximum(low, total // g + (np.arange(g) < total % g))  # noqa: E731
    nodes = spread(int(size["num_nodes"]), 2).astype(np.int64)
    pairs = spread(int(size["num_edges"]), 1)
    xs, eis = [], []
    for n_g, e_g in zip(nodes, pairs):
        xs.append(_features(rng, int(n_g), int(size.get("num_features", 1))))
        eis.append(both_ways(random_pairs(rng, int(n_g), int(e_g))))
    node_ptr = np.concatenate([[0], np.cumsum(nodes)]).astype(np.int64)
    edge_ptr = np.concatenate([[0], np.cumsum([e.shape[1] for e in eis])]).astype(np.int64)
    if family == "graph_cls":
        y = rng.permutation(np.arange(g, dtype=np.int64) % max(2, int(size.get("num_classes", 2))))
    else:
        y = rng.standard_normal((g, max(1, int(size.get("num_targets", 1)))), dtype=np.float32)
    return {"x": np.concatenate(xs), "edge_index": np.concatenate(eis, axis=1), "node_ptr": node_ptr,
            "edge_ptr": edge_ptr, "y": y}


def write_standin(task_dir: str | os.PathLike, task_id: str, family: str, size: dict, epochs: int,
                  category: str | None = None, seed: int = 0) -> dict:
    """Write a stand-in of ``size`` for ``task_id`` into ``task_dir`` (``meta.json`` and ``graph.npz``, as
    fetch writes them; ``meta.standin`` says it is one); return its meta."""
    arrays, split = standin_arrays(family, size, seed)
    task_dir = Path(task_dir)
    task_dir.mkdir(parents=True, exist_ok=True)
    save_arrays(task_dir / GRAPH, arrays)
    counts = {k: int(v) for k, v in size.items()}
    meta = {"task": task_id, "dataset": task_id, "family": family, "split": split,
            "relational": split == "relational_canonical", "category": category or "stand-in", "status": "ok",
            "synthetic": False, "format": "standin", "epochs": int(epochs), "counts": counts,
            "standin": {"seed": seed, "of": task_id}}
    write_meta(task_dir, meta)
    return meta


def edges_of(size: dict) -> int:
    """The edge count the cost grows with: pairs (a collection: over all its graphs), a knowledge graph's
    triples."""
    triples = sum(int(size.get(f"num_{p}_triples", 0)) for p in ("train", "valid", "test"))
    return triples or int(size.get("num_edges", 0))


def scale_for(size: dict, max_edges: int) -> float:
    """The factor that brings ``size`` to at most ``max_edges`` edges (1 when it is within)."""
    e = edges_of(size)
    return 1.0 if e <= max_edges else max_edges / e if e else 1.0


def describe(size: dict) -> str:
    """``2,449,029 nodes, 61,859,140 edges`` (and graphs, features) for a message."""
    parts = [f"{size[k]:,} {w}" for k, w in (("num_graphs", "graphs"), ("num_nodes", "nodes"), ("num_edges", "edges"),
                                              ("num_features", "features")) if size.get(k)]
    return ", ".join(parts) if parts else "no size"


__all__ = ["SPLITS", "both_ways", "describe", "edges_of", "random_pairs", "scale_for", "scaled", "standin_arrays", "write_standin"]
