"""Two benchmark files compared cell by cell and conclusion by conclusion (``netzbench verify``).

Reproducing a published run has two levels. *Numbers*: a cell's histories
are identical seed for seed, or they differ, by how much relative to the
cell's confidence interval. *Conclusions*: what a reader takes away --
the models' mean-rank order, the Friedman decision, the CD diagram's
cliques, which pairwise differences are significant (and which model is
better), which cells overlap the paper's interval. Numbers may move across
machines (CPU kernels differ in their last bits and training amplifies
them); a changed conclusion is what matters, and what ``verify`` fails on.

By default the comparison covers the part both files have: the (task, model)
cells run in both (a narrowed run's report lacks the tasks it did not train;
a cell listed without a run record was not run) and the seeds of both, and
the conclusions are recomputed on that part of each file, so a task one run
left out cannot change a conclusion; what was left out is listed. ``whole``
compares the files as they are. A conclusion that neither file allows to
compute (a Friedman test over one model, no cell with a paper interval) is
reported as such and never counts as holding; when none can be computed,
nothing is verified.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from .paper import compare_with_paper
from .verify_input import VerifyError

__all__ = ["VerifyError", "cell_differences", "common_part", "conclusion_change", "conclusions", "left_out",
           "render", "verify"]


def _same_history(a: dict | None, b: dict | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if a.keys() != b.keys():
        return False
    return all(np.array_equal(np.asarray(a[k], float), np.asarray(b[k], float), equal_nan=True) for k in a)


def _series_change(a_hist: list, b_hist: list, headline: str) -> dict | None:
    """Where two cells' histories differ while the headline series agree seed by seed: the series only in
    one of them and those whose values differ (None when the headline itself differs)."""
    if len(a_hist) != len(b_hist):
        return None
    names: dict[str, set] = {"only_here": set(), "only_there": set(), "changed": set()}
    for x, y in zip(a_hist, b_hist):
        if (x is None) != (y is None):
            return None
        if x is None:
            continue
        if headline not in x or headline not in y or not _same_history({headline: x[headline]}, {headline: y[headline]}):
            return None
        names["only_here"] |= x.keys() - y.keys()
        names["only_there"] |= y.keys() - x.keys()
        names["changed"] |= {k for k in x.keys() & y.keys() if not _same_history({k: x[k]}, {k: y[k]})}
    return {k: sorted(v) for k, v in names.items()}


def cell_differences(ours, theirs) -> list[dict]:
    """One row per (task, model) of either report: in which it is (``present``), identical histories or
    not, the seeds with a value, the difference of the final-metric means, and that difference as a share
    of ``theirs``' CI half-width."""
    mine = {(r["task"], r["model"]): r for r in ours.summary()}
    other = {(r["task"], r["model"]): r for r in theirs.summary()}
    rows = []
    for task, model in sorted(set(mine) | set(other)):
        a_hist = ours.histories.get(task, {}).get(model)
        b_hist = theirs.histories.get(task, {}).get(model)
        a, b = mine.get((task, model)), other.get((task, model))
        identical = (a_hist is not None and b_hist is not None and len(a_hist) == len(b_hist)
                     and all(_same_history(x, y) for x, y in zip(a_hist, b_hist)))
        series = _series_change(a_hist, b_hist, ours.task_info[task].metric) if a_hist and b_hist and not identical \
            else None
        diff = (a["mean"] - b["mean"]) if a and b else math.nan
        half = b["half_width"] if b else math.nan
        rows.append({"task": task, "model": model, "identical": identical, "present": (a is not None, b is not None),
                     "seeds": (a["n_seeds"] if a else 0, b["n_seeds"] if b else 0),
                     "mean_diff": diff, "ci_half_width": half, "series": series,
                     "share_of_ci": abs(diff) / half if half and math.isfinite(half) and half > 0 else math.nan})
    return rows


def _conclusions(report) -> tuple[dict[str, Any], set[str]]:
    """:func:`conclusions` and the names of those ``report`` allows to compute."""
    fr = report.friedman()
    ranks = fr.get("mean_ranks") or {}
    p = fr.get("p_value")
    pairwise = report.pairwise()
    pairs = sorted((r["task"], r["model_a"], r["model_b"], r["better"]) for r in pairwise if r.get("significant"))
    paper = compare_with_paper(report.summary())
    overlap = sorted((r["task"], r["model"]) for r in paper if r["overlap"] is True)
    values = {
        "mean_rank_order": sorted(ranks, key=lambda m: (ranks[m], m)),
        "friedman_significant": bool(p is not None and math.isfinite(p) and p < report.alpha),
        "cliques": sorted(sorted(c) for c in (fr.get("cliques") or [])),
        "significant_pairs": [list(t) for t in pairs],
        "paper_overlap": [list(t) for t in overlap],
    }
    ranked = fr.get("k", 0) >= 2 and fr.get("n_tasks", 0) >= 1  # an order of two models over a task at least
    computable = {"mean_rank_order": ranked,
                  "friedman_significant": p is not None and math.isfinite(p),
                  "cliques": ranked and math.isfinite(fr.get("cd", math.nan)),
                  "significant_pairs": any(math.isfinite(r.get("p_holm", math.nan)) for r in pairwise),
                  "paper_overlap": any(r["overlap"] is not None for r in paper)}
    return values, {k for k, ok in computable.items() if ok}


