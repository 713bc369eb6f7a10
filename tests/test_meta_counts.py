"""``meta.json`` counts and ``dropped`` under the same names for every family and route, and raw hashes.

Fixtures are written here with the quirks that matter (repeated records, a
record listed in reverse, self-loops, weights, isolated nodes, graphs
without node labels); the expected values are computed here from what was
written, with plain Python sets, not with the package's counting code.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from helpers import as_settings, make_params, write_package
from netzbench.catalog import custom
from netzbench.catalog.data import fetch_task
from netzbench.catalog.table import DATASETS, TASKS, Dataset, RawFile, Source, TaskSpec, add_dataset, add_task
from netzbench.catalog.loaders import tudataset
from netzbench.catalog.readers import networks, pyg_datasets
from netzbench.graphs.layout import load_arrays

#: the names every meta.json of a family has (a knowledge graph: "relational")
COMMON = {
    "link_pred": {"num_nodes", "num_edges"},
    "relational": {"num_nodes", "num_edges", "num_relations", "num_train_triples", "num_valid_triples",
                   "num_test_triples"},
    "node_cls": {"num_nodes", "num_edges", "num_classes"},
    "graph_cls": {"num_graphs", "num_nodes", "num_edges", "num_classes"},
}
DROPPED_KEYS = {"duplicate_edges", "self_loops", "weights"}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _simple(records) -> dict:
    """What a simple undirected graph keeps of edge records: pairs, nodes, and what it drops."""
    loops = [(u, v) for u, v in records if u == v]
    rest = [(u, v) for u, v in records if u != v]
    pairs = {frozenset(r) for r in rest}
    return {"pairs": pairs, "nodes": {n for r in rest for n in r}, "self_loops": len(loops),
            "duplicate_edges": len(rest) - len(set(rest)), "reverse_duplicates": len(set(rest)) - len(pairs)}


def _accounted(meta: dict, records) -> None:
    """Every record is an edge, a self-loop, a repeat or the reverse of an earlier record."""
    d = meta["dropped"]
    assert len(records) == (meta["counts"]["num_edges"] + d["self_loops"] + d["duplicate_edges"]
                            + d.get("reverse_duplicates", 0))


@pytest.fixture
def registry():
    """Register throwaway catalogue datasets (one task each); removed afterwards."""
    added = []

    def register(tid: str, family: str, processor, fmt: str, files: list[str], category: str):
        add_dataset(Dataset(id=tid, name=tid, category=category, families=(family,), description="fixture",
                            license="test", citation="", processor=processor, in_paper=False,
                            sources=(Source("files", "https://example.invalid/{file}", fmt,
                                            tuple(RawFile(f, f) for f in files)),)))
        split = {"graph_cls": "random_graph_80_10_10", "link_pred": "random_edge_80_10_10"}[family]
        add_task(TaskSpec(tid, tid, family, 3, "relational_canonical" if fmt == "fb15k-237-dict" else split,
                          "fixture", relational=fmt == "fb15k-237-dict", in_paper=False))
        added.append(tid)

    yield register
    for tid in added:
        TASKS.pop(tid, None)
        DATASETS.pop(tid, None)


def _fetch(tid: str, tmp_path: Path) -> tuple[dict, dict]:
    meta = fetch_task(tid, as_settings(make_params()), tmp_path / "data")
    assert meta["status"] == "ok", meta
    return meta, load_arrays(tmp_path / "data" / tid / "graph.npz")


def _forget(ids) -> None:
    for tid in ids:
        TASKS.pop(tid, None)
        DATASETS.pop(tid, None)
        custom._REGISTERED.pop(tid, None)


def _fetch_declared(tid: str, entry: dict, tmp_path: Path) -> tuple[dict, dict]:
    """Declare ``tid`` as a custom task, fetch it, and forget it again (the catalogue is process-wide)."""
    custom.register_custom_tasks({tid: entry})
    try:
        return _fetch(tid, tmp_path)
    finally:
        _forget([tid])


def _common(meta: dict, family: str) -> None:
    assert COMMON[family] <= set(meta["counts"]), (family, meta["counts"])
    assert DROPPED_KEYS <= set(meta["dropped"]), meta["dropped"]
    assert isinstance(meta["raw_sha256"], dict)


# ------------------------------------------------------------------------------------------- network

def _write_gml(path: Path) -> tuple[list, int]:
    """Weighted GML: a ring and a chord on ids 10..18, a repeated record, one in reverse, a self-loop,
    an isolated node 19; CRLF. Returns the edge records and the number of declared nodes."""
    ids = list(range(10, 20))
    records = [(ids[i], ids[(i + 1) % 9]) for i in range(9)] + [(10, 14), (11, 12), (13, 12), (15, 15)]
    lines = ['Creator "netzbench test"', "graph", "[", "  directed 0"]
    lines += [f'  node [ id {i} label "n {i}" ]' for i in ids]
    lines += [f"  edge [ source {u} target {v} weight {1.5 + k} ]" for k, (u, v) in enumerate(records)]
    lines.append("]")
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode())
    return records, len(ids)


def test_a_catalogue_network_records_counts_dropped_and_raw_hashes(tmp_path, monkeypatch, registry):
    mirror = tmp_path / "mirror" / "mc_net"
    mirror.mkdir(parents=True)
    records, declared = _write_gml(mirror / "fixture.gml")
    monkeypatch.setenv("NETZBENCH_MIRROR", str(tmp_path / "mirror"))
    registry("mc_net", "link_pred", networks.link_pred, "gml", ["fixture.gml"], "infrastructure")
    meta, arrays = _fetch("mc_net", tmp_path)
    want = _simple(records)
    _common(meta, "link_pred")
    counts = meta["counts"]
    assert counts["num_nodes"] == len(want["nodes"]) == 9 and counts["num_edges"] == len(want["pairs"]) == 10
    assert counts["num_edge_records"] == len(records)  # a reader's own count, kept beside the common ones
    assert meta["dropped"] == {"duplicate_edges": want["duplicate_edges"], "self_loops": want["self_loops"],
                               "reverse_duplicates": want["reverse_duplicates"], "weights": True,
                               "edge_attributes": ["weight"], "isolated_nodes": declared - len(want["nodes"])}
    _accounted(meta, records)
    assert meta["dropped"]["duplicate_edges"] == 1 and meta["dropped"]["self_loops"] == 1
    assert meta["raw_sha256"] == {"fixture.gml": _sha(mirror / "fixture.gml")}
    assert arrays["edge_index"].shape == (2, len(want["pairs"]))  # the arrays hold what the counts say
    # the same file declared as a custom task: the same counts and dropped under the same names
    declared_meta, _ = _fetch_declared("mc_net_declared", {"format": "gml", "path": str(mirror), "family": "link_pred"},
                                       tmp_path)
    assert declared_meta["counts"] == counts and declared_meta["dropped"] == meta["dropped"]
    assert declared_meta["raw_sha256"] == meta["raw_sha256"]


# ---------------------------------------------------------------------------------------- collection

def _write_tu(folder: Path, name: str = "PLAINMOL") -> dict:
    """A TU collection without node labels or attributes: 1-based ids, both directions listed, a
    repeated record, a self-loop, -1/1 graph labels, CRLF. Returns what was written."""
    folder.mkdir(parents=True, exist_ok=True)
    records, indicator, labels, degrees, first = [], [], [], [], 1
    for g in range(12):
        n = 3 + g % 3
        ids = list(range(first, first + n))
        pairs = list(zip(ids, ids[1:])) + ([(ids[0], ids[-1])] if g % 2 else [])
        deg = np.zeros(n)
        for a, b in pairs:
            records += [(a, b), (b, a)]
            deg[a - first] += 1
            deg[b - first] += 1
        degrees.append(deg)
        indicator += [g + 1] * n
        labels.append(1 if g % 3 == 0 else -1)
        first += n
    records += [records[0], (2, 2)]  # a repeated record and a self-loop
    crlf = "\r\n"
    (folder / f"{name}_A.txt").write_text("".join(f"{a}, {b}{crlf}" for a, b in records), newline="")
    (folder / f"{name}_graph_indicator.txt").write_text("".join(f"{g}{crlf}" for g in indicator), newline="")
    (folder / f"{name}_graph_labels.txt").write_text("".join(f"{y}{crlf}" for y in labels), newline="")
    return {"records": records, "indicator": indicator, "labels": labels, "degrees": degrees,
            "files": [f"{name}_A.txt", f"{name}_graph_indicator.txt", f"{name}_graph_labels.txt"]}


def _check_collection(meta: dict, arrays: dict, written: dict) -> None:
    want = _simple(written["records"])
    _common(meta, "graph_cls")
    counts = meta["counts"]
    assert counts["num_graphs"] == len(written["labels"]) and counts["num_nodes"] == len(written["indicator"])
    assert counts["num_edges"] == len(want["pairs"]) and counts["num_classes"] == len(set(written["labels"])) == 2
    assert meta["dropped"]["duplicate_edges"] == want["duplicate_edges"] == 1
    assert meta["dropped"]["self_loops"] == want["self_loops"] == 1 and meta["dropped"]["weights"] is False
    # no node labels or attributes: [1, log(1 + degree)], degrees within each graph
    assert counts["num_features"] == 2
    assert np.allclose(arrays["x"][:, 1], np.log1p(np.concatenate(written["degrees"])))
    assert (arrays["x"][:, 0] == 1).all()


def test_a_catalogue_tu_collection_without_node_labels_fetches_with_its_counts(tmp_path, monkeypatch, registry):
    written = _write_tu(tmp_path / "mirror" / "mc_tu")
    monkeypatch.setenv("NETZBENCH_MIRROR", str(tmp_path / "mirror"))
    registry("mc_tu", "graph_cls", tudataset, "tu", written["files"], "biology")
    meta, arrays = _fetch("mc_tu", tmp_path)
    _check_collection(meta, arrays, written)
    assert meta["raw_sha256"] == {f: _sha(tmp_path / "mirror" / "mc_tu" / f) for f in written["files"]}


def test_a_declared_tu_collection_without_node_labels_fetches_with_the_same_counts(tmp_path):
    written = _write_tu(tmp_path / "raw" / "PLAINMOL")
    meta, arrays = _fetch_declared("mc_tu_declared", {"format": "tu", "path": str(tmp_path / "raw"),
                                                      "family": "graph_cls"}, tmp_path)
    _check_collection(meta, arrays, written)
    assert meta["raw_sha256"] == {f"PLAINMOL/{f}": _sha(tmp_path / "raw" / "PLAINMOL" / f) for f in written["files"]}
    assert meta["label_mapping"] == {"0": -1, "1": 1}


# ---------------------------------------------------------------------------------- knowledge graph

def _write_fb15k(folder: Path) -> dict:
    """FB15k-237's layout: entities.dict / relations.dict and named train/valid/test triples, with a
    repeated triple and a triple (h, r, h)."""
    folder.mkdir(parents=True)
    entities = [f"/m/e{i}" for i in range(9)]
    relations = ["/r/likes", "/r/near", "/r/part_of"]
    splits = {"train": [(i, i % 3, (i + 1) % 9) for i in range(9)] + [(0, 0, 1), (4, 2, 4)],
              "valid": [(0, 1, 2), (5, 2, 7)], "test": [(3, 0, 6), (8, 1, 1), (2, 2, 5)]}
    (folder / "entities.dict").write_text("".join(f"{i}\t{e}\n" for i, e in enumerate(entities)))
    (folder / "relations.dict").write_text("".join(f"{i}\t{r}\n" for i, r in enumerate(relations)))
    for split, triples in splits.items():
        (folder / f"{split}.txt").write_text("".join(f"{entities[h]}\t{relations[r]}\t{entities[t]}\n"
                                                     for h, r, t in triples))
    return {"entities": entities, "relations": relations, "splits": splits}


def test_a_catalogue_knowledge_graph_records_triples_per_split(tmp_path, monkeypatch, registry):
    folder = tmp_path / "mirror" / "mc_kg"
    written = _write_fb15k(folder)
    files = ["entities.dict", "relations.dict", "train.txt", "valid.txt", "test.txt"]
    monkeypatch.setenv("NETZBENCH_MIRROR", str(tmp_path / "mirror"))
    registry("mc_kg", "link_pred", pyg_datasets.fb15k_237, "fb15k-237-dict", files, "knowledge")
    meta, _ = _fetch("mc_kg", tmp_path)
    _common(meta, "relational")
    counts = meta["counts"]
    every = [(h, t) for triples in written["splits"].values() for h, _, t in triples]
    assert counts["num_nodes"] == len(written["entities"]) and counts["num_relations"] == len(written["relations"])
    assert counts["num_edges"] == len(_simple(every)["pairs"])
    for split, triples in written["splits"].items():
        assert counts[f"num_{split}_triples"] == len(triples), split
    assert meta["dropped"] == {"duplicate_edges": 0, "self_loops": 0, "weights": False}  # every triple is kept
    assert meta["relational"] is True and meta["raw_sha256"] == {f: _sha(folder / f) for f in files}


def test_a_declared_knowledge_graph_counts_repeated_triples_as_duplicate_edges(tmp_path):
    written = _write_fb15k(tmp_path / "kg")
    meta, _ = _fetch_declared("mc_kg_declared", {"format": "triples", "path": str(tmp_path / "kg"),
                                                 "family": "link_pred"}, tmp_path)
    _common(meta, "relational")
    unique = {s: len(set(t)) for s, t in written["splits"].items()}
    assert {f"num_{s}_triples": meta["counts"][f"num_{s}_triples"] for s in unique} == \
        {f"num_{s}_triples": n for s, n in unique.items()}
    assert meta["dropped"]["duplicate_edges"] == meta["dropped"]["duplicate_train_triples"] == 1
    assert meta["raw_sha256"] == {f: _sha(tmp_path / "kg" / f) for f in
                                  ["entities.dict", "relations.dict", "test.txt", "train.txt", "valid.txt"]}


# --------------------------------------------------------------------------------- declared network

def test_a_declared_edge_list_records_counts_dropped_and_raw_hashes(tmp_path):
    raw = tmp_path / "raw" / "roads"
    raw.mkdir(parents=True)
    records = [(i, (i + 1) % 14) for i in range(14)] + [(0, 7), (3, 4), (4, 3), (3, 4), (9, 9), (2, 2)]
    text = "# exported by a tool\r\nsource, target, weight\r\n" + "".join(f"{u}, {v}, {0.5 * k}\r\n"
                                                                         for k, (u, v) in enumerate(records))
    (raw / "roads.csv").write_text(text, newline="")
    (raw / "README.md").write_text("not data\n")
    meta, _ = _fetch_declared("mc_edges", {"format": "edgelist", "path": str(raw), "family": "link_pred"}, tmp_path)
    want = _simple(records)
    _common(meta, "link_pred")
    assert meta["counts"]["num_nodes"] == len(want["nodes"]) and meta["counts"]["num_edges"] == len(want["pairs"])
    assert meta["dropped"] == {"duplicate_edges": want["duplicate_edges"], "self_loops": want["self_loops"],
                               "reverse_duplicates": 1, "weights": True, "extra_columns": 1}
    assert want["duplicate_edges"] == 2 and want["self_loops"] == 2 and want["reverse_duplicates"] == 1
    _accounted(meta, records)
    assert meta["raw_sha256"] == {"roads.csv": _sha(raw / "roads.csv")}  # the README is not a raw file


# ------------------------------------------------------------------------- loaders without features

LOADERS = """
import torch
from torch_geometric.data import Data
from torch_geometric.datasets import TUDataset


