"""The run record: the one contract between training and the report.

``metrics/runs/<task>/<model>.json`` (and ``metrics/candidate/<task>.json``)
holds one (task, model) cell, every seed: the resolved task spec and
hyperparameters, the identity hashes, and per seed a status and the whole
per-epoch history. The JSON Schema is ``schemas/run_record.schema.json``.

This module owns the record:

- :func:`write_record`: schema-validated, atomic (temporary file + rename, so a
  killed stage never leaves a torn record), non-finite floats as ``null``;
- :func:`read_record`: parsed and schema-validated; every error
  (:class:`~netzbench.errors.RecordError`) names the file;
- :func:`cell_status`: a cell's status from its seeds, computed here only;
- the candidate stage's placeholders (``no_candidate``, ``in_roster``), which
  are records of a cell that was deliberately not trained.

``null`` history values mean NaN; :func:`seed_history` turns them back.
"""

from __future__ import annotations

import json
import math
import os
import platform
import tempfile
from functools import lru_cache
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from .errors import RecordError

SCHEMA_VERSION = 1
#: statuses of a candidate record that holds no training on purpose
PLACEHOLDERS = ("no_candidate", "in_roster")


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(resources.files("netzbench").joinpath("schemas/run_record.schema.json").read_text())


def validate_record(record: dict, where: str | os.PathLike = "run record") -> None:
    """Raise :class:`RecordError` (naming ``where``) if ``record`` breaks the schema.

    A placeholder (``{"status": "no_candidate" | "in_roster", "task": ...}``) is
    valid without the training fields.
    """
    import jsonschema

    if isinstance(record, dict) and record.get("status") in PLACEHOLDERS:
        if not isinstance(record.get("task"), str):
            raise RecordError(f"{where}: a {record['status']} record needs a `task` name")
        return
    try:
        jsonschema.validate(record, schema())
    except jsonschema.ValidationError as exc:
        path = "/".join(str(p) for p in exc.absolute_path) or "(top level)"
        raise RecordError(f"{where}: not a valid run record at {path}: {exc.message}") from None


def software_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for pkg in ("netzbench", "torch", "torch_geometric", "numpy", "scipy"):
        try:
            out[pkg] = version(pkg.replace("_", "-"))
        except PackageNotFoundError:
            out[pkg] = None
    return out


def cell_status(seed_statuses) -> str:
    """The status of a cell: the seeds' common status, ``partial`` when they differ.

    ``seed_statuses`` is an iterable of status strings or of per-seed entries
    (dicts with a ``status``). No seed at all is ``missing``.
    """
    statuses = {s["status"] if isinstance(s, dict) else s for s in seed_statuses}
    if not statuses:
        return "missing"
    return statuses.pop() if len(statuses) == 1 else "partial"


#: series whose non-finite value means the model's outputs or its optimisation blew up
LOSS_SERIES = ("train_loss", "val_loss")


def check_finite(entry: dict) -> dict:
    """``entry`` (one seed's result), or a ``failed`` copy when its training diverged.

    A non-finite loss (NaN or infinite outputs, an exploding optimiser) makes
    every score computed from those outputs meaningless, however finite it
    looks (a NaN score can rank as AUC 0.0 with AP 1.0); such a seed is
    ``failed`` with ``diverged at epoch k``, its history kept for inspection.
    ``null`` in a history is NaN (a record read back from JSON).
    """
    if entry.get("status") != "ok":
        return entry
    history = entry.get("history") or {}
    for name in LOSS_SERIES:
        for i, v in enumerate(history.get(name) or ()):
            if v is None or not math.isfinite(v):
                where = f"epoch {i + 1}" if name == "train_loss" else f"evaluation {i + 1}"
                out = dict(entry, status="failed")
                out["error"] = (f"diverged at {where}: {name} is {'nan' if v is None else v} (non-finite "
                                "outputs or an exploding optimiser; try a smaller learning rate)")
                return out
    return entry


def _nan_to_none(obj):
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _nan_to_none(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_nan_to_none(v) for v in obj]
    return obj


def write_json_atomic(path: str | os.PathLike, obj, indent: int | None = 1) -> None:
    """Write ``obj`` as strict JSON (non-finite floats as null, sorted keys) atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(_nan_to_none(obj), fh, indent=indent, sort_keys=True, allow_nan=False)
            fh.write("\n")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_record(path: str | os.PathLike, record: dict) -> None:
    """Validate ``record`` against the schema and write it atomically to ``path``."""
    record = _nan_to_none(record)
    validate_record(record, path)
    write_json_atomic(path, record)


def read_record(path: str | os.PathLike, *, missing_ok: bool = False) -> dict | None:
    """The validated record at ``path`` (``None`` for a missing file when ``missing_ok``)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if missing_ok:
            return None
        raise RecordError(f"{path}: no run record here (has the stage run?)") from None
    except OSError as exc:
        raise RecordError(f"{path}: cannot be read: {exc}") from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: not JSON ({exc}); a torn or hand-edited record? Re-run its stage") from None
    validate_record(record, path)
    return record


def seed_history(entry: dict) -> dict | None:
    """The per-epoch history of one seed entry (``null`` back to NaN); ``None`` unless the seed is ok."""
    if entry.get("status") != "ok":
        return None
    return {k: [math.nan if v is None else v for v in vals] for k, vals in entry["history"].items()}
