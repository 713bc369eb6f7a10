"""The run record: the one contract between training and the report.

``metrics/runs/<task>/<model>.json`` (and ``metrics/candidate/<task>.json``)
holds one (task, model) cell, every seed: the resolved task spec and
hyperparameters, the identity hashes, and per seed a status and the whole
per-epoch history. The JSON Schema is ``schemas/run_record.schema.json``.

This module owns the record:

- :class:`RunRecord`: the record as a type; :meth:`RunRecord.from_dict` is the
  one door in, where every record read or written is checked against the schema;
- :func:`write_record`: schema-validated, atomic (temporary file + rename, so a
  killed stage never leaves a torn record), non-finite floats as ``null``;
- :class:`StagedFiles` / :func:`atomic_write`: how every published file is
  written (temporary files beside their targets, fsynced, renamed only once all
  of them are written), also used by the report stage and the protocol study;
- :func:`read_record`: parsed and schema-validated; every error
  (:class:`~netzbench.errors.RecordError`) names the file;
- :func:`cell_status`: a cell's status from its seeds, computed here only;
- :func:`validate_seed_entry`: one seed's entry (what the per-seed cache stores);
- the candidate's placeholders (``no_candidate``, ``in_roster``), which
  are records of a cell that was deliberately not trained.

``null`` history values mean NaN; :func:`seed_history` turns them back.
"""

from __future__ import annotations

import enum
import json
import math
import os
import platform
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from functools import lru_cache
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from .errors import RecordError
from .paths import CommitError, replace_all  # CommitError: the name callers import from here

SCHEMA_VERSION = 1
#: statuses of a candidate record that holds no training on purpose
PLACEHOLDERS = ("no_candidate", "in_roster")


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(resources.files("netzbench").joinpath("schemas/run_record.schema.json").read_text())


@lru_cache(maxsize=2)
def _validator(definition: str | None = None):
    """A compiled validator of the record (or of ``$defs/<definition>``): checking the schema itself
    once, not on every record or cache entry."""
    import jsonschema

    target = _target(definition)
    cls = jsonschema.validators.validator_for(schema())
    cls.check_schema(target)
    return jsonschema.validators.extend(cls, {"items": _plain_items(cls.VALIDATORS["items"])})(target)


def _target(definition: str | None) -> dict:
    """The record's schema, or one that checks ``$defs/<definition>`` against it."""
    full = schema()
    return full if definition is None else {"$schema": full["$schema"], "$defs": full["$defs"],
                                            "$ref": f"#/$defs/{definition}"}


def _plain_items(items_keyword):
    """jsonschema's ``items`` keyword, with a fast path for an item schema that is a bare type test
    (``{"type": ["number", "null"]}``: a history series, hundreds of values per seed): an element that
    passes the type test is not descended into (a descent per float made validation most of a cached
    train stage's and the report stage's time); one that fails is, so the errors are jsonschema's own,
    in its order (tests/test_records.py compares them)."""

    def items(validator, item_schema, instance, schema):
        if (not isinstance(item_schema, dict) or set(item_schema) != {"type"} or "prefixItems" in schema
                or not validator.is_type(instance, "array")):
            yield from items_keyword(validator, item_schema, instance, schema)
            return
        types = item_schema["type"] if isinstance(item_schema["type"], list) else [item_schema["type"]]
        for index, item in enumerate(instance):
            if not any(validator.is_type(item, t) for t in types):
                yield from validator.descend(item, item_schema, path=index)

    return items


@lru_cache(maxsize=2)
def _fast_validator(definition: str | None = None):
    """The same schema compiled by ``jsonschema_rs`` (Rust: about 100 times faster on a record), or None
    where it is not installed. It only answers "valid"; anything else goes to jsonschema."""
    try:
        import jsonschema_rs
    except ImportError:
        return None
    return jsonschema_rs.validator_for(_target(definition))


