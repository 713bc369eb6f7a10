"""The catalogue's TU processor (``loaders.tudataset``) reads without torch what PyG's ``TUDataset`` reads.

The processor once let PyG parse the files: ``TUDataset(root, name)`` (default ``use_node_attr=False``),
then ``graph_x``, ``stack_graphs``, ``collection_arrays`` and ``tu_dropped``. That path lives on here
only, as the reference (:func:`pyg_tudataset`, :func:`tu_dropped`): the numpy reader must give the same arrays (dtypes,
shapes, values, edge order), counts and ``dropped``, or every cached seed of MUTAG, PROTEINS and ENZYMES
would be invalidated. Compared on the mirror's collections (``NETZBENCH_MIRROR``; skipped without it) and
on fixtures written here, which reach PyG's corners: several node-label columns beside node attributes,
no node labels or attributes, self-loops, repeated and one-way records, labels like ``-1``/``1``,
isolated nodes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import raw_fixtures as rf
from netzbench.catalog.loaders import tudataset
from netzbench.catalog.readers.files import ReadError, count_dropped, read_table
from netzbench.catalog.readers.staging import stage
from netzbench.catalog.readers.tu import FMT, tu_edge_values, tu_files
from netzbench.graphs.collection import collection_arrays, stack_graphs
from netzbench.graphs.convert import graph_x

MIRROR_COLLECTIONS = {"mutag": "MUTAG", "proteins": "PROTEINS", "enzymes": "ENZYMES"}


def tu_dropped(raw_dir: Path) -> dict:
    """What the processor recorded as dropped, as it was (a second read of ``_A.txt``): self-loops and
    repeated ``i, j`` records, and the per-edge files left out."""
    _, files = tu_files(raw_dir)
    table = read_table(files["A"], FMT, "one edge 'i, j' per line")
    e = table.values.reshape(-1, 2)
    return {**count_dropped(e[:, 0], e[:, 1]), **tu_edge_values(files)}


def pyg_tudataset(raw_dir: Path) -> tuple[dict, dict, dict]:
    """The processor as it was, PyG parsing the files: the reference."""
    from torch_geometric.datasets import TUDataset

    name = next(Path(raw_dir).glob("*_graph_indicator.txt")).name[: -len("_graph_indicator.txt")]
    tmp, root = stage(raw_dir, name, "raw")
    with tmp:
        graphs = list(TUDataset(str(root), name))
        stacked = stack_graphs([graph_x(g) for g in graphs], [g.edge_index.numpy() for g in graphs])
        arrays, counts = collection_arrays(*stacked, np.concatenate([g.y.numpy().reshape(-1) for g in graphs]))
    return arrays, counts, tu_dropped(raw_dir)


def assert_same(ours: tuple, theirs: tuple) -> None:
    """Same keys, dtypes, shapes and values of every array, same counts and dropped (key order too)."""
    (arrays, counts, dropped), (want_arrays, want_counts, want_dropped) = ours, theirs
    assert sorted(arrays) == sorted(want_arrays)
    for key, want in want_arrays.items():
        assert arrays[key].dtype == want.dtype, key
        assert arrays[key].shape == want.shape, key
        assert np.array_equal(arrays[key], want), key
    assert counts == want_counts and list(counts) == list(want_counts)
    assert dropped == want_dropped and list(dropped) == list(want_dropped)


# ------------------------------------------------------------------------------------------- mirror

@pytest.mark.parametrize("dataset", sorted(MIRROR_COLLECTIONS))
def test_the_mirror_s_collections_read_as_pyg_reads_them(dataset):
    mirror = os.environ.get("NETZBENCH_MIRROR")
    if not mirror:
        pytest.skip("NETZBENCH_MIRROR is not set: comparing with PyG on MUTAG/PROTEINS/ENZYMES needs the mirror "
                    "(../shared/datasets)")
    raw = Path(mirror) / dataset / "raw"
    if not raw.is_dir():
        pytest.skip(f"the mirror has no {dataset}: {raw} is not a directory")
    assert_same(tudataset(raw), pyg_tudataset(raw))


# ------------------------------------------------------------------------------------------ fixtures

def both_ways(*pairs) -> list:
    return [r for a, b in pairs for r in ((a, b), (b, a))]


def write(folder: Path, name: str, files: dict, newline: str = "\n") -> Path:
    """``folder/<name>_<kind>.txt`` per ``kind: rows`` (a row a value or a tuple of values), a README."""
    folder.mkdir(parents=True, exist_ok=True)
    for kind, rows in files.items():
        lines = (", ".join(map(str, row if isinstance(row, tuple) else (row,))) for row in rows)
        (folder / f"{name}_{kind}.txt").write_bytes("".join(f"{line}{newline}" for line in lines).encode())
    (folder / "README.txt").write_text(f"{name}: a fixture of tests/test_tu_catalogue_reader.py\n")
    return folder


def labels_and_attributes(folder: Path) -> Path:
    """Node labels in two columns (the second from 3: shifted to 0 before the one-hot), two columns of
    node attributes (not used), edge labels: a triangle, a 4-path and an edge."""
    edges = both_ways((1, 2), (2, 3), (1, 3), (4, 5), (5, 6), (6, 7), (8, 9))
    return write(folder, "LABATT", {
        "A": edges,
        "graph_indicator": [1, 1, 1, 2, 2, 2, 2, 3, 3],
        "graph_labels": [0, 1, 0],
        "node_labels": [(1, 3), (2, 5), (1, 4), (2, 3), (1, 3), (1, 3), (2, 5), (1, 4), (1, 3)],
        "node_attributes": [(0.5 * i, 1.25) for i in range(9)],
        "edge_labels": [1 + i % 3 for i in range(len(edges))],
    })


def plain(folder: Path) -> Path:
    """No node labels or attributes: ``[1, log(1 + degree)]`` within each graph."""
    return write(folder, "PLAIN", {
        "A": both_ways((1, 2), (2, 3), (3, 4), (4, 1), (1, 3), (5, 6), (6, 7), (8, 9), (9, 10), (10, 11), (9, 11)),
        "graph_indicator": [1] * 4 + [2] * 3 + [3] * 4,
        "graph_labels": [1, 0, 1],
    })


def messy(folder: Path) -> Path:
    """Self-loops, repeated records, a pair listed one way only (kept one way), a graph without edges
    between two with, classes -1/1/3, real-valued edge attributes (``weights`` dropped), CRLF."""
    edges = [(2, 1), (1, 2), (2, 3), (3, 2), (2, 2), (1, 2),  # graph 1: a self-loop, a repeat
             (7, 8), (8, 7), (6, 8), (8, 8), (8, 8), (7, 8)]  # graph 3: 6 -> 8 one way, a self-loop twice
    return write(folder, "MESSY", {
        "A": edges,
        "graph_indicator": [1, 1, 1, 2, 2, 3, 3, 3],
        "graph_labels": [-1, 3, 1],
        "node_labels": [4, 5, 4, 4, 6, 5, 5, 4],
        "edge_attributes": [(0.5, 2.0)] * len(edges),
    }, newline="\r\n")


def isolated(folder: Path, node_labels: bool) -> Path:
    """Graphs with isolated nodes: after the edges, before them, and the collection's last node."""
    files = {"A": both_ways((1, 2), (6, 7), (8, 9)),
             "graph_indicator": [1, 1, 1, 1, 2, 2, 2, 3, 3, 3],
             "graph_labels": [0, 1, 1]}
    if node_labels:
        files["node_labels"] = [0, 1, 2, 0, 1, 1, 0, 2, 2, 1]
    return write(folder, "ISO", files)


