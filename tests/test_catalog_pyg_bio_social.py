"""PyG/OGB-backed biology, social and knowledge datasets (catalog/entries/pyg_bio_social.py).

Mirror-backed datasets are fetched from the real mirror (NETZBENCH_MIRROR)
and checked against the manifest's stats; the others are fetched from a
tiny fixture written in the dataset's own raw format and laid out as a fake
mirror, so they go through ``fetch_task`` and the same PyG parsing code as
real data. OGB datasets need the optional ``ogb`` package (not installed
here): their error message, their staging (with a stand-in ``ogb`` module)
and their conversion (on tiny in-memory datasets) are tested.
"""

from __future__ import annotations

import ast
import json
import os
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import netzbench.params
from netzbench.catalog import table
from netzbench.graphs.layout import load_arrays
from netzbench.catalog.data import fetch_task
from netzbench.catalog.fetch import DatasetUnavailable
from netzbench.graphs.edges import undirected_pairs
from helpers import as_settings

ENTRIES = Path(table.__file__).parent / "entries" / "pyg_bio_social.py"
MINE = ("proteins", "enzymes", "peptides_func", "peptides_struct", "ogbg_molhiv", "ogbg_molpcba", "ppi",
        "citeseer", "pubmed", "wikics", "roman_empire", "amazon_ratings", "minesweeper", "tolokers",
        "questions", "ogbn_arxiv", "movielens_100k", "ogbl_collab", "fb15k_237", "wordnet18rr")


def _params(**data) -> dict:
    return netzbench.params.merge(netzbench.params.DEFAULTS, {"data": data} if data else {})


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def mirror(monkeypatch, cache) -> Path:
    path = os.environ.get("NETZBENCH_MIRROR")
    if not path:
        pytest.skip("NETZBENCH_MIRROR is not set: the real-mirror checks need the shared dataset mirror")
    if not Path(path).is_dir():
        pytest.skip(f"NETZBENCH_MIRROR={path} is not a directory")
    return Path(path)


@pytest.fixture
def fake_mirror(tmp_path, monkeypatch, cache) -> Path:
    root = tmp_path / "mirror"
    root.mkdir()
    monkeypatch.setenv("NETZBENCH_MIRROR", str(root))
    return root


def _fetch(task_id: str, tmp_path: Path, sub: str = "data", **data) -> tuple[dict, dict]:
    meta = fetch_task(task_id, as_settings(_params(**data)), data_root=tmp_path / sub)
    arrays = load_arrays(tmp_path / sub / task_id / "graph.npz") if meta["status"] == "ok" else {}
    return meta, arrays


def _graph_bytes(tmp_path: Path, sub: str, task_id: str) -> bytes:
    return (tmp_path / sub / task_id / "graph.npz").read_bytes()


def _scalar(a) -> int:
    return int(np.asarray(a).reshape(-1)[0])  # the bundle stores scalars as shape (1,)


def _manifest(mirror: Path, dataset: str) -> dict:
    path = mirror / "manifest.json"
    if not path.is_file():
        pytest.skip(f"{path} is missing: the count checks compare against the shared mirror's manifest")
    entries = json.loads(path.read_text())["datasets"]
    return next(e for e in entries if e["id"] == dataset)["stats"]


# ------------------------------------------------------------- declarations


def test_entries_module_is_import_light():
    tree = ast.parse(ENTRIES.read_text())
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = [a.name for n in top for a in n.names] + [n.module or "" for n in top if isinstance(n, ast.ImportFrom)]
    assert not any(x.split(".")[0] in ("torch", "torch_geometric", "networkx", "ogb") for x in names)


