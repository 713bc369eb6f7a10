"""Per-cell figures: mean ± CI of every (task, model) as grouped bars, a forest plot, and the
per-category dashboard (the paper's Figure 2).

The ``plot_*`` functions draw given cells ``{task: {model: {"mean", "lo",
"hi"}}}``; :func:`bars_figure`, :func:`forest_figure` and
:func:`dashboard_figure` take them from a report's summary under its current
``ci_method``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.transforms import blended_transform_factory

from ..formatting import display_names
from ..series import metric_label as series_label
from ..within_task import nested_summary
from ..series import metric_range
from .style import (CANDIDATE_COLOR, FS, FS_SMALL, RC, cell_bounds, clamp_to_range, clip_interval, collect_models,
                     error_lengths, grid_shape, mark_candidate_label, model_colors, new_figure, panel_axes,
                     range_spine, text_width_in)

#: hatch of the candidate's bars in the dashboard (the edge already marks the best model)
CANDIDATE_HATCH = "///"


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


def plot_forest(
    summary: Mapping[str, Mapping[str, Mapping[str, float]]],
    metric_label: Mapping[str, str] | None = None,
    direction: Mapping[str, str] | None = None,
    ranges: Mapping[str, tuple[float, float]] | None = None,
    candidate: str | None = None,
) -> Figure:
    """Forest plot: one panel per task, one row per model, point = mean, line = CI.

    ``summary[task][model] = {"mean", "lo", "hi"}``.  Panels are stacked
    vertically; within a panel each model is a row with its mean as a dot and
    its confidence interval as a horizontal line.  The best model of each task
    (highest or lowest mean according to ``direction[task]`` in
    ``{"higher", "lower"}``, default ``"higher"``; all tied best models) is
    highlighted with a shaded row, a larger diamond marker and a bold label.
    The panel title notes the direction ("↑ better" / "↓ better").  Missing
    cells (NaN mean) are annotated "missing".  How to read it: overlapping CIs
    are *not* a test -- use the pairwise figures for significance -- but a
    best model whose CI is far from the others' is a robust winner.
    ``ranges[task] = (lower, upper)``: the metric axis stays inside the
    metric's range, and so do the drawn intervals (marks at its edge are drawn
    whole).  Models are labelled by
    :func:`~netzbench.report.formatting.display_names`.  ``candidate``
    (optional): the user's model, its label in
    :data:`.common.CANDIDATE_COLOR` (bold stays the best model's), its marks
    edged in that colour and ``"candidate: …"`` above the first panel.
    """
    if not summary:
        raise ValueError("summary is empty")
    tasks = list(summary)
    models = collect_models(summary)
    colors = model_colors(models)
    metric_label = metric_label or {}
    direction = direction or {}
    ranges = ranges or {}
    m = len(models)
    shown = display_names(models)
    name_w = max(text_width_in(shown[n], FS_SMALL, "bold") for n in models)
    if candidate not in models:
        candidate = None
    heights = [0.27 * m + 0.95 for _ in tasks]
    with mpl.rc_context(RC):
        fig = new_figure(4.8 + name_w, sum(heights))
        axs = fig.subplots(len(tasks), 1, squeeze=False, gridspec_kw={"height_ratios": heights}).ravel()
        for ax, task in zip(axs, tasks):
            d = direction.get(task, "higher")
            if d not in ("higher", "lower"):
                raise ValueError(f"direction[{task!r}] must be 'higher' or 'lower', got {d!r}")
            cells = summary[task]
            vals = [cell_bounds(cells, mm) for mm in models]
            means = np.array([v[0] for v in vals], dtype=float)
            finite = np.isfinite(means)
            best: set[int] = set()
            if finite.any():
                target = np.nanmax(means) if d == "higher" else np.nanmin(means)
                best = {i for i in range(m) if finite[i] and means[i] == target}
            trans = blended_transform_factory(ax.transAxes, ax.transData)
            for i, (model, (mean, lo, hi)) in enumerate(zip(models, vals)):
                if not np.isfinite(mean):
                    ax.text(0.5, i, "missing", transform=trans, ha="center", va="center",
                            fontsize=FS_SMALL, color="#666666", style="italic", gid="missing")
                    continue
                if i in best:
                    ax.axhspan(i - 0.45, i + 0.45, color="#000000", alpha=0.07, lw=0, gid="best")
                # not clipped by the axes (a mark at the range's edge stays whole), so cut to the range here
                lo, hi = clip_interval(lo, hi, ranges.get(task))
                if np.isfinite(lo) and np.isfinite(hi):
                    ax.add_line(Line2D([lo, hi], [i, i], color=colors[model], lw=2.0, solid_capstyle="butt",
                                       clip_on=False, gid="ci"))
                cand = model == candidate
                ax.add_line(
                    Line2D([mean], [i], marker="D" if i in best else "o", markersize=7.5 if i in best else 5.5,
                           color=colors[model], markeredgecolor=CANDIDATE_COLOR if cand else "black",
                           markeredgewidth=1.5 if cand else 0.7, linestyle="none", zorder=3, clip_on=False,
                           gid="candidate-mean" if cand else "mean")
                )
            ax.autoscale_view()
            ax.set_yticks(np.arange(m), [shown[n] for n in models])
            for i, lab in enumerate(ax.get_yticklabels()):
                if i in best:
                    lab.set_fontweight("bold")
                if models[i] == candidate:
                    mark_candidate_label(lab, bold=False)
            ax.set_ylim(m - 0.5, -0.5)
            ax.margins(x=0.08)
            clamp_to_range(ax, "x", ranges.get(task))
            arrow = "↑ better" if d == "higher" else "↓ better"
            ax.set_title(f"{task}  ({arrow})", loc="left")
            if candidate is not None and ax is axs[0]:
                ax.set_title(f"candidate: {shown[candidate]}", loc="right", color=CANDIDATE_COLOR, fontsize=FS_SMALL)
            ax.set_xlabel(metric_label.get(task, ""))
            ax.spines["left"].set_visible(False)
            ax.tick_params(axis="y", length=0)
            ax.grid(axis="x", color="#E5E5E5", lw=0.6)
            ax.set_axisbelow(True)
    return fig


def plot_dashboard(
    panels: Mapping[str, Mapping[str, Mapping[str, Mapping[str, float]]]],
    metric_label: Mapping[str, str] | None = None,
    direction: Mapping[str, str] | None = None,
    models: Sequence[str] | None = None,
    title: str | None = None,
    ranges: Mapping[str, tuple[float, float]] | None = None,
    candidate: str | None = None,
) -> Figure:
    """Cross-category dashboard: one panel per research category.

    ``panels[category][task][model] = {"mean", "lo", "hi"}``.  Within a panel
    each task is a group of bars (one bar per model, colours shared with every
    other figure through :func:`model_colors` on ``models`` -- default: order
    of first appearance) with a whisker from ``lo`` to ``hi``.  The best model
    of each task (``direction[task]`` ``"higher"``/``"lower"``, default
    higher; all tied best) has a thick black edge and a ``★`` above its
    whisker.  A model without a value keeps its slot and is annotated
    ``n/a``.  The x tick under each group names the task and its metric
    (``metric_label[task]``) with the direction arrow.  A shared legend of the
    models sits below the panels.

    How to read it: compare bars *within* a task group only; metrics differ
    between tasks (accuracy, AUC, MAE) and are not commensurable across
    panels -- the across-task comparison is the CD diagram.  With
    ``ranges[task] = (lower, upper)`` the value axis of a panel is drawn only
    over the range its tasks' metrics can take (headroom above it holds the
    ``★`` marks, without ticks) and whiskers are cut at its edges.

    Models are labelled by :func:`~netzbench.report.formatting.display_names`.
    ``candidate`` (optional): the user's model, its bars hatched and its
    legend entry bold in :data:`.common.CANDIDATE_COLOR`, marked
    ``(candidate)``.
    """
    if not panels:
        raise ValueError("panels is empty")
    metric_label = metric_label or {}
    direction = direction or {}
    ranges = ranges or {}
    if models is None:
        models = []
        for by_task in panels.values():
            for cells in by_task.values():
                for m in cells:
                    if m not in models:
                        models.append(m)
    models = list(models)
    if not models:
        raise ValueError("panels have no models")
    colors = model_colors(models)
    m = len(models)
    shown = display_names(models)
    if candidate not in models:
        candidate = None
    legend_names = {mm: shown[mm] + (" (candidate)" if mm == candidate else "") for mm in models}
    cats = list(panels)
    max_tasks = max(max(len(v), 1) for v in panels.values())
    nrows, ncols = grid_shape(len(cats))
    pw = max(2.8, max_tasks * (0.26 * m + 0.55) + 0.9)
    ph = 2.7
    with mpl.rc_context(RC):
        entry_w = max(text_width_in(x, FS_SMALL, "bold") for x in legend_names.values()) + 0.7
        fig_w = pw * ncols
        legend_cols = max(1, min(m, int(fig_w // entry_w)))
        legend_rows = math.ceil(m / legend_cols)
        fig = new_figure(fig_w, ph * nrows + 0.22 * legend_rows + (0.45 if title else 0.2))
        axs = panel_axes(fig, len(cats))
        width = 0.8 / m
        for ax, cat in zip(axs, cats):
            by_task = panels[cat]
            tasks = list(by_task)
            trans = blended_transform_factory(ax.transData, ax.transAxes)
            tops = []
            for g, task in enumerate(tasks):
                cells = by_task[task]
                d = direction.get(task, "higher")
                if d not in ("higher", "lower"):
                    raise ValueError(f"direction[{task!r}] must be 'higher' or 'lower', got {d!r}")
                vals = [cell_bounds(cells, mm) for mm in models]
                means = np.array([v[0] for v in vals], dtype=float)
                best: set[int] = set()
                if np.isfinite(means).any():
                    target = np.nanmax(means) if d == "higher" else np.nanmin(means)
                    best = {i for i in range(m) if np.isfinite(means[i]) and means[i] == target}
                else:
                    ax.text(g, 0.5, "no results", ha="center", va="center", transform=trans, fontsize=FS,
                            style="italic", color="#666666", gid="no-results")
                    continue
                for i, (model, (mean, lo, hi)) in enumerate(zip(models, vals)):
                    x = g + (i - (m - 1) / 2) * width
                    if not np.isfinite(mean):
                        ax.text(x, 0.03, "n/a", rotation=90, ha="center", va="bottom", transform=trans,
                                fontsize=FS_SMALL - 1.5, color="#666666", gid="missing")
                        continue
                    ax.bar(x, mean, width=width * 0.92, color=colors[model], edgecolor="black",
                           linewidth=1.6 if i in best else 0.5, gid="best" if i in best else None,
                           hatch=CANDIDATE_HATCH if model == candidate else None)
                    err = error_lengths(mean, *clip_interval(lo, hi, ranges.get(task)))
                    top = mean
                    if err is not None:
                        ax.errorbar(x, mean, yerr=[[err[0]], [err[1]]], fmt="none", ecolor="black",
                                    elinewidth=0.9, capsize=2, capthick=0.9)
                        top = mean + err[1]
                    tops.append(top)
                    if i in best:
                        ax.text(x, top, "★", ha="center", va="bottom", fontsize=FS_SMALL, gid="best-star")
            ax.axhline(0, color="black", lw=0.8)
            labels = []
            for task in tasks:
                arrow = "↑" if direction.get(task, "higher") == "higher" else "↓"
                lab = metric_label.get(task, "")
                labels.append(f"{task}\n" + " ".join(x for x in (lab, arrow) if x))
            ax.set_xticks(range(len(tasks)), labels)
            ax.set_xlim(-0.6, len(tasks) - 0.4)
            if tops:
                lo_y, _ = ax.get_ylim()
                ax.set_ylim(min(lo_y, 0.0), max(tops) * 1.12 if max(tops) > 0 else 1.0)
            ax.set_title(str(cat))
            ax.tick_params(axis="x", length=0)
            bounds = [ranges[t] for t in tasks if t in ranges]
            if bounds and len(bounds) == len(tasks):
                range_spine(ax, (min(b[0] for b in bounds), max(b[1] for b in bounds)))
            ax.grid(axis="y", color="#EEEEEE", lw=0.6)
            ax.set_axisbelow(True)
        handles = [Rectangle((0, 0), 1, 1, facecolor=colors[mm], edgecolor="black", lw=0.5, label=legend_names[mm],
                             hatch=CANDIDATE_HATCH if mm == candidate else None)
                   for mm in models]
        handles.append(Line2D([], [], marker="$★$", color="black", linestyle="none", markersize=8,
                              label="best in task"))
        legend = fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), legend_cols + 1),
                            frameon=False)
        if candidate is not None:
            mark_candidate_label(legend.get_texts()[models.index(candidate)])
        if title:
            fig.suptitle(title, fontsize=FS + 1, weight="bold")
    return fig


def _present_cells(report) -> dict[str, dict[str, dict]]:
    present = set(report.present_tasks())
    nested = {t: v for t, v in nested_summary(report.summary()).items() if t in present}
    if not nested:
        raise ValueError("no task has results")
    return nested


def _metric_labels(report) -> dict[str, str]:
    return {t: series_label(i.metric) for t, i in report.task_info.items()}


def _directions(report) -> dict[str, str]:
    return {t: i.direction for t, i in report.task_info.items()}


def _ranges(report) -> dict[str, tuple[float, float]]:
    return {t: metric_range(i.metric) for t, i in report.task_info.items()}


def bars_figure(report) -> Figure:
    """Grouped bars of ``report``: one panel per task with results."""
    return plot_bars(_present_cells(report), metric_label=_metric_labels(report), ranges=_ranges(report))


def forest_figure(report, candidate: str | None = None) -> Figure:
    """Forest plot of ``report``: one panel per task with results, best (and ``candidate``) highlighted."""
    return plot_forest(_present_cells(report), metric_label=_metric_labels(report), direction=_directions(report),
                       ranges=_ranges(report), candidate=candidate)


def dashboard_figure(report, title: str | None = None, candidate: str | None = None) -> Figure:
    """The dashboard of ``report``: one panel per research category, every task of it (with results or not);
    ``candidate`` highlighted."""
    nested = nested_summary(report.summary())
    panels: dict[str, dict[str, dict]] = {}
    for t in report.tasks:
        cat = report.task_info[t].category or "uncategorised"
        panels.setdefault(cat, {})[t] = nested.get(t, {})
    labels = {t: series_label(i.metric).replace("test ", "") for t, i in report.task_info.items()}
    ci = f"{report.ci:.0%} {'t' if report.ci_method == 't' else 'bootstrap'}-CI"
    return plot_dashboard(panels, metric_label=labels, direction=_directions(report), models=report.models,
                          title=title or f"Per-category results: mean ± {ci} over seeds", ranges=_ranges(report),
                          candidate=candidate)
