"""A report on disk: the plain-JSON form of schema ``netzbench.benchmark/1`` and its text.

The form holds the seeds, config, options, task metadata, cell facts and
every raw history; non-finite history values are ``null`` (read back as
NaN) and every value is a float, so reading it back reproduces every
statistic and ``to_json(from_json(text)) == text`` (exact round trip).

Published, the form is split in two files (:func:`split`, :func:`write_split`): ``benchmark.json``
holds everything but the histories, which are ``benchmark.histories.json.gz`` beside it (gzip of
the JSON ``{"schema": "netzbench.histories/1", "histories": ...}``, a fifth of the size), and
its ``histories_file`` names that file, the SHA-256 and the length of its uncompressed text. So
no file git tracks is large, and a pair that does not belong together (a stale or edited sidecar)
is refused rather than read. :func:`read` joins them again; a one-file form (``to_json``, every
file written before 2026-12-04) reads as it always did.
"""

from __future__ import annotations

import gzip
import errno
import hashlib
import json
import math
import os
import re
import stat
import zlib
from collections.abc import Mapping
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..records import StagedFiles, atomic_write
from .series import as_float

SCHEMA = "netzbench.benchmark/1"
HISTORIES_SCHEMA = "netzbench.histories/1"
#: the published benchmark file's histories: ``<stem>`` + this, in the same folder
HISTORIES_SUFFIX = ".histories.json.gz"
#: longest uncompressed histories text read (the headline's is 7.6 MB): a corrupt or hostile sidecar
#: cannot make a reader inflate gigabytes (``NETZBENCH_MAX_HISTORIES`` raises it, :func:`cap`)
MAX_HISTORIES_BYTES = 1 << 27
#: longest benchmark file read (the headline's is 0.6 MB; ``NETZBENCH_MAX_BENCHMARK`` raises it)
MAX_BENCHMARK_BYTES = 1 << 26
_CAP_VARIABLES = {"histories": ("NETZBENCH_MAX_HISTORIES", MAX_HISTORIES_BYTES),
                  "benchmark": ("NETZBENCH_MAX_BENCHMARK", MAX_BENCHMARK_BYTES)}


def cap(kind: str) -> tuple[int, str]:
    """The byte cap on a published ``kind`` (``benchmark`` or ``histories``) file and the environment
    variable that raises it (a positive whole number there; anything else is refused)."""
    var, default = _CAP_VARIABLES[kind]
    raw = os.environ.get(var, "").strip()
    if not raw:
        return default, var
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{var}={raw!r}: expected a positive whole number of bytes")
    return int(raw), var


def read_regular(path: str | Path, kind: str = "benchmark") -> bytes:
    """The bytes of the published file ``path``, read only when it is a regular file (a link to one is
    followed) of at most :func:`cap` ``(kind)`` bytes: a FIFO (which would block), a device (``/dev/zero``
    never ends), a folder or a file over the cap raises ``OSError`` naming it, before anything is read."""
    limit, var = cap(kind)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))  # a FIFO opens at once
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a FIFO, device or folder is never read)", str(path))
        if info.st_size > limit:
            raise OSError(errno.EFBIG, f"{info.st_size:,} bytes, over the cap of {limit:,} for a {kind} file "
                          f"(set {var} higher to read it)", str(path))
        data = fh.read(limit + 1)
    if len(data) > limit:  # grew while read
        raise OSError(errno.EFBIG, f"more than the cap of {limit:,} bytes (set {var} higher)", str(path))
    return data


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


def _is_path(source: str | Path) -> bool:
    """Whether :func:`loads` reads ``source`` as a file's path rather than as JSON text."""
    return isinstance(source, Path) or not str(source).lstrip().startswith("{")


def loads(source: str | Path) -> Any:
    """The parsed JSON of ``source``: a path (a :class:`~pathlib.Path` always is), or the JSON text itself.

    Strict: nesting deeper than :data:`MAX_DEPTH`, ``NaN``/``Infinity``, a number out of a float's
    range or an integer longer than :data:`MAX_INT_DIGITS` digits raise ``ValueError`` (never
    ``RecursionError``); none of them is in a file :func:`dumps` wrote.
    """
    text = read_regular(source).decode("utf-8") if _is_path(source) else str(source)
    _check_depth(text)
    return json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)


def histories_name(path: str | Path) -> str:
    """The file name of ``path``'s histories: ``benchmark.json`` -> ``benchmark.histories.json.gz``."""
    return Path(path).name.removesuffix(".json") + HISTORIES_SUFFIX


