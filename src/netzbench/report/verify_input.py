"""What ``netzbench verify`` reads: a benchmark file, parsed strictly and checked value by value.

:meth:`BenchmarkReport.from_json` reads back what :meth:`~BenchmarkReport.to_json` wrote. ``verify``
compares a file from anywhere (a colleague's run, a copy someone edited), and its verdict is
only as good as the numbers, so :func:`read_benchmark` refuses, naming the file and the first
offending value, what netzbench cannot have written:

- not JSON, nested deeper than :data:`.persistence.MAX_DEPTH`, ``NaN``/``Infinity``, a number out
  of a float's range (:func:`.persistence.loads`), another schema or a missing part
  (:func:`.persistence.check_schema`);
- seeds that are not distinct integers, a cell with a history count other than the seed count;
- a series name that is not ``<split>_<metric>`` (the run record's rule), a value that is not a
  number or null, or one outside its metric's range (:func:`.series.metric_range`: an accuracy of
  5.5, a negative MAE; a rounding of :data:`ROUNDING` past a bound is float arithmetic, not an edit; ``test_constant`` is a share in [0, 1], ``test_distinct`` a count >= 0);
- a seed's ``leakage`` that is not a list of channel names, or a ``split`` that is not
  ``{redrawn: bool, n_train: int >= 0, n_test: int >= 0}`` (:mod:`.degenerate` and the paired tests read them);
- an ok seed (one that has a history) whose headline series holds no finite value, or whose cell
  facts give another status: an ok seed is trained and evaluated, so it has a number.
"""

from __future__ import annotations

import inspect
import json
import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .benchmark import BenchmarkReport
from .degenerate import COLLAPSE_SERIES, DISTINCT_SERIES
from .persistence import beside, check_schema, join, loads
from .series import metric_range, task_info_of

#: a history's series names (``schemas/run_record.schema.json``)
SERIES_NAME = re.compile(r"^(train|val|test)_([a-z]+_)?[a-z0-9]+$")
NOT_WRITTEN = "not a benchmark file netzbench wrote, or one edited since"
#: the analysis options a file's ``options`` may hold (:meth:`BenchmarkReport.options`)
OPTION_NAMES = tuple(name for name in inspect.signature(BenchmarkReport).parameters
                     if name not in ("seeds", "histories", "config", "tasks", "cells"))


class VerifyError(ValueError):
    """Files ``verify`` cannot compare; the message names the file (or says why the pair cannot be)."""


def _short(value: Any, width: int = 40) -> str:
    text = json.dumps(value) if isinstance(value, (str, list, dict)) else repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def series_range(name: str) -> tuple[float, float]:
    """The range of a series' values: its metric's (:func:`.series.metric_range`), [0, 1] for the share
    of constant predictions, [0, inf) for the count of distinct ones."""
    if name == DISTINCT_SERIES:
        return 0.0, math.inf
    return (0.0, 1.0) if name == COLLAPSE_SERIES else metric_range(name)


def _interval(lo: float, hi: float) -> str:
    def num(x):
        return f"{x:g}" if math.isfinite(x) else ("-inf" if x < 0 else "inf")

    return f"[{num(lo)}, {num(hi)}{')' if math.isinf(hi) else ']'}"


#: how far past a finite bound a value may lie: a metric summed in float64 (average precision, a sum of
#: precision x recall gains) can end a few units in the last place above 1
ROUNDING = 1e-12


def _slack(bound: float) -> float:
    return ROUNDING * max(1.0, abs(bound)) if math.isfinite(bound) else 0.0


def _check_history(history: Any, where: str) -> None:
    if not isinstance(history, Mapping):
        raise ValueError(f"{where}: the history is {_short(history)}, not an object of series or null")
    for name, values in history.items():
        if not SERIES_NAME.match(name):
            raise ValueError(f"{where}: series name {_short(name)} is not <train|val|test>_<metric>")
        if not isinstance(values, list):
            raise ValueError(f"{where}: {name} is {_short(values)}, not a list of values")
        lo, hi = series_range(name)
        for i, v in enumerate(values):
            if v is None:
                continue
            if type(v) not in (int, float):  # bool is an int subclass, and never a metric
                raise ValueError(f"{where}: {name} holds {_short(v)} at evaluation {i + 1}, not a number or null")
            if not lo - _slack(lo) <= v <= hi + _slack(hi):
                raise ValueError(f"{where}: {name} holds {v!r} at evaluation {i + 1}, outside {_interval(lo, hi)}")


def _seed_status(facts: Any, seed: int, where: str) -> str | None:
    """The status the cell facts give ``seed`` (None when they give none)."""
    if facts is None:
        return None
    if not isinstance(facts, Mapping) or not isinstance(facts.get("seeds") or {}, Mapping):
        raise ValueError(f"{where}: its cell facts are not an object with an object of seeds")
    entry = (facts.get("seeds") or {}).get(str(seed))
    if entry is None:
        return None
    status = entry.get("status") if isinstance(entry, Mapping) else entry
    if not isinstance(entry, Mapping) or not isinstance(status, str):
        raise ValueError(f"{where} seed {seed}: status {_short(status)} is not a string")
    _check_design(entry, f"{where} seed {seed}")
    return status


