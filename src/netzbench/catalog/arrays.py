"""Deterministic array bundles: a ``.npz`` whose bytes depend only on the arrays.

``numpy.savez`` stamps each zip member with the current time, so saving the
same arrays twice gives different bytes and DVC would see a "changed" dataset.
This writer fixes the timestamps and member order; ``numpy.load`` reads the
result like any ``.npz``.
"""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import numpy as np

_EPOCH = (1980, 1, 1, 0, 0, 0)


def save_arrays(path: str | os.PathLike, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` to ``path`` (sorted member names, fixed timestamps, stored)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED) as zf:
        for name in sorted(arrays):
            buf = io.BytesIO()
            arr = np.asarray(arrays[name])  # keeps 0-d scalars 0-d (ascontiguousarray would not)
            np.lib.format.write_array(buf, arr if arr.flags.c_contiguous else np.ascontiguousarray(arr),
                                      allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_EPOCH)
            info.external_attr = 0o644 << 16
            zf.writestr(info, buf.getvalue())
    os.replace(tmp, path)


def load_arrays(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Read a bundle written by :func:`save_arrays` into a plain dict."""
    with np.load(path, allow_pickle=False) as npz:
        return {name: npz[name] for name in npz.files}