def test_datasets_and_tasks_are_declared():
    for ds_id in MINE:
        ds = table.get_dataset(ds_id)
        assert ds.in_paper and ds.sources and ds.license and ds.citation and ds.description
        assert ds.category in ("biology", "social", "knowledge")
        for src in ds.sources:
            assert src.url.startswith(("http://", "https://")) and src.kind in ("files", "zip", "tar")
            assert src.files and all(f.mirror_path for f in src.files)
            if src.kind == "files":
                assert "{file}" in src.url
    expect = {
        "proteins": ("graph_cls", "random_graph_80_10_10"), "enzymes": ("graph_cls", "random_graph_80_10_10"),
        "peptides_func": ("graph_cls", "dataset_split"), "peptides_struct": ("graph_reg", "dataset_split"),
        "ogbg_molhiv": ("graph_cls", "dataset_split"), "ogbg_molpcba": ("graph_cls", "dataset_split"),
        "ppi": ("link_pred", "random_edge_80_10_10"), "citeseer": ("node_cls", "dataset_masks"),
        "pubmed": ("node_cls", "dataset_masks"), "wikics": ("node_cls", "dataset_masks"),
        "ogbn_arxiv": ("node_cls", "dataset_masks"), "cora_link_pred": ("link_pred", "random_edge_80_10_10"),
        "citeseer_link_pred": ("link_pred", "random_edge_80_10_10"),
        "pubmed_link_pred": ("link_pred", "random_edge_80_10_10"),
        "movielens_100k": ("link_pred", "random_edge_80_10_10"),
        "ogbl_collab": ("link_pred", "random_edge_80_10_10"),
        "fb15k_237": ("link_pred", "relational_canonical"), "wordnet18rr": ("link_pred", "relational_canonical"),
        **{h: ("node_cls", "dataset_masks") for h in
           ("roman_empire", "amazon_ratings", "minesweeper", "tolokers", "questions")},
    }
    for task_id, (family, split) in expect.items():
        task = table.get_task(task_id)
        assert (task.family, task.split) == (family, split), task_id
        assert task.relational == (split == "relational_canonical")
    assert table.get_task("fb15k_237").epochs == 20
    assert table.get_task("cora_link_pred").dataset == "cora"


def test_mirror_folders_exist_and_hashes_match(mirror):
    from netzbench.catalog.fetch import sha256_file

    for ds_id in MINE:
        ds = table.get_dataset(ds_id)
        if ds.mirror is None:
            assert not (mirror / ds_id).exists(), f"{ds_id} is in the mirror but not declared as such"
            continue
        assert (mirror / ds.mirror).is_dir()
        for rf in ds.sources[0].files:
            path = mirror / ds.mirror / rf.mirror_path
            if ds_id == "pubmed" and rf.name == "ind.pubmed.allx":
                assert not path.exists()  # the known gap of the mirror
                continue
            assert rf.sha256 == sha256_file(path), rf.name


# ------------------------------------------------------------- real mirror


@pytest.mark.mirror
@pytest.mark.parametrize("task_id", ["proteins", "enzymes"])
def test_tu_collections_from_mirror(task_id, mirror, tmp_path):
    stats = _manifest(mirror, task_id)
    meta, a = _fetch(task_id, tmp_path)
    c = meta["counts"]
    assert meta["status"] == "ok" and meta["format"] == "tu"
    assert c["num_graphs"] == stats["graphs"] and c["num_nodes"] == stats["total_nodes"]
    # the manifest counts lines of <NAME>_A.txt, which lists every undirected edge in both directions
    assert c["num_edges"] == stats["total_edges"] // 2
    assert c["num_features"] == stats["num_features"] and c["num_classes"] == stats["num_classes"]
    assert a["node_ptr"][-1] == a["x"].shape[0] and len(a["y"]) == stats["graphs"]


@pytest.mark.mirror
def test_citeseer_from_mirror(mirror, tmp_path):
    stats = _manifest(mirror, "citeseer")
    meta, a = _fetch("citeseer", tmp_path)
    c = meta["counts"]
    assert c["num_nodes"] == stats["num_nodes"] and c["num_features"] == stats["num_features"]
    # the manifest gives PyG's directed edge count; each citation appears once per direction there
    assert c["num_edges"] == stats["num_edges"] // 2
    assert [int(a[m].sum()) for m in ("train_mask", "val_mask", "test_mask")] == [120, 500, 1000]
    lp, b = _fetch("citeseer_link_pred", tmp_path, "data2")
    assert lp["family"] == "link_pred" and lp["counts"]["num_edges"] == c["num_edges"]
    assert undirected_pairs(b["edge_index"]).shape[1] == c["num_edges"]


