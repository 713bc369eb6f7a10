r"""Epoch selection: reducing each history to one number, the metric tensor X[task, model, seed]
(docs/statistics.md, "Epoch selection").

``histories[task][model]`` is a list, one entry per seed *in seed order*, of
history dicts (:mod:`.series`); a seed without a history is ``None``.

``final``
    the headline value at the last evaluated epoch;
``best_val``
    the headline value at :math:`e^* = \arg\max_e v_e` (``argmin`` for
    lower-is-better) of the paired validation series ``val_<metric>``; NaN
    validation values are skipped and the earliest epoch wins ties.  The
    reported series is never used for the choice.  A task whose headline is
    not a ``test_*`` series, or whose runs lack a ``val_<metric>`` series of
    the same length, does not support ``best_val``; nor does a task whose
    validation set *is* the reported test set (``graph_split: 80_20``: the
    cell facts' ``validation_is_test``, from the run records' protocol,
    :func:`netzbench.params.validation_is_reported`), where ``best_val``
    would select on the test set.  :func:`epoch_selection_support` says why,
    and selecting on such a task raises ``ValueError``.

A NaN at the selected epoch (or a validation series that is NaN everywhere)
makes that seed's value NaN: it is dropped from the cell (``n_seeds``) and
from every pair it belongs to -- pairs are aligned by seed, never by position
after dropping.

Learning curves (the whole series, not one epoch of it) live here too: they
are what the selection picks from, and the figure marks the selected epochs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from .. import stats
from .series import TaskInfo, as_array, as_float, curve_series, metric_range, validation_series

EPOCH_SELECTIONS = ("final", "best_val")

Histories = Mapping[str, Mapping[str, list]]
Indices = dict[str, dict[str, list[int | None]]]


def epoch_selection_support(histories: Histories, task_info: Mapping[str, TaskInfo],
                            cells: Mapping[str, Mapping[str, Mapping]] | None = None) -> list[dict]:
    """Per task: can ``best_val`` be used, on which validation series, and if not, why.

    Rows ``{task, metric, validation_series, best_val_possible, reason,
    n_runs, n_runs_with_validation}``.  ``n_runs`` counts seeds with a
    non-empty headline series; a run counts as having validation when it
    has ``val_<metric>`` of the same length.  ``final`` is always possible.
    A task some of whose ``cells`` say ``validation_is_test`` cannot use ``best_val``.
    """
    rows = []
    for task, by_model in histories.items():
        same_set = sum(bool(c.get("validation_is_test")) for c in (cells or {}).get(task, {}).values())
        metric = task_info[task].metric
        val = validation_series(metric)
        runs = [h for r in by_model.values() for h in r if h and h.get(metric)]
        with_val = [h for h in runs if val and h.get(val) is not None and len(h[val]) == len(h[metric])]
        if val is None:
            reason = (f"the headline series {metric!r} is itself a validation series: selecting on it would "
                      "select on the reported number" if metric.startswith("val_")
                      else f"the headline series {metric!r} is not a test_* series, so there is no paired "
                           "validation series")
            ok = False
        elif not runs:
            ok, reason = False, "no run has results"
        elif same_set:
            ok = False
            reason = (f"its validation set is the reported test set (`graph_split: 80_20` in {same_set} of its run "
                      "records), so best_val would select on the test set")
        elif len(with_val) < len(runs):
            ok = False
            reason = (f"{len(runs) - len(with_val)} of {len(runs)} runs lack a {val!r} series aligned with "
                      f"{metric!r}")
        else:
            ok, reason = True, ""
        rows.append({"task": task, "metric": metric, "validation_series": val, "best_val_possible": ok,
                     "reason": reason, "n_runs": len(runs), "n_runs_with_validation": len(with_val)})
    return rows


def selected_indices(histories: Histories, task_info: Mapping[str, TaskInfo], selection: str,
                     cells: Mapping[str, Mapping[str, Mapping]] | None = None) -> Indices:
    """``{task: {model: [index into the history lists, or None, per seed]}}`` under ``selection``.

    ``best_val`` on a task with runs that does not support it (given the cell facts ``cells``) raises
    ``ValueError``.
    """
    if selection == "best_val":
        bad = [r for r in epoch_selection_support(histories, task_info, cells)
               if not r["best_val_possible"] and r["n_runs"] > 0]
        if bad:
            raise ValueError("epoch_selection='best_val' is not possible for "
                             + "; ".join(f"{r['task']} ({r['reason']})" for r in bad)
                             + "; see epoch_selection_support()")
    out: Indices = {}
    for task, by_model in histories.items():
        info = task_info[task]
        val_key = validation_series(info.metric)
        out[task] = {}
        for model, runs in by_model.items():
            chosen: list[int | None] = []
            for h in runs:
                if not h or not h.get(info.metric):
                    chosen.append(None)
                elif selection == "final":
                    chosen.append(len(h[info.metric]) - 1)
                else:
                    v = as_array(h[val_key])
                    if not np.isfinite(v).any():
                        chosen.append(None)  # validation NaN everywhere: no defined choice
                        continue
                    score = np.where(np.isfinite(v), v if info.direction == "higher" else -v, -np.inf)
                    chosen.append(int(np.argmax(score)))  # first maximum = earliest epoch on ties
            out[task][model] = chosen
    return out


def epoch_numbers(cell: Mapping | None, seed: int, length: int) -> list[int]:
    """The evaluated epoch numbers of one seed's history: from the run record's cell facts when they
    match the history's ``length``, else ``1 .. length`` (hand-built histories)."""
    fact = ((cell or {}).get("seeds") or {}).get(str(seed)) or {}
    ep = fact.get("epochs")
    if isinstance(ep, list) and len(ep) == length:
        return [int(e) for e in ep]
    return list(range(1, length + 1))


