"""A ``module:Class`` model's traits, remembered per source: the families it serves and its baseline kind
(what planning needs of it).

Deciding a candidate's cells (which tasks it serves) and checking that its name resolves used to import it
in every train stage: torch and PyG, about 3 s, before a seed was planned, in each of a ``dvc exp run``'s
stages. Both answers come from the class, so from its source: an entry is keyed by the reference and
:func:`netzbench.identity.code_version` of the model (netzbench's result code and the model's module or
package, as the per-seed key hashes them) and lives in ``.netzbench/models/``. Any edit to the model's
source is a new key, so the model is imported (and checked) again. An entry that does not parse, names
another key or holds anything but known families is ignored and rewritten. One process at a time imports
a given version (a lock beside its entry): another waits and reads the entry (the fetch stage's
:mod:`netzbench.run.prewarm` imports a new candidate while the train stage starts).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
import traceback
from contextlib import contextmanager

try:
    import fcntl
except ImportError:  # not POSIX: no lock, each process imports the model itself
    fcntl = None

from .identity import code_version, seed_key
from .paths import cache_root
from .models.roster import ALL_FAMILIES


def traits_key(model_ref: str) -> str:
    """The entry's key for ``model_ref``'s current source (hashes the result code and the model's source)."""
    return seed_key(kind="model_traits", model=model_ref, code=code_version(model_ref))


def _read(path, key: str) -> tuple[frozenset, str | None] | None:
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    families, baseline = entry.get("task_types"), entry.get("baseline")
    if not isinstance(families, list) or not families or not set(families) <= set(ALL_FAMILIES):
        return None
    if baseline is not None and not isinstance(baseline, str):
        return None
    return frozenset(families), baseline


def _write(path, entry: dict) -> None:
    """Atomically (a temporary file renamed into place); a failure (read-only cache, full disk) only costs
    the next stage an import."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(entry, fh, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def remembered(model_ref: str) -> bool:
    """Whether :func:`model_traits` answers ``model_ref`` without importing it (its source unchanged)."""
    key = traits_key(model_ref)
    return _read(entry_path(model_ref, key), key) is not None


def model_traits(model_ref: str) -> tuple[frozenset, str | None]:
    """``(task_types, baseline)`` of the ``module:Class`` model ``model_ref``: from the cache when its source
    is unchanged, else by importing it (:func:`.models.registry.resolve_model`: a name that does not resolve
    raises :class:`.models.registry.ModelError`; the entry then holds the error, which reads as unknown)."""
    key = traits_key(model_ref)
    path = entry_path(model_ref, key)
    known = _read(path, key)
    if known is not None:
        return known
    with learning(model_ref, key):  # another process importing it (run/prewarm.py): wait for it
        known = _read(path, key)
        if known is not None:
            return known
        return learn(model_ref, key)


def entry_path(model_ref: str, key: str | None = None):
    """Where ``model_ref``'s traits are remembered (``key``: its :func:`traits_key`, for the current source)."""
    return cache_root() / "models" / f"{key or traits_key(model_ref)}.json"


def learn(model_ref: str, key: str | None = None) -> tuple[frozenset, str | None]:
    """Import ``model_ref`` and remember its traits, without the lock (its caller holds it). A model that
    does not resolve leaves an entry saying so (read as unknown: the next caller imports it again and
    raises the error itself), so a process waiting for this one's answer stops waiting."""
    from .models.registry import ModelError, resolve_model

    key = key or traits_key(model_ref)
    path = entry_path(model_ref, key)
    try:
        spec = resolve_model(model_ref)
    except ModelError as exc:
        _write(path, {"key": key, "model": model_ref, "error": str(exc)[:2000]})
        raise
    except Exception as exc:  # the module itself raised while it was imported: said as a model error
        where = traceback.extract_tb(exc.__traceback__)[-1]
        message = (f"importing {model_ref!r} raised {type(exc).__name__}: {exc} "
                   f"(at {where.filename}:{where.lineno})")
        _write(path, {"key": key, "model": model_ref, "error": message[:2000]})
        raise ModelError(message) from exc
    _write(path, {"key": key, "model": model_ref, "task_types": sorted(spec.task_types), "baseline": spec.baseline})
    return spec.task_types, spec.baseline


def answered(model_ref: str, key: str | None = None) -> bool:
    """Whether an entry for ``model_ref``'s current source (or ``key``) exists, traits or the error of its
    import."""
    key = key or traits_key(model_ref)
    try:
        return json.loads(entry_path(model_ref, key).read_text(encoding="utf-8")).get("key") == key
    except (OSError, ValueError, AttributeError):
        return False


#: seconds a process waits for another that is importing the same model before it imports it too
LOCK_WAIT_S = 120.0


@contextmanager
def learning(model_ref: str, key: str | None = None):
    """Held while a process imports ``model_ref`` to learn its traits: one import per model version at a
    time, the others wait and read what it wrote. Without a lock (a read-only cache) or after
    :data:`LOCK_WAIT_S` (an import that hangs), the caller goes ahead alone."""
    lock_path = entry_path(model_ref, key).with_suffix(".lock")
    fd = None
    try:
        if fcntl is None:
            raise OSError("no flock here")
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError:
        pass
    deadline = time.monotonic() + LOCK_WAIT_S
    held = False
    while fd is not None and not held:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held = True
        except OSError:
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
    try:
        yield
    finally:
        if fd is not None:
            if held:
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def model_families(model: str, model_args: dict | None = None) -> tuple[frozenset, str | None]:
    """``(task_types, baseline)`` of any model name: a roster model's from the roster table, a user's
    ``module:Class`` from :func:`model_traits`, a name registered in this process by resolving it."""
    from .models.registry import MODEL_REGISTRY, builtin_baseline, builtin_families, resolve_model

    families = builtin_families(model)
    if families is not None:
        return families, builtin_baseline(model)
    if ":" in model and model not in MODEL_REGISTRY:
        return model_traits(model)
    spec = resolve_model(model, model_args or {})
    return spec.task_types, spec.baseline
