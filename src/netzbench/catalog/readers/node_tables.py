"""An edge list plus a node table: node classification with the table's class and features.

Two release layouts, for ``node_cls`` (the class a column of the node
table) and ``link_pred`` (the edges only; the node table declares the nodes,
so an edge naming an unlisted id is caught and nodes without an edge are
counted as ``isolated_nodes``):

``musae``    MUSAE / FEATHER (Rozemberczki et al.: Twitch, Facebook page-page,
             GitHub, Deezer Europe, LastFM Asia, Wikipedia):
             ``<name>_edges.csv`` (a header such as ``node_1,node_2``,
             ``id_1,id_2`` or ``from,to``, one undirected edge per line),
             ``<name>_target.csv`` (the node table: ``id,target``,
             ``id,name,ml_target``, ``id,facebook_id,page_name,page_type``,
             Twitch's ``id,days,mature,views,partner,new_id``) and an optional
             ``<name>_features.json`` (``{"<id>": [feature index, ...]}``, a
             sparse bag of features). The node id is ``new_id`` where the
             table has one (Twitch: its ``id`` is the Twitch account number
             and the edges and features use ``new_id``), else ``id``. The
             table is read with :mod:`csv` (quoted page names with commas,
             UTF-8 with or without BOM, rows in any order).
``geomgcn``  Geom-GCN (Pei et al. 2020: WebKB Cornell/Texas/Wisconsin, Actor
             ``film``, Wikipedia chameleon/squirrel): ``out1_graph_edges.txt``
             (header ``node_id<TAB>node_id``, directed records) and
             ``out1_node_feature_label.txt`` (header
             ``node_id<TAB>feature<TAB>label``, the features packed in one
             comma-separated field). The field is a dense vector in WebKB
             (1703 values of 0/1) and the list of nonzero feature indices in
             ``film`` (``0<TAB>1,14,26<TAB>3``): read as indices when the
             values are whole numbers >= 0, each listed once per node, and
             the rows differ in length or hold a value above 1 (multi-hot over
             ``max index + 1`` columns, as PyG's ``Actor``); else as a dense
             vector, the same length on every line (a shorter row is an error
             at its line, not a list of indices). The class is the ``label``
             column (``label:`` may name another header column).

Features become ``arrays["x"]`` (float32): the multi-hot of
``features.json`` (column i = feature index i; a node the JSON omits has a
zero row) or the Geom-GCN field. The other columns of a MUSAE table (Twitch's
``days``, ``views``, ``partner``, Facebook's ``facebook_id``, names) are
*not* features: they are account metadata, not the release's feature set
(PyG's ``Twitch``/``GitHub``/``FacebookPagePage`` leave them out too); they
are listed in ``notes["unused_columns"]``. ``link_pred`` gets no ``x`` (as
for every network format: :mod:`.networks`). A dense ``x`` of more than
:data:`MAX_FEATURE_VALUES` values (2 GiB) is refused with its size (a bag
over tens of thousands of feature indices on as many nodes, as Deezer
Europe's, would take several GB as a dense matrix).

For ``node_cls`` every node of the table is kept, isolated ones too,
numbered by increasing id, with the unique undirected edges in both
directions (:func:`.network_bundles.labelled_bundle`); ``link_pred`` goes through
:func:`.networks.simple_bundle` and :func:`.networks.link_dropped` like the
other network formats. String classes are mapped to ``0..C-1`` in sorted
order. networkx is not used: its ``read_edgelist`` would take the CSV
header for an edge and keeps no isolated node; :mod:`csv`, :mod:`json` and
:func:`.files.read_table` give the line numbers the errors need.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .network_bundles import labelled_bundle
from .edge_records import EdgeRecords
from .streaming import parse_numbers
from .networks import link_dropped, simple_bundle
from .side_tables import classes, first_unknown, is_integer, unique_ids
from .files import Bundle, ReadError, Table, count_dropped, data_files, read_table, read_text

#: the formats read here, and the files each needs (what a user should provide)
TABLE_FILES = {
    "musae": "<name>_edges.csv and <name>_target.csv (MUSAE/FEATHER; optional <name>_features.json)",
    "geomgcn": "out1_graph_edges.txt and out1_node_feature_label.txt (Geom-GCN)",
}
TABLE_FORMATS = tuple(TABLE_FILES)
#: a dense ``x`` larger than this (nodes x features) is refused: 2 GiB of float32
MAX_FEATURE_VALUES = 1 << 29
_GEOM_EDGES, _GEOM_NODES = "out1_graph_edges.txt", "out1_node_feature_label.txt"


class _Read(NamedTuple):
    """What a layout's reader found: the edge table, the node ids (table order) with their classes
    (None for link_pred), ``x`` (rows by increasing id) or None, the files read (edges first, the node
    table second), notes, and whether the edge records are directed (None: the format does not say)."""

    edges: Table
    ids: np.ndarray
    labels: list | None
    x: np.ndarray | None
    files: list
    notes: dict
    directed: bool | None


# ---------------------------------------------------------------------------------- finding the files


def _pairs(path: Path, fmt: str) -> list[tuple[Path, Path]]:
    """``(edge file, node table)`` pairs under ``path`` (a folder, or either file of a pair)."""
    files = data_files(path) if path.is_dir() else [path]
    if fmt == "musae":
        ends = ("_edges.csv", "_target.csv")
        stems = {p.parent / p.name[: -len(e)] for p in files for e in ends if p.name.endswith(e)}
    else:
        stems = {p.parent / "out1_" for p in files if p.name in (_GEOM_EDGES, _GEOM_NODES)}
        ends = (_GEOM_EDGES[5:], _GEOM_NODES[5:])
    pairs = [(Path(f"{s}{ends[0]}"), Path(f"{s}{ends[1]}")) for s in sorted(stems)]
    return [(e, n) for e, n in pairs if e.is_file() and n.is_file()]


def finds(path: str | Path, fmt: str) -> bool:
    """Whether ``path`` holds the two files of ``fmt`` (by their names)."""
    return bool(_pairs(Path(path), fmt))


def table_files(path: str | Path, fmt: str) -> tuple[Path, Path]:
    """The edge file and node table of ``fmt`` under ``path``; a :class:`ReadError` unless one pair."""
    path = Path(path)
    pairs = _pairs(path, fmt)
    if len(pairs) == 1:
        return pairs[0]
    if not pairs:
        listing = ", ".join(p.name for p in data_files(path)[:12]) or "no data files"
        raise ReadError(fmt, path, TABLE_FILES[fmt], f"no such pair ({listing})")
    raise ReadError(fmt, path, f"one pair of {TABLE_FILES[fmt]}", f"{len(pairs)}: "
                    f"{', '.join(str(e.relative_to(path)) for e, _ in pairs[:6])} (point `path:` at one folder)")


# ---------------------------------------------------------------------------------- MUSAE


def _musae_table(file: Path) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and ``(line, cells)`` rows of a ``<name>_target.csv``."""
    reader = csv.reader(io.StringIO(read_text(file).decode("utf-8-sig")))
    header = [c.strip() for c in next(reader, [])]
    if not header or all(is_integer(c) for c in header):
        raise ReadError("musae", file, "a header line naming the columns ('id,target', ...)",
                        ",".join(header) if header else "an empty file", 1)
    rows = []
    for cells in reader:
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            raise ReadError("musae", file, f"{len(header)} comma-separated fields per line, as the header",
                            ",".join(cells), reader.line_num)
        rows.append((reader.line_num, [c.strip() for c in cells]))
    return header, rows


