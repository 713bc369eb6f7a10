"""Processors for datasets that PyTorch Geometric (or the optional ``ogb``) can read.

Each processor stages the raw files into a temporary root laid out the way
the PyG/OGB class expects (so the class finds them and never downloads),
lets the class parse them, and converts the result to the layouts of
:mod:`netzbench.catalog.data`. The conversion helpers (``collection_arrays``,
``node_arrays``, ``relational_arrays``, ...) take plain PyG objects, so they
are tested on tiny in-memory datasets too.

Choices that are not dictated by the source are documented per processor
(PPI: union of all 24 tissue graphs; MovieLens-100k: users then movies;
FB15k-237: ``num_relations`` without inverse relations; WikiCS: the single
test mask repeated for each of the 20 splits).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np

from ..loaders import undirected_pairs

OGB_HINT = "pip install 'netzbench[ogb]'"


# --------------------------------------------------------------------- helpers


def _stage(raw_dir: Path, *parts: str) -> tuple[tempfile.TemporaryDirectory, Path]:
    """A writable temporary root with a copy of ``raw_dir`` at ``root/<parts...>``."""
    tmp = tempfile.TemporaryDirectory(prefix="netzbench-pyg-")
    root = Path(tmp.name)
    shutil.copytree(raw_dir, root.joinpath(*parts))
    return tmp, root


def symmetric_edges(pairs: np.ndarray) -> np.ndarray:
    """Both directions of unique undirected pairs ``[2, m]``, sorted by (source, target)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(2, -1)
    both = np.concatenate([pairs, pairs[::-1]], axis=1)
    order = np.lexsort((both[1], both[0]))
    return np.ascontiguousarray(both[:, order])


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)


def _import_ogb(module: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"this dataset is read with the optional Open Graph Benchmark package ({module} could "
            f"not be imported: {exc}). Install it with: {OGB_HINT}"
        ) from exc


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


def collection_arrays(parts, target: str, split: np.ndarray | None = None) -> tuple[dict, dict]:
    """Concatenate graph collections into the collection layout.

    ``parts`` is a sequence of datasets (e.g. the train, val and test parts of
    LRGB, concatenated in that order). ``target`` is ``"class"`` (``y`` int64
    [G]), ``"multilabel"`` (float32 [G, T], NaN where missing) or
    ``"regression"`` (float32 [G, T]). ``split`` (int8 [G], 0/1/2) is stored
    when given.
    """
    xs, eis, nps, eps, ys = [], [], [0], [0], []
    for ds in parts:
        x, ei, node_ptr, edge_ptr, y = _collect(ds)
        xs.append(np.asarray(x, dtype=np.float32).reshape(len(x), -1))
        eis.append(np.asarray(ei, dtype=np.int64).reshape(2, -1))
        nps.extend((node_ptr[1:] + nps[-1]).tolist())
        eps.extend((edge_ptr[1:] + eps[-1]).tolist())
        ys.append(np.asarray(y))
    y = np.concatenate(ys)
    num_graphs = len(nps) - 1
    if target == "class":
        y = y.reshape(num_graphs, -1)
        if y.shape[1] != 1:
            raise ValueError(f"single-label classification expects one target per graph, got {y.shape}")
        y = y.reshape(-1).astype(np.int64)
    elif target in ("multilabel", "regression"):
        y = y.reshape(num_graphs, -1).astype(np.float32)
    else:
        raise ValueError(f"unknown target kind {target!r}")
    edge_index = np.concatenate(eis, axis=1)
    edge_ptr = np.asarray(eps, dtype=np.int64)
    node_offset = np.asarray(nps[:-1], dtype=np.int64)
    arrays = {
        "x": np.concatenate(xs),
        "edge_index": edge_index,
        "y": y,
        "node_ptr": np.asarray(nps, dtype=np.int64),
        "edge_ptr": edge_ptr,
    }
    # unique undirected pairs summed over graphs = pairs of the disjoint union (global node ids)
    graph_of_edge = np.repeat(np.arange(num_graphs), np.diff(edge_ptr))
    global_ei = edge_index + node_offset[graph_of_edge]
    counts = {
        "num_graphs": num_graphs,
        "num_nodes": int(nps[-1]),
        "num_edges": int(undirected_pairs(global_ei).shape[1]),
        "num_features": int(arrays["x"].shape[1]),
    }
    if target == "class":
        counts["num_classes"] = int(y.max()) + 1
    else:
        counts["num_targets"] = int(y.shape[1])
        if target == "multilabel":
            counts["num_missing_labels"] = int(np.isnan(y).sum())
    if split is not None:
        split = np.asarray(split, dtype=np.int8)
        if split.shape != (num_graphs,):
            raise ValueError(f"split has shape {split.shape}, expected ({num_graphs},)")
        arrays["split"] = split
        counts.update({f"num_{name}_graphs": int((split == k).sum())
                       for k, name in enumerate(("train", "val", "test"))})
    return arrays, counts


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