def _check_design(entry: Mapping, where: str) -> None:
    """A seed's ``leakage`` (channel names) and ``split`` (``redrawn``, ``n_train``, ``n_test``), where given."""
    leakage = entry.get("leakage")
    if leakage is not None and (not isinstance(leakage, list) or not all(isinstance(c, str) for c in leakage)):
        raise ValueError(f"{where}: leakage {_short(leakage)} is not a list of channel names")
    split = entry.get("split")
    if split is None:
        return
    if not isinstance(split, Mapping) or not isinstance(split.get("redrawn"), bool) or any(
            type(split.get(k)) is not int or split[k] < 0 for k in ("n_train", "n_test")):
        raise ValueError(f"{where}: split {_short(split)} is not {{redrawn: true|false, n_train: int >= 0, "
                         "n_test: int >= 0}")


def check_form(form: Any) -> None:
    """Raise ``ValueError`` naming the first value of ``form`` (the parsed JSON) that netzbench cannot have
    written (the list in the module docstring)."""
    check_schema(form)
    unknown = sorted(set(form.get("options") or {}) - set(OPTION_NAMES))
    if unknown:
        raise ValueError(f"options: unknown {', '.join(map(_short, unknown))} (known: {', '.join(OPTION_NAMES)})")
    seeds = form["seeds"]
    if not seeds or any(type(s) is not int for s in seeds) or len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds {_short(seeds)} are not a non-empty list of distinct integers")
    metas, cells = form.get("tasks") or {}, form.get("cells") or {}
    for task, by_model in form["histories"].items():
        if not isinstance(by_model, Mapping):
            raise ValueError(f"histories of task {task}: {_short(by_model)}, not an object of models")
        meta = metas.get(task)
        if meta is not None and (not isinstance(meta, Mapping) or not isinstance(meta.get("metric") or "", str)):
            raise ValueError(f"tasks.{task}: {_short(meta)} is not an object with a metric name")
        by_cell = cells.get(task) or {}
        if not isinstance(by_cell, Mapping):
            raise ValueError(f"cells.{task}: {_short(by_cell)} is not an object of models")
        for model, runs in by_model.items():
            where = f"cell {task}/{model}"
            if not isinstance(runs, list) or len(runs) != len(seeds):
                found = f"{len(runs)} histories" if isinstance(runs, list) else _short(runs)
                raise ValueError(f"{where}: {found} for {len(seeds)} seeds")
            for seed, history in zip(seeds, runs):
                status = _seed_status(by_cell.get(model), seed, where)
                if history is None:
                    if status == "ok":
                        raise ValueError(f"{where} seed {seed}: status ok but no history")
                    continue
                _check_history(history, f"{where} seed {seed}")
                if status not in (None, "ok"):
                    raise ValueError(f"{where} seed {seed}: a history, but status {status!r} (only an ok seed has one)")
        headline = task_info_of(task, meta, [h for runs in by_model.values() for h in runs]).metric
        for model, runs in by_model.items():
            for seed, history in zip(seeds, runs):
                if history is None:
                    continue
                if headline not in history:
                    raise ValueError(f"cell {task}/{model} seed {seed}: an ok seed without the headline {headline}")
                if all(v is None for v in history[headline]):
                    raise ValueError(f"cell {task}/{model} seed {seed}: an ok seed whose headline {headline} "
                                     "holds no finite value")


def read_benchmark(path: str | Path, shown_as: str | None = None,
                   read_sidecar: Callable[[str], bytes] | None = None) -> BenchmarkReport:
    """The report in the benchmark file ``path``, checked (:func:`check_form`); a :class:`VerifyError`
    naming the file (as ``shown_as``, default the path) when it cannot be read or trusted. Histories in
    a sidecar are read by ``read_sidecar(name)`` (default: the file ``name`` beside ``path``) and
    joined (:func:`.persistence.join`: a sidecar that is not the file's own is refused)."""
    name = shown_as or str(path)
    try:
        form = join(loads(Path(path)), read_sidecar or beside(path))
    except VerifyError:  # a sidecar the reader could not find (sources.read)
        raise
    except UnicodeDecodeError:
        raise VerifyError(f"file {name}: not UTF-8 text, so not a benchmark file") from None
    except OSError as exc:
        what = f" ({Path(exc.filename).name})" if exc.filename and Path(exc.filename).name != Path(path).name else ""
        raise VerifyError(f"file {name}: cannot be read{what}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise VerifyError(f"file {name}: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno}; "
                          "truncated?)") from None
    except ValueError as exc:
        raise VerifyError(f"file {name}: {exc}; {NOT_WRITTEN}") from None
    try:
        check_schema(form)
    except ValueError as exc:
        raise VerifyError(f"file {name}: {exc}") from None
    try:
        check_form(form)
        return BenchmarkReport.from_dict(form)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise VerifyError(f"file {name}: {exc}; {NOT_WRITTEN}") from None
