"""The per-seed result cache: finished seeds survive DVC deleting stage outputs.

DVC removes a stage's outputs before re-running it, so each finished seed is
also written here (git-ignored, ``.netzbench/seeds/``) the moment it
finishes. The key hashes everything that determines the result (task, model
and its source, resolved hyperparameters, seed, data hash, code version), so
a stale entry can never be served: change any of them and the key changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from ..paths import cache_root


def canonical_json(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def seed_key(**parts) -> str:
    return hashlib.sha256(canonical_json(parts).encode()).hexdigest()


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


def source_hash(paths) -> str:
    """sha256 over the relative names and bytes of every ``.py`` file under ``paths``."""
    h = hashlib.sha256()
    for base in paths:
        base = Path(base)
        files = [base] if base.is_file() else sorted(base.rglob("*.py"))
        for f in files:
            if "__pycache__" in f.parts:
                continue
            h.update(f.relative_to(base.parent).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()
