r"""``BenchmarkReport``: the metric tensor X[task, model, seed] and every statistic on it.

The report holds raw per-epoch histories (never a pre-reduced number), so any
statistic can be recomputed under another epoch selection, CI method or
pairwise test without retraining.  ``epoch_selection``, ``ci_method`` and
``pairwise_method`` are attributes of the report (validated when set); every
table, test, plot and exporter reads them through :meth:`final_metrics`,
:meth:`summary` and :meth:`pairwise`, so setting one of them once switches
all outputs together.

Data model
----------
``histories[task][model]`` is a list, one entry per seed *in seed order*, of
``{series_name: [value per evaluated epoch]}``; a seed that produced no history
(failed, incompatible, unavailable) is ``None``.  Series names are
``<split>_<metric>`` (``train_loss``, ``val_acc``, ``test_acc``, ``val_auc``,
``test_auc``, ``val_mae``, ``test_mae``, ...).  Values may be ``None`` or NaN.

The headline series and its direction per task come from ``tasks[task] =
{"metric", "direction", "family", "category"}`` (filled from the run records
by :meth:`BenchmarkReport.from_runs`).  For hand-built histories they are
inferred: the headline is a ``test_*`` series (``test_acc``, ``test_auc``,
``test_mae``, ``test_rmse`` preferred in that order, then alphabetical) and
``mae``/``rmse``/``mse``/``loss`` are lower-is-better; pass ``tasks=`` to say
so explicitly.

Reduction to X[task, model, seed] (REPORT_SPEC "epoch selection")
-----------------------------------------------------------------
``final``
    the headline value at the last evaluated epoch;
``best_val``
    the headline value at :math:`e^* = \arg\max_e v_e` (``argmin`` for
    lower-is-better) of the paired validation series ``val_<metric>``; NaN
    validation values are skipped and the earliest epoch wins ties.  The
    reported series is never used for the choice.  A task whose headline is
    not a ``test_*`` series, or whose runs lack a ``val_<metric>`` series of
    the same length, does not support ``best_val``
    (:meth:`epoch_selection_support` says why) and selecting on it raises
    ``ValueError``.

A NaN at the selected epoch (or a validation series that is NaN everywhere)
makes that seed's value NaN: it is dropped from the cell (``n_seeds``) and
from every pair it belongs to -- pairs are aligned by seed, never by position
after dropping.

Per-cell, paired, power, equivalence, rank and stability statistics are the
ones of :mod:`netzbench.stats` (formulas and edge cases in its docstrings);
this class only arranges them over tasks and models.  It uses numpy and
:mod:`netzbench.stats` (plus matplotlib in the plot methods), never torch.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import stats
from ..stats._common import check_open_unit
from ..stats.paired import paired_differences

SCHEMA = "netzbench.benchmark/1"
EPOCH_SELECTIONS = ("final", "best_val")
DIRECTIONS = ("higher", "lower")
LOWER_IS_BETTER = ("mae", "rmse", "mse", "loss")
PREFERRED_METRICS = ("acc", "auc", "mae", "rmse")
POWER_EFFECTS = (0.02, 0.01, 0.005)
METRIC_LABELS = {"acc": "accuracy", "auc": "ROC-AUC", "mae": "MAE", "rmse": "RMSE", "f1": "macro-F1", "ap": "AP"}

__all__ = ["BenchmarkReport", "SCHEMA", "EPOCH_SELECTIONS", "infer_metric", "infer_direction", "TaskInfo"]


def infer_metric(histories: Sequence[Mapping | None]) -> str | None:
    """The headline series of hand-built histories.

    A ``test_*`` series, preferring ``test_acc``, ``test_auc``, ``test_mae``,
    ``test_rmse`` in that order, then the alphabetically first ``test_*``; if no
    run has a ``test_*`` series, the first non-``train_`` series; ``None`` if no
    run has any series.
    """
    names: set[str] = set()
    for h in histories:
        if h:
            names.update(h)
    if not names:
        return None
    tests = sorted(n for n in names if n.startswith("test_"))
    for suffix in PREFERRED_METRICS:
        if f"test_{suffix}" in tests:
            return f"test_{suffix}"
    if tests:
        return tests[0]
    others = sorted(n for n in names if not n.startswith("train_"))
    return (others or sorted(names))[0]


def infer_direction(metric: str) -> str:
    """``"lower"`` when the metric's last ``_`` token is mae/rmse/mse/loss, else ``"higher"``."""
    return "lower" if metric.split("_")[-1] in LOWER_IS_BETTER else "higher"


def metric_label(metric: str) -> str:
    """Readable name of a series: ``test_auc`` -> ``test ROC-AUC``."""
    split, _, name = metric.partition("_")
    return f"{split} {METRIC_LABELS.get(name, name)}" if name else metric


def _float(v) -> float:
    return math.nan if v is None else float(v)


def _clean(values) -> np.ndarray:
    return np.asarray([_float(v) for v in values], dtype=float)


def _num(v):
    """JSON-safe scalar: non-finite floats become None."""
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return v if math.isfinite(v) else None
    if isinstance(v, np.integer):
        return int(v)
    return v


@dataclass
class TaskInfo:
    """Headline series, its direction, and the task's family / research category."""

    metric: str
    direction: str
    family: str | None = None
    category: str | None = None


def union_length(intervals: Sequence[tuple[float, float]]) -> float:
    """Total length covered by closed intervals ``[a, b]`` (overlaps counted once); 0 for none."""
    total, end = 0.0, -math.inf
    for a, b in sorted(intervals):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total


