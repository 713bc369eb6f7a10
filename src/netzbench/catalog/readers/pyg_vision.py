"""Processors for the vision datasets that PyG wraps: ShapeNet, MNIST and CIFAR-10 superpixels, ModelNet.

Choices not dictated by the sources, in short (details per processor):

- ShapeNet (node classification over ~17k point clouds): one graph that is
  the disjoint union of a kNN graph per shape; the masks follow the
  canonical shape split.
- MNIST superpixels: the first 1,500 training graphs, as in the paper
  (``num_graphs`` parameter).
- ModelNet: meshes become graphs through their face edges after a
  deterministic vertex-clustering decimation (the full meshes would be
  ~200 M vertices for ModelNet40).
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

import numpy as np

from ...graphs.convert import as_numpy as _np
from .staging import collection, find_dir, offline, pyg_graphs, unpack

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
        unpacked = unpack(Path(raw_dir) / SHAPENET_ZIP, Path(tmp) / "x")
        src = find_dir(unpacked, "train_test_split").parent
        root = Path(tmp) / "shapenet"
        root.mkdir()
        shutil.move(str(src), root / "raw")
        for cat_id in ShapeNet.category_ids.values():  # PyG checks all 16 folders before reading
            (root / "raw" / cat_id).mkdir(exist_ok=True)
        num_cat = len(ShapeNet.category_ids)
        xs, eis, ys, which, offset = [], [], [], [], 0
        for split_id, split in enumerate(("train", "val", "test")):
            ds = offline(ShapeNet)(str(root), split=split)
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
        cls = offline(MNISTSuperpixels)
        train = cls(str(raw.parent), train=True)
        parts = [train]
        if num_graphs is None:
            parts.append(cls(str(raw.parent), train=False))
        xs, eis, ys = [], [], []
        for ds in parts:
            for g in pyg_graphs(ds, num_graphs):
                xs.append(_np(g.x).reshape(g.num_nodes, -1))
                eis.append(_np(g.edge_index))
                ys.append(int(g.y.reshape(-1)[0]))
        total = len(train) + (len(parts[1]) if len(parts) > 1 else 0)
    arrays, counts = collection(xs, eis, ys)
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
        cls = offline(GNNBenchmarkDataset)
        xs, eis, ys, split = [], [], [], []
        for split_id, name in enumerate(("train", "val", "test")):
            for g in pyg_graphs(cls(tmp, "CIFAR10", split=name)):
                n = g.num_nodes
                xs.append(np.concatenate([_np(g.x).reshape(n, -1), _np(g.pos).reshape(n, -1)], axis=1))
                eis.append(_np(g.edge_index))
                ys.append(int(g.y.reshape(-1)[0]))
                split.append(split_id)
    return collection(xs, eis, ys, split)


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
    arrays, counts = collection(xs, eis, ys, split)
    counts["grid"] = grid
    return arrays, counts
