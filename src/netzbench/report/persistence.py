"""A report on disk: the plain-JSON form of schema ``netzbench.benchmark/1`` and its text.

The form holds the seeds, config, options, task metadata, cell facts and
every raw history; non-finite history values are ``null`` (read back as
NaN) and every value is a float, so reading it back reproduces every
statistic and ``to_json(from_json(text)) == text`` (exact round trip).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

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
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(text + "\n", encoding="utf-8")
    return text


def check_schema(form: Any) -> None:
    """Raise ``ValueError`` naming both versions unless ``form`` is a mapping of this :data:`SCHEMA`."""
    if not isinstance(form, Mapping) or form.get("schema") != SCHEMA:
        found = form.get("schema") if isinstance(form, Mapping) else type(form).__name__
        raise ValueError(f"unsupported benchmark schema {found!r}; this version reads {SCHEMA!r}")


def loads(source: str | Path) -> Any:
    """The parsed JSON of ``source``: a path, or the JSON text itself."""
    text = str(source)
    if not text.lstrip().startswith("{"):
        text = Path(source).read_text(encoding="utf-8")
    return json.loads(text)
