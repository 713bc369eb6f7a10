"""Processors for the finance, vision, physics and security datasets that PyG (or OGB) wraps.

Each processor takes the raw directory filled by :mod:`netzbench.catalog.fetch`
(the canonical archives or files, byte for byte) and returns ``(arrays,
counts)`` in a layout of :mod:`netzbench.catalog.data`. Archives are
unpacked with :func:`~netzbench.catalog.fetch.safe_extract` into a temporary
PyG root laid out the way the PyG class expects; the class is wrapped so it
raises instead of downloading when a raw file is missing.

Choices not dictated by the sources, in short (details per processor):

- Elliptic: unknown-class nodes get ``y = -1`` and are in no mask; PyG's
  temporal split (train steps 1-34, test 35-49) with validation carved from
  the last five training steps (30-34).
- ShapeNet (node classification over ~17k point clouds): one graph that is
  the disjoint union of a kNN graph per shape; the masks follow the
  canonical shape split.
- ModelNet: meshes become graphs through their face edges after a
  deterministic vertex-clustering decimation (the full meshes would be
  ~200 M vertices for ModelNet40).
- MNIST superpixels: the first 1,500 training graphs, as in the paper
  (``num_graphs`` parameter).
- QM9: 12 of the 19 PyG targets by default (``targets`` parameter).
- ZINC: the 12k subset with its canonical split; atom types one-hot.
- MalNet-Tiny: no node features upstream, so ``[1, log(1 + degree)]``.
"""

from __future__ import annotations

import shutil
import tempfile
import warnings
import zipfile
from pathlib import Path, PurePosixPath

import numpy as np

from ..fetch import safe_extract

OGB_HINT = "pip install 'netzbench[ogb]'"


# --------------------------------------------------------------------- helpers


def _offline(cls):
    """``cls`` with ``download`` replaced by an error: netzbench never lets PyG download."""

    class Offline(cls):  # type: ignore[misc, valid-type]
        def download(self) -> None:
            raise FileNotFoundError(
                f"{cls.__name__}: raw files missing under {self.raw_dir}; netzbench fetches raw files "
                "itself and never lets PyG download (is the raw folder complete?)"
            )

    Offline.__name__ = Offline.__qualname__ = cls.__name__
    return Offline


def _unpack(archive: Path, target: Path) -> Path:
    """Extract ``archive`` into ``target`` (path and size checked); return ``target``."""
    safe_extract(Path(archive), Path(target))
    return Path(target)


def _find_dir(root: Path, name: str) -> Path:
    """The shallowest directory called ``name`` under ``root`` (archives nest differently)."""
    hits = sorted((p for p in Path(root).rglob(name) if p.is_dir()), key=lambda p: (len(p.parts), str(p)))
    if not hits:
        raise FileNotFoundError(f"no folder {name}/ in the unpacked archive under {root}")
    return hits[0]


def pair_count(edge_index: np.ndarray, num_nodes: int) -> int:
    """Number of unique undirected pairs (self-loops dropped), via 1-D pair ids (fast on large graphs)."""
    ei = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    lo, hi = np.minimum(ei[0], ei[1]), np.maximum(ei[0], ei[1])
    keep = lo != hi
    return int(np.unique(lo[keep] * max(int(num_nodes), 1) + hi[keep]).size)