def node_arrays(data, undirected: bool = True) -> tuple[dict, dict]:
    """A node-classification graph with its canonical masks.

    Masks keep their shape: [N] for one split, [N, S] for S splits. A mask
    that is [N] while the others are [N, S] (WikiCS's single test mask) is
    repeated to [N, S] so that column ``s`` always gives one complete split.
    With ``undirected`` the edges are symmetrised (unique pairs, both
    directions, self-loops dropped) and ``num_directed_edges`` records the
    source's directed count.
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
    return arrays, counts


def link_arrays(num_nodes: int, edge_index: np.ndarray, x: np.ndarray | None = None,
                **extra_counts) -> tuple[dict, dict]:
    """A homogeneous link-prediction graph: unique undirected pairs, stored both ways."""
    pairs = undirected_pairs(edge_index)
    arrays = {"edge_index": symmetric_edges(pairs), "num_nodes": np.asarray(num_nodes, dtype=np.int64)}
    counts = {"num_nodes": int(num_nodes), "num_edges": int(pairs.shape[1])}
    if x is not None:
        arrays["x"] = np.asarray(x, dtype=np.float32)
        counts["num_features"] = int(arrays["x"].shape[1])
    counts.update(extra_counts)
    return arrays, counts


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
    counts["num_edges"] = int(undirected_pairs(every).shape[1])
    return arrays, counts


# ----------------------------------------------------------------- biology


def _peptides(raw_dir: Path, name: str, target: str) -> tuple[dict, dict]:
    from torch_geometric.datasets import LRGBDataset

    tmp, root = _stage(raw_dir, name, "raw")
    with tmp:
        parts = [LRGBDataset(str(root), name, split=s) for s in ("train", "val", "test")]
        split = np.concatenate([np.full(len(p), k, dtype=np.int8) for k, p in enumerate(parts)])
        return collection_arrays(parts, target, split)


def peptides_func(raw_dir: Path, fmt: str = "lrgb-peptides") -> tuple[dict, dict]:
    """LRGB Peptides-func: 10 peptide functions, multi-label; train/val/test kept as ``split``."""
    return _peptides(raw_dir, "peptides-func", "multilabel")


def peptides_struct(raw_dir: Path, fmt: str = "lrgb-peptides") -> tuple[dict, dict]:
    """LRGB Peptides-struct: 11 normalised 3-D structure targets; train/val/test kept as ``split``."""
    return _peptides(raw_dir, "peptides-struct", "regression")


def _ogbg(raw_dir: Path, name: str, target: str) -> tuple[dict, dict]:
    mod = _import_ogb("ogb.graphproppred")
    tmp, root = _stage(raw_dir, name.replace("-", "_"))
    with tmp:
        ds = mod.PygGraphPropPredDataset(name=name, root=str(root))
        split = split_from_index(len(ds), ds.get_idx_split())
        return collection_arrays([ds], target, split)


def ogbg_molhiv(raw_dir: Path, fmt: str = "ogb") -> tuple[dict, dict]:
    """ogbg-molhiv via ``ogb``: one binary label per molecule (``y`` int64), scaffold split."""
    return _ogbg(raw_dir, "ogbg-molhiv", "class")


def ogbg_molpcba(raw_dir: Path, fmt: str = "ogb") -> tuple[dict, dict]:
    """ogbg-molpcba via ``ogb``: 128 binary assays, NaN where a molecule was not tested; scaffold split."""
    return _ogbg(raw_dir, "ogbg-molpcba", "multilabel")


def ppi(raw_dir: Path, fmt: str = "ppi") -> tuple[dict, dict]:
    """PPI tissue graphs as one link-prediction graph.

    All 24 graphs (PyG's 20 train, 2 val, 2 test, in that order) are joined
    as disjoint components with consecutive node ids; the node-classification
    split of the source is meaningless for link prediction, and the union
    gives the most edges to learn from and to hold out. Node features are the
    50 gene-set features; the 121 GO labels are not stored.
    """
    from torch_geometric.datasets import PPI

    tmp, root = _stage(raw_dir, "raw")
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


def wikics(raw_dir: Path, fmt: str = "wikics") -> tuple[dict, dict]:
    """WikiCS with its 20 canonical train/val masks ([N, 20]); the single test mask is repeated.

    The ``stopping_mask`` (early-stopping nodes) is not stored: the protocol
    trains for a fixed number of epochs.
    """
    from torch_geometric.datasets import WikiCS

    tmp, root = _stage(raw_dir, "WikiCS", "raw")
    with tmp:
        return node_arrays(WikiCS(str(root / "WikiCS"), is_undirected=True)[0])


def heterophilous(raw_dir: Path, fmt: str = "heterophilous-npz") -> tuple[dict, dict]:
    """A Platonov et al. heterophilous graph (``<name>.npz``) with its 10 canonical splits ([N, 10])."""
    from torch_geometric.datasets import HeterophilousGraphDataset

    npz = sorted(Path(raw_dir).glob("*.npz"))
    if len(npz) != 1:
        raise ValueError(f"expected one <name>.npz in {raw_dir}, found {[p.name for p in npz]}")
    name = npz[0].stem
    tmp, root = _stage(raw_dir, name, "raw")
    with tmp:
        return node_arrays(HeterophilousGraphDataset(str(root), name)[0])


def ogbn_arxiv(raw_dir: Path, fmt: str = "ogb") -> tuple[dict, dict]:
    """ogbn-arxiv via ``ogb``: time split as masks; citations symmetrised (as OGB's own baselines do)."""
    mod = _import_ogb("ogb.nodeproppred")
    tmp, root = _stage(raw_dir, "ogbn_arxiv")
    with tmp:
        ds = mod.PygNodePropPredDataset(name="ogbn-arxiv", root=str(root))
        return ogb_node_arrays(ds[0], ds.get_idx_split())


def ogb_node_arrays(data, split_idx: dict) -> tuple[dict, dict]:
    """An OGB node-property graph with its index split turned into boolean masks."""
    split = split_from_index(int(data.num_nodes), split_idx)
    data = data.clone()
    for code, mask in enumerate(("train_mask", "val_mask", "test_mask")):
        data[mask] = _as_tensor(split == code)
    return node_arrays(data, undirected=True)


def _as_tensor(a: np.ndarray):
    import torch

    return torch.from_numpy(np.ascontiguousarray(a))


def movielens_100k(raw_dir: Path, fmt: str = "movielens") -> tuple[dict, dict]:
    """MovieLens-100k as one bipartite graph: users first, then movies; an edge per rating.

    PyG's heterogeneous ``MovieLens100K`` is read and flattened: node ``i <
    943`` is user ``i + 1`` (u.user order), node ``943 + j`` is movie ``j +
    1`` (u.item order). Edges are all 100,000 ratings (u1.base plus u1.test,
    i.e. the whole of u.data), undirected. Features are block-structured: user
    columns (age, gender, occupation one-hots) then movie columns (the 18 genre
    flags PyG keeps; it leaves out "unknown"), zero in the other block.
    """
    from torch_geometric.datasets import MovieLens100K

    tmp, root = _stage(raw_dir, "raw")
    with tmp:
        return bipartite_arrays(MovieLens100K(str(root))[0])


def bipartite_arrays(data) -> tuple[dict, dict]:
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


def ogbl_collab(raw_dir: Path, fmt: str = "ogb") -> tuple[dict, dict]:
    """ogbl-collab via ``ogb`` as one undirected co-authorship graph.

    The benchmark's link-prediction protocol draws its own 80/10/10 edge
    split per seed, so the positive edges of OGB's train, valid and test
    sets are joined (years and multiplicities collapsed to unique pairs).
    """
    mod = _import_ogb("ogb.linkproppred")
    tmp, root = _stage(raw_dir, "ogbl_collab")
    with tmp:
        ds = mod.PygLinkPropPredDataset(name="ogbl-collab", root=str(root))
        return ogb_link_arrays(ds[0], ds.get_edge_split())


def ogb_link_arrays(data, split_edge: dict) -> tuple[dict, dict]:
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
    tmp, root = _stage(raw_dir, "FB15k-237", "raw")
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

    tmp, root = _stage(raw_dir, "WN18RR", "raw")
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
