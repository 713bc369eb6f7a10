"""The three questions of a report, where the run has what answers them: does the graph matter (the structure
controls of ``netzbench controls``), were the models tuned alike (every trial of a search), are there
enough seeds (the rounds of ``netzbench seeds``).

:func:`question_answers` keeps what concerns the report's tasks and models: the controls' verdicts
(``reports/controls.json``), the seed plan's decisions and savings (``reports/seed_plan.json``) and, per
task with a search, each model's expected best validation score against the budget
(:func:`netzbench.stats.expected_max_curve` over its trials, pooled over seeds) and the pairs of models
under test whose curves cross. An empty dict when there is none of the three (the report says nothing).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from ..stats import crossings, expected_max_curve


def _trials(cell: dict) -> list[float]:
    """The validation scores of every trial of a cell's search, over its seeds."""
    out = []
    for entry in (cell.get("seeds") or {}).values():
        for trial in ((entry.get("search") or {}).get("trace") or []):
            score = trial.get("val_score")
            if score is not None and np.isfinite(score):
                out.append(float(score))
    return out


def tuning_curves(report) -> dict:
    """Per task with a search: ``{"budgets", "curves": {model: {mean, sd, n_trials}}, "crossing": [...]}``."""
    out = {}
    kinds = report.baseline_models()
    for task in report.tasks:
        cells = report.cells.get(task, {})
        trials = {m: _trials(c) for m, c in cells.items() if m not in kinds}
        trials = {m: t for m, t in trials.items() if t}
        if not trials:
            continue
        n_trials = max(len((e.get("search") or {}).get("trace") or [])
                           for c in cells.values() for e in (c.get("seeds") or {}).values())
        budgets = list(range(1, max(1, n_trials) + 1))
        direction = report.task_info[task].direction
        curves = {m: expected_max_curve(t, budgets, direction) for m, t in trials.items()}
        crossing = [{"model_a": a, "model_b": b, "at": at}
                    for a, b in combinations(sorted(curves, key=list(cells).index), 2)
                    if (at := crossings(curves[a], curves[b]))]
        out[task] = {"budgets": budgets, "direction": direction,
                     "curves": {m: {"mean": list(c.mean), "sd": list(c.sd), "n_trials": c.n_trials}
                                for m, c in curves.items()},
                     "crossing": crossing}
    return out


def question_answers(report, controls: dict | None = None, seed_plan: dict | None = None) -> dict:
    """The answers to the three questions for ``report``'s tasks and models (see the module docstring)."""
    tasks, models = set(report.tasks), set(report.models)
    out = {}
    rows = [r for r in (controls or {}).get("rows", []) if r["task"] in tasks and r["model"] in models]
    if rows:
        out["controls"] = {"seeds": controls.get("seeds"), "rows": rows}
    comparisons = [c for c in (seed_plan or {}).get("comparisons", [])
                   if c["task"] in tasks and c["model_a"] in models and c["model_b"] in models]
    if comparisons:
        out["seeds"] = {key: seed_plan.get(key) for key in ("target_effect", "alpha", "looks", "level", "seed_runs")}
        out["seeds"]["comparisons"] = comparisons
    curves = tuning_curves(report)
    if curves:
        out["tuning"] = curves
    return out
