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
import functools
import io
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator

import numpy as np

from .limits import check, open_bounded

#: Bytes read per chunk by the streaming parsers.
CHUNK_BYTES = 16 << 20


@dataclass
class EdgeRecords:
    """The edge records of one network, ids as in the file."""

    src: np.ndarray  # int64 [m]
    dst: np.ndarray  # int64 [m]
    directed: bool | None = None  # None: the format does not say
    declared_nodes: int | None = None  # size of the node list the format declares


# ---------------------------------------------------------------------------
# streaming helpers


def _open_binary(path: Path, lines: bool = True) -> BinaryIO:
    """``path`` for binary reading (``.gz``/``.bz2`` decompressed), bounded by the caps of :mod:`.limits`
    (``lines``: the line cap too, for line-based formats)."""
    return open_bounded(path, lines)


def _chunks(path: Path, size: int | None = None) -> Iterator[bytes]:
    """The file's bytes in pieces that end at a line end (the last one gets a newline)."""
    size = size or CHUNK_BYTES
    rest = b""
    with _open_binary(path) as fh:
        while True:
            block = fh.read(size)
            if not block:
                break
            block = rest + block
            cut = block.rfind(b"\n")
            if cut < 0:
                rest = block
                continue
            rest = block[cut + 1 :]
            yield block[: cut + 1]
    if rest.strip():
        yield rest + b"\n"


