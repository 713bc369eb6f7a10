"""UCINET DL files (UCINET's native text format, often saved as ``.dat`` or ``.txt``) as edge records.

A DL file is recognised by its content: its first word is ``DL`` (any case),
whatever the file's suffix (:func:`is_dl`). Read here (the UCINET 6 "DL"
help, :func:`read_ucinet_dl`):

- a header (:mod:`.ucinet_dl_header`) of keywords in any order, on one or several lines (several on
  a line), any case, separated by blanks or commas, the ``=`` optional
  (``FORMAT = FULLMATRIX DIAGONAL PRESENT`` is two keywords): ``N = 5``
  (one-mode), or ``NR = 3, NC = 4`` (two-mode: the rows and the columns are
  two node sets, the column nodes numbered after the row nodes), ``NM = 2``
  (stacked matrices, one per relation or level), ``FORMAT = ...``,
  ``DIAGONAL = PRESENT|ABSENT``; lines may end in CRLF;
- ``FORMAT``: ``FULLMATRIX`` (the default), ``LOWERHALF`` and ``UPPERHALF``
  (one-mode; with ``DIAGONAL = ABSENT`` the diagonal cells are left out,
  and so is the row that would be empty), ``EDGELIST1`` (``i j [w]`` per
  line) and ``NODELIST1`` (``i j k ...``: ``i`` tied to each of ``j k ...``),
  ``EDGELIST2``/``NODELIST2`` their two-mode forms (``NR``/``NC``; a two-mode
  header reads ``EDGELIST1``/``NODELIST1`` the same way); nodes named by
  1-based numbers or by their labels; UCINET's short names (``FM``, ``LH``,
  ``UH``, ``EL1``, ``EL2``, ``NL1``, ``NL2``) too;
- labels: ``LABELS:`` (one-mode), ``ROW LABELS:``, ``COLUMN LABELS:`` (or
  ``COL``), ``LEVEL LABELS:`` (or ``MATRIX LABELS:``, one per matrix), the
  labels separated by commas, blanks or line ends, quoted with ``"`` when
  they hold blanks or commas; their number must be N (NR, NC, NM); ``LABELS
  EMBEDDED`` (also ``ROW``/``COLUMN LABELS EMBEDDED``): in a matrix, a line
  of column labels before the rows (before the first matrix; repeated
  before the others or not) and the row label first on each row; in an
  edge or node list, the nodes named by labels, numbered in the order they
  first appear; ``LEVEL LABELS EMBEDDED`` (matrices): each matrix's label on
  a line of its own before it;
- ``DATA:``, then the matrices one after another (a matrix row per line,
  values separated by blanks or commas); edge and node lists of several
  matrices are separated by lines holding ``!`` (or given as one list: the
  network is their union either way).

Node ids are positions (0-based: row ``i`` of the matrix is node ``i - 1``).
A nonzero cell ``(i, j)`` (an edge-list line with a nonzero ``w``) is a
record ``i -> j``: a symmetric full matrix gives each tie twice (``i -> j``
and ``j -> i``, the same undirected edge), a half matrix once; diagonal
cells are self-loops. The stacked matrices are layers: each record keeps
the matrix it came from (``DLNetwork.record_layers``; the records per level,
by level label, are the bundle's ``levels`` note) and the network is their
aggregate (a tie in any of them is an edge), as the ``multiplex`` format
does; :func:`dl_values` says what was dropped (tie values other than 0/1 as
``weights``, the number of matrices as ``layers``). A full matrix or a list does not say whether the
network is directed (``directed`` None); half matrices and two-mode data
are undirected.

Problems are :class:`~.text.ReadError` with the line: an unknown keyword or
``FORMAT``, a label count that is not N, a matrix row of the wrong width, a
cell that is not a number, fewer rows than the header declares (or more),
a node number outside ``1..N``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import limits
from .files import ReadError, read_text
from .edge_records import EdgeRecords
from .streaming import open_binary
from .ucinet_dl_header import DL_WORD, FMT, FORMATS, LAYOUTS, Header, read_header, section_labels, size, tokens

__all__ = ["FMT", "LAYOUTS", "DLNetwork", "dl_values", "is_dl", "parse_dl", "read_ucinet_dl"]


def is_dl(path: str | Path) -> bool:
    """Whether ``path`` is a UCINET DL file: its first word is ``DL`` (any case; a BOM and blank lines
    before it are skipped), whatever its suffix."""
    try:
        with open_binary(Path(path)) as fh:
            head = fh.read(4096)
    except (OSError, EOFError, ValueError):
        return False
    return DL_WORD.match(head.removeprefix(b"\xef\xbb\xbf")) is not None


@dataclass
class DLNetwork:
    """A DL file read: the edge records and what the file says besides."""

    records: EdgeRecords
    layout: str  # fullmatrix, lowerhalf, upperhalf, edgelist, edgelist2, nodelist, nodelist2
    layers: int  # NM, the number of stacked matrices aggregated
    weighted: bool  # a tie value other than 0 or 1
    two_mode: bool
    row_labels: list[str] | None = None
    col_labels: list[str] | None = None
    level_labels: list[str] | None = None
    node_ids: str | None = None  # how the nodes are numbered, where not simply by matrix row
    record_layers: np.ndarray | None = None  # int64 [m]: the matrix (0-based) each record comes from

    def levels(self) -> dict[str, int]:
        """Records per stacked matrix, keyed by its level label (or its 1-based number)."""
        names = self.level_labels or [str(k + 1) for k in range(self.layers)]
        counts = np.bincount(self.record_layers, minlength=self.layers) if self.record_layers is not None else []
        return {name: int(c) for name, c in zip(names, counts)}


def read_ucinet_dl(path: str | Path) -> EdgeRecords:
    """The edge records of a UCINET DL file (module docstring); ids are 0-based positions."""
    return parse_dl(path).records


def dl_values(path: str | Path | DLNetwork) -> dict:
    """What the records of a DL file (or one read) leave out: ``weights`` (bool), ``layers`` (NM, when above 1)."""
    dl = path if isinstance(path, DLNetwork) else parse_dl(path)
    out: dict = {"weights": dl.weighted}
    if dl.layers > 1:
        out["layers"] = dl.layers
    return out


# ---------------------------------------------------------------------------------- data


def parse_dl(path: str | Path) -> DLNetwork:
    """Read the DL file ``path`` (module docstring); a :class:`~.text.ReadError` names the line at fault."""
    path = Path(path)
    lines = read_text(path).decode("utf-8-sig", "replace").split("\n")
    head = read_header(path, lines)
    keys = head.keys
    two_mode = "nr" in keys or "nc" in keys
    if two_mode:
        for key in ("nr", "nc"):
            if key not in keys:
                raise ReadError(FMT, path, "NR= and NC= (two-mode), or N= (one-mode)",
                                f"{'NC' if key == 'nr' else 'NR'} = {keys['nc' if key == 'nr' else 'nr'][0]} alone",
                                head.dl_line)
        if "n" in keys:
            raise ReadError(FMT, path, "N= (one-mode) or NR= and NC= (two-mode), not both", "N, NR and NC",
                            keys["n"][1])
        nr, nc = size(keys, "nr", path), size(keys, "nc", path)
    else:
        if "n" not in keys:
            raise ReadError(FMT, path, "N= (the number of nodes) or NR= and NC=", "no N in the header", head.dl_line)
        nr = nc = size(keys, "n", path)
    nm = size(keys, "nm", path) if "nm" in keys else 1
    value, line = keys.get("format", ("fullmatrix", head.dl_line))
    layout = LAYOUTS.get(value.lower())
    if layout is None:
        raise ReadError(FMT, path, FORMATS, f"FORMAT = {value}", line)
    if two_mode and layout in ("lowerhalf", "upperhalf"):
        raise ReadError(FMT, path, f"a one-mode N= for FORMAT = {value.upper()} (a half matrix is square)",
                        f"NR = {nr}, NC = {nc}", line)
    if not two_mode and layout in ("edgelist2", "nodelist2"):
        raise ReadError(FMT, path, f"NR= and NC= (two-mode) for FORMAT = {value.upper()}", f"N = {nr}", line)
    diagonal, line = keys.get("diagonal", ("present", head.dl_line))
    if diagonal.lower() not in ("present", "absent"):
        raise ReadError(FMT, path, "DIAGONAL = PRESENT or ABSENT", f"DIAGONAL = {diagonal}", line)
    present = diagonal.lower() == "present"

    if two_mode:
        if "both" in head.sections:
            raise ReadError(FMT, path, "ROW LABELS: and COLUMN LABELS: for two-mode data (NR=, NC=)", "LABELS:",
                            head.sections["both"][2])
        rows = section_labels(head, "row", nr, f"NR = {nr}", path)
        cols = section_labels(head, "col", nc, f"NC = {nc}", path)
    else:
        found = [(side, section_labels(head, side, nr, f"N = {nr}", path)) for side in ("both", "row", "col")]
        found = [(side, labels) for side, labels in found if labels is not None]
        for side, labels in found[1:]:
            if labels != found[0][1]:
                raise ReadError(FMT, path, "the same row and column labels in one-mode data (N=)",
                                f"{side.upper() if side != 'both' else ''} LABELS: {', '.join(labels[:8])}".strip(),
                                head.sections[side][2])
        rows = cols = found[0][1] if found else None
    levels = section_labels(head, "level", nm, f"NM = {nm}", path)

    where = f"NR = {nr}, NC = {nc}" if two_mode else f"N = {nr}"  # the caps, before the data is read
    limits.check(path, f"{where}: nodes", nr + nc if two_mode else nr)
    if layout in ("fullmatrix", "lowerhalf", "upperhalf"):
        limits.check(path, f"{where}, NM = {nm}: matrix cells", nr * nc * nm, "matrix")
    shape = dict(nr=nr, nc=nc, nm=nm, two_mode=two_mode)
    if layout in ("fullmatrix", "lowerhalf", "upperhalf"):
        src, dst, weighted, rows, cols, layer, named = _matrices(path, head, layout, present, rows, cols, **shape)
        if named is not None:
            if levels is not None and named != levels:
                raise ReadError(FMT, path, "the embedded level labels as in the LEVEL LABELS: section",
                                ", ".join(named)[:120], head.sections["level"][2])
            levels = named
    else:
        if "level" in head.embedded:
            raise ReadError(FMT, path, "LEVEL LABELS EMBEDDED with a matrix FORMAT (FULLMATRIX, LOWERHALF, "
                            "UPPERHALF); lists name their levels in a LEVEL LABELS: section", f"FORMAT = {value}",
                            keys["format"][1])
        src, dst, weighted, rows, cols, layer = _lists(path, head, layout, rows, cols, **shape)
    offset = nr if two_mode else 0
    directed = False if two_mode or layout in ("lowerhalf", "upperhalf") else None
    records = EdgeRecords(src, dst + offset, directed, nr + nc if two_mode else nr)
    node_ids = None
    if two_mode:
        node_ids = f"two-mode: the NR = {nr} row nodes, then the NC = {nc} column nodes"
    elif head.embedded and layout in ("edgelist", "nodelist"):
        node_ids = "names (LABELS EMBEDDED), numbered in the order they first appear"
    return DLNetwork(records, layout, nm, weighted, two_mode, rows, cols if two_mode else rows, levels, node_ids,
                     layer)


class _RowPlan:
    """Per matrix row: ``(row node, first column, end column, diagonal left out or None)``, made as read."""

    def __init__(self, layout: str, present: bool, nr: int, nc: int):
        self.layout, self.present, self.nr, self.nc = layout, present, nr, nc

    def __len__(self) -> int:
        return self.nr if self.layout == "fullmatrix" or self.present else self.nr - 1

    def __iter__(self):
        layout, present, nr, nc = self.layout, self.present, self.nr, self.nc
        if layout == "fullmatrix":
            return ((r, 0, nc, None if present or nr != nc else r) for r in range(nr))
        if layout == "lowerhalf":
            return ((r, 0, r + 1 if present else r, None) for r in range(nr) if present or r > 0)
        return ((r, r if present else r + 1, nr, None) for r in range(nr) if present or r < nr - 1)


def _numbers(fields: list[str], path: Path, number: int, text: str) -> np.ndarray:
    try:
        values = np.asarray(fields, dtype=np.float64)
    except ValueError:
        values = None
    if values is None or not np.isfinite(values).all():
        bad = next((f for f in fields if not _finite(f)), fields[0])
        raise ReadError(FMT, path, f"numbers in the matrix ({bad!r} is not one; labels in the data need "
                        "LABELS EMBEDDED)", text.strip(), number)
    return values


def _finite(field: str) -> bool:
    try:
        return bool(np.isfinite(float(field)))
    except ValueError:
        return False


def _matrices(path: Path, head: Header, layout: str, present: bool, rows, cols, *, nr: int, nc: int, nm: int,
              two_mode: bool):
    """Stacked matrices: the nonzero cells as records (row node, column node), and whether any is a weight."""
    data = head.data
    plan = _RowPlan(layout, present, nr, nc)
    rows = list(rows) if rows is not None else None
    cols = list(cols) if cols is not None else None
    where = f"N = {nr}" if not two_mode else f"NR = {nr}, NC = {nc}"
    how = where + (f", NM = {nm}" if nm > 1 else "") + (f", {layout.upper()}" if layout != "fullmatrix" else "")
    how += ", DIAGONAL = ABSENT" if not present else ""
    per = f"{len(plan)} rows per matrix ({how})"
    src, dst, layers, embedded_levels = [], [], [], []
    weighted = False
    k = 0
    header_seen = None
    for layer in range(nm):
        if "level" in head.embedded:  # LEVEL LABELS EMBEDDED: the matrix's name on a line of its own first
            if k >= len(data):
                raise ReadError(FMT, path, f"a line with the level label of matrix {layer + 1} (LEVEL LABELS "
                                "EMBEDDED)", "the end of the file", data[-1][0] if data else None)
            number, text = data[k]
            name = tokens(text, path, number)
            if len(name) != 1:
                raise ReadError(FMT, path, f"one level label before matrix {layer + 1} (LEVEL LABELS EMBEDDED)",
                                text.strip()[:120], number)
            embedded_levels.append(name[0])
            k += 1
        if "col" in head.embedded:
            if k >= len(data):
                raise ReadError(FMT, path, f"a line of {nc} column labels (LABELS EMBEDDED) before matrix {layer + 1}",
                                "the end of the file", data[-1][0] if data else None)
            number, text = data[k]
            labels = tokens(text, path, number)
            if layer == 0 or labels == header_seen:
                if len(labels) != nc:
                    raise ReadError(FMT, path, f"a line of {nc} column labels (LABELS EMBEDDED, {where})",
                                    f"{len(labels)} label(s): {text.strip()[:120]}", number)
                if cols is not None and labels != cols:
                    raise ReadError(FMT, path, "the embedded column labels as in the LABELS: section",
                                    text.strip()[:120], number)
                cols = header_seen = labels
                if not two_mode:
                    rows = list(labels)
                k += 1
        for count, (r, start, end, skip) in enumerate(plan):
            if k >= len(data):
                last = data[-1][0] if data else None
                raise ReadError(FMT, path, per, f"{count} row(s) in matrix {layer + 1} (the end of the file)", last)
            number, text = data[k]
            k += 1
            fields = tokens(text, path, number)
            if "row" in head.embedded:
                label = fields.pop(0) if fields else None
                if rows is None:
                    rows = [None] * nr
                if rows[r] is None:
                    rows[r] = label
                elif label != rows[r]:
                    raise ReadError(FMT, path, f"row label {rows[r]!r} (row {r + 1} of matrix {layer + 1}, labels "
                                    "in the order of the columns)", text.strip()[:120], number)
            width = end - start - (skip is not None)
            if len(fields) != width:
                raise ReadError(FMT, path, f"a row of {width} values (row {r + 1} of matrix {layer + 1}; {how})",
                                f"{len(fields)} value(s): {text.strip()[:120]}", number)
            values = _numbers(fields, path, number, text)
            nz = np.flatnonzero(values)
            if nz.size:
                columns = np.arange(start, end, dtype=np.int64)
                if skip is not None:
                    columns = np.delete(columns, skip - start)
                src.append(np.full(nz.size, r, dtype=np.int64))
                dst.append(columns[nz])
                layers.append(np.full(nz.size, layer, dtype=np.int64))
                weighted = weighted or bool((values[nz] != 1).any())
    if k < len(data):
        number, text = data[k]
        raise ReadError(FMT, path, f"{per}, nothing after the last matrix", text.strip()[:120], number)
    if rows is not None and None in rows:
        rows = None
    return _concat(src), _concat(dst), weighted, rows, cols, _concat(layers), embedded_levels or None


def _concat(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


class _Names:
    """Node names of one side: labels (given or embedded, new ones numbered in order of appearance) or
    1-based numbers."""

    def __init__(self, size: int, labels: list[str] | None, embedded: bool, what: str):
        self.size, self.embedded, self.what = size, embedded, what
        self.labels = list(labels or [])
        self.index: dict[str, int] = {}
        for i, label in enumerate(self.labels):
            self.index.setdefault(label, i)

    def __call__(self, token: str, fail) -> int:
        i = self.index.get(token)
        if i is not None:
            return i
        if self.embedded:
            if len(self.labels) >= self.size:
                fail(f"at most {self.size} distinct node names ({self.what}; {token!r} is one more)")
            self.index[token] = len(self.labels)
            self.labels.append(token)
            return len(self.labels) - 1
        if token.isdigit() and 1 <= int(token) <= self.size:
            return int(token) - 1
        fail(f"node numbers 1..{self.size} ({self.what}) or labels ({token!r} is neither; names need LABELS "
             "EMBEDDED or a LABELS: section)")
        raise AssertionError  # fail raises


def _lists(path: Path, head: Header, layout: str, rows, cols, *, nr: int, nc: int, nm: int, two_mode: bool):
    """Edge lists (``i j [w]``) or node lists (``i j k ...``), one per matrix separated by ``!`` lines."""
    if two_mode:
        row_names = _Names(nr, rows, "row" in head.embedded, f"NR = {nr}")
        col_names = _Names(nc, cols, "col" in head.embedded, f"NC = {nc}")
    else:
        row_names = col_names = _Names(nr, rows, bool(head.embedded), f"N = {nr}")
    edges = layout.startswith("edgelist")
    what = "'i j [w]' per line (EDGELIST)" if edges else "'i j k ...' per line (NODELIST: i tied to j, k, ...)"
    src: list[int] = []
    dst: list[int] = []
    layer: list[int] = []
    weighted = False
    bangs: list[int] = []  # the '!' lines, which separate the lists of the matrices
    for number, text in head.data:
        if text.strip() == "!":
            bangs.append(number)
            continue

        def fail(expected: str, number=number, text=text):
            raise ReadError(FMT, path, expected, text.strip()[:120], number)

        fields = tokens(text, path, number)
        if edges:
            if len(fields) not in (2, 3):
                fail(what)
            i, j = row_names(fields[0], fail), col_names(fields[1], fail)
            w = 1.0
            if len(fields) == 3:
                if not _finite(fields[2]):
                    fail(f"{what} with a number for w")
                w = float(fields[2])
            if w != 0:
                src.append(i)
                dst.append(j)
                layer.append(len(bangs))
                weighted = weighted or w != 1
        else:
            if not fields:
                fail(what)
            i = row_names(fields[0], fail)
            for field in fields[1:]:
                src.append(i)
                dst.append(col_names(field, fail))
                layer.append(len(bangs))
    if bangs and head.data[-1][1].strip() == "!":
        bangs.pop()  # a '!' after the last list separates nothing
    if len(bangs) + 1 > nm:
        raise ReadError(FMT, path, f"NM = {nm} list(s) separated by '!' lines", f"list {nm + 1} after this '!'",
                        bangs[nm - 1])
    if 0 < len(bangs) < nm - 1:
        raise ReadError(FMT, path, f"NM = {nm} lists separated by '!' lines (or one list)",
                        f"{len(bangs) + 1} lists", bangs[-1])
    rows = row_names.labels if len(row_names.labels) == nr else None
    cols = col_names.labels if len(col_names.labels) == nc else None
    return (np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64), weighted, rows, cols,
            np.asarray(layer, dtype=np.int64))
