"""The dashboard (after the paper's Figure 2): every task's cells as bars on the task's own axis, the tasks
grouped by research category.

One axis per task: tasks differ in metric and scale (ROC-AUC in 0-1 beside an MAE of 20), so bars of two
tasks never share an axis. The cells fill rows no wider than :data:`.style.MAX_WIDTH_IN`, a category's
tasks side by side under its name; the report stage draws one dashboard per task family
(:mod:`netzbench.report.figure_files`), which keeps it within about 3,000 px either way.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import ConnectionPatch, Rectangle
from matplotlib.transforms import ScaledTranslation, blended_transform_factory

from ..formatting import display_names
from . import cell_data
from .style import (BASELINE_HATCH, CANDIDATE_HATCH, FS, FS_SMALL, MAX_WIDTH_IN, RC, best_indices, cell_bounds,
                    clip_interval, colors_for, error_lengths, mark_candidate_label, new_figure, range_spine,
                    text_width_in)

BAR_IN = 0.15  # one model's bar and its gap (in)
CELL_H = 1.75  # a task's panel with its title (in)
HEADER_PT = 22.0  # the category name's height above a panel's top (pt): clear of the task's title

#: a block of one row: (category, its tasks on this row, whether the category began on an earlier row)
Block = tuple[str, list[str], bool]


def pack_rows(categories: Mapping[str, Sequence[str]], ncols: int) -> list[list[Block]]:
    """The categories' tasks in rows of at most ``ncols``: a category continues the current row when it
    fits there, else starts a new one; a category longer than a row fills rows of its own first."""
    rows: list[list[Block]] = [[]]
    for cat, tasks in categories.items():
        tasks, continued = list(tasks), False
        while tasks:
            used = sum(len(b[1]) for b in rows[-1])
            if used and (used + len(tasks) > ncols):
                rows.append([])
                used = 0
            take, tasks = tasks[:ncols], tasks[ncols:]
            rows[-1].append((cat, take, continued))
            continued = True
    return [r for r in rows if r]


def plot_dashboard(
    panels: Mapping[str, Mapping[str, Mapping[str, Mapping[str, float]]]],
    metric_label: Mapping[str, str] | None = None,
    direction: Mapping[str, str] | None = None,
    models: Sequence[str] | None = None,
    title: str | None = None,
    ranges: Mapping[str, tuple[float, float]] | None = None,
    candidate: str | None = None,
    *,
    color_order: Sequence[str] | None = None,
    baselines: Collection[str] = (),
) -> Figure:
    """Dashboard: one panel per task, the panels of a research category side by side under its name.

    ``panels[category][task][model] = {"mean", "lo", "hi"}``. A task's panel has one bar per model
    (``models``, default first appearance: the models under test, then the ``baselines``, hatched
    :data:`.style.BASELINE_HATCH`) with a whisker from ``lo`` to ``hi``, on its own y axis labelled with
    the task's metric (``metric_label[task]``) and direction arrow. Colours: :func:`.style.model_colors` of
    ``color_order`` (default ``models``), as in every other figure given that order. The best model of
    each task (``direction[task]`` ``"higher"``/``"lower"``, default higher; all tied best) has a thick
    black edge and a ``★`` above its whisker. A model without a value keeps its slot, annotated ``n/a``;
    a task without any, ``no results``. A shared legend of the models sits below the panels.

    How to read it: compare bars *within* a panel; metrics and scales differ between tasks -- the
    across-task comparison is the CD diagram. With ``ranges[task] = (lower, upper)`` a panel's value axis
    is drawn only over the range its metric can take (headroom above it holds the ``★``, without ticks)
    and whiskers are cut at its edges. Models are labelled by
    :func:`~netzbench.report.formatting.display_names`. ``candidate`` (optional): the user's model, its
    bars hatched :data:`.style.CANDIDATE_HATCH` and its legend entry bold in
    :data:`.style.CANDIDATE_COLOR`, marked ``(candidate)``.
    """
    if not panels:
        raise ValueError("panels is empty")
    metric_label, direction, ranges = metric_label or {}, direction or {}, ranges or {}
    found = list(models) if models is not None else list(dict.fromkeys(
        m for by_task in panels.values() for cells in by_task.values() for m in cells))
    order = [m for m in found if m not in baselines] + [m for m in found if m in baselines]
    if not order:
        raise ValueError("panels have no models")
    colors = colors_for(order, color_order or order)
    shown = display_names(order)
    if candidate not in order:
        candidate = None
    categories = {str(c): list(by_task) for c, by_task in panels.items() if by_task}
    cells_of = {t: cells for by_task in panels.values() for t, cells in by_task.items()}
    tasks = [t for ts in categories.values() for t in ts]
    if not tasks:
        raise ValueError("panels have no tasks")
    cw, ncols, rows = _layout(categories, BAR_IN * len(order) + 0.7)
    legend_names = {mm: shown[mm] + (" (candidate)" if mm == candidate else "") for mm in order}
    with mpl.rc_context(RC):
        entry_w = max(text_width_in(x, FS_SMALL, "bold") for x in legend_names.values()) + 0.7
        n_entries = len(order) + 1 + bool(set(baselines) & set(order))
        legend_cols = max(1, min(n_entries, int(cw * ncols // entry_w)))
        side = legend_cols < 3  # a panel or two: the legend beside them, not a tall column below
        width = cw * ncols + (entry_w + 0.2 if side else 0.0)
        if side:  # as tall as the legend's column, which must stay clear of the title
            height = max(len(rows) * CELL_H, 0.26 * n_entries + 0.3)
        else:
            height = len(rows) * CELL_H + 0.25 * math.ceil(n_entries / legend_cols)
        fig = new_figure(width, height + (0.45 if title else 0.2))
        grid = fig.add_gridspec(len(rows), ncols)
        placed = [(r, c0 + j, cat, t, continued, j) for r, row in enumerate(rows)
                  for cat, ts, continued, c0 in _with_starts(row) for j, t in enumerate(ts)]
        axes = {t: fig.add_subplot(grid[r, c]) for r, c, _, t, _, _ in placed}
        for t, ax in axes.items():
            _draw_task(ax, t, cells_of[t], order, colors, candidate, set(baselines), direction.get(t, "higher"),
                       metric_label.get(t, ""), ranges.get(t))
        for r, row in enumerate(rows):
            for cat, ts, continued, _ in _with_starts(row):
                _category_header(fig, axes[ts[0]], axes[ts[-1]], _header(cat, continued))
        _legend(fig, order, colors, legend_names, candidate, set(baselines), 1 if side else legend_cols)
        if title:
            fig.suptitle(title, fontsize=FS + 1, weight="bold")
    return fig


def _header(cat: str, continued: bool) -> str:
    return cat + (" (continued)" if continued else "")


def _layout(categories: Mapping[str, Sequence[str]], bars_w: float) -> tuple[float, int, list[list[Block]]]:
    """``(panel width in, columns, rows)``: a panel holds its bars (``bars_w``) and its task's title, and a
    category of one panel on a row its name too (a name wider than its panels would squeeze the layout)."""
    tasks = [t for ts in categories.values() for t in ts]
    cw = max(1.5, bars_w, max(text_width_in(str(t), FS) for t in tasks) + 0.6)
    while True:  # a wider panel means fewer columns, which can leave other categories alone on a row
        ncols = max(1, min(len(tasks), int(MAX_WIDTH_IN // cw)))
        rows = pack_rows(categories, ncols)
        need = max([cw] + [text_width_in(_header(cat, cont), FS, "bold") + 0.6
                           for row in rows for cat, ts, cont in row if len(ts) == 1])
        if need <= cw:
            return cw, ncols, rows
        cw = need


def _with_starts(row: list[Block]) -> list[tuple[str, list[str], bool, int]]:
    """The blocks of a row with the grid column each starts at."""
    out, col = [], 0
    for cat, ts, continued in row:
        out.append((cat, ts, continued, col))
        col += len(ts)
    return out


def _draw_task(ax, task, cells, order, colors, candidate, baselines, d, label, bounds) -> None:
    """One task's panel: a bar per model with its whisker, the best edged and starred, on the task's axis."""
    vals = [cell_bounds(cells, mm) for mm in order]
    best = best_indices([v[0] for v in vals], d, task)
    trans = blended_transform_factory(ax.transData, ax.transAxes)
    tops = []
    if not any(np.isfinite(v[0]) for v in vals):
        ax.text(0.5, 0.5, "no results", ha="center", va="center", transform=ax.transAxes, fontsize=FS,
                style="italic", color="#666666", gid="no-results")
    for i, (model, (mean, lo, hi)) in enumerate(zip(order, vals)):
        if not np.isfinite(mean):
            if best:
                ax.text(i, 0.03, "n/a", rotation=90, ha="center", va="bottom", transform=trans,
                        fontsize=FS_SMALL - 1.5, color="#666666", gid="missing")
            continue
        hatch = CANDIDATE_HATCH if model == candidate else (BASELINE_HATCH if model in baselines else None)
        ax.bar(i, mean, width=0.8, color=colors[model], edgecolor="black", linewidth=1.6 if i in best else 0.5,
               gid="best" if i in best else None, hatch=hatch, label=[model])
        err = error_lengths(mean, *clip_interval(lo, hi, bounds))
        top = mean
        if err is not None:
            ax.errorbar(i, mean, yerr=[[err[0]], [err[1]]], fmt="none", ecolor="black", elinewidth=0.9,
                        capsize=2, capthick=0.9)
            top = mean + err[1]
        tops.append(top)
        if i in best:
            ax.text(i, top, "★", ha="center", va="bottom", fontsize=FS_SMALL, gid="best-star")
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks([])
    ax.set_xlim(-0.6, len(order) - 0.4)
    if tops:
        lo_y, _ = ax.get_ylim()
        ax.set_ylim(min(lo_y, 0.0), max(tops) * 1.12 if max(tops) > 0 else 1.0)
    ax.set_title(str(task), fontsize=FS)
    arrow = "↑" if d == "higher" else "↓"
    ax.set_ylabel(" ".join(x for x in (label, arrow) if x), fontsize=FS_SMALL)
    range_spine(ax, bounds)
    ax.grid(axis="y", color="#EEEEEE", lw=0.6)
    ax.set_axisbelow(True)


def _category_header(fig: Figure, first, last, text: str) -> None:
    """The category's name above its first panel and a rule over all of its panels (placed at draw time,
    so it follows the layout)."""
    lift = ScaledTranslation(0, HEADER_PT / 72, fig.dpi_scale_trans)
    ax_lift = first.transAxes + lift
    first.text(0, 1, text, transform=ax_lift, ha="left", va="bottom", fontsize=FS, weight="bold", gid="category")
    rule = ConnectionPatch(xyA=(0, 1), coordsA=ax_lift, xyB=(1, 1), coordsB=last.transAxes + lift,
                           color="#888888", lw=0.8, gid="category-rule")
    rule.set_in_layout(False)
    fig.add_artist(rule)


def _legend(fig, order, colors, names, candidate, baselines, ncols) -> None:
    hatch = {m: CANDIDATE_HATCH if m == candidate else (BASELINE_HATCH if m in baselines else None) for m in order}
    handles = [Rectangle((0, 0), 1, 1, facecolor=colors[m], edgecolor="black", lw=0.5, label=names[m],
                         hatch=hatch[m]) for m in order]
    handles.append(Line2D([], [], marker="$★$", color="black", linestyle="none", markersize=8, label="best in task"))
    if baselines & set(order):
        handles.append(Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="black", lw=0.5, hatch=BASELINE_HATCH,
                                 label="hatched: baseline"))
    legend = fig.legend(handles=handles, loc="outside lower center" if ncols > 1 else "outside right center",
                        ncols=min(len(handles), ncols), frameon=False)
    if candidate is not None:
        mark_candidate_label(legend.get_texts()[order.index(candidate)])


def dashboard_figure(report, title: str | None = None, candidate: str | None = None,
                     family: str | None = None) -> Figure:
    """The dashboard of ``report``: every task (of ``family``; None: every task), with results or not, by
    research category, the models that serve them; ``candidate`` highlighted, colours of the roster order."""
    tasks, models, name = cell_data.family_selection(report, family)
    nested = cell_data.present_cells(report) if report.present_tasks() else {}
    panels: dict[str, dict[str, dict]] = {}
    for t in tasks:
        panels.setdefault(report.task_info[t].category or "uncategorised", {})[t] = nested.get(t, {})
    what = f"{name.capitalize()}" if name else "Per-category results"
    return plot_dashboard(panels, metric_label=cell_data.metric_labels(report, prefix=False),
                          direction=cell_data.directions(report), models=models,
                          title=title or f"{what}: mean ± {cell_data.interval_text(report)} over seeds",
                          ranges=cell_data.ranges(report), candidate=candidate, color_order=report.models,
                          baselines=report.baseline_models())
