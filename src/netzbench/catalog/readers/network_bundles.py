"""Network formats read for a declared dataset: one network, for link prediction or node classification.

Link prediction processes the edge records exactly as the catalogue does
(:func:`.networks.simple_bundle`: a simple undirected graph on the nodes
that have an edge, numbered by increasing id), so a network declared from
the same raw file gives the same ``graph.npz`` as its catalogue entry. Node
classification needs a class per node: ``label`` names a node attribute
(GML; GraphML and GEXF, by id or by ``attr.name``/``title``) or a
``nodes.csv`` column (Netzschleuder); every declared node is kept
(isolated ones too), numbered by increasing id, with the unique undirected
edges stored in both directions.

Edge lists (``edgelist``) are read here too: whitespace, tab or comma
separated, an optional header line, ``#``/``%`` comments, integer ids as in
the file or names (numbered in sorted order), extra columns (weights,
timestamps) ignored.

The files of network tools (GraphML, Pajek ``.net``, GEXF) are read by
:mod:`.tool_formats`, and found by their content (``<graphml``, ``<gexf``,
``*Vertices`` near the top) as well as by their suffix.
"""

from __future__ import annotations

import csv
import io
import re
import tempfile
from pathlib import Path

import numpy as np

from ...graphs.edges import symmetric_edges, undirected_pairs
from ..checks import normalise_labels
from ..archives import safe_extract
from .edge_records import EdgeRecords
from .gml import gml_int, gml_tree, read_gml
from .network_formats import (read_konect, read_multiplex_edges, read_netzschleuder_csv, read_sociopatterns_tij,
                              read_ucinet_csv_matrix)
from .streaming import open_binary
from .networks import edge_values, link_dropped, reverse_duplicates, simple_bundle
from .side_tables import SIDE_TABLES, side_labels
from .ucinet_dl import dl_values, is_dl, parse_dl
from .files import (Bundle, ReadError, count_dropped, data_files, first_data_line, one_file, read_table, read_text,
                   separator)
from .tool_formats import NOTE_KEYS, ToolGraph, looks_like_pajek, read_gexf, read_graphml, read_pajek

#: formats whose nodes carry attributes that ``label`` can name (multiplex, sociopatterns: in a node table beside
#: the edges, :mod:`.side_tables`; musae, geomgcn: read by :mod:`.node_tables`)
LABELLED = ("gml", "netzschleuder", "multiplex", "sociopatterns", "musae", "geomgcn", "graphml", "gexf")
#: the formats of network tools (:mod:`.tool_formats`: node attributes in the file) and their readers
TOOL_READERS = {"graphml": read_graphml, "pajek": read_pajek, "gexf": read_gexf}
#: Pajek files that are not networks (partitions, vectors, permutations, ...) though they start '*Vertices N'
_PAJEK_NOT_NETWORKS = (".clu", ".vec", ".per", ".cls", ".hie")
EDGE_SUFFIXES = ("", ".txt", ".csv", ".tsv", ".edges", ".edgelist", ".el", ".dat", ".gz", ".bz2")
_HEADER_WORDS = {"source", "target", "from", "to", "src", "dst", "u", "v", "i", "j", "node1", "node2", "head",
                 "tail", "id1", "id2", "a", "b", "start", "end", "sender", "receiver"}


def _first_line(path: Path) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.readline(4096).lstrip(b"\xef\xbb\xbf").strip()
    except OSError:
        return b""


def _head(path: Path, size: int = 4096) -> bytes:
    """The first bytes of a (possibly compressed) file, lower case; empty when it cannot be read."""
    try:
        with open_binary(path) as fh:
            return fh.read(size).lower()
    except (OSError, EOFError, ValueError):
        return b""


def _named(path: Path, suffix: str) -> bool:
    name = path.name.lower()
    return any(name.endswith(suffix + z) for z in ("", ".gz", ".bz2"))


def is_graphml(path: Path) -> bool:
    return _named(path, ".graphml") or b"<graphml" in _head(path)


