"""Graph files written by network tools: GraphML, Pajek ``.net`` and GEXF, read into edge records.

Each reader returns a :class:`ToolGraph`: the :class:`~.edge_records.EdgeRecords` of the file
(node ids as :mod:`.networks` expects them), what the records carry besides their two ends (the
keys of :func:`.networks.edge_values`: ``weights``, ``edge_attributes``, ``layers``,
``timestamps``), facts for ``notes`` (:data:`NOTE_KEYS`) and, for GraphML and GEXF, the declared
node attributes that ``label:`` can name (:meth:`ToolGraph.labels`).

Written with the standard library's expat (``xml.parsers.expat``, event by event, no tree in
memory) and a line reader for Pajek, not with networkx, which, checked on these files (networkx
3.6), does what a benchmark cannot use:

- an undirected graph keeps no direction per record, so the reverse record ``v u`` of an edge
  and a repeat of ``u v`` become the same parallel edge of a ``MultiGraph`` (and both vanish in
  a ``Graph``): ``duplicate_edges`` and ``reverse_duplicates`` cannot be told apart;
- it refuses the pre-1.0 GEXF namespace of Gephi's sample files (``http://www.gephi.org/gexf``,
  with ``<attvalue id=..>``);
- it raises on a GraphML edge whose ``directed`` differs from the graph's ``edgedefault`` (a
  mixed graph), and reads the nested graph of a yEd group node but loses the nodes of other
  nested graphs;
- its Pajek reader names the nodes by their *labels* (two vertices with one name become one
  node) and takes the ``N`` lines after ``*Vertices N`` for vertex lines (a file that leaves
  vertices out, as Pajek allows, fails on its ``*Arcs`` line);
- its XML goes through ``ElementTree``, which expands the entities a DOCTYPE declares.

The code: :mod:`.tool_graph` (the :class:`ToolGraph` returned, and what the readers share),
:mod:`.tool_xml` (GraphML and GEXF), this module (Pajek, and all three readers for import).
networkx is also only a development dependency here (the tests use it as a reference: a network
exported by networkx to GML, GraphML, GEXF 1.2/1.3 and Pajek reads as the same graph).

Node ids. Pajek ids are the 1-based vertex numbers of the file. GraphML and GEXF ids are strings:
when every declared id is an integer (``"0"``, ``"17"``: networkx and Gephi exports of integer
nodes) the integers are the ids, so a network gives the same ``graph.npz`` from its GML, GraphML,
GEXF or Pajek export; otherwise the nodes are numbered in the order the file declares them
(``notes.node_ids`` says so). Every edge must name a declared node (as in GML).

Directions. A graph declares a default (GraphML ``edgedefault``, missing: ``undirected`` as
networkx reads it; GEXF ``defaultedgetype``, ``undirected`` by the GEXF schema) that an edge can
override (GraphML ``directed="true|false"``, GEXF ``type``; ``mutual`` is an undirected edge);
Pajek ``*Arcs``/``*Arcslist``/``*Matrix`` records are directed, ``*Edges``/``*Edgeslist`` undirected.
``EdgeRecords.directed`` is True or False when every record agrees and None for a mixed graph
(``notes.edge_directions`` counts both kinds). Link prediction makes every graph undirected.

Reverse records. Tools that write an undirected graph often list each edge twice, ``u v`` and
``v u`` (``edgedefault="undirected"`` GraphML from some exporters, Pajek ``*Edges`` from matrix
exports). As in :func:`.files.count_dropped` the reverse record is not a ``duplicate_edges`` (a
record repeating an earlier ``u -> v``); it is counted as ``reverse_duplicates`` by the shared
accounting of :func:`.networks.link_dropped` (and of the node-classification path), so that
``num_edge_records = num_edges + self_loops + duplicate_edges + reverse_duplicates``. Nothing here
counts it twice: the records are returned as the file lists them.

Values. Weights are ``weights: true`` when some edge carries a weight other than 1 (Gephi writes
``weight="1.0"`` on every edge of an unweighted graph, as KONECT's ``unweighted`` files carry a 1):
GraphML ``<data>`` and GEXF attributes named ``weight``/``weights``/``value``, the GEXF ``weight``
attribute, the third Pajek column. ``edge_attributes`` names every other value the edges carry
(GraphML keys by ``attr.name``, else ``yfiles.type``, else id; GEXF attribute titles and XML
attributes such as ``label`` and ``kind``; Pajek edge options such as ``c``, ``w``, ``l``). All are
dropped.

GraphML. ``<key>`` declarations (``for``, ``attr.name``, ``attr.type``, ``<default>``), ``<data>``
on nodes and edges, yEd's extra namespaces (``y:ShapeNode``, ``y:PolyLineEdge``, ``y:Resources``:
skipped; an attribute whose ``<data>`` holds such elements has no text value for ``label:``),
ports ignored (an edge joins nodes). Nested graphs (``<node><graph>..</graph></node>``, yEd's
group nodes) are *flattened*: their nodes and edges belong to the one network, the node that
holds a nested graph stays a node, and ``notes.nested_graphs`` counts them. Two top-level
``<graph>`` elements and ``<hyperedge>`` are refused.

GEXF 1.1, 1.2 (``http://www.gexf.net/1.2draft``), 1.3 (``http://gexf.net/1.3``) and the pre-1.0
files of Gephi's samples (``http://www.gephi.org/gexf``, ``<attvalue id=..>`` instead of
``for=..``); elements are matched by local name, so the namespace and version need no table.
``<attributes class="node|edge">`` with ``id``, ``title``, ``type`` and ``<default>``;
nested ``<nodes>`` of a hierarchy are flattened like GraphML's (``notes.nested_graphs``); a
dynamic graph's spells and times on edges are dropped (``timestamps``), and a node attribute with
several values over time cannot be a class.

Pajek. ``*Network name``, ``*Vertices N`` (``*Vertices N M``: two-mode, ``M`` vertices in the first
mode, ``notes.two_mode``), vertex lines ``id "quoted name" x y z [ic color ...]`` (names and
coordinates ignored; vertices may be left out, all ``N`` are declared), ``*Arcs``, ``*Edges``,
``*Arcslist``, ``*Edgeslist``, ``*Matrix`` (several sections in one file; ``*Arcs :2 "name"``
relations aggregated, ``layers``), ``%`` comments, CRLF, section names in any case. The
partitions and vectors of a ``.paj`` project are skipped (``notes.ignored_sections``), a second
network is refused.

XML from untrusted files: a document with a DOCTYPE (where entities are declared) is refused,
so no entity is ever expanded and no external DTD read. Every problem is a
:class:`~.files.ReadError` naming the format, the file, the line and what was found.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from . import limits
from .files import ReadError, read_text
from .tool_graph import NOTE_KEYS, NodeAttribute, ToolGraph, note_edge_attributes, with_directions
from .tool_xml import read_gexf, read_graphml

__all__ = ["NOTE_KEYS", "NodeAttribute", "ToolGraph", "looks_like_pajek", "read_gexf", "read_graphml", "read_pajek"]


# ---------------------------------------------------------------------------------- Pajek

_PAJEK_TOKEN = re.compile(r'"[^"]*"|\S+')
_PAJEK_EDGES = {"arcs": True, "edges": False, "arcslist": True, "edgeslist": False, "matrix": True}
_PAJEK_SKIPPED = ("partition", "vector", "permutation", "cluster", "hierarchy")


def _first_pajek_line(head: bytes) -> bytes:
    for line in head.lstrip(b"\xef\xbb\xbf").splitlines():
        line = line.strip()
        if line and not line.startswith(b"%"):
            return line.lower()
    return b""


def looks_like_pajek(head: bytes) -> bool:
    """Whether the first bytes of a file start a Pajek network (``*Network`` or ``*Vertices``, after
    ``%`` comments)."""
    return _first_pajek_line(head).startswith((b"*network", b"*vertices"))


def read_pajek(path: str | Path) -> ToolGraph:
    """A Pajek ``.net`` file (or the first network of a ``.paj`` project): module docstring."""
    file = Path(path)

    def fail(expected, found, line):
        raise ReadError("pajek", file, expected, found, line)

    text = read_text(file).decode("utf-8", "replace").lstrip("\ufeff")
    n = first = None  # *Vertices N [M]
    section, relation, networks = None, None, 0
    src: list[int] = []
    dst: list[int] = []
    flags: list[bool] = []
    relations: set[str] = set()
    options: set[str] = set()
    weighted = False
    skipped: list[str] = []
    row = 0  # the next *Matrix row

    def vertex(token: str, line: int, what: str = "a vertex number") -> int:
        try:
            v = int(token)
        except ValueError:
            fail(f"{what} 1..{n}", token, line)
        if not 1 <= v <= n:
            fail(f"{what} 1..{n} (*Vertices {n})", token, line)
        return v

    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        if line.startswith("*"):
            m = re.match(r"\*([A-Za-z]+)\s*(.*)", line)
            word, rest = (m.group(1).lower(), m.group(2)) if m else ("", "")
            if word == "network":
                networks += 1
                if networks > 1 or n is not None and section not in _PAJEK_SKIPPED:
                    fail("one network per file (point `path:` at a .net file)", line, number)
                section = "network"
            elif word == "vertices" and section in _PAJEK_SKIPPED:
                continue  # the size line of a partition or vector
            elif word == "vertices":
                sizes = rest.split()
                if n is not None:
                    fail("one *Vertices line (one network per file)", line, number)
                if not sizes or not all(s.isdigit() for s in sizes[:2]) or len(sizes) > 2:
                    fail("'*Vertices N' or '*Vertices N M' (two-mode)", line, number)
                n = limits.check(file, f"line {number}: *Vertices", int(sizes[0]))  # before any list of n
                first = int(sizes[1]) if len(sizes) == 2 else None
                if first is not None and not 0 < first < n:
                    fail("'*Vertices N M' with 0 < M < N (M vertices in the first mode)", line, number)
                section = "vertices"
            elif word in _PAJEK_EDGES:
                if n is None:
                    fail("a '*Vertices N' line before the edges", line, number)
                section, row = word, 0
                if word == "matrix":
                    limits.check(file, f"line {number}: *Matrix of *Vertices {n}: cells",
                                 first * (n - first) if first else n * n, "matrix")
                qualifier = re.match(r":\s*(\d+)", rest)
                relation = qualifier.group(1) if qualifier else None
                relations.add(relation)
            elif word in _PAJEK_SKIPPED:
                section = word
                skipped.append(line)
            else:
                fail("a Pajek section (*Network, *Vertices, *Arcs, *Edges, *Arcslist, *Edgeslist, *Matrix)",
                     line, number)
            continue
        if section in _PAJEK_SKIPPED:
            continue
        if section in (None, "network"):
            fail("a '*Vertices N' line first", line, number)
        tokens = _PAJEK_TOKEN.findall(line)
        if section == "vertices":
            vertex(tokens[0], number)
            continue
        directed = _PAJEK_EDGES[section]
        if section == "matrix":
            rows, columns, shift = (first, n - first, first) if first else (n, n, 0)
            if row >= rows:
                fail(f"{rows} matrix rows (*Vertices {n}{f' {first}' if first else ''})", line, number)
            try:
                cells = np.asarray([float(t) for t in tokens])
            except ValueError:
                fail("a matrix row of numbers", line, number)
            if cells.size != columns:
                fail(f"a matrix row of {columns} numbers", f"{cells.size} numbers", number)
            hit = np.flatnonzero(cells)
            src += [row + 1] * hit.size
            dst += (hit + 1 + shift).tolist()
            flags += [directed] * hit.size
            weighted = weighted or bool((cells[hit] != 1).any())
            row += 1
            continue
        if section in ("arcslist", "edgeslist"):
            u = vertex(tokens[0], number)
            targets = [vertex(t, number) for t in tokens[1:]]
            src += [u] * len(targets)
            dst += targets
            flags += [directed] * len(targets)
            continue
        if len(tokens) < 2:
            fail("'u v [weight] [options]' (two vertex numbers)", line, number)
        src.append(vertex(tokens[0], number))
        dst.append(vertex(tokens[1], number))
        flags.append(directed)
        rest = tokens[2:]
        if rest:
            try:
                weight = float(rest[0])
            except ValueError:
                pass
            else:
                rest = rest[1:]
                weighted = weighted or weight != 1.0
        options.update(t for t in rest[::2] if not t.startswith('"') and t[:1].isalpha())
    if n is None:
        raise ReadError("pajek", file, "a '*Vertices N' line", "none")
    info: dict = {}
    note_edge_attributes(info, list(options), weighted)
    if len(relations) > 1:
        info["layers"] = True
    if first is not None:
        info["two_mode"] = {"first_mode": first, "second_mode": n - first}
    if skipped:
        info["ignored_sections"] = skipped
    ids = np.arange(1, n + 1, dtype=np.int64)
    records = with_directions(np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64),
                               np.asarray(flags, dtype=bool), n, info)
    return ToolGraph("pajek", file, records, info, ids, [str(i) for i in ids], [None] * n)
