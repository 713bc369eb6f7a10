"""Reading a params file so that it cannot hurt: a size cap, no duplicate keys, no anchor bombs.

:func:`read_yaml` returns the document; :mod:`netzbench.params` checks what it says. This module
imports nothing of the package but its errors.
"""

from __future__ import annotations

import os
from typing import Any

import yaml

from .errors import ParamsError

#: what a params file may hold: its bytes, the nodes of the document with every alias expanded (a YAML
#: anchor bomb is small as text but huge as a tree) and how deep it nests; the real one is far below each
MAX_BYTES, MAX_NODES, MAX_DEPTH = 1 << 20, 100_000, 64


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader refusing a key given twice in one mapping (YAML keeps the last, silently)."""

    source = "params.yaml"

    def construct_mapping(self, node, deep=False):
        seen: dict = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *base` brings keys the mapping may override
            key, line = self.construct_object(key_node, deep=True), key_node.start_mark.line + 1
            try:
                first = seen.get(key)
                seen.setdefault(key, line)
            except TypeError:
                continue  # an unhashable key: the base class reports it
            if first is not None:
                raise ParamsError(f"{self.source}: key `{key}` is given twice in one mapping (lines {first} and "
                                  f"{line}); YAML would keep the last silently: remove one")
        return super().construct_mapping(node, deep)


def _expanded_size(node, source: str) -> tuple[int, int]:
    """``(values, depth)`` of the document ``node`` composes with every alias expanded, counted on the
    composed graph before anything is built (an alias is its anchor's node: memoised, a billion-laughs
    document costs its text's size); :class:`ParamsError` past :data:`MAX_NODES` or :data:`MAX_DEPTH`."""
    seen: dict[int, tuple[int, int]] = {}
    open_: set[int] = set()

    def size(n, depth: int) -> tuple[int, int]:
        if id(n) in seen:
            return seen[id(n)]
        where = f"{source}: line {n.start_mark.line + 1}"
        if id(n) in open_:
            raise ParamsError(f"{where}: an alias refers to a collection that holds it (a recursive structure)")
        open_.add(id(n))
        kids = [c for pair in n.value for c in pair] if isinstance(n, yaml.MappingNode) else (
            n.value if isinstance(n, yaml.SequenceNode) else ())
        sizes = [size(c, depth + 1) for c in kids] if depth < MAX_DEPTH else [(0, MAX_DEPTH)]
        total, height = seen[id(n)] = 1 + sum(s for s, _ in sizes), 1 + max((h for _, h in sizes), default=0)
        open_.discard(id(n))
        if height > MAX_DEPTH:
            raise ParamsError(f"{where}: nested more than {MAX_DEPTH} levels deep (aliases expanded)")
        if total > MAX_NODES:
            raise ParamsError(f"{where}: expands to more than {MAX_NODES:,} values (aliases of aliases, a YAML "
                              "anchor bomb?); params this large are refused")
        return total, height

    return size(node, 0)


def read_yaml(path: str | os.PathLike) -> Any:
    """The YAML document in ``path``, read so that it cannot hurt: at most :data:`MAX_BYTES` bytes, a
    duplicate key refused, and its size with aliases expanded checked before anything is built."""
    with open(path, "rb") as fh:
        text = fh.read(MAX_BYTES + 1)
    if len(text) > MAX_BYTES:
        raise ParamsError(f"{path}: larger than {MAX_BYTES:,} bytes; params this large are refused")
    loader = _Loader(text)
    loader.source = str(path)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node, str(path))
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise ParamsError(f"{path}: not valid YAML{where}: {getattr(exc, 'problem', None) or exc}") from None
    except RecursionError:
        raise ParamsError(f"{path}: nested too deeply to read") from None
    finally:
        loader.dispose()
