"""Readers of network-science raw formats: each returns the edge *records* of one network.

Node ids are kept exactly as the file names them (Netzschleuder index, GML ``id``, KONECT/SNAP
id, matrix row, SocioPatterns badge id), with whether the file says the network is directed and
the size of the node list the format declares (if it declares one); :mod:`.networks` turns
records into the processed link-prediction bundle.

Large files (AS-Skitter: 11 M lines, DBLP: 19 M) are parsed in byte chunks
with numpy; no Python object is built per edge on the fast paths.

Formats (the ``format`` of a catalogue :class:`~netzbench.catalog.table.Source`):

``netzschleuder-csv``  ``edges.csv`` (``# source, target, ...``) and ``nodes.csv``
                       (``# index, name, ...``) from ``<net>.csv.zip``
``gml``                GML (Newman, Netzschleuder/graph-tool, networkx exports)
``konect``             KONECT ``out.<name>`` TSV (``%`` header, ``from to [weight [time]]``)
``ucinet-csv-matrix``  labelled CSV adjacency matrix (UCINET covert-networks CSV export)
``multiplex-edges``    CoMuNe-lab ``<name>_multiplex.edges`` (``layerID nodeID nodeID weight``)
``sociopatterns-tij``  SocioPatterns contact list ``t i j [...]``
``edgelist``           whitespace edge list (SNAP style; ``#``/``%`` comments; ``.gz`` read directly)
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from .edge_records import EdgeRecords
from .streaming import as_ids, chunks, open_binary, parse_numbers, read_columns, same_width


# ---------------------------------------------------------------------------
# Netzschleuder csv.zip


def _netz_header(line: bytes, path: Path) -> list[str]:
    text = line.decode("utf-8", "replace").strip()
    if not text.startswith("#"):
        raise ValueError(f"{path.name}: expected a '# ...' header line, got {text[:80]!r}")
    return [c.strip() for c in text[1:].split(",")]


def read_netzschleuder_csv(edges_path: Path, nodes_path: Path | None = None,
                           chunk_bytes: int | None = None) -> EdgeRecords:
    """Netzschleuder ``edges.csv`` (+ ``nodes.csv``) from ``<net>.csv.zip``.

    ``edges.csv`` starts with ``# source, target[, property ...]`` and holds
    one row per edge (repeated rows for multigraphs) with 0-based vertex
    indices; property values are CSV-quoted when they contain commas (vector
    properties such as ``"array([1.2, 3.4])"``). ``nodes.csv`` starts with
    ``# index, name, ...``; it gives the declared node count and a range
    check. The CSV does not record directedness (``directed`` is None).
    """
    edges_path = Path(edges_path)
    with open_binary(edges_path) as fh:
        header = _netz_header(fh.readline(), edges_path)
    if header[:2] != ["source", "target"]:
        raise ValueError(f"{edges_path.name}: header starts {header[:2]}, expected ['source', 'target']")
    width = len(header)
    parts: list[np.ndarray] = []
    fast = True
    first = True
    for chunk in chunks(edges_path, chunk_bytes):
        if first:
            chunk = chunk.split(b"\n", 1)[1] if b"\n" in chunk else b""
            first = False
        if not chunk.strip():
            continue
        values = None if b'"' in chunk else parse_numbers(chunk.replace(b"\n", b","), ",")
        lines = chunk.count(b"\n")
        if values is None or values.size != lines * width or not same_width(chunk, width, b","):
            fast = False  # quoted or text fields: reread the whole file with the csv module
            break
        parts.append(as_ids(values.reshape(lines, width)[:, :2], edges_path.name))
    if not fast:
        parts = []
        rows: list[tuple[int, int]] = []
        with open_binary(edges_path) as fh, io.TextIOWrapper(fh, encoding="utf-8", newline="") as text:
            reader = csv.reader(text)
            next(reader)
            for row in reader:
                if not row:
                    continue
                rows.append((int(row[0]), int(row[1])))
                if len(rows) >= 1 << 20:
                    parts.append(np.asarray(rows, dtype=np.int64))
                    rows = []
        if rows:
            parts.append(np.asarray(rows, dtype=np.int64))
    pairs = np.concatenate(parts) if parts else np.zeros((0, 2), dtype=np.int64)
    declared = None
    if nodes_path is not None:
        nodes_path = Path(nodes_path)
        with open_binary(nodes_path) as fh, io.TextIOWrapper(fh, encoding="utf-8", newline="") as text:
            reader = csv.reader(text)
            first_row = next(reader, None)
            if first_row is None or not first_row[0].lstrip().startswith("#"):
                raise ValueError(f"{nodes_path.name}: expected a '# index, ...' header line")
            if first_row[0].lstrip("# ").strip() != "index":
                raise ValueError(f"{nodes_path.name}: first column is {first_row[0]!r}, expected '# index'")
            declared = sum(1 for row in reader if row)
        if pairs.size and (pairs.min() < 0 or pairs.max() >= declared):
            raise ValueError(f"{edges_path.name}: vertex index outside 0..{declared - 1} of {nodes_path.name}")
    return EdgeRecords(pairs[:, 0].copy(), pairs[:, 1].copy(), None, declared)


# ---------------------------------------------------------------------------
# KONECT, edge lists, multiplex, SocioPatterns


def read_konect(path: Path, chunk_bytes: int | None = None) -> EdgeRecords:
    """KONECT ``out.<name>``: ``% sym|asym|bip <weights>``, optional ``% E N1 N2``, then ``from to ...``.

    ``asym`` networks are directed. In ``bip`` (two-mode) networks the two
    sides are numbered separately, so right-side ids are shifted past the
    left side (by N1 from the size line, else by the largest left id).
    """
    path = Path(path)
    header: list[list[bytes]] = []
    with open_binary(path) as fh:
        for line in fh:
            if not line.lstrip().startswith(b"%"):
                break
            header.append(line.lstrip()[1:].split())
    if not header or not header[0]:
        raise ValueError(f"{path.name}: no KONECT '% <structure> <weights>' header")
    structure = header[0][0].decode("ascii", "replace")
    if structure not in ("sym", "asym", "bip"):
        raise ValueError(f"{path.name}: unknown KONECT structure {structure!r}")
    sizes = header[1] if len(header) > 1 and all(t.isdigit() for t in header[1]) else []
    table = read_columns(path, (0, 1), b"%", chunk_bytes)
    src, dst = table[:, 0].copy(), table[:, 1].copy()
    declared = None
    if structure == "bip":
        shift = int(sizes[1]) if len(sizes) >= 3 else (int(src.max()) if src.size else 0)
        dst += shift
        if len(sizes) >= 3:
            declared = int(sizes[1]) + int(sizes[2])
    elif len(sizes) >= 2:
        declared = int(sizes[1])
    return EdgeRecords(src, dst, structure == "asym", declared)


def read_edgelist(path: Path, chunk_bytes: int | None = None) -> EdgeRecords:
    """Whitespace edge list ``u v [...]`` (SNAP, plain lists); ``#``/``%`` lines skipped; ``.gz`` ok."""
    table = read_columns(Path(path), (0, 1), b"#%", chunk_bytes)
    return EdgeRecords(table[:, 0].copy(), table[:, 1].copy(), None, None)