def split(form: Mapping[str, Any], name: str) -> tuple[str, bytes]:
    """The published pair of ``form`` (a one-file form) for a benchmark file named ``name``: the
    benchmark file's text (every part but ``histories``, then ``histories_file``) and the sidecar's
    bytes. Deterministic: the same form gives the same bytes (no time or name in the gzip header)."""
    raw = json.dumps({"schema": HISTORIES_SCHEMA, "histories": form["histories"]}, allow_nan=False).encode()
    main = {k: v for k, v in form.items() if k != "histories"}
    main["histories_file"] = {"name": histories_name(name), "sha256": hashlib.sha256(raw).hexdigest(),
                              "bytes": len(raw)}
    return dumps(main), gzip.compress(raw, compresslevel=6, mtime=0)


def write_split(form: Mapping[str, Any], path: str | Path, staging=None) -> None:
    """Write ``form`` as the pair :func:`split` makes: ``path`` and its sidecar beside it, both renamed
    into place once both are written, the sidecar first (``staging``: a
    :class:`~netzbench.records.StagedFiles` that renames them with the rest of a stage's outputs)."""
    path = Path(path)
    text, sidecar = split(form, path.name)
    with nullcontext(staging) if staging is not None else StagedFiles() as out:
        for target, data in ((path.with_name(histories_name(path)), sidecar), (path, (text + "\n").encode())):
            with out.open(target, "wb") as fh:
                fh.write(data)


def _inflate(data: bytes, limit: int) -> bytes:
    """``data`` gunzipped, but never more than ``limit + 1`` bytes of it (then the rest is not inflated)."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)  # a gzip header and trailer
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise ValueError(f"not gzip data ({exc})") from None
    if len(out) <= limit and not inflater.eof:
        raise ValueError("truncated gzip data")
    return out


def join(form: Any, read_sidecar: Callable[[str], bytes] | None) -> Any:
    """``form`` with its histories back in place when they are in a sidecar (``histories_file``), read
    by ``read_sidecar(name)``; any other form as it is. ``ValueError`` when the sidecar is not the one
    ``form`` names (its length or SHA-256 differ: another run's, or edited), not gzip, or not strict JSON
    of :data:`HISTORIES_SCHEMA`; ``OSError`` from ``read_sidecar`` passes through."""
    if not isinstance(form, Mapping) or "histories_file" not in form or "histories" in form:
        return form
    ref = form["histories_file"]
    if not (isinstance(ref, Mapping) and isinstance(ref.get("name"), str)
            and re.fullmatch(r"[A-Za-z0-9_.-]+" + re.escape(HISTORIES_SUFFIX), ref["name"])
            and isinstance(ref.get("sha256"), str) and re.fullmatch(r"[0-9a-f]{64}", ref["sha256"])
            and type(ref.get("bytes")) is int and ref["bytes"] > 0):
        raise ValueError(f"'histories_file' is {_short(ref)}, not {{name: <file>{HISTORIES_SUFFIX} in the same "
                         f"folder, sha256: <hex>, bytes: <count>}}")
    limit, var = cap("histories")
    if ref["bytes"] > limit:
        raise ValueError(f"'histories_file' names {ref['bytes']:,} bytes of histories, over the cap of {limit:,} "
                         f"(set {var} higher to read them)")
    if read_sidecar is None:
        raise ValueError(f"the histories are in {ref['name']}, beside the benchmark file: read it by its path")
    name = ref["name"]
    try:
        raw = _inflate(read_sidecar(name), ref["bytes"])  # never more than the length the file names
    except ValueError as exc:
        raise ValueError(f"histories file {name}: {exc}") from None
    if len(raw) != ref["bytes"] or hashlib.sha256(raw).hexdigest() != ref["sha256"]:
        raise ValueError(f"histories file {name} is not the one the benchmark file names (its length or SHA-256 "
                         "differ: another run's, or edited)")
    side = loads(raw.decode("utf-8"))
    if not isinstance(side, Mapping) or side.get("schema") != HISTORIES_SCHEMA or "histories" not in side:
        raise ValueError(f"histories file {name}: not of schema {HISTORIES_SCHEMA!r}")
    return {**{k: v for k, v in form.items() if k != "histories_file"}, "histories": side["histories"]}


def read(source: str | Path) -> Any:
    """The parsed form of ``source`` (as :func:`loads`), its histories joined from the sidecar beside a
    path (:func:`join`); JSON text naming a sidecar raises ``ValueError``."""
    return join(loads(source), beside(source) if _is_path(source) else None)


def beside(path: str | Path) -> Callable[[str], bytes]:
    """The reader of a sidecar in ``path``'s folder (``read_sidecar`` of :func:`join`)."""
    return lambda name: read_regular(Path(path).with_name(name), "histories")
