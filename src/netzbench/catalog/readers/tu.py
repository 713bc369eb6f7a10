"""TU graph collections (``<NAME>_A.txt`` and friends; Morris et al. 2020) read without PyG.

The layout of https://chrsmrrs.github.io/datasets/docs/format/: one file per
kind, one line per item, node ids 1-based and global over the collection:

- ``<NAME>_A.txt``: one edge ``i, j`` per line (both directions listed);
- ``<NAME>_graph_indicator.txt``: the graph id (1-based) of each node, graph by graph;
- ``<NAME>_graph_labels.txt``: one class per graph (any integers, e.g. ``-1``/``1``);
- ``<NAME>_graph_attributes.txt``: regression targets per graph (``graph_reg``);
- optional ``<NAME>_node_labels.txt`` (one or more integer columns) and
  ``<NAME>_node_attributes.txt`` (float columns); edge labels and
  attributes are not used.

Choices: node features are the node attributes followed by a one-hot
encoding of each node-label column (shifted to start at 0), as PyG's
``TUDataset(use_node_attr=True)`` builds them; a collection with neither gets
``[1, log(1 + degree)]`` per node, degrees counted within each graph. Edges
are stored as unique undirected pairs in both directions per graph,
self-loops and repeated records dropped (counted in ``dropped``, with edge
labels and attributes, which are not read: :func:`tu_edges`, :func:`tu_edge_values`). Class
labels that are not ``0..C-1`` are mapped in sorted order and the mapping
recorded. A file whose smallest edge id is 0 is read as 0-based.

The catalogue's processor of TU collections (:func:`netzbench.catalog.loaders.tudataset`) reads the
files with the same pieces (:func:`tu_graphs`, :func:`tu_edges`, :func:`node_label_onehot`, ...) but
builds what PyG's ``TUDataset`` builds (``use_node_attr=False``, edges not symmetrised), the arrays its
processed datasets have always held.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...graphs.collection import collection_arrays
from ...graphs.edges import symmetric_edges, undirected_pairs
from ...graphs.features import structural_features
from ..checks import normalise_labels
from .files import Bundle, ReadError, Table, count_dropped, one_file, read_table

FMT = "tu"
SUFFIXES = ("A", "graph_indicator", "graph_labels", "graph_attributes", "node_labels", "node_attributes",
            "edge_labels", "edge_attributes")


def tu_files(path: str | Path) -> tuple[str, dict[str, Path]]:
    """``(NAME, {kind: file})`` of the TU collection under ``path`` (the folder or its ``_A.txt``)."""
    a = one_file(Path(path), FMT, "<NAME>_A.txt edge file", lambda p: p.name.endswith("_A.txt"))
    name = a.name[: -len("_A.txt")]
    files = {s: a.parent / f"{name}_{s}.txt" for s in SUFFIXES if (a.parent / f"{name}_{s}.txt").is_file()}
    if "graph_indicator" not in files:
        raise ReadError(FMT, a.parent, f"{name}_graph_indicator.txt beside {a.name}", "no such file")
    return name, files


def _rows(table: Table, rows: int, what: str) -> None:
    if len(table.values) != rows:
        raise ReadError(FMT, table.path, f"one line per {what} ({rows})", f"{len(table.values)} data lines")


def _one_column(table: Table, what: str) -> np.ndarray:
    if table.width != 1:
        table.fail(0, what)
    return table.values[:, 0]


def tu_graphs(files: dict) -> tuple[np.ndarray, np.ndarray]:
    """Graph of each node (0-based) and ``node_ptr`` from the graph indicator (checked: graph by graph,
    no gaps). Shared with the catalogue's processor (:func:`netzbench.catalog.loaders.tudataset`)."""
    table = read_table(files["graph_indicator"], FMT, "one graph id per node")
    graph = _one_column(table, "one graph id per line")
    if graph.size == 0:
        raise ReadError(FMT, table.path, "one graph id per node", "no nodes")
    base = int(graph.min())
    if base not in (0, 1):
        table.fail(int(np.argmin(graph)), "graph ids starting at 1")
    graph = graph - base
    down = np.flatnonzero(np.diff(graph) < 0)
    if down.size:
        table.fail(int(down[0]) + 1, "nodes listed graph by graph (graph ids never decreasing)")
    sizes = np.bincount(graph)
    if (sizes == 0).any():
        raise ReadError(FMT, table.path, "graph ids without gaps", f"no node of graph {int(np.argmin(sizes)) + base}")
    return graph, np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def tu_edges(files: dict, graph: np.ndarray) -> tuple[np.ndarray, dict]:
    """Global 0-based edge records ``[m, 2]`` in file order (checked: ids in range, both ends in one
    graph) and what collapsing them drops. Shared with the catalogue's processor."""
    table = read_table(files["A"], FMT, "one edge 'i, j' per line")
    if table.width != 2:
        table.fail(0, "two node ids 'i, j' per line")
    e = table.values
    n = graph.size
    if e.size:
        e = e - (0 if e.min() == 0 else 1)
        bad = np.flatnonzero(((e < 0) | (e >= n)).any(axis=1))
        if bad.size:
            table.fail(int(bad[0]), f"node ids between 1 and {n} (the nodes of the graph indicator)")
        cross = np.flatnonzero(graph[e[:, 0]] != graph[e[:, 1]])
        if cross.size:
            table.fail(int(cross[0]), "both ends of an edge in the same graph")
    return e.reshape(-1, 2), count_dropped(e[:, 0], e[:, 1]) if e.size else {"self_loops": 0, "duplicate_edges": 0}


