"""The forest plot: per task, every model's mean and confidence interval on the task's own metric axis.

Panels sit in a grid no wider than :data:`.style.MAX_WIDTH_IN` that shares the model rows, so a roster of
ten models over a family's tasks stays a readable page instead of a strip 7,000 px tall; the report
stage draws one per task family (:mod:`netzbench.report.figure_files`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.transforms import blended_transform_factory

from ..formatting import display_names
from . import cell_data
from .style import (BASELINE_MARKER, CANDIDATE_COLOR, FS, FS_SMALL, MAX_WIDTH_IN, RC, best_indices, cell_bounds,
                    clamp_to_range, clip_interval, collect_models, colors_for, mark_candidate_label, new_figure,
                    text_width_in)

ROW_IN = 0.17  # height of one model's row (in): a 9 pt label and a marker
PANEL_IN = 2.0  # narrowest panel (in): an x axis of three or four ticks


def _rows(models: Sequence[str], baselines: Collection[str]) -> tuple[list[str], int]:
    """The models under test, then the baselines (each group in the given order); the number under test."""
    tested = [m for m in models if m not in baselines]
    return tested + [m for m in models if m in baselines], len(tested)


def plot_forest(
    summary: Mapping[str, Mapping[str, Mapping[str, float]]],
    metric_label: Mapping[str, str] | None = None,
    direction: Mapping[str, str] | None = None,
    ranges: Mapping[str, tuple[float, float]] | None = None,
    candidate: str | None = None,
    *,
    models: Sequence[str] | None = None,
    color_order: Sequence[str] | None = None,
    baselines: Collection[str] = (),
    title: str | None = None,
) -> Figure:
    """Forest plot: one panel per task, one row per model, point = mean, line = CI.

    ``summary[task][model] = {"mean", "lo", "hi"}``; ``models`` are the rows (default: first appearance),
    the models under test first, then the ``baselines`` (square markers, labels in italics, below a
    dashed rule). Panels fill a grid row by row, at most :data:`.style.MAX_WIDTH_IN` wide; they share the
    model rows, labelled in the first column. Each panel has its own x axis: the task's metric
    (``metric_label[task]``) with its direction (``direction[task]`` in ``{"higher", "lower"}``, default
    ``"higher"``; "↑ better" / "↓ better"). The best model of each task (all tied best) is shaded with a
    larger diamond. Missing cells (NaN mean) are annotated "missing". Colours: :func:`.style.model_colors`
    of ``color_order`` (default ``models``), the same as in every other figure given that order.

    How to read it: overlapping CIs are *not* a test -- use the pairwise figures for significance -- but a
    best model whose CI is far from the others' is a robust winner. ``ranges[task] = (lower, upper)``: the
    metric axis stays inside the metric's range, and so do the drawn intervals (marks at its edge are drawn
    whole). Models are labelled by :func:`~netzbench.report.formatting.display_names`. ``candidate``
    (optional): the user's model, its label in :data:`.style.CANDIDATE_COLOR`, its marks edged in that
    colour and named in the legend below the panels.
    """
    if not summary:
        raise ValueError("summary is empty")
    tasks = list(summary)
    rows, n_tested = _rows(list(models) if models is not None else collect_models(summary), set(baselines))
    if not rows:
        raise ValueError("summary has no models")
    colors = colors_for(rows, color_order or rows)
    metric_label, direction, ranges = metric_label or {}, direction or {}, ranges or {}
    m = len(rows)
    shown = display_names(rows)
    if candidate not in rows:
        candidate = None
    name_w = max(text_width_in(shown[n], FS_SMALL, "bold") for n in rows) + 0.15
    pw = max(PANEL_IN, max(text_width_in(str(t), FS + 0.5) for t in tasks) + 0.2)
    ncols = max(1, min(len(tasks), int((MAX_WIDTH_IN - name_w) // pw)))
    nrows = math.ceil(len(tasks) / ncols)
    row_h = ROW_IN * m + 0.85  # + title, x ticks and x label
    with mpl.rc_context(RC):
        fig = new_figure(name_w + pw * ncols, row_h * nrows + 0.35 + (0.35 if title else 0.0))
        # constrained layout puts the first column's labels in its margin: equal ratios, equal panels
        grid = fig.subplots(nrows, ncols, squeeze=False, sharey=True)
        axs = grid.ravel().tolist()
        for extra in axs[len(tasks):]:
            fig.delaxes(extra)
        for ax, task in zip(axs, tasks):
            d = direction.get(task, "higher")
            vals = [cell_bounds(summary[task], mm) for mm in rows]
            best = best_indices([v[0] for v in vals], d, task)
            _draw_rows(ax, rows, vals, best, colors, candidate, n_tested, ranges.get(task))
            ax.set_title(str(task), loc="left")
            arrow = "↑ better" if d == "higher" else "↓ better"
            ax.set_xlabel(" ".join(x for x in (metric_label.get(task, ""), f"({arrow})") if x), fontsize=FS_SMALL)
        first = grid[0, 0]
        first.set_yticks(np.arange(m), [shown[n] for n in rows])
        first.set_ylim(m - 0.5, -0.5)
        for ax in grid[:, 0]:
            for i, lab in enumerate(ax.get_yticklabels()):
                if i >= n_tested:
                    lab.set_fontstyle("italic")
                if rows[i] == candidate:
                    mark_candidate_label(lab)
        _legend(fig, n_tested < m, candidate and shown[candidate])
        if title:
            fig.suptitle(title, fontsize=FS + 1, weight="bold")
    return fig


def _draw_rows(ax, rows, vals, best, colors, candidate, n_tested, bounds) -> None:
    """One panel: a row per model (mean marker, CI line), the best shaded, the baselines under a rule."""
    trans = blended_transform_factory(ax.transAxes, ax.transData)
    for i, (model, (mean, lo, hi)) in enumerate(zip(rows, vals)):
        if not np.isfinite(mean):
            ax.text(0.5, i, "missing", transform=trans, ha="center", va="center", fontsize=FS_SMALL,
                    color="#666666", style="italic", gid="missing")
            continue
        if i in best:
            ax.axhspan(i - 0.45, i + 0.45, color="#000000", alpha=0.07, lw=0, gid="best")
        # not clipped by the axes (a mark at the range's edge stays whole), so cut to the range here
        lo, hi = clip_interval(lo, hi, bounds)
        if np.isfinite(lo) and np.isfinite(hi):
            ax.add_line(Line2D([lo, hi], [i, i], color=colors[model], lw=2.0, solid_capstyle="butt",
                               clip_on=False, gid="ci"))
        cand = model == candidate
        marker = "D" if i in best else (BASELINE_MARKER if i >= n_tested else "o")
        ax.add_line(Line2D([mean], [i], marker=marker, markersize=7.0 if i in best else 5.5,
                           color=colors[model], markeredgecolor=CANDIDATE_COLOR if cand else "black",
                           markeredgewidth=1.5 if cand else 0.7, linestyle="none", zorder=3, clip_on=False,
                           gid="candidate-mean" if cand else "mean"))
    if 0 < n_tested < len(rows):
        ax.axhline(n_tested - 0.5, color="#999999", lw=0.6, ls=(0, (3, 2)), gid="baseline-rule")
    ax.autoscale_view(scaley=False)
    ax.margins(x=0.08)
    clamp_to_range(ax, "x", bounds)
    ax.spines["left"].set_visible(False)
    ax.tick_params(axis="y", length=0)
    ax.grid(axis="x", color="#E5E5E5", lw=0.6)
    ax.set_axisbelow(True)


def _legend(fig: Figure, has_baselines: bool, candidate: str | None) -> None:
    """What the marks mean, below the panels (the colours are named by the row labels)."""
    grey = {"color": "#BBBBBB", "markeredgecolor": "black", "markeredgewidth": 0.7, "linestyle": "none"}
    handles = [Line2D([], [], marker="o", markersize=5.5, label="mean (line: CI)", **grey),
               Line2D([], [], marker="D", markersize=7.0, label="best in task (shaded)", **grey)]
    if has_baselines:
        handles.append(Line2D([], [], marker=BASELINE_MARKER, markersize=5.5, label="baseline (italic)", **grey))
    if candidate:
        handles.append(Line2D([], [], marker="o", markersize=5.5, color="#BBBBBB", markeredgecolor=CANDIDATE_COLOR,
                              markeredgewidth=1.5, linestyle="none", label=f"candidate: {candidate}"))
    legend = fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), frameon=False)
    if candidate:
        mark_candidate_label(legend.get_texts()[-1])


def forest_figure(report, candidate: str | None = None, family: str | None = None) -> Figure:
    """Forest plot of ``report``'s tasks with results (of ``family``; None: every task) and the models that
    serve them, best (and ``candidate``) highlighted, colours of the whole roster's order."""
    tasks, models, name = cell_data.family_selection(report, family)
    what = f"{name.capitalize()}: " if name else ""
    return plot_forest(cell_data.present_cells(report, tasks), metric_label=cell_data.metric_labels(report),
                       direction=cell_data.directions(report), ranges=cell_data.ranges(report), candidate=candidate,
                       models=models, color_order=report.models, baselines=report.baseline_models(),
                       title=f"{what}mean ± {cell_data.interval_text(report)} over seeds")
