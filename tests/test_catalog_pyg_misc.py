"""Finance, vision, physics and security loaders (catalog/readers/pyg_misc.py).

None of these datasets is in the shared mirror, so every loader is run on a
tiny fixture written in its own raw format (the canonical archives and
files, laid out as a fake mirror folder ``<tmp>/mirror/<dataset>/raw/``)
and goes through ``fetch_task`` and the PyG class that parses the real data.
"""

from __future__ import annotations

import ast
import io
import json
import pickle
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

from netzbench.graphs.layout import load_arrays
from netzbench.catalog.data import fetch_task
from netzbench.graphs.edges import undirected_pairs
from netzbench.catalog.readers import pyg_misc as R
from netzbench.catalog.readers import pyg_vision as V
from netzbench.catalog.table import DATASETS, TASKS
from netzbench.params import DEFAULTS, merge
from helpers import as_settings

torch = pytest.importorskip("torch")

MINE = {
    "elliptic_bitcoin": ("finance", "node_cls", "dataset_masks"),
    "ogbn_products": ("finance", "node_cls", "dataset_masks"),
    "shapenet": ("vision", "node_cls", "dataset_masks"),
    "mnist_superpixels": ("vision", "graph_cls", "random_graph_80_10_10"),
    "cifar10_superpixels": ("vision", "graph_cls", "dataset_split"),
    "modelnet10": ("vision", "graph_cls", "dataset_split"),
    "modelnet40": ("vision", "graph_cls", "dataset_split"),
    "qm9": ("physics", "graph_reg", "random_graph_80_10_10"),
    "zinc": ("physics", "graph_reg", "dataset_split"),
    "malnet_tiny": ("security", "graph_cls", "dataset_split"),
}


# ----------------------------------------------------------------- helpers


@pytest.fixture
def fake_mirror(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "mirror"
    root.mkdir()
    monkeypatch.setenv("NETZBENCH_MIRROR", str(root))
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path / "cache"))
    return root


def _raw(mirror: Path, dataset: str) -> Path:
    raw = mirror / dataset / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    return raw


def _fetch(task: str, tmp_path: Path, sub: str = "data") -> tuple[dict, dict]:
    params = merge(DEFAULTS, {"data": {"on_missing": "fail"}})
    meta = fetch_task(task, as_settings(params), data_root=tmp_path / sub)
    assert meta["status"] == "ok"
    return load_arrays(tmp_path / sub / task / "graph.npz"), meta


def _zip(path: Path, members: dict[str, bytes | str]) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def _check_collection(a: dict, counts: dict) -> None:
    g = len(a["node_ptr"]) - 1
    assert counts["num_graphs"] == g and a["edge_ptr"].shape == (g + 1,)
    assert a["x"].dtype == np.float32 and a["x"].shape[0] == a["node_ptr"][-1] == counts["num_nodes"]
    assert a["edge_index"].shape[1] == a["edge_ptr"][-1]
    pairs = 0
    for i in range(g):  # local ids stay inside their graph
        ei = a["edge_index"][:, a["edge_ptr"][i]:a["edge_ptr"][i + 1]]
        n = a["node_ptr"][i + 1] - a["node_ptr"][i]
        assert ei.size == 0 or (ei.min() >= 0 and ei.max() < n)
        pairs += undirected_pairs(ei).shape[1]
    assert counts["num_edges"] == pairs


# ---------------------------------------------------------------- catalogue


def test_entries_are_registered_with_tasks_and_sources():
    for ds_id, (category, family, split) in MINE.items():
        ds = DATASETS[ds_id]
        assert ds.category == category and family in ds.families and ds.in_paper
        assert ds.processor.__module__ in ("netzbench.catalog.readers.pyg_misc", "netzbench.catalog.readers.pyg_vision")
        assert ds.sources and all(s.in_mirror for s in ds.sources), ds_id
        assert ds.license and ds.citation and ds.description
        task = TASKS[ds_id]
        assert (task.family, task.split) == (family, split)
    assert TASKS["mnist_superpixels"].epochs == 4
    assert TASKS["zinc"].epochs == 10