def tu_graph_labels(files: dict, num_graphs: int) -> np.ndarray:
    """The class of each graph as written in ``_graph_labels.txt`` (int64 ``[num_graphs]``, checked:
    one per graph), not yet mapped to ``0..C-1``. Shared with the catalogue's processor."""
    if "graph_labels" not in files:
        wanted = files["A"].name[: -len("A.txt")] + "graph_labels.txt"
        raise ReadError(FMT, files["A"].parent, f"{wanted} (the graph classes)", "no such file")
    table = read_table(files["graph_labels"], FMT, "one class per graph")
    _rows(table, num_graphs, "graph")
    return _one_column(table, "one class per line")


def tu_edge_values(files: dict) -> dict:
    """The per-edge files left out: ``edge_labels``, ``edge_attributes`` (real values: ``weights``).
    Shared with the catalogue's processor."""
    out = {extra: True for extra in ("edge_labels", "edge_attributes") if extra in files}
    out["weights"] = "edge_attributes" in files
    return out


def node_label_onehot(files: dict, n: int) -> np.ndarray | None:
    """float32 ``[n, sum C_k]``: each column ``k`` of the node labels shifted to start at 0 and one-hot
    encoded over ``C_k = max + 1`` classes, the columns side by side (as PyG's ``read_tu_data``);
    None without a node-label file. Shared with the catalogue's processor."""
    if "node_labels" not in files:
        return None
    table = read_table(files["node_labels"], FMT, "node labels (integers)")
    _rows(table, n, "node")
    labels = table.values - table.values.min(axis=0)
    return np.concatenate([np.eye(int(column.max()) + 1, dtype=np.float32)[column] for column in labels.T], axis=1)


def _features(files: dict, n: int, pairs: np.ndarray) -> tuple[np.ndarray, str]:
    parts, said = [], []
    if "node_attributes" in files:
        table = read_table(files["node_attributes"], FMT, "node attributes (numbers)", integer=False)
        _rows(table, n, "node")
        parts.append(table.values.astype(np.float32))
        said.append(f"{table.width} node attribute(s)")
    onehot = node_label_onehot(files, n)
    if onehot is not None:
        parts.append(onehot)
        said.append(f"one-hot node labels ({onehot.shape[1]} columns)")
    if parts:
        return np.concatenate(parts, axis=1), " + ".join(said)
    # no features in the files: [1, log(1 + degree)], each undirected pair counted once
    return structural_features(n, pairs.reshape(-1)), "structural [1, log(1 + degree)] (no node labels or attributes)"


def read_tu(path: str | Path, family: str = "graph_cls") -> Bundle:
    """Read a TU graph collection (see the module docstring) for ``graph_cls`` or ``graph_reg``.

    ``path``: the folder holding ``<NAME>_A.txt`` (at any depth, e.g. ``raw/``) or that file.
    Regression targets come from ``_graph_attributes.txt`` (else ``_graph_labels.txt``).
    """
    if family not in ("graph_cls", "graph_reg"):
        raise ReadError(FMT, path, "family graph_cls or graph_reg (a TU file holds a graph collection)", family)
    name, files = tu_files(path)
    graph, node_ptr = tu_graphs(files)
    num_graphs = len(node_ptr) - 1
    records, dropped = tu_edges(files, graph)
    pairs = undirected_pairs(records.T)
    both = symmetric_edges(pairs)
    owner = graph[both[0]]
    edge_ptr = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=num_graphs))]).astype(np.int64)
    x, described = _features(files, graph.size, pairs)
    key = "graph_attributes" if family == "graph_reg" and "graph_attributes" in files else "graph_labels"
    if key not in files:
        raise ReadError(FMT, files["A"].parent, f"{name}_{key}.txt (the graph targets)", "no such file")
    table = read_table(files[key], FMT, "one target per graph" if family == "graph_reg" else "one class per graph",
                       integer=family != "graph_reg")
    _rows(table, num_graphs, "graph")
    mapping = None
    if family == "graph_reg":
        y, target = table.values.astype(np.float32), "regression"
    else:
        y, mapping = normalise_labels({"y": _one_column(table, "one class per line")}, "graph_cls")
        y, target = np.asarray(y["y"]), "class"
    arrays, counts = collection_arrays(x, both - node_ptr[owner], node_ptr, edge_ptr, y, target=target)
    dropped.update(tu_edge_values(files))
    used = [files[k] for k in ("A", "graph_indicator", key, "node_labels", "node_attributes") if k in files]
    notes = {"node_features": described}
    if mapping:
        notes["label_mapping"] = mapping
    return Bundle(arrays, counts, dropped, used, notes)