def _fast_pass(instance, definition: str | None) -> bool:
    """Whether the fast validator passes ``instance``. A "no" is not trusted: jsonschema (the reference,
    whose errors the messages quote) decides then; the two differ only where this one is stricter (a
    pattern's ``$`` before a final newline) or cannot take a value (a NaN), and tests/test_records.py
    checks that no instance the reference refuses passes here."""
    fast = _fast_validator(definition)
    if fast is None:
        return False
    try:
        return bool(fast.is_valid(instance))
    except Exception:  # noqa: BLE001 - a value it cannot convert: the reference validator decides
        return False


def _check(instance, definition: str | None, where, what: str) -> None:
    """Raise :class:`RecordError` with the error ``jsonschema.validate`` would pick (its best match)."""
    if _fast_pass(instance, definition):
        return
    import jsonschema

    exc = jsonschema.exceptions.best_match(_validator(definition).iter_errors(instance))
    if exc is not None:
        path = "/".join(str(p) for p in exc.absolute_path) or "(top level)"
        raise RecordError(f"{where}: not a valid {what} at {path}: {exc.message}")


def validate_record(record: dict, where: str | os.PathLike = "run record") -> None:
    """Raise :class:`RecordError` (naming ``where``) if ``record`` breaks the schema.

    A placeholder (``{"status": "no_candidate" | "in_roster", "task": ...}``) is
    valid without the training fields.
    """
    if isinstance(record, dict) and record.get("status") in PLACEHOLDERS:
        if not isinstance(record.get("task"), str):
            raise RecordError(f"{where}: a {record['status']} record needs a `task` name")
        return
    _check(record, None, where, "run record")


class _Absent(enum.Enum):
    """An optional field the record does not have (``None`` is a value: ``card: null``)."""

    ABSENT = "absent"

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent.ABSENT


@dataclass(kw_only=True)
class RunRecord:
    """One cell's run record: the top-level fields of ``schemas/run_record.schema.json``.

    The schema documents each field. An optional field left :data:`ABSENT` is not in the
    record; fields this version does not name (the schema allows them) are kept in ``extra``.
    The fields are in the order :func:`netzbench.run.plan.plan_cell` fills them, which
    :meth:`to_dict` keeps (the file itself is written with sorted keys).
    """

    schema_version: int
    task: str
    family: str
    category: str | None | _Absent = ABSENT
    task_spec: dict | _Absent = ABSENT
    model: str
    model_ref: str
    model_args: dict | _Absent = ABSENT
    role: str | _Absent = ABSENT
    headline_metric: str
    direction: str
    hyperparameters: dict
    epochs_source: str | _Absent = ABSENT
    batch_size: int | None | _Absent = ABSENT
    protocol: dict | _Absent = ABSENT
    threads: int
    arithmetic: str | _Absent = ABSENT
    software: dict
    baseline_kind: str | None | _Absent = ABSENT
    config_hash: str
    code_version: str
    data_hash: str | None
    card: dict | None | _Absent = ABSENT
    device: str | _Absent = ABSENT
    search: dict | _Absent = ABSENT
    #: seed (as a string) -> that seed's entry (``$defs/seed``)
    seeds: dict
    status: str
    reason: str | _Absent = ABSENT
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, record: dict, where: str | os.PathLike = "run record") -> RunRecord:
        """The record ``record`` holds, checked against the schema (:class:`RecordError` naming
        ``where`` and the field that breaks it). A placeholder is not a run record."""
        if isinstance(record, dict) and record.get("status") in PLACEHOLDERS:
            raise RecordError(f"{where}: a {record['status']} placeholder is not a run record")
        validate_record(record, where)
        named = {k: v for k, v in record.items() if k in _FIELDS}
        return cls(**named, extra={k: v for k, v in record.items() if k not in _FIELDS})

    def to_dict(self) -> dict:
        """The record as it is written: every field but the absent ones, then ``extra``."""
        out = {name: getattr(self, name) for name in _FIELDS if getattr(self, name) is not ABSENT}
        out.update(self.extra)
        return out


#: the record's fields, in order (``extra`` is not one)
_FIELDS = tuple(f.name for f in fields(RunRecord) if f.name != "extra")