def collection_arrays(xs: list, eis: list, ys: list, split: list | np.ndarray | None = None,
                      regression: bool = False) -> tuple[dict, dict]:
    """The graph-collection layout from per-graph ``x [n, F]``, local ``edge_index [2, e]`` and labels.

    ``ys`` holds one int label per graph (classification) or one target
    vector per graph (regression, stored float32 [G, T]).
    """
    sizes = np.asarray([len(x) for x in xs], dtype=np.int64)
    esizes = np.asarray([np.asarray(e).shape[1] for e in eis], dtype=np.int64)
    node_ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    edge_ptr = np.concatenate([[0], np.cumsum(esizes)]).astype(np.int64)
    edge_index = (np.concatenate([np.asarray(e, dtype=np.int64).reshape(2, -1) for e in eis], axis=1)
                  if eis else np.zeros((2, 0), dtype=np.int64))
    arrays = {
        "x": np.concatenate(xs).astype(np.float32),
        "edge_index": edge_index,
        "node_ptr": node_ptr,
        "edge_ptr": edge_ptr,
    }
    if regression:
        arrays["y"] = np.asarray(ys, dtype=np.float32).reshape(len(xs), -1)
    else:
        arrays["y"] = np.asarray(ys, dtype=np.int64).reshape(-1)
    if split is not None:
        arrays["split"] = np.asarray(split, dtype=np.int8)
    offsets = np.repeat(node_ptr[:-1], esizes)  # graphs are disjoint: count pairs on global ids
    counts = {
        "num_graphs": len(xs),
        "num_nodes": int(node_ptr[-1]),
        "num_edges": pair_count(edge_index + offsets, int(node_ptr[-1])),
        "num_features": int(arrays["x"].shape[1]),
    }
    if regression:
        counts["num_targets"] = int(arrays["y"].shape[1])
    else:
        counts["num_classes"] = int(arrays["y"].max()) + 1 if len(ys) else 0
    if split is not None:
        counts["split_sizes"] = [int((arrays["split"] == s).sum()) for s in range(3)]
    return arrays, counts


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)


def degree_features(num_nodes: int, edge_index: np.ndarray) -> np.ndarray:
    """``[1, log(1 + degree)]`` per node (the structural features of the training loops)."""
    deg = np.bincount(np.asarray(edge_index, dtype=np.int64).reshape(-1), minlength=num_nodes).astype(np.float32)
    return np.stack([np.ones(num_nodes, dtype=np.float32), np.log1p(deg)], axis=1)


# ---------------------------------------------------------------- finance


ELLIPTIC_FILES = ("elliptic_txs_features.csv", "elliptic_txs_edgelist.csv", "elliptic_txs_classes.csv")


def elliptic_bitcoin(raw_dir: Path, fmt: str = "elliptic-csv-zip") -> tuple[dict, dict]:
    """Elliptic Bitcoin transactions (Weber et al. 2019) via PyG's ``EllipticBitcoinDataset``.

    Accepts the three CSVs zipped one per file (``elliptic-csv-zip``, PyG's
    hosting) or plain (``elliptic-csv``, the Kaggle release). Nodes are in
    the order of the features file; edges are the directed payment flows
    as given. Labels: 0 licit, 1 illicit; unknown nodes (77%) get ``-1``
    and are in no mask. Split, as PyG defines it, by time step: test =
    labelled nodes of steps 35-49; PyG trains on steps 1-34 and ships no
    validation mask, so steps 30-34 become validation and 1-29 train.
    """
    import pandas as pd
    from torch_geometric.datasets import EllipticBitcoinDataset

    raw_dir = Path(raw_dir)
    with tempfile.TemporaryDirectory(prefix="netzbench-pyg-") as tmp:
        root = Path(tmp) / "elliptic"
        raw = root / "raw"
        raw.mkdir(parents=True)
        for name in ELLIPTIC_FILES:
            if fmt == "elliptic-csv-zip":
                unpacked = _unpack(raw_dir / f"{name}.zip", Path(tmp) / f"x-{name}")
                member = sorted(p for p in unpacked.rglob(name) if p.is_file() and "__MACOSX" not in p.parts)
                if not member:
                    raise FileNotFoundError(f"{name}.zip has no member {name}")
                shutil.move(str(member[0]), raw / name)
            else:
                shutil.copyfile(raw_dir / name, raw / name)
        with warnings.catch_warnings():  # pandas' read-only arrays, handed to torch by PyG
            warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
            data = _offline(EllipticBitcoinDataset)(str(root))[0]
        steps = pd.read_csv(raw / ELLIPTIC_FILES[0], header=None, usecols=[0, 1])
    y = _np(data.y).astype(np.int64)
    y[y == 2] = -1
    step = steps[1].to_numpy().astype(np.int64)
    if len(step) != len(y):
        raise ValueError("Elliptic: the features file and PyG's node count disagree")
    known = y >= 0
    arrays = {
        "x": _np(data.x).astype(np.float32),
        "edge_index": _np(data.edge_index).astype(np.int64),
        "num_nodes": np.asarray(len(y), dtype=np.int64),
        "y": y,
        "train_mask": known & (step < 30),
        "val_mask": known & (step >= 30) & (step < 35),
        "test_mask": known & (step >= 35),
    }
    counts = {
        "num_nodes": len(y),
        "num_edges": pair_count(arrays["edge_index"], len(y)),
        "num_directed_edges": int(arrays["edge_index"].shape[1]),
        "num_features": int(arrays["x"].shape[1]),
        "num_classes": 2,
        "num_labelled": int(known.sum()),
        "mask_sizes": [int(arrays[m].sum()) for m in ("train_mask", "val_mask", "test_mask")],
    }
    return arrays, counts