@pytest.mark.mirror
def test_cora_link_pred_from_mirror(mirror, tmp_path):
    stats = _manifest(mirror, "cora")
    meta, a = _fetch("cora_link_pred", tmp_path)
    assert meta["family"] == "link_pred" and meta["dataset"] == "cora"
    assert meta["counts"]["num_nodes"] == stats["num_nodes"]
    assert meta["counts"]["num_edges"] == stats["num_edges"] // 2  # manifest: directed count


@pytest.mark.mirror
@pytest.mark.parametrize("task_id", ["pubmed", "pubmed_link_pred"])
def test_pubmed_is_unavailable_with_mirror(task_id, mirror, tmp_path):
    meta, _ = _fetch(task_id, tmp_path)
    assert meta["status"] == "unavailable"
    assert "ind.pubmed.allx" in meta["reason"]
    assert not (tmp_path / "data" / task_id / "graph.npz").exists()
    with pytest.raises(DatasetUnavailable, match=r"ind\.pubmed\.allx"):
        _fetch(task_id, tmp_path, "data_fail", on_missing="fail")


@pytest.mark.mirror
@pytest.mark.parametrize("task_id", ["minesweeper", "tolokers"])
def test_heterophilous_from_mirror(task_id, mirror, tmp_path):
    stats = _manifest(mirror, task_id)
    meta, a = _fetch(task_id, tmp_path)
    c = meta["counts"]
    assert c["num_nodes"] == stats["num_nodes"] and c["num_features"] == stats["num_features"]
    assert c["num_classes"] == stats["num_classes"]
    # the manifest gives PyG's symmetrised (directed) count; the npz stores each pair once
    assert c["num_edges"] == stats["num_edges"] // 2
    assert a["edge_index"].shape[1] == stats["num_edges"]
    for m in ("train_mask", "val_mask", "test_mask"):
        assert a[m].shape == tuple(stats["splits"]) and a[m].dtype == bool
    assert not (a["train_mask"] & a["test_mask"]).any()


@pytest.mark.mirror
def test_fb15k_237_from_mirror(mirror, tmp_path):
    stats = _manifest(mirror, "fb15k_237")
    meta, a = _fetch("fb15k_237", tmp_path)
    c = meta["counts"]
    assert meta["relational"] is True and c["num_nodes"] == stats["num_nodes"] == _scalar(a["num_nodes"])
    # we store the 237 relations of relations.dict; the manifest's 474 (PyG) counts their inverses too
    assert _scalar(a["num_relations"]) == c["num_relations"] == stats["num_relations"] // 2
    assert c["num_relations_with_inverses"] == stats["num_relations"]
    for split, key in (("train", "train_edges"), ("valid", "valid_edges"), ("test", "test_edges")):
        assert a[f"{split}_edge_index"].shape == (2, stats[key]) and a[f"{split}_edge_type"].shape == (stats[key],)
    assert 2 * a["train_edge_index"].shape[1] == stats["edge_index"]
    assert a["train_edge_type"].max() < c["num_relations"]


@pytest.mark.mirror
def test_wordnet18rr_from_mirror_and_determinism(mirror, tmp_path):
    stats = _manifest(mirror, "wordnet18rr")
    meta, a = _fetch("wordnet18rr", tmp_path)
    c = meta["counts"]
    assert c["num_nodes"] == stats["num_nodes"] and c["num_relations"] == stats["num_relations"]
    assert [c[f"num_{s}_triples"] for s in ("train", "valid", "test")] == [stats["train"], stats["val"], stats["test"]]
    assert sum(c[f"num_{s}_triples"] for s in ("train", "valid", "test")) == stats["num_edges"]
    _fetch("wordnet18rr", tmp_path, "again")
    assert _graph_bytes(tmp_path, "data", "wordnet18rr") == _graph_bytes(tmp_path, "again", "wordnet18rr")