def is_gexf(path: Path) -> bool:
    return _named(path, ".gexf") or b"<gexf" in _head(path)


def is_pajek(path: Path) -> bool:
    """A file whose first line (after ``%`` comments) is ``*Network`` or ``*Vertices``, whatever its name,
    except Pajek's partition and vector files (``.clu``, ``.vec``, ...), which start ``*Vertices N`` too."""
    return not path.name.lower().endswith(_PAJEK_NOT_NETWORKS) and looks_like_pajek(_head(path))


def is_konect(path: Path) -> bool:
    return path.name.startswith("out.") or re.match(rb"%\s*(sym|asym|bip)\b", _first_line(path)) is not None


def is_ucinet(path: Path) -> bool:
    """A UCINET DL file (first word ``DL``, whatever the suffix: :func:`.ucinet_dl.is_dl`), or a CSV whose
    first row starts with an empty corner cell and has one more cell than there are rows."""
    if is_dl(path):
        return True
    if path.suffix.lower() != ".csv" or not _first_line(path).startswith((b",", b'"",')):
        return False
    rows = [r for r in csv.reader(io.StringIO(read_text(path).decode("utf-8-sig", "replace"))) if any(r)]
    return len(rows[0]) == len(rows)


def is_sociopatterns(path: Path) -> bool:
    """A SocioPatterns contact list by its name (``tij*``, or ``.dat``/``.csv``/``.txt``), unless it is a
    UCINET DL file (saved as ``.dat`` or ``.txt`` too)."""
    return (path.name.startswith("tij") or path.suffix in (".dat", ".csv", ".txt")) and not is_dl(path)


def is_edgelist(path: Path) -> bool:
    name = path.name.lower()
    return any(name.endswith(s) for s in EDGE_SUFFIXES if s) or "." not in name


#: the files each network format reads: (what the user should provide, test on a file)
FILES = {
    "gml": ("a *.gml file", lambda p: p.name.lower().endswith(".gml")),
    "konect": ("a KONECT out.<name> file (first line '% sym|asym|bip ...')", is_konect),
    "edgelist": ("an edge-list file (.txt, .csv, .tsv, .edges, ...)", is_edgelist),
    "netzschleuder": ("a Netzschleuder <net>.csv.zip (or its edges.csv)",
                      lambda p: p.name.endswith(".csv.zip") or (p.name == "edges.csv"
                                                                and _first_line(p).startswith(b"# source"))),
    "sociopatterns": ("a SocioPatterns contact list 't i j' (tij_*.dat)", is_sociopatterns),
    "ucinet": ("a UCINET DL file (first word 'DL', any suffix: .dat, .txt, ...) or a UCINET CSV adjacency "
               "matrix (header row of names, empty corner cell)", is_ucinet),
    "multiplex": ("a multiplex edge file '<name>_multiplex.edges' (layer node node weight)",
                  lambda p: p.name.endswith(".edges")),
    "graphml": ("a GraphML file (*.graphml, or XML with a <graphml> root)", is_graphml),
    "pajek": ("a Pajek .net file ('*Vertices N' after '%' comments and '*Network')", is_pajek),
    "gexf": ("a GEXF file (*.gexf, or XML with a <gexf> root)", is_gexf),
}


def network_file(path: Path, fmt: str) -> Path:
    what, test = FILES[fmt]
    if fmt == "sociopatterns":  # prefer the tij file when a folder also holds metadata
        found = [p for p in data_files(path) if p.name.startswith("tij") and not is_dl(p)]
        if len(found) == 1:
            return found[0]
    if fmt == "multiplex":
        found = [p for p in data_files(path) if p.name.endswith("_multiplex.edges")]
        if len(found) == 1:
            return found[0]
    return one_file(path, fmt, what, test)


# ---------------------------------------------------------------------------------- edge lists


