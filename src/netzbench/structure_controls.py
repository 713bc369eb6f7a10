"""``netzbench controls``: does the graph matter? Each model on the task and on its structure controls.

For every chosen task (node classification or a graph collection) and control
(:mod:`netzbench.catalog.controls`: no edges, a degree-preserving rewiring, a random graph with as many
edges), each model trains on the control with the same seeds, features, labels and splits as on the
task. Per (task, model, control) the paired difference original - control of the headline, signed so
that positive means the graph helped, gets its mean, t confidence interval and paired t test, and a
verdict: ``structure helps`` (significantly better with the graph), ``structure hurts``, or ``no
detectable effect`` with the smallest effect these seeds could have detected (the power analysis's MDE
at 80 % power). Written to ``reports/controls.json``.

A verdict needs two models to compare. Where either side is collapsed or degenerate (the report's ‡ and ≡
rules, :mod:`netzbench.report.degenerate`: constant test predictions, or a headline that never moved, in
most seeds) its number is a constant predictor's, not a model's, and the row says ``cannot tell:
collapsed`` instead. Each row carries both sides' means beside the constant predictor's score in the
headline metric, whether each side's validation curve was still rising at the last epoch (``not
converged``, :mod:`netzbench.report.convergence`), and, where two controls of a model gave identical
results on every seed, which one it is identical to (two collapsed controls do).
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
from .report.convergence import cell_convergence, describe
from .report.degenerate import cell_flags
from .report.degenerate import degenerate as degenerate_cells
from .report.runs import report_from_records
from .run.execute import run_plans
from .run.plan import plan_cell
from .settings import Settings
from .stats import paired_power, paired_test, t_interval

log = logging.getLogger(__name__)

CONTROLS_FILE = Path("reports/controls.json")
SCHEMA = "netzbench.controls/2"


CANNOT_TELL = "cannot tell: collapsed"
#: the verdict where fewer than two seeds have a result on both sides (their seeds failed)
NO_DATA = "no verdict: fewer than 2 seeds with a result on both graphs (failed seeds?)"


def verdict(diff, alpha: float, ci: float = 0.95) -> dict:
    """The verdict of the module docstring for seed-aligned differences ``diff`` (graph - control, signed
    so that positive is better with the graph)."""
    d = np.asarray(diff, dtype=float)
    d = d[np.isfinite(d)]
    if d.size < 2:  # every seed (or all but one) failed on a side: no verdict from no data
        return {"verdict": NO_DATA, "mean_diff": math.nan, "lo": math.nan, "hi": math.nan, "p_value": math.nan,
                "mde": math.nan, "n_seeds": int(d.size)}
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


def side_facts(report, task: str) -> dict[str, dict]:
    """Per model of a one-task report (one side: the original or a control): its seed values, mean, flags
    (collapsed / degenerate, with reasons) and convergence."""
    finals = report.final_metrics().get(task, {})
    info = report.task_info[task]
    flags = cell_flags(report.collapsed(), degenerate_cells(report.histories, report.selected_epochs(),
                                                            report.task_info), [])
    out = {}
    for m, values in finals.items():
        conv = cell_convergence(report.histories[task][m], info.metric, info.direction)
        out[m] = {"values": np.asarray(values, dtype=float), "mean": float(np.nanmean(values)) if np.isfinite(
                  values).any() else math.nan, "flags": {k: v["reason"] for k, v in flags.get((task, m), {}).items()},
                  "converged": conv["converged"], "convergence": describe(conv) if conv["converged"] is False else None}
    return out


def identical_to(values: dict[str, np.ndarray]) -> dict[str, str]:
    """Per side (``original`` or a control), the first other side (in order) whose seed values are all finite
    and equal its own, seed by seed: two collapsed controls give the same constant predictor's scores."""
    names = list(values)
    out = {}
    for i, c in enumerate(names):
        for d in names[:i] + names[i + 1:]:
            a, b = values[c], values[d]
            if a.shape == b.shape and np.isfinite(a).all() and np.array_equal(a, b):
                out[c] = d
                break
    return out