def plain(root):
    return TUDataset(root, "PLAINMOL")


def plain_seeded(root, *, seed):
    return TUDataset(root, "PLAINMOL")


def weighted(root):
    n = 12
    src = torch.arange(n)
    ei = torch.stack([torch.cat([src, (src + 1) % n]), torch.cat([(src + 1) % n, src])])
    return Data(x=torch.ones(n, 1), edge_index=ei, edge_weight=torch.rand(2 * n), y=torch.arange(n) % 2,
                num_nodes=n)
"""


@pytest.fixture
def loaders(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    write_package(tmp_path, "mc_loaders", {"loaders": LOADERS})
    written = _write_tu(tmp_path / "tu_root" / "PLAINMOL" / "raw")
    yield tmp_path, written


def test_pyg_s_tudataset_without_x_converts_on_every_route(loaders):
    from torch_geometric.datasets import TUDataset

    from netzbench.graphs.convert import to_bundle
    from netzbench.synthetic.user import generate

    root, written = loaders
    degrees = np.log1p(np.concatenate(written["degrees"]))
    arrays, counts = to_bundle(TUDataset(str(root / "tu_root"), "PLAINMOL"), "graph_cls")  # the converter itself
    assert counts["num_graphs"] == 12 and np.allclose(arrays["x"][:, 1], degrees)
    seeded, _ = generate(0, "mc_loaders.loaders:plain_seeded", "graph_cls", str(root / "tu_root"))  # at training
    assert np.array_equal(seeded["x"], arrays["x"]) and np.array_equal(seeded["edge_index"], arrays["edge_index"])
    meta, fetched = _fetch_declared("mc_loader_tu", {"loader": "mc_loaders.loaders:plain",  # fetch of a custom task
                                                     "path": str(root / "tu_root"), "family": "graph_cls"}, root)
    _common(meta, "graph_cls")
    assert meta["counts"]["num_graphs"] == 12
    assert meta["counts"]["num_edges"] == len(_simple(written["records"])["pairs"])
    assert np.allclose(fetched["x"][:, 1], degrees)
    for f in written["files"]:  # every file under the loader's path is hashed (PyG's processed/ ones too)
        assert meta["raw_sha256"][f"PLAINMOL/raw/{f}"] == _sha(root / "tu_root" / "PLAINMOL" / "raw" / f)


def test_a_loader_s_edge_weights_are_recorded_as_dropped(loaders):
    from netzbench.catalog.data import write_loader_task
    from mc_loaders.loaders import weighted

    root, _ = loaders
    meta = write_loader_task(root / "api" / "w", "w", "node_cls", weighted, root=root)
    _common(meta, "node_cls")
    assert meta["counts"]["num_nodes"] == 12 and meta["counts"]["num_edges"] == 12
    assert meta["counts"]["num_classes"] == 2
    assert meta["dropped"] == {"duplicate_edges": 0, "self_loops": 0, "weights": True}