def attributes_only(folder: Path) -> Path:
    """Node attributes, no labels: PyG slices every column off and leaves x with none (not degree features)."""
    return write(folder, "ATTONLY", {
        "A": both_ways((1, 2), (3, 4), (4, 5)),
        "graph_indicator": [1, 1, 2, 2, 2],
        "graph_labels": [0, 1],
        "node_attributes": [(1.5,), (2.5,), (0.0,), (3.0,), (1.0,)],
    })


def shared_fixture(folder: Path) -> Path:
    """tests/raw_fixtures.py's collection (CRLF, a repeated record) with node labels and attributes."""
    rf.write_tu(folder, attributes=True)
    return folder


FIXTURES = {
    "labels_and_attributes": labels_and_attributes,
    "plain": plain,
    "messy": messy,
    "isolated_unlabelled": lambda folder: isolated(folder, node_labels=False),
    "isolated_labelled": lambda folder: isolated(folder, node_labels=True),
    "attributes_only": attributes_only,
    "raw_fixtures_write_tu": shared_fixture,
}


@pytest.mark.parametrize("fixture", sorted(FIXTURES))
def test_a_fixture_reads_as_pyg_reads_it(tmp_path, fixture):
    folder = FIXTURES[fixture](tmp_path / fixture)
    assert_same(tudataset(folder), pyg_tudataset(folder))


def test_the_fixtures_hold_what_they_are_for(tmp_path):
    """The corners are really there (read by the new reader, which equals PyG's above)."""
    arrays, counts, dropped = tudataset(labels_and_attributes(tmp_path / "la"))
    assert arrays["x"].shape == (9, 2 + 3)  # two classes in the first label column, three in the second
    arrays, counts, dropped = tudataset(messy(tmp_path / "messy"))
    assert dropped == {"self_loops": 3, "duplicate_edges": 2, "edge_attributes": True, "weights": True}
    assert arrays["y"].tolist() == [0, 2, 1] and arrays["edge_ptr"].tolist() == [0, 4, 4, 7]
    assert arrays["edge_index"][:, 4:].T.tolist() == [[0, 2], [1, 2], [2, 1]]  # 6 -> 8 kept one way
    arrays, _, _ = tudataset(isolated(tmp_path / "iso", node_labels=False))
    degrees = np.array([1, 1, 0, 0, 0, 1, 1, 1, 1, 0], dtype=np.float32)
    assert np.array_equal(arrays["x"], np.stack([np.ones(10, dtype=np.float32), np.log1p(degrees)], axis=1))
    arrays, counts, _ = tudataset(attributes_only(tmp_path / "att"))
    assert arrays["x"].shape == (5, 0) and counts["num_features"] == 0


def test_departures_where_pyg_gives_no_collection(tmp_path):
    """A last graph without edges is kept (PyG's slices lose it); regression targets are refused."""
    folder = write(tmp_path / "tail", "TAIL", {"A": both_ways((1, 2)), "graph_indicator": [1, 1, 2],
                                               "graph_labels": [0, 1]})
    arrays, counts, _ = tudataset(folder)
    assert arrays["node_ptr"].tolist() == [0, 2, 3] and arrays["edge_ptr"].tolist() == [0, 2, 2]
    assert counts["num_graphs"] == 2
    write(folder, "TAIL", {"graph_attributes": [0.5, 1.5]})
    with pytest.raises(ReadError, match="regression targets"):
        tudataset(folder)


def test_reading_imports_neither_torch_nor_pyg(tmp_path):
    folders = [str(FIXTURES[f](tmp_path / f)) for f in ("labels_and_attributes", "plain")]
    code = ("import sys; from netzbench.catalog.loaders import tudataset\n"
            f"for folder in {folders!r}: tudataset(folder)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'torch_geometric')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