def compare(task: str, model: str, control: str, original: dict, side: dict, alpha: float, sign: float,
            constant: float | None, same_as: str | None) -> dict:
    """One row of ``controls.json``: the verdict of original vs control, or ``cannot tell: collapsed``
    where a side is collapsed or degenerate."""
    row = verdict(sign * (original["values"] - side["values"]), alpha)
    broken = [(who, flag, why) for who, facts in (("original", original), ("control", side))
              for flag, why in facts["flags"].items() if flag in ("collapsed", "degenerate")]
    if broken:
        row["verdict"] = CANNOT_TELL
        row["why"] = "; ".join(f"the {who} is {flag} ({why})" for who, flag, why in broken)
    return {"task": task, "model": model, "control": control, "original_mean": original["mean"],
            "control_mean": side["mean"], "constant": constant, **row,
            "original_flags": original["flags"], "control_flags": side["flags"],
            "original_converged": original["converged"], "control_converged": side["converged"],
            "not_converged": [f"the {who}: {facts['convergence']}" for who, facts in (("original", original),
                                                                                     ("control", side))
                              if facts["convergence"]],
            "identical_to": same_as}


def run_controls(settings: Settings, tasks: list[str], models: list[str] | None = None,
                 controls: tuple[str, ...] = CONTROLS, *, data_root: str | Path = "data",
                 out: str | Path | None = CONTROLS_FILE, progress: bool = True, epochs: dict | None = None) -> dict:
    """Train each model on each task and its controls (cached like any cell) and write the verdicts.
    ``epochs``: a per-task epoch budget (task -> epochs) over ``train.epochs``, for the task and its controls."""
    data_root = Path(data_root)
    models = list(models or settings.models)
    seeds = list(settings.seeds)
    alpha = float(settings.report.alpha)
    if epochs:  # over train.epochs, for the task and its controls
        settings = settings.replace(train={"epochs": {**dict(settings.train.epochs), **epochs}})
    rows: list[dict] = []
    for task in tasks:
        if not (data_root / task / "meta.json").is_file():
            fetch_task(task, settings, data_root)
        family = read_meta(data_root / task).get("family")
        if family not in FAMILIES:
            raise ControlError(f"{task}: structure controls are for {', '.join(FAMILIES)} tasks, not {family}")
        dirs = {"original": data_root / task}
        dirs.update({c: write_control(data_root, task, c, seeds) for c in controls})
        plans = {(c, m): plan_cell(task, m, settings, task_dir=d, quiet=True) for c, d in dirs.items() for m in models}
        live = {k: p for k, p in plans.items() if p.outcome is None}
        run_plans([p for p in live.values() if p.jobs], settings, progress=progress, desc=f"{task} controls")
        reports = {c: report_from_records(BenchmarkReport, {task: {m: live[c, m].finish().to_dict() for m in models
                                                                   if (c, m) in live}}, seeds) for c in dirs}
        sides = {c: side_facts(r, task) for c, r in reports.items()}
        info = reports["original"].task_info[task]
        constant = reports["original"].baselines().get(task, {}).get("value")
        constant = None if constant is None or not math.isfinite(constant) else float(constant)
        sign = 1.0 if info.direction == "higher" else -1.0
        original = sides["original"]
        for m in models:
            if m not in original:
                continue
            same = identical_to({c: sides[c][m]["values"] for c in ("original", *controls) if m in sides[c]})
            for c in controls:
                if m in sides[c]:
                    rows.append(compare(task, m, c, original[m], sides[c][m], alpha, sign, constant, same.get(c)))
    result = {"schema": SCHEMA, "seeds": seeds, "alpha": alpha, "controls": list(controls), "rows": rows,
              **({"epochs": dict(epochs)} if epochs else {})}
    if out is not None:
        write_json_atomic(Path(out), result)
    for r in rows:
        log.info(f"controls: {describe_row(r)}")
    return result


def describe_row(r: dict) -> str:
    """What the command line says of one row."""
    const = f"; constant predictor {r['constant']:.4f}" if r.get("constant") is not None else ""
    line = (f"{r['task']}/{r['model']} vs {r['control']}: {r['verdict']}, original - control = {r['mean_diff']:+.4f} "
            f"[{r['lo']:+.4f}, {r['hi']:+.4f}] (means {r['original_mean']:.4f} vs {r['control_mean']:.4f}{const})")
    if r["verdict"] == CANNOT_TELL:
        line += f": {r['why']}"
    elif r["verdict"] == "no detectable effect":
        line += f" (at {r['n_seeds']} seeds the smallest detectable effect is {r['mde']:.3g})"
    if r.get("identical_to"):
        line += f"; identical to {r['identical_to']} on every seed"
    for said in r.get("not_converged") or ():
        line += f"; {said}"
    return line
