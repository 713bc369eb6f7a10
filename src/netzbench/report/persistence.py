"""A report on disk: the plain-JSON form of schema ``netzbench.benchmark/1`` and its text.

The form holds the seeds, config, options, task metadata, cell facts and
every raw history; non-finite history values are ``null`` (read back as
NaN) and every value is a float, so reading it back reproduces every
statistic and ``to_json(from_json(text)) == text`` (exact round trip).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..records import atomic_write
from .series import as_float

SCHEMA = "netzbench.benchmark/1"


def _json_number(v):
    """JSON-safe scalar: non-finite floats become None."""
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return v if math.isfinite(v) else None
    if isinstance(v, np.integer):
        return int(v)
    return v


def _history(h: Mapping | None) -> dict | None:
    if h is None:
        return None
    return {k: [_json_number(as_float(v)) for v in vals] for k, vals in h.items()}


def report_dict(seeds: list[int], config: dict, options: dict, tasks: dict, cells: dict,
                histories: Mapping[str, Mapping[str, list]]) -> dict[str, Any]:
    """The plain-JSON form (see the module docstring)."""
    return {
        "schema": SCHEMA,
        "seeds": seeds,
        "config": config,
        "options": options,
        "tasks": tasks,
        "cells": cells,
        "histories": {t: {m: [_history(h) for h in runs] for m, runs in bm.items()} for t, bm in histories.items()},
    }


def dumps(form: Mapping[str, Any], path: str | Path | None = None, indent: int | None = None) -> str:
    """JSON text of ``form``, also written to ``path`` (with a final newline) when given."""
    text = json.dumps(form, indent=indent, allow_nan=False)  # key order = roster order
    if path is not None:
        with atomic_write(path, "w", encoding="utf-8") as fh:  # never seen half written
            fh.write(text + "\n")
    return text


def check_schema(form: Any) -> None:
    """Raise ``ValueError`` naming both versions unless ``form`` is a mapping of this :data:`SCHEMA`,
    and naming the key unless its top-level parts have their types (before anything walks them)."""
    if not isinstance(form, Mapping):
        raise ValueError(f"unsupported benchmark schema: the JSON is {_json_kind(form)}, not an object "
                         f"with \"schema\": {SCHEMA!r}")
    if form.get("schema") != SCHEMA:
        raise ValueError(f"unsupported benchmark schema {_short(form.get('schema'))}; this version reads {SCHEMA!r}")
    for key in ("seeds", "histories"):
        if key not in form:
            raise ValueError(f"benchmark file without {key!r}")
    # the parts :meth:`BenchmarkReport.from_dict` reads; config, tasks and cells may be null
    for key, kind, nullable in (("seeds", list, False), ("histories", Mapping, False), ("options", Mapping, False),
                                ("config", Mapping, True), ("tasks", Mapping, True), ("cells", Mapping, True)):
        value = form.get(key)
        if key in form and not isinstance(value, kind) and not (nullable and value is None):
            raise ValueError(f"{key!r} is {_json_kind(value)}, not {'a list' if kind is list else 'an object'}")


#: a benchmark file nests 7 deep (cells -> task -> model -> seeds -> seed -> facts -> list); the limit
#: is far above that and far below the recursion limit the JSON parser would hit
MAX_DEPTH = 64
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")
#: longest integer literal read (a seed, an epoch, a count are short; Python's own limit is 4300 digits)
MAX_INT_DIGITS = 40


def _json_kind(value: Any) -> str:
    kinds = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return kinds.get(type(value), "a number")


def _short(value: Any, width: int = 60) -> str:
    """``repr(value)``, cut to ``width`` characters (a message stays one readable line)."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _check_depth(text: str) -> None:
    depth = 0
    for bracket in _BRACKET.finditer(_STRING.sub("", text)):
        depth += 1 if bracket.group() in "[{" else -1
        if depth > MAX_DEPTH:
            raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels (a benchmark file nests 7 deep)")


def _constant(name: str):
    raise ValueError(f"non-standard JSON constant {name} (netzbench writes a non-finite value as null)")


def _float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise ValueError(f"number {_short(literal)} is out of the range of a float")
    return value


def _int(literal: str) -> int:
    if len(literal.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"integer of {len(literal.lstrip('-'))} digits (at most {MAX_INT_DIGITS} are read)")
    return int(literal)


def loads(source: str | Path) -> Any:
    """The parsed JSON of ``source``: a path (a :class:`~pathlib.Path` always is), or the JSON text itself.

    Strict: nesting deeper than :data:`MAX_DEPTH`, ``NaN``/``Infinity``, a number out of a float's
    range or an integer longer than :data:`MAX_INT_DIGITS` digits raise ``ValueError`` (never
    ``RecursionError``); none of them is in a file :func:`dumps` wrote.
    """
    text = str(source)
    if isinstance(source, Path) or not text.lstrip().startswith("{"):
        text = Path(source).read_text(encoding="utf-8")
    _check_depth(text)
    return json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)