def read_edge_table(path: Path) -> tuple[EdgeRecords, dict]:
    """The records of an edge list and what was left out of it (extra columns, the header)."""
    path = Path(path)
    try:
        table = read_table(path, "edgelist", "an edge 'u v' per line", columns=2, header="auto")
    except ReadError as exc:
        if "(numbers)" not in str(exc) or any(_numeric_ids(first_data_line(path, skip=k)) for k in (0, 1)):
            raise  # a numeric edge list with a bad line, not one with names for ids
        return _named_edges(path)
    info = {"header": table.header} if table.header else {}
    first = first_data_line(path, skip=1 if table.header else 0)
    sep = separator(first)
    extra = len(first.split(sep) if sep else first.split()) - 2
    if extra > 0:
        info["extra_columns"] = extra
    return EdgeRecords(table.values[:, 0].copy(), table.values[:, 1].copy(), None, None), info


def _numeric_ids(line: bytes) -> bool:
    sep = separator(line)
    fields = [f.strip() for f in (line.split(sep) if sep else line.split())][:2]
    return all(f.lstrip(b"+-").isdigit() for f in fields)


def _named_edges(path: Path) -> tuple[EdgeRecords, dict]:
    """Edge lists with names for ids: numbered by sorted name (a header only when it uses the usual words)."""
    rows, header, width, sep = [], None, 0, None
    for number, line in enumerate(read_text(path).decode("utf-8", "replace").split("\n"), 1):
        if not line.strip() or line.lstrip()[:1] in "#%":
            continue
        if sep is None:
            sep = (separator(line.encode()) or b"").decode() or None
        fields = [f.strip().strip('"') for f in (line.split(sep) if sep else line.split())]
        if len(fields) < 2 or not fields[0] or not fields[1]:
            raise ReadError("edgelist", path, "an edge 'u v' per line (two node ids)", line.strip(), number)
        if header is None and not rows and {f.lower().lstrip("#") for f in fields[:2]} <= _HEADER_WORDS:
            header = fields
            continue
        width = max(width, len(fields))
        rows.append((fields[0], fields[1]))
    if not rows:
        raise ReadError("edgelist", path, "an edge 'u v' per line", "no edges")
    names, codes = np.unique(np.asarray(rows, dtype=str).reshape(-1), return_inverse=True)
    codes = codes.reshape(-1, 2).astype(np.int64)
    info = {"node_ids": "names, numbered in sorted order"}
    if header:
        info["header"] = header
    if width > 2:
        info["extra_columns"] = width - 2
    return EdgeRecords(codes[:, 0].copy(), codes[:, 1].copy(), None, int(names.size)), info


# ---------------------------------------------------------------------------------- records


def _diagnosed(reader, file: Path, fmt: str, what: str, columns: tuple[int, int], comments: bytes = b"#%"):
    """``reader(file)``; when it fails, the line at fault found by re-reading ``file`` as a table."""
    try:
        return reader(file)
    except ValueError as exc:
        read_table(file, fmt, what, columns=max(columns) + 1, comments=comments)  # raises at the bad line
        raise ReadError(fmt, file, what, str(exc)) from None