def ogbn_products(raw_dir: Path, fmt: str = "ogb-zip") -> tuple[dict, dict]:
    """OGB ogbn-products (Amazon co-purchasing) via ``ogb.nodeproppred.NodePropPredDataset``.

    Needs the optional ``ogb`` package. The raw file is OGB's
    ``products.zip``; it is unpacked into a temporary OGB root so OGB finds
    it and does not download. Edges as OGB gives them (both directions),
    labels 0-46, masks from OGB's sales-ranking split. Needs roughly 10 GB
    of memory (2.4 M nodes, 124 M directed edges, 100 features).
    """
    try:
        from ogb.nodeproppred import NodePropPredDataset
    except ImportError as exc:
        raise ImportError(
            f"ogbn_products needs the optional 'ogb' package: {OGB_HINT} (or pip install ogb)"
        ) from exc

    with tempfile.TemporaryDirectory(prefix="netzbench-ogb-") as tmp:
        unpacked = _unpack(Path(raw_dir) / "products.zip", Path(tmp) / "x")
        src = unpacked / "products" if (unpacked / "products").is_dir() else _find_dir(unpacked, "raw").parent
        shutil.move(str(src), Path(tmp) / "ogbn_products")
        ds = NodePropPredDataset(name="ogbn-products", root=tmp)
        graph, label = ds[0]
        split = ds.get_idx_split()
    n = int(graph["num_nodes"])
    masks = {}
    for key, ogb_key in (("train_mask", "train"), ("val_mask", "valid"), ("test_mask", "test")):
        m = np.zeros(n, dtype=bool)
        m[np.asarray(split[ogb_key], dtype=np.int64)] = True
        masks[key] = m
    arrays = {
        "x": np.asarray(graph["node_feat"], dtype=np.float32),
        "edge_index": np.asarray(graph["edge_index"], dtype=np.int64),
        "num_nodes": np.asarray(n, dtype=np.int64),
        "y": np.asarray(label, dtype=np.int64).reshape(-1),
        **masks,
    }
    counts = {"num_nodes": n, "num_edges": pair_count(arrays["edge_index"], n),
              "num_features": int(arrays["x"].shape[1]), "num_classes": int(arrays["y"].max()) + 1}
    return arrays, counts


# ---------------------------------------------------------------- vision


SHAPENET_ZIP = "shapenetcore_partanno_segmentation_benchmark_v0_normal.zip"


