"""The fetch stage: one task's data into ``data/<task>/`` (layout: :mod:`netzbench.graphs.layout`).

:func:`fetch_task` resolves the task -- family, split, epoch budget,
generator and its parameters, a custom loader and its source hash -- and
writes that task spec into ``meta.json`` beside the processed arrays. Training reads a task
from there and nowhere else, so whatever the catalogue decides (a split, a
generator parameter, a loader) reaches a result only through
``data/<task>/``, which DVC tracks and the per-seed cache key hashes.

Where the raw bytes came from (mirror, URL, cache) is logged in
``.netzbench/logs/fetch.jsonl``, not in ``meta.json``, so a change of source
alone changes nothing downstream.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from ..families import METRIC_FAMILIES
from ..graphs.convert import default_split, discarded, to_arrays, to_bundle
from ..graphs.counts import dropped_record, meta_counts
from ..graphs.layout import CARD, GENERATOR_VERSION, GRAPH, SEEDS, data_hash, save_arrays, seed_file, write_meta
from ..paths import cache_root, child, resolve_mirror
from .card import current_card
from .checks import DatasetError, check_arrays, normalise_labels
from .custom import GENERATOR as CUSTOM_GENERATOR
from .custom import process as custom_process
from .custom import (is_seed_aware, loader_params, loader_raw, loader_source_sha256, missing_for_seed_aware,
                     with_classes, with_features)
from .fetch import DatasetUnavailable, obtain_raw
from .table import get_dataset, get_task

log = logging.getLogger(__name__)


@contextmanager
def quiet():
    """Swallow what a third-party processor prints; replay it if the processor fails."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    buffer = io.StringIO()
    try:
        with redirect_stdout(buffer), redirect_stderr(buffer):
            yield
    except BaseException:
        sys.stderr.write(buffer.getvalue())
        raise


def _log_provenance(entry: dict) -> None:
    log = cache_root() / "logs" / "fetch.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry, sort_keys=True) + "\n")


def _same_tree(a: Path, b: Path) -> bool:
    """Whether folders ``a`` and ``b`` hold the same files with the same bytes (the card aside: it is
    written after the data, from it)."""
    if not b.is_dir():
        return False
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file() and p.name != CARD)
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file() and p.relative_to(b).as_posix() != CARD)
    return files_a == files_b and all((a / f).read_bytes() == (b / f).read_bytes() for f in files_a)