class BenchmarkReport:
    """Statistics over a benchmark's histories (see the module docstring).

    Parameters
    ----------
    seeds : sequence of int
        The seeds, in the order of every history list.
    histories : dict
        ``histories[task][model]`` = list (one per seed) of series dicts or None.
    config : dict, optional
        Free-form protocol description carried into the JSON (roster, train
        and report parameters).
    ci_method : {"t", "bootstrap"}
        Per-cell confidence interval.
    bootstrap_n, bootstrap_seed : int
        Resamples and RNG seed of the bootstrap CI (reproducible).
    pairwise_method : {"t", "wilcoxon"}
        Paired test used by :meth:`pairwise` and everything built on it.
    epoch_selection : {"final", "best_val"}
        How a history is reduced to one number.
    alpha : float
        Significance level of every test (Holm, TOST, Nemenyi).
    ci : float
        Confidence level of the per-cell intervals.
    equivalence_margin : float or dict, optional
        TOST margin in metric units (one number, or ``{task: margin}``) used by
        :meth:`equivalence` when no margin is passed.
    rank_tasks : list of str, optional
        The tasks that enter the across-task analysis (ranks, Friedman,
        Nemenyi, rank stability); None = every task. Per-task tables still
        cover every task (e.g. Planetoid runs for the paper's Table 2 that are
        not part of its cross-category ranking).
    tasks : dict, optional
        ``{task: {"metric", "direction", "family", "category"}}``; missing
        entries are inferred.
    cells : dict, optional
        ``cells[task][model]`` = facts that are not histories (status, reason,
        per-seed status / seconds / epochs), as built by :meth:`from_runs`.
    """

    def __init__(self, seeds, histories: Mapping[str, Mapping[str, list]], config: Mapping | None = None,
                 ci_method: str = "t", bootstrap_n: int = 10_000, bootstrap_seed: int = 0,
                 pairwise_method: str = "t", epoch_selection: str = "final", *, alpha: float = 0.05,
                 ci: float = 0.95, equivalence_margin: float | Mapping[str, float] | None = None,
                 rank_tasks: Sequence[str] | None = None, tasks: Mapping[str, Mapping] | None = None,
                 cells: Mapping[str, Mapping[str, Mapping]] | None = None):
        self.seeds = [int(s) for s in seeds]
        if len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"seeds must be distinct, got {self.seeds}")
        self.histories: dict[str, dict[str, list]] = {t: {m: list(runs) for m, runs in bm.items()}
                                                      for t, bm in histories.items()}
        self.config = dict(config or {})
        self.ci_method = ci_method
        self.pairwise_method = pairwise_method
        self.epoch_selection = epoch_selection
        self.bootstrap_n = int(bootstrap_n)
        if self.bootstrap_n < 1:
            raise ValueError(f"bootstrap_n must be >= 1, got {bootstrap_n!r}")
        self.bootstrap_seed = int(bootstrap_seed)
        self.alpha = alpha
        self.ci = ci
        self.equivalence_margin = equivalence_margin
        self.rank_tasks = list(rank_tasks) if rank_tasks is not None else None
        #: per-cell facts that are not histories: status, reason, per-seed status and seconds
        self.cells: dict = {t: dict(bm) for t, bm in (cells or {}).items()}
        self.task_info: dict[str, TaskInfo] = {}
        for task, by_model in self.histories.items():
            for model, runs in by_model.items():
                if len(runs) != len(self.seeds):
                    raise ValueError(f"{task}/{model}: {len(runs)} histories for {len(self.seeds)} seeds")
            given = dict((tasks or {}).get(task) or {})
            metric = given.get("metric") or infer_metric([h for runs in by_model.values() for h in runs])
            metric = metric or "test_metric"
            direction = given.get("direction") or infer_direction(metric)
            if direction not in DIRECTIONS:
                raise ValueError(f"{task}: direction must be 'higher' or 'lower', got {direction!r}")
            self.task_info[task] = TaskInfo(metric, direction, given.get("family"), given.get("category"))

    # ------------------------------------------------------------- options
    @property
    def ci_method(self) -> str:
        return self._ci_method

    @ci_method.setter
    def ci_method(self, value: str) -> None:
        if value not in stats.INTERVAL_METHODS:
            raise ValueError(f"ci_method must be one of {list(stats.INTERVAL_METHODS)}, got {value!r}")
        self._ci_method = value

    @property
    def pairwise_method(self) -> str:
        return self._pairwise_method

    @pairwise_method.setter
    def pairwise_method(self, value: str) -> None:
        if value not in stats.PAIRED_METHODS:
            raise ValueError(f"pairwise_method must be one of {list(stats.PAIRED_METHODS)}, got {value!r}")
        self._pairwise_method = value

    @property
    def epoch_selection(self) -> str:
        return self._epoch_selection

    @epoch_selection.setter
    def epoch_selection(self, value: str) -> None:
        if value not in EPOCH_SELECTIONS:
            raise ValueError(f"epoch_selection must be one of {list(EPOCH_SELECTIONS)}, got {value!r}")
        self._epoch_selection = value

    @property
    def alpha(self) -> float:
        return self._alpha

    @alpha.setter
    def alpha(self, value: float) -> None:
        self._alpha = check_open_unit(value, "alpha")

    @property
    def ci(self) -> float:
        return self._ci

    @ci.setter
    def ci(self, value: float) -> None:
        self._ci = check_open_unit(value, "ci")

    def options(self) -> dict[str, Any]:
        """The analysis options (what :meth:`to_json` stores besides the data)."""
        margin = self.equivalence_margin
        if isinstance(margin, Mapping):
            margin = dict(margin)
        return {"ci_method": self.ci_method, "bootstrap_n": self.bootstrap_n, "bootstrap_seed": self.bootstrap_seed,
                "pairwise_method": self.pairwise_method, "epoch_selection": self.epoch_selection,
                "alpha": self.alpha, "ci": self.ci, "equivalence_margin": margin, "rank_tasks": self.rank_tasks}

    # -------------------------------------------------------------- basics
    @property
    def tasks(self) -> list[str]:
        return list(self.histories)

    @property
    def models(self) -> list[str]:
        seen: list[str] = []
        for by_model in self.histories.values():
            for m in by_model:
                if m not in seen:
                    seen.append(m)
        return seen

    def cell_status(self, task: str, model: str) -> str:
        """Status of a cell: the run record's (``ok``/``partial``/``failed``/``incompatible``/
        ``unavailable``/``missing``) when known, else derived from the histories (``"no cell"``
        when the model has no entry for the task at all)."""
        cell = self.cells.get(task, {}).get(model)
        if cell and cell.get("status"):
            return str(cell["status"])
        runs = self.histories.get(task, {}).get(model)
        if runs is None:
            return "no cell"  # the model does not serve this task (no cell was created)
        have = [h is not None for h in runs]
        return "ok" if all(have) else ("partial" if any(have) else "missing")

    def cell_reason(self, task: str, model: str) -> str:
        """Why a cell has no (or incomplete) results, from the run record facts."""
        cell = self.cells.get(task, {}).get(model) or {}
        if cell.get("reason"):
            return str(cell["reason"])
        reasons = sorted({str(f.get("reason") or f.get("error") or f.get("status"))
                          for f in (cell.get("seeds") or {}).values() if f.get("status") != "ok"})
        return "; ".join(reasons)

    # ----------------------------------------------------- epoch selection
    @staticmethod
    def _val_series(metric: str) -> str | None:
        split, _, name = metric.partition("_")
        return f"val_{name}" if split == "test" and name else None

    def epoch_selection_support(self) -> list[dict]:
        """Per task: can ``best_val`` be used, on which validation series, and if not, why.

        Rows ``{task, metric, validation_series, best_val_possible, reason,
        n_runs, n_runs_with_validation}``.  ``n_runs`` counts seeds with a
        non-empty headline series; a run counts as having validation when it
        has ``val_<metric>`` of the same length.  ``final`` is always possible.
        """
        rows = []
        for task, by_model in self.histories.items():
            metric = self.task_info[task].metric
            val = self._val_series(metric)
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
            elif len(with_val) < len(runs):
                ok = False
                reason = (f"{len(runs) - len(with_val)} of {len(runs)} runs lack a {val!r} series aligned with "
                          f"{metric!r}")
            else:
                ok, reason = True, ""
            rows.append({"task": task, "metric": metric, "validation_series": val, "best_val_possible": ok,
                         "reason": reason, "n_runs": len(runs), "n_runs_with_validation": len(with_val)})
        return rows

    def _indices(self) -> dict[str, dict[str, list[int | None]]]:
        if self.epoch_selection == "best_val":
            bad = [r for r in self.epoch_selection_support() if not r["best_val_possible"] and r["n_runs"] > 0]
            if bad:
                raise ValueError("epoch_selection='best_val' is not possible for "
                                 + "; ".join(f"{r['task']} ({r['reason']})" for r in bad)
                                 + "; see epoch_selection_support()")
        out: dict[str, dict[str, list[int | None]]] = {}
        for task, by_model in self.histories.items():
            info = self.task_info[task]
            val_key = self._val_series(info.metric)
            out[task] = {}
            for model, runs in by_model.items():
                chosen: list[int | None] = []
                for h in runs:
                    if not h or not h.get(info.metric):
                        chosen.append(None)
                    elif self.epoch_selection == "final":
                        chosen.append(len(h[info.metric]) - 1)
                    else:
                        v = _clean(h[val_key])
                        if not np.isfinite(v).any():
                            chosen.append(None)  # validation NaN everywhere: no defined choice
                            continue
                        score = np.where(np.isfinite(v), v if info.direction == "higher" else -v, -np.inf)
                        chosen.append(int(np.argmax(score)))  # first maximum = earliest epoch on ties
                out[task][model] = chosen
        return out

    def _epoch_numbers(self, task: str, model: str, seed_pos: int, length: int) -> list[int]:
        cell = self.cells.get(task, {}).get(model) or {}
        fact = (cell.get("seeds") or {}).get(str(self.seeds[seed_pos])) or {}
        ep = fact.get("epochs")
        if isinstance(ep, list) and len(ep) == length:
            return [int(e) for e in ep]
        return list(range(1, length + 1))

    def selected_epochs(self, table: bool = False):
        """The epoch used for every (task, model, seed) under the current selection (the audit).

        Default: ``{task: {model: [index or None per seed]}}`` (index into the
        history lists; None where the seed has no value).  ``table=True``
        returns rows ``{task, model, seed, index, epoch, value, validation}``
        with the evaluated epoch number (from the run record; ``index + 1``
        for hand-built histories), the reported value and the validation value
        at that epoch.
        """
        idx = self._indices()
        if not table:
            return idx
        rows = []
        for task, by_model in idx.items():
            info = self.task_info[task]
            val_key = self._val_series(info.metric)
            for model, chosen in by_model.items():
                for pos, (h, i) in enumerate(zip(self.histories[task][model], chosen)):
                    row = {"task": task, "model": model, "seed": self.seeds[pos], "index": i, "epoch": None,
                           "value": math.nan, "validation": math.nan, "selection": self.epoch_selection}
                    if i is not None:
                        row["epoch"] = self._epoch_numbers(task, model, pos, len(h[info.metric]))[i]
                        row["value"] = _float(h[info.metric][i])
                        if val_key and h.get(val_key) is not None and i < len(h[val_key]):
                            row["validation"] = _float(h[val_key][i])
                    rows.append(row)
        return rows

    def final_metrics(self) -> dict[str, dict[str, np.ndarray]]:
        """X[task][model] -> float array over seeds (seed order; NaN where a seed has no value)."""
        sel = self._indices()
        out: dict[str, dict[str, np.ndarray]] = {}
        for task, by_model in self.histories.items():
            metric = self.task_info[task].metric
            out[task] = {}
            for model, runs in by_model.items():
                vals = [math.nan if i is None else _float(h[metric][i]) for h, i in zip(runs, sel[task][model])]
                out[task][model] = np.asarray(vals, dtype=float)
        return out

    # ----------------------------------------------------------- per cell
    def summary(self, ci_method: str | None = None) -> list[dict]:
        """One row per (task, model): mean, std, sem, n_seeds and the CI of ``ci_method``.

        Columns ``task, model, metric, direction, mean, std, sem, n_seeds, lo,
        hi, half_width, ci_method, ci, status``.  ``t``: ``mean ± t·sem``;
        ``bootstrap``: percentile bounds (possibly asymmetric) and
        ``half_width = (hi - lo)/2`` (seeded by ``bootstrap_seed``).  One seed
        gives NaN bounds (no interval), no seed gives NaN everywhere.
        """
        method = ci_method or self.ci_method
        rows = []
        for task, by_model in self.final_metrics().items():
            info = self.task_info[task]
            for model, values in by_model.items():
                d = stats.interval(values, ci=self.ci, method=method, n_resamples=self.bootstrap_n,
                                   seed=self.bootstrap_seed).to_dict()
                rows.append({"task": task, "model": model, "metric": info.metric, "direction": info.direction,
                             "mean": d["mean"], "std": d["std"], "sem": d["sem"], "n_seeds": d["n"],
                             "lo": d["lo"], "hi": d["hi"], "half_width": d["half_width"], "ci_method": method,
                             "ci": self.ci, "status": self.cell_status(task, model)})
        return rows

    def _summary_nested(self, rows: list[dict] | None = None) -> dict[str, dict[str, dict]]:
        out: dict[str, dict[str, dict]] = {}
        for r in rows if rows is not None else self.summary():
            out.setdefault(r["task"], {})[r["model"]] = r
        return out

    # ------------------------------------------------- within a task: pairs
    def _pairs(self, by_model: Mapping[str, np.ndarray]) -> list[tuple[str, str]]:
        names = [m for m in by_model if np.isfinite(by_model[m]).any()]
        return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]

    def _dropped(self, a: np.ndarray, b: np.ndarray) -> list[int]:
        """Seeds where exactly one of the two models has a value (dropped from the pair)."""
        fa, fb = np.isfinite(a), np.isfinite(b)
        return [self.seeds[i] for i in np.flatnonzero(fa ^ fb)]

    def pairwise(self, method: str | None = None) -> list[dict]:
        """Every unordered model pair per task: paired test on seed-aligned values, Holm within the task.

        Columns ``task, model_a, model_b, direction, mean_diff (a − b), sigma_d,
        cohens_dz, p_raw, p_holm, significant, better, n_seeds, dropped_seeds,
        method, note``.  Only models with at least one value on the task take
        part.  A seed with a value for only one of the two models is dropped
        from that pair and listed in ``dropped_seeds``.  ``p_holm`` is the
        Holm–Bonferroni adjustment over the task's comparisons with a defined
        p-value (undefined ones stay NaN and are never significant).
        ``better`` names the model favoured under the task's metric direction
        when the difference is significant, else ``""``.  Degenerate inputs
        follow :func:`netzbench.stats.paired_test` (``note`` says which).
        """
        method = method or self.pairwise_method
        if method not in stats.PAIRED_METHODS:
            raise ValueError(f"pairwise method must be one of {list(stats.PAIRED_METHODS)}, got {method!r}")
        rows = []
        for task, by_model in self.final_metrics().items():
            direction = self.task_info[task].direction
            task_rows = []
            for a, b in self._pairs(by_model):
                r = stats.paired_test(by_model[a], by_model[b], method=method)
                task_rows.append({"task": task, "model_a": a, "model_b": b, "direction": direction,
                                  "mean_diff": r.mean_diff, "sigma_d": r.sigma_d, "cohens_dz": r.cohens_dz,
                                  "p_raw": r.p_value, "n_seeds": r.n,
                                  "dropped_seeds": self._dropped(by_model[a], by_model[b]),
                                  "method": method, "note": r.note})
            adjusted = stats.holm([r["p_raw"] for r in task_rows]) if task_rows else []
            for r, p in zip(task_rows, adjusted):
                r["p_holm"] = float(p)
                r["significant"] = bool(np.isfinite(p) and p < self.alpha)
                better = ""
                if r["significant"] and r["mean_diff"] != 0:
                    a_larger = r["mean_diff"] > 0
                    better = r["model_a"] if a_larger == (direction == "higher") else r["model_b"]
                r["better"] = better
            rows.extend(task_rows)
        return rows

    def power(self, power: float = 0.8, effects: Sequence[float] = POWER_EFFECTS) -> list[dict]:
        r"""Power of the paired t test for every comparison (see :mod:`netzbench.stats.power`).

        Columns ``task, model_a, model_b, mean_diff, sigma_d, n_seeds, mde,
        observed_power, detectable, seeds_needed_<e>`` for each effect ``e``
        (metric units).  ``mde = (t_{S-1,1-α/2} + t_{S-1,power})·σ_d/√S`` at the
        pair's ``S`` seeds; observed power from the non-central t at the
        observed mean difference; ``seeds_needed_<e>`` is the smallest S with
        MDE ≤ e holding σ_d fixed (None beyond 10,000).  The analysis is that
        of the paired t test whatever ``pairwise_method`` is (the Wilcoxon
        floor is stated separately, see :meth:`wilcoxon_floor`).
        """
        rows = []
        for task, by_model in self.final_metrics().items():
            for a, b in self._pairs(by_model):
                r = stats.paired_power(by_model[a], by_model[b], alpha=self.alpha, power=power, effects=effects)
                d = paired_differences(by_model[a], by_model[b])
                row = {"task": task, "model_a": a, "model_b": b, "mean_diff": d.mean_diff, "sigma_d": r.sigma_d,
                       "n_seeds": r.n, "mde": r.mde, "observed_power": r.observed_power,
                       "detectable": r.detectable, "power": power}
                for e in effects:
                    row[f"seeds_needed_{e:g}"] = r.seeds_needed[float(e)]
                rows.append(row)
        return rows

    def wilcoxon_floor(self) -> list[dict]:
        r"""The smallest p-value the exact Wilcoxon signed-rank test can give, per task.

        With ``S`` paired seeds and no zero differences, the two-sided exact
        null puts mass :math:`2^{-S}` on "all differences positive", so
        :math:`p_{min} = 2\cdot 2^{-S}`.  Holm multiplies the smallest p of a
        family of ``m`` comparisons by ``m``: :math:`p^{Holm}_{min} =
        \min(1, m\cdot 2^{1-S})`.  ``reachable`` says whether that is below
        alpha, i.e. whether the Wilcoxon test can declare anything at this
        seed count.  ``S`` is the largest ``n_seeds`` of the task's pairs.
        """
        rows = []
        for task, by_model in self.final_metrics().items():
            pairs = self._pairs(by_model)
            s = max((int(np.sum(np.isfinite(by_model[a]) & np.isfinite(by_model[b]))) for a, b in pairs), default=0)
            m = len(pairs)
            p_min = 2.0 * 2.0 ** (-s) if s >= 1 else math.nan
            p_holm = min(1.0, m * p_min) if m and s >= 1 else math.nan
            rows.append({"task": task, "n_seeds": s, "comparisons": m, "p_min": p_min, "p_min_holm": p_holm,
                         "reachable": bool(np.isfinite(p_holm) and p_holm < self.alpha)})
        return rows

    def _margin(self, task: str, margin) -> float:
        m = self.equivalence_margin if margin is None else margin
        if isinstance(m, Mapping):
            if task not in m:
                raise ValueError(f"equivalence margin has no entry for task {task!r}")
            m = m[task]
        if m is None:
            raise ValueError("equivalence needs a margin in metric units: pass margin= or set "
                             "report.equivalence_margin (params.yaml: report.equivalence_margin)")
        return float(m)

    def equivalence(self, margin: float | Mapping[str, float] | None = None) -> list[dict]:
        r"""TOST equivalence of every pair within ``±margin`` and the four-way verdict.

        Two one-sided paired t tests (:func:`netzbench.stats.tost_paired`),
        :math:`p_{TOST} = \max(p^-, p^+)`, Holm-adjusted within the task
        (``p_tost_holm``).  Crossed with the Holm-adjusted difference test of
        the current ``pairwise_method`` (``p_diff_holm``) each comparison gets
        exactly one verdict (:func:`netzbench.stats.verdict`): ``different``
        (difference significant, equivalence not), ``equivalent`` (the
        reverse), ``trivial`` (both: a real difference inside the margin) or
        ``undetermined`` (neither; also when undefined, e.g. one seed).
        ``margin`` is a number or ``{task: margin}``; default
        ``self.equivalence_margin``.
        """
        diff = {(r["task"], r["model_a"], r["model_b"]): r for r in self.pairwise()}
        rows = []
        for task, by_model in self.final_metrics().items():
            task_rows = []
            for a, b in self._pairs(by_model):
                mg = self._margin(task, margin)
                t = stats.tost_paired(by_model[a], by_model[b], mg, alpha=self.alpha)
                d = diff[(task, a, b)]
                task_rows.append({"task": task, "model_a": a, "model_b": b, "mean_diff": d["mean_diff"],
                                  "n_seeds": t.n, "margin": mg, "p_lower": t.p_lower, "p_upper": t.p_upper,
                                  "p_tost": t.p_value, "p_diff_holm": d["p_holm"],
                                  "pairwise_method": d["method"]})
            adjusted = stats.holm([r["p_tost"] for r in task_rows]) if task_rows else []
            for r, p in zip(task_rows, adjusted):
                r["p_tost_holm"] = float(p)
                r["equivalent"] = bool(np.isfinite(p) and p < self.alpha)
                r["verdict"] = stats.verdict(r["p_diff_holm"], r["p_tost_holm"], alpha=self.alpha)
            rows.extend(task_rows)
        return rows

    # ------------------------------------------------------- across tasks
    def present_tasks(self) -> list[str]:
        """Tasks where at least one model has a value (the others are unavailable and leave N)."""
        fm = self.final_metrics()
        return [t for t in fm if any(np.isfinite(v).any() for v in fm[t].values())]

    def rank_table(self, models: Sequence[str] | None = None
                   ) -> tuple[list[str], list[str], np.ndarray, dict[str, str]]:
        """Ranks (1 = best, metric direction applied per task, ties averaged) of the complete models.

        Over the tasks present (:meth:`present_tasks`), a model enters the
        table only if it has a value on every one of them; the others are
        returned in ``excluded`` with the reason (status per task).  Returns
        ``(tasks, models, ranks[N, k], excluded)``; the score of a cell is its
        seed mean.
        """
        fm = self.final_metrics()
        candidates = list(models) if models is not None else self.models
        tasks = [t for t in fm if (self.rank_tasks is None or t in self.rank_tasks)
                 and any(np.isfinite(v).any() for v in fm[t].values())]
        excluded: dict[str, str] = {}
        keep = []
        for m in candidates:
            missing = [t for t in tasks if m not in fm[t] or not np.isfinite(fm[t][m]).any()]
            if missing:
                by_status: dict[str, list[str]] = {}
                for t in missing:
                    by_status.setdefault(self.cell_status(t, m), []).append(t)
                excluded[m] = "no result on " + "; ".join(f"{', '.join(ts)} ({s})" for s, ts in by_status.items())
            else:
                keep.append(m)
        if not keep or not tasks:
            return tasks, keep, np.zeros((len(tasks), len(keep))), excluded
        scores = np.array([[np.nanmean(fm[t][m]) for m in keep] for t in tasks])
        higher = np.array([self.task_info[t].direction == "higher" for t in tasks])
        return tasks, keep, stats.rank_matrix(scores, higher), excluded

    def _weights_for(self, tasks: list[str], weights) -> np.ndarray | None:
        if weights is None:
            return None
        if isinstance(weights, Mapping):
            missing = [t for t in tasks if t not in weights]
            if missing:
                raise ValueError(f"custom weights have no entry for task(s) {missing}")
            return np.array([float(weights[t]) for t in tasks])
        return np.asarray(weights, dtype=float)

    def mean_ranks(self, aggregation: str = "uniform", *, groups=None, weights=None,
                   models: Sequence[str] | None = None) -> dict[str, float]:
        r"""Mean rank per complete model under an aggregation (:func:`netzbench.stats.aggregate_ranks`).

        ``uniform`` (the only one with a Friedman/Nemenyi null);
        ``reliability`` (task weight :math:`1/\bar h_n`, the mean CI half-width
        of the ranked models on the task under the current ``ci_method``);
        ``hierarchical`` (mean within ``groups``, default the task's research
        category, then across groups); ``custom`` (``weights``: a sequence
        aligned with the rank table's tasks or ``{task: weight}``).
        """
        tasks, names, ranks, _ = self.rank_table(models)
        if not names:
            return {}
        hw = None
        if aggregation == "reliability":
            rows = {(r["task"], r["model"]): r["half_width"] for r in self.summary()}
            with np.errstate(all="ignore"):
                hw = np.array([np.nanmean([rows[(t, m)] for m in names])
                               if np.isfinite([rows[(t, m)] for m in names]).any() else np.nan for t in tasks])
        if aggregation == "hierarchical" and groups is None:
            groups = [self.task_info[t].category or t for t in tasks]
        elif aggregation == "hierarchical" and isinstance(groups, Mapping):
            groups = [groups.get(t, t) for t in tasks]
        w = self._weights_for(tasks, weights) if aggregation == "custom" else None
        mr = stats.aggregate_ranks(ranks, aggregation, ci_half_widths=hw, groups=groups, weights=w)
        return dict(zip(names, map(float, mr)))

    def friedman(self, models: Sequence[str] | None = None) -> dict[str, Any]:
        """Friedman test, Iman–Davenport F, Nemenyi CD, cliques, max gap over the complete models.

        Keys ``k, n_tasks, tasks, models, excluded, alpha, chi2, p_value, df,
        iman_davenport_f, iman_davenport_p, cd, mean_ranks, cliques, max_gap,
        n_for_observed_gap``.  ``k < 2`` or ``N < 1``: statistics NaN, no
        cliques.  ``N = 1``: chi2 defined, Iman–Davenport NaN (see
        :func:`netzbench.stats.friedman`).
        """
        tasks, names, ranks, excluded = self.rank_table(models)
        k, n = len(names), len(tasks)
        out: dict[str, Any] = {"k": k, "n_tasks": n, "tasks": tasks, "models": names, "excluded": excluded,
                               "alpha": self.alpha, "df": max(k - 1, 0)}
        if k < 2 or n < 1:
            out.update(chi2=math.nan, p_value=math.nan, iman_davenport_f=math.nan, iman_davenport_p=math.nan,
                       cd=math.nan, mean_ranks={m: (1.0 if n else math.nan) for m in names}, cliques=[],
                       max_gap=math.nan, n_for_observed_gap=None)
            return out
        fr = stats.friedman(ranks)
        mr = stats.mean_ranks(ranks)
        cd = stats.critical_difference(k, n, self.alpha)
        gap = stats.max_rank_gap(mr)
        out.update(chi2=fr.chi2, p_value=fr.p_value, iman_davenport_f=fr.iman_davenport_f,
                   iman_davenport_p=fr.iman_davenport_p, cd=cd, mean_ranks=dict(zip(names, map(float, mr))),
                   cliques=[[names[i] for i in c] for c in stats.cliques(mr, cd)],
                   max_gap=gap, n_for_observed_gap=stats.n_for_observed_gap(cd, n, gap))
        return out

    def rank_stability(self, n_boot: int = 2000, seed: int | None = None,
                       models: Sequence[str] | None = None) -> dict[str, Any]:
        """Bootstrap-over-tasks and leave-one-task-out stability of the mean-rank order.

        :func:`netzbench.stats.rank_stability` on :meth:`rank_table`, with
        model/task names: ``order_reproduced`` (fraction of task resamples
        reproducing the observed order), ``largest_gap_quantiles``
        (2.5/50/97.5 % of the largest mean-rank gap), ``pair_separation``
        (``"A vs B"`` -> fraction of resamples separating the pair by more
        than CD), ``jackknife_max_shift`` (per model) and
        ``jackknife_mean_ranks`` (per left-out task).  ``seed`` defaults to
        ``bootstrap_seed``: the result is reproducible.
        """
        tasks, names, ranks, excluded = self.rank_table(models)
        seed = self.bootstrap_seed if seed is None else seed
        out: dict[str, Any] = {"models": names, "tasks": tasks, "excluded": excluded, "n_boot": int(n_boot),
                               "seed": seed}
        if not names:
            out.update(order_reproduced=math.nan, largest_gap_quantiles={}, pair_separation={},
                       jackknife_max_shift={}, jackknife_mean_ranks={},
                       observed_order=[])
            return out
        rs = stats.rank_stability(ranks, n_boot=n_boot, seed=seed, alpha=self.alpha)
        mr = stats.mean_ranks(ranks) if tasks else np.full(len(names), np.nan)
        out.update(
            order_reproduced=rs.order_reproduced,
            largest_gap_quantiles={f"{q:g}": v for q, v in rs.largest_gap_quantiles.items()},
            pair_separation={f"{names[i]} vs {names[j]}": v for (i, j), v in rs.pair_separation.items()},
            jackknife_max_shift=dict(zip(names, map(float, rs.jackknife_max_shift))),
            jackknife_mean_ranks={t: dict(zip(names, map(float, row)))
                                  for t, row in zip(tasks, rs.jackknife_mean_ranks)} if len(tasks) > 1 else {},
            observed_order=[names[i] for i in np.argsort(mr, kind="stable")],
        )
        return out

    # ------------------------------------------------------------ candidate
    def candidate_block(self, name: str | None, roster: list[str]) -> dict[str, Any]:
        """Wins/losses/ties (Holm-significant paired differences) of ``name`` against the roster.

        Counted over the tasks where the candidate has results; a win is a
        significant difference in the candidate's favour under the task's
        metric direction (current ``pairwise_method``). ``mean_rank`` comes
        from ranking the candidate with the roster models complete on those
        tasks.
        """
        block = {"name": name, "mean_rank": None, "wins": 0, "losses": 0, "ties": 0, "n_tasks": 0}
        if name is None:
            return block
        fm = self.final_metrics()
        tasks = [t for t in fm if name in fm[t] and np.isfinite(fm[t][name]).any()]
        block["n_tasks"] = len(tasks)
        if not tasks:
            return block
        for row in self.pairwise():
            if row["task"] not in tasks or name not in (row["model_a"], row["model_b"]):
                continue
            other = row["model_b"] if row["model_a"] == name else row["model_a"]
            if other not in roster:
                continue
            if not row["significant"]:
                block["ties"] += 1
            else:
                block["wins" if row["better"] == name else "losses"] += 1
        sub = self.subset(tasks=tasks)
        _, models, ranks, _ = sub.rank_table([m for m in roster if m != name] + [name])
        if name in models:
            block["mean_rank"] = float(stats.mean_ranks(ranks)[models.index(name)])
        return block

    def subset(self, tasks: Sequence[str] | None = None, models: Sequence[str] | None = None) -> "BenchmarkReport":
        """A report over some tasks and/or models (same options, same cell facts)."""
        tasks = list(tasks) if tasks is not None else self.tasks
        hist = {t: {m: r for m, r in self.histories[t].items() if models is None or m in models} for t in tasks}
        cells = {t: {m: c for m, c in self.cells.get(t, {}).items() if models is None or m in models} for t in tasks}
        return BenchmarkReport(self.seeds, hist, self.config, tasks=self._task_dicts(), cells=cells,
                               **self.options())

    # ----------------------------------------------------- availability / cost
    def missing(self) -> list[dict]:
        """Cells without a complete set of ok seeds: ``{task, model, status, reason, n_ok}``."""
        out = []
        for task, by_model in self.histories.items():
            for model, runs in by_model.items():
                status = self.cell_status(task, model)
                n_ok = sum(h is not None for h in runs)
                if status == "ok" and n_ok == len(runs):
                    continue
                out.append({"task": task, "model": model, "status": status,
                            "reason": self.cell_reason(task, model), "n_ok": n_ok})
        return out

    def tasks_without_results(self) -> dict[str, str]:
        """Tasks on which no model has any value (they leave N), with the reason(s) from the run records."""
        present = set(self.present_tasks())
        out = {}
        for t in self.tasks:
            if t in present:
                continue
            reasons = sorted({self.cell_reason(t, m) or self.cell_status(t, m) for m in self.histories[t]})
            out[t] = "; ".join(r for r in reasons if r) or "no results"
        return out

    def unavailable_tasks(self) -> dict[str, str]:
        """The tasks without results whose data could not be obtained (a cell with status ``unavailable``)."""
        return {t: why for t, why in self.tasks_without_results().items()
                if any(self.cell_status(t, m) == "unavailable" for m in self.histories[t])}

    def compute_cost(self) -> dict[str, Any]:
        """Training time from the run records: summed per seed, and elapsed.

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
        for task, by_m in self.cells.items():
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

    def learning_curves(self, series: str | None = None, tasks: Sequence[str] | None = None
                        ) -> dict[str, dict[str, dict[str, list[float]]]]:
        r"""Per (task, model) and evaluated epoch: mean over seeds and 95 %-level t-CI.

        ``series`` defaults to each task's headline series (``"val"`` selects
        its paired validation series).  Seeds with shorter histories or NaN
        entries are skipped epoch by epoch; an epoch with one seed has no
        interval (NaN bounds).  Returns ``{task: {model: {"epochs", "mean",
        "lo", "hi", "n"}}}``; the level is the report's ``ci``.
        """
        out: dict[str, dict[str, dict[str, list[float]]]] = {}
        for task in (tasks if tasks is not None else self.tasks):
            info = self.task_info[task]
            key = series or info.metric
            if key == "val":
                key = self._val_series(info.metric) or info.metric
            out[task] = {}
            for model, runs in self.histories[task].items():
                seqs = [(pos, _clean(h[key])) for pos, h in enumerate(runs) if h and h.get(key)]
                if not seqs:
                    continue
                length = max(len(s) for _, s in seqs)
                mat = np.full((len(seqs), length), np.nan)
                for row, (_, s) in enumerate(seqs):
                    mat[row, :len(s)] = s
                longest = max(seqs, key=lambda ps: len(ps[1]))[0]
                epochs = self._epoch_numbers(task, model, longest, length)
                ivs = [stats.t_interval(mat[:, e], ci=self.ci) for e in range(length)]
                out[task][model] = {"epochs": epochs, "mean": [iv.mean for iv in ivs], "lo": [iv.lo for iv in ivs],
                                    "hi": [iv.hi for iv in ivs], "n": [iv.n for iv in ivs]}
        return out

    # ------------------------------------------------------------ exporters
    def to_latex(self, digits: int = 3, caption: str | None = None, label: str = "tab:netzbench-summary") -> str:
        """Booktabs table: one row per task, mean ± CI half-width per model, best per task in bold.

        See :func:`netzbench.report.latex.summary_table`.
        """
        from .latex import summary_table

        return summary_table(self, digits=digits, caption=caption, label=label)

    def pairwise_to_latex(self, method: str | None = None, digits: int = 3, caption: str | None = None,
                          label: str = "tab:netzbench-pairwise") -> str:
        """Booktabs table of every comparison: Δμ, p_raw, p_Holm and a significance mark.

        See :func:`netzbench.report.latex.pairwise_table`.
        """
        from .latex import pairwise_table

        return pairwise_table(self, method=method, digits=digits, caption=caption, label=label)

    # ---------------------------------------------------------------- plots
    def _metric_labels(self) -> dict[str, str]:
        return {t: metric_label(i.metric) for t, i in self.task_info.items()}

    def _directions(self) -> dict[str, str]:
        return {t: i.direction for t, i in self.task_info.items()}

    def _present_nested(self) -> dict[str, dict[str, dict]]:
        present = set(self.present_tasks())
        nested = {t: v for t, v in self._summary_nested().items() if t in present}
        if not nested:
            raise ValueError("no task has results")
        return nested

    def plot(self):
        """Grouped bars: mean ± CI (current ``ci_method``) per model, one panel per task with results."""
        from . import plots

        return plots.plot_bars(self._present_nested(), metric_label=self._metric_labels())

    def plot_forest(self):
        """Forest plot: one panel per task with results, one row per model, dot = mean, line = CI;
        best highlighted."""
        from . import plots

        return plots.plot_forest(self._present_nested(), metric_label=self._metric_labels(),
                                 direction=self._directions())

    def pairwise_matrix(self, task: str, method: str | None = None) -> tuple[list[str], np.ndarray, np.ndarray]:
        """``(models, p_holm[k, k], mean_diff[k, k])`` of one task (symmetric p, antisymmetric Δμ)."""
        rows = [r for r in self.pairwise(method) if r["task"] == task]
        names: list[str] = []
        for r in rows:
            for m in (r["model_a"], r["model_b"]):
                if m not in names:
                    names.append(m)
        k = len(names)
        P = np.full((k, k), np.nan)
        D = np.full((k, k), np.nan)
        for r in rows:
            i, j = names.index(r["model_a"]), names.index(r["model_b"])
            P[i, j] = P[j, i] = r["p_holm"]
            D[i, j], D[j, i] = r["mean_diff"], -r["mean_diff"]
        return names, P, D

    def plot_pairwise(self, layout: str = "matrix", task: str | None = None, method: str | None = None):
        """Pairwise comparisons of the current (or given) ``method``, Holm-adjusted.

        ``layout="matrix"``: −log10 p_Holm below the diagonal, signed Δμ above
        (one panel per task, or only ``task``); ``layout="list"``: one line per
        comparison, grouped by task.
        """
        from . import plots

        method = method or self.pairwise_method
        tasks = [task] if task is not None else self.present_tasks()
        label = {"t": "paired t", "wilcoxon": "Wilcoxon signed-rank"}[method]
        if layout == "list":
            rows = [r for r in self.pairwise(method) if r["task"] in tasks]
            if not rows:
                raise ValueError("no pairwise comparison to plot")
            return plots.plot_pairwise_list(rows, alpha=self.alpha,
                                            title=f"Pairwise comparisons ({label}, Holm within task)")
        if layout != "matrix":
            raise ValueError(f"layout must be 'matrix' or 'list', got {layout!r}")
        mats = {t: self.pairwise_matrix(t, method) for t in tasks}
        mats = {t: v for t, v in mats.items() if len(v[0]) >= 2}
        if not mats:
            raise ValueError("no task has two models with results")
        if len(mats) == 1:
            (t, (names, P, D)), = mats.items()
            return plots.plot_pairwise_matrix(names, P, D, alpha=self.alpha, title=f"{t} ({label})")
        return plots.plot_pairwise_grid(mats, alpha=self.alpha, title=f"Pairwise comparisons ({label}, Holm within task)")

    def plot_critical_difference(self, aggregation: str = "uniform", *, models: Sequence[str] | None = None,
                                 groups=None, weights=None, title: str | None = None):
        """Demšar CD diagram over the complete models.

        ``uniform``: mean ranks with the Nemenyi CD bar, cliques and the
        Friedman result.  Other aggregations: the weighted mean ranks drawn as
        a diagnostic, without CD or cliques (no null distribution exists).
        Ranks are direction-aware per task, so lower-is-better metrics (MAE)
        share the diagram with accuracy and AUC.
        """
        from . import plots

        fr = self.friedman(models)
        if fr["k"] < 1:
            raise ValueError("no model has results on every task present: " + "; ".join(
                f"{m}: {why}" for m, why in fr["excluded"].items()))
        if aggregation == "uniform":
            if fr["k"] < 2 or not math.isfinite(fr["cd"]):
                return plots.plot_critical_difference(
                    {m: 1.0 for m in fr["models"]}, None, [],
                    diagnostic_label=f"not enough complete models or tasks (k = {fr['k']}, N = {fr['n_tasks']})",
                    title=title, color_order=self.models)
            return plots.plot_critical_difference(
                fr["mean_ranks"], fr["cd"], [tuple(c) for c in fr["cliques"]],
                friedman={"chi2": fr["chi2"], "p_value": fr["p_value"], "n_tasks": fr["n_tasks"]},
                title=title or f"Critical difference diagram (α = {self.alpha:g}, N = {fr['n_tasks']} tasks)",
                color_order=self.models)
        mr = self.mean_ranks(aggregation, groups=groups, weights=weights, models=models)
        if not mr or not all(math.isfinite(v) for v in mr.values()):
            raise ValueError(f"{aggregation} mean ranks are undefined (no usable weights)")
        return plots.plot_critical_difference(
            mr, None, [], diagnostic_label=f"{aggregation}-weighted mean ranks: diagnostic, no CD / cliques",
            title=title or f"Mean ranks, {aggregation} aggregation (N = {fr['n_tasks']} tasks)",
            color_order=self.models)

    def plot_mean_ranks(self, aggregation: str = "uniform", **kwargs):
        """Bar chart of mean ranks; the CD bracket only for the uniform aggregation."""
        from . import plots

        if aggregation == "uniform":
            fr = self.friedman(kwargs.get("models"))
            cd = fr["cd"] if math.isfinite(fr["cd"]) else None
            if not fr["mean_ranks"]:
                raise ValueError("no model has results on every task present")
            return plots.plot_mean_ranks(fr["mean_ranks"], cd=cd, color_order=self.models)
        mr = self.mean_ranks(aggregation, **kwargs)
        if not mr or not all(math.isfinite(v) for v in mr.values()):
            raise ValueError(f"{aggregation} mean ranks are undefined")
        return plots.plot_mean_ranks(mr, color_order=self.models)

    def plot_learning_curves(self, series: str | None = None, tasks: Sequence[str] | None = None):
        """Mean ± t-CI per evaluated epoch, one panel per task, one line per model.

        The epochs used by the current ``epoch_selection`` are marked on each
        curve (▼ at the median selected epoch of the model's seeds).
        """
        from . import plots

        tasks = list(tasks) if tasks is not None else [t for t in self.tasks
                                                       if any(h for r in self.histories[t].values() for h in r)]
        curves = self.learning_curves(series, tasks)
        curves = {t: c for t, c in curves.items() if c}
        if not curves:
            raise ValueError("no history to plot")
        ylabel = {t: metric_label(series or self.task_info[t].metric) for t in curves}
        fig = plots.plot_learning_curves(curves, ylabel=ylabel, color_order=self.models)
        if series is None:
            audit = self.selected_epochs(table=True)
            colors = plots.model_colors(self.models)
            for ax, task in zip(fig.axes, curves):
                for model, c in curves[task].items():
                    eps = [r["epoch"] for r in audit if r["task"] == task and r["model"] == model and r["epoch"]]
                    if not eps:
                        continue
                    e = float(np.median(eps))
                    at = int(np.argmin(np.abs(np.asarray(c["epochs"], float) - e)))
                    e, y = c["epochs"][at], c["mean"][at]
                    if not math.isfinite(y):
                        continue
                    ax.plot([e], [y], marker="v", color=colors[model], markeredgecolor="black",
                            markeredgewidth=0.5, markersize=6, linestyle="none", zorder=5, gid="selected-epoch")
                ax.set_title(f"{task}  (▼ {self.epoch_selection})")
        return fig

    def plot_dashboard(self, title: str | None = None):
        """Per-category dashboard (the paper's Figure 2): one panel per research category,
        every task of the category as a group of bars with CIs (current ``ci_method``)."""
        from . import plots

        nested = self._summary_nested()
        panels: dict[str, dict[str, dict]] = {}
        for t in self.tasks:
            cat = self.task_info[t].category or "uncategorised"
            panels.setdefault(cat, {})[t] = nested.get(t, {})
        labels = {t: metric_label(i.metric).replace("test ", "") for t, i in self.task_info.items()}
        ci = f"{self.ci:.0%} {'t' if self.ci_method == 't' else 'bootstrap'}-CI"
        return plots.plot_dashboard(panels, metric_label=labels, direction=self._directions(), models=self.models,
                                    title=title or f"Per-category results: mean ± {ci} over seeds")

    # ---------------------------------------------------------- persistence
    def _task_dicts(self) -> dict[str, dict]:
        return {t: {"metric": i.metric, "direction": i.direction, "family": i.family, "category": i.category}
                for t, i in self.task_info.items()}

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form: schema, seeds, config, options, task metadata, cell facts, raw histories.

        Non-finite history values become ``null`` (read back as NaN), every
        value a float, so ``from_dict(to_dict())`` reproduces every statistic.
        """
        def hist(h):
            if h is None:
                return None
            return {k: [_num(_float(v)) for v in vals] for k, vals in h.items()}

        return {
            "schema": SCHEMA,
            "seeds": self.seeds,
            "config": self.config,
            "options": self.options(),
            "tasks": self._task_dicts(),
            "cells": self.cells,
            "histories": {t: {m: [hist(h) for h in runs] for m, runs in bm.items()} for t, bm in self.histories.items()},
        }

    def to_json(self, path: str | Path | None = None, indent: int | None = None) -> str:
        """Serialise (:meth:`to_dict`) to JSON text, optionally writing it to ``path``.

        ``from_json(to_json()).to_json() == to_json()`` (exact round trip).
        """
        text = json.dumps(self.to_dict(), indent=indent, allow_nan=False)  # key order = roster order
        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(text + "\n", encoding="utf-8")
        return text

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "BenchmarkReport":
        """Inverse of :meth:`to_dict`; an unknown ``schema`` raises ``ValueError`` naming both versions."""
        if not isinstance(d, Mapping) or d.get("schema") != SCHEMA:
            found = d.get("schema") if isinstance(d, Mapping) else type(d).__name__
            raise ValueError(f"unsupported benchmark schema {found!r}; this version reads {SCHEMA!r}")
        return cls(d["seeds"], d["histories"], d.get("config"), tasks=d.get("tasks"), cells=d.get("cells"),
                   **d.get("options", {}))

    @classmethod
    def from_json(cls, source: str | Path) -> "BenchmarkReport":
        """Read a report written by :meth:`to_json` (a path or the JSON text)."""
        text = str(source)
        if not text.lstrip().startswith("{"):
            text = Path(source).read_text(encoding="utf-8")
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_runs(cls, runs_dir: str | Path = "metrics/runs", *, tasks: list[str] | None = None,
                  models: list[str] | None = None, params: dict | str | Path | None = "params.yaml",
                  candidate_dir: str | Path | None = None, **options) -> "BenchmarkReport":
        """Build a report from run records. The roster comes from ``params`` unless
        ``tasks``/``models`` are given; the directory is never scanned for cells.
        Report options default to ``params['report']`` and may be overridden."""
        from .runs import load_from_runs

        return load_from_runs(cls, runs_dir, tasks=tasks, models=models, params=params,
                              candidate_dir=candidate_dir, **options)