def selected_epochs_table(indices: Indices, histories: Histories, task_info: Mapping[str, TaskInfo],
                          cells: Mapping[str, Mapping[str, Mapping]], seeds: Sequence[int],
                          selection: str) -> list[dict]:
    """The audit rows ``{task, model, seed, index, epoch, value, validation, selection}`` of ``indices``.

    ``epoch`` is the evaluated epoch number (:func:`epoch_numbers`), ``value``
    the reported value and ``validation`` the validation value at that epoch.
    """
    rows = []
    for task, by_model in indices.items():
        info = task_info[task]
        val_key = validation_series(info.metric)
        for model, chosen in by_model.items():
            cell = cells.get(task, {}).get(model)
            for pos, (h, i) in enumerate(zip(histories[task][model], chosen)):
                row = {"task": task, "model": model, "seed": seeds[pos], "index": i, "epoch": None,
                       "value": math.nan, "validation": math.nan, "selection": selection}
                if i is not None:
                    row["epoch"] = epoch_numbers(cell, seeds[pos], len(h[info.metric]))[i]
                    row["value"] = as_float(h[info.metric][i])
                    if val_key and h.get(val_key) is not None and i < len(h[val_key]):
                        row["validation"] = as_float(h[val_key][i])
                rows.append(row)
    return rows


def final_metrics(histories: Histories, task_info: Mapping[str, TaskInfo],
                  indices: Indices) -> dict[str, dict[str, np.ndarray]]:
    """X[task][model] -> float array over seeds (seed order; NaN where a seed has no value)."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for task, by_model in histories.items():
        metric = task_info[task].metric
        out[task] = {}
        for model, runs in by_model.items():
            vals = [math.nan if i is None else as_float(h[metric][i]) for h, i in zip(runs, indices[task][model])]
            out[task][model] = np.asarray(vals, dtype=float)
    return out


def learning_curves(histories: Histories, task_info: Mapping[str, TaskInfo],
                    cells: Mapping[str, Mapping[str, Mapping]], seeds: Sequence[int], *, ci: float,
                    series: str | None = None, tasks: Sequence[str] | None = None
                    ) -> dict[str, dict[str, dict[str, list[float]]]]:
    r"""Per (task, model) and evaluated epoch: mean over seeds and ``ci``-level t-CI.

    ``series`` defaults to each task's headline series (a knowledge graph's
    full ranking, computed at selectable epochs only: its sampled series,
    :func:`.series.curve_series`; ``"val"`` selects its paired validation series).  Seeds with shorter histories or NaN
    entries are skipped epoch by epoch; an epoch with one seed has no
    interval (NaN bounds); bounds are clipped to the series' range
    (:func:`.series.metric_range`: [0, 1] for accuracy, AUC, ...).  Returns
    ``{task: {model: {"epochs", "mean", "lo", "hi", "n"}}}``; the epoch
    numbers are those of the seed with the longest history.
    """
    out: dict[str, dict[str, dict[str, list[float]]]] = {}
    for task in (tasks if tasks is not None else list(histories)):
        info = task_info[task]
        key = series or curve_series(info.metric)  # a full ranking's curve: its sampled series
        if key == "val":
            key = validation_series(info.metric) or info.metric
        out[task] = {}
        for model, runs in histories[task].items():
            seqs = [(pos, as_array(h[key])) for pos, h in enumerate(runs) if h and h.get(key)]
            if not seqs:
                continue
            length = max(len(s) for _, s in seqs)
            mat = np.full((len(seqs), length), np.nan)
            for row, (_, s) in enumerate(seqs):
                mat[row, :len(s)] = s
            longest = max(seqs, key=lambda ps: len(ps[1]))[0]
            epochs = epoch_numbers(cells.get(task, {}).get(model), seeds[longest], length)
            bounds = metric_range(key)
            ivs = [stats.t_interval(mat[:, e], ci=ci, bounds=bounds) for e in range(length)]
            out[task][model] = {"epochs": epochs, "mean": [iv.mean for iv in ivs], "lo": [iv.lo for iv in ivs],
                                "hi": [iv.hi for iv in ivs], "n": [iv.n for iv in ivs]}
    return out