@contextmanager
def _replacing(out: Path):
    """A staging folder that replaces ``out`` as a whole when the block succeeds (never half-written);
    an identical result leaves ``out`` untouched (same files, same times: nothing for DVC to re-hash)."""
    tmp = out.with_name(f".{out.name}.partial")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    try:
        yield tmp
        if not _same_tree(tmp, out):
            if out.exists():
                shutil.rmtree(out)
            os.replace(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def _fingerprint(meta: dict, raw_sha: dict, fmt: str, processor: str) -> str:
    """What decides a downloaded dataset's processed bytes: the task spec, the raw files, the format,
    the processor and the source of the code that processes (the catalogue and the graph layout)."""
    import hashlib

    from ..identity import PACKAGE_DIR, source_hash

    code = source_hash([PACKAGE_DIR / "catalog", PACKAGE_DIR / "graphs"])
    spec = {k: meta.get(k) for k in _SPEC_FIELDS}
    if "metric" in meta:  # only where set: every other task's fingerprint stays what it was
        spec["metric"] = meta["metric"]
    return hashlib.sha256(json.dumps([spec, raw_sha, fmt, processor, code], sort_keys=True).encode()).hexdigest()


def _builtin_source() -> dict:
    """What a builtin dataset's bytes come from: the installed PyG, which ships them (read from its
    metadata: importing it would cost a re-check about 3 s)."""
    from importlib.metadata import version

    return {"torch_geometric": version("torch_geometric")}


def _state_file(out: Path) -> Path:
    """Where the fingerprint of ``out``'s last processing is kept (outside DVC's outputs)."""
    import hashlib

    return cache_root() / "fetch-state" / f"{hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:16]}.json"


class _Unchanged(Exception):
    """The raw files, spec and code are those ``out`` was built from: nothing to process."""


def fetch_task(task_id: str, settings, data_root: str | os.PathLike = "data") -> dict:
    """Bring task ``task_id``'s data into ``data_root/<task_id>/``; return its meta. ``settings``: a
    :class:`netzbench.settings.Settings` (the layer above the catalogue): its ``protocol`` and ``data``.

    With ``data.on_missing: skip`` an unobtainable dataset is recorded as
    ``unavailable`` (and said loudly); with ``fail`` the error propagates.
    A checksum mismatch always propagates.
    """
    task = get_task(task_id)
    ds = get_dataset(task.dataset)
    out = child(data_root, task_id)  # replaced as a whole below: never a path outside data_root
    meta = {
        "task": task_id,
        "dataset": ds.id,
        "family": task.family,
        "split": task.split,
        "category": ds.category,
        "license": ds.license,
        "citation": ds.citation,
        "relational": task.relational,
        "epochs": task.epochs,  # the budget; `train.epochs.<task>` overrides it
    }
    if ds.metric is not None and ds.metric != METRIC_FAMILIES.get(task.family):
        meta["metric"] = ds.metric  # the dataset's standard metric, where it is not the family's default
    origin = "generator"
    previous = _previous_meta(out)
    try:
        with _replacing(out) as tmp:
            origin, fingerprint = _fill(task, ds, settings, out, tmp, meta, previous)
    except _Unchanged as same:
        _log_provenance({"time": time.time(), "task": task_id, "dataset": ds.id, "origin": f"{same.args[0]} "
                         "(unchanged: not processed again)", "status": "ok"})
        _card_warnings(out, task_id, previous)
        return previous
    except _KeepPrevious as keep:
        log.warning(f"{task_id}: no source can deliver its raw files now ({keep.reason}); kept the verified "
                    f"{out}/ of an earlier fetch (same task spec and raw files), unchanged")
        _log_provenance({"time": time.time(), "task": task_id, "dataset": ds.id, "origin": "kept", "status": "ok"})
        _card_warnings(out, task_id, previous)
        return previous
    if fingerprint is not None:
        state = _state_file(out)
        state.parent.mkdir(parents=True, exist_ok=True)
        state.write_text(f"{fingerprint} {data_hash(out)}", encoding="utf-8")  # and what out then held
    _log_provenance({"time": time.time(), "task": task_id, "dataset": ds.id, "origin": origin,
                     "status": meta["status"]})
    _card_warnings(out, task_id, meta)
    return meta


def _card_warnings(out: Path, task_id: str, meta: dict) -> None:
    """Write (or keep) ``out/card.json`` and say each of its failed audits. A seed-aware user loader is
    called at training time only, so its task's card waits for ``netzbench card``."""
    if meta.get("status") == "ok" and meta.get("generator") != CUSTOM_GENERATOR:
        for warning in current_card(out)["warnings"]:
            log.warning(f"{task_id}: {warning}")


def fetch_summary(meta: dict) -> str:
    """What a fetch established, in one line: status, what was checked, the counts."""
    if meta["status"] != "ok":
        return f"{meta['status']}: {meta.get('reason', '')}"
    counts = " ".join(f"{k}={v}" for k, v in sorted((meta.get("counts") or {}).items()))
    if meta.get("synthetic"):
        what = f"generated per seed at training time by {meta.get('generator')} (nothing to download)"
    elif meta.get("path"):
        what = (f"{len(meta.get('raw_sha256') or {})} raw file(s) of {meta['path']} read as "
                f"{meta.get('format')} (sha256 in meta.json), checked")
    elif meta.get("raw_sha256"):
        what = f"{len(meta['raw_sha256'])} raw file(s) sha256-hashed (checked against the catalogue where it has a hash), processed"
    else:
        what = f"built from {meta.get('loader') or meta.get('format', 'the package')}"
    return f"ok, {what}" + (f"; {counts}" if counts else "")


class _KeepPrevious(Exception):
    def __init__(self, reason: str):
        self.reason = reason


#: meta.json fields that decide whether an earlier fetch holds the same task
_SPEC_FIELDS = ("task", "dataset", "family", "split", "relational", "epochs")


def _previous_meta(out: Path) -> dict | None:
    """The meta of an earlier successful fetch in ``out`` (None if there is none or it is unreadable)."""
    try:
        meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) and meta.get("status") == "ok" and (out / GRAPH).is_file() else None