def validate_seed_entry(entry: dict, where: str | os.PathLike = "seed entry") -> None:
    """Raise :class:`RecordError` (naming ``where``) unless ``entry`` is one seed of a run record
    (``$defs/seed``: a status, and what that status requires)."""
    _check(entry, "seed", where, "seed entry")


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


@lru_cache(maxsize=1)
def _file_mode() -> int:
    """The mode ``open`` would give a new file (mkstemp makes 0600; a published file follows the umask)."""
    try:  # Linux: read it without setting it (os.umask sets it process-wide, for every thread)
        with open("/proc/self/status", encoding="ascii") as fh:
            mask = next(int(line.split()[1], 8) for line in fh if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        mask = os.umask(0o022)
        os.umask(mask)
    return 0o666 & ~mask


def _fsync_dir(folder: Path) -> None:
    """Make the renames in ``folder`` durable (best effort: not every filesystem syncs a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class StagedFiles:
    """Files written under temporary names beside their targets, renamed into place together.

    The order, which makes a set of outputs all-or-nothing: every :meth:`open` (or
    :meth:`write_text`, :meth:`write_json`) writes a hidden temporary file (``.<name>.*.tmp``) in
    its target's own folder -- the same filesystem, so the rename is atomic -- and fsyncs it; no
    target is touched until :meth:`commit`, which renames them all, in staging order, once
    everything is written. :meth:`discard`, or leaving the ``with`` block by an exception,
    removes every temporary (and the folders made for them), so a failure anywhere before the
    commit (a full disk, a bug while building a figure) leaves every published file as it was.
    Renames need no space; the commit refuses a target that is a folder before renaming any, and a
    rename failing halfway puts back what the others replaced (a benchmark file and its sidecar stay a pair).
    """

    def __init__(self) -> None:
        self._pending: dict[Path, Path] = {}  # target -> its temporary, in staging order
        self._made: list[Path] = []  # folders created for the targets, outermost first

    def __enter__(self) -> StagedFiles:
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            self.commit()
        else:
            self.discard()
        return False

    def _make_folder(self, folder: Path) -> None:
        missing = []
        while not folder.exists() and folder != folder.parent:
            missing.append(folder)
            folder = folder.parent
        for f in reversed(missing):
            f.mkdir(exist_ok=True)
            self._made.append(f)

    @contextmanager
    def open(self, target: str | os.PathLike, mode: str = "w", **kwargs):
        """A file object (``mode``, ``kwargs``: as :func:`open`) on the temporary of ``target``;
        staging the same target again replaces the earlier temporary."""
        target = Path(target)
        self._make_folder(target.parent)
        try:
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror or str(exc), str(target)) from exc
        tmp = Path(tmp)
        try:
            os.fchmod(fd, _file_mode())
            with os.fdopen(fd, mode, **kwargs) as fh:
                yield fh
                fh.flush()
                os.fsync(fh.fileno())  # the bytes are on disk before any rename can expose them
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            if exc.filename not in (None, str(tmp), fd):  # about another file (a font, say): as it is
                raise
            raise OSError(exc.errno, exc.strerror or str(exc), str(target)) from exc  # the output, not its temporary
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        earlier = self._pending.pop(target, None)
        if earlier is not None:
            earlier.unlink(missing_ok=True)
        self._pending[target] = tmp

    def write_text(self, target: str | os.PathLike, text: str) -> None:
        with self.open(target, "w", encoding="utf-8") as fh:
            fh.write(text)

    def write_json(self, target: str | os.PathLike, obj, indent: int | None = 1) -> None:
        """``obj`` as strict JSON: non-finite floats as null, sorted keys, a final newline."""
        with self.open(target, "w", encoding="utf-8") as fh:
            json.dump(_nan_to_none(obj), fh, indent=indent, sort_keys=True, allow_nan=False)
            fh.write("\n")

    def commit(self) -> list[Path]:
        """Rename every staged temporary over its target; return the targets."""
        try:
            for target in self._pending:
                if target.is_dir() and not target.is_symlink():
                    raise IsADirectoryError(21, "a folder is in the way of an output", str(target))
            done = replace_all(self._pending)  # a failure puts back what was replaced (paths.replace_all)
        finally:
            self.discard()  # after a failure: the temporaries not renamed; otherwise nothing is left
        for folder in dict.fromkeys(t.parent for t in done):
            _fsync_dir(folder)
        return done

    def discard(self) -> None:
        """Remove every temporary not yet renamed, and the folders made for them if left empty."""
        for tmp in self._pending.values():
            tmp.unlink(missing_ok=True)
        self._pending.clear()
        for folder in reversed(self._made):
            try:
                folder.rmdir()  # only an empty one: after a commit they hold the outputs
            except OSError:
                pass
        self._made.clear()


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", **kwargs):
    """A file object on a temporary beside ``path``, fsynced and renamed over ``path`` when the block
    ends normally, removed when it raises (``path`` is never seen half written)."""
    with StagedFiles() as staged, staged.open(path, mode, **kwargs) as fh:
        yield fh


def write_json_atomic(path: str | os.PathLike, obj, indent: int | None = 1) -> None:
    """Write ``obj`` as strict JSON (non-finite floats as null, sorted keys) atomically."""
    with StagedFiles() as staged:
        staged.write_json(path, obj, indent=indent)


def _checked(record, where) -> dict:
    """``record`` through :meth:`RunRecord.from_dict` (a placeholder: checked, as it is)."""
    if isinstance(record, dict) and record.get("status") in PLACEHOLDERS:
        validate_record(record, where)
        return record
    return RunRecord.from_dict(record, where).to_dict()


def write_record(path: str | os.PathLike, record: RunRecord | dict) -> None:
    """Validate ``record`` (a :class:`RunRecord`, its dict, or a placeholder) against the schema
    and write it atomically to ``path``."""
    record = _nan_to_none(record.to_dict() if isinstance(record, RunRecord) else record)
    write_json_atomic(path, _checked(record, path))


def rerun_hint(path: str | os.PathLike) -> str:
    """What to do about a bad record at ``path``: re-run the DVC stage that writes it (named when
    ``path`` is where the pipeline keeps records), its seeds coming back from the per-seed cache."""
    parts = Path(path).parts
    # one train stage writes every task's records, roster and candidate
    if not ((len(parts) >= 4 and parts[-4:-2] == ("metrics", "runs"))
            or (len(parts) >= 3 and parts[-3:-1] == ("metrics", "candidate"))):
        return "re-run the stage that wrote it"
    return "re-run its stage: `dvc repro -s -f train` (or delete the file and run `dvc repro`)"


def read_record(path: str | os.PathLike, *, missing_ok: bool = False) -> dict | None:
    """The record at ``path`` as a dict (read through :meth:`RunRecord.from_dict`; a placeholder
    as it is), ``None`` for a missing file when ``missing_ok``; every error, a torn file
    included, is one :class:`RecordError` naming the file and what to do."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if missing_ok:
            return None
        raise RecordError(f"{path}: no run record here (has the stage run?)") from None
    except UnicodeDecodeError as exc:  # a file cut inside a character, or not text at all
        raise RecordError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}): a torn or foreign "
                          f"file; {rerun_hint(path)}") from None
    except OSError as exc:
        raise RecordError(f"{path}: cannot be read: {exc}") from None
    try:
        record = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        why = exc if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        raise RecordError(f"{path}: not JSON ({why}): a torn or hand-edited record; {rerun_hint(path)}") from None
    try:
        return _checked(record, path)
    except RecordError as exc:
        raise RecordError(f"{exc}; {rerun_hint(path)}") from None


def seed_history(entry: dict) -> dict | None:
    """The per-epoch history of one seed entry (``null`` back to NaN); ``None`` unless the seed is ok."""
    if entry.get("status") != "ok":
        return None
    return {k: [math.nan if v is None else v for v in vals] for k, vals in entry["history"].items()}
