"""The fetch stage's output, ``data/<task>/``, and how training reads it back.

Layout of ``data/<task>/``:

- ``meta.json``: what the data is: ``status`` (``ok`` | ``unavailable``),
  task, dataset, family, license, the sha256 of every raw file, and counts
  (``num_nodes``, ``num_edges`` as unique undirected pairs, ``num_graphs``
  for collections). Where the bytes came from (mirror or URL) and when is
  *not* stored here (it is logged in ``.netzbench/logs/fetch.jsonl``), so a
  change of source alone changes nothing downstream.
- ``graph.npz`` (real datasets): the processed arrays, written
  deterministically, in one of these layouts:

  * single graph: ``x`` float32 [N, F] (optional for link prediction: then
    structural features are used), ``edge_index`` int64 [2, E],
    ``num_nodes`` int64, and for node classification ``y`` int64 [N] with
    ``train_mask``/``val_mask``/``test_mask`` bool [N] or [N, S] when the
    dataset ships S canonical splits (seed ``s`` uses column ``s % S``).
    Link-prediction graphs are treated as undirected (pairs are symmetrised).
  * graph collection: ``x`` [sum N_g, F], ``edge_index`` [2, sum E_g] with
    per-graph local node ids, ``node_ptr``/``edge_ptr`` int64 [G + 1]
    offsets, ``y`` int64 [G] (classification), float32 [G, T]
    (regression) or float32 [G, T] with NaN for missing labels
    (multi-label), and optionally ``split`` int8 [G] (0 train, 1 val,
    2 test) for canonical splits.
  * relational link prediction: ``num_nodes``, ``num_relations``,
    ``{train,valid,test}_edge_index`` int64 [2, m] and
    ``{train,valid,test}_edge_type`` int64 [m], optional ``x``.
- Synthetic tasks store only ``meta.json`` with the generator and its
  parameters; the instance for each seed is generated at training time.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Callable

from ..paths import cache_root, resolve_mirror
from .arrays import load_arrays, save_arrays
from .fetch import DatasetUnavailable, obtain_raw
from .custom import GENERATOR as CUSTOM_GENERATOR
from .custom import PROCESSOR as CUSTOM_PROCESSOR
from .custom import is_seed_aware, loader_source_sha256
from .table import get_dataset, get_task

#: Bump when a generator's output changes for the same parameters.
GENERATOR_VERSION = 1


class TaskUnavailable(RuntimeError):
    """The task's data could not be obtained (recorded by fetch with ``on_missing: skip``)."""


def import_object(spec: str) -> Callable:
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def _write_json(path: Path, obj: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _log_provenance(entry: dict) -> None:
    log = cache_root() / "logs" / "fetch.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry, sort_keys=True) + "\n")


def fetch_task(task_id: str, params: dict, data_root: str | os.PathLike = "data", echo=print) -> dict:
    """Bring task ``task_id``'s data into ``data_root/<task_id>/``; return its meta.

    With ``data.on_missing: skip`` an unobtainable dataset is recorded as
    ``unavailable`` (and said loudly); with ``fail`` the error propagates.
    A checksum mismatch always propagates.
    """
    task = get_task(task_id)
    ds = get_dataset(task.dataset)
    data_root = Path(data_root)
    out = data_root / task_id
    tmp = data_root / f".{task_id}.partial"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    meta = {
        "task": task_id,
        "dataset": ds.id,
        "family": task.family,
        "category": ds.category,
        "license": ds.license,
        "citation": ds.citation,
        "relational": task.relational,
    }
    origin = "generator"
    try:
        if ds.processor == CUSTOM_PROCESSOR and is_seed_aware(ds.generator_params["loader"]):
            # a seed-aware user loader runs at training time, once per seed, like a generator
            meta.update(status="ok", synthetic=True, generator=CUSTOM_GENERATOR,
                        generator_params={**ds.generator_params, "root": str(out)},
                        generator_version=GENERATOR_VERSION,
                        loader_sha256=loader_source_sha256(ds.generator_params["loader"]))
        elif ds.processor == CUSTOM_PROCESSOR:
            arrays, counts = import_object(ds.processor)(str(out), **ds.generator_params)
            save_arrays(tmp / "graph.npz", arrays)
            meta.update(status="ok", synthetic=False, format="custom", raw_sha256={}, counts=counts,
                        loader=ds.generator_params["loader"])
            origin = f"custom:{ds.generator_params['loader']}"
        elif ds.synthetic:
            meta.update(
                status="ok",
                synthetic=True,
                generator=ds.processor,
                generator_params=dict(ds.generator_params),
                generator_version=GENERATOR_VERSION,
            )
        else:
            raw_dir, raw_sha, fmt = None, {}, "builtin"
            if ds.needs_download:
                mirror = resolve_mirror(params["data"].get("mirror"))
                try:
                    bundle = obtain_raw(ds, mirror, cache_root() / "downloads")
                except DatasetUnavailable as exc:
                    if params["data"]["on_missing"] == "fail":
                        raise
                    echo(f"WARNING: {task_id} is UNAVAILABLE and will be reported as missing: {exc}")
                    meta.update(status="unavailable", reason=str(exc))
                    bundle = None
                if bundle is not None:
                    raw_dir, raw_sha, origin, fmt = bundle.raw_dir, bundle.sha256, bundle.origin, bundle.format
            else:
                origin = "builtin"
            if meta.get("status") != "unavailable":
                arrays, counts = import_object(ds.processor)(raw_dir, fmt)
                save_arrays(tmp / "graph.npz", arrays)
                meta.update(status="ok", synthetic=False, format=fmt, raw_sha256=raw_sha, counts=counts)
        _write_json(tmp / "meta.json", meta)
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    _log_provenance({"time": time.time(), "task": task_id, "dataset": ds.id, "origin": origin,
                     "status": meta["status"]})
    return meta


def data_hash(task_dir: str | os.PathLike) -> str:
    """sha256 over the names and bytes of every file in ``data/<task>/``."""
    task_dir = Path(task_dir)
    h = hashlib.sha256()
    for path in sorted(p for p in task_dir.rglob("*") if p.is_file()):
        h.update(path.relative_to(task_dir).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()


def read_meta(task_dir: str | os.PathLike) -> dict:
    path = Path(task_dir) / "meta.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `netzbench fetch {Path(task_dir).name}` (or `dvc repro`) first")
    return json.loads(path.read_text(encoding="utf-8"))


def load_arrays_for_seed(task_dir: str | os.PathLike, seed: int, meta: dict | None = None) -> dict:
    """The processed arrays for ``seed``: generated for synthetic tasks, read otherwise."""
    meta = meta or read_meta(task_dir)
    if meta.get("status") != "ok":
        raise TaskUnavailable(meta.get("reason", "data unavailable"))
    if meta.get("synthetic"):
        arrays, _ = import_object(meta["generator"])(seed, **meta["generator_params"])
        return arrays
    return load_arrays(Path(task_dir) / "graph.npz")
