"""``netzbench seeds``: seeds added in rounds, only to the comparisons still undecided at the target effect.

Every pair of models under test on a task (baselines are reference points, not compared here) is a
comparison; the looks are seed counts ``n_1 < ... < n_K`` (``--looks``, the last the cap). Round k
trains seeds ``0 .. n_k - 1`` of every cell that is part of a comparison still open (the per-seed cache
keeps what earlier rounds trained), reads each cell's headline per seed as the report does, and
decides each open comparison with :func:`netzbench.stats.decide`: ``different``, ``equivalent`` (no
difference as large as the target effect), or more seeds; at the cap an open one stays
``undecided``. Each look is held to Pocock's boundary (:func:`netzbench.stats.pocock_level`), so the
chance that a comparison of two equal models is ever called different stays at ``alpha``.

The plan is written to ``reports/seed_plan.json`` (every comparison: decision, seeds, p-values; every
cell: the seeds it needed; and how many seed runs the rounds saved against giving every cell the cap).
"""

from __future__ import annotations

import logging
from itertools import combinations
from pathlib import Path

from .catalog.data import fetch_task
from .records import write_json_atomic
from .report import BenchmarkReport
from .report.runs import task_finals
from .run.execute import run_plans
from .run.plan import plan_cell
from .settings import Settings
from .stats import decide, pocock_level

log = logging.getLogger(__name__)

SEED_PLAN = Path("reports/seed_plan.json")
SCHEMA = "netzbench.seed_plan/1"


def run_seed_plan(settings: Settings, *, target_effect: float, looks: list[int], alpha: float | None = None,
                  data_root: str | Path = "data", out: str | Path | None = SEED_PLAN, progress: bool = True) -> dict:
    """Run the rounds (module docstring) over ``settings``' tasks and roster; return the plan (and write it
    to ``out`` unless None)."""
    alpha = float(alpha if alpha is not None else settings.report.alpha)
    looks = sorted(int(n) for n in looks)
    level = pocock_level(alpha, looks)
    data_root = Path(data_root)
    comparisons: list[dict] = []
    cells: dict[str, dict[str, int]] = {}
    for task in settings.tasks:
        if not (data_root / task / "meta.json").is_file():
            fetch_task(task, settings, data_root)
        first = settings.replace(seeds=looks[:1])
        probe = {m: plan_cell(task, m, first, data_root=data_root, quiet=True) for m in settings.models}
        models = [m for m, p in probe.items() if p.outcome is None and not p.record.get("baseline_kind")]
        open_pairs = [tuple(pair) for pair in combinations(models, 2)]
        decided: dict[tuple[str, str], dict] = {}
        cells[task] = {}
        for k, n in enumerate(looks):
            if not open_pairs:
                break
            seeds = list(range(n))
            need = sorted({m for pair in open_pairs for m in pair}, key=models.index)
            round_settings = settings.replace(seeds=seeds)
            plans = {m: plan_cell(task, m, round_settings, data_root=data_root, quiet=True) for m in need}
            run_plans([p for p in plans.values() if p.jobs], round_settings, progress=progress,
                      desc=f"{task} round {k + 1} ({n} seeds)")
            values, info = task_finals(BenchmarkReport, {m: p.finish().to_dict() for m, p in plans.items()}, task, seeds)
            direction = info.direction
            for m in need:
                cells[task][m] = n
            still = []
            for a, b in open_pairs:
                if a not in values or b not in values:  # a cell that failed: nothing to decide on
                    decided[(a, b)] = {"task": task, "model_a": a, "model_b": b, "decision": "undecided", "n": n,
                                       "better": None, "note": "a cell has no values"}
                    continue
                d = decide(values[a], values[b], looks, target_effect, alpha, level=level)
                if d.decision == "more" and k < len(looks) - 1:
                    still.append((a, b))
                    continue
                better = None
                if d.decision == "different":
                    better = a if (d.mean_diff > 0) == (direction == "higher") else b
                decided[(a, b)] = {"task": task, "model_a": a, "model_b": b, **d.to_dict(), "better": better,
                                   "decision": "undecided" if d.decision == "more" else d.decision}
            open_pairs = still
        comparisons += [decided[pair] for pair in combinations(models, 2) if pair in decided]
    used = sum(n for by_model in cells.values() for n in by_model.values())
    full = looks[-1] * sum(len(by_model) for by_model in cells.values())
    plan = {"schema": SCHEMA, "target_effect": target_effect, "alpha": alpha, "looks": looks, "level": level,
            "comparisons": comparisons, "cells": cells,
            "seed_runs": {"used": used, "cap": full, "saved": full - used,
                          "share_saved": (full - used) / full if full else 0.0}}
    if out is not None:
        write_json_atomic(Path(out), plan)
    counts = {d: sum(c["decision"] == d for c in comparisons) for d in ("different", "equivalent", "undecided")}
    log.info(f"seeds: {len(comparisons)} comparison(s): {counts['different']} different, {counts['equivalent']} "
             f"equivalent within {target_effect:g}, {counts['undecided']} undecided at {looks[-1]} seeds; "
             f"{used} seed runs instead of {full} ({plan['seed_runs']['share_saved']:.0%} saved)"
             + (f"; {out}" if out is not None else ""))
    return plan
