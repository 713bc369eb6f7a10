"""``BenchmarkReport``: the metric tensor X[task, model, seed] and every statistic on it.

The report holds raw per-epoch histories (never a pre-reduced number), so
any statistic can be recomputed under another epoch selection, CI method or
pairwise test without retraining. Setting ``epoch_selection``, ``ci_method``
or ``pairwise_method`` on the report switches every table, test, plot and
exporter together, because they all read :meth:`final_metrics`.

``histories[task][model]`` is a list, one entry per seed in seed order, of
``{series_name: [value per evaluated epoch]}``; a seed that did not produce
a history (failed, incompatible, unavailable) is ``None``. This module uses
numpy and :mod:`netzbench.stats` only (no torch).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import stats

SCHEMA = "netzbench.benchmark/1"
LOWER_IS_BETTER = ("mae", "rmse", "mse", "loss")


def infer_metric(histories: list[dict | None]) -> str | None:
    """The headline series of hand-built histories: the first ``test_*`` series."""
    for h in histories:
        if h:
            tests = sorted(k for k in h if k.startswith("test_"))
            if tests:
                return tests[0]
            return sorted(h)[0] if h else None
    return None


def infer_direction(metric: str) -> str:
    return "lower" if metric.split("_")[-1] in LOWER_IS_BETTER else "higher"


def _clean(values) -> np.ndarray:
    return np.asarray([np.nan if v is None else float(v) for v in values], dtype=float)


@dataclass
class TaskInfo:
    metric: str
    direction: str
    family: str | None = None
    category: str | None = None


class BenchmarkReport:
    """Statistics over a benchmark's histories (see the module docstring)."""

    def __init__(self, seeds, histories: dict[str, dict[str, list]], config: dict | None = None, *,
                 ci_method: str = "t", bootstrap_n: int = 10_000, bootstrap_seed: int = 0,
                 pairwise_method: str = "t", epoch_selection: str = "final", alpha: float = 0.05,
                 ci: float = 0.95, tasks: dict[str, dict] | None = None,
                 cells: dict[str, dict[str, dict]] | None = None):
        self.seeds = [int(s) for s in seeds]
        self.histories = histories
        self.config = dict(config or {})
        self.ci_method = ci_method
        self.bootstrap_n = int(bootstrap_n)
        self.bootstrap_seed = int(bootstrap_seed)
        self.pairwise_method = pairwise_method
        self.epoch_selection = epoch_selection
        self.alpha = float(alpha)
        self.ci = float(ci)
        #: per-cell facts that are not histories: status, reason, per-seed status and seconds
        self.cells = cells or {}
        self.task_info: dict[str, TaskInfo] = {}
        for task, by_model in histories.items():
            given = (tasks or {}).get(task, {})
            metric = given.get("metric") or infer_metric([h for runs in by_model.values() for h in runs])
            if metric is None:
                metric = "test_metric"
            self.task_info[task] = TaskInfo(metric, given.get("direction") or infer_direction(metric),
                                            given.get("family"), given.get("category"))
        for task, by_model in histories.items():
            for model, runs in by_model.items():
                if len(runs) != len(self.seeds):
                    raise ValueError(f"{task}/{model}: {len(runs)} histories for {len(self.seeds)} seeds")

    # ----------------------------------------------------------------- basics
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

    def _check_options(self) -> None:
        if self.epoch_selection not in ("final", "best_val"):
            raise ValueError(f"epoch_selection must be 'final' or 'best_val', got {self.epoch_selection!r}")

    def selected_epochs(self) -> dict[str, dict[str, list[int | None]]]:
        """Index of the epoch used for every (task, model, seed) under the current selection."""
        self._check_options()
        out: dict[str, dict[str, list[int | None]]] = {}
        for task, by_model in self.histories.items():
            info = self.task_info[task]
            val_key = "val_" + info.metric.split("_", 1)[1]
            out[task] = {}
            for model, runs in by_model.items():
                chosen: list[int | None] = []
                for h in runs:
                    if not h or info.metric not in h or not h[info.metric]:
                        chosen.append(None)
                        continue
                    if self.epoch_selection == "final":
                        chosen.append(len(h[info.metric]) - 1)
                        continue
                    val = _clean(h.get(val_key, []))
                    if val.size == 0 or np.all(np.isnan(val)):
                        chosen.append(None)
                        continue
                    score = val if info.direction == "higher" else -val
                    chosen.append(int(np.nanargmax(score)))  # earliest epoch on ties
                out[task][model] = chosen
        return out

    def final_metrics(self) -> dict[str, dict[str, np.ndarray]]:
        """X[task][model] -> array over seeds (NaN where a seed has no value)."""
        sel = self.selected_epochs()
        out: dict[str, dict[str, np.ndarray]] = {}
        for task, by_model in self.histories.items():
            metric = self.task_info[task].metric
            out[task] = {}
            for model, runs in by_model.items():
                vals = []
                for h, idx in zip(runs, sel[task][model]):
                    v = None if idx is None else h[metric][idx]
                    vals.append(np.nan if v is None else float(v))
                out[task][model] = np.asarray(vals, dtype=float)
        return out

    # -------------------------------------------------------------- per cell
    def summary(self) -> list[dict]:
        """One row per (task, model): mean, std, sem, n_seeds and the CI of ``ci_method``."""
        rows = []
        for task, by_model in self.final_metrics().items():
            for model, values in by_model.items():
                iv = stats.interval(values, ci=self.ci, method=self.ci_method,
                                    n_resamples=self.bootstrap_n, seed=self.bootstrap_seed)
                d = iv.to_dict()
                rows.append({"task": task, "model": model, "metric": self.task_info[task].metric,
                             "direction": self.task_info[task].direction, "mean": d["mean"], "std": d["std"],
                             "sem": d["sem"], "n_seeds": d["n"], "lo": d["lo"], "hi": d["hi"],
                             "half_width": d["half_width"], "ci_method": self.ci_method})
        return rows

    # ------------------------------------------------------ within a task
    def pairwise(self, method: str | None = None) -> list[dict]:
        """Every unordered model pair per task: paired test, Holm within the task."""
        method = method or self.pairwise_method
        rows = []
        for task, by_model in self.final_metrics().items():
            names = [m for m in by_model if np.isfinite(by_model[m]).any()]
            task_rows = []
            for i, a in enumerate(names):
                for b in names[i + 1:]:
                    r = stats.paired_test(by_model[a], by_model[b], method=method).to_dict()
                    task_rows.append({"task": task, "model_a": a, "model_b": b, "mean_diff": r["mean_diff"],
                                      "sigma_d": r["sigma_d"], "cohens_dz": r["cohens_dz"], "p_raw": r["p_value"],
                                      "n_seeds": r["n"], "method": method, "note": r.get("note") or ""})
            adjusted = stats.holm([r["p_raw"] for r in task_rows]) if task_rows else []
            for r, p in zip(task_rows, adjusted):
                r["p_holm"] = float(p)
                r["significant"] = bool(np.isfinite(p) and p < self.alpha)
            rows.extend(task_rows)
        return rows

    # --------------------------------------------------------- across tasks
    def rank_table(self, models: list[str] | None = None) -> tuple[list[str], list[str], np.ndarray, dict[str, str]]:
        """Ranks (rank 1 = best, direction applied per task) of the models present in every task.

        Returns ``(tasks, models, ranks[N, k], excluded)`` where ``excluded``
        maps each dropped model to the reason.
        """
        fm = self.final_metrics()
        candidates = models or self.models
        excluded: dict[str, str] = {}
        keep = []
        # tasks where nothing could run (data unavailable) do not enter the ranks; N says so
        present = [t for t in fm if any(np.isfinite(v).any() for v in fm[t].values())]
        for m in candidates:
            missing = [t for t in present if m not in fm[t] or not np.isfinite(fm[t][m]).any()]
            if missing:
                excluded[m] = f"no result on {', '.join(missing)}"
            else:
                keep.append(m)
        tasks = present
        if not keep or not tasks:
            return tasks, keep, np.zeros((len(tasks), len(keep))), excluded
        scores = np.array([[np.nanmean(fm[t][m]) for m in keep] for t in tasks])
        higher = np.array([self.task_info[t].direction == "higher" for t in tasks])
        return tasks, keep, stats.rank_matrix(scores, higher), excluded

    def mean_ranks(self, aggregation: str = "uniform", *, groups=None, weights=None) -> dict[str, float]:
        tasks, models, ranks, _ = self.rank_table()
        if not models:
            return {}
        hw = None
        if aggregation == "reliability":
            rows = {(r["task"], r["model"]): r["half_width"] for r in self.summary()}
            hw = np.array([np.nanmean([rows[(t, m)] for m in models]) for t in tasks])
        if aggregation == "hierarchical" and groups is None:
            groups = [self.task_info[t].category or t for t in tasks]
        mr = stats.aggregate_ranks(ranks, aggregation, ci_half_widths=hw, groups=groups, weights=weights)
        return dict(zip(models, map(float, mr)))

    def friedman(self) -> dict[str, Any]:
        """Friedman test, Iman–Davenport, Nemenyi CD, cliques, max gap over the complete models."""
        tasks, models, ranks, excluded = self.rank_table()
        k, n = len(models), len(tasks)
        out: dict[str, Any] = {"k": k, "n_tasks": n, "models": models, "excluded": excluded, "alpha": self.alpha}
        if k < 2 or n < 1:
            out.update(chi2=math.nan, p_value=math.nan, iman_davenport_f=math.nan, iman_davenport_p=math.nan,
                       cd=math.nan, mean_ranks={m: math.nan for m in models}, cliques=[], max_gap=math.nan,
                       n_for_observed_gap=None)
            return out
        fr = stats.friedman(ranks).to_dict()
        mr = stats.mean_ranks(ranks)
        cd = stats.critical_difference(k, n, self.alpha)
        gap = float(mr.max() - mr.min())
        out.update(chi2=fr["chi2"], p_value=fr["p_value"], iman_davenport_f=fr["iman_davenport_f"],
                   iman_davenport_p=fr["iman_davenport_p"], cd=cd,
                   mean_ranks=dict(zip(models, map(float, mr))),
                   cliques=[[models[i] for i in c] for c in stats.cliques(mr, cd)],
                   max_gap=gap, n_for_observed_gap=stats.n_for_observed_gap(cd, n, gap))
        return out

    # ------------------------------------------------------------ candidate
    def candidate_block(self, name: str | None, roster: list[str]) -> dict[str, Any]:
        """Wins/losses/ties (Holm-significant paired differences) of ``name`` against the roster.

        Counted over the tasks where the candidate has results; a win is a
        significant difference in the candidate's favour under the task's
        metric direction. ``mean_rank`` comes from ranking the candidate with
        the roster models complete on those tasks.
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
                continue
            diff = row["mean_diff"] if row["model_a"] == name else -row["mean_diff"]
            better = diff > 0 if self.task_info[row["task"]].direction == "higher" else diff < 0
            block["wins" if better else "losses"] += 1
        sub = self.subset(tasks=tasks)
        _, models, ranks, _ = sub.rank_table([m for m in roster if m != name] + [name])
        if name in models:
            block["mean_rank"] = float(stats.mean_ranks(ranks)[models.index(name)])
        return block

    def subset(self, tasks: list[str] | None = None, models: list[str] | None = None) -> "BenchmarkReport":
        """A report over some tasks and/or models (same options)."""
        tasks = tasks or self.tasks
        hist = {t: {m: r for m, r in self.histories[t].items() if models is None or m in models} for t in tasks}
        return BenchmarkReport(self.seeds, hist, self.config, tasks=self._task_dicts(), cells=self.cells,
                               **self.options())

    # ----------------------------------------------------------- persistence
    def options(self) -> dict[str, Any]:
        return {"ci_method": self.ci_method, "bootstrap_n": self.bootstrap_n, "bootstrap_seed": self.bootstrap_seed,
                "pairwise_method": self.pairwise_method, "epoch_selection": self.epoch_selection,
                "alpha": self.alpha, "ci": self.ci}

    def _task_dicts(self) -> dict[str, dict]:
        return {t: {"metric": i.metric, "direction": i.direction, "family": i.family, "category": i.category}
                for t, i in self.task_info.items()}

    def to_dict(self) -> dict[str, Any]:
        def hist(h):
            if h is None:
                return None
            return {k: [None if (v is None or (isinstance(v, float) and not math.isfinite(v))) else v for v in vals]
                    for k, vals in h.items()}

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
        text = json.dumps(self.to_dict(), indent=indent, allow_nan=False)  # key order = roster order
        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(text + "\n", encoding="utf-8")
        return text

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "BenchmarkReport":
        if d.get("schema") != SCHEMA:
            raise ValueError(f"unsupported benchmark schema {d.get('schema')!r}; this version reads {SCHEMA!r}")
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
        ``tasks``/``models`` are given; the directory is never scanned for cells."""
        from .runs import load_from_runs

        return load_from_runs(cls, runs_dir, tasks=tasks, models=models, params=params,
                              candidate_dir=candidate_dir, **options)
