"""The warm server's wire format: length-prefixed JSON, so that reading a message never runs code.

A frame is an 8-byte big-endian length and that many bytes of JSON (ASCII).
Only plain values cross: dicts with string keys, lists, strings, ints,
floats, booleans and None. Each crosses exactly: a float is written as its
shortest ``repr`` (which reads back to the same double, ``-0.0`` included),
infinities as JSON's ``Infinity`` tokens and a NaN as ``{"\\u0000nan": "<its
16 hex digits>"}`` (NaNs differ in their sign and payload bits, and the
``NaN`` token would keep neither). Anything else -- a tuple, a non-string key,
an object, an int too long for JSON -- raises :class:`Unencodable` instead of
being changed on the way, and the caller runs that job in its own pool.

:func:`peer` reads who is at the other end of a Unix socket (``SO_PEERCRED``).
"""

from __future__ import annotations

import json
import socket
import struct

_HEADER = struct.Struct("!Q")
_DOUBLE = struct.Struct("!d")
#: the largest frame either side reads (a job or a result is kilobytes to a few megabytes)
MAX_FRAME = 256 << 20
#: the key of the one-entry dict that carries a NaN's bits
NAN_TAG = "\u0000nan"
#: whether this platform says who is at the other end of a Unix socket
HAVE_PEERCRED = hasattr(socket, "SO_PEERCRED")


class Unencodable(ValueError):
    """A value that JSON cannot carry exactly (the message names where it is)."""


class ProtocolError(ValueError):
    """A frame that is too large, not JSON, or not the message expected."""


_SCALARS = frozenset((str, int, bool, float, type(None)))


def _nan(x: float) -> dict:
    return {NAN_TAG: _DOUBLE.pack(x).hex()}


def _plain(obj, where: str):
    """``obj`` with each NaN replaced by its tagged bits; :class:`Unencodable` for what JSON would change."""
    kind = type(obj)
    if kind is float:
        return _nan(obj) if obj != obj else obj
    if kind in _SCALARS:
        return obj
    if kind is list:
        if set(map(type, obj)) <= _SCALARS:  # a history: checked in one pass, copied only if it holds a NaN
            return [_nan(v) if v != v else v for v in obj] if any(v != v for v in obj) else obj
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(obj)]
    if kind is dict:
        out = {}
        for key, value in obj.items():
            if type(key) is not str:
                raise Unencodable(f"{where}: the key {key!r} is not a string")
            out[key] = _plain(value, f"{where}.{key}")
        if NAN_TAG in out and len(out) == 1:
            raise Unencodable(f"{where}: a dict of the one key {NAN_TAG!r} would read back as a NaN")
        return out
    raise Unencodable(f"{where}: a {kind.__name__} does not cross as JSON")


def _revive(obj: dict):
    if len(obj) == 1 and NAN_TAG in obj:
        bits = obj[NAN_TAG]
        if type(bits) is not str or len(bits) != 16:
            raise ProtocolError(f"a NaN needs 16 hex digits, got {bits!r}")
        return _DOUBLE.unpack(bytes.fromhex(bits))[0]
    return obj


def encode(obj) -> bytes:
    """``obj`` as one frame's JSON; :class:`Unencodable` if it would not read back exactly."""
    try:
        return json.dumps(_plain(obj, "$"), allow_nan=True, separators=(",", ":")).encode("ascii")
    except Unencodable:
        raise
    except RecursionError:
        raise Unencodable("$: nested too deeply") from None
    except ValueError as exc:  # an int past sys.get_int_max_str_digits()
        raise Unencodable(f"$: {exc}") from None


def decode(data: bytes):
    """The value of one frame's JSON (:class:`ProtocolError` if it is not JSON of plain values)."""
    try:
        return json.loads(data.decode("ascii"), object_hook=_revive)
    except ProtocolError:
        raise
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise ProtocolError(f"not a JSON frame: {type(exc).__name__}") from None


def send_bytes(conn: socket.socket, data: bytes) -> None:
    """Write one frame holding ``data`` (from :func:`encode`)."""
    conn.sendall(_HEADER.pack(len(data)) + data)


def send(conn: socket.socket, obj) -> None:
    """Write ``obj`` as one frame (:class:`Unencodable` before anything is written)."""
    send_bytes(conn, encode(obj))


def _recv_exact(conn: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = conn.recv(min(n - got, 1 << 20))
        if not chunk:
            raise EOFError("connection closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def recv(conn: socket.socket, limit: int = MAX_FRAME):
    """Read one frame of at most ``limit`` bytes; ``EOFError`` when the peer has closed."""
    (size,) = _HEADER.unpack(_recv_exact(conn, _HEADER.size))
    if size > limit:
        raise ProtocolError(f"a frame of {size} bytes (at most {limit} expected)")
    return decode(_recv_exact(conn, size))


def peer(conn: socket.socket) -> tuple[int, int, int]:
    """``(pid, uid, gid)`` of the process at the other end of the connected Unix socket ``conn``
    (for a client: the server that listens; for a server: the client that connected)."""
    if not HAVE_PEERCRED:
        raise OSError("SO_PEERCRED is not available on this platform")
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)