def conclusions(report) -> dict[str, Any]:
    """What a reader concludes from ``report`` (comparable between two runs)."""
    return _conclusions(report)[0]


def present_cells(report) -> list[tuple[str, str]]:
    """The (task, model) cells ``report`` ran: every cell of its histories but those ``missing`` (listed in
    the roster, no run record) or ``unavailable`` (its data could not be obtained) without any history:
    not run. A failed or incompatible cell is a result and stays."""
    return [(t, m) for t, by_model in report.histories.items() for m, runs in by_model.items()
            if report.cell_status(t, m) not in ("missing", "unavailable") or any(h is not None for h in runs)]


def _restrict(report, cells: set[tuple[str, str]], seeds: list[int]):
    """``report`` over ``cells`` and ``seeds`` only (same options, task metadata and cell facts)."""
    at = [report.seeds.index(s) for s in seeds]
    hist = {t: {m: [runs[i] for i in at] for m, runs in by_model.items() if (t, m) in cells}
            for t, by_model in report.histories.items()}
    hist = {t: by_model for t, by_model in hist.items() if by_model}
    facts = {t: {m: c for m, c in report.cells.get(t, {}).items() if (t, m) in cells} for t in hist}
    tasks = {t: dataclasses.asdict(report.task_info[t]) for t in hist}
    return type(report)(seeds, hist, report.config, tasks=tasks, cells=facts, **report.options())


def common_part(ours, theirs) -> tuple[Any, Any, dict[str, list]]:
    """``ours`` and ``theirs`` restricted to the cells both ran (:func:`present_cells`) and the seeds both
    have (in ``ours``' order), and what was left out of each (``cells_here``/``cells_there``,
    ``seeds_here``/``seeds_there``); :class:`VerifyError` when they share no cell or no seed."""
    here, there = present_cells(ours), present_cells(theirs)
    common = set(here) & set(there)
    seeds = [s for s in ours.seeds if s in theirs.seeds]
    if not common:
        raise VerifyError("the two files have no (task, model) cell in common, so there is nothing to compare "
                          "(--whole compares them anyway)")
    if not seeds:
        raise VerifyError(f"the two files have no seed in common (seeds {ours.seeds} here, {theirs.seeds} there)")
    left = {"cells_here": [c for c in here if c not in common], "cells_there": [c for c in there if c not in common],
            "seeds_here": [s for s in ours.seeds if s not in seeds],
            "seeds_there": [s for s in theirs.seeds if s not in seeds]}
    whole_files = len(common) == len(here) == len(there) and seeds == ours.seeds == theirs.seeds
    if whole_files:  # nothing to cut (the seed order agrees too): compare the reports as they are
        return ours, theirs, left
    return _restrict(ours, common, seeds), _restrict(theirs, common, seeds), left


def verify(ours, theirs, whole: bool = False) -> dict[str, Any]:
    """Cells and conclusions of ``ours`` against ``theirs`` (e.g. a local ``dvc repro`` against the
    published ``reports/benchmark.json``) on the part both have (:func:`common_part`; ``whole``: the
    files as they are). ``changed`` lists the conclusions that differ (or that one file allows to compute
    and the other not), ``not_computable`` those neither allows, ``held`` the rest; ``verified`` is
    true when none changed and at least one held."""
    left = None
    if not whole:
        ours, theirs, left = common_part(ours, theirs)
    cells = cell_differences(ours, theirs)
    (mine, can_mine), (other, can_other) = _conclusions(ours), _conclusions(theirs)
    changed = [k for k in mine if (k in can_mine or k in can_other)
               and (mine[k] != other[k] or (k in can_mine) != (k in can_other))]
    not_computable = [k for k in mine if k not in can_mine and k not in can_other]
    held = [k for k in mine if k not in changed and k not in not_computable]
    return {"cells": cells, "identical_cells": sum(c["identical"] for c in cells), "n_cells": len(cells),
            "ours": mine, "theirs": other, "computable": {"ours": sorted(can_mine), "theirs": sorted(can_other)},
            "changed": changed, "not_computable": not_computable, "held": held,
            "verified": not changed and bool(held), "left_out": left}


def _set_change(a: list, b: list, places: tuple[str, str]) -> str:
    gone = [x for x in b if x not in a]
    new = [x for x in a if x not in b]
    return ((f"only {places[0]}: {new}" if new else "") + ("; " if new and gone else "")
            + (f"only {places[1]}: {gone}" if gone else ""))


