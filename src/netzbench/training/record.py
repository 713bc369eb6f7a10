"""The run record ``metrics/runs/<task>/<model>.json``: building, validating, writing.

The JSON Schema lives in ``netzbench/schemas/run_record.schema.json``. NaN
values are written as ``null`` so records are strict JSON; readers turn them
back into NaN. Writes are atomic (temporary file + rename), so a killed stage
never leaves a torn record.
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

SCHEMA_VERSION = 1


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(resources.files("netzbench").joinpath("schemas/run_record.schema.json").read_text())


def validate_record(record: dict) -> None:
    """Raise ``jsonschema.ValidationError`` if ``record`` breaks the schema."""
    import jsonschema

    jsonschema.validate(record, schema())


def software_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for pkg in ("netzbench", "torch", "torch_geometric", "numpy", "scipy"):
        try:
            out[pkg] = version(pkg.replace("_", "-"))
        except PackageNotFoundError:
            out[pkg] = None
    return out


def cell_status(seeds: dict[str, dict]) -> str:
    statuses = {s["status"] for s in seeds.values()}
    if len(statuses) == 1:
        return statuses.pop()
    return "partial"


def _nan_to_none(obj):
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _nan_to_none(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_nan_to_none(v) for v in obj]
    return obj


def write_json_atomic(path: str | os.PathLike, obj, indent: int | None = 1) -> None:
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
    record = _nan_to_none(record)
    validate_record(record)
    write_json_atomic(path, record)


def read_record(path: str | os.PathLike) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))