def _musae_features(file: Path, ids: np.ndarray) -> tuple[np.ndarray, int]:
    """Multi-hot ``x`` (rows in the order of ``ids``) of a ``features.json``, and how many nodes it omits."""
    text = read_text(file).decode("utf-8-sig")
    try:
        bags = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReadError("musae", file, "a JSON object id -> list of feature indices", exc.msg, exc.lineno) from None

    def fail(key, what, found):
        m = re.search(r'"' + re.escape(str(key)) + r'"\s*:', text)
        raise ReadError("musae", file, what, found, text.count("\n", 0, m.start()) + 1 if m else None)

    if not isinstance(bags, dict):
        raise ReadError("musae", file, "a JSON object id -> list of feature indices", type(bags).__name__, 1)
    rows, cols = [], []
    for key, bag in bags.items():
        if not is_integer(key):
            fail(key, "node ids as keys", key)
        row = int(np.searchsorted(ids, int(key)))
        if row == ids.size or ids[row] != int(key):
            fail(key, "node ids of the node table as keys", key)
        if not isinstance(bag, list) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                                for v in bag):
            fail(key, "a list of feature indices (integers >= 0) per node", f"{key}: {json.dumps(bag)[:60]}")
        rows += [row] * len(bag)
        cols += bag
    width = max(cols) + 1 if cols else 0
    x = _dense(file, "musae", ids.size, width)
    x[np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)] = 1.0
    return x, int(ids.size - np.unique(np.asarray([int(k) for k in bags], dtype=np.int64)).size)