@pytest.mark.mirror
@pytest.mark.parametrize("task_id", ["citeseer", "proteins", "minesweeper"])
def test_mirror_fetch_is_deterministic(task_id, mirror, tmp_path):
    _fetch(task_id, tmp_path, "a")
    _fetch(task_id, tmp_path, "b")
    assert _graph_bytes(tmp_path, "a", task_id) == _graph_bytes(tmp_path, "b", task_id)


# --------------------------------------------------- fixtures in raw formats


def _hetero_npz(path: Path, n: int = 12, splits: int = 10, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    edges = np.array([[i, (i + 1) % n] for i in range(n)] + [[0, 6], [3, 9]], dtype=np.int64)
    masks = np.zeros((3, splits, n), dtype=bool)
    for s in range(splits):
        perm = rng.permutation(n)
        masks[0, s, perm[:6]], masks[1, s, perm[6:9]], masks[2, s, perm[9:]] = True, True, True
    raw = dict(node_features=rng.normal(size=(n, 5)).astype(np.float32),
               node_labels=(np.arange(n) % 3).astype(np.int64), edges=edges,
               train_masks=masks[0], val_masks=masks[1], test_masks=masks[2])
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **raw)
    return raw


@pytest.mark.parametrize("task_id", ["roman_empire", "amazon_ratings", "questions"])
def test_heterophilous_fixture(task_id, fake_mirror, tmp_path):
    raw = _hetero_npz(fake_mirror / task_id / "raw" / f"{task_id}.npz")
    meta, a = _fetch(task_id, tmp_path)
    assert meta["status"] == "ok" and meta["format"] == "heterophilous-npz"
    assert meta["counts"] == {"num_nodes": 12, "num_edges": 14, "num_features": 5, "num_classes": 3,
                              "num_splits": 10}
    assert a["edge_index"].shape == (2, 28)
    assert np.array_equal(a["train_mask"], raw["train_masks"].T)  # [N, 10]: column s = split s
    assert np.array_equal(a["y"], raw["node_labels"]) and a["x"].dtype == np.float32


def test_wikics_fixture_and_determinism(fake_mirror, tmp_path):
    n, rng = 8, np.random.default_rng(1)
    train = rng.random((20, n)) < 0.5
    doc = {
        "features": rng.normal(size=(n, 4)).round(3).tolist(),
        "labels": [i % 2 for i in range(n)],
        "links": [[(i + 1) % n] for i in range(n)],  # a directed ring; WikiCS symmetrises
        "train_masks": train.tolist(), "val_masks": (~train).tolist(),
        "stopping_masks": train.tolist(),
        "test_mask": [i % 4 == 0 for i in range(n)],
    }
    (fake_mirror / "wikics" / "raw").mkdir(parents=True)
    (fake_mirror / "wikics" / "raw" / "data.json").write_text(json.dumps(doc))
    meta, a = _fetch("wikics", tmp_path)
    assert meta["counts"]["num_nodes"] == n and meta["counts"]["num_edges"] == n
    assert meta["counts"]["num_splits"] == 20
    assert a["train_mask"].shape == a["val_mask"].shape == a["test_mask"].shape == (n, 20)
    assert np.array_equal(a["train_mask"], train.T)
    assert (a["test_mask"] == np.array(doc["test_mask"])[:, None]).all()  # repeated per split
    _fetch("wikics", tmp_path, "again")
    assert _graph_bytes(tmp_path, "data", "wikics") == _graph_bytes(tmp_path, "again", "wikics")


def _peptide_graphs(k: int, width: int, offset: int) -> list:
    import torch

    graphs = []
    for g in range(k):
        n = 3 + (g + offset) % 3
        src = torch.arange(n - 1)
        ei = torch.stack([torch.cat([src, src + 1]), torch.cat([src + 1, src])])
        x = torch.arange(n * 9).reshape(n, 9) % 5
        y = (torch.arange(width).reshape(1, width) + g + offset) % 2 if width == 10 else \
            torch.linspace(-1, 1, width).reshape(1, width) * (g + offset)
        graphs.append((x, torch.zeros(ei.shape[1], 3, dtype=torch.long), ei, y.float()))
    return graphs