def _parse_numbers(text: bytes, sep: str) -> np.ndarray | None:
    """All numbers in ``text`` (float64), or None if something is not a number."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return np.fromstring(text, dtype=np.float64, sep=sep)
        except (ValueError, DeprecationWarning):
            return None


_BLANK = np.zeros(256, dtype=bool)
_BLANK[[9, 10, 13, 32]] = True


def _same_width(chunk: bytes, width: int, sep: bytes) -> bool:
    """Whether every line of ``chunk`` (ending in a newline) has ``width`` fields, checked with numpy.

    ``sep`` is ``b" "`` (runs of blanks separate fields) or ``b","``. Guards
    the bulk parse against ragged lines whose total count happens to fit.
    """
    b = np.frombuffer(chunk, dtype=np.uint8)
    ends = np.flatnonzero(b == 10)
    if sep == b",":
        marks = np.flatnonzero(b == 44)
        extra = 1  # fields = commas + 1
    else:
        blank = _BLANK[b]
        marks = np.flatnonzero(~blank[1:] & blank[:-1]) + 1  # a field starts after a blank
        if b.size and not blank[0]:
            marks = np.concatenate([[0], marks])
        extra = 0
    per_line = np.diff(np.searchsorted(marks, ends), prepend=0) + extra
    return bool((per_line == width).all())


def _as_ids(values: np.ndarray, what: str) -> np.ndarray:
    ids = values.astype(np.int64)
    if not np.array_equal(ids, values):
        raise ValueError(f"{what}: node ids must be integers")
    return ids


def _strip_comments(chunk: bytes, comments: bytes) -> bytes:
    """Drop blank lines and lines whose first non-blank byte is a comment character."""
    prefixes = tuple(bytes([c]) for c in comments)
    if not any(p in chunk for p in prefixes) and b"\n\n" not in chunk:
        return chunk
    keep = [ln for ln in chunk.split(b"\n") if ln.strip() and not ln.lstrip().startswith(prefixes)]
    return b"\n".join(keep) + b"\n" if keep else b""


def read_columns(path: Path, cols: tuple[int, ...] = (0, 1), comments: bytes = b"%#",
                 chunk_bytes: int | None = None) -> np.ndarray:
    """Integer columns ``cols`` of a whitespace-separated table, streamed in chunks.

    Lines whose first non-blank character is in ``comments`` are skipped. The
    fast path parses a whole chunk with numpy when every line has the same
    number of numeric fields; otherwise (ragged lines, text columns such as
    SocioPatterns class labels) that chunk is parsed line by line.
    """
    parts: list[np.ndarray] = []
    width: int | None = None
    need = max(cols) + 1
    for chunk in _chunks(path, chunk_bytes):
        chunk = _strip_comments(chunk, comments)
        if not chunk.strip():
            continue
        if width is None:
            width = len(chunk.split(b"\n", 1)[0].split())
        values = _parse_numbers(chunk, " ")
        lines = chunk.count(b"\n")
        if (values is not None and width >= need and values.size == lines * width
                and _same_width(chunk, width, b" ")):
            table = values.reshape(lines, width)[:, list(cols)]
        else:
            rows = []
            for ln in chunk.split(b"\n"):
                fields = ln.split()
                if not fields:
                    continue
                if len(fields) < need:
                    raise ValueError(f"{Path(path).name}: line {ln[:80]!r} has fewer than {need} columns")
                rows.append([float(fields[c]) for c in cols])
            table = np.asarray(rows, dtype=np.float64).reshape(-1, len(cols))
        parts.append(_as_ids(table, Path(path).name))
    if not parts:
        return np.zeros((0, len(cols)), dtype=np.int64)
    return np.concatenate(parts)


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
    with _open_binary(edges_path) as fh:
        header = _netz_header(fh.readline(), edges_path)
    if header[:2] != ["source", "target"]:
        raise ValueError(f"{edges_path.name}: header starts {header[:2]}, expected ['source', 'target']")
    width = len(header)
    parts: list[np.ndarray] = []
    fast = True
    first = True
    for chunk in _chunks(edges_path, chunk_bytes):
        if first:
            chunk = chunk.split(b"\n", 1)[1] if b"\n" in chunk else b""
            first = False
        if not chunk.strip():
            continue
        values = None if b'"' in chunk else _parse_numbers(chunk.replace(b"\n", b","), ",")
        lines = chunk.count(b"\n")
        if values is None or values.size != lines * width or not _same_width(chunk, width, b","):
            fast = False  # quoted or text fields: reread the whole file with the csv module
            break
        parts.append(_as_ids(values.reshape(lines, width)[:, :2], edges_path.name))
    if not fast:
        parts = []
        rows: list[tuple[int, int]] = []
        with _open_binary(edges_path) as fh, io.TextIOWrapper(fh, encoding="utf-8", newline="") as text:
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
        with _open_binary(nodes_path) as fh, io.TextIOWrapper(fh, encoding="utf-8", newline="") as text:
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
# GML

_GML_TOKEN = re.compile(rb'(\[)|(\])|"([^"]*)"|(#[^\n]*)|([^\s\[\]"]+)|(")')


def _at(data: bytes, match: re.Match) -> str:
    line = data.count(b"\n", 0, match.start()) + 1
    return f" at line {line}"


def _gml_tree(data: bytes) -> list:
    """GML as nested ``[(key, value), ...]`` lists (values: bytes or lists).

    A small tokenizer instead of networkx.read_gml: the real files mix UTF-8
    (Netzschleuder exports) and ASCII with HTML entities (Newman), carry
    duplicate or missing labels, and ``multigraph``/``directed`` flags that
    networkx turns into errors; only the structure is needed here, and the
    structure is plain ASCII whatever the string encoding.
    """
    root: list = []
    stack = [root]
    key: bytes | None = None
    for m in _GML_TOKEN.finditer(data):
        open_, close, string, comment, word, stray = m.groups()
        if comment is not None:
            continue
        if stray is not None:
            raise ValueError(f"GML: unterminated string{_at(data, m)}")
        if open_ is not None:
            if key is None:
                raise ValueError(f"GML: '[' without a key{_at(data, m)}")
            child: list = []
            stack[-1].append((key, child))
            stack.append(child)
            key = None
        elif close is not None:
            if key is not None or len(stack) == 1:
                raise ValueError(f"GML: unbalanced ']'{_at(data, m)}")
            stack.pop()
        elif key is None:
            if word is None:
                raise ValueError(f"GML: a string where a key was expected{_at(data, m)}")
            key = word
        else:
            stack[-1].append((key, string if string is not None else word))
            key = None
    if len(stack) != 1 or key is not None:
        raise ValueError("GML: unexpected end of file (unbalanced '[')")
    return root


def gml_file_tree(path: Path) -> list:
    """:func:`_gml_tree` of the file at ``path``, parsed once per process while the file is unchanged (a fetch
    reads the records and then the edge attributes of the same file; the tree is only read, never changed)."""
    stat = Path(path).stat()
    return _gml_file_tree(str(Path(path).resolve()), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=2)
def _gml_file_tree(path: str, _mtime_ns: int, _size: int) -> list:
    with _open_binary(Path(path), lines=False) as fh:  # the input cap
        return _gml_tree(fh.read())


def _gml_int(value, what: str) -> int:
    if isinstance(value, list):
        raise ValueError(f"GML: {what} is a list")
    try:
        return int(value)
    except ValueError:
        number = float(value)
        if number != int(number):
            raise ValueError(f"GML: {what} {value!r} is not an integer") from None
        return int(number)


def read_gml(path: Path) -> EdgeRecords:
    """A GML graph: node ``id``s, edge ``source``/``target``, the ``directed`` flag.

    Node ids must be unique integers; labels and every other attribute are
    ignored (Netzschleuder exports carry ``_pos`` layouts, Newman's files
    ``label``/``value``). ``directed`` defaults to 0 as in the GML spec;
    ``multigraph 1`` needs no handling since records are collapsed later.
    """
    tree = gml_file_tree(path)
    graph = next((v for k, v in tree if k == b"graph" and isinstance(v, list)), None)
    if graph is None:
        raise ValueError(f"{Path(path).name}: no 'graph [ ... ]' block")
    directed = False
    ids: list[int] = []
    src: list[int] = []
    dst: list[int] = []
    for k, v in graph:
        if k == b"directed":
            directed = bool(_gml_int(v, "directed"))
        elif k == b"node" and isinstance(v, list):
            node_id = next((x for kk, x in v if kk == b"id"), None)
            if node_id is None:
                raise ValueError(f"{Path(path).name}: a node has no id")
            ids.append(_gml_int(node_id, "node id"))
        elif k == b"edge" and isinstance(v, list):
            attrs = dict((kk, x) for kk, x in v if kk in (b"source", b"target"))
            if len(attrs) != 2:
                raise ValueError(f"{Path(path).name}: an edge lacks source or target")
            src.append(_gml_int(attrs[b"source"], "edge source"))
            dst.append(_gml_int(attrs[b"target"], "edge target"))
    node_ids = np.asarray(ids, dtype=np.int64)
    if np.unique(node_ids).size != node_ids.size:
        raise ValueError(f"{Path(path).name}: duplicate node ids")
    s, d = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    if s.size and not np.isin(np.concatenate([s, d]), node_ids).all():
        raise ValueError(f"{Path(path).name}: an edge names a node id that is not declared")
    return EdgeRecords(s, d, directed, int(node_ids.size))


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
    with _open_binary(path) as fh:
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
