"""Reading the raw files of a user's dataset: line-numbered errors, numeric tables, what was read.

Shared by the readers of declared datasets (``custom_tasks`` entries with a
``format:``; :mod:`.declared`). Every problem with a file is a
:class:`ReadError` naming the expected format, the file, the line and what
was found there, so that fetch can stop with one message instead of a
traceback.

Text tables accept what real files carry: ``\\r\\n`` line ends, blank
lines, ``#``/``%`` comment lines, whitespace, tab or comma separators
(``"1, 2"`` as in TU files), an optional header line, ``.gz``/``.bz2``
compression.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..checks import DatasetError
from .streaming import open_binary, parse_numbers, same_width

#: names that are documentation, never data, when looking for a format's files
_NOT_DATA = ("readme", "license", "licence", "copying", "meta.", "citation", ".md", ".pdf", ".html", ".json",
             ".py", ".ipynb", ".yaml", ".yml", ".log")


class ReadError(DatasetError):
    """A raw file does not hold what its format says.

    ``format``, ``file``, ``line`` (1-based, None when the problem is not on
    one line) and ``found`` (the offending text) are kept as attributes.
    """

    def __init__(self, fmt: str, file, expected: str, found: str | None = None, line: int | None = None):
        self.format, self.file, self.line, self.found = fmt, Path(file) if file else None, line, found
        where = f"{self.file}" + (f", line {line}" if line else "") if file else "the raw files"
        what = f"; found {found!r}" if found is not None else ""
        super().__init__(f"format {fmt!r}: {where}: expected {expected}{what}")


@dataclass
class Bundle:
    """A dataset read from raw files, in the processed layout (:mod:`netzbench.graphs.layout`).

    ``arrays`` and ``counts`` are what fetch writes into ``graph.npz`` and
    ``meta.json``; ``dropped`` says what the reader left out (duplicate
    edges, self-loops, weights, ...); ``files`` are the raw files read (their
    sha256 goes into ``meta.json``); ``notes`` holds further facts for
    ``meta.json`` (``label_mapping``, ``node_features``, ...).
    """

    arrays: dict
    counts: dict
    dropped: dict = field(default_factory=dict)
    files: list = field(default_factory=list)
    notes: dict = field(default_factory=dict)


def sha256_of(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def is_data_file(path: Path) -> bool:
    name = path.name.lower()
    return not name.startswith(".") and not any(tag in name for tag in _NOT_DATA)


def data_files(path: Path) -> list[Path]:
    """``path`` itself, or the data files under the folder ``path`` (any depth, hidden ones skipped)."""
    path = Path(path)
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and is_data_file(p)
                  and not any(part.startswith(".") for part in p.relative_to(path).parts))


def one_file(path: Path, fmt: str, what: str, matches) -> Path:
    """The single file under ``path`` that ``matches(file)`` accepts; a :class:`ReadError` otherwise."""
    found = [p for p in data_files(path) if matches(p)]
    if len(found) == 1:
        return found[0]
    if not found:
        listing = ", ".join(p.name for p in data_files(path)[:12]) or "no data files"
        raise ReadError(fmt, path, what, f"no such file ({listing})")
    raise ReadError(fmt, path, f"one {what}", f"{len(found)}: {', '.join(p.name for p in found[:6])} "
                    "(point `path:` at the file to use)")


def read_text(path: Path) -> bytes:
    """The bytes of a (possibly compressed) text file with ``\\r\\n``/``\\r`` line ends made ``\\n``."""
    with open_binary(Path(path)) as fh:
        data = fh.read()
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def _fields(line: bytes, sep: bytes | None) -> list[bytes]:
    return [f.strip() for f in line.split(sep)] if sep else line.split()


def _is_number(token: bytes) -> bool:
    try:
        float(token)
        return True
    except ValueError:
        return False


@lru_cache(maxsize=None)
def _prefixes(comments: bytes) -> tuple[bytes, ...]:
    return tuple(bytes([c]) for c in comments)


def is_comment(line: bytes, comments: bytes) -> bool:
    stripped = line.lstrip()
    return not stripped or stripped.startswith(_prefixes(comments))


@dataclass
class Table:
    """Rows of numbers read by :func:`read_table`, with what is needed to name a row's line."""

    values: np.ndarray
    header: list[str] | None
    width: int
    path: Path
    fmt: str
    comments: bytes

    def line(self, row: int) -> int:
        """The 1-based line number of data row ``row`` (rescans the file; for error messages)."""
        seen = -1
        skipped_header = self.header is None
        for number, raw in enumerate(read_text(self.path).split(b"\n"), 1):
            if is_comment(raw, self.comments):
                continue
            if not skipped_header:
                skipped_header = True
                continue
            seen += 1
            if seen == row:
                return number
        return number

    def text(self, row: int) -> str:
        return read_text(self.path).split(b"\n")[self.line(row) - 1].decode("utf-8", "replace")

    def fail(self, row: int, expected: str):
        """Raise a :class:`ReadError` pointing at data row ``row``."""
        raise ReadError(self.fmt, self.path, expected, self.text(row).strip(), self.line(row))


def separator(sample: bytes) -> bytes | None:
    """``b","`` for CSV, ``b"\\t"`` for tab-separated, None for runs of blanks (the first data line decides)."""
    if b"," in sample:
        return b","
    if b"\t" in sample and b" " in sample.strip():
        return b"\t"  # tabs separate fields that may hold blanks
    return None


