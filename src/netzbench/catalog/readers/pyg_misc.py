"""Processors for the finance, physics and security datasets that PyG (or OGB) wraps.

Each processor takes the raw directory filled by :mod:`netzbench.catalog.fetch`
(the canonical archives or files, byte for byte) and returns ``(arrays,
counts)`` in a layout of :mod:`netzbench.graphs.layout`, through the staging
helpers of :mod:`.staging` (the vision datasets are in :mod:`.pyg_vision`).

Choices not dictated by the sources, in short (details per processor):

- Elliptic: unknown-class nodes get ``y = -1`` and are in no mask; PyG's
  temporal split (train steps 1-34, test 35-49) with validation carved from
  the last five training steps (30-34).
- QM9: 12 of the 19 PyG targets by default (``targets`` parameter).
- ZINC: the 12k subset with its canonical split; atom types one-hot.
- MalNet-Tiny: no node features upstream, so ``[1, log(1 + degree)]``.
"""

from __future__ import annotations

import shutil
import tempfile
import warnings
from pathlib import Path

import numpy as np

from ...graphs.convert import as_numpy as _np
from ...graphs.edges import count_undirected_pairs
from ...graphs.features import structural_features
from . import safe_pickle
from .staging import OGB_HINT, collection, find_dir, offline, pyg_graphs, unpack

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
                unpacked = unpack(raw_dir / f"{name}.zip", Path(tmp) / f"x-{name}")
                member = sorted(p for p in unpacked.rglob(name) if p.is_file() and "__MACOSX" not in p.parts)
                if not member:
                    raise FileNotFoundError(f"{name}.zip has no member {name}")
                shutil.move(str(member[0]), raw / name)
            else:
                shutil.copyfile(raw_dir / name, raw / name)
        with warnings.catch_warnings():  # pandas' read-only arrays, handed to torch by PyG
            warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
            data = offline(EllipticBitcoinDataset)(str(root))[0]
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
        "num_edges": count_undirected_pairs(arrays["edge_index"]),
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
        unpacked = unpack(Path(raw_dir) / "products.zip", Path(tmp) / "x")
        src = unpacked / "products" if (unpacked / "products").is_dir() else find_dir(unpacked, "raw").parent
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
    counts = {"num_nodes": n, "num_edges": count_undirected_pairs(arrays["edge_index"]),
              "num_features": int(arrays["x"].shape[1]), "num_classes": int(arrays["y"].max()) + 1}
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
    arrays, counts = collection(xs, eis, list(y), regression=True)
    counts["targets"] = list(targets) if targets is not None else list(range(19))
    return arrays, counts


ZINC_ATOM_TYPES = 28


def zinc(raw_dir: Path, fmt: str = "zinc-pickle") -> tuple[dict, dict]:
    """ZINC 12k subset (Dwivedi et al. 2020), read as PyG's ``ZINC(subset=True)`` reads it.

    Graphs: train (10,000), then val (1,000), then test (1,000), in the order
    of the canonical ``*.index`` files; ``split`` records which. Target:
    constrained solubility ``logP_SA_cycle_normalized``, float32 [G, 1].
    Node features: one-hot atom type (28 types; PyG gives the type id).
    Edges: the non-zero entries of the bond-type matrix, row by row, as PyG
    takes them; bond types (edge attributes) are dropped. The pickles are
    read by the restricted unpickler (:mod:`.safe_pickle`: tensors only), not
    by PyG's class, which would ``pickle.load`` them and so run any code they name.
    """
    import torch

    raw_dir = Path(raw_dir)
    xs, eis, ys, split = [], [], [], []
    for split_id, name in enumerate(("train", "val", "test")):
        mols = safe_pickle.load(raw_dir / f"{name}.pickle", "tensors")
        # as PyG: the comma-separated molecule numbers, the file's last character (a newline) cut
        text = (raw_dir / f"{name}.index").read_text()
        for idx in (int(i) for i in text[:-1].split(",")):
            mol = mols[idx]
            atom = _np(mol["atom_type"].to(torch.long)).reshape(-1)
            x = np.zeros((len(atom), ZINC_ATOM_TYPES), dtype=np.float32)
            x[np.arange(len(atom)), atom] = 1.0
            xs.append(x)
            eis.append(_np(mol["bond_type"].nonzero(as_tuple=False).t().contiguous()))
            ys.append(_np(mol["logP_SA_cycle_normalized"].to(torch.float)).reshape(-1)[:1])
            split.append(split_id)
    return collection(xs, eis, ys, split, regression=True)


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
            unpacked = unpack(archive, Path(tmp) / f"x-{archive.name}")
            for name in ("malnet-graphs-tiny", "split_info_tiny"):
                found = [p for p in unpacked.rglob(name) if p.is_dir()]
                if found and not (raw / name).exists():
                    shutil.move(str(min(found, key=lambda p: len(p.parts))), raw / name)
        ds = offline(MalNetTiny)(tmp)
        slices = [int(s) for s in torch.load(ds.processed_paths[1], weights_only=True)]
        xs, eis, ys, split = [], [], [], []
        for i, g in enumerate(pyg_graphs(ds)):
            ei = _np(g.edge_index).astype(np.int64)
            xs.append(structural_features(int(g.num_nodes), ei))
            eis.append(ei)
            ys.append(int(np.asarray(_np(g.y)).reshape(-1)[0]))
            split.append(0 if i < slices[1] else (1 if i < slices[2] else 2))
    arrays, counts = collection(xs, eis, ys, split)
    counts["num_directed_edges"] = int(arrays["edge_index"].shape[1])
    return arrays, counts