@pytest.mark.parametrize("task_id,width", [("peptides_func", 10), ("peptides_struct", 11)])
def test_peptides_fixture(task_id, width, fake_mirror, tmp_path):
    import torch

    raw = fake_mirror / task_id / "raw"
    raw.mkdir(parents=True)
    sizes = {"train": 3, "val": 2, "test": 1}
    for i, (split, k) in enumerate(sizes.items()):
        torch.save(_peptide_graphs(k, width, 10 * i), raw / f"{split}.pt")
    meta, a = _fetch(task_id, tmp_path)
    c = meta["counts"]
    assert c["num_graphs"] == 6 and c["num_targets"] == width and c["num_features"] == 9
    assert a["split"].tolist() == [0, 0, 0, 1, 1, 2] and a["split"].dtype == np.int8
    assert a["y"].shape == (6, width) and a["y"].dtype == np.float32
    assert len(a["node_ptr"]) == len(a["edge_ptr"]) == 7 and a["node_ptr"][-1] == a["x"].shape[0]
    graphs = [g for split, k in sizes.items() for g in _peptide_graphs(k, width, 10 * list(sizes).index(split))]
    assert np.array_equal(a["y"], np.concatenate([g[3].numpy() for g in graphs]))
    assert c["num_edges"] == sum(g[0].shape[0] - 1 for g in graphs)  # chains: n - 1 undirected edges
    e0, e1 = a["edge_ptr"][4], a["edge_ptr"][5]  # local node ids per graph
    assert a["edge_index"][:, e0:e1].max() < a["node_ptr"][5] - a["node_ptr"][4]
    _fetch(task_id, tmp_path, "again")
    assert _graph_bytes(tmp_path, "data", task_id) == _graph_bytes(tmp_path, "again", task_id)


def _ppi_split(raw: Path, split: str, sizes: list[int], start_gid: int) -> int:
    nodes, links, gid, base = [], [], [], 0
    for g, n in enumerate(sizes):
        nodes += [{"id": base + i} for i in range(n)]
        links += [{"source": base + i, "target": base + i + 1} for i in range(n - 1)]
        links.append({"source": base, "target": base + n - 1})  # close the ring
        gid += [start_gid + g] * n
        base += n
    doc = {"directed": False, "multigraph": False, "graph": {}, "nodes": nodes, "links": links}
    (raw / f"{split}_graph.json").write_text(json.dumps(doc))
    np.save(raw / f"{split}_feats.npy", np.arange(base * 50, dtype=np.float64).reshape(base, 50) / 100)
    np.save(raw / f"{split}_labels.npy", np.zeros((base, 121)))
    np.save(raw / f"{split}_graph_id.npy", np.asarray(gid, dtype=np.int64))
    return base


def test_ppi_fixture(fake_mirror, tmp_path):
    raw = fake_mirror / "ppi" / "raw"
    raw.mkdir(parents=True)
    n = _ppi_split(raw, "train", [4, 5], 1) + _ppi_split(raw, "valid", [3], 21) + _ppi_split(raw, "test", [6], 23)
    meta, a = _fetch("ppi", tmp_path)
    c = meta["counts"]
    # four rings joined as disjoint components: as many edges as nodes
    assert c == {"num_nodes": n, "num_edges": n, "num_features": 50, "num_source_graphs": 4}
    pairs = undirected_pairs(a["edge_index"])
    assert a["edge_index"].shape[1] == 2 * pairs.shape[1]
    comp = np.repeat(np.arange(4), [4, 5, 3, 6])
    assert (comp[pairs[0]] == comp[pairs[1]]).all()  # no edge crosses tissues
    assert a["x"].shape == (n, 50) and "y" not in a