def _dense(file: Path, fmt: str, rows: int, width: int) -> np.ndarray:
    if rows * width > MAX_FEATURE_VALUES:
        raise ReadError(fmt, file, f"node features that fit a dense x (at most {MAX_FEATURE_VALUES} values)",
                        f"{rows} nodes x {width} features")
    return np.zeros((rows, width), dtype=np.float32)


def _read_musae(path: Path, family: str, label: str | None) -> _Read:
    edges_file, target = table_files(path, "musae")
    header, rows = _musae_table(target)
    id_col = "new_id" if "new_id" in header else "id"
    if id_col not in header:
        raise ReadError("musae", target, "a node id column 'id' (or Twitch's 'new_id')", f"columns {header}", 1)
    k = header.index(id_col)
    for number, cells in rows:
        if not is_integer(cells[k]):
            raise ReadError("musae", target, f"an integer node id in column {id_col!r}", ",".join(cells), number)
    ids = unique_ids([int(c[k]) for _, c in rows], [n for n, _ in rows], "musae", target,
                     [",".join(c) for _, c in rows])
    notes = {"node_ids": f"column {id_col!r} of {target.name}"}
    node_cls = family == "node_cls"
    if node_cls:
        if label is None or label not in header or label == id_col:
            others = [h for h in header if h != id_col]
            raise ReadError("musae", target, f"`label:` naming the class column (one of {others})",
                            f"label {label!r}" if label else "no label", 1)
        c = header.index(label)
        empty = next(((n, cells) for n, cells in rows if not cells[c]), None)
        if empty:
            raise ReadError("musae", target, f"a class in column {label!r} on every line", ",".join(empty[1]),
                            empty[0])
        notes["label"] = label
        notes["unused_columns"] = [h for h in header if h not in (id_col, label)]
        labels = classes([cells[c] for _, cells in rows])
    table = read_table(edges_file, "musae", "an edge 'node_1,node_2' per line", columns=2, header="auto")
    files = [edges_file, target]
    x = None
    features = target.with_name(target.name[: -len("_target.csv")] + "_features.json")
    if node_cls and features.is_file():
        order = np.sort(ids)
        x, omitted = _musae_features(features, order)
        files.append(features)
        notes["node_features"] = f"multi-hot of {features.name} ({x.shape[1]} columns: feature index i -> column i)"
        if omitted:
            notes["nodes_without_features"] = omitted
    elif node_cls:
        notes["node_features"] = f"none (no {features.name}; training uses structural features)"
    return _Read(table, ids, labels if node_cls else None, x, files, notes, None)


# ---------------------------------------------------------------------------------- Geom-GCN


def _geom_nodes(file: Path, label: str | None) -> tuple[list[int], list, list[tuple[int, str, np.ndarray]], str]:
    """Ids, classes and ``(line, text, feature values)`` rows of ``out1_node_feature_label.txt``."""
    lines = read_text(file).decode("utf-8-sig").split("\n")
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None:
        raise ReadError("geomgcn", file, "one 'node_id<TAB>feature<TAB>label' line per node", "an empty file")
    header = [f.strip() for f in lines[first].split("\t")]
    names = ["node_id", "feature", "label"] if is_integer(header[0]) else header  # headerless: by position
    skip = 0 if is_integer(header[0]) else 1
    want = label or "label"
    if want not in names[2:]:
        raise ReadError("geomgcn", file, f"a class column {want!r} after node_id and feature", f"columns {names}",
                        first + 1)
    col = names.index(want)
    ids, cells, rows = [], [], []
    for number, raw in enumerate(lines[first + skip:], first + 1 + skip):
        if not raw.strip():
            continue
        fields = raw.rstrip("\r").split("\t")
        text = raw.strip()
        if len(fields) != len(names) or not is_integer(fields[0]) or not fields[col].strip():
            raise ReadError("geomgcn", file, f"'{'<TAB>'.join(names)}' ({len(names)} TAB-separated fields, an "
                            "integer id, a class)", text, number)
        values = parse_numbers(fields[1].replace(",", " ").encode(), " ") if fields[1].strip() else np.zeros(0)
        if values is None:
            raise ReadError("geomgcn", file, "comma-separated numbers in the feature field", text, number)
        ids.append(int(fields[0]))
        cells.append(fields[col].strip())
        rows.append((number, text, values))
    if not rows:
        raise ReadError("geomgcn", file, "one 'node_id<TAB>feature<TAB>label' line per node", "no node lines")
    return ids, classes(cells), rows, names[col]