def _fill(task, ds, settings, out: Path, tmp: Path, meta: dict, previous: dict | None) -> tuple[str, str | None]:
    """Write the task's data into the staging folder ``tmp`` and complete ``meta``; return the origin and
    the fingerprint of a processed download (None otherwise)."""
    task_id = task.id
    origin = "generator"
    if ds.processor is custom_process and is_seed_aware(ds.generator_params.get("loader")):
        # a seed-aware user loader runs at training time, once per seed, like a generator
        meta.update(status="ok", synthetic=True, generator=CUSTOM_GENERATOR,
                    generator_params=loader_params(ds.generator_params, out),
                    generator_version=GENERATOR_VERSION,
                    loader_sha256=loader_source_sha256(ds.generator_params["loader"]),
                    **loader_raw(ds.generator_params, out))
    elif ds.processor is custom_process:
        # raw files in a declared format, or a loader called once (custom.process)
        with quiet():
            arrays, counts, record = ds.processor(str(out), **ds.generator_params)
        if meta["split"] == "auto":
            meta["split"] = default_split(task.family, arrays)
        check_arrays(task_id, task.family, meta["split"], arrays)
        save_arrays(tmp / GRAPH, arrays)
        meta.update(status="ok", synthetic=False, **record)
        _record_counts(meta, arrays, counts, record.get("dropped"))
        meta["relational"] = meta["split"] == "relational_canonical"  # what training will do
        origin = f"custom:{record.get('loader') or record['format']}"
        if "recognised" in record.get("notes", {}):  # the files hold another format than the entry says
            log.info(f"{task_id}: {record['notes']['recognised']}")
        if "label_missing" in record:  # what the benchmark will not score, said where the user looks
            gone = record["label_missing"]
            how = ("declared by `missing:`" if gone["found"] == "declared"
                   else "recognised as missing; `missing: []` in the entry makes every label a class")
            log.info(f"{task_id}: {gone['count']} {'graph' if task.family == 'graph_cls' else 'node'}(s) without a "
                     f"class, labelled {gone['codes']} ({how})")
    elif ds.synthetic:
        gen_params = dict(ds.generator_params)
        if settings.protocol.synthetic_graphs == "reference":
            gen_params.update(ds.reference_params)
        meta.update(status="ok", synthetic=True, generator=ds.processor_ref,
                    generator_params=gen_params, generator_version=GENERATOR_VERSION)
    else:
        raw_dir, raw_sha, fmt = None, {}, "builtin"
        if ds.needs_download:
            mirror = resolve_mirror(settings.data.mirror)
            same = previous is not None and all(previous.get(k) == meta.get(k) for k in (*_SPEC_FIELDS, "metric"))
            try:
                bundle = obtain_raw(ds, mirror, cache_root() / "downloads",
                                    known=previous.get("raw_sha256") if same else None)
            except DatasetUnavailable as exc:
                if same:
                    raise _KeepPrevious(str(exc)) from None
                if settings.data.on_missing == "fail":
                    raise
                log.warning(f"{task_id} is UNAVAILABLE and will be reported as missing: {exc}")
                meta.update(status="unavailable", reason=str(exc))
                bundle = None
            if bundle is not None:
                raw_dir, raw_sha, origin, fmt = bundle.raw_dir, bundle.sha256, bundle.origin, bundle.format
        else:
            origin = "builtin"
        if meta.get("status") != "unavailable":
            source = raw_sha if ds.needs_download else _builtin_source()
            fingerprint = _fingerprint(meta, source, fmt, ds.processor_ref)
            state = _state_file(out)
            if (fingerprint is not None and previous is not None and previous.get("raw_sha256") == raw_sha
                    and state.is_file() and state.read_text(encoding="utf-8") == f"{fingerprint} {data_hash(out)}"):
                raise _Unchanged(origin)  # a re-check that found the same raw bytes: no processing, no torch
            with quiet():  # PyG's "Processing... Done!" on every fetch says nothing the summary line does not
                processed = ds.processor(raw_dir, fmt)  # (arrays, counts[, dropped])
            arrays, counts, dropped = processed if len(processed) == 3 else (*processed, None)
            save_arrays(tmp / GRAPH, arrays)
            meta.update(status="ok", synthetic=False, format=fmt, raw_sha256=raw_sha)
            _record_counts(meta, arrays, counts, dropped)
            if fingerprint is not None:
                meta["_fingerprint"] = fingerprint  # written to the state file once out is in place
    fingerprint = meta.pop("_fingerprint", None)
    write_meta(tmp, meta)
    return origin, fingerprint


