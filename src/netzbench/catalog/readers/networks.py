"""Readers for network-science raw formats, and the link-prediction processor on top.

Every reader returns the edge *records* of one network as two integer arrays of
node ids exactly as the file names them (Netzschleuder index, GML ``id``,
KONECT/SNAP id, matrix row, SocioPatterns badge id), whether the file says the
network is directed, and the size of the node list the format declares (if it
declares one). :func:`simple_bundle` turns records into the processed
link-prediction bundle (:mod:`netzbench.graphs.layout`):

- weights, timestamps, layers and repeated records are dropped: the graph is
  *simple* and *undirected*; an edge means "the pair has at least one record"
  (a directed record ``u -> v`` counts for the pair ``{u, v}``);
- self-loops are dropped (a pair of one node is not a link to predict);
- the nodes are the nodes that have at least one edge; they are numbered
  0..N-1 in increasing order of their id in the file. Isolated nodes (present
  in some node lists, or implied by KONECT's "max id" convention) can never be
  a positive pair in a held-out edge split and would only add trivially easy
  negatives, and dropping them makes the processed graph the same whichever
  accepted source format was read (Netzschleuder indices are KONECT ids - 1,
  so the order is preserved too);
- ``edge_index`` holds each undirected pair once as ``(i, j)`` with ``i < j``,
  sorted; no ``x`` is written (vertex properties differ between the sources
  of one network, and Netzschleuder/graph-tool ``_pos`` is a drawing layout
  computed from all edges, which would leak held-out edges), so training uses
  structural features.

What was dropped (``dropped`` in ``meta.json``: self-loops, repeated records,
weights and other per-edge values, isolated nodes) is reported beside the
bundle (:func:`link_dropped`). The readers of each format are in
:mod:`.network_formats`.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from .edge_records import EdgeRecords
from .gml import gml_file_tree, read_gml
from .network_formats import (read_edgelist, read_konect, read_multiplex_edges, read_netzschleuder_csv,
                              read_sociopatterns_tij, read_ucinet_csv_matrix)
from .files import count_dropped, first_data_line, read_text, separator
from .ucinet_dl import dl_values, is_dl


# ---------------------------------------------------------------------------
# processed bundle


def _unique(values: np.ndarray) -> np.ndarray:
    """Sorted unique values (sort + mask: much faster than ``np.unique`` on 10^7 int64 here)."""
    values = np.sort(values, kind="stable")
    if values.size:
        values = values[np.concatenate([[True], values[1:] != values[:-1]])]
    return values


def _compact(s: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Renumber the ids that occur in ``s``/``d`` to 0..n-1, keeping their order."""
    lo, hi = int(min(s.min(), d.min())), int(max(s.max(), d.max()))
    if hi - lo < 4 * (s.size + d.size) + 1024:  # dense ids (the usual case): a lookup table, O(m)
        present = np.zeros(hi - lo + 1, dtype=bool)
        present[s - lo] = True
        present[d - lo] = True
        remap = np.cumsum(present, dtype=np.int64) - 1
        return remap[s - lo], remap[d - lo], int(remap[-1]) + 1
    ids = _unique(np.concatenate([s, d]))
    return np.searchsorted(ids, s).astype(np.int64), np.searchsorted(ids, d).astype(np.int64), int(ids.size)


