"""One size policy for every reader of raw data: caps that keep a hostile file from exhausting the machine.

A 40-byte file can declare a billion nodes, and a 3 MB ``.gz`` can inflate to gigabytes. Every reader
checks what a file declares against the file's content and against these caps *before* allocating, and
reads decompressed input through :func:`open_bounded`, which stops at the byte, inflation and line caps
while streaming (nothing is read whole first). Each cap is raised for a genuinely large graph by its
environment variable (read at each check, so it applies to the next fetch):

=========================== =============== ===============================================================
variable                    default         what it bounds
=========================== =============== ===============================================================
``NETZBENCH_MAX_NODES``     50,000,000      nodes a file may declare (Pajek ``*Vertices``, UCINET ``N=``/
                                            ``NR=``+``NC=``, GML/CSV node lists)
``NETZBENCH_MAX_MATRIX``    268,435,456     cells of a declared adjacency matrix (N x N x NM, UCINET, Pajek
                            (2^28)          ``*Matrix``, CSV matrices), each also checked against the rows the
                                            file holds
``NETZBENCH_MAX_INPUT``     4 GiB           bytes read from one file after decompression
``NETZBENCH_MAX_INFLATION`` 200             decompressed bytes per compressed byte of a ``.gz``/``.bz2``
                                            file, past its first 256 MiB
``NETZBENCH_MAX_LINE``      64 MiB          one line of a line-based format (edge lists, tables, DL, Pajek)
=========================== =============== ===============================================================

Past a cap the reader stops with a :class:`SizeLimitError`, one line naming the file, the declared or
read size, the cap and the variable that raises it.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from ..checks import DatasetError

#: (environment variable, default, what is counted) per cap
CAPS = {
    "nodes": ("NETZBENCH_MAX_NODES", 50_000_000, "nodes"),
    "matrix": ("NETZBENCH_MAX_MATRIX", 1 << 28, "matrix cells"),
    "input": ("NETZBENCH_MAX_INPUT", 4 << 30, "bytes after decompression"),
    "inflation": ("NETZBENCH_MAX_INFLATION", 200, "decompressed bytes per compressed byte"),
    "line": ("NETZBENCH_MAX_LINE", 64 << 20, "bytes in one line"),
}
#: decompressed bytes always allowed before the inflation cap applies (small, very regular files compress far)
INFLATION_FLOOR = 256 << 20


class SizeLimitError(DatasetError):
    """A file declares or holds more than a cap of :data:`CAPS` allows; the message names the file, the size,
    the cap and the environment variable that raises it."""


def cap(name: str) -> int:
    """The cap ``name`` of :data:`CAPS`: its environment variable when set (a positive whole number), else its
    default."""
    var, default, _ = CAPS[name]
    raw = os.environ.get(var, "").strip().replace("_", "")
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise SizeLimitError(f"{var}={os.environ[var]!r}: expected a positive whole number")
    return int(raw)


def refuse(file, what: str, size: int, name: str, hint: str = "") -> SizeLimitError:
    """The error for ``size`` (of ``what``) over the cap ``name`` in ``file``."""
    var, _, unit = CAPS[name]
    limit = cap(name)
    return SizeLimitError(f"{file}: {what} {size:,} is over the cap of {limit:,} {unit}{hint} "
                          f"(for a genuinely larger graph, set {var} higher)")


def check(file, what: str, size: int, name: str = "nodes") -> int:
    """``size`` when it is within the cap ``name``; a :class:`SizeLimitError` naming ``file`` and ``what``
    otherwise."""
    if size > cap(name):
        raise refuse(file, what, size, name)
    return size


class _Bounded(io.RawIOBase):
    """A binary stream that counts what it returns and stops at the input, inflation and line caps."""

    def __init__(self, inner, file: Path, compressed: int | None, lines: bool):
        self.inner, self.file, self.lines = inner, file, lines
        self.read_bytes, self.run = 0, 0
        self.limit = cap("input")
        self.limit_name = "input"
        if compressed is not None:
            inflated = max(INFLATION_FLOOR, cap("inflation") * max(compressed, 1))
            if inflated < self.limit:
                self.limit, self.limit_name = inflated, "inflation"
        self.line_cap = cap("line") if lines else None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        want = min(len(buffer), self.limit - self.read_bytes + 1)
        data = self.inner.read(want)
        n = len(data)
        buffer[:n] = data
        self.read_bytes += n
        if self.read_bytes > self.limit:
            if self.limit_name == "inflation":
                raise SizeLimitError(
                    f"{self.file}: decompresses to more than {self.limit:,} bytes from "
                    f"{os.path.getsize(self.file):,} (over the cap of {cap('inflation')} bytes per compressed byte "
                    f"past {INFLATION_FLOOR >> 20} MiB; for a genuinely larger graph, set NETZBENCH_MAX_INFLATION "
                    "higher)")
            raise refuse(self.file, "input of more than", self.limit, "input")
        if self.line_cap is not None and n:
            cut = data.rfind(b"\n")
            self.run = self.run + n if cut < 0 else n - cut - 1
            if self.run > self.line_cap:
                raise refuse(self.file, "a line of more than", self.run, "line")
        return n

    def close(self) -> None:
        try:
            self.inner.close()
        finally:
            super().close()


def open_bounded(path, lines: bool = False) -> io.BufferedReader:
    """``path`` opened for binary reading (``.gz``/``.bz2`` decompressed while read), bounded by the input and
    inflation caps and, with ``lines``, the line cap: reading past one raises :class:`SizeLimitError`."""
    import bz2
    import gzip

    path = Path(path)
    compressed = None
    if path.suffix in (".gz", ".bz2"):
        compressed = os.path.getsize(path)
        inner = (gzip.open if path.suffix == ".gz" else bz2.open)(path, "rb")
    else:
        inner = open(path, "rb")
    return io.BufferedReader(_Bounded(inner, path, compressed, lines), buffer_size=1 << 20)