def _records(file: Path, fmt: str, tmp: Path) -> tuple[EdgeRecords, dict, Path | ToolGraph | None]:
    """Edge records of ``file`` in ``fmt``, what was left out, and the nodes.csv of a Netzschleuder zip
    (the whole :class:`~.tool_formats.ToolGraph` of a tool's file, for its node attributes)."""
    if fmt in TOOL_READERS:
        graph = TOOL_READERS[fmt](file)
        return graph.records, dict(graph.info), graph
    if fmt == "gml":
        try:
            return read_gml(file), edge_values(file, fmt), None
        except ValueError as exc:
            found, line = _gml_where(file, str(exc).removeprefix("GML: ").removeprefix(f"{file.name}: "))
            raise ReadError("gml", file, "a GML 'graph [ node [ id ... ] edge [ source ... target ... ] ]'",
                            found, line) from None
    if fmt == "konect":
        if not is_konect(file):
            raise ReadError(fmt, file, "a '% sym|asym|bip <weights>' header", _first_line(file).decode(errors="replace"), 1)
        records = _diagnosed(read_konect, file, fmt, "'from to [weight [time]]' per line", (0, 1), b"%")
        return records, edge_values(file, fmt), None
    if fmt == "edgelist":
        records, info = read_edge_table(file)
        if info.get("extra_columns"):
            info["weights"] = True  # any extra column counts as a weight (edge_values)
        return records, info, None
    if fmt == "sociopatterns":
        return _diagnosed(read_sociopatterns_tij, file, fmt, "'t i j' per line", (1, 2)), edge_values(file, fmt), None
    if fmt == "multiplex":
        return (_diagnosed(read_multiplex_edges, file, fmt, "'layer node node weight' per line", (1, 2)),
                edge_values(file, fmt), None)
    if fmt == "ucinet":  # by content: a DL file (any suffix), else the CSV matrix
        if is_dl(file):
            dl = parse_dl(file)  # what edge_values(file, "ucinet") reports, read once
            info = {**dl_values(dl), **({"node_ids": dl.node_ids} if dl.node_ids else {}),  # -> notes
                    **({"levels": dl.levels()} if dl.layers > 1 else {})}  # records per stacked matrix -> notes
            return dl.records, info, None
        try:
            return read_ucinet_csv_matrix(file), edge_values(file, fmt), None
        except ValueError as exc:
            raise ReadError(fmt, file, "a square CSV adjacency matrix with labelled rows and columns", str(exc)) from None
    if fmt == "netzschleuder":
        edges, nodes = file, file.with_name("nodes.csv")
        if file.name.endswith(".zip"):
            safe_extract(file, tmp)
            edges = one_file(tmp, fmt, "edges.csv in the zip", lambda p: p.name == "edges.csv")
            nodes = edges.with_name("nodes.csv")
        nodes = nodes if nodes.is_file() else None
        try:
            records = read_netzschleuder_csv(edges, nodes)
        except (ValueError, IndexError) as exc:
            raise ReadError(fmt, file, "edges.csv '# source, target, ...' with 0-based vertex indices", str(exc)) from None
        return records, edge_values(edges, fmt), nodes
    raise ValueError(f"not a network format: {fmt!r}")


def _gml_where(file: Path, message: str) -> tuple[str, int | None]:
    """``(message, line)`` of a GML reader error: the line the tokenizer gave, or the first edge
    naming an undeclared node, or the first repeated node id."""
    said = re.search(r" at line (\d+)$", message)
    if said:
        return message[: said.start()], int(said.group(1))
    data = file.read_bytes()
    ids = [(int(m.group(1)), m.start()) for m in re.finditer(rb"\bnode\s*\[[^\]]*?\bid\s+(-?\d+)", data)]
    where = None
    if "not declared" in message:
        known = {i for i, _ in ids}
        where = next((m.start() for m in re.finditer(rb"\b(?:source|target)\s+(-?\d+)", data)
                      if int(m.group(1)) not in known), None)
    elif "duplicate node ids" in message:
        seen: set[int] = set()
        where = next((pos for i, pos in ids if i in seen or seen.add(i)), None)
    return message, (data.count(b"\n", 0, where) + 1 if where is not None else None)


def _value(token):
    if isinstance(token, list):
        return None
    text = token.decode("utf-8", "replace")
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def _gml_labels(file: Path, label: str) -> tuple[np.ndarray, list]:
    data = file.read_bytes()
    graph = next((v for k, v in gml_tree(data) if k == b"graph" and isinstance(v, list)), [])
    ids, labels, key = [], [], label.encode()
    for k, node in graph:
        if k != b"node" or not isinstance(node, list):
            continue
        attrs = dict(node)
        ids.append(gml_int(attrs[b"id"], "node id"))
        if key not in attrs or isinstance(attrs[key], list):
            m = re.search(rb"\bid\s+" + str(ids[-1]).encode() + rb"\b", data)
            line = data.count(b"\n", 0, m.start()) + 1 if m else None
            raise ReadError("gml", file, f"a node attribute {label!r} on every node (the class)",
                            f"node {ids[-1]} without it (keys: {', '.join(k.decode() for k in attrs)})", line)
        labels.append(_value(attrs[key]))
    return np.asarray(ids, dtype=np.int64), labels


