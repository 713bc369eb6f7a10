"""Grouped bars: mean ± CI of every (task, model), one panel per task (:meth:`BenchmarkReport.plot`).

:func:`plot_bars` draws given cells ``{task: {model: {"mean", "lo", "hi"}}}``; :func:`bars_figure` takes
them from a report's summary under its current ``ci_method``. The forest plot and the dashboard, drawn
from the same cells, are :mod:`.forest` and :mod:`.dashboard`.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.transforms import blended_transform_factory

from ..formatting import display_names
from . import cell_data
from .style import (FS_SMALL, RC, cell_bounds, clamp_to_range, collect_models, error_lengths, grid_shape, model_colors,
                    new_figure, panel_axes, text_width_in)


def plot_bars(
    summary: Mapping[str, Mapping[str, Mapping[str, float]]],
    metric_label: Mapping[str, str] | None = None,
    ranges: Mapping[str, tuple[float, float]] | None = None,
) -> Figure:
    """Mean ± CI per (task, model) as bars, one panel per task.

    ``summary[task][model] = {"mean", "lo", "hi"}``.  Each panel has one bar
    per model (same colour for the same model in every panel, model order =
    first appearance across tasks) with a whisker from ``lo`` to ``hi``; bars
    start at zero.  A model that has no value for a task (NaN mean or absent
    key) keeps its slot, left empty and annotated "missing", so panels stay
    aligned.  Metrics differ between tasks (the y-label comes from
    ``metric_label[task]``): compare bars within a panel, never across panels.
    ``ranges[task] = (lower, upper)`` is the metric's range: the value axis
    stays inside it (no accuracy axis running past 1).  Models are labelled by
    :func:`~netzbench.report.formatting.display_names`.
    """
    if not summary:
        raise ValueError("summary is empty")
    tasks = list(summary)
    models = collect_models(summary)
    if not models:
        raise ValueError("summary has no models")
    colors = model_colors(models)
    metric_label = metric_label or {}
    ranges = ranges or {}
    m = len(models)
    shown = display_names(models)
    name_w = max(text_width_in(shown[n], FS_SMALL) for n in models)
    nrows, ncols = grid_shape(len(tasks))
    pw = max(2.5, 0.3 * m + 1.0)
    ph = 2.1 + 0.72 * name_w
    with mpl.rc_context(RC):
        fig = new_figure(pw * ncols, ph * nrows)
        axs = panel_axes(fig, len(tasks))
        for ax, task in zip(axs, tasks):
            cells = summary[task]
            xs = np.arange(m)
            trans = blended_transform_factory(ax.transData, ax.transAxes)
            for x, model in zip(xs, models):
                mean, lo, hi = cell_bounds(cells, model)
                if not np.isfinite(mean):
                    ax.text(x, 0.04, "missing", rotation=90, ha="center", va="bottom", transform=trans,
                            fontsize=FS_SMALL, color="#666666", style="italic", gid="missing")
                    continue
                ax.bar(x, mean, width=0.72, color=colors[model], edgecolor="black", linewidth=0.6)
                err = error_lengths(mean, lo, hi)
                if err is not None:
                    ax.errorbar(x, mean, yerr=[[err[0]], [err[1]]], fmt="none", ecolor="black",
                                elinewidth=1.0, capsize=3, capthick=1.0)
            ax.axhline(0, color="black", lw=0.8)
            ax.set_xticks(xs, [shown[n] for n in models], rotation=45, ha="right", rotation_mode="anchor")
            ax.set_xlim(-0.6, m - 0.4)
            ax.set_title(str(task))
            ax.set_ylabel(metric_label.get(task, ""))
            ax.tick_params(axis="x", length=0)
            clamp_to_range(ax, "y", ranges.get(task))
    return fig


def bars_figure(report) -> Figure:
    """Grouped bars of ``report``: one panel per task with results."""
    return plot_bars(cell_data.present_cells(report), metric_label=cell_data.metric_labels(report),
                     ranges=cell_data.ranges(report))
