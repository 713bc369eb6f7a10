"""``BenchmarkReport``: the metric tensor X[task, model, seed] and every statistic on it.

The report holds raw per-epoch histories (never a pre-reduced number), so any statistic can be recomputed
under another epoch selection, CI method or pairwise test without retraining. ``epoch_selection``,
``ci_method`` and ``pairwise_method`` are attributes of the report (validated when set); every table, test,
plot and exporter reads them through :meth:`final_metrics`, :meth:`summary` and :meth:`pairwise`, so setting
one of them once switches all outputs together.

Data model
----------
``histories[task][model]`` is a list, one entry per seed *in seed order*, of ``{series_name: [value per
evaluated epoch]}``; a seed that produced no history (failed, incompatible, unavailable) is ``None`` (series:
:mod:`.series`). ``tasks[task] = {"metric", "direction", "family", "category"}`` names the headline series
(filled from the run records by :meth:`from_runs`, inferred for hand-built histories); ``cells[task][model]``
holds the run records' facts that are not histories (:mod:`.availability`, :mod:`.cost`).

This class holds the data, the options and the persistence; each statistic is a plain function of
:mod:`.selection` (epoch selection, X), :mod:`.within_task`, :mod:`.across_task`, :mod:`.availability` or
:mod:`.cost` that one method calls (exporters: :mod:`.latex`, :mod:`.figures`); numpy and
:mod:`netzbench.stats`, never torch. The report stage shares each statistic's result across its outputs
(:mod:`.memo`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import stats
from ..stats._common import check_open_unit
from . import across_task, availability, comparisons, cost, degenerate, latex, persistence, selection, within_task
from . import baselines as baseline_analysis
from .memo import share_statistics
from .options import one_of as _one_of, option as _option
from .persistence import SCHEMA
from .selection import EPOCH_SELECTIONS
from .series import TaskInfo, task_metrics, task_info_of
from .within_task import POWER_EFFECTS

__all__ = ["BenchmarkReport", "SCHEMA"]


def _figures():
    """The figures package, imported on the first plot: the statistics do not need matplotlib."""
    from . import figures
    return figures


@share_statistics
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
    posthoc_method : {"nemenyi", "wilcoxon_holm"}
        Post-hoc test across tasks of :meth:`posthoc`, where the CD diagram's cliques come from
        (``report.posthoc`` in params.yaml).
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
        per-seed status / seconds / epochs, ``baseline_kind``), as built by :meth:`from_runs`.
    baseline_mode : {"separate", "include"}
        Whether the across-task analysis ranks the baselines too (``report.baselines``;
        :mod:`.baselines`).
    """

    def __init__(self, seeds, histories: Mapping[str, Mapping[str, list]], config: Mapping | None = None,
                 ci_method: str = "t", bootstrap_n: int = 10_000, bootstrap_seed: int = 0,
                 pairwise_method: str = "t", epoch_selection: str = "final", *, alpha: float = 0.05,
                 ci: float = 0.95, equivalence_margin: float | Mapping[str, float] | None = None,
                 rank_tasks: Sequence[str] | None = None, tasks: Mapping[str, Mapping] | None = None,
                 cells: Mapping[str, Mapping[str, Mapping]] | None = None, posthoc_method: str = "nemenyi",
                 baseline_mode: str = "separate"):
        self.seeds = [int(s) for s in seeds]
        if len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"seeds must be distinct, got {self.seeds}")
        self.histories: dict[str, dict[str, list]] = {t: {m: list(runs) for m, runs in bm.items()}
                                                      for t, bm in histories.items()}
        self.config = dict(config or {})
        self.ci_method = ci_method
        self.pairwise_method = pairwise_method
        self.posthoc_method = posthoc_method
        self.baseline_mode = baseline_mode
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
            self.task_info[task] = task_info_of(task, (tasks or {}).get(task),
                                                [h for runs in by_model.values() for h in runs])

    # ------------------------------------------------------------- options
    ci_method = _option("ci_method", _one_of(stats.INTERVAL_METHODS))
    pairwise_method = _option("pairwise_method", _one_of(stats.PAIRED_METHODS))
    posthoc_method = _option("posthoc_method", _one_of(stats.POSTHOC_METHODS))
    baseline_mode = _option("baseline_mode", _one_of(baseline_analysis.BASELINE_MODES))
    epoch_selection = _option("epoch_selection", _one_of(EPOCH_SELECTIONS))
    alpha = _option("alpha", check_open_unit)
    ci = _option("ci", check_open_unit)

    def options(self) -> dict[str, Any]:
        """The analysis options (what :meth:`to_json` stores besides the data)."""
        margin = self.equivalence_margin
        if isinstance(margin, Mapping):
            margin = dict(margin)
        return {"ci_method": self.ci_method, "bootstrap_n": self.bootstrap_n, "bootstrap_seed": self.bootstrap_seed,
                "pairwise_method": self.pairwise_method, "epoch_selection": self.epoch_selection,
                "alpha": self.alpha, "ci": self.ci, "equivalence_margin": margin, "rank_tasks": self.rank_tasks,
                "posthoc_method": self.posthoc_method, "baseline_mode": self.baseline_mode}

    # -------------------------------------------------------------- basics
    @property
    def tasks(self) -> list[str]:
        return list(self.histories)

    @property
    def models(self) -> list[str]:
        return list(dict.fromkeys(m for by_model in self.histories.values() for m in by_model))  # first seen

    def baseline_models(self) -> dict[str, str]:
        """``{model: kind}`` of the baselines (the run records' ``baseline_kind``; :mod:`.baselines`)."""
        return baseline_analysis.baseline_models(self.cells)

    @property
    def ranked_models(self) -> list[str]:
        """The models the across-task analysis ranks by default: all, or (``baseline_mode = "separate"``)
        the models under test."""
        return baseline_analysis.ranked_models(self.models, self.baseline_models(), self.baseline_mode)

    def compared_metrics(self) -> dict:
        """:meth:`final_metrics` of :attr:`ranked_models`: under ``"separate"`` baselines stay out of the pairwise
        tests and their Holm families, power and equivalence (:meth:`baseline_comparison` tests them)."""
        keep = set(self.ranked_models)
        return {t: {m: v for m, v in bm.items() if m in keep} for t, bm in self.final_metrics().items()}

    def _directions(self) -> dict[str, str]:
        return {t: i.direction for t, i in self.task_info.items()}

    def _rank_scope(self) -> list[str] | None:  # rank_tasks less the tasks no model informs (.informative)
        from .informative import rank_scope
        return rank_scope(self)

    def cell_status(self, task: str, model: str) -> str:
        """Status of a cell: the run record's (``ok``/``partial``/``failed``/``incompatible``/
        ``unavailable``/``missing``) when known, else derived from the histories (``"no cell"``
        when the model has no entry for the task at all)."""
        return availability.cell_status(self.cells, self.histories, task, model)

    def cell_reason(self, task: str, model: str) -> str:
        """Why a cell has no (or incomplete) results, from the run record facts."""
        return availability.cell_reason(self.cells, task, model)

    # ----------------------------------------------------- epoch selection
    def epoch_selection_support(self) -> list[dict]:
        """Per task: can ``best_val`` be used, on which validation series, and if not, why
        (rows of :func:`.selection.epoch_selection_support`).  ``final`` is always possible."""
        return selection.epoch_selection_support(self.histories, self.task_info, self.cells)

    def selected_epochs(self, table: bool = False):
        """The epoch used for every (task, model, seed) under the current selection (the audit).

        Default: ``{task: {model: [index or None per seed]}}`` (index into the
        history lists; None where the seed has no value).  ``table=True``
        returns rows ``{task, model, seed, index, epoch, value, validation}``
        with the evaluated epoch number (from the run record; ``index + 1``
        for hand-built histories), the reported value and the validation value
        at that epoch.
        """
        idx = selection.selected_indices(self.histories, self.task_info, self.epoch_selection, self.cells)
        if not table:
            return idx
        return selection.selected_epochs_table(idx, self.histories, self.task_info, self.cells, self.seeds,
                                               self.epoch_selection)

    def final_metrics(self) -> dict[str, dict[str, np.ndarray]]:
        """X[task][model] -> float array over seeds (seed order; NaN where a seed has no value)."""
        return selection.final_metrics(self.histories, self.task_info, self.selected_epochs())

    def learning_curves(self, series: str | None = None, tasks: Sequence[str] | None = None
                        ) -> dict[str, dict[str, dict[str, list[float]]]]:
        """Per (task, model) and evaluated epoch: mean over seeds and t-CI at the report's ``ci``
        (``{task: {model: {"epochs", "mean", "lo", "hi", "n"}}}``); ``series`` defaults to the
        headline, ``"val"`` selects its validation series.  See :func:`.selection.learning_curves`."""
        return selection.learning_curves(self.histories, self.task_info, self.cells, self.seeds, ci=self.ci,
                                         series=series, tasks=tasks)

    # ----------------------------------------------------------- per cell
    def summary(self, ci_method: str | None = None) -> list[dict]:
        """One row per (task, model): mean, std, sem, n_seeds and the CI of ``ci_method`` (default the
        report's; bootstrap with ``bootstrap_n`` resamples seeded by ``bootstrap_seed``), and the cell
        status.  Columns and edge cases: :func:`.within_task.summary`."""
        return within_task.summary(self.final_metrics(), task_metrics(self.task_info),
                                   self._directions(), self.cell_status, ci=self.ci,
                                   method=ci_method or self.ci_method, n_resamples=self.bootstrap_n,
                                   seed=self.bootstrap_seed)

    # ------------------------------------------------- within a task: pairs
    def pairwise(self, method: str | None = None) -> list[dict]:
        """Every unordered model pair per task: paired test (``method``, default ``pairwise_method``) on
        seed-aligned values, Holm within the task, significance at ``alpha`` and the ``better`` model
        under the task's metric direction.  Columns and edge cases: :func:`.within_task.pairwise`."""
        return within_task.pairwise(self.compared_metrics(), self._directions(), self.seeds,
                                    method=method or self.pairwise_method, alpha=self.alpha)

    def pairwise_matrix(self, task: str, method: str | None = None) -> tuple[list[str], np.ndarray, np.ndarray]:
        """``(models, p_holm[k, k], mean_diff[k, k])`` of one task (symmetric p, antisymmetric Δμ)."""
        return within_task.pairwise_matrix(self.pairwise(method), task)

    def power(self, power: float = 0.8, effects: Sequence[float] = POWER_EFFECTS) -> list[dict]:
        """Power of the paired t test at ``alpha`` for every comparison: MDE, observed power,
        detectability and the seeds needed per effect in ``effects`` (whatever ``pairwise_method``
        is).  Columns and formulas: :func:`.within_task.power_analysis`."""
        return within_task.power_analysis(self.compared_metrics(), alpha=self.alpha, power=power, effects=effects)

    def wilcoxon_floor(self) -> list[dict]:
        """The smallest p-value the exact Wilcoxon signed-rank test can give per task, raw and after
        Holm, and whether it is below ``alpha`` (formula: :func:`.within_task.wilcoxon_floor`)."""
        return within_task.wilcoxon_floor(self.compared_metrics(), alpha=self.alpha)

    def equivalence(self, margin: float | Mapping[str, float] | None = None) -> list[dict]:
        """TOST equivalence of every pair within ``±margin`` (a number or ``{task: margin}``; default
        ``equivalence_margin``), Holm within the task, crossed with the Holm-adjusted difference test
        of the current ``pairwise_method`` into one verdict per comparison (``different``,
        ``equivalent``, ``trivial`` or ``undetermined``).  See :func:`.within_task.equivalence`."""
        return within_task.equivalence(self.compared_metrics(), self.pairwise(),
                                       self.equivalence_margin if margin is None else margin, alpha=self.alpha)

    # ------------------------------------------------------- across tasks
    def present_tasks(self) -> list[str]:
        """Tasks where at least one model has a value (the others are unavailable and leave N)."""
        return across_task.present_tasks(self.final_metrics())

    def rank_table(self, models: Sequence[str] | None = None
                   ) -> tuple[list[str], list[str], np.ndarray, dict[str, str]]:
        """Ranks (1 = best, metric direction applied per task, ties averaged) of the complete models.

        Over the tasks present (:meth:`present_tasks`, within ``rank_tasks``), a
        model (of ``models``, default :attr:`ranked_models`) enters the table only if it has a
        value on every one of them; the others are returned in ``excluded``
        with the reason (status per task).  Returns ``(tasks, models,
        ranks[N, k], excluded)``; the score of a cell is its seed mean.
        """
        return across_task.rank_table(self.final_metrics(), self._directions(), self.cell_status,
                                      models=list(models) if models is not None else self.ranked_models,
                                      rank_tasks=self._rank_scope())

    def mean_ranks(self, aggregation: str = "uniform", *, groups=None, weights=None,
                   models: Sequence[str] | None = None) -> dict[str, float]:
        """Mean rank per complete model under an aggregation: ``uniform`` (the only one with a
        Friedman/Nemenyi null), ``reliability`` (tasks weighted by 1 / mean CI half-width under the
        current ``ci_method``), ``hierarchical`` (within ``groups``, default the research category,
        then across) or ``custom`` (``weights``).  See :func:`.across_task.mean_ranks`."""
        half_widths = None
        if aggregation == "reliability":
            half_widths = {(r["task"], r["model"]): r["half_width"] for r in self.summary()}
        return across_task.mean_ranks(self.rank_table(models), aggregation, half_widths=half_widths,
                                      groups=groups, weights=weights,
                                      categories={t: i.category for t, i in self.task_info.items()})

    def friedman(self, models: Sequence[str] | None = None) -> dict[str, Any]:
        """Friedman test, Iman–Davenport F, Nemenyi CD, cliques, max gap over the complete models
        (keys and edge cases: :func:`.across_task.friedman`)."""
        return across_task.friedman(self.rank_table(models), alpha=self.alpha)

    def score_table(self, models: Sequence[str] | None = None
                    ) -> tuple[list[str], list[str], np.ndarray, dict[str, str]]:
        """The seed means behind :meth:`rank_table` (same tasks, models, exclusions), negated on
        lower-is-better tasks so that larger is better everywhere: ``(tasks, models, scores[N, k], excluded)``."""
        return across_task.score_table(self.final_metrics(), self._directions(), self.cell_status,
                                       models=list(models) if models is not None else self.ranked_models,
                                       rank_tasks=self._rank_scope())

    def posthoc(self, method: str | None = None, models: Sequence[str] | None = None) -> list[dict]:
        """Post-hoc test across tasks, one row per pair of ranked models (``model_a, model_b, p_raw, p_holm,
        significant``, ...): ``nemenyi`` (mean ranks, the CD) or ``wilcoxon_holm`` (signed-rank tests on
        the per-task scores, Holm); default ``posthoc_method``.  Definitions: :mod:`.comparisons`."""
        return comparisons.posthoc(self.score_table(models), self.rank_table(models),
                                   method=method or self.posthoc_method, alpha=self.alpha)

    def bayesian(self, rope: float | Mapping[str, float] | None = None, *, rho: float | Mapping | None = None,
                 n_samples: int = 50_000, seed: int | None = None, models: Sequence[str] | None = None) -> dict:
        """Per pair ``p_a_better, p_rope, p_b_better``: Bayesian signed-rank test over tasks (``across_tasks``) and
        correlated t-test over seeds per task (``per_task``; ``rho`` default: from each task's split design);
        ``rope`` defaults to ``equivalence_margin``, ``seed`` to ``bootstrap_seed``.  See :mod:`.comparisons`."""
        final = {t: {m: v for m, v in bm.items() if models is None or m in models}
                 for t, bm in self.final_metrics().items()}
        return comparisons.bayesian(final, self._directions(), self.score_table(models), rho=rho, cells=self.cells,
                                    margin=self.equivalence_margin if rope is None else rope, n_samples=n_samples,
                                    seed=self.bootstrap_seed if seed is None else seed)

    def rank_stability(self, n_boot: int = 2000, seed: int | None = None,
                       models: Sequence[str] | None = None) -> dict[str, Any]:
        """Bootstrap-over-tasks and leave-one-task-out stability of the mean-rank order
        (:func:`.across_task.rank_stability`); ``seed`` defaults to ``bootstrap_seed``, so the
        result is reproducible."""
        return across_task.rank_stability(self.rank_table(models), n_boot=n_boot, alpha=self.alpha,
                                          seed=self.bootstrap_seed if seed is None else seed)

    def baseline_comparison(self) -> list[dict]:
        """Per task, the best GNN against the best baseline: one paired test (``pairwise_method``) at
        ``alpha``, and whether the task rewards structure (:func:`.baselines.comparison`)."""
        return baseline_analysis.comparison(self.final_metrics(), self._directions(), self.baseline_models(),
                                            method=self.pairwise_method, alpha=self.alpha)

    # ------------------------------------------------------------ candidate
    def candidate_block(self, name: str | None, roster: list[str]) -> dict[str, Any]:
        """Wins/losses/ties (Holm-significant paired differences, current ``pairwise_method``) of
        ``name`` against the roster over the tasks where it has results, and its mean rank among the
        roster models complete on those tasks (:func:`.across_task.candidate_block`)."""
        if name is None:
            return across_task.empty_candidate_block()
        return across_task.candidate_block(name, roster, self.final_metrics(), self.pairwise(), self._directions(),
                                           self.cell_status, rank_tasks=self._rank_scope())

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
        return availability.missing(self.cells, self.histories)

    def tasks_without_results(self) -> dict[str, str]:
        """Tasks on which no model has any value (they leave N), with the reason(s) from the run records."""
        return availability.tasks_without_results(self.cells, self.histories, self.present_tasks())

    def unavailable_tasks(self) -> dict[str, str]:
        """The tasks without results whose data could not be obtained (a cell with status ``unavailable``)."""
        return availability.unavailable_tasks(self.cells, self.histories, self.tasks_without_results())

    def baselines(self) -> dict[str, dict]:
        """Per task, a constant predictor's test score in the headline metric (:func:`.degenerate.baselines`)."""
        return degenerate.baselines(self.cells, task_metrics(self.task_info))

    def collapsed(self) -> list[dict]:
        """Cells whose test predictions were constant in most seeds (:func:`.degenerate.collapsed`)."""
        return degenerate.collapsed(self.histories, self.selected_epochs(), self.task_info)

    def compute_cost(self) -> dict[str, Any]:
        """Training time from the run records: summed per seed (``total_seconds``, ``by_task``,
        ``by_model``, ``by_cell``, ``n_timed``) and elapsed (``wall_seconds`` and its splits,
        ``span_seconds``, ``parallelism``).  Definitions: :func:`.cost.compute_cost`."""
        return cost.compute_cost(self.cells)

    # ------------------------------------------------------------ exporters
    def to_latex(self, digits: int = 3, caption: str | None = None, label: str = "tab:netzbench-summary") -> str:
        """Booktabs table: one row per task, mean ± CI half-width per model, best per task in bold
        (:func:`netzbench.report.latex.summary_table`)."""
        return latex.summary_table(self, digits=digits, caption=caption, label=label)

    def pairwise_to_latex(self, method: str | None = None, digits: int = 3, caption: str | None = None,
                          label: str = "tab:netzbench-pairwise") -> str:
        """Booktabs table of every comparison: Δμ, p_raw, p_Holm and a significance mark.

        See :func:`netzbench.report.latex.pairwise_table`.
        """
        return latex.pairwise_table(self, method=method, digits=digits, caption=caption, label=label)

    # ---------------------------------------------------------------- plots
    def plot(self):
        """Grouped bars: mean ± CI (current ``ci_method``) per model, one panel per task with results."""
        return _figures().cells.bars_figure(self)

    def plot_forest(self, candidate: str | None = None, family: str | None = None):
        """Forest plot: one panel per task with results (of ``family``, e.g. ``"link_pred"``; default all), a
        row per model, dot = mean, line = CI; best highlighted, the ``candidate`` (if given) marked."""
        return _figures().forest.forest_figure(self, candidate, family)

    def plot_pairwise(self, layout: str = "matrix", task: str | None = None, method: str | None = None,
                      family: str | None = None):
        """Pairwise comparisons of the current (or given) ``method``, Holm-adjusted.

        ``layout="matrix"``: −log10 p_Holm below the diagonal, signed Δμ above (one panel per task of
        ``family``, default all, or only ``task``); ``layout="list"``: one line per comparison, by task.
        """
        return _figures().pairwise.pairwise_figure(self, layout, task, method, family)

    def plot_critical_difference(self, aggregation: str = "uniform", *, models: Sequence[str] | None = None,
                                 groups=None, weights=None, title: str | None = None, candidate: str | None = None):
        """Demšar CD diagram over the complete models (the ``candidate`` model, if given, marked).

        ``uniform``: mean ranks, Friedman result, cliques of ``posthoc_method`` (Nemenyi: with the CD
        bar; Wilcoxon–Holm: without).  Other aggregations: the weighted mean ranks drawn as
        a diagnostic, without CD or cliques (no null distribution exists).
        Ranks are direction-aware per task, so lower-is-better metrics (MAE)
        share the diagram with accuracy and AUC.
        """
        return _figures().ranks.critical_difference_figure(self, aggregation, models=models, groups=groups,
                                                           weights=weights, title=title, candidate=candidate)

    def plot_mean_ranks(self, aggregation: str = "uniform", **kwargs):
        """Bar chart of mean ranks; the CD bracket only for the uniform aggregation."""
        return _figures().ranks.mean_ranks_figure(self, aggregation, **kwargs)

    def plot_learning_curves(self, series: str | None = None, tasks: Sequence[str] | None = None):
        """Mean ± t-CI per evaluated epoch, one panel per task, one line per model.

        The epochs used by the current ``epoch_selection`` are marked on each
        curve (▼ at the median selected epoch of the model's seeds).
        """
        return _figures().curves.learning_curves_figure(self, series, tasks)

    def plot_dashboard(self, title: str | None = None, candidate: str | None = None, family: str | None = None):
        """Dashboard (after the paper's Figure 2): a panel of bars with CIs (current ``ci_method``) per task (of
        ``family``; default all), grouped by research category; ``candidate`` (if given) marked."""
        return _figures().dashboard.dashboard_figure(self, title, candidate, family)

    # ---------------------------------------------------------- persistence
    def _task_dicts(self) -> dict[str, dict]:
        return {t: {"metric": i.metric, "direction": i.direction, "family": i.family, "category": i.category}
                for t, i in self.task_info.items()}

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form: schema, seeds, config, options, task metadata, cell facts, raw histories.

        Non-finite history values become ``null`` (read back as NaN), every
        value a float, so ``from_dict(to_dict())`` reproduces every statistic.
        """
        return persistence.report_dict(self.seeds, self.config, self.options(), self._task_dicts(), self.cells,
                                       self.histories)

    def to_json(self, path: str | Path | None = None, indent: int | None = None) -> str:
        """Serialise (:meth:`to_dict`) to JSON text, optionally writing it to ``path``.

        ``from_json(to_json()).to_json() == to_json()`` (exact round trip).
        """
        return persistence.dumps(self.to_dict(), path, indent)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "BenchmarkReport":
        """Inverse of :meth:`to_dict`; an unknown ``schema`` raises ``ValueError`` naming both versions."""
        persistence.check_schema(d)
        return cls(d["seeds"], d["histories"], d.get("config"), tasks=d.get("tasks"), cells=d.get("cells"),
                   **d.get("options", {}))

    @classmethod
    def from_json(cls, source: str | Path) -> "BenchmarkReport":
        """Read a report written by :meth:`to_json` or the report stage (:func:`.persistence.read`)."""
        return cls.from_dict(persistence.read(source))

    @classmethod
    def from_runs(cls, runs_dir: str | Path = "metrics/runs", *, tasks: list[str] | None = None,
                  models: list[str] | None = None, params: "Settings | str | Path | None" = "params.yaml",
                  candidate_dir: str | Path | None = None, **options) -> "BenchmarkReport":
        """Build a report from run records. The roster comes from ``params`` (Settings, or a params file's path)
        unless ``tasks``/``models`` are given; the directory is never scanned for cells.
        Report options default to its ``report`` block and may be overridden."""
        from .runs import load_from_runs

        return load_from_runs(cls, runs_dir, tasks=tasks, models=models, params=params,
                              candidate_dir=candidate_dir, **options)
