"""What the readers of network tools' files return (:mod:`.tool_formats`): a :class:`ToolGraph`.

The edge records with their node ids, what the edges carry besides their ends, facts for
``notes`` (:data:`NOTE_KEYS`) and the node attributes that ``label:`` can name, with the helpers
the GraphML, GEXF (:mod:`.tool_xml`) and Pajek readers share: node ids from the file's ids,
directions counted, attribute values typed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .edge_records import EdgeRecords
from .files import ReadError

#: the facts of a tool file that go into ``notes`` (not ``dropped``)
NOTE_KEYS = ("edge_directions", "nested_graphs", "two_mode", "ignored_sections")
NESTED_VALUE = object()  # the value of a <data>/<attvalue> that holds XML elements instead of text
_INT_ID = re.compile(r"[+-]?\d{1,18}")
_INT_TYPES = {"int", "long", "integer", "short", "byte", "biginteger"}
_FLOAT_TYPES = {"float", "double", "bigdecimal"}


@dataclass
class NodeAttribute:
    """A node attribute a GraphML ``<key>`` or GEXF ``<attribute>`` declares, with the values read."""

    id: str
    name: str | None
    type: str
    line: int
    default: object = None  # text, or None without a <default>
    values: dict = field(default_factory=dict)  # node position -> text (or NESTED_VALUE)
    changing: tuple | None = None  # (node position, line) of a node given two different values


@dataclass
class ToolGraph:
    """One network read from a tool's file (module docstring)."""

    fmt: str
    file: Path
    records: EdgeRecords
    info: dict
    node_ids: np.ndarray  # int64: the id of each declared node, in declaration order
    node_names: list  # the id each node has in the file
    node_lines: list  # the line declaring each node
    attributes: dict = field(default_factory=dict)  # attribute id -> NodeAttribute (node attributes)

    def labels(self, label: str) -> tuple[np.ndarray, list]:
        """``(node ids, class of each node)`` from the node attribute named ``label`` (its id, or its
        GraphML ``attr.name`` / GEXF ``title``); a node without a value takes the declared default."""
        what = f"a node attribute {label!r} (its id or its {'title' if self.fmt == 'gexf' else 'attr.name'})"
        found = [a for a in self.attributes.values() if label in (a.id, a.name)]
        if not found:
            declared = ", ".join(a.id if a.name in (None, a.id) else f"{a.id} ({a.name})"
                                 for a in self.attributes.values())
            raise ReadError(self.fmt, self.file, what, f"node attributes: {declared or 'none declared'}")
        if len(found) > 1:
            raise ReadError(self.fmt, self.file, f"{what}, naming one attribute",
                            f"{len(found)}: " + ", ".join(f"{a.id} ({a.name}) at line {a.line}" for a in found))
        attr = found[0]
        if attr.changing is not None:
            pos, line = attr.changing
            raise ReadError(self.fmt, self.file, f"one value of {label!r} per node (the class)",
                            f"node {self.node_names[pos]!r} with several values over time", line)
        values = []
        for pos, name in enumerate(self.node_names):
            text = attr.values.get(pos, attr.default)
            if text is None:
                raise ReadError(self.fmt, self.file, f"a value of {label!r} on every node (the class; or a default)",
                                f"node {name!r} without one", self.node_lines[pos])
            if text is NESTED_VALUE:
                raise ReadError(self.fmt, self.file, f"a text value of {label!r} (the class)",
                                f"node {name!r}: XML elements (drawing data such as yEd's)", self.node_lines[pos])
            try:
                values.append(_typed(text, attr.type))
            except ValueError:
                raise ReadError(self.fmt, self.file, f"a value of type {attr.type} for {label!r}",
                                f"node {name!r}: {text!r}", self.node_lines[pos]) from None
        return self.node_ids.copy(), values


def _typed(text: str, kind: str):
    kind = (kind or "string").lower()
    if kind in _INT_TYPES:
        try:
            return int(text)
        except ValueError:
            number = float(text)
            if number != int(number):
                raise
            return int(number)
    if kind in _FLOAT_TYPES:
        return float(text)
    if kind == "boolean":
        word = text.strip().lower()
        if word not in ("true", "false", "1", "0"):
            raise ValueError(text)
        return word in ("true", "1")
    return text


def is_unit_weight(text: str) -> bool:
    """Whether a weight value is 1 (carries nothing)."""
    try:
        return float(text) == 1.0
    except ValueError:
        return False


# ---------------------------------------------------------------------------------- records


def _number(names: list) -> tuple[np.ndarray, str | None]:
    """Ids for the declared node names: the integers when all are distinct integers, else positions."""
    if names and all(_INT_ID.fullmatch(n) for n in names):
        ids = np.asarray([int(n) for n in names], dtype=np.int64)
        if np.unique(ids).size == ids.size:
            return ids, None
    return np.arange(len(names), dtype=np.int64), "strings, numbered in the order the file declares the nodes"


def finish_graph(fmt: str, file: Path, names: list, lines: list, ends: tuple, directed: list, info: dict,
            attributes: dict | None = None) -> ToolGraph:
    """The :class:`ToolGraph` of an XML file: endpoints resolved to ids, the directions counted."""
    (src_names, dst_names, edge_lines) = ends
    index = {n: i for i, n in enumerate(names)}
    ids, note = _number(names)
    pos = np.empty((2, len(src_names)), dtype=np.int64)
    for row, column in enumerate((src_names, dst_names)):
        for k, name in enumerate(column):
            at = index.get(name)
            if at is None:
                raise ReadError(fmt, file, "edges between declared nodes", f"edge {('source', 'target')[row]} "
                                f"{name!r}: no node has that id", edge_lines[k])
            pos[row, k] = at
    src, dst = ids[pos[0]], ids[pos[1]]
    flags = np.asarray(directed, dtype=bool)
    if note:
        info["node_ids"] = note
    return ToolGraph(fmt, file, with_directions(src, dst, flags, len(names), info), info, ids, names, lines,
                     attributes or {})


def with_directions(src: np.ndarray, dst: np.ndarray, flags: np.ndarray, declared: int, info: dict) -> EdgeRecords:
    arcs = int(flags.sum())
    if 0 < arcs < flags.size:
        info["edge_directions"] = {"directed": arcs, "undirected": int(flags.size - arcs)}
    directed = (bool(arcs) if arcs in (0, flags.size) else None) if flags.size else False
    return EdgeRecords(src.astype(np.int64), dst.astype(np.int64), directed, declared)


def note_edge_attributes(info: dict, names: list, weighted: bool) -> None:
    names = sorted(set(names))
    if names:
        info["edge_attributes"] = names
    info["weights"] = weighted
