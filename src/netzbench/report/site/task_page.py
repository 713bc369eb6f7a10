"""What a task's page shows besides its leaderboard: learning curves, the pairwise matrix with
Holm-adjusted p-values, both paired tests per pair, the equivalence verdicts and the dataset's key figures.

Every number is the report's: the per-seed series are the run records' histories, the mean curves
:meth:`BenchmarkReport.learning_curves`, the tests :attr:`ReportFacts.pairwise` and
:attr:`ReportFacts.equivalence`, the dataset figures the records' cards (REPORT.md's dataset table).
"""

from __future__ import annotations

import math

from markupsafe import Markup

from ..facts import ReportFacts
from ..markdown.datasets import COLUMNS, task_cards
from ..markdown.text import label
from ..selection import epoch_numbers
from ..series import as_array, metric_label, validation_series
from .drawing import curve_panel, value_range


def _values(series) -> list[float | None]:
    return [float(v) if math.isfinite(v) else None for v in as_array(series)]


def _panels(facts: ReportFacts, task: str) -> list[dict]:
    """Per model with a history: each seed's validation and test series and their means over seeds."""
    report = facts.report
    metric = report.task_info[task].metric
    val = validation_series(metric)
    means = {"test": report.learning_curves(None, [task])[task],
             "val": report.learning_curves("val", [task])[task] if val else {}}
    panels = []
    for model, runs in report.histories[task].items():
        series = []
        for seed, h in zip(report.seeds, runs):
            for kind, key in (("val", val), ("test", metric)):
                if h and key and h.get(key):
                    y = _values(h[key])
                    x = epoch_numbers(report.cells.get(task, {}).get(model), seed, len(y))
                    series.append({"x": x, "y": y, "kind": kind, "mean": False})
        if not series:
            continue
        n_seeds = sum(1 for h in runs if h and h.get(metric))
        if n_seeds > 1:  # one seed is its own mean
            for kind, by_model in means.items():
                c = by_model.get(model)
                if c:
                    series.append({"x": c["epochs"], "y": [v if math.isfinite(v) else None for v in c["mean"]],
                                   "kind": kind, "mean": True})
        panels.append({"model": model, "label": label(report, model), "series": series})
    return panels


def curves(facts: ReportFacts, task: str) -> dict:
    """The learning-curve panels of ``task`` as SVG, on one y range, and whether there is a validation series."""
    panels = _panels(facts, task)
    ylabel = metric_label(facts.report.task_info[task].metric)
    y_range = value_range(panels)
    return {"ylabel": ylabel, "has_val": any(s["kind"] == "val" for p in panels for s in p["series"]),
            "panels": [{"label": p["label"], "svg": Markup(curve_panel(p, y_range, ylabel))} for p in panels]}


def _side(r: dict, row: str) -> str | None:
    """``win``/``loss`` for the matrix row ``row`` of comparison ``r`` when significant, else None."""
    if not r["significant"]:
        return None
    return "win" if r["better"] == row else "loss"


def pairwise(facts: ReportFacts, task: str) -> dict:
    """The headline test's matrix (row against column: Holm p, Δ = row − column, d_z) and every pair
    under both paired tests."""
    report = facts.report
    rows = [r for r in facts.headline_pairwise if r["task"] == task]
    models = [m for m in report.models if any(m in (r["model_a"], r["model_b"]) for r in rows)]
    by_pair = {(r["model_a"], r["model_b"]): r for r in rows}
    matrix = []
    for a in models:
        line = []
        for b in models:
            r, sign = by_pair.get((a, b)), 1.0
            if r is None and (b, a) in by_pair:
                r, sign = by_pair[(b, a)], -1.0
            line.append(None if r is None else {
                "p_holm": r["p_holm"], "diff": sign * r["mean_diff"],
                "dz": sign * r["cohens_dz"] if math.isfinite(r["cohens_dz"]) else None,
                "side": _side(r, a), "degenerate": r.get("degenerate", False)})
        matrix.append({"model": a, "label": label(report, a), "cells": line})
    agreement = [{**r, "label_a": label(report, r["model_a"]), "label_b": label(report, r["model_b"])}
                 for r in facts.paired_agreement if r["task"] == task]
    return {"labels": [label(report, m) for m in models], "matrix": matrix, "pairs": agreement,
            "rows": [{**r, "label_a": label(report, r["model_a"]), "label_b": label(report, r["model_b"])}
                     for r in rows]}


def equivalence(facts: ReportFacts, task: str) -> dict:
    """The TOST verdicts of the task's pairs (or why there are none)."""
    if facts.equivalence is None:
        return {"error": facts.equivalence_error or "no margin given", "rows": []}
    report = facts.report
    return {"error": None, "margin": report.equivalence_margin,
            "rows": [{**r, "label_a": label(report, r["model_a"]), "label_b": label(report, r["model_b"])}
                     for r in facts.equivalence if r["task"] == task]}


def dataset(facts: ReportFacts, task: str) -> dict | None:
    """The dataset card's key figures (REPORT.md's dataset table's columns) and its warnings."""
    card = task_cards(facts.report).get(task)
    if card is None:
        return None
    return {"figures": [(head, fmt.format(card[key])) for key, head, fmt in COLUMNS if card.get(key) is not None],
            "warnings": list(card.get("warnings", []))}
