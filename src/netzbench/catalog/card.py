"""The dataset card of a task: what the graph is, before anyone trusts a number on it.

:func:`build_card` computes it once from the processed data in ``data/<task>/``
(``meta.json`` and ``graph.npz``; a generated task's instance of seed 0):

- ``sizes``: nodes, edges (unique undirected pairs), isolated nodes,
  self-loops left in the graph, what the reader dropped (``meta.json``'s
  ``dropped``), whether the input was directed, connected components and the
  largest one's share, degree min/median/mean/max; for collections the
  number of graphs and their size distribution; for knowledge graphs the
  entities, relations and triples per split;
- ``labels``: classes and their counts, the majority-class share, the class
  imbalance (the minority class's share, majority/minority ratio), the
  metric the task is scored by and the constant predictor's score in it (the
  majority share for accuracy, 0.5 for ROC-AUC), and for node classification
  edge and adjusted homophily and label informativeness (:mod:`.graph_stats`);
  targets of regression; for a user's dataset the original value of each
  class and the labels left out as missing (``meta.json``'s
  ``label_mapping`` and ``label_missing``: :mod:`.labels`);
- ``split``: how the split is made and its audits: items in more than one
  of train/validation/test, identical graphs (Weisfeiler-Lehman hash) with
  identical labels across splits, held-out triples repeating a training
  triple or the reverse of a training pair, pairs listed twice where a
  per-seed edge split would separate the copies, a class (or entity) in
  test that training never sees;
- ``warnings``: one line per failed audit, shown by fetch and ``netzbench card``.

Fetch writes it to ``data/<task>/card.json`` (:func:`current_card`) with the
hash of the data it describes, and computes it again only when that data
changed; it is not part of the data's hash, so a card never invalidates a
trained seed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..graphs.layout import CARD, data_hash, read_meta, task_arrays
from .graph_stats import class_counts, components, degree_summary, degrees, homophily, pairs_of, wl_hashes

SCHEMA = "netzbench.card/2"  # 2: class imbalance, the metric and the constant predictor's score
_SPLITS = ("train", "valid", "test")
_MASKS = ("train_mask", "val_mask", "test_mask")


def _graph_sizes(edge_index, num_nodes: int, meta: dict) -> tuple[dict, np.ndarray]:
    ei = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    pairs = pairs_of(ei)
    deg = degrees(pairs, num_nodes)
    counts = meta.get("counts") or {}
    sizes = {"nodes": int(num_nodes), "edges": int(pairs.shape[1]), "isolated_nodes": int(np.sum(deg == 0)),
             "self_loops_kept": int(np.sum(ei[0] == ei[1])), "directed_as_read": "num_directed_edges" in counts,
             "components": components(pairs, num_nodes), "degree": degree_summary(deg)}
    if "num_directed_edges" in counts:
        sizes["directed_edges"] = int(counts["num_directed_edges"])
    return sizes, pairs


def _dropped(meta: dict) -> dict:
    return {k: v for k, v in (meta.get("dropped") or {}).items() if v not in (0, False, None, [], {})}


def _originals(labels: dict | None, meta: dict) -> dict | None:
    """``labels`` with what the classes were in the files (``meta.json``'s ``label_mapping``: class ``i`` is
    ``original_values[i]``) and the labels left out as missing (``label_missing``: codes, how they were
    found, how many items): the classes alone would not say either."""
    if labels is None:
        return None
    mapping = meta.get("label_mapping") or {}
    if mapping:
        labels = {**labels, "original_values": [mapping[str(i)] for i in range(len(mapping))]}
    if meta.get("label_missing"):
        labels = {**labels, "missing": meta["label_missing"]}
    return labels


def _twice_listed(edge_index) -> int:
    """Records of ``edge_index`` beyond the first for their undirected pair (a reverse or a repeat)."""
    ei = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    ei = ei[:, ei[0] != ei[1]]
    return int(ei.shape[1] - pairs_of(ei).shape[1])


# ---------------------------------------------------------------------------------- per family


def _scoring(labels: dict, meta: dict) -> dict:
    """The class imbalance of ``labels`` (:func:`class_counts`), the task's metric (``meta.json``'s, else the
    family's default: accuracy) and what a constant predictor scores in it: the majority class's share for
    accuracy, 0.5 for ROC-AUC (one score for every node ranks nothing)."""
    counts = [c for c in labels["counts"] if c > 0]
    metric = meta.get("metric") or "accuracy"
    out: dict = {"metric": metric}
    if counts:
        total = sum(counts)
        out["minority_share"] = round(min(counts) / total, 4)
        out["imbalance_ratio"] = round(max(counts) / min(counts), 2)
        out["constant_predictor"] = 0.5 if metric == "roc_auc" else labels["majority_share"]
    return out


def _node_card(arrays: dict, meta: dict, warnings: list) -> dict:
    n = int(arrays["num_nodes"])
    sizes, pairs = _graph_sizes(arrays["edge_index"], n, meta)
    y = np.asarray(arrays["y"]).reshape(-1)
    labels = {**class_counts(y)}
    labels.update(_scoring(labels, meta))
    labels.update(homophily(pairs, y))
    labels["classes"] = len(labels["counts"])
    split = {"kind": meta.get("split")}
    if all(m in arrays for m in _MASKS):
        masks = [np.asarray(arrays[m], dtype=bool) for m in _MASKS]
        if masks[0].ndim == 2:
            split["audited"] = f"split 0 of the {masks[0].shape[1]} stored splits"
            masks = [m[:, 0] for m in masks]
        split.update({"stored": True, "sizes": [int(m.sum()) for m in masks]})
        shared = int(np.sum(np.sum(np.stack(masks), axis=0) > 1))
        split["in_several_splits"] = shared
        if shared:
            warnings.append(f"{shared} node(s) are in more than one of train/validation/test")
        unseen = sorted(set(y[masks[2] & (y >= 0)].tolist()) - set(y[masks[0] & (y >= 0)].tolist()))
        split["test_classes_not_in_train"] = unseen
        if unseen:
            warnings.append(f"class(es) {unseen} are in test but never in training")
    else:
        split.update({"stored": False, "drawn": "per seed at training time, stratified by class"})
        single = [int(c) for c, k in enumerate(labels["counts"]) if k == 1]
        if single:
            split["single_member_classes"] = single  # in training only: the stratified split keeps one train node
    return {"sizes": sizes, "labels": labels, "split": split}


def _link_card(arrays: dict, meta: dict, warnings: list) -> dict:
    n = int(arrays["num_nodes"])
    sizes, _ = _graph_sizes(arrays["edge_index"], n, meta)
    split = {"kind": meta.get("split"), "stored": False, "drawn": "per seed at training time, over unique pairs"}
    twice = _twice_listed(arrays["edge_index"])
    split["pairs_listed_twice"] = twice
    if twice:
        warnings.append(f"{twice} edge record(s) repeat a pair (reversed or duplicated): a per-seed edge split can "
                        "hold one copy out while training on the other")
    return {"sizes": sizes, "labels": None, "split": split}


def _pair_keys(ei: np.ndarray, n: int) -> np.ndarray:
    return ei[0].astype(np.int64) * n + ei[1]


def _relational_card(arrays: dict, meta: dict, warnings: list) -> dict:
    n, k = int(arrays["num_nodes"]), int(arrays["num_relations"])
    ei = {s: np.asarray(arrays[f"{s}_edge_index"], dtype=np.int64).reshape(2, -1) for s in _SPLITS}
    et = {s: np.asarray(arrays[f"{s}_edge_type"], dtype=np.int64).reshape(-1) for s in _SPLITS}
    sizes, _ = _graph_sizes(ei["train"], n, meta)
    sizes.update(entities=n, relations=k, triples={s: int(et[s].size) for s in _SPLITS})
    sizes["directed_as_read"] = True
    train_triples = set((_pair_keys(ei["train"], n) * k + et["train"]).tolist())
    train_pairs = set(_pair_keys(ei["train"], n).tolist())
    seen = np.zeros(n, dtype=bool)
    seen[ei["train"].reshape(-1)] = True
    split = {"kind": meta.get("split"), "stored": True}
    for s in ("valid", "test"):
        triples = _pair_keys(ei[s], n) * k + et[s]
        repeated = int(np.isin(triples, list(train_triples)).sum()) if triples.size else 0
        reverse = int(np.isin(_pair_keys(ei[s][::-1], n), list(train_pairs)).sum()) if triples.size else 0
        linked = int(np.isin(_pair_keys(ei[s], n), list(train_pairs)).sum()) if triples.size else 0
        unseen = int(np.sum(~(seen[ei[s][0]] & seen[ei[s][1]])))
        split[s] = {"repeat_a_training_triple": repeated, "pair_in_training": linked, "reverse_pair_in_training": reverse,
                    "entity_unseen_in_training": unseen,
                    "relations_unseen_in_training": int(np.setdiff1d(et[s], et["train"]).size)}
        name = "validation" if s == "valid" else "test"
        if repeated:
            warnings.append(f"{repeated} {name} triple(s) are also training triples")
        if reverse:
            warnings.append(f"{reverse} of {et[s].size} {name} triple(s) ({reverse / et[s].size:.1%}) have their "
                            "reverse pair (tail, head) among the training triples: predictable by inversion")
    rel = np.bincount(et["train"], minlength=k)
    labels = {"relation_counts_train": {"min": int(rel.min()), "median": float(np.median(rel)), "max": int(rel.max())}}
    return {"sizes": sizes, "labels": labels, "split": split}


def _collection_card(arrays: dict, meta: dict, warnings: list) -> dict:
    node_ptr, edge_ptr = np.asarray(arrays["node_ptr"]), np.asarray(arrays["edge_ptr"])
    g = len(node_ptr) - 1
    n_per = np.diff(node_ptr)
    offsets = np.repeat(node_ptr[:-1], np.diff(edge_ptr))
    ei = np.asarray(arrays["edge_index"], dtype=np.int64).reshape(2, -1) + offsets
    pairs = pairs_of(ei)
    graph_of = np.repeat(np.arange(g), n_per)
    e_per = np.bincount(graph_of[pairs[0]], minlength=g) if pairs.size else np.zeros(g, dtype=np.int64)
    deg = degrees(pairs, int(node_ptr[-1]))
    sizes = {"graphs": g, "nodes": int(node_ptr[-1]), "edges": int(pairs.shape[1]),
             "isolated_nodes": int(np.sum(deg == 0)), "self_loops_kept": int(np.sum(ei[0] == ei[1])),
             "nodes_per_graph": degree_summary(n_per), "edges_per_graph": degree_summary(e_per),
             "degree": degree_summary(deg)}
    y = np.asarray(arrays["y"])
    classification = meta.get("family") == "graph_cls" and y.ndim == 1
    if classification:
        labels = {**class_counts(y)}
        labels.update(_scoring(labels, meta))
        labels["classes"] = len(labels["counts"])
        label_key = y.astype(str)
    else:
        yy = y.reshape(g, -1).astype(np.float64)
        labels = {"targets": int(yy.shape[1]), "mean": np.round(np.nanmean(yy, axis=0), 6).tolist()[:8],
                  "std": np.round(np.nanstd(yy, axis=0), 6).tolist()[:8]}
        label_key = np.asarray([row.tobytes().hex() for row in np.ascontiguousarray(yy)])
    hashes = np.asarray(wl_hashes(arrays["edge_index"], node_ptr, edge_ptr, arrays.get("x")))
    keys = np.char.add(np.char.add(hashes, "|"), label_key)
    _, group, size = np.unique(keys, return_inverse=True, return_counts=True)
    dup = size[group.reshape(-1)] > 1
    _, by_hash = np.unique(hashes, return_inverse=True)
    conflicting = _conflicts(by_hash.reshape(-1), label_key)
    split = {"kind": meta.get("split"), "identical_graphs": int(dup.sum()), "identical_with_other_labels": conflicting}
    if conflicting:
        warnings.append(f"{conflicting} group(s) of identical graphs (WL hash) carry different labels")
    if "split" in arrays:
        part = np.asarray(arrays["split"]).reshape(-1)
        split.update({"stored": True, "sizes": [int(np.sum(part == i)) for i in range(3)]})
        train_keys = set(keys[part == 0].tolist())
        for i, name in ((1, "validation"), (2, "test")):
            copies = int(sum(k in train_keys for k in keys[part == i].tolist()))
            split[f"{name}_identical_to_training"] = copies
            if copies:
                warnings.append(f"{copies} {name} graph(s) are identical (WL hash, same label) to a training graph")
        if classification:
            unseen = sorted(set(y[part == 2].tolist()) - set(y[part == 0].tolist()))
            split["test_classes_not_in_train"] = unseen
            if unseen:
                warnings.append(f"class(es) {unseen} are in test but never in training")
    else:
        split.update({"stored": False, "drawn": "per seed at training time"})
        if dup.any():
            warnings.append(f"{int(dup.sum())} graph(s) have an identical copy (WL hash, same label) in the collection: "
                            "a random split puts copies on both sides")
    return {"sizes": sizes, "labels": labels, "split": split}


def _conflicts(by_hash: np.ndarray, label_key: np.ndarray) -> int:
    """Groups of identical graphs (same WL hash) whose members carry more than one label."""
    order = np.argsort(by_hash, kind="stable")
    h, lab = by_hash[order], label_key[order]
    bounds = np.flatnonzero(np.diff(h)) + 1
    return int(sum(len(set(part.tolist())) > 1 for part in np.split(lab, bounds) if len(part) > 1))


# ---------------------------------------------------------------------------------- the card


def build_card(task_dir: str | Path) -> dict:
    """The card of the task in ``task_dir`` (module docstring); an unavailable task gets its reason."""
    task_dir = Path(task_dir)
    meta = read_meta(task_dir)
    card = {"schema": SCHEMA, "task": meta.get("task", task_dir.name), "dataset": meta.get("dataset"),
            "family": meta.get("family"), "status": meta.get("status")}
    if meta.get("status") != "ok":
        return {**card, "reason": meta.get("reason"), "warnings": []}
    arrays = task_arrays(task_dir, 0, meta)
    warnings: list[str] = []
    family = meta["family"]
    if family in ("graph_cls", "graph_reg"):
        body = _collection_card(arrays, meta, warnings)
    elif family == "node_cls":
        body = _node_card(arrays, meta, warnings)
    elif "train_edge_type" in arrays:
        body = _relational_card(arrays, meta, warnings)
    else:
        body = _link_card(arrays, meta, warnings)
    body["sizes"]["dropped"] = _dropped(meta)
    body["labels"] = _originals(body["labels"], meta)
    features = int(np.asarray(arrays["x"]).reshape(len(np.asarray(arrays["x"])), -1).shape[1]) if "x" in arrays else 0
    body["sizes"]["node_features"] = features or "none (structural features at training time)"
    if meta.get("node_features"):  # a declared graph without features: what fetch gave it (catalog.positional)
        used = meta["node_features"]
        body["sizes"]["node_features"] = f"{used['dim']} ({used['kind']}: {used['source']})"
    if meta.get("synthetic"):
        card["instance"] = "generated: the card describes seed 0's instance; every seed draws its own"
    return {**card, **body, "warnings": warnings}


def stored_card(task_dir: str | Path, digest: str | None = None) -> dict | None:
    """``data/<task>/card.json`` when it describes the data there now (its ``data`` is the data's hash,
    ``digest`` when known), else None (no card, an unreadable one, or one of other data)."""
    try:
        card = json.loads((Path(task_dir) / CARD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(card, dict) or card.get("schema") != SCHEMA:
        return None
    return card if card.get("data") == (digest or data_hash(task_dir)) else None


def read_card(task_dir: str | Path) -> dict:
    """``data/<task>/card.json`` where fetch wrote one for the data there now, else the card computed now."""
    return stored_card(task_dir) or build_card(task_dir)


#: the card's figures a run record carries (the report's dataset table), by section
SUMMARY = {"sizes": ("graphs", "nodes", "edges"), "labels": ("classes", "majority_share", "edge_homophily",
                                                             "adjusted_homophily", "label_informativeness")}


def card_summary(task_dir: str | Path, digest: str | None = None) -> dict | None:
    """The key figures and warnings of ``task_dir``'s ``card.json`` when it describes the data there now
    (``digest``: its :func:`data_hash`, when known; None otherwise: nothing is computed here, fetch
    writes the card)."""
    card = stored_card(task_dir, digest)
    if card is None:
        return None
    out = {key: (card.get(section) or {}).get(key) for section, keys in SUMMARY.items() for key in keys}
    return {**{k: v for k, v in out.items() if v is not None}, "warnings": list(card.get("warnings", []))}


def current_card(task_dir: str | Path) -> dict:
    """The card of the data in ``task_dir``, written to ``card.json`` (atomically) unless the one there
    already describes this data (its ``data`` is the data's hash); an unavailable task's is not written."""
    task_dir = Path(task_dir)
    digest = data_hash(task_dir)
    card = stored_card(task_dir, digest)
    if card is not None:
        return card
    card = build_card(task_dir)
    path = task_dir / CARD
    if card["status"] == "ok":
        card["data"] = digest
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")  # in reading order
        tmp.replace(path)
    return card


def _value(v) -> str:
    if isinstance(v, dict):
        return " / ".join(f"{k.replace('_', ' ')} {_value(x)}" for k, x in v.items() if x is not None)
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def card_text(card: dict, width: int = 100) -> str:
    """The card as text (``netzbench card``): one wrapped paragraph per section."""
    import textwrap

    lines = [f"{card['task']} ({card.get('family')}, dataset {card.get('dataset')})"]
    if card.get("status") != "ok":
        return "\n".join(lines + [f"  unavailable: {card.get('reason')}"])
    if card.get("instance"):
        lines.append(f"  {card['instance']}")
    for section in ("sizes", "labels", "split"):
        if not card.get(section):
            continue
        items = [f"{k.replace('_', ' ')} {_value(v)}" for k, v in card[section].items() if v not in (None, [], {})]
        lines += textwrap.wrap(", ".join(items), width, initial_indent=f"{section + ':':<10}",
                               subsequent_indent=" " * 10, break_on_hyphens=False)
    lines.append("warnings: " + ("none" if not card["warnings"] else ""))
    lines += [f"  ! {w}" for w in card["warnings"]]
    return "\n".join(line.rstrip() for line in lines)
