"""Shared helpers for the statistics layer (not part of the public API).

* :class:`ResultMixin` gives every frozen result dataclass a ``to_dict``
  method that returns plain Python scalars / lists / dicts (JSON-safe, NaN and
  ``inf`` allowed as floats).
* small argument validators used by several modules.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

__all__ = ["ResultMixin", "to_plain", "as_1d_float", "check_open_unit"]


def _plain_key(key: Any) -> Any:
    """Dictionary key as a JSON-compatible Python scalar.

    Tuples of indices (pair keys) become ``"i-j"`` strings; numpy scalars
    become Python scalars; strings pass through.
    """
    if isinstance(key, tuple):
        return "-".join(str(_plain_key(k)) for k in key)
    if isinstance(key, (np.bool_, bool)):
        return bool(key)
    if isinstance(key, (np.integer,)):
        return int(key)
    if isinstance(key, (np.floating,)):
        return float(key)
    return key


def to_plain(value: Any) -> Any:
    """Recursively convert numpy containers/scalars to plain Python objects."""
    if isinstance(value, dict):
        return {_plain_key(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_plain(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    return value


class ResultMixin:
    """Mixin for frozen result dataclasses: ``to_dict()`` -> plain Python."""

    def to_dict(self) -> dict[str, Any]:
        return {f.name: to_plain(getattr(self, f.name)) for f in dataclasses.fields(self)}  # type: ignore[arg-type]


def as_1d_float(values: Any, name: str = "values") -> np.ndarray:
    """``values`` as a 1-D float64 array (scalars become length 1)."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    return arr


def check_open_unit(x: float, name: str) -> float:
    """Require ``0 < x < 1`` (confidence levels, alpha, power)."""
    x = float(x)
    if not (0.0 < x < 1.0) or math.isnan(x):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {x!r}")
    return x


def readonly(arr: np.ndarray) -> np.ndarray:
    """Return ``arr`` with the writeable flag cleared (results are frozen)."""
    arr = np.asarray(arr)
    arr.setflags(write=False)
    return arr