def conclusion_change(result: dict[str, Any], key: str, places: tuple[str, str] = ("here", "there")) -> str:
    """The conclusion ``key`` of :func:`verify`'s ``result`` in words: ``same``, ``not computable from either
    file`` or ``CHANGED (...)`` saying what; ``places`` name where ``ours`` and ``theirs`` stand."""
    a, b = result["ours"][key], result["theirs"][key]
    can = result["computable"]
    if key in result["not_computable"]:
        return "not computable from either file"
    if (key in can["ours"]) != (key in can["theirs"]):
        here = key in can["ours"]
        return f"CHANGED (computable {places[0] if here else places[1]} only: {a if here else b})"
    if a == b:
        return "same"
    if isinstance(a, list) and all(isinstance(x, list) for x in a + b):
        return f"CHANGED ({_set_change(a, b, places)})"
    return f"CHANGED ({a} {places[0]}, {b} {places[1]})"


def left_out(result: dict[str, Any]) -> dict[str, str]:
    """What :func:`common_part` left out of each file (``here``, ``there``: ``ours``, ``theirs``) in words,
    a whole task, then a whole model (a candidate only one run has), named once; a file that lost nothing
    is absent."""
    left = result["left_out"] or {}
    compared = {c["task"] for c in result["cells"]}
    compared_models = {c["model"] for c in result["cells"]}
    out = {}
    for side in ("here", "there"):
        cells = left.get(f"cells_{side}") or []
        tasks = list(dict.fromkeys(t for t, _ in cells))
        whole_tasks = [t for t in tasks if t not in compared]  # no cell of the task is compared
        parts = [f"tasks {', '.join(whole_tasks)} (every cell)"] if whole_tasks else []
        models = list(dict.fromkeys(m for t, m in cells if t not in whole_tasks and m not in compared_models))
        if models:
            parts.append(f"models {', '.join(models)} (every cell)")
        rest = [f"{t}/{m}" for t, m in cells if t not in whole_tasks and m not in models]
        if rest:
            parts.append(f"cells {', '.join(rest)}")
        if left.get(f"seeds_{side}"):
            parts.append(f"seeds {', '.join(map(str, left[f'seeds_{side}']))}")
        if parts:
            out[side] = "; ".join(parts)
    return out


def _left_out_lines(result: dict[str, Any], labels: tuple[str, str]) -> list[str]:
    """What :func:`common_part` left out, under a line that says why."""
    parts = left_out(result)
    if not parts:
        return []
    lines = [f"left out: what only one file has (the {result['n_cells']} cells compared are those both ran, on "
             "the seeds both have, and the conclusions are recomputed on them; --whole compares the whole files)"]
    return lines + [f"  only in {label}: {parts[side]}" for side, label in zip(("here", "there"), labels)
                    if side in parts]


def render(result: dict[str, Any], labels: tuple[str, str] = ("this file", "the other file")) -> str:
    """Plain text for the terminal: the cells that differ (largest share of the CI first), what was left
    out of the comparison (``labels`` name the two files), then the conclusions, each ``same``, what
    changed or ``not computable``, and the verdict."""
    lines = [f"cells: {result['identical_cells']} of {result['n_cells']} with identical histories"]
    lines += _left_out_lines(result, labels)
    differing = sorted((c for c in result["cells"] if not c["identical"]),
                       key=lambda c: -(c["share_of_ci"] if math.isfinite(c["share_of_ci"]) else math.inf))
    for c in differing:
        if c.get("series") is not None:  # the headline identical, other series added, dropped or changed
            parts = [f"{what} {', '.join(c['series'][key])}" for key, what in (
                ("changed", "changed:"), ("only_here", "only here:"), ("only_there", "only there:")) if c["series"][key]]
            lines.append(f"  {c['task']}/{c['model']}: headline identical; other series differ ({'; '.join(parts)})")
        elif math.isfinite(c["mean_diff"]):
            share = f"{c['share_of_ci']:.2f} of the CI half-width" if math.isfinite(c["share_of_ci"]) else "no CI"
            lines.append(f"  {c['task']}/{c['model']}: mean differs by {c['mean_diff']:+.6f} ({share}); "
                         f"seeds {c['seeds'][0]} vs {c['seeds'][1]}")
        elif all(c["present"]):
            lines.append(f"  {c['task']}/{c['model']}: histories differ, no mean to compare; seeds with a value "
                         f"{c['seeds'][0]} vs {c['seeds'][1]}")
        else:
            lines.append(f"  {c['task']}/{c['model']}: present in one run only")
    lines.append("conclusions:")
    lines += [f"  {key}: {conclusion_change(result, key)}" for key in result["ours"]]
    lines.append(_verdict(result))
    return "\n".join(lines)


def _verdict(result: dict[str, Any]) -> str:
    if result["changed"]:
        return f"{len(result['changed'])} conclusion(s) changed: {', '.join(result['changed'])}"
    if not result["held"]:
        return ("no conclusion can be computed from the cells compared (no ranking, no test, no paper interval): "
                "nothing is verified")
    if result["not_computable"]:
        return (f"every conclusion that can be computed holds ({len(result['held'])} of {len(result['ours'])}; "
                f"not computable from either file: {', '.join(result['not_computable'])})")
    return "every conclusion holds"
