"""Helpers shared by the processors that let PyG (or OGB) parse raw files.

Raw files are staged into a temporary, writable root laid out the way the
PyG class expects, archives are unpacked with path and size checks, and the
class is wrapped so that it raises instead of downloading (netzbench fetches
raw files itself, checksummed) and loads raw ``.pt`` files weights only.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from ...graphs.collection import collection_arrays, stack_graphs
from ..archives import safe_extract
from .safe_pickle import weights_only_loads

OGB_HINT = "pip install 'netzbench[ogb]'"


def stage(raw_dir: Path, *parts: str) -> tuple[tempfile.TemporaryDirectory, Path]:
    """A writable temporary root with a copy of ``raw_dir`` at ``root/<parts...>``."""
    tmp = tempfile.TemporaryDirectory(prefix="netzbench-pyg-")
    root = Path(tmp.name)
    shutil.copytree(raw_dir, root.joinpath(*parts))
    return tmp, root


def import_ogb(module: str):
    """Import an OGB module, or say how to install the optional package."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"this dataset is read with the optional Open Graph Benchmark package ({module} could "
            f"not be imported: {exc}). Install it with: {OGB_HINT}"
        ) from exc


def offline(cls):
    """``cls`` with ``download`` replaced by an error (netzbench never lets PyG download) and its
    ``process`` loading raw ``.pt`` files weights only (:func:`~.safe_pickle.weights_only_loads`)."""

    class Offline(cls):  # type: ignore[misc, valid-type]
        def download(self) -> None:
            raise FileNotFoundError(
                f"{cls.__name__}: raw files missing under {self.raw_dir}; netzbench fetches raw files "
                "itself and never lets PyG download (is the raw folder complete?)"
            )

        def process(self) -> None:
            with weights_only_loads(f"{cls.__name__} raw file {' / '.join(Path(p).name for p in self.raw_paths)}"):
                super().process()

    Offline.__name__ = Offline.__qualname__ = cls.__name__
    return Offline


def unpack(archive: Path, target: Path) -> Path:
    """Extract ``archive`` into ``target`` (path and size checked); return ``target``."""
    safe_extract(Path(archive), Path(target))
    return Path(target)


def find_dir(root: Path, name: str) -> Path:
    """The shallowest directory called ``name`` under ``root`` (archives nest differently)."""
    hits = sorted((p for p in Path(root).rglob(name) if p.is_dir()), key=lambda p: (len(p.parts), str(p)))
    if not hits:
        raise FileNotFoundError(f"no folder {name}/ in the unpacked archive under {root}")
    return hits[0]


def collection(xs: list, eis: list, ys: list, split=None, regression: bool = False) -> tuple[dict, dict]:
    """The collection layout from per-graph ``x [n, F]``, local ``edge_index [2, e]`` and one label
    (classification) or target vector (regression) per graph."""
    return collection_arrays(*stack_graphs(xs, eis), ys, target="regression" if regression else "class", split=split)


def pyg_graphs(ds, n: int | None = None):
    for i in range(len(ds) if n is None else min(n, len(ds))):
        yield ds[i]