def _geom_features(file: Path, rows: list, order: np.ndarray) -> tuple[np.ndarray, str]:
    """``x`` (rows in ``order``) from the packed feature fields, dense or as indices (module docstring)."""
    lengths = {v.size for _, _, v in rows}
    every = np.concatenate([v for _, _, v in rows])
    indices = bool(every.size) and bool(np.all(every >= 0)) and bool(np.all(every == np.round(every)))
    # indices: whole numbers, each listed once per node, and not a same-length 0/1 vector
    indices = indices and (len(lengths) > 1 or every.max() > 1) and all(np.unique(v).size == v.size
                                                                        for _, _, v in rows)
    if not indices:
        width = rows[0][2].size
        bad = next((r for r in rows if r[2].size != width), None)
        if bad is not None:  # a dense vector with a row of another length
            raise ReadError("geomgcn", file, f"a feature vector of {width} values (as on line {rows[0][0]}) or "
                            "distinct feature indices", bad[1], bad[0])
        x = np.stack([v for _, _, v in rows]).astype(np.float32)[order]
        return x, f"dense vector of the feature field ({x.shape[1]} columns)"
    x = _dense(file, "geomgcn", len(rows), int(every.max()) + 1)
    for i, (_, _, v) in enumerate(rows[j] for j in order):
        x[i, v.astype(np.int64)] = 1.0
    return x, f"multi-hot of the feature indices listed per node ({x.shape[1]} columns: index i -> column i)"


def _read_geomgcn(path: Path, family: str, label: str | None) -> _Read:
    edges_file, nodes = table_files(path, "geomgcn")
    node_ids, labels, rows, name = _geom_nodes(nodes, label)
    ids = unique_ids(node_ids, [r[0] for r in rows], "geomgcn", nodes, [r[1] for r in rows])
    table = read_table(edges_file, "geomgcn", "an edge 'node_id<TAB>node_id' per line", columns=2, header="auto")
    notes, x = {}, None
    if family == "node_cls":
        x, notes["node_features"] = _geom_features(nodes, rows, np.argsort(ids, kind="stable"))
        notes["label"] = name
    return _Read(table, ids, labels, x, [edges_file, nodes], notes, True)  # Geom-GCN records are directed


# ---------------------------------------------------------------------------------- the bundle


def read_node_table(path: str | Path, fmt: str, family: str = "node_cls", label: str | None = None) -> Bundle:
    """Read ``fmt`` (``musae`` or ``geomgcn``: module docstring) under ``path`` for ``family``."""
    path = Path(path)
    if family not in ("node_cls", "link_pred"):
        raise ReadError(fmt, path, "family node_cls or link_pred", family)
    reader = _read_musae if fmt == "musae" else _read_geomgcn
    table, ids, labels, x, files, notes, directed = reader(path, family, label)
    records = EdgeRecords(table.values[:, 0].copy(), table.values[:, 1].copy(), directed, int(ids.size))
    bad = first_unknown(ids, records)
    if bad is not None:
        table.fail(bad, f"node ids listed in {files[1].name}")
    if table.header:
        notes["header"] = table.header
    if family == "link_pred":
        try:
            arrays, counts = simple_bundle(records, bool(directed))
        except ValueError as exc:
            raise ReadError(fmt, files[0], "edges between distinct nodes", str(exc)) from None
        notes["node_table"] = f"{files[1].name} declares the nodes (features and classes are not used)"
        return Bundle(arrays, counts, link_dropped(records, {}, counts["num_nodes"]), files[:2], notes)
    arrays, counts, mapping = labelled_bundle(ids, labels, records)
    if x is not None:
        arrays["x"] = x
        counts["num_features"] = int(x.shape[1])
    if mapping:
        notes["label_mapping"] = mapping
    return Bundle(arrays, counts, count_dropped(records.src, records.dst), files, notes)


def read_musae(path: str | Path, family: str = "node_cls", label: str | None = None) -> Bundle:
    """A MUSAE/FEATHER ``<name>_edges.csv`` + ``<name>_target.csv`` (+ ``_features.json``) release."""
    return read_node_table(path, "musae", family, label)


def read_geomgcn(path: str | Path, family: str = "node_cls", label: str | None = None) -> Bundle:
    """A Geom-GCN ``out1_graph_edges.txt`` + ``out1_node_feature_label.txt`` folder."""
    return read_node_table(path, "geomgcn", family, label)