def _record_counts(meta: dict, arrays: dict, counts: dict | None, dropped: dict | None) -> None:
    """Complete ``meta`` of processed ``arrays``: ``counts`` (the names every dataset of the family has,
    from the arrays, beside the processor's own ``counts``: :mod:`netzbench.graphs.counts`), ``dropped``
    (what the processor left out) and ``raw_sha256`` as a JSON object, file -> sha256."""
    meta["counts"] = meta_counts(meta["family"], arrays, counts)
    meta["dropped"] = dropped_record(dropped)
    raw = meta.get("raw_sha256", {})
    if not isinstance(raw, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
        raise TypeError(f"raw_sha256 must map file names to sha256 hex digests, got {raw!r}")
    meta["raw_sha256"] = dict(sorted(raw.items()))


def write_loader_task(out: str | os.PathLike, name: str, family: str, loader: Callable, *, root: str | os.PathLike,
                      seeds: list[int] | None = None, split: str | None = None, category: str | None = None,
                      epochs: int | None = None, missing=None) -> dict:
    """Write the data of a task whose loader is a Python callable (the Python API) into ``out``.

    ``loader(root)`` is called once; a seed-aware loader (``seeds`` given) is
    called as ``loader(root, seed=s)`` for every seed and each instance is
    stored (``seeds/<s>.npz``), since a callable cannot be named in
    ``meta.json`` for training to call. ``split`` None: chosen from the data. ``epochs``: the task's
    budget, recorded in ``meta.json`` like a catalogue task's. Class labels are made ``0..C-1`` from their
    original values (``label_mapping``), as a file's are; ``missing``: the values that mean "no label" (a
    value or a list, as a custom task's ``missing:``; None: those recognised, ``[]``: none): those nodes or
    graphs get no class and stay out of the splits (``label_missing``). A seed-aware loader's labels are
    made per seed at training time: ``missing`` does not apply to it.
    Returns the meta.
    """
    out = Path(out)
    if missing is not None and seeds is not None:
        raise missing_for_seed_aware(name)
    meta = {"task": name, "dataset": name, "family": family, "category": category or "custom",
            "license": "user-provided", "citation": "", "status": "ok", "format": "loader"}
    if epochs is not None:
        meta["epochs"] = int(epochs)
    with _replacing(out) as tmp:
        if seeds is None:
            obj, mapping = normalise_labels(with_features(loader(str(root)), family)[0], family)
            arrays, counts = to_bundle(obj, family)
            # made 0..C-1 from the original values as a file's are (labels 1..4: four classes), missing codes out
            arrays, labels = with_classes(name, family, arrays, {"label_mapping": mapping}, missing)
            meta.update(labels)  # label_mapping, label_missing: what there is of them
            meta.update(synthetic=False, split=split or default_split(family, arrays))
            check_arrays(name, family, meta["split"], arrays)
            _record_counts(meta, arrays, counts, discarded(obj))
            save_arrays(tmp / GRAPH, arrays)
        else:
            (tmp / SEEDS).mkdir()
            mappings = {}
            for s in seeds:
                obj, mappings[s] = normalise_labels(with_features(loader(str(root), seed=s), family)[0], family)
                arrays = to_arrays(obj, family)
                check_arrays(name, family, split or default_split(family, arrays), arrays)
                save_arrays(seed_file(tmp, s), arrays)
            meta.update(synthetic=True, per_seed=True, split=split or "auto")
            if any(mappings.values()):
                if len({json.dumps(m, sort_keys=True) for m in mappings.values()}) > 1:
                    raise DatasetError(f"custom task {name!r}: the seeds' instances have different label sets "
                                       f"({sorted(set(map(str, mappings.values())))}); one mapping must serve all")
                meta["label_mapping"] = next(iter(mappings.values()))
        meta["relational"] = meta["split"] == "relational_canonical"
        write_meta(tmp, meta)
    return meta