def test_entry_module_is_import_light():
    src = Path(R.__file__).parents[1] / "entries" / "pyg_misc.py"
    top = [n for n in ast.parse(src.read_text()).body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = {a.name for n in top for a in n.names} | {getattr(n, "module", None) or "" for n in top}
    assert not any(m.split(".")[0] in ("torch", "torch_geometric", "networkx", "ogb") for m in names)


# ---------------------------------------------------------------- finance


def _elliptic_csvs() -> dict[str, str]:
    ids = [901, 77, 12, 5000, 31, 8, 640, 99]
    steps = [1, 5, 29, 30, 34, 35, 40, 49]
    classes = ["1", "2", "unknown", "2", "1", "2", "unknown", "1"]
    feats = "".join(f"{t},{s},{0.1 * i:.3f},{-i},{i % 3},{2.5}\n" for i, (t, s) in enumerate(zip(ids, steps)))
    edges = "txId1,txId2\n901,77\n77,12\n12,5000\n31,8\n8,640\n640,99\n99,901\n"
    cls = "txId,class\n" + "".join(f"{t},{c}\n" for t, c in zip(ids, classes))
    return {"elliptic_txs_features.csv": feats, "elliptic_txs_edgelist.csv": edges, "elliptic_txs_classes.csv": cls}


def test_elliptic_temporal_masks_and_unknown_labels(tmp_path, fake_mirror):
    raw = _raw(fake_mirror, "elliptic_bitcoin")
    for name, text in _elliptic_csvs().items():
        _zip(raw / f"{name}.zip", {name: text})
    a, meta = _fetch("elliptic_bitcoin", tmp_path)
    assert a["x"].shape == (8, 4)  # txId and time step are not features
    assert a["y"].tolist() == [1, 0, -1, 0, 1, 0, -1, 1]  # PyG: '1' illicit -> 1, '2' licit -> 0
    assert a["edge_index"].T.tolist() == [[0, 1], [1, 2], [2, 3], [4, 5], [5, 6], [6, 7], [7, 0]]
    assert np.flatnonzero(a["train_mask"]).tolist() == [0, 1]  # steps < 30, labelled
    assert np.flatnonzero(a["val_mask"]).tolist() == [3, 4]  # steps 30-34
    assert np.flatnonzero(a["test_mask"]).tolist() == [5, 7]  # steps >= 35, labelled (6 unknown)
    c = meta["counts"]
    assert (c["num_nodes"], c["num_edges"], c["num_directed_edges"], c["num_classes"]) == (8, 7, 7, 2)
    # the plain-CSV layout (Kaggle release) gives the same arrays
    plain = tmp_path / "plain"
    plain.mkdir()
    for name, text in _elliptic_csvs().items():
        (plain / name).write_text(text)
    b, _ = R.elliptic_bitcoin(plain, "elliptic-csv")
    assert sorted(a) == sorted(b)
    for k in a:
        assert np.array_equal(a[k], b[k]), (k, a[k], b[k])


def test_ogbn_products_without_ogb_names_the_extra(tmp_path):
    try:
        import ogb  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("ogb is installed here; the missing-extra message cannot be observed")
    with pytest.raises(ImportError, match=r"pip install 'netzbench\[ogb\]'"):
        R.ogbn_products(tmp_path, "ogb-zip")


# ----------------------------------------------------------------- vision


def _shapenet_zip(path: Path) -> dict:
    top = "shapenetcore_partanno_segmentation_benchmark_v0_normal"
    rng = np.random.default_rng(0)
    shapes = {"02691156/a1": (0, 12), "02691156/a2": (0, 9), "03001627/c1": (12, 14), "03001627/c2": (12, 11)}
    members: dict[str, str] = {}
    labels = {}
    for name, (base, n) in shapes.items():
        pts = rng.random((n, 6))
        lab = base + (np.arange(n) % 2)
        labels[name] = lab
        members[f"{top}/{name}.txt"] = "".join(
            " ".join(f"{v:.6f}" for v in row) + f" {float(l):.6f}\n" for row, l in zip(pts, lab))
    split = {"train": ["c1", "a1"], "val": ["a2"], "test": ["c2"]}
    cat = {"a": "02691156", "c": "03001627"}
    for s, names in split.items():
        members[f"{top}/train_test_split/shuffled_{s}_file_list.json"] = json.dumps(
            [f"shape_data/{cat[n[0]]}/{n}" for n in names])
    _zip(path, members)
    return {"order": ["03001627/c1", "02691156/a1", "02691156/a2", "03001627/c2"], "shapes": shapes,
            "labels": labels}


def test_shapenet_union_of_knn_graphs_with_shape_masks(tmp_path, fake_mirror):
    info = _shapenet_zip(_raw(fake_mirror, "shapenet") / V.SHAPENET_ZIP)
    a, meta = _fetch("shapenet", tmp_path)
    sizes = [info["shapes"][s][1] for s in info["order"]]  # fewer than 256 points: all kept
    assert a["num_nodes"] == sum(sizes) == a["x"].shape[0]
    assert a["x"].shape[1] == 3 + 3 + 16
    assert np.array_equal(a["y"], np.concatenate([info["labels"][s] for s in info["order"]]))
    starts = np.cumsum([0] + sizes)
    shape_of = np.repeat(np.arange(4), sizes)
    assert a["train_mask"].sum() == sizes[0] + sizes[1] and a["val_mask"].sum() == sizes[2]
    assert np.array_equal(np.flatnonzero(a["test_mask"]), np.arange(starts[3], starts[4]))
    ei = a["edge_index"]
    assert np.array_equal(shape_of[ei[0]], shape_of[ei[1]])  # no edge between shapes
    assert {tuple(p) for p in ei.T} == {(j, i) for i, j in ei.T}  # symmetrised
    assert np.bincount(ei[0], minlength=a["num_nodes"]).min() >= 6  # every point has its 6 nearest
    assert meta["counts"]["num_edges"] == undirected_pairs(ei).shape[1]
    # category one-hot: Chair (index 4 of PyG's 16) for the first shape, Airplane (0) for the second
    assert a["x"][0, 6 + 4] == 1 and a["x"][starts[1], 6] == 1
    # subsampling keeps points_per_shape points per shape, deterministically
    b1, _ = V.shapenet(fake_mirror / "shapenet" / "raw", points_per_shape=5, k=2)
    b2, _ = V.shapenet(fake_mirror / "shapenet" / "raw", points_per_shape=5, k=2)
    assert b1["num_nodes"] == 20 and all(np.array_equal(b1[k], b2[k]) for k in b1)


def _superpixel_graph(rng, n: int, feat: int, label: int) -> dict:
    src = np.arange(n)
    ei = np.stack([np.r_[src, (src + 1) % n], np.r_[(src + 1) % n, src]])
    return {"x": torch.tensor(rng.random((n, feat)), dtype=torch.float),
            "edge_index": torch.tensor(ei, dtype=torch.long),
            "edge_attr": torch.ones(ei.shape[1], 1),
            "pos": torch.tensor(rng.random((n, 2)), dtype=torch.float),
            "y": torch.tensor([label])}


def test_mnist_superpixels_first_graphs_and_byte_identical_refetch(tmp_path, fake_mirror):
    rng = np.random.default_rng(1)
    train = [_superpixel_graph(rng, 6, 1, i % 10) for i in range(5)]
    test = [_superpixel_graph(rng, 6, 1, 9) for _ in range(2)]
    torch.save([train, test], _raw(fake_mirror, "mnist_superpixels") / "MNISTSuperpixels.pt")
    a, meta = _fetch("mnist_superpixels", tmp_path)
    _check_collection(a, meta["counts"])
    assert meta["counts"]["num_graphs"] == 5 and a["y"].tolist() == [0, 1, 2, 3, 4]
    assert a["x"].shape == (30, 1) and np.allclose(a["x"][:6], train[0]["x"].numpy())
    _fetch("mnist_superpixels", tmp_path, sub="again")
    first = (tmp_path / "data" / "mnist_superpixels" / "graph.npz").read_bytes()
    assert first == (tmp_path / "again" / "mnist_superpixels" / "graph.npz").read_bytes()
    raw = fake_mirror / "mnist_superpixels" / "raw"
    assert V.mnist_superpixels(raw, num_graphs=3)[1]["num_graphs"] == 3
    everything, counts = V.mnist_superpixels(raw, num_graphs=None)
    assert counts["num_graphs"] == 7 and everything["y"].tolist()[-2:] == [9, 9]


def test_cifar10_superpixels_canonical_split(tmp_path, fake_mirror):
    rng = np.random.default_rng(2)
    parts = [[_superpixel_graph(rng, 5 + i, 3, i) for i in range(k)] for k in (4, 2, 3)]
    torch.save(parts, _raw(fake_mirror, "cifar10_superpixels") / "CIFAR10_v2.pt")
    a, meta = _fetch("cifar10_superpixels", tmp_path)
    _check_collection(a, meta["counts"])
    assert a["split"].tolist() == [0, 0, 0, 0, 1, 1, 2, 2, 2]
    assert a["x"].shape[1] == 5  # RGB + position
    first = parts[0][0]
    assert np.allclose(a["x"][:5], np.concatenate([first["x"].numpy(), first["pos"].numpy()], axis=1))


TETRA = "OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 1 2\n3 0 1 3\n3 0 2 3\n3 1 2 3\n"
CUBE = ("OFF8 6 0\n" + "".join(f"{x} {y} {z}\n" for x in (0, 2) for y in (0, 2) for z in (0, 2))
        + "4 0 1 3 2\n4 4 5 7 6\n4 0 1 5 4\n4 2 3 7 6\n4 0 2 6 4\n4 1 3 7 5\n")


def test_off_parser_matches_pyg_and_mesh_graph_uses_face_edges():
    from torch_geometric.io.off import parse_off

    for text in (TETRA, CUBE):
        pos, face = V.read_off_arrays(text)
        ref = parse_off(text.split("\n")[:-1])
        assert np.allclose(pos, ref.pos.numpy()) and np.array_equal(face, ref.face.numpy().T)
    x, ei = V.mesh_graph(*V.read_off_arrays(CUBE), grid=None)
    assert x.shape == (8, 3) and np.abs(np.linalg.norm(x, axis=1) - 1).max() < 1e-6  # unit ball
    assert undirected_pairs(ei).shape[1] == 12 + 6  # cube edges + one diagonal per split quad
    x, ei = V.mesh_graph(*V.read_off_arrays(CUBE), grid=1)  # everything in one cell
    assert x.shape == (1, 3) and ei.shape == (2, 0)


def test_modelnet_meshes_to_face_edge_graphs_with_split(tmp_path, fake_mirror):
    members = {"__MACOSX/ModelNet10/._x.off": "junk"}
    for cat in ("chair", "bed"):
        for i in range(1, 4):
            members[f"ModelNet10/{cat}/train/{cat}_{i:04d}.off"] = CUBE if cat == "chair" else TETRA
        members[f"ModelNet10/{cat}/test/{cat}_0009.off"] = TETRA
    _zip(_raw(fake_mirror, "modelnet10") / "ModelNet10.zip", members)
    a, meta = _fetch("modelnet10", tmp_path)
    _check_collection(a, meta["counts"])
    # sorted by category (bed=0, chair=1), then folder (test, train), then file name
    assert a["y"].tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    assert a["split"].tolist() == [2, 0, 0, 0, 2, 0, 0, 0]
    assert np.diff(a["node_ptr"]).tolist() == [4, 4, 4, 4, 4, 8, 8, 8]  # grid 24 keeps these vertices apart
    assert V.modelnet(fake_mirror / "modelnet10" / "raw", val_every=2)[0]["split"].tolist() == [2, 0, 1, 0, 2, 0, 1, 0]


# ---------------------------------------------------------------- physics


def test_qm9_targets_subset(tmp_path, fake_mirror):
    rng = np.random.default_rng(3)
    recs = []
    for n in (3, 5):
        ei = np.stack([np.r_[np.arange(n - 1), np.arange(1, n)], np.r_[np.arange(1, n), np.arange(n - 1)]])
        recs.append({"x": torch.tensor(rng.random((n, 11)), dtype=torch.float),
                     "edge_index": torch.tensor(ei), "edge_attr": torch.zeros(ei.shape[1], 4),
                     "y": torch.tensor(rng.random((1, 19)), dtype=torch.float), "pos": torch.zeros(n, 3),
                     "z": torch.ones(n, dtype=torch.long), "name": f"gdb_{n}", "idx": torch.tensor(n)})
    torch.save(recs, _raw(fake_mirror, "qm9") / "qm9_v3.pt")
    a, meta = _fetch("qm9", tmp_path)
    _check_collection(a, meta["counts"])
    assert a["y"].dtype == np.float32 and a["y"].shape == (2, len(R.QM9_TARGETS))
    assert np.allclose(a["y"][1], recs[1]["y"].numpy()[0, list(R.QM9_TARGETS)])
    assert meta["counts"]["num_edges"] == 2 + 4 and a["x"].shape == (8, 11)
    assert R.qm9(fake_mirror / "qm9" / "raw", targets=None)[0]["y"].shape == (2, 19)


def test_zinc_subset_split_and_one_hot_atoms(tmp_path, fake_mirror):
    raw = _raw(fake_mirror, "zinc")

    def mol(types, value):
        n = len(types)
        bond = torch.zeros(n, n, dtype=torch.long)
        for i in range(n - 1):
            bond[i, i + 1] = bond[i + 1, i] = 1
        return {"atom_type": torch.tensor(types), "bond_type": bond,
                "logP_SA_cycle_normalized": torch.tensor([value])}

    for split, mols, index in (("train", [mol([0, 1], 0.5), mol([2, 3, 27], -1.0), mol([5], 2.0)], "2,0"),
                               ("val", [mol([1, 1], 3.0)], "0"), ("test", [mol([4, 4, 4], 4.0)], "0")):
        with open(raw / f"{split}.pickle", "wb") as fh:
            pickle.dump(mols, fh)
        (raw / f"{split}.index").write_text(index + "\n")
    a, meta = _fetch("zinc", tmp_path)
    _check_collection(a, meta["counts"])
    assert a["split"].tolist() == [0, 0, 1, 2]
    assert np.allclose(a["y"][:, 0], [2.0, 0.5, 3.0, 4.0]) and a["y"].shape == (4, 1)
    assert a["x"].shape == (1 + 2 + 2 + 3, 28) and a["x"][0, 5] == 1 and a["x"].sum() == 8


# ---------------------------------------------------------------- security


def test_malnet_tiny_from_both_archives(tmp_path, fake_mirror):
    raw = _raw(fake_mirror, "malnet_tiny")
    graphs = {"benign/benign/aa": [(0, 1), (1, 2)], "trojan/fam/bb": [(0, 3), (3, 1), (1, 0)],
              "benign/benign/cc": [(1, 0)], "adware/x/dd": [(0, 1), (0, 2), (0, 3), (0, 4)]}
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, edges in graphs.items():
            text = "# header\n" * 5 + "".join(f"{u}\t{v}\n" for u, v in edges)
            data = text.encode()
            info = tarfile.TarInfo(f"malnet-graphs-tiny/{name}.edgelist")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    (raw / R.MALNET_GRAPHS).write_bytes(buf.getvalue())
    _zip(raw / R.MALNET_SPLIT, {"split_info_tiny/type/train.txt": "benign/benign/aa\ntrojan/fam/bb\n",
                                "split_info_tiny/type/val.txt": "benign/benign/cc\n",
                                "split_info_tiny/type/test.txt": "adware/x/dd\n"})
    a, meta = _fetch("malnet_tiny", tmp_path)
    _check_collection(a, meta["counts"])
    assert a["split"].tolist() == [0, 0, 1, 2]
    assert a["y"].tolist() == [0, 1, 0, 2]  # PyG: types numbered by first appearance
    assert meta["counts"]["num_directed_edges"] == 10 == meta["counts"]["num_edges"]
    assert np.diff(a["node_ptr"]).tolist() == [3, 4, 2, 5]
    assert np.allclose(a["x"][:3, 1], np.log1p([1, 2, 1])) and np.all(a["x"][:, 0] == 1)