def read_multiplex_edges(path: Path) -> EdgeRecords:
    """CoMuNe-lab multiplex ``layerID nodeID nodeID weight``: layers aggregated.

    Node ids are shared across layers, so the aggregate is the union of the
    layers' edges: two nodes are linked if they are linked in any layer (an
    airport pair served by any airline, a station pair joined by any of
    tube/overground/DLR).
    """
    table = read_columns(Path(path), (1, 2), b"#%")
    return EdgeRecords(table[:, 0].copy(), table[:, 1].copy(), False, None)


def read_sociopatterns_tij(path: Path) -> EdgeRecords:
    """SocioPatterns ``t i j [Ci Cj]`` contact records (one per 20 s window of contact).

    Aggregated to the contact graph: ``i`` and ``j`` are linked if they were
    ever recorded in face-to-face proximity.
    """
    table = read_columns(Path(path), (1, 2), b"#%")
    return EdgeRecords(table[:, 0].copy(), table[:, 1].copy(), False, None)


# ---------------------------------------------------------------------------
# UCINET CSV adjacency matrix


def read_ucinet_csv_matrix(path: Path) -> EdgeRecords:
    """Labelled CSV adjacency matrix: a header row of names, then ``name,a_1,...,a_n`` rows.

    This is the CSV export of UCINET matrices (9/11 hijackers in the covert
    networks collection): UTF-8 with BOM, the corner cell empty, 0/1 (or
    weighted) cells, blank cells meaning no recorded tie. A nonzero cell
    ``(i, j)`` is a record ``i -> j``; node ids are row positions. Rows are
    positional as in UCINET: the mirror's file lists "Tarek Maaroufi" twice
    (rows 40 and 57, the latter with no incoming ties) and the two rows stay
    two nodes. The row labels must repeat the header labels in order. A
    matrix without labels (all numeric) is accepted too.
    """
    path = Path(path)
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = [r for r in csv.reader(fh) if any(c.strip() for c in r)]
    if not rows:
        raise ValueError(f"{path.name}: empty matrix")

    def number(cell: str) -> float:
        cell = cell.strip()
        return 0.0 if cell == "" else float(cell)

    def is_number(cell: str) -> bool:
        try:
            number(cell)
            return True
        except ValueError:
            return False

    labelled = not all(is_number(c) for c in rows[0])
    if labelled:
        names = [c.strip() for c in rows[0][1:]]
        body = rows[1:]
        if [r[0].strip() for r in body] != names:
            raise ValueError(f"{path.name}: row labels do not repeat the header labels in order")
        cells = [r[1:] for r in body]
    else:
        cells = rows
    n = len(cells)
    if any(len(r) != n for r in cells):
        raise ValueError(f"{path.name}: matrix is not square ({n} rows)")
    matrix = np.asarray([[number(c) for c in r] for r in cells], dtype=np.float64)
    src, dst = np.nonzero(matrix)
    return EdgeRecords(src.astype(np.int64), dst.astype(np.int64), None, n)
