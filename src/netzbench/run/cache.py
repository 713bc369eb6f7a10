"""The per-seed result cache: finished seeds survive DVC deleting stage outputs.

DVC removes a stage's outputs before re-running it, so each finished seed is
also written here (git-ignored, ``.netzbench/seeds/``) the moment it
finishes. Its key (:func:`netzbench.identity.seed_key`) hashes everything
that determines the result, so a stale entry can never be served.

An entry is an envelope ``{"key": ..., "sha256": ..., "result": {...}}``: the
key it was stored under and the sha256 of the result's canonical JSON
(:func:`netzbench.identity.canonical_json`). Nothing is served on trust: an
entry that does not parse, names another key, fails its hash, or whose result
is not a seed entry of the run-record schema (an entry from before the
envelope, too) is moved to ``rejected/`` (kept for inspection, never read
again), reported once, and its seed is trained again. A store that fails (a
full disk) removes its temporary and is a warning: the seed's result stays in
the stage's run record.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from ..errors import RecordError
from ..identity import canonical_json
from ..paths import cache_root
from ..records import validate_seed_entry


def _stderr(message: str) -> None:
    print(f"netzbench: {message}", file=sys.stderr, flush=True)


def result_hash(result: dict) -> str:
    """sha256 of the canonical JSON of a stored result (what an envelope records)."""
    return hashlib.sha256(canonical_json(result).encode()).hexdigest()


class SeedCache:
    """Finished seeds by key, under ``root`` (default ``<cache>/seeds``). ``warn`` receives one line per
    entry set aside or store that failed (default: standard error, like the executors' notices)."""

    def __init__(self, root: str | os.PathLike | None = None, warn=None):
        self.root = Path(root) if root else cache_root() / "seeds"
        self.warn = warn or _stderr

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        """The result stored under ``key``, or None: nothing stored, or an entry that fails a check
        (then set aside and reported: see the module docstring)."""
        path = self._path(key)
        try:
            with open(path, "rb") as fh:
                inode = os.fstat(fh.fileno()).st_ino
                raw = fh.read()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self._reject(path, None, f"cannot be read ({exc.strerror})")
            return None
        result, problem = _open_envelope(raw, key)
        if problem is not None:
            self._reject(path, inode, problem)
            return None
        return result

    def _reject(self, path: Path, inode: int | None, problem: str) -> None:
        """Move the bad entry at ``path`` to ``rejected/`` and say so once."""
        target = self.root / "rejected" / f"{path.name}.{time.strftime('%Y%m%dT%H%M%S')}.{time.time_ns() % 10**9:09d}"
        try:
            # another process may have replaced it with a good entry meanwhile: move only what was read
            if inode is not None and os.stat(path).st_ino != inode:
                return
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
            where = f"moved to {target}"
        except FileNotFoundError:
            return  # another process set it aside first (and said so)
        except OSError as exc:
            where = f"could not be moved aside ({exc.strerror}); it is ignored"
        self.warn(f"per-seed cache entry {path} is not used: {problem}; {where}. Its seed is trained again.")

    def put(self, key: str, result: dict) -> bool:
        """Store ``result`` under ``key``; False (said through ``warn``, nothing left behind) when the
        store fails, e.g. on a full disk: the caller keeps the result it has."""
        path = self._path(key)
        payload = json.loads(json.dumps(result))  # as it will read back: the hash is of that form
        text = json.dumps({"key": key, "sha256": result_hash(payload), "result": payload})
        tmp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
            return True
        except OSError as exc:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
            self.warn(f"per-seed cache: could not store a finished seed under {path} ({exc.strerror or exc}); "
                      "this run still uses (and records) it, but a later run trains it again")
            return False

    # Per-seed locks: two processes planning the same seed (two `netzbench train` of one cell, a sweep
    # beside `dvc repro`) must not both train it. The first takes the key's lock and holds it until the
    # result is stored; the other waits for the lock, then reads the stored result. flock is released
    # by the kernel when a process dies, so a crash never leaves a seed locked.

    def _lock_path(self, key: str) -> Path:
        return self.root / "locks" / f"{key}.lock"

    def try_lock(self, key: str) -> int | None:
        """A held lock on ``key`` (a file descriptor for :meth:`unlock`), or None when another process holds it."""
        path = self._lock_path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        return fd

    def wait_lock(self, key: str) -> int:
        """Block until the lock on ``key`` is free, and hold it."""
        path = self._lock_path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        return fd

    @staticmethod
    def unlock(fd: int) -> None:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def _open_envelope(raw: bytes, key: str) -> tuple[dict | None, str | None]:
    """``(result, None)`` for a sound entry stored under ``key``, else ``(None, what is wrong)``."""
    try:
        env = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None, "not JSON (torn or edited)"
    if not isinstance(env, dict) or set(env) != {"key", "sha256", "result"}:
        return None, "not a cache entry (key, sha256, result): an edited file, or one from before entries were checked"
    if env["key"] != key:
        return None, f"it holds the entry of another key ({str(env['key'])[:16]}...)"
    if not isinstance(env["result"], dict) or env["sha256"] != result_hash(env["result"]):
        return None, "its result does not match its sha256 (edited or corrupted)"
    try:
        validate_seed_entry(env["result"], "its result")
    except RecordError as exc:
        return None, str(exc)
    return env["result"], None
