"""``data/<task>/``: the processed dataset the fetch stage writes and training reads.

- ``meta.json``: what the data is: ``status`` (``ok`` | ``unavailable`` with a
  ``reason``), the resolved task spec (``task``, ``dataset``, ``family``,
  ``split``, ``relational``, and for generated data ``generator``,
  ``generator_params``, ``generator_version``), ``category``, license and
  citation, the sha256 of every raw file (``raw_sha256``: file -> hex),
  ``counts`` (``num_nodes``, ``num_edges`` as unique undirected pairs,
  ``num_graphs`` for collections, ...: the same names for every dataset of
  a family, :mod:`netzbench.graphs.counts`) and ``dropped`` (duplicate
  edges, self-loops, weights, ...). Where the bytes came from is *not*
  stored here (fetch logs it outside), so a change of source alone changes nothing downstream; a change
  of the task spec does, since training reads the spec from here.
- ``card.json``: the dataset card (sizes, labels, split audits, warnings:
  :mod:`netzbench.catalog.card`), written by fetch; not part of :func:`data_hash`.
- ``graph.npz`` (real datasets): the arrays, written deterministically, in
  one of these layouts:

  * single graph: ``x`` float32 [N, F] (optional for link prediction: then
    structural features are used, or with ``laplacian_k`` int64 the K lowest
    Laplacian eigenvectors of each seed's training edges), ``edge_index`` int64 [2, E],
    ``num_nodes`` int64, and for node classification ``y`` int64 [N] with
    ``train_mask``/``val_mask``/``test_mask`` bool [N] or [N, S] when the
    dataset ships S canonical splits (seed ``s`` uses column ``s % S``).
    Link-prediction graphs are treated as undirected.
  * graph collection: see :mod:`netzbench.graphs.collection`.
  * relational link prediction: ``num_nodes``, ``num_relations``,
    ``{train,valid,test}_edge_index`` int64 [2, m] and
    ``{train,valid,test}_edge_type`` int64 [m], optional ``x``.
- Generated tasks store no arrays, only ``meta.json`` (and the card of seed 0); the instance of each seed is a
  deterministic function of (generator, parameters, seed), made at training
  time by :func:`task_arrays`. A seed-aware loader of the Python API, which
  cannot be imported by reference, has its instances stored instead, one
  ``seeds/<seed>.npz`` per seed (``meta.json``: ``per_seed: true``).

``graph.npz`` bytes depend only on the arrays (``numpy.savez`` would stamp
the current time into each member), so the same data gives the same DVC hash.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from pathlib import Path

import numpy as np

from ..paths import import_ref

META = "meta.json"
GRAPH = "graph.npz"
SEEDS = "seeds"
#: the dataset card (netzbench.catalog.card): a description of the data, never an input of training
CARD = "card.json"
#: Bump when a generator's output changes for the same parameters.
GENERATOR_VERSION = 1
_EPOCH = (1980, 1, 1, 0, 0, 0)


class TaskUnavailable(RuntimeError):
    """The task's data could not be obtained (recorded by fetch with ``on_missing: skip``)."""


def save_arrays(path: str | os.PathLike, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` to ``path`` (sorted member names, fixed timestamps, stored), atomically."""
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


def write_meta(task_dir: str | os.PathLike, meta: dict) -> None:
    """Write ``meta.json`` (sorted keys, atomically)."""
    path = Path(task_dir) / META
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def read_meta(task_dir: str | os.PathLike) -> dict:
    path = Path(task_dir) / META
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `netzbench fetch {Path(task_dir).name}` (or `dvc repro`) first")
    return json.loads(path.read_text(encoding="utf-8"))


def data_hash(task_dir: str | os.PathLike) -> str:
    """sha256 over the names and bytes of every file in ``data/<task>/`` (task spec included),
    per-seed instances (``seeds/``) excepted: :func:`seed_data_hash` covers those; the dataset card
    (:data:`CARD`) too: it describes the data, so a new card leaves every cached seed valid."""
    task_dir = Path(task_dir)
    h = hashlib.sha256()
    for path in sorted(p for p in task_dir.rglob("*") if p.is_file() and p.relative_to(task_dir).parts[0] != SEEDS
                       and p.relative_to(task_dir).as_posix() != CARD):
        h.update(path.relative_to(task_dir).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()


def seed_file(task_dir: str | os.PathLike, seed: int) -> Path:
    """Where a stored per-seed instance lives (tasks whose instances come from an in-memory loader)."""
    return Path(task_dir) / SEEDS / f"{int(seed)}.npz"


def seed_data_hash(task_dir: str | os.PathLike, seed: int) -> str | None:
    """sha256 of the stored instance of ``seed``, or None when the task stores none."""
    path = seed_file(task_dir, seed)
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def task_arrays(task_dir: str | os.PathLike, seed: int, meta: dict | None = None) -> dict:
    """The processed arrays of the task for ``seed``: generated for generated tasks, read otherwise."""
    meta = meta or read_meta(task_dir)
    if meta.get("status") != "ok":
        raise TaskUnavailable(meta.get("reason", "data unavailable"))
    if meta.get("per_seed"):
        return load_arrays(seed_file(task_dir, seed))
    if meta.get("synthetic"):
        arrays, _ = import_ref(meta["generator"])(seed, **meta["generator_params"])
        return arrays
    return load_arrays(Path(task_dir) / GRAPH)
