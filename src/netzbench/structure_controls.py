"""``netzbench controls``: does the graph matter? Each model on the task and on its structure controls.

For every chosen task (node classification or a graph collection) and control
(:mod:`netzbench.catalog.controls`: no edges, a degree-preserving rewiring, a random graph with as many
edges), each model trains on the control with the same seeds, features, labels and splits as on the
task. Per (task, model, control) the paired difference original - control of the headline, signed so
that positive means the graph helped, gets its mean, t confidence interval and paired t test, and a
verdict: ``structure helps`` (significantly better with the graph), ``structure hurts``, or ``no
detectable effect`` with the smallest effect these seeds could have detected (the power analysis's MDE
at 80 % power). Written to ``reports/controls.json``.
"""

from __future__ import annotations

import logging
import math
from pathlib import Path

import numpy as np

from .catalog.controls import CONTROLS, FAMILIES, ControlError, write_control
from .catalog.data import fetch_task
from .graphs.layout import read_meta
from .records import write_json_atomic
from .report import BenchmarkReport
from .report.runs import task_finals
from .run.execute import run_plans
from .run.plan import plan_cell
from .stats import paired_power, paired_test, t_interval

log = logging.getLogger(__name__)

CONTROLS_FILE = Path("reports/controls.json")
SCHEMA = "netzbench.controls/1"


def verdict(diff, alpha: float, ci: float = 0.95) -> dict:
    """The verdict of the module docstring for seed-aligned differences ``diff`` (graph - control, signed
    so that positive is better with the graph)."""
    d = np.asarray(diff, dtype=float)
    d = d[np.isfinite(d)]
    test = paired_test(d, np.zeros_like(d), "t")
    interval = t_interval(d, ci)
    mde = paired_power(d, np.zeros_like(d), alpha=alpha).mde
    p = float(test.p_value)
    if math.isfinite(p) and p < alpha and test.mean_diff > 0:
        said = "structure helps"
    elif math.isfinite(p) and p < alpha and test.mean_diff < 0:
        said = "structure hurts"
    else:
        said = "no detectable effect"
    return {"verdict": said, "mean_diff": float(test.mean_diff), "lo": float(interval.lo), "hi": float(interval.hi),
            "p_value": p, "mde": float(mde), "n_seeds": int(test.n)}


def run_controls(params: dict, tasks: list[str], models: list[str] | None = None,
                 controls: tuple[str, ...] = CONTROLS, *, data_root: str | Path = "data",
                 out: str | Path | None = CONTROLS_FILE, progress: bool = True) -> dict:
    """Train each model on each task and its controls (cached like any cell) and write the verdicts."""
    data_root = Path(data_root)
    models = list(models or params["models"])
    seeds = list(params["seeds"])
    alpha = float(params["report"]["alpha"])
    rows: list[dict] = []
    for task in tasks:
        if not (data_root / task / "meta.json").is_file():
            fetch_task(task, params, data_root)
        family = read_meta(data_root / task).get("family")
        if family not in FAMILIES:
            raise ControlError(f"{task}: structure controls are for {', '.join(FAMILIES)} tasks, not {family}")
        dirs = {"original": data_root / task}
        dirs.update({c: write_control(data_root, task, c, seeds) for c in controls})
        plans = {(c, m): plan_cell(task, m, params, task_dir=d, quiet=True) for c, d in dirs.items() for m in models}
        live = {k: p for k, p in plans.items() if p.outcome is None}
        run_plans([p for p in live.values() if p.jobs], params, progress=progress, desc=f"{task} controls")
        by_control = {c: task_finals(BenchmarkReport, {m: live[c, m].finish().to_dict() for m in models
                                                       if (c, m) in live}, task, seeds) for c in dirs}
        original, info = by_control["original"]
        sign = 1.0 if info.direction == "higher" else -1.0
        for m in models:
            if m not in original:
                continue
            for c in controls:
                values = by_control[c][0].get(m)
                if values is None:
                    continue
                row = verdict(sign * (np.asarray(original[m]) - np.asarray(values)), alpha)
                rows.append({"task": task, "model": m, "control": c, "original_mean": float(np.nanmean(original[m])),
                             "control_mean": float(np.nanmean(values)), **row})
    result = {"schema": SCHEMA, "seeds": seeds, "alpha": alpha, "controls": list(controls), "rows": rows}
    if out is not None:
        write_json_atomic(Path(out), result)
    for r in rows:
        more = f" (at {r['n_seeds']} seeds the smallest detectable effect is {r['mde']:.3g})" \
            if r["verdict"] == "no detectable effect" else ""
        log.info(f"controls: {r['task']}/{r['model']} vs {r['control']}: {r['verdict']}, original - control = "
                 f"{r['mean_diff']:+.4f} [{r['lo']:+.4f}, {r['hi']:+.4f}]{more}")
    return result
