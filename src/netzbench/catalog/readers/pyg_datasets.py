"""Processors for datasets that PyTorch Geometric (or the optional ``ogb``) can read.

Each processor stages the raw files into a temporary root laid out the way
the PyG/OGB class expects (so the class finds them and never downloads),
lets the class parse them, and converts the result to the layouts of
:mod:`netzbench.graphs.layout`. The conversion helpers (``datasets_collection``,
``node_arrays``, ``relational_arrays``, ...) take plain PyG objects, so they
are tested on tiny in-memory datasets too.

Choices that are not dictated by the source are documented per processor
(PPI: union of all 24 tissue graphs; MovieLens-100k: users then movies;
FB15k-237: ``num_relations`` without inverse relations; WikiCS: the single
test mask repeated for each of the 20 splits).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...graphs.collection import collection_arrays
from ...graphs.convert import as_numpy as _np
from ...graphs.edges import count_undirected_pairs, symmetric_edges, undirected_pairs
from .staging import import_ogb, offline, stage
from .files import count_dropped

# --------------------------------------------------------- graph collections


def _collect(ds) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """x, edge_index (local ids), node_ptr, edge_ptr, stacked y of a graph collection.

    An untransformed ``InMemoryDataset`` is read from its collated storage
    (fast: no per-graph objects); anything else is iterated graph by graph.
    """
    data, slices = getattr(ds, "_data", None), getattr(ds, "slices", None)
    fast = (
        data is not None and slices is not None and "x" in slices and "edge_index" in slices
        and getattr(ds, "transform", None) is None and getattr(ds, "_indices", None) is None
    )
    if fast:
        # InMemoryDataset collates without incrementing edge_index: ids stay per-graph local
        return (_np(data.x), _np(data.edge_index), _np(slices["x"]).astype(np.int64),
                _np(slices["edge_index"]).astype(np.int64), _np(data.y))
    graphs = list(ds)
    node_ptr = np.cumsum([0] + [int(g.num_nodes) for g in graphs]).astype(np.int64)
    edge_ptr = np.cumsum([0] + [int(g.edge_index.shape[1]) for g in graphs]).astype(np.int64)
    x = np.concatenate([_np(g.x) for g in graphs])
    ei = np.concatenate([_np(g.edge_index).reshape(2, -1) for g in graphs], axis=1)
    y = np.concatenate([_np(g.y).reshape(1, -1) for g in graphs])  # [G, T]; T = 1 for one label
    return x, ei, node_ptr, edge_ptr, y


def datasets_collection(parts, target: str, split: np.ndarray | None = None) -> tuple[dict, dict]:
    """The collection layout (:mod:`netzbench.graphs.collection`) of PyG graph collections.

    ``parts`` is a sequence of datasets (e.g. the train, val and test parts of
    LRGB, concatenated in that order); ``target`` is ``"class"``,
    ``"multilabel"`` or ``"regression"``; ``split`` (int8 [G], 0/1/2) is
    stored when given.
    """
    xs, eis, nps, eps, ys = [], [], [0], [0], []
    for ds in parts:
        x, ei, node_ptr, edge_ptr, y = _collect(ds)
        xs.append(np.asarray(x, dtype=np.float32).reshape(len(x), -1))
        eis.append(np.asarray(ei, dtype=np.int64).reshape(2, -1))
        nps.extend((node_ptr[1:] + nps[-1]).tolist())
        eps.extend((edge_ptr[1:] + eps[-1]).tolist())
        ys.append(np.asarray(y).reshape(len(node_ptr) - 1, -1))
    return collection_arrays(np.concatenate(xs), np.concatenate(eis, axis=1), nps, eps, np.concatenate(ys),
                             target=target, split=split)


def split_from_index(num: int, split_idx: dict) -> np.ndarray:
    """An int8 ``split`` array (0 train, 1 val, 2 test) from OGB-style index lists."""
    split = np.full(num, -1, dtype=np.int8)
    for code, keys in enumerate((("train",), ("valid", "val"), ("test",))):
        key = next(k for k in keys if k in split_idx)
        split[_np(split_idx[key]).astype(np.int64).reshape(-1)] = code
    if (split < 0).any():
        raise ValueError(f"{int((split < 0).sum())} items are in no canonical split")
    return split


# ------------------------------------------------------------- single graphs


def node_arrays(data, undirected: bool = True) -> tuple[dict, dict, dict]:
    """A node-classification graph with its canonical masks, its counts and what was dropped.

    Masks keep their shape: [N] for one split, [N, S] for S splits. A mask
    that is [N] while the others are [N, S] (WikiCS's single test mask) is
    repeated to [N, S] so that column ``s`` always gives one complete split.
    With ``undirected`` the edges are symmetrised (unique pairs, both
    directions, self-loops dropped) and ``num_directed_edges`` records the
    source's directed count; ``dropped`` counts the self-loops and repeated
    records of the source's edge list left out.
    """
    ei = _np(data.edge_index).astype(np.int64)
    pairs = undirected_pairs(ei)
    arrays = {
        "x": _np(data.x).astype(np.float32),
        "edge_index": symmetric_edges(pairs) if undirected else ei,
        "num_nodes": np.asarray(int(data.num_nodes), dtype=np.int64),
        "y": _np(data.y).reshape(-1).astype(np.int64),
    }
    masks = {m: _np(data[m]).astype(bool) for m in ("train_mask", "val_mask", "test_mask")}
    width = max((m.shape[1] for m in masks.values() if m.ndim == 2), default=0)
    for name, m in masks.items():
        if width and m.ndim == 1:
            m = np.repeat(m[:, None], width, axis=1)
        arrays[name] = np.ascontiguousarray(m)
    counts = {
        "num_nodes": int(data.num_nodes),
        "num_edges": int(pairs.shape[1]),
        "num_features": int(arrays["x"].shape[1]),
        "num_classes": int(arrays["y"].max()) + 1,
        "num_splits": int(width or 1),
    }
    if undirected and ei.shape[1] != arrays["edge_index"].shape[1]:
        counts["num_directed_edges"] = int(ei.shape[1])
    return arrays, counts, count_dropped(ei[0], ei[1]) if undirected else {}


def link_arrays(num_nodes: int, edge_index: np.ndarray, x: np.ndarray | None = None,
                **extra_counts) -> tuple[dict, dict, dict]:
    """A homogeneous link-prediction graph: unique undirected pairs, stored both ways; its counts and
    the self-loops and repeated records of ``edge_index`` left out."""
    edge_index = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    pairs = undirected_pairs(edge_index)
    arrays = {"edge_index": symmetric_edges(pairs), "num_nodes": np.asarray(num_nodes, dtype=np.int64)}
    counts = {"num_nodes": int(num_nodes), "num_edges": int(pairs.shape[1])}
    if x is not None:
        arrays["x"] = np.asarray(x, dtype=np.float32)
        counts["num_features"] = int(arrays["x"].shape[1])
    counts.update(extra_counts)
    return arrays, counts, count_dropped(edge_index[0], edge_index[1])


def relational_arrays(num_nodes: int, num_relations: int, triples: dict) -> tuple[dict, dict]:
    """Relational layout from ``{"train"|"valid"|"test": (edge_index [2, m], edge_type [m])}``."""
    arrays = {
        "num_nodes": np.asarray(num_nodes, dtype=np.int64),
        "num_relations": np.asarray(num_relations, dtype=np.int64),
    }
    counts = {"num_nodes": int(num_nodes), "num_relations": int(num_relations)}
    for split in ("train", "valid", "test"):
        ei, et = triples[split]
        ei = np.asarray(ei, dtype=np.int64).reshape(2, -1)
        et = np.asarray(et, dtype=np.int64).reshape(-1)
        if et.size and (et.min() < 0 or et.max() >= num_relations):
            raise ValueError(f"{split}: relation ids outside [0, {num_relations})")
        arrays[f"{split}_edge_index"], arrays[f"{split}_edge_type"] = ei, et
        counts[f"num_{split}_triples"] = int(et.size)
    every = np.concatenate([arrays[f"{s}_edge_index"] for s in ("train", "valid", "test")], axis=1)
    counts["num_edges"] = count_undirected_pairs(every)
    return arrays, counts


# ----------------------------------------------------------------- biology


def _peptides(raw_dir: Path, name: str, target: str) -> tuple[dict, dict]:
    from torch_geometric.datasets import LRGBDataset

    cls = offline(LRGBDataset)  # raw .pt files loaded weights only (PyG retries a refused one unrestricted)
    tmp, root = stage(raw_dir, name, "raw")
    with tmp:
        parts = [cls(str(root), name, split=s) for s in ("train", "val", "test")]
        split = np.concatenate([np.full(len(p), k, dtype=np.int8) for k, p in enumerate(parts)])
        return datasets_collection(parts, target, split)


def peptides_func(raw_dir: Path, fmt: str = "lrgb-peptides") -> tuple[dict, dict]:
    """LRGB Peptides-func: 10 peptide functions, multi-label; train/val/test kept as ``split``."""
    return _peptides(raw_dir, "peptides-func", "multilabel")


def peptides_struct(raw_dir: Path, fmt: str = "lrgb-peptides") -> tuple[dict, dict]:
    """LRGB Peptides-struct: 11 normalised 3-D structure targets; train/val/test kept as ``split``."""
    return _peptides(raw_dir, "peptides-struct", "regression")


def _ogbg(raw_dir: Path, name: str, target: str) -> tuple[dict, dict]:
    mod = import_ogb("ogb.graphproppred")
    tmp, root = stage(raw_dir, name.replace("-", "_"))
    with tmp:
        ds = mod.PygGraphPropPredDataset(name=name, root=str(root))
        split = split_from_index(len(ds), ds.get_idx_split())
        return datasets_collection([ds], target, split)


def ogbg_molhiv(raw_dir: Path, fmt: str = "ogb") -> tuple[dict, dict]:
    """ogbg-molhiv via ``ogb``: one binary label per molecule (``y`` int64), scaffold split."""
    return _ogbg(raw_dir, "ogbg-molhiv", "class")


def ogbg_molpcba(raw_dir: Path, fmt: str = "ogb") -> tuple[dict, dict]:
    """ogbg-molpcba via ``ogb``: 128 binary assays, NaN where a molecule was not tested; scaffold split."""
    return _ogbg(raw_dir, "ogbg-molpcba", "multilabel")


def ppi(raw_dir: Path, fmt: str = "ppi") -> tuple[dict, dict, dict]:
    """PPI tissue graphs as one link-prediction graph.

    All 24 graphs (PyG's 20 train, 2 val, 2 test, in that order) are joined
    as disjoint components with consecutive node ids; the node-classification
    split of the source is meaningless for link prediction, and the union
    gives the most edges to learn from and to hold out. Node features are the
    50 gene-set features; the 121 GO labels are not stored.
    """
    from torch_geometric.datasets import PPI

    tmp, root = stage(raw_dir, "raw")
    with tmp:
        xs, eis, offset, graphs = [], [], 0, 0
        for s in ("train", "val", "test"):
            for g in PPI(str(root), split=s):
                xs.append(_np(g.x).astype(np.float32))
                eis.append(_np(g.edge_index).astype(np.int64) + offset)
                offset += int(g.num_nodes)
                graphs += 1
        return link_arrays(offset, np.concatenate(eis, axis=1), np.concatenate(xs), num_source_graphs=graphs)


# ------------------------------------------------------------------ social


def wikics(raw_dir: Path, fmt: str = "wikics") -> tuple[dict, dict, dict]:
    """WikiCS with its 20 canonical train/val masks ([N, 20]); the single test mask is repeated.

    The ``stopping_mask`` (early-stopping nodes) is not stored: the protocol
    trains for a fixed number of epochs.
    """
    from torch_geometric.datasets import WikiCS

    tmp, root = stage(raw_dir, "WikiCS", "raw")
    with tmp:
        return node_arrays(WikiCS(str(root / "WikiCS"), is_undirected=True)[0])


def heterophilous(raw_dir: Path, fmt: str = "heterophilous-npz") -> tuple[dict, dict, dict]:
    """A Platonov et al. heterophilous graph (``<name>.npz``) with its 10 canonical splits ([N, 10])."""
    from torch_geometric.datasets import HeterophilousGraphDataset

    npz = sorted(Path(raw_dir).glob("*.npz"))
    if len(npz) != 1:
        raise ValueError(f"expected one <name>.npz in {raw_dir}, found {[p.name for p in npz]}")
    name = npz[0].stem
    tmp, root = stage(raw_dir, name, "raw")
    with tmp:
        return node_arrays(HeterophilousGraphDataset(str(root), name)[0])


def ogbn_arxiv(raw_dir: Path, fmt: str = "ogb") -> tuple[dict, dict, dict]:
    """ogbn-arxiv via ``ogb``: time split as masks; citations symmetrised (as OGB's own baselines do)."""
    mod = import_ogb("ogb.nodeproppred")
    tmp, root = stage(raw_dir, "ogbn_arxiv")
    with tmp:
        ds = mod.PygNodePropPredDataset(name="ogbn-arxiv", root=str(root))
        return ogb_node_arrays(ds[0], ds.get_idx_split())


def ogb_node_arrays(data, split_idx: dict) -> tuple[dict, dict, dict]:
    """An OGB node-property graph with its index split turned into boolean masks."""
    split = split_from_index(int(data.num_nodes), split_idx)
    data = data.clone()
    for code, mask in enumerate(("train_mask", "val_mask", "test_mask")):
        data[mask] = _as_tensor(split == code)
    return node_arrays(data, undirected=True)


def _as_tensor(a: np.ndarray):
    import torch

    return torch.from_numpy(np.ascontiguousarray(a))


def movielens_100k(raw_dir: Path, fmt: str = "movielens") -> tuple[dict, dict, dict]:
    """MovieLens-100k as one bipartite graph: users first, then movies; an edge per rating.

    PyG's heterogeneous ``MovieLens100K`` is read and flattened: node ``i <
    943`` is user ``i + 1`` (u.user order), node ``943 + j`` is movie ``j +
    1`` (u.item order). Edges are all 100,000 ratings (u1.base plus u1.test,
    i.e. the whole of u.data), undirected. Features are block-structured: user
    columns (age, gender, occupation one-hots) then movie columns (the 18 genre
    flags PyG keeps; it leaves out "unknown"), zero in the other block.
    """
    from torch_geometric.datasets import MovieLens100K

    tmp, root = stage(raw_dir, "raw")
    with tmp:
        return bipartite_arrays(MovieLens100K(str(root))[0])


def bipartite_arrays(data) -> tuple[dict, dict, dict]:
    """Flatten a user/movie ``HeteroData`` (rates edges + label edges) into one homogeneous graph."""
    xu, xm = _np(data["user"].x).astype(np.float32), _np(data["movie"].x).astype(np.float32)
    nu, nm = xu.shape[0], xm.shape[0]
    store = data["user", "rates", "movie"]
    ratings = [_np(store.edge_index)]
    if "edge_label_index" in store:
        ratings.append(_np(store.edge_label_index))
    ei = np.concatenate(ratings, axis=1).astype(np.int64)
    ei[1] += nu
    x = np.zeros((nu + nm, xu.shape[1] + xm.shape[1]), dtype=np.float32)
    x[:nu, : xu.shape[1]] = xu
    x[nu:, xu.shape[1]:] = xm
    return link_arrays(nu + nm, ei, x, num_users=int(nu), num_movies=int(nm), num_ratings=int(ei.shape[1]))


def ogbl_collab(raw_dir: Path, fmt: str = "ogb") -> tuple[dict, dict, dict]:
    """ogbl-collab via ``ogb`` as one undirected co-authorship graph.

    The benchmark's link-prediction protocol draws its own 80/10/10 edge
    split per seed, so the positive edges of OGB's train, valid and test
    sets are joined (years and multiplicities collapsed to unique pairs).
    """
    mod = import_ogb("ogb.linkproppred")
    tmp, root = stage(raw_dir, "ogbl_collab")
    with tmp:
        ds = mod.PygLinkPropPredDataset(name="ogbl-collab", root=str(root))
        return ogb_link_arrays(ds[0], ds.get_edge_split())


def ogb_link_arrays(data, split_edge: dict) -> tuple[dict, dict, dict]:
    """Union of the graph's edges and the positive edges of every OGB split."""
    parts = [_np(data.edge_index).astype(np.int64)]
    for split in split_edge.values():
        if "edge" in split:
            parts.append(_np(split["edge"]).astype(np.int64).reshape(-1, 2).T)
    return link_arrays(int(data.num_nodes), np.concatenate(parts, axis=1), _np(data.x))


# --------------------------------------------------------------- knowledge


def fb15k_237(raw_dir: Path, fmt: str = "fb15k-237-dict") -> tuple[dict, dict]:
    """FB15k-237 via PyG's ``RelLinkPredDataset``: canonical train/valid/test triples.

    Entity and relation ids are those of entities.dict and relations.dict.
    ``num_relations`` is the 237 relations of relations.dict; PyG's 474
    (``num_relations_with_inverses``) also counts the inverse relation it adds
    for message passing, which a model adds itself from the train triples.
    """
    from torch_geometric.datasets import RelLinkPredDataset

    lines = (Path(raw_dir) / "relations.dict").read_text(encoding="utf-8").splitlines()
    num_relations = sum(1 for line in lines if line.strip())
    tmp, root = stage(raw_dir, "FB15k-237", "raw")
    with tmp:
        data = RelLinkPredDataset(str(root), "FB15k-237")[0]
        triples = {s: (_np(data[f"{s}_edge_index"]), _np(data[f"{s}_edge_type"])) for s in ("train", "valid", "test")}
        arrays, counts = relational_arrays(int(data.num_nodes), num_relations, triples)
        counts["num_relations_with_inverses"] = int(_np(data.edge_type).max()) + 1
        return arrays, counts


def wordnet18rr(raw_dir: Path, fmt: str = "wn18rr-txt") -> tuple[dict, dict]:
    """WN18RR via PyG's ``WordNet18RR``: canonical train/valid/test triples, 11 relations.

    Node ids are PyG's (order of first appearance in the files). PyG sorts all
    triples by (head, tail); within each split the triples are re-sorted by
    (head, tail, relation) so the order does not depend on sort stability.
    """
    from torch_geometric.datasets import WordNet18RR

    tmp, root = stage(raw_dir, "WN18RR", "raw")
    with tmp:
        ds = WordNet18RR(str(root / "WN18RR"))
        data = ds[0]
        ei, et = _np(data.edge_index).astype(np.int64), _np(data.edge_type).astype(np.int64)
        triples = {}
        for split, mask in (("train", "train_mask"), ("valid", "val_mask"), ("test", "test_mask")):
            m = _np(data[mask]).astype(bool)
            e, t = ei[:, m], et[m]
            order = np.lexsort((t, e[1], e[0]))
            triples[split] = (e[:, order], t[order])
        return relational_arrays(int(data.num_nodes), len(ds.edge2id), triples)
