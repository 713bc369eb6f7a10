"""Streaming numeric text: the helpers every reader of large line-based files shares.

Files are opened through :mod:`.limits` (``.gz``/``.bz2`` decompressed, size and line caps) and read in
byte chunks that end at a line end; a chunk whose lines all hold the same number of numeric fields is
parsed by numpy at once, with no Python object per line (AS-Skitter: 11 M lines, DBLP: 19 M).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import BinaryIO, Iterator

import numpy as np

from .limits import open_bounded

#: Bytes read per chunk by the streaming parsers.
CHUNK_BYTES = 16 << 20



def open_binary(path: Path, lines: bool = True) -> BinaryIO:
    """``path`` for binary reading (``.gz``/``.bz2`` decompressed), bounded by the caps of :mod:`.limits`
    (``lines``: the line cap too, for line-based formats)."""
    return open_bounded(path, lines)


def chunks(path: Path, size: int | None = None) -> Iterator[bytes]:
    """The file's bytes in pieces that end at a line end (the last one gets a newline)."""
    size = size or CHUNK_BYTES
    rest = b""
    with open_binary(path) as fh:
        while True:
            block = fh.read(size)
            if not block:
                break
            block = rest + block
            cut = block.rfind(b"\n")
            if cut < 0:
                rest = block
                continue
            rest = block[cut + 1 :]
            yield block[: cut + 1]
    if rest.strip():
        yield rest + b"\n"


def parse_numbers(text: bytes, sep: str) -> np.ndarray | None:
    """All numbers in ``text`` (float64), or None if something is not a number."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return np.fromstring(text, dtype=np.float64, sep=sep)
        except (ValueError, DeprecationWarning):
            return None


_BLANK = np.zeros(256, dtype=bool)
_BLANK[[9, 10, 13, 32]] = True


def same_width(chunk: bytes, width: int, sep: bytes) -> bool:
    """Whether every line of ``chunk`` (ending in a newline) has ``width`` fields, checked with numpy.

    ``sep`` is ``b" "`` (runs of blanks separate fields) or ``b","``. Guards
    the bulk parse against ragged lines whose total count happens to fit.
    """
    b = np.frombuffer(chunk, dtype=np.uint8)
    ends = np.flatnonzero(b == 10)
    if sep == b",":
        marks = np.flatnonzero(b == 44)
        extra = 1  # fields = commas + 1
    else:
        blank = _BLANK[b]
        marks = np.flatnonzero(~blank[1:] & blank[:-1]) + 1  # a field starts after a blank
        if b.size and not blank[0]:
            marks = np.concatenate([[0], marks])
        extra = 0
    per_line = np.diff(np.searchsorted(marks, ends), prepend=0) + extra
    return bool((per_line == width).all())


def as_ids(values: np.ndarray, what: str) -> np.ndarray:
    ids = values.astype(np.int64)
    if not np.array_equal(ids, values):
        raise ValueError(f"{what}: node ids must be integers")
    return ids


def strip_comments(chunk: bytes, comments: bytes) -> bytes:
    """Drop blank lines and lines whose first non-blank byte is a comment character."""
    prefixes = tuple(bytes([c]) for c in comments)
    if not any(p in chunk for p in prefixes) and b"\n\n" not in chunk:
        return chunk
    keep = [ln for ln in chunk.split(b"\n") if ln.strip() and not ln.lstrip().startswith(prefixes)]
    return b"\n".join(keep) + b"\n" if keep else b""


def read_columns(path: Path, cols: tuple[int, ...] = (0, 1), comments: bytes = b"%#",
                 chunk_bytes: int | None = None) -> np.ndarray:
    """Integer columns ``cols`` of a whitespace-separated table, streamed in chunks.

    Lines whose first non-blank character is in ``comments`` are skipped. The
    fast path parses a whole chunk with numpy when every line has the same
    number of numeric fields; otherwise (ragged lines, text columns such as
    SocioPatterns class labels) that chunk is parsed line by line.
    """
    parts: list[np.ndarray] = []
    width: int | None = None
    need = max(cols) + 1
    for chunk in chunks(path, chunk_bytes):
        chunk = strip_comments(chunk, comments)
        if not chunk.strip():
            continue
        if width is None:
            width = len(chunk.split(b"\n", 1)[0].split())
        values = parse_numbers(chunk, " ")
        lines = chunk.count(b"\n")
        if (values is not None and width >= need and values.size == lines * width
                and same_width(chunk, width, b" ")):
            table = values.reshape(lines, width)[:, list(cols)]
        else:
            rows = []
            for ln in chunk.split(b"\n"):
                fields = ln.split()
                if not fields:
                    continue
                if len(fields) < need:
                    raise ValueError(f"{Path(path).name}: line {ln[:80]!r} has fewer than {need} columns")
                rows.append([float(fields[c]) for c in cols])
            table = np.asarray(rows, dtype=np.float64).reshape(-1, len(cols))
        parts.append(as_ids(table, Path(path).name))
    if not parts:
        return np.zeros((0, len(cols)), dtype=np.int64)
    return np.concatenate(parts)