def test_movielens_fixture(fake_mirror, tmp_path):
    raw = fake_mirror / "movielens_100k" / "raw"
    raw.mkdir(parents=True)
    genres = ["|".join("1" if (m + g) % 7 == 0 else "0" for g in range(19)) for m in range(1, 5)]
    (raw / "u.item").write_text("".join(
        f"{m}|Movie {m} (1995)|01-Jan-1995||http://example.org/{m}|{genres[m - 1]}\n" for m in range(1, 5)),
        encoding="latin-1")
    (raw / "u.user").write_text("1|24|M|technician|85711\n2|53|F|other|94043\n3|23|M|writer|32067\n")
    base = [(1, 1, 5), (1, 2, 3), (2, 2, 4), (3, 4, 1)]
    test = [(2, 3, 2), (3, 1, 5)]
    for name, rows in (("u1.base", base), ("u1.test", test)):
        (raw / name).write_text("".join(f"{u}\t{m}\t{r}\t87496575{i}\n" for i, (u, m, r) in enumerate(rows)))
    meta, a = _fetch("movielens_100k", tmp_path)
    c = meta["counts"]
    assert c["num_users"] == 3 and c["num_movies"] == 4 and c["num_nodes"] == 7
    assert c["num_ratings"] == 6 and c["num_edges"] == 6
    expected = {(u - 1, 3 + m - 1) for u, m, _ in base + test}  # users 0..2, then movies 3..6
    assert set(map(tuple, undirected_pairs(a["edge_index"]).T.tolist())) == expected
    ucols = c["num_features"] - 18  # PyG keeps 18 genre flags (it leaves out "unknown")
    assert (a["x"][:3, ucols:] == 0).all() and (a["x"][3:, :ucols] == 0).all()
    assert np.array_equal(a["x"][3:, ucols:], np.array([[float(v) for v in g.split("|")[1:]] for g in genres]))
    _fetch("movielens_100k", tmp_path, "again")
    assert _graph_bytes(tmp_path, "data", "movielens_100k") == _graph_bytes(tmp_path, "again", "movielens_100k")


# ------------------------------------------------------------------ OGB


def _ogb_fake_folder(fake_mirror: Path, ds_id: str) -> None:
    for rf in table.get_dataset(ds_id).sources[0].files:
        path = fake_mirror / ds_id / rf.mirror_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"placeholder")


