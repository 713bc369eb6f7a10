"""Compute cost: training time from the per-seed facts of the run records.

Each seed of a cell may carry ``seconds`` (its training time) and
``started_at`` / ``finished_at`` (POSIX times).  Seeds run in parallel
worker processes, so summed seconds exceed the elapsed time; the elapsed
time is the length of the union of the seeds' intervals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any


def union_length(intervals: Sequence[tuple[float, float]]) -> float:
    """Total length covered by closed intervals ``[a, b]`` (overlaps counted once); 0 for none."""
    total, end = 0.0, -math.inf
    for a, b in sorted(intervals):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total


def compute_cost(cells: Mapping[str, Mapping[str, Mapping]]) -> dict[str, Any]:
    """Training time of ``cells[task][model]`` (cell facts): summed per seed, and elapsed.

    ``total_seconds`` and splits ``by_task``, ``by_model`` and
    ``by_cell[task][model]`` sum the per-seed ``seconds`` (every seed with
    a recorded time, failed ones included; cached seeds carry the time of
    their original run), over ``n_timed`` seeds. Seeds run in parallel
    worker processes, so these sums exceed the elapsed time.

    ``wall_seconds`` is the elapsed time: the length of the union of the
    seeds' ``[started_at, finished_at]`` intervals, i.e. the time during
    which at least one seed was training (gaps between separate
    invocations do not count; time between seeds inside one run, under a
    second per cell, does not either). ``wall_by_task``,
    ``wall_by_model`` and ``wall_by_cell`` are the same per group
    (tasks and cells run one after another, so ``wall_by_task`` adds up
    to ``wall_seconds``; models of one task interleave only at cell
    boundaries). ``span_seconds`` is first start to last finish;
    ``parallelism`` = ``total_seconds / wall_seconds`` over the seeds
    with intervals. All ``None`` when no interval was recorded.
    """
    by_task: dict[str, float] = {}
    by_model: dict[str, float] = {}
    by_cell: dict[str, dict[str, float]] = {}
    spans: dict[tuple[str, str], list[tuple[float, float]]] = {}
    timed_with_span = 0.0
    n = 0
    for task, by_m in cells.items():
        for model, cell in by_m.items():
            facts = list((cell.get("seeds") or {}).values())
            secs = [float(f["seconds"]) for f in facts if isinstance(f.get("seconds"), (int, float))]
            for f in facts:
                a, b = f.get("started_at"), f.get("finished_at")
                if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b >= a:
                    spans.setdefault((task, model), []).append((float(a), float(b)))
                    timed_with_span += float(f.get("seconds") or 0.0)
            if not secs:
                continue
            s = float(sum(secs))
            n += len(secs)
            by_cell.setdefault(task, {})[model] = s
            by_task[task] = by_task.get(task, 0.0) + s
            by_model[model] = by_model.get(model, 0.0) + s
    out: dict[str, Any] = {"total_seconds": float(sum(by_task.values())), "by_task": by_task,
                           "by_model": by_model, "by_cell": by_cell, "n_timed": n,
                           "wall_seconds": None, "span_seconds": None, "parallelism": None,
                           "wall_by_task": {}, "wall_by_model": {}, "wall_by_cell": {}}
    if spans:
        every = [iv for ivs in spans.values() for iv in ivs]
        out["wall_seconds"] = union_length(every)
        out["span_seconds"] = max(b for _, b in every) - min(a for a, _ in every)
        out["parallelism"] = timed_with_span / out["wall_seconds"] if out["wall_seconds"] > 0 else None
        for key, group in (("wall_by_task", 0), ("wall_by_model", 1)):
            names = sorted({k[group] for k in spans})
            out[key] = {name: union_length([iv for k, ivs in spans.items() if k[group] == name for iv in ivs])
                        for name in names}
        for (task, model), ivs in spans.items():
            out["wall_by_cell"].setdefault(task, {})[model] = union_length(ivs)
    return out


def gpu_cells(cells: Mapping[str, Mapping[str, Mapping]]) -> dict[str, list[tuple[str, str]]]:
    """The cells of ``cells[task][model]`` (cell facts) with a seed trained on a GPU, by the GPU's name (a
    seed's ``gpu``, absent on the CPU): ``{name: [(task, model), ...]}`` in task then model order; empty
    when every seed trained on the CPU."""
    out: dict[str, list[tuple[str, str]]] = {}
    for task, by_m in cells.items():
        for model, cell in by_m.items():
            names = {f["gpu"] for f in (cell.get("seeds") or {}).values() if isinstance(f.get("gpu"), str)}
            for name in sorted(names):
                out.setdefault(name, []).append((task, model))
    return out
