"""Two benchmark files compared cell by cell and conclusion by conclusion (``netzbench verify``).

Reproducing a published run has two levels. *Numbers*: a cell's histories
are identical seed for seed, or they differ, by how much relative to the
cell's confidence interval. *Conclusions*: what a reader takes away --
the models' mean-rank order, the Friedman decision, the CD diagram's
cliques, which pairwise differences are significant (and which model is
better), which cells overlap the paper's interval. Numbers may move across
machines (CPU kernels differ in their last bits and training amplifies
them); a changed conclusion is what matters, and what ``verify`` fails on.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .paper import compare_with_paper


def _same_history(a: dict | None, b: dict | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if a.keys() != b.keys():
        return False
    return all(np.array_equal(np.asarray(a[k], float), np.asarray(b[k], float), equal_nan=True) for k in a)


def cell_differences(ours, theirs) -> list[dict]:
    """One row per (task, model) of either report: identical histories or not, the difference of the
    final-metric means, and that difference as a share of ``theirs``' CI half-width."""
    mine = {(r["task"], r["model"]): r for r in ours.summary()}
    other = {(r["task"], r["model"]): r for r in theirs.summary()}
    rows = []
    for task, model in sorted(set(mine) | set(other)):
        a_hist = ours.histories.get(task, {}).get(model)
        b_hist = theirs.histories.get(task, {}).get(model)
        a, b = mine.get((task, model)), other.get((task, model))
        identical = (a_hist is not None and b_hist is not None and len(a_hist) == len(b_hist)
                     and all(_same_history(x, y) for x, y in zip(a_hist, b_hist)))
        diff = (a["mean"] - b["mean"]) if a and b else math.nan
        half = b["half_width"] if b else math.nan
        rows.append({"task": task, "model": model, "identical": identical,
                     "seeds": (a["n_seeds"] if a else 0, b["n_seeds"] if b else 0),
                     "mean_diff": diff, "ci_half_width": half,
                     "share_of_ci": abs(diff) / half if half and math.isfinite(half) and half > 0 else math.nan})
    return rows


def conclusions(report) -> dict[str, Any]:
    """What a reader concludes from ``report`` (comparable between two runs)."""
    fr = report.friedman()
    ranks = fr.get("mean_ranks") or {}
    p = fr.get("p_value")
    pairs = sorted((r["task"], r["model_a"], r["model_b"], r["better"]) for r in report.pairwise()
                   if r.get("significant"))
    overlap = sorted((r["task"], r["model"]) for r in compare_with_paper(report.summary()) if r["overlap"] is True)
    return {
        "mean_rank_order": sorted(ranks, key=lambda m: (ranks[m], m)),
        "friedman_significant": bool(p is not None and math.isfinite(p) and p < report.alpha),
        "cliques": sorted(sorted(c) for c in (fr.get("cliques") or [])),
        "significant_pairs": [list(t) for t in pairs],
        "paper_overlap": [list(t) for t in overlap],
    }


def verify(ours, theirs) -> dict[str, Any]:
    """Cells and conclusions of ``ours`` against ``theirs`` (e.g. a local ``dvc repro`` against the
    published ``reports/benchmark.json``); ``changed`` lists the conclusions that differ."""
    cells = cell_differences(ours, theirs)
    mine, other = conclusions(ours), conclusions(theirs)
    changed = [k for k in mine if mine[k] != other[k]]
    return {"cells": cells, "identical_cells": sum(c["identical"] for c in cells), "n_cells": len(cells),
            "ours": mine, "theirs": other, "changed": changed}


def _set_change(a: list, b: list) -> str:
    gone = [x for x in b if x not in a]
    new = [x for x in a if x not in b]
    return (f"only here: {new}" if new else "") + ("; " if new and gone else "") + (f"only there: {gone}" if gone else "")


def render(result: dict[str, Any]) -> str:
    """Plain text for the terminal: the cells that differ (largest share of the CI first), then the
    conclusions, each ``same`` or what changed."""
    lines = [f"cells: {result['identical_cells']} of {result['n_cells']} with identical histories"]
    differing = sorted((c for c in result["cells"] if not c["identical"]),
                       key=lambda c: -(c["share_of_ci"] if math.isfinite(c["share_of_ci"]) else math.inf))
    for c in differing:
        if math.isfinite(c["mean_diff"]):
            share = f"{c['share_of_ci']:.2f} of the CI half-width" if math.isfinite(c["share_of_ci"]) else "no CI"
            lines.append(f"  {c['task']}/{c['model']}: mean differs by {c['mean_diff']:+.6f} ({share}); "
                         f"seeds {c['seeds'][0]} vs {c['seeds'][1]}")
        else:
            lines.append(f"  {c['task']}/{c['model']}: present in one run only")
    lines.append("conclusions:")
    for key in result["ours"]:
        a, b = result["ours"][key], result["theirs"][key]
        if a == b:
            lines.append(f"  {key}: same")
        elif isinstance(a, list) and all(isinstance(x, list) for x in a + b):
            lines.append(f"  {key}: CHANGED ({_set_change(a, b)})")
        else:
            lines.append(f"  {key}: CHANGED ({a} here, {b} there)")
    verdict = ("every conclusion holds" if not result["changed"]
               else f"{len(result['changed'])} conclusion(s) changed: {', '.join(result['changed'])}")
    lines.append(verdict)
    return "\n".join(lines)
