"""Learning curves: mean ± t-CI per evaluated epoch, and the epochs the selection used; tuning-budget curves.

:func:`plot_learning_curves` draws given curves; :func:`learning_curves_figure`
takes them from a report (:mod:`netzbench.report.selection`) and marks the
selected epochs; :func:`tuning_curves_figure` draws the expected best validation
score against the number of search trials (:func:`netzbench.report.questions.tuning_curves`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from ..formatting import display_names
from ..series import curve_series, metric_label, metric_range
from .style import (FS_SMALL, RC, clamp_to_range, collect_models, colors_for, grid_shape, model_colors, new_figure,
                     panel_axes, text_width_in)


def plot_learning_curves(
    curves: Mapping[str, Mapping[str, Mapping[str, Sequence[float]]]],
    ylabel: Mapping[str, str] | None = None,
    color_order: Sequence[str] | None = None,
    ranges: Mapping[str, tuple[float, float]] | None = None,
    xlabel: str = "epoch",
) -> Figure:
    """Learning curves: mean over seeds per epoch with a shaded CI band.

    ``curves[task][model] = {"epochs", "mean", "lo", "hi"}`` (``lo``/``hi``
    optional; NaN entries leave gaps).  One panel per task, one line per model
    (colours consistent with the other figures), band = per-epoch confidence
    interval across seeds; a shared legend sits below the panels.  Panels have
    independent y-axes (``ylabel[task]``): compare curves within a panel.
    ``color_order`` fixes the model order of the colours (and of the legend).
    ``ranges[task] = (lower, upper)``: the y axis stays inside the series' range.
    Models are labelled by :func:`~netzbench.report.formatting.display_names`; ``xlabel`` names the x axis
    (the ``"epochs"`` entries are its positions).
    """
    if not curves:
        raise ValueError("curves is empty")
    tasks = list(curves)
    found = collect_models(curves)
    models = [m for m in (color_order or []) if m in found] + [m for m in found if m not in (color_order or [])]
    colors = colors_for(models, color_order)
    shown = display_names(models)
    ylabel = ylabel or {}
    ranges = ranges or {}
    nrows, ncols = grid_shape(len(tasks))
    with mpl.rc_context(RC):
        fig_w = 3.3 * ncols
        entry_w = max(text_width_in(shown[m], FS_SMALL) for m in models) + 0.75
        legend_cols = max(1, min(len(models), int(fig_w // entry_w)))
        legend_rows = math.ceil(len(models) / legend_cols)
        fig = new_figure(fig_w, 2.5 * nrows + 0.21 * legend_rows + 0.25)
        axs = panel_axes(fig, len(tasks))
        for ax, task in zip(axs, tasks):
            for model in models:
                c = curves[task].get(model)
                if not c:
                    continue
                ep = np.asarray(c["epochs"], dtype=float)
                mean = np.asarray(c["mean"], dtype=float)
                ax.plot(ep, mean, color=colors[model], lw=1.6, label=shown[model])
                if c.get("lo") is not None and c.get("hi") is not None:
                    lo = np.asarray(c["lo"], dtype=float)
                    hi = np.asarray(c["hi"], dtype=float)
                    ax.fill_between(ep, lo, hi, color=colors[model], alpha=0.2, lw=0,
                                    where=np.isfinite(lo) & np.isfinite(hi))
            ax.set_title(str(task))
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel.get(task, ""))
            ax.grid(color="#EEEEEE", lw=0.6)
            ax.set_axisbelow(True)
            clamp_to_range(ax, "y", ranges.get(task))
        handles = [Line2D([], [], color=colors[m], lw=2.0, label=shown[m]) for m in models]
        fig.legend(handles=handles, loc="outside lower center", ncols=legend_cols, frameon=False)
    return fig


def learning_curves_figure(report, series: str | None = None, tasks: Sequence[str] | None = None) -> Figure:
    """Learning curves of ``report``: every task with a history (or ``tasks``), one line per model.

    On the headline series the epochs used by the current ``epoch_selection``
    are marked on each curve (▼ at the median selected epoch of the model's
    seeds).
    """
    tasks = list(tasks) if tasks is not None else [t for t in report.tasks
                                                   if any(h for r in report.histories[t].values() for h in r)]
    curves = report.learning_curves(series, tasks)
    curves = {t: c for t, c in curves.items() if c}
    if not curves:
        raise ValueError("no history to plot")
    ylabel = {t: metric_label(series or curve_series(report.task_info[t].metric)) for t in curves}
    # the validation series measures the headline's metric, so it shares its range
    ranges = {t: metric_range(report.task_info[t].metric if series in (None, "val") else series) for t in curves}
    fig = plot_learning_curves(curves, ylabel=ylabel, color_order=report.models, ranges=ranges)
    if series is None:
        audit = report.selected_epochs(table=True)
        colors = model_colors(report.models)
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
            ax.set_title(f"{task}  (▼ {report.epoch_selection})")
    return fig


def tuning_curves_figure(tuning: Mapping[str, Mapping], models: Sequence[str] | None = None,
                         metrics: Mapping[str, str] | None = None) -> Figure:
    """Expected best validation score against the search budget, per task with a search and model.

    ``tuning[task] = {"budgets", "direction", "curves": {model: {"mean", "sd"}}, "crossing"}`` (what
    :func:`netzbench.report.questions.tuning_curves` returns); the band is ± one standard deviation of the
    best of ``n`` trials (Dodge et al. 2019). A model whose curve ends on top ranks first at the full
    budget; curves that cross mean a ranking that depends on the budget (named in the panel's title).
    """
    curves = {t: {m: {"epochs": v["budgets"], "mean": c["mean"],
                      "lo": [a - b for a, b in zip(c["mean"], c["sd"])],
                      "hi": [a + b for a, b in zip(c["mean"], c["sd"])]}
                  for m, c in v["curves"].items()} for t, v in tuning.items() if v.get("curves")}
    if not curves:
        raise ValueError("no search trials to plot")
    metrics = metrics or {}
    ylabel = {t: "expected best " + metric_label(metrics[t]).replace("test ", "validation ") if t in metrics
              else "expected best validation score" for t in curves}
    ranges = {t: metric_range(metrics[t]) for t in curves if t in metrics}
    fig = plot_learning_curves(curves, ylabel=ylabel, color_order=models, ranges=ranges,
                               xlabel="trials (search budget)")
    for ax, task in zip(fig.axes, curves):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # budgets are whole trials
        for line in ax.lines:
            line.set_marker("o")
            line.set_markersize(3)
        n = len(tuning[task].get("crossing") or [])
        ax.set_title(f"{task}  ({n} crossing pair{'s' if n != 1 else ''})" if n else str(task))
    return fig
