"""GML (Newman, Netzschleuder/graph-tool, networkx exports): a small tokenizer into nested lists, and the
edge records of a GML graph."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np

from .edge_records import EdgeRecords
from .streaming import open_binary

_GML_TOKEN = re.compile(rb'(\[)|(\])|"([^"]*)"|(#[^\n]*)|([^\s\[\]"]+)|(")')


def _at(data: bytes, match: re.Match) -> str:
    line = data.count(b"\n", 0, match.start()) + 1
    return f" at line {line}"


def gml_tree(data: bytes) -> list:
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
    """:func:`gml_tree` of the file at ``path``, parsed once per process while the file is unchanged (a fetch
    reads the records and then the edge attributes of the same file; the tree is only read, never changed)."""
    stat = Path(path).stat()
    return _gml_file_tree(str(Path(path).resolve()), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=2)
def _gml_file_tree(path: str, _mtime_ns: int, _size: int) -> list:
    with open_binary(Path(path), lines=False) as fh:  # the input cap
        return gml_tree(fh.read())


def gml_int(value, what: str) -> int:
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
            directed = bool(gml_int(v, "directed"))
        elif k == b"node" and isinstance(v, list):
            node_id = next((x for kk, x in v if kk == b"id"), None)
            if node_id is None:
                raise ValueError(f"{Path(path).name}: a node has no id")
            ids.append(gml_int(node_id, "node id"))
        elif k == b"edge" and isinstance(v, list):
            attrs = dict((kk, x) for kk, x in v if kk in (b"source", b"target"))
            if len(attrs) != 2:
                raise ValueError(f"{Path(path).name}: an edge lacks source or target")
            src.append(gml_int(attrs[b"source"], "edge source"))
            dst.append(gml_int(attrs[b"target"], "edge target"))
    node_ids = np.asarray(ids, dtype=np.int64)
    if np.unique(node_ids).size != node_ids.size:
        raise ValueError(f"{Path(path).name}: duplicate node ids")
    s, d = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    if s.size and not np.isin(np.concatenate([s, d]), node_ids).all():
        raise ValueError(f"{Path(path).name}: an edge names a node id that is not declared")
    return EdgeRecords(s, d, directed, int(node_ids.size))