def simple_bundle(records: EdgeRecords, directed: bool) -> tuple[dict, dict]:
    """Collapse edge records into the simple undirected link-prediction bundle (module docstring)."""
    src = np.asarray(records.src, dtype=np.int64)
    dst = np.asarray(records.dst, dtype=np.int64)
    keep = src != dst
    s, d = src[keep], dst[keep]
    if s.size == 0:
        raise ValueError("the network has no edge between two distinct nodes")
    s, d, n = _compact(s, d)
    keys = _unique(np.minimum(s, d) * n + np.maximum(s, d))
    edge_index = np.stack([keys // n, keys % n]).astype(np.int64)
    arrays = {"edge_index": edge_index, "num_nodes": np.asarray(n, dtype=np.int64)}
    counts = {"num_nodes": n, "num_edges": int(keys.size), "num_edge_records": int(src.size)}
    if directed:
        counts["num_directed_edges"] = int(_unique(s * n + d).size)
    if records.declared_nodes is not None:
        counts["num_declared_nodes"] = int(records.declared_nodes)
    return arrays, counts


def _one(raw_dir: Path, *patterns: str) -> Path:
    for pattern in patterns:
        found = sorted(p for p in Path(raw_dir).glob(pattern) if p.is_file())
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise ValueError(f"{raw_dir}: several files match {pattern!r}: {[p.name for p in found]}")
    raise FileNotFoundError(f"{raw_dir}: no raw file matching {' or '.join(patterns)}")


#: per source format: the raw file read (glob patterns, the first matching one file) and the same format's
#: name for a declared dataset (:mod:`.network_bundles`)
SOURCE_FILES = {
    "netzschleuder-csv": (("edges.csv",), "netzschleuder"),
    "gml": (("*.gml",), "gml"),
    "konect": (("out.*",), "konect"),
    "ucinet-csv-matrix": (("*.csv",), "ucinet"),
    "multiplex-edges": (("*_multiplex.edges", "*.edges"), "multiplex"),
    "sociopatterns-tij": (("tij*", "*.dat", "*.csv"), "sociopatterns"),
    "edgelist": (("*.txt.gz", "*.txt", "*.gz"), "edgelist"),
}
_READERS = {"gml": read_gml, "konect": read_konect, "ucinet-csv-matrix": read_ucinet_csv_matrix,
            "multiplex-edges": read_multiplex_edges, "sociopatterns-tij": read_sociopatterns_tij,
            "edgelist": read_edgelist}


def read_records(raw_dir: Path, fmt: str) -> EdgeRecords:
    """Read the raw files of one source (``fmt`` is the source's format)."""
    raw_dir = Path(raw_dir)
    if fmt not in SOURCE_FILES:
        raise ValueError(f"no network reader for format {fmt!r}")
    file = _one(raw_dir, *SOURCE_FILES[fmt][0])
    if fmt == "netzschleuder-csv":
        return read_netzschleuder_csv(file, _one(raw_dir, "nodes.csv"))
    return _READERS[fmt](file)


#: edge attributes (GML keys, Netzschleuder columns) that hold weights; Newman's GML files call them ``value``
WEIGHT_ATTRIBUTES = ("weight", "weights", "value")


def _gml_edge_attributes(file: Path) -> list[str]:
    graph = next((v for k, v in gml_file_tree(file) if k == b"graph" and isinstance(v, list)), [])
    names = {k.decode("utf-8", "replace") for key, edge in graph if key == b"edge" and isinstance(edge, list)
             for k, _ in edge} - {"source", "target", "id"}
    return sorted(names)


def _ucinet_weighted(file: Path) -> bool:
    """Whether a UCINET CSV matrix has a number other than 0 or 1 (a tie strength); names are skipped."""
    text = read_text(file).decode("utf-8-sig", "replace")
    for cell in {c.strip() for row in csv.reader(io.StringIO(text)) for c in row}:
        try:
            if float(cell) not in (0.0, 1.0):
                return True
        except ValueError:
            continue
    return False


def edge_values(file: Path, fmt: str) -> dict:
    """What the edge records of ``file`` carry besides their two ends, all discarded: ``weights`` (bool),
    ``timestamps``, ``layers`` (True; a UCINET DL file: the number of stacked matrices, when above 1),
    ``edge_attributes`` (names), ``extra_columns`` (edge lists: any extra column counts as a weight).
    ``fmt`` is a declared format's name (values of :data:`SOURCE_FILES`)."""
    file = Path(file)
    out: dict = {}
    if fmt in ("gml", "netzschleuder"):
        if fmt == "gml":
            names = _gml_edge_attributes(file)
        else:
            with open(file, encoding="utf-8") as fh:
                names = [c.strip() for c in fh.readline().lstrip("# ").split(",")][2:]
        if names:
            out["edge_attributes"] = names
        out["weights"] = any(n.lower() in WEIGHT_ATTRIBUTES for n in names)
    elif fmt == "konect":
        header = first_data_line(file, b"#").lstrip(b"% ").split()
        width = len(first_data_line(file, b"%").split())
        # 'unweighted' and 'positive' (multiple edges) files carry 1 per record, not a weight
        out["weights"] = width >= 3 and header[1:2] not in ([b"unweighted"], [b"positive"])
        out["timestamps"] = width >= 4
    elif fmt == "edgelist":
        first = first_data_line(file)
        sep = separator(first)
        extra = len(first.split(sep) if sep else first.split()) - 2
        if extra > 0:
            out.update(extra_columns=extra, weights=True)
    elif fmt == "sociopatterns":
        out["timestamps"] = True
    elif fmt == "multiplex":
        out.update(layers=True, weights=True)
    elif fmt == "ucinet":  # by content: a DL file (weights, and layers when NM > 1), else the CSV matrix
        out.update(dl_values(file) if is_dl(file) else {"weights": _ucinet_weighted(file)})
    return out


def reverse_duplicates(records: EdgeRecords, duplicate_edges: int, num_edges: int) -> int:
    """Records ``v u`` merged into the undirected edge of an earlier ``u v`` record: the records that are
    neither self-loops, nor repeats (``duplicate_edges``), nor the first record of one of the ``num_edges``
    pairs. ``records = num_edges + self_loops + duplicate_edges + reverse_duplicates``."""
    loops = int(np.count_nonzero(np.asarray(records.src) == np.asarray(records.dst)))
    return int(len(records.src) - loops - duplicate_edges - num_edges)


def link_dropped(records: EdgeRecords, values: dict, num_nodes: int, num_edges: int | None = None) -> dict:
    """``dropped`` of a network read for link prediction, accounting for every record and node: self-loops,
    repeated records (``duplicate_edges``), records merged with the reverse of an earlier one
    (``reverse_duplicates``, given ``num_edges``), the per-edge ``values`` (:func:`edge_values`), nodes
    whose only records are self-loops (``self_loop_only_nodes``) and declared nodes without any record
    (``isolated_nodes``). Counts that are 0 are left out (but ``self_loops``/``duplicate_edges``)."""
    dropped = {**count_dropped(records.src, records.dst), **values}
    if num_edges is not None:
        reverse = reverse_duplicates(records, dropped["duplicate_edges"], num_edges)
        if reverse:
            dropped["reverse_duplicates"] = reverse
    only = 0
    if dropped["self_loops"]:  # ids in any record, less those in a record between two nodes (kept)
        only = int(_unique(np.concatenate([np.asarray(records.src), np.asarray(records.dst)])).size) - num_nodes
        if only:
            dropped["self_loop_only_nodes"] = only
    if records.declared_nodes is not None and records.declared_nodes > num_nodes + only:
        dropped["isolated_nodes"] = int(records.declared_nodes - num_nodes - only)
    return {k: v for k, v in dropped.items() if v is not False}


def _process(raw_dir: Path, fmt: str, directed: bool) -> tuple[dict, dict, dict]:
    records = read_records(raw_dir, fmt)
    if records.directed is not None:
        directed = records.directed  # the file's own flag wins where the format has one
    arrays, counts = simple_bundle(records, directed)
    patterns, declared_format = SOURCE_FILES[fmt]
    return arrays, counts, link_dropped(records, edge_values(_one(Path(raw_dir), *patterns), declared_format),
                                        counts["num_nodes"], counts["num_edges"])


def link_pred(raw_dir: Path, fmt: str) -> tuple[dict, dict, dict]:
    """Processor for an undirected network (any format above) -> simple undirected graph, and what was dropped."""
    return _process(raw_dir, fmt, directed=False)


def link_pred_directed(raw_dir: Path, fmt: str) -> tuple[dict, dict, dict]:
    """Processor for a directed network: as :func:`link_pred`, plus ``num_directed_edges``."""
    return _process(raw_dir, fmt, directed=True)
