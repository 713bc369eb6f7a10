"""What planning needs of a ``module:Class`` model, remembered per source: the families it serves and its
baseline kind.

Deciding a candidate's cells (which tasks it serves) and checking that its name resolves used to import it
in every train stage: torch and PyG, about 3 s, before a seed was planned, in each of a ``dvc exp run``'s
stages. Both answers come from the class, so from its source: an entry is keyed by the reference and
:func:`netzbench.identity.code_version` of the model (netzbench's result code and the model's module or
package, as the per-seed key hashes them) and lives in ``.netzbench/models/``. Any edit to the model's
source is a new key, so the model is imported (and checked) again. An entry that does not parse, names
another key or holds anything but known families is ignored and rewritten.
"""

from __future__ import annotations

import json
import os
import tempfile

from .identity import code_version, seed_key
from .paths import cache_root
from .models.roster import ALL_FAMILIES


def _key(model_ref: str) -> str:
    return seed_key(kind="model_facts", model=model_ref, code=code_version(model_ref))


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


def model_facts(model_ref: str) -> tuple[frozenset, str | None]:
    """``(task_types, baseline)`` of the ``module:Class`` model ``model_ref``: from the cache when its source
    is unchanged, else by importing it (:func:`.models.registry.resolve_model`: a name that does not resolve
    raises :class:`.models.registry.ModelError`, and nothing is remembered)."""
    from .models.registry import resolve_model

    key = _key(model_ref)
    path = cache_root() / "models" / f"{key}.json"
    known = _read(path, key)
    if known is not None:
        return known
    spec = resolve_model(model_ref)
    _write(path, {"key": key, "model": model_ref, "task_types": sorted(spec.task_types), "baseline": spec.baseline})
    return spec.task_types, spec.baseline


def model_families(model: str, model_args: dict | None = None) -> tuple[frozenset, str | None]:
    """``(task_types, baseline)`` of any model name: a roster model's from the roster table, a user's
    ``module:Class`` from :func:`model_facts`, a name registered in this process by resolving it."""
    from .models.registry import MODEL_REGISTRY, builtin_baseline, builtin_families, resolve_model

    families = builtin_families(model)
    if families is not None:
        return families, builtin_baseline(model)
    if ":" in model and model not in MODEL_REGISTRY:
        return model_facts(model)
    spec = resolve_model(model, model_args or {})
    return spec.task_types, spec.baseline