@pytest.mark.parametrize("task_id", ["ogbg_molhiv", "ogbg_molpcba", "ogbn_arxiv", "ogbl_collab"])
def test_ogb_missing_package_message(task_id, fake_mirror, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ogb", None)  # import ogb fails even where it is installed
    _ogb_fake_folder(fake_mirror, task_id)
    with pytest.raises(ImportError, match=r"pip install 'netzbench\[ogb\]'"):
        _fetch(task_id, tmp_path)


def _tiny_inmemory(graphs):
    from torch_geometric.data import InMemoryDataset

    class Tiny(InMemoryDataset):
        def __init__(self):
            super().__init__(None)
            self.data, self.slices = self.collate(graphs)

    return Tiny()


def _mol(n: int, y):
    import torch
    from torch_geometric.data import Data

    src = torch.arange(n - 1)
    ei = torch.stack([torch.cat([src, src + 1]), torch.cat([src + 1, src])])
    return Data(x=torch.ones(n, 9, dtype=torch.long), edge_index=ei, y=torch.as_tensor(y).view(1, -1))


def test_ogbg_staging_with_stand_in_package(fake_mirror, tmp_path, monkeypatch):
    """The processor hands ogb the folder layout of the OGB archive and keeps its split."""
    import torch

    _ogb_fake_folder(fake_mirror, "ogbg_molhiv")
    seen = {}

    class FakeDataset:
        def __init__(self, name, root):
            folder = Path(root) / name.replace("-", "_")
            seen["ok"] = all((folder / p).is_file() for p in
                             ("RELEASE_v1.txt", "raw/edge.csv.gz", "split/scaffold/train.csv.gz"))
            self.ds = _tiny_inmemory([_mol(3, [1]), _mol(4, [0]), _mol(2, [1])])

        def __len__(self):
            return len(self.ds)

        def get_idx_split(self):
            return {"train": torch.tensor([2, 0]), "valid": torch.tensor([1]),
                    "test": torch.tensor([], dtype=torch.long)}

        def __getattr__(self, name):
            return getattr(self.ds, name)

    pkg, sub = types.ModuleType("ogb"), types.ModuleType("ogb.graphproppred")
    sub.PygGraphPropPredDataset = FakeDataset
    monkeypatch.setitem(sys.modules, "ogb", pkg)
    monkeypatch.setitem(sys.modules, "ogb.graphproppred", sub)
    meta, a = _fetch("ogbg_molhiv", tmp_path)
    assert seen["ok"]
    assert a["y"].tolist() == [1, 0, 1] and a["y"].dtype == np.int64
    assert a["split"].tolist() == [0, 1, 0]
    assert meta["counts"]["num_graphs"] == 3 and meta["counts"]["num_edges"] == 2 + 3 + 1


def test_collection_conversion_keeps_nan_and_split():
    from netzbench.catalog.readers.pyg_datasets import datasets_collection, split_from_index

    nan = float("nan")
    graphs = [_mol(3, [1.0, nan, 0.0]), _mol(2, [nan, nan, 1.0]), _mol(4, [0.0, 1.0, nan])]
    split = split_from_index(3, {"train": np.array([0]), "valid": np.array([2]), "test": np.array([1])})
    fast, counts = datasets_collection([_tiny_inmemory(graphs)], "multilabel", split)
    slow, _ = datasets_collection([graphs], "multilabel", split)  # a plain list goes graph by graph
    for key in fast:
        assert np.array_equal(fast[key], slow[key], equal_nan=True), key
    assert fast["y"].dtype == np.float32 and np.isnan(fast["y"]).sum() == counts["num_missing_labels"] == 4
    assert fast["split"].tolist() == [0, 2, 1]
    assert fast["node_ptr"].tolist() == [0, 3, 5, 9] and fast["edge_ptr"].tolist() == [0, 4, 6, 12]
    with pytest.raises(ValueError, match="no canonical split"):
        split_from_index(3, {"train": [0], "valid": [1], "test": []})


def test_ogb_node_and_link_conversion():
    import torch
    from torch_geometric.data import Data

    from netzbench.catalog.readers.pyg_datasets import ogb_link_arrays, ogb_node_arrays

    ei = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 0]])  # directed citations
    data = Data(x=torch.randn(5, 3), edge_index=ei, y=torch.tensor([[0], [1], [2], [1], [0]]), num_nodes=5)
    a, c, dropped = ogb_node_arrays(data, {"train": torch.tensor([0, 1]), "valid": torch.tensor([2]),
                                           "test": torch.tensor([3, 4])})
    assert dropped == {"self_loops": 0, "duplicate_edges": 0}
    assert a["train_mask"].tolist() == [True, True, False, False, False]
    assert a["test_mask"].tolist() == [False, False, False, True, True]
    assert c["num_edges"] == 4 and c["num_directed_edges"] == 4 and a["edge_index"].shape == (2, 8)
    assert a["y"].tolist() == [0, 1, 2, 1, 0] and c["num_classes"] == 3
    split_edge = {"train": {"edge": torch.tensor([[0, 1], [1, 0], [1, 2]]), "weight": torch.ones(3)},
                  "valid": {"edge": torch.tensor([[2, 3]]), "edge_neg": torch.tensor([[0, 4]])},
                  "test": {"edge": torch.tensor([[3, 4], [4, 3]])}}
    b, d, dropped = ogb_link_arrays(Data(x=torch.randn(5, 2), edge_index=torch.tensor([[0, 1], [1, 0]]), num_nodes=5),
                                    split_edge)
    # positives of every split joined, repeats collapsed; negatives never become edges
    assert undirected_pairs(b["edge_index"]).T.tolist() == [[0, 1], [1, 2], [2, 3], [3, 4]]
    assert d == {"num_nodes": 5, "num_edges": 4, "num_features": 2}
    assert dropped == {"self_loops": 0, "duplicate_edges": 2}  # 0->1 and 1->0 are also train positives
