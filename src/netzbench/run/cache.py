"""The per-seed result cache: finished seeds survive DVC deleting stage outputs.

DVC removes a stage's outputs before re-running it, so each finished seed is
also written here (git-ignored, ``.netzbench/seeds/``) the moment it
finishes. Its key (:func:`netzbench.identity.seed_key`) hashes everything
that determines the result, so a stale entry can never be served.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from pathlib import Path

from ..paths import cache_root


class SeedCache:
    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root) if root else cache_root() / "seeds"

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        path = self._path(key)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (json.JSONDecodeError, OSError):
            return None  # a torn or unreadable entry is a miss; it will be rewritten

    def put(self, key: str, result: dict) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(result, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)

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
