"""Node tables beside a network's edge file: where ``label:`` finds the class of each node.

For ``node_cls`` from a format whose edge file carries no node attributes,
the class comes from the node table the release ships beside it
(:func:`side_labels`, called by :func:`.network_bundles.read_network`):

``multiplex``      CoMuNe lab ``<name>_nodes.txt`` beside ``<name>_multiplex.edges``:
                   a header line (``nodeID nodeLabel nodeLong nodeLat``,
                   ``nodeID nodeLabel city``, ...), then one node per line,
                   blank separated; ``label`` names a header column. The first
                   column is the node id. A row with more fields than the
                   header (a name with blanks) is accepted only when the class
                   is the last column: its trailing fields are joined with one
                   blank. Coordinates and the other columns are not used:
                   no ``x`` is written (training uses structural features).
``sociopatterns``  ``metadata_<name>.dat`` (or ``.txt``) beside ``tij_<name>.dat``:
                   no header, TAB (or blank) separated, ``id class [gender]``
                   (``1558\\t2BIO1\\tF``; the hospital ward's ``id status``).
                   Headerless columns are named by position, ``column1``,
                   ``column2``, ...; the column right after the id is also
                   named ``class`` (whatever the study calls it: class,
                   status, department). The id column is the first integer
                   column that holds every id of the contact list, so a
                   copy with a leading 0-based row index (``0\\t1098\\tADM``,
                   the face2face re-export) reads the same as the original.

Every node of the table is kept, also one without a contact or edge
(numbered by increasing id with the rest); an edge naming an id that the
table lacks is a :class:`ReadError` at that line of the edge file; the id
column read is recorded (``notes["node_ids"]``) and the table's sha256 goes
into ``meta.json`` with the edge file's. Classes
that are all integers stay integers, others are text (``"NaN"`` included:
it is a class, as in the high-school study's gender column), then mapped
to ``0..C-1`` in sorted order (:func:`~netzbench.catalog.checks.normalise_labels`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .edge_records import EdgeRecords
from .files import ReadError, is_comment, data_files, read_text

#: formats whose class comes from a node table beside the edge file
SIDE_TABLES = ("multiplex", "sociopatterns")


def is_integer(text: str) -> bool:
    return text.strip().lstrip("+-").isdigit()


def classes(cells: list[str]) -> list:
    """The class of each node: integers when every cell is one, else the text as written."""
    return [int(c) for c in cells] if all(is_integer(c) for c in cells) else list(cells)


def record_line(file: Path, row: int, comments: bytes = b"#%", header: bool = False) -> tuple[int, str]:
    """``(line number, text)`` of data row ``row`` of ``file`` (blank and comment lines skipped)."""
    seen = -2 if header else -1
    for number, raw in enumerate(read_text(file).split(b"\n"), 1):
        if is_comment(raw, comments):
            continue
        seen += 1
        if seen == row:
            return number, raw.decode("utf-8", "replace").strip()
    raise IndexError(f"{file.name} has no data row {row}")


def first_unknown(ids: np.ndarray, records: EdgeRecords) -> int | None:
    """The first edge record naming an id that is not in ``ids`` (its row), or None."""
    bad = ~np.isin(records.src, ids) | ~np.isin(records.dst, ids)
    return int(np.flatnonzero(bad)[0]) if bad.any() else None


def unique_ids(ids: list[int], lines: list[int], fmt: str, file: Path, texts: list[str]) -> np.ndarray:
    """``ids`` as an array; a :class:`ReadError` at the line of the first id listed twice."""
    seen: set[int] = set()
    for i, node in enumerate(ids):
        if node in seen:
            raise ReadError(fmt, file, "each node id once", texts[i], lines[i])
        seen.add(node)
    return np.asarray(ids, dtype=np.int64)


def _rows(file: Path, fmt: str, tabs: bool) -> list[tuple[int, str, list[str]]]:
    """``(line, text, fields)`` of each data line (blank and ``#``/``%`` lines skipped)."""
    out = []
    for number, raw in enumerate(read_text(file).decode("utf-8-sig", "replace").split("\n"), 1):
        if not raw.strip() or raw.lstrip()[:1] in "#%":
            continue
        fields = [f.strip() for f in raw.split("\t")] if tabs and "\t" in raw else raw.split()
        out.append((number, raw.strip(), fields))
    if not out:
        raise ReadError(fmt, file, "one node per line", "an empty file (no data lines)")
    return out


def _beside(edges: Path, fmt: str, named: str, prefix: str, suffix: str, want: str) -> Path:
    """The node table of ``edges``: the file starting ``named`` (and ending ``suffix``) if there is one,
    else the one ``prefix*suffix`` file in the same folder (``want`` says which, for the error)."""
    here = [p for p in data_files(edges.parent) if p.parent == edges.parent and p != edges
            and p.name.endswith(suffix)]
    for start in ((named, prefix) if named else (prefix,)):
        found = [p for p in here if p.name.startswith(start)]
        if len(found) == 1:
            return found[0]
    want = f"{want} beside {edges.name} (the node table with the class)"
    raise ReadError(fmt, edges.parent, want, f"{len(found)} such files: {', '.join(p.name for p in found[:6])}"
                    if found else "no such file")


def _column(names: list[str], label: str, fmt: str, file: Path, line: int) -> int:
    if label not in names:
        shown = [n for n in names if n]
        raise ReadError(fmt, file, f"a column {label!r} (the class)", f"columns {shown}", line)
    return names.index(label)


def _multiplex(edges: Path, label: str) -> tuple[Path, list, int, int]:
    """``(table, rows, id column, class column)`` of a CoMuNe ``<name>_nodes.txt``."""
    stem = edges.name[: -len("_multiplex.edges")] if edges.name.endswith("_multiplex.edges") else ""
    table = _beside(edges, "multiplex", stem, "", "_nodes.txt", f"{stem or '<name>'}_nodes.txt")
    rows = _rows(table, "multiplex", tabs=False)
    line, _, header = rows[0]
    if is_integer(header[0]):
        raise ReadError("multiplex", table, "a header line naming the columns ('nodeID nodeLabel ...')",
                        rows[0][1], line)
    col = _column(header, label, "multiplex", table, line)
    body = []
    for number, text, fields in rows[1:]:
        if len(fields) > len(header) and col == len(header) - 1:
            fields = fields[:col] + [" ".join(fields[col:])]  # a last-column name with blanks
        if len(fields) != len(header):
            raise ReadError("multiplex", table, f"{len(header)} blank-separated fields per line, as the header "
                            f"({' '.join(header)})", text, number)
        body.append((number, text, fields))
    return table, body, 0, col


def _sociopatterns(edges: Path, label: str, records: EdgeRecords) -> tuple[Path, list, int, int]:
    """``(table, rows, id column, class column)`` of a SocioPatterns ``metadata_<name>.dat``."""
    stem = edges.name[len("tij_"):].split(".")[0] if edges.name.startswith("tij_") else ""
    table = _beside(edges, "sociopatterns", f"metadata_{stem}." if stem else "", "metadata", "",
                    f"metadata_{stem or '<name>'}.dat")
    rows = _rows(table, "sociopatterns", tabs=True)
    width = min(len(f) for _, _, f in rows)
    integer = [c for c in range(width) if all(is_integer(f[c]) for _, _, f in rows)]
    if not integer:
        raise ReadError("sociopatterns", table, "an integer id column (no header line)", rows[0][1], rows[0][0])
    wanted = np.unique(np.concatenate([records.src, records.dst]))
    ids = next((c for c in integer if np.isin(wanted, [int(f[c]) for _, _, f in rows]).all()), integer[0])
    names = [f"column{k + 1}" for k in range(max(len(f) for _, _, f in rows))]
    col = ids + 1 if label == "class" else _column(["class", *names], label, "sociopatterns", table, None) - 1
    if col == ids:
        raise ReadError("sociopatterns", table, "a class column other than the node id", f"label {label!r}")
    for number, text, fields in rows:
        if len(fields) <= col or not fields[col]:
            raise ReadError("sociopatterns", table, f"a class in column {col + 1} on every line", text, number)
    return table, rows, ids, col


def side_labels(edges: Path, fmt: str, label: str, records: EdgeRecords) -> tuple[np.ndarray, list, Path, str]:
    """``(node ids, class of each, the node table read, where the ids are)`` for ``node_cls`` from ``fmt``
    (module docstring); a :class:`ReadError` at the edge file's line naming an id the table lacks."""
    edges = Path(edges)
    if fmt == "multiplex":
        table, rows, id_col, col = _multiplex(edges, label)
    else:
        table, rows, id_col, col = _sociopatterns(edges, label, records)
    lines, texts = [r[0] for r in rows], [r[1] for r in rows]
    for number, text, fields in rows:
        if not is_integer(fields[id_col]):
            raise ReadError(fmt, table, f"an integer node id in column {id_col + 1}", text, number)
    ids = unique_ids([int(r[2][id_col]) for r in rows], lines, fmt, table, texts)
    bad = first_unknown(ids, records)
    if bad is not None:
        number, text = record_line(edges, bad)
        raise ReadError(fmt, edges, f"node ids listed in {table.name}", text, number)
    where = f"column {id_col + 1} of {table.name} (every node listed there kept)"
    return ids, classes([r[2][col] for r in rows]), table, where
