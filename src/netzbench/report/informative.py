"""Tasks that cannot inform a comparison, and the across-task results without flagged cells.

A task is **uninformative** when every model's interval with results there lies at or below the
constant predictor's score (above it for a lower-is-better metric): no model, heuristics and
baselines included, orders the test items better than one score for all of them, so a rank there
orders models by how badly they fail (e.g. Internet AS under the strict protocol: all nine models
below the constant MRR). Such a task is left out of the ranks, the Friedman and Nemenyi tests, the
post-hoc and the Bayesian comparisons (:func:`rank_scope`); REPORT.md, the site and
``metrics/report.json`` (``uninformative_tasks``) name it with the reason. A task without a finite
constant score (no baseline facts in its records) is never uninformative.

The across-task results are also computed **without flagged cells** (:func:`flagged_tasks`): over the
ranked tasks where no ranked model's cell is collapsed (‡) or sees held-out edges (⊗), since a rank on such a
cell does not compare the models as they generalise. A Bayesian verdict that is probable with them and
not without them depends on them, and REPORT.md says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from .degenerate import leakage as leaking_cells


def uninformative_tasks(summary: Iterable[Mapping], baselines: Mapping[str, Mapping], directions: Mapping[str, str]
                        ) -> dict[str, str]:
    """``{task: why}`` for every task whose every cell with a finite interval (``summary`` rows) lies at or
    on the wrong side of the constant predictor's score (``baselines[task]["value"]``), in row order."""
    cells: dict[str, list[tuple[float, float]]] = {}
    for r in summary:
        if r["n_seeds"] and math.isfinite(r["lo"]) and math.isfinite(r["hi"]):
            cells.setdefault(r["task"], []).append((r["lo"], r["hi"]))
    out = {}
    for task, bounds in cells.items():
        base = baselines.get(task) or {}
        value = base.get("value", math.nan)
        if not math.isfinite(value):
            continue
        lower = directions.get(task) == "lower"
        if all((lo >= value) if lower else (hi <= value) for lo, hi in bounds):
            out[task] = (f"every model's interval ({len(bounds)} models) lies at or "
                         f"{'above' if lower else 'below'} the constant predictor's {value:.4g} "
                         f"({base.get('name', 'constant score')})")
    return out


def rank_scope(report) -> list[str] | None:
    """The ``rank_tasks`` the across-task analysis uses: the report's, less its uninformative tasks (None:
    every task, as ``rank_tasks = None`` means, when no task is uninformative)."""
    dropped = uninformative_tasks(report.summary(), report.baselines(), {t: i.direction for t, i in
                                                                         report.task_info.items()})
    if not dropped:
        return report.rank_tasks
    return [t for t in (report.rank_tasks if report.rank_tasks is not None else report.tasks) if t not in dropped]


def flagged_tasks(report, tasks: Iterable[str], models: Iterable[str]) -> dict[str, list[str]]:
    """``{task: ["GCN ⊗", "GAT ‡", ...]}``: the tasks of ``tasks`` where a cell of ``models`` is collapsed (‡)
    or sees held-out edges (⊗)."""
    tasks, models = list(tasks), set(models)
    out: dict[str, list[str]] = {}
    for c in report.collapsed():
        if c["task"] in tasks and c["model"] in models:
            out.setdefault(c["task"], []).append(f"{c['model']} ‡")
    for c in leaking_cells(report.cells):
        if c["task"] in tasks and c["model"] in models:
            out.setdefault(c["task"], []).append(f"{c['model']} ⊗")
    return {t: out[t] for t in tasks if t in out}


def without_flagged(report, friedman: Mapping) -> dict:
    """The across-task results over the ranked tasks without flagged cells: ``excluded`` (task -> its flagged
    cells), ``tasks``, ``n_tasks``, ``friedman`` (:meth:`BenchmarkReport.friedman` of the subset: mean ranks,
    p, CD) and ``bayesian`` (pair -> its three probabilities), or ``error`` when nothing is left to rank."""
    excluded = flagged_tasks(report, friedman["tasks"], friedman["models"])
    kept = [t for t in friedman["tasks"] if t not in excluded]
    out = {"excluded": excluded, "tasks": kept, "n_tasks": len(kept), "friedman": None, "bayesian": {}}
    if not excluded:
        return out
    if len(kept) < 2:
        return {**out, "error": f"{len(kept)} task(s) left without flagged cells: nothing to rank"}
    sub = report.subset(tasks=kept)
    sub.rank_tasks = kept
    models = list(friedman["models"])
    out["friedman"] = sub.friedman(models)
    try:
        bayes = sub.bayesian(models=models)
    except ValueError as exc:
        out["bayesian_error"] = str(exc)
    else:
        out["bayesian"] = {f"{r['model_a']} vs {r['model_b']}": {k: r[k] for k in ("p_a_better", "p_rope",
                                                                                  "p_b_better")}
                           for r in bayes["across_tasks"]}
    return out


def _plain(v):
    return None if isinstance(v, float) and not math.isfinite(v) else v


def without_flagged_json(w: dict) -> dict:
    """``metrics/report.json``'s ``across_tasks_without_flagged`` (:func:`without_flagged`): the tasks left out
    (with their flagged cells), N, the mean ranks, the Friedman p, the CD and the Bayesian probabilities over
    the rest (none left out: ``excluded`` empty and nothing else computed); NaN becomes null."""
    fr = w.get("friedman") or {}
    return {"excluded": w["excluded"], "n_tasks": w["n_tasks"],
            "mean_ranks": {m: _plain(r) for m, r in (fr.get("mean_ranks") or {}).items()},
            "friedman_p": _plain(fr.get("p_value")), "cd": _plain(fr.get("cd")),
            "bayesian": {pair: {k: _plain(v) for k, v in probs.items()} for pair, probs in w["bayesian"].items()},
            **({"error": w["error"]} if "error" in w else {})}