def _netzschleuder_labels(nodes: Path | None, label: str, file: Path) -> tuple[np.ndarray, list]:
    if nodes is None:
        raise ReadError("netzschleuder", file, f"a nodes.csv with a {label!r} column", "no nodes.csv")
    with open(nodes, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(io.StringIO(fh.read())))
    header = [c.strip().lstrip("#").strip() for c in rows[0]]
    if label not in header:
        raise ReadError("netzschleuder", nodes, f"a column {label!r}", f"columns {header}", 1)
    col = header.index(label)
    body = [r for r in rows[1:] if r]
    return np.asarray([int(r[0]) for r in body], dtype=np.int64), [_value(r[col].strip().encode()) for r in body]


def labelled_bundle(ids: np.ndarray, labels: list, records: EdgeRecords) -> tuple[dict, dict, dict | None]:
    order = np.argsort(ids, kind="stable")
    ids = ids[order]
    y = np.asarray([labels[i] for i in order], dtype=object if any(isinstance(v, str) for v in labels) else None)
    pairs = undirected_pairs(np.stack([np.searchsorted(ids, records.src), np.searchsorted(ids, records.dst)]))
    mapped, mapping = normalise_labels({"y": y}, "node_cls")
    y = np.asarray(mapped["y"]).astype(np.int64)
    arrays = {"edge_index": symmetric_edges(pairs), "num_nodes": np.asarray(ids.size, dtype=np.int64), "y": y}
    counts = {"num_nodes": int(ids.size), "num_edges": int(pairs.shape[1]), "num_classes": int(y.max()) + 1}
    return arrays, counts, mapping


def read_network(path: str | Path, fmt: str, family: str = "link_pred", label: str | None = None) -> Bundle:
    """Read one network in ``fmt`` (a network format of :data:`FILES`) for ``family``."""
    path = Path(path)
    file = network_file(path, fmt)
    if family == "node_cls" and (label is None or fmt not in LABELLED):
        raise ReadError(fmt, file, "`label:` naming a node attribute, for node_cls (formats with node attributes: "
                        f"{', '.join(LABELLED)})", f"label {label!r}" if label else "no label")
    with tempfile.TemporaryDirectory(prefix="netzbench-raw-") as tmp:
        records, dropped, nodes = _records(file, fmt, Path(tmp))
        side = None  # the node table read beside the edges (SIDE_TABLES)
        if family == "node_cls" and fmt in SIDE_TABLES:
            ids, labels, side, dropped["node_ids"] = side_labels(file, fmt, label, records)  # -> notes
        elif family == "node_cls":
            if fmt == "gml":
                ids, labels = _gml_labels(file, label)
            elif fmt in TOOL_READERS:
                ids, labels = nodes.labels(label)
            else:
                ids, labels = _netzschleuder_labels(nodes, label, file)
    notes = {}
    if family == "node_cls":
        dropped = {**count_dropped(records.src, records.dst), **dropped}
        arrays, counts, mapping = labelled_bundle(ids, labels, records)
        reverse = reverse_duplicates(records, dropped["duplicate_edges"], counts["num_edges"])
        if reverse:
            dropped["reverse_duplicates"] = reverse
        if mapping:
            notes["label_mapping"] = mapping
        notes["label"] = label
    else:
        try:
            arrays, counts = simple_bundle(records, bool(records.directed))
        except ValueError as exc:
            raise ReadError(fmt, file, "edges between distinct nodes", str(exc)) from None
        dropped = link_dropped(records, dropped, counts["num_nodes"], counts["num_edges"])
    for key in ("header", "node_ids", "levels", *NOTE_KEYS):
        if key in dropped:
            notes[key] = dropped.pop(key)
    files = [file] if side is None else [file, side]
    return Bundle(arrays, counts, {k: v for k, v in dropped.items() if v is not False}, files, notes)
