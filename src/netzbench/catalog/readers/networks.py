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

The readers of each format are in :mod:`.network_formats`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .network_formats import (EdgeRecords, read_edgelist, read_gml, read_konect, read_multiplex_edges,
                              read_netzschleuder_csv, read_sociopatterns_tij, read_ucinet_csv_matrix)


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


def read_records(raw_dir: Path, fmt: str) -> EdgeRecords:
    """Read the raw files of one source (``fmt`` is the source's format)."""
    raw_dir = Path(raw_dir)
    if fmt == "netzschleuder-csv":
        return read_netzschleuder_csv(_one(raw_dir, "edges.csv"), _one(raw_dir, "nodes.csv"))
    if fmt == "gml":
        return read_gml(_one(raw_dir, "*.gml"))
    if fmt == "konect":
        return read_konect(_one(raw_dir, "out.*"))
    if fmt == "ucinet-csv-matrix":
        return read_ucinet_csv_matrix(_one(raw_dir, "*.csv"))
    if fmt == "multiplex-edges":
        return read_multiplex_edges(_one(raw_dir, "*_multiplex.edges", "*.edges"))
    if fmt == "sociopatterns-tij":
        return read_sociopatterns_tij(_one(raw_dir, "tij*", "*.dat", "*.csv"))
    if fmt == "edgelist":
        return read_edgelist(_one(raw_dir, "*.txt.gz", "*.txt", "*.gz"))
    raise ValueError(f"no network reader for format {fmt!r}")


def _process(raw_dir: Path, fmt: str, directed: bool) -> tuple[dict, dict]:
    records = read_records(raw_dir, fmt)
    if records.directed is not None:
        directed = records.directed  # the file's own flag wins where the format has one
    return simple_bundle(records, directed)


def link_pred(raw_dir: Path, fmt: str) -> tuple[dict, dict]:
    """Processor for an undirected network (any format above) -> simple undirected graph."""
    return _process(raw_dir, fmt, directed=False)


def link_pred_directed(raw_dir: Path, fmt: str) -> tuple[dict, dict]:
    """Processor for a directed network: as :func:`link_pred`, plus ``num_directed_edges``."""
    return _process(raw_dir, fmt, directed=True)