def knn_edges(points: np.ndarray, k: int) -> np.ndarray:
    """Symmetrised kNN graph of a point cloud: unique pairs in both directions, sorted (ties by index)."""
    n = len(points)
    k = min(k, n - 1)
    if k <= 0:
        return np.zeros((2, 0), dtype=np.int64)
    d = ((points[:, None, :] - points[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    nbr = np.argsort(d, axis=1, kind="stable")[:, :k]
    src, dst = np.repeat(np.arange(n), k), nbr.reshape(-1)
    ids = np.unique(np.concatenate([src * n + dst, dst * n + src]))
    return np.stack([ids // n, ids % n]).astype(np.int64)


def shapenet(raw_dir: Path, fmt: str = "shapenet-zip", points_per_shape: int = 256, k: int = 6) -> tuple[dict, dict]:
    """ShapeNet part segmentation (Yi et al. 2016) as node classification, via PyG's ``ShapeNet``.

    Layout: ONE single graph, the disjoint union of all shapes (train
    shapes first, then val, then test, each in the order of the canonical
    ``shuffled_*_file_list.json``). Per shape, ``points_per_shape`` points
    are kept (a uniform sample without replacement, seeded by the shape's
    split and position, so it is a function of the raw bytes) and joined
    to their ``k`` nearest neighbours (symmetrised). Node features:
    position (3), normal (3), one-hot shape category (16, as part
    segmentation networks are given the category). Labels: the 50 global
    part ids. ``train/val/test_mask`` mark the nodes of the canonical
    train/val/test shapes, so no shape is split across masks.
    """
    from torch_geometric.datasets import ShapeNet

    with tempfile.TemporaryDirectory(prefix="netzbench-pyg-") as tmp:
        unpacked = _unpack(Path(raw_dir) / SHAPENET_ZIP, Path(tmp) / "x")
        src = _find_dir(unpacked, "train_test_split").parent
        root = Path(tmp) / "shapenet"
        root.mkdir()
        shutil.move(str(src), root / "raw")
        for cat_id in ShapeNet.category_ids.values():  # PyG checks all 16 folders before reading
            (root / "raw" / cat_id).mkdir(exist_ok=True)
        num_cat = len(ShapeNet.category_ids)
        xs, eis, ys, which, offset = [], [], [], [], 0
        for split_id, split in enumerate(("train", "val", "test")):
            ds = _offline(ShapeNet)(str(root), split=split)
            for i in range(len(ds)):
                g = ds[i]
                pos, normal, y = _np(g.pos).astype(np.float64), _np(g.x), _np(g.y).astype(np.int64)
                if len(pos) > points_per_shape:
                    rng = np.random.default_rng(np.random.SeedSequence([split_id, i]))
                    keep = np.sort(rng.choice(len(pos), points_per_shape, replace=False))
                    pos, normal, y = pos[keep], normal[keep], y[keep]
                cat = np.zeros((len(pos), num_cat))
                cat[:, int(g.category)] = 1.0
                xs.append(np.concatenate([pos, normal, cat], axis=1).astype(np.float32))
                eis.append(knn_edges(pos, k) + offset)
                ys.append(y)
                which.append(np.full(len(pos), split_id, dtype=np.int8))
                offset += len(pos)
    which = np.concatenate(which) if which else np.zeros(0, dtype=np.int8)
    arrays = {
        "x": np.concatenate(xs) if xs else np.zeros((0, 6 + num_cat), np.float32),
        "edge_index": np.concatenate(eis, axis=1) if eis else np.zeros((2, 0), np.int64),
        "num_nodes": np.asarray(offset, dtype=np.int64),
        "y": np.concatenate(ys) if ys else np.zeros(0, np.int64),
        "train_mask": which == 0,
        "val_mask": which == 1,
        "test_mask": which == 2,
    }
    counts = {
        "num_nodes": int(offset),
        "num_edges": int(arrays["edge_index"].shape[1] // 2),  # knn_edges stores each pair twice
        "num_features": int(arrays["x"].shape[1]),
        "num_classes": 50,
        "num_shapes": len(xs),
        "mask_sizes": [int(arrays[m].sum()) for m in ("train_mask", "val_mask", "test_mask")],
    }
    return arrays, counts


def _pyg_graphs(ds, n: int | None = None):
    for i in range(len(ds) if n is None else min(n, len(ds))):
        yield ds[i]


def mnist_superpixels(raw_dir: Path, fmt: str = "pyg-pt", num_graphs: int | None = 1500) -> tuple[dict, dict]:
    """MNIST superpixels (Monti et al. 2017) via PyG's ``MNISTSuperpixels``.

    ``num_graphs``: the paper trains on the first 1,500 graphs of PyG's
    training set (of 60,000; 75 superpixel nodes each), so that is the
    default; ``None`` keeps all 70,000 (training then test graphs). This
    is a processor parameter, not a generator one: the data are real.
    Node features: PyG's ``x`` (superpixel intensity, 1 feature); positions
    and edge attributes are dropped, as in the paper's runs.
    """
    from torch_geometric.datasets import MNISTSuperpixels

    with tempfile.TemporaryDirectory(prefix="netzbench-pyg-") as tmp:
        raw = Path(tmp) / "mnist" / "raw"
        raw.mkdir(parents=True)
        shutil.copyfile(Path(raw_dir) / "MNISTSuperpixels.pt", raw / "MNISTSuperpixels.pt")
        cls = _offline(MNISTSuperpixels)
        train = cls(str(raw.parent), train=True)
        parts = [train]
        if num_graphs is None:
            parts.append(cls(str(raw.parent), train=False))
        xs, eis, ys = [], [], []
        for ds in parts:
            for g in _pyg_graphs(ds, num_graphs):
                xs.append(_np(g.x).reshape(g.num_nodes, -1))
                eis.append(_np(g.edge_index))
                ys.append(int(g.y.reshape(-1)[0]))
        total = len(train) + (len(parts[1]) if len(parts) > 1 else 0)
    arrays, counts = collection_arrays(xs, eis, ys)
    counts["source_graphs"] = total if num_graphs is None else len(train)
    return arrays, counts


def cifar10_superpixels(raw_dir: Path, fmt: str = "pyg-pt") -> tuple[dict, dict]:
    """CIFAR-10 superpixels (Dwivedi et al. 2020) via PyG's ``GNNBenchmarkDataset("CIFAR10")``.

    All 60,000 graphs with the canonical 45k/5k/10k train/val/test split in
    ``split``. Node features: mean RGB (3) and superpixel position (2), as
    in Benchmarking-GNNs; edge attributes are dropped.
    """
    from torch_geometric.datasets import GNNBenchmarkDataset

    with tempfile.TemporaryDirectory(prefix="netzbench-pyg-") as tmp:
        raw = Path(tmp) / "CIFAR10" / "raw"
        raw.mkdir(parents=True)
        shutil.copyfile(Path(raw_dir) / "CIFAR10_v2.pt", raw / "CIFAR10_v2.pt")
        cls = _offline(GNNBenchmarkDataset)
        xs, eis, ys, split = [], [], [], []
        for split_id, name in enumerate(("train", "val", "test")):
            for g in _pyg_graphs(cls(tmp, "CIFAR10", split=name)):
                n = g.num_nodes
                xs.append(np.concatenate([_np(g.x).reshape(n, -1), _np(g.pos).reshape(n, -1)], axis=1))
                eis.append(_np(g.edge_index))
                ys.append(int(g.y.reshape(-1)[0]))
                split.append(split_id)
    return collection_arrays(xs, eis, ys, split)


def read_off_arrays(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Parse an OFF mesh into ``pos [n, 3]`` float64 and triangle ``face [m, 3]`` int64.

    Same semantics as PyG's ``torch_geometric.io.parse_off`` (tolerates the
    ModelNet header bug ``OFF<n> <m> 0`` without a newline; triangles kept,
    quads split into two triangles, other polygons dropped), vectorised with
    numpy because ModelNet40 has ~12k meshes of up to ~10^5 vertices.
    """
    lines = [ln for ln in text.splitlines()]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise ValueError("empty OFF file")
    if lines[0].strip() == "OFF":
        lines = lines[1:]
    else:
        lines[0] = lines[0].strip()[3:]
    nv, nf = (int(t) for t in lines[0].split()[:2])
    pos = np.asarray(" ".join(lines[1:1 + nv]).split(), dtype=np.float64).reshape(nv, -1)[:, :3]
    face_lines = lines[1 + nv:1 + nv + nf]
    flat = " ".join(face_lines).split()
    if flat and len(flat) == 4 * nf and all(t == "3" for t in flat[::4]):
        tri = np.asarray(flat, dtype=np.int64).reshape(nf, 4)[:, 1:]
        return pos, tri
    rows = [ln.split() for ln in face_lines]
    tris = [[int(t) for t in r[1:4]] for r in rows if r and r[0] == "3"]
    quads = [[int(t) for t in r[1:5]] for r in rows if r and r[0] == "4"]
    out = [np.asarray(tris, dtype=np.int64).reshape(-1, 3)]
    if quads:
        q = np.asarray(quads, dtype=np.int64)
        out += [q[:, [0, 1, 2]], q[:, [0, 2, 3]]]
    return pos, np.concatenate(out)


def mesh_graph(pos: np.ndarray, face: np.ndarray, grid: int | None = 24) -> tuple[np.ndarray, np.ndarray]:
    """Mesh -> graph: normalise, cluster vertices on a ``grid``^3 lattice, connect by face edges.

    The mesh is centred on its bounding box and scaled into the unit ball
    (ModelNet units are arbitrary). With ``grid`` set, vertices falling in
    the same cell of a ``grid``^3 lattice over [-1, 1]^3 are merged (node =
    occupied cell, ordered by cell id, position = mean of its vertices);
    with ``grid=None`` every vertex is a node. Edges are the triangle sides
    mapped to nodes, self-loops and duplicates dropped, stored in both
    directions sorted by (source, target). Returns ``(x [m, 3] float32,
    edge_index [2, 2p] int64)``.
    """
    pos = np.asarray(pos, dtype=np.float64).reshape(-1, 3)
    if len(pos) == 0:
        return np.zeros((0, 3), np.float32), np.zeros((2, 0), np.int64)
    p = pos - (pos.min(0) + pos.max(0)) / 2.0
    scale = float(np.sqrt((p ** 2).sum(1)).max())
    p = p / (scale if scale > 0 else 1.0)
    if grid is None:
        inv, xyz = np.arange(len(p)), p
    else:
        cell = np.clip(np.floor((p + 1.0) / 2.0 * grid), 0, grid - 1).astype(np.int64)
        cid = (cell[:, 0] * grid + cell[:, 1]) * grid + cell[:, 2]
        _, inv = np.unique(cid, return_inverse=True)
        inv = inv.reshape(-1)
        m = int(inv.max()) + 1
        xyz = np.zeros((m, 3))
        np.add.at(xyz, inv, p)
        xyz /= np.bincount(inv, minlength=m)[:, None]
    m = len(xyz)
    f = np.asarray(face, dtype=np.int64).reshape(-1, 3)
    f = f[(f >= 0).all(1) & (f < len(p)).all(1)]  # faces naming missing vertices are dropped
    a = inv[np.concatenate([f[:, 0], f[:, 1], f[:, 2]])]
    b = inv[np.concatenate([f[:, 1], f[:, 2], f[:, 0]])]
    keep = a != b
    ids = np.unique(np.concatenate([a[keep] * m + b[keep], b[keep] * m + a[keep]]))
    return xyz.astype(np.float32), np.stack([ids // m, ids % m]).astype(np.int64)


def modelnet(raw_dir: Path, fmt: str = "modelnet-zip", grid: int | None = 24,
             val_every: int = 10) -> tuple[dict, dict]:
    """ModelNet10/40 CAD meshes (Wu et al. 2015) as graphs for graph classification.

    Reads ``ModelNet10.zip`` / ``ModelNet40.zip`` (whichever is in the raw
    folder) member by member without unpacking (ModelNet40 unpacks to
    several GB), parsing each ``.off`` file like PyG's ``read_off`` and
    turning it into a graph with :func:`mesh_graph` (face edges, vertex
    clustering on a ``grid``^3 lattice; node features = normalised xyz).
    PyG's ``ModelNet`` class is not used: it holds every full mesh in
    memory before any transform (~13 GB for ModelNet40) and lists files in
    unsorted ``glob`` order. Classes are the category folders in sorted
    order (as PyG). Split: the canonical train/test folders; every
    ``val_every``-th training mesh of each category (sorted by file name,
    positions ``val_every - 1, 2 * val_every - 1, ...``) is validation.
    Graphs are ordered by category, then split folder (test, train), then
    file name.
    """
    archives = sorted(Path(raw_dir).glob("ModelNet*.zip"))
    if len(archives) != 1:
        raise FileNotFoundError(f"expected one ModelNet*.zip in {raw_dir}, found {[a.name for a in archives]}")
    xs, eis, ys, split = [], [], [], []
    with zipfile.ZipFile(archives[0]) as zf:
        members = []
        for info in zf.infolist():
            parts = PurePosixPath(info.filename).parts
            if (info.is_dir() or len(parts) < 3 or not parts[-1].endswith(".off") or parts[-1].startswith("._")
                    or parts[-2] not in ("train", "test") or any(p.startswith("__MACOSX") for p in parts)):
                continue
            members.append((parts[-3], parts[-2], parts[-1], info))
        members.sort(key=lambda m: m[:3])
        categories = sorted({m[0] for m in members})
        label = {c: i for i, c in enumerate(categories)}
        train_pos: dict[str, int] = {}
        for category, folder, _, info in members:
            if info.file_size > 2**30:
                raise ValueError(f"{info.filename} is larger than 1 GiB; refusing to read it")
            pos, face = read_off_arrays(zf.read(info).decode("utf-8", errors="replace"))
            x, ei = mesh_graph(pos, face, grid)
            xs.append(x)
            eis.append(ei)
            ys.append(label[category])
            if folder == "test":
                split.append(2)
            else:
                j = train_pos.get(category, 0)
                train_pos[category] = j + 1
                split.append(1 if val_every and j % val_every == val_every - 1 else 0)
    if not xs:
        raise FileNotFoundError(f"{archives[0].name} holds no <category>/<train|test>/*.off meshes")
    arrays, counts = collection_arrays(xs, eis, ys, split)
    counts["grid"] = grid
    return arrays, counts


# ---------------------------------------------------------------- physics


#: QM9 targets kept by default (PyG's target numbering): the 12 properties of
#: MoleculeNet/Gilmer et al. with the atomization energies (12-15) in place of
#: the total energies U0, U, H, G (7-10), which are dominated by a per-atom
#: offset of ~10^4 eV; the rotational constants (16-18) are heavy-tailed and left out.
QM9_TARGETS = (0, 1, 2, 3, 4, 5, 6, 11, 12, 13, 14, 15)


def qm9(raw_dir: Path, fmt: str = "pyg-pt", targets: tuple[int, ...] | None = QM9_TARGETS) -> tuple[dict, dict]:
    """QM9 (Ramakrishnan et al. 2014; MoleculeNet) from PyG's processed release ``qm9_v3.pt``.

    The file is the list of per-molecule dicts that PyG's ``QM9`` class
    loads when rdkit is absent (130,831 molecules after PyG drops the 3,054
    "uncharacterized" ones). It is read here directly with
    ``torch.load(weights_only=True)`` because PyG's class switches to the
    raw SDF files (and so to a download) whenever rdkit happens to be
    installed. Node features: PyG's 11 atom features (H/C/N/O/F one-hot,
    atomic number, aromatic, sp/sp2/sp3, number of H). Targets: float32
    [G, T], PyG units (eV for energies); ``targets`` selects PyG target
    columns (default :data:`QM9_TARGETS`, 12 columns; ``None`` = all 19).
    """
    import torch

    records = torch.load(Path(raw_dir) / "qm9_v3.pt", map_location="cpu", weights_only=True)
    xs, eis, ys = [], [], []
    for rec in records:
        xs.append(_np(rec["x"]).astype(np.float32))
        eis.append(_np(rec["edge_index"]).astype(np.int64))
        ys.append(_np(rec["y"]).reshape(-1))
    y = np.stack(ys) if ys else np.zeros((0, 19))
    if targets is not None:
        y = y[:, list(targets)]
    arrays, counts = collection_arrays(xs, eis, list(y), regression=True)
    counts["targets"] = list(targets) if targets is not None else list(range(19))
    return arrays, counts


ZINC_ATOM_TYPES = 28


def zinc(raw_dir: Path, fmt: str = "zinc-pickle") -> tuple[dict, dict]:
    """ZINC 12k subset (Dwivedi et al. 2020) via PyG's ``ZINC(subset=True)``.

    Graphs: train (10,000), then val (1,000), then test (1,000), in the order
    of the canonical ``*.index`` files; ``split`` records which. Target:
    constrained solubility ``logP_SA_cycle_normalized``, float32 [G, 1].
    Node features: one-hot atom type (28 types; PyG gives the type id).
    Bond types (edge attributes) are dropped.
    """
    from torch_geometric.datasets import ZINC

    with tempfile.TemporaryDirectory(prefix="netzbench-pyg-") as tmp:
        shutil.copytree(raw_dir, Path(tmp) / "raw")
        cls = _offline(ZINC)
        xs, eis, ys, split = [], [], [], []
        for split_id, name in enumerate(("train", "val", "test")):
            for g in _pyg_graphs(cls(tmp, subset=True, split=name)):
                atom = _np(g.x).reshape(-1).astype(np.int64)
                x = np.zeros((len(atom), ZINC_ATOM_TYPES), dtype=np.float32)
                x[np.arange(len(atom)), atom] = 1.0
                xs.append(x)
                eis.append(_np(g.edge_index))
                ys.append(_np(g.y).reshape(-1)[:1])
                split.append(split_id)
    return collection_arrays(xs, eis, ys, split, regression=True)


# ---------------------------------------------------------------- security


MALNET_GRAPHS = "malnet-graphs-tiny.tar.gz"
MALNET_SPLIT = "split_info_tiny.zip"


def malnet_tiny(raw_dir: Path, fmt: str = "malnet-archives") -> tuple[dict, dict]:
    """MalNet-Tiny (Freitas et al. 2021) function-call graphs via PyG's ``MalNetTiny``.

    5,000 Android call graphs (at most 5k nodes each), 5 types (benign and
    four malware types). Raw files: the graph tarball and the split zip,
    both as downloaded. Graphs are ordered train, val, test as in the
    canonical split lists; ``split`` records which; class ids follow PyG
    (order of first appearance in the train list). Edges are the directed
    call edges as given. MalNet has no node features, so ``x`` is
    ``[1, log(1 + degree)]`` per node (degree counting both directions).
    """
    import torch
    from torch_geometric.datasets import MalNetTiny

    raw_dir = Path(raw_dir)
    graphs = next(iter(sorted(raw_dir.rglob(MALNET_GRAPHS))), None)
    splits = next(iter(sorted(raw_dir.rglob(MALNET_SPLIT))), None)
    if graphs is None or splits is None:
        raise FileNotFoundError(f"MalNet-Tiny needs {MALNET_GRAPHS} and {MALNET_SPLIT} in {raw_dir}")
    with tempfile.TemporaryDirectory(prefix="netzbench-pyg-") as tmp:
        raw = Path(tmp) / "raw"
        raw.mkdir()
        for archive in (graphs, splits):
            unpacked = _unpack(archive, Path(tmp) / f"x-{archive.name}")
            for name in ("malnet-graphs-tiny", "split_info_tiny"):
                found = [p for p in unpacked.rglob(name) if p.is_dir()]
                if found and not (raw / name).exists():
                    shutil.move(str(min(found, key=lambda p: len(p.parts))), raw / name)
        ds = _offline(MalNetTiny)(tmp)
        slices = [int(s) for s in torch.load(ds.processed_paths[1], weights_only=True)]
        xs, eis, ys, split = [], [], [], []
        for i, g in enumerate(_pyg_graphs(ds)):
            ei = _np(g.edge_index).astype(np.int64)
            xs.append(degree_features(int(g.num_nodes), ei))
            eis.append(ei)
            ys.append(int(np.asarray(_np(g.y)).reshape(-1)[0]))
            split.append(0 if i < slices[1] else (1 if i < slices[2] else 2))
    arrays, counts = collection_arrays(xs, eis, ys, split)
    counts["num_directed_edges"] = int(arrays["edge_index"].shape[1])
    return arrays, counts