def read_table(path: Path, fmt: str, what: str, *, columns: int | None = None, min_width: int = 1,
               integer: bool = True, header: bool | str = False, comments: bytes = b"#%") -> Table:
    """The numeric table in ``path``: one row per data line, ``columns`` leading fields (all when None).

    With ``columns`` None every data line must have the same number of fields
    (at least ``min_width``); with ``columns`` set, lines may carry more
    fields (weights, timestamps, text), which are ignored. ``header``: the
    first data line is a header (True), may be one when it is not numeric
    (``"auto"``), or is data (False); a header is kept in ``Table.header``.
    ``integer``: the values must be whole numbers (returned as int64).
    Raises :class:`ReadError` at the first line that does not fit.
    """
    path = Path(path)
    data = read_text(path)
    pos, number, line = 0, 0, b""
    while pos < len(data):  # the first data line, without splitting the whole file
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        line, number = data[pos:end], number + 1
        if not is_comment(line, comments):
            break
        pos = end + 1
    else:
        raise ReadError(fmt, path, what, "an empty file (no data lines)")
    sep = separator(line)
    names = None
    leading = [f for f in _fields(line, sep)[: columns or None] if f]
    if header is True or (header == "auto" and not all(_is_number(f) for f in leading)):
        names = [f.decode("utf-8", "replace").strip().strip('"') for f in _fields(line, sep)]
        body, offset = data[end + 1:], number
    else:
        body, offset = data[pos:], number - 1
    need = columns or min_width
    values = _fast(body, sep, comments, columns)
    if values is None:
        values = _slow(body.split(b"\n"), sep, comments, columns, need, path, fmt, what, offset)
    if values.ndim != 2 or values.shape[1] < need:
        raise ReadError(fmt, path, f"{what} ({need} field(s) per line)", f"{values.shape[-1]} field(s)")
    table = Table(values, names, values.shape[1], path, fmt, comments)
    if integer:
        ints = values.astype(np.int64)
        if not np.array_equal(ints, values):
            table.fail(int(np.flatnonzero((ints != values).any(axis=1))[0]), f"{what} (whole numbers)")
        table.values = ints
    return table


def _fast(body: bytes, sep: bytes | None, comments: bytes, columns: int | None) -> np.ndarray | None:
    """Parse every data line at once with numpy, or None when the lines are not a uniform numeric table."""
    if any(c in body for c in _prefixes(comments)) or b"\n\n" in body or body.startswith(b"\n"):
        body = b"\n".join(ln for ln in body.split(b"\n") if not is_comment(ln, comments))
    body = body.rstrip(b"\n")
    if not body.strip():
        return np.zeros((0, columns or 1))
    chunk = body + b"\n"
    if sep is not None:
        chunk = chunk.replace(sep, b" ")
    width = len(chunk[: chunk.find(b"\n")].split())
    rows = chunk.count(b"\n")
    if width == 0 or not same_width(chunk, width, b" "):
        return None
    values = parse_numbers(chunk, " ")
    if values is None or values.size != width * rows:
        return None
    table = values.reshape(rows, width)
    return table[:, :columns] if columns else table


def _slow(lines, sep, comments, columns, need, path, fmt, what, offset) -> np.ndarray:
    """Line by line: the rows, or a :class:`ReadError` at the first line that does not fit."""
    rows, width = [], None
    for number, line in enumerate(lines, offset + 1):
        if is_comment(line, comments):
            continue
        fields = [f for f in _fields(line, sep) if f or sep]
        text = line.decode("utf-8", "replace").strip()
        if len(fields) < need:
            raise ReadError(fmt, path, f"{what} ({need} field(s))", text, number)
        if columns is None:
            width = width or len(fields)
            if len(fields) != width:
                raise ReadError(fmt, path, f"{what} ({width} fields, as on the first data line)", text, number)
        try:
            rows.append([float(f) for f in fields[: columns or len(fields)]])
        except ValueError:
            raise ReadError(fmt, path, f"{what} (numbers)", text, number) from None
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), -1)


def count_dropped(src: np.ndarray, dst: np.ndarray) -> dict:
    """What collapsing edge records into a simple undirected graph drops: ``self_loops`` (records
    ``u -> u``) and ``duplicate_edges`` (records repeating an earlier ``u -> v``; the reverse
    ``v -> u`` of a listed pair is not counted: it names the same undirected edge)."""
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    loops = src == dst
    s, d = src[~loops], dst[~loops]
    if s.size:
        lo, span = int(min(s.min(), d.min())), int(max(s.max(), d.max()) - min(s.min(), d.min())) + 1
        if span < 3_000_000_000:  # one int64 key per record: a 1-D sort
            keys = np.sort((s - lo) * span + (d - lo))
            distinct = int(np.count_nonzero(keys[1:] != keys[:-1])) + 1
        else:
            distinct = np.unique(np.stack([s, d]), axis=1).shape[1]
    else:
        distinct = 0
    return {"self_loops": int(loops.sum()), "duplicate_edges": int(s.size - distinct)}


def first_data_line(path: Path, comments: bytes = b"#%", skip: int = 0) -> bytes:
    """The first line of ``path`` that is not blank or a comment, after ``skip`` such lines."""
    with open_binary(Path(path)) as fh:
        for raw in fh:
            line = raw.rstrip(b"\r\n")
            if is_comment(line, comments):
                continue
            if skip == 0:
                return line
            skip -= 1
    return b""
