"""Across-task figures: the Demšar critical-difference diagram and the mean-rank bars.

The ``plot_*`` functions draw given numbers; :func:`critical_difference_figure`
and :func:`mean_ranks_figure` take them from a report (its Friedman test and
mean ranks, :mod:`netzbench.report.across_task`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ..comparisons import POSTHOC_NAMES, cliques
from ..formatting import display_names, p_value
from .style import CANDIDATE_COLOR, FS, FS_SMALL, RC, colors_for, mark_candidate_label, new_figure, text_width_in


def plot_critical_difference(
    mean_ranks: Mapping[str, float],
    cd: float | None,
    cliques: Sequence[Sequence[str]],
    friedman: Mapping[str, Any] | None = None,
    title: str | None = None,
    diagnostic_label: str | None = None,
    ax=None,
    color_order: Sequence[str] | None = None,
    clique_label: str | None = None,
    candidate: str | None = None,
) -> Figure:
    """Demšar (2006) critical-difference diagram of mean ranks across tasks.

    What it shows: a horizontal mean-rank axis numbered ``1 … k`` with rank 1
    (best) on the **left**.  Each model is a dot on the axis at its mean rank,
    connected by an elbow line to its name (printed with the mean rank in
    parentheses); the better half of the models is labelled on the left, the
    worse half on the right.  Above the axis a reference bar of length ``cd``
    (labelled ``"CD = 1.48"``) shows the critical difference of the Nemenyi
    post-hoc test.  Thick black bars just below the axis join the models of
    each clique.  The Friedman omnibus result is printed below the diagram when
    ``friedman`` (keys ``chi2``, ``p_value``, optional ``n_tasks``) is given.

    How to read it: lower mean rank is better (per-task ranks already account
    for the metric direction).  Two models whose mean ranks differ by more than
    the CD bar are significantly different at the chosen α; models joined by a
    common clique bar are not distinguishable.  Read the Friedman p-value first:
    if it does not reject, no post-hoc difference should be claimed.

    ``cd=None`` marks a *diagnostic* aggregation (e.g. reliability-weighted
    mean ranks) for which no significance test exists: no CD bar and no clique
    bars are drawn (``cliques`` is ignored) and ``diagnostic_label`` (or a
    default wording) is printed in their place -- unless ``clique_label`` is
    given: then the cliques come from another pairwise test (e.g. Wilcoxon
    signed-rank with Holm, :func:`netzbench.stats.cliques_from_matrix`), are
    drawn, and ``clique_label`` says which test in place of the CD bar
    (gid ``"clique-source"``).  Any pairwise significance matrix can so
    supply the bars.

    Cliques of fewer than two models are not drawn.  Models tied in mean
    rank get one dot each, side by side and centred on their common rank (in
    label order, so their elbows never cross); the labels give the exact
    rank.  Every clique member must be a key of ``mean_ranks``.  Models are
    labelled by :func:`~netzbench.report.formatting.display_names`.

    ``candidate`` (optional, a key of ``mean_ranks``): the user's model, drawn
    with a diamond edged in :data:`.common.CANDIDATE_COLOR`, its label bold in
    that colour and a ``"◆ candidate: …"`` line under the diagram.

    Artists carry gids for programmatic inspection: ``"cd-bar"``,
    ``"cd-label"``, ``"clique"``, ``"friedman"``, ``"diagnostic-label"``,
    ``"model-label"``, ``"model-dot"``, ``"rank-axis"``, ``"candidate-note"``.

    When ``ax`` is given, the diagram is drawn into it: the rank axis is
    fitted to the axes width, but text keeps its point size, so the axes must
    be wide enough for the axis plus two label columns and tall enough for
    ``ceil(k/2)`` label rows (about 0.26 in each) -- otherwise labels overlap.
    Without ``ax`` a figure is sized to the content (recommended).

    ``color_order`` (optional) is the model order used for colours, so a
    diagram over a subset of models keeps each model's colour from the other
    figures; default: the order of ``mean_ranks``.
    """
    if not mean_ranks:
        raise ValueError("mean_ranks is empty")
    names = list(mean_ranks)
    ranks = {n: float(mean_ranks[n]) for n in names}
    bad = [n for n, r in ranks.items() if not np.isfinite(r)]
    if bad:
        raise ValueError(f"non-finite mean rank for {bad}")
    if cd is not None:
        cd = float(cd)
        if not np.isfinite(cd) or cd <= 0:
            raise ValueError(f"cd must be a positive finite number or None, got {cd!r}")
    clique_list: list[tuple[str, ...]] = []
    if cd is not None or clique_label is not None:
        for c in cliques or ():
            c = tuple(c)
            missing = [m for m in c if m not in ranks]
            if missing:
                raise ValueError(f"clique {c} contains models without a mean rank: {missing}")
            if len(set(c)) >= 2:
                clique_list.append(c)

    k = len(names)
    colors = colors_for(names, color_order)
    order = sorted(names, key=lambda n: (ranks[n], names.index(n)))
    n_left = math.ceil(k / 2)
    left, right = order[:n_left], order[n_left:]
    shown = display_names(names)
    labels = {n: f"{shown[n]} ({ranks[n]:.2f})" for n in names}
    if candidate not in ranks:
        candidate = None

    lo = min(1.0, min(ranks.values()))
    hi = max(float(k), max(ranks.values()))
    if hi - lo < 1.0:
        hi = lo + 1.0

    stub_in = 0.22  # horizontal run of the elbow beyond the axis end
    gap_in = 0.06  # elbow end -> text
    label_w_in = max(text_width_in(labels[n], FS) for n in names)
    margin_in = stub_in + gap_in + label_w_in + 0.08

    # ---- vertical layout in inches (axis at y = 0, y grows upwards) -------
    tick_label_y = 0.09
    top_item_y = 0.50  # CD bar or diagnostic label
    clique_step = 0.11
    # clique rows: greedy interval packing so overlapping cliques never share a row
    clique_spans = []
    for c in clique_list:
        rs = [ranks[m] for m in c]
        clique_spans.append((min(rs), max(rs), c))
    clique_spans.sort(key=lambda t: (t[0], t[1]))

    with mpl.rc_context(RC):
        if ax is None:
            axis_w_in = min(max(3.6, 0.8 * (hi - lo)), 7.5)
            scale = axis_w_in / (hi - lo)  # inches per rank unit
        else:
            fig0 = ax.figure
            ax_w_in = ax.get_position().width * fig0.get_figwidth()
            scale = max((ax_w_in - 2 * margin_in) / (hi - lo), 0.25)

        pad_units = 0.05 / scale
        row_ends: list[float] = []
        clique_rows: list[int] = []
        for a, b, _ in clique_spans:
            a0, b0 = a - pad_units, b + pad_units
            for j, end in enumerate(row_ends):
                if a0 > end + 0.5 * pad_units:
                    row_ends[j] = b0
                    clique_rows.append(j)
                    break
            else:
                row_ends.append(b0)
                clique_rows.append(len(row_ends) - 1)
        n_clique_rows = len(row_ends)
        first_clique_y = -0.13
        last_clique_y = first_clique_y - clique_step * max(n_clique_rows - 1, 0)
        label_y0 = (last_clique_y if n_clique_rows else -0.05) - 0.22
        row_step = 0.26
        n_rows = max(len(left), len(right))
        last_label_y = label_y0 - row_step * (n_rows - 1)

        bottom_lines: list[tuple[str, str, dict]] = []
        if friedman is not None:
            chi2 = float(friedman["chi2"])
            pval = float(friedman["p_value"])
            txt = f"Friedman χ² = {chi2:.2f}, p = {p_value(pval)}"
            if friedman.get("n_tasks") is not None:
                txt += f", N = {int(friedman['n_tasks'])} tasks"
            bottom_lines.append((txt, "friedman", {}))
        if candidate is not None:
            bottom_lines.append((f"◆ candidate: {shown[candidate]}", "candidate-note", {"color": CANDIDATE_COLOR}))
        bottom_y = last_label_y - 0.36
        y_min = bottom_y - 0.24 * max(len(bottom_lines) - 1, 0) - 0.12 if bottom_lines else last_label_y - 0.18
        top_y = top_item_y + 0.28
        title_y = top_y + 0.05
        y_max = title_y + (0.32 if title else 0.0)

        x_left = lo - margin_in / scale
        x_right = hi + margin_in / scale
        if cd is not None:
            x_right = max(x_right, lo + cd + 0.15 / scale)

        if ax is None:
            fig = new_figure((x_right - x_left) * scale, y_max - y_min, layout=None)
            ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
        else:
            fig = ax.figure
        ax.set_axis_off()
        ax.set_xlim(x_left, x_right)
        ax.set_ylim(y_min, y_max)

        # ---- rank axis ----------------------------------------------------
        ax.add_line(Line2D([lo, hi], [0, 0], color="black", lw=1.2, gid="rank-axis", solid_capstyle="butt"))
        tx, ty = [], []
        t = math.ceil(lo * 2) / 2
        while t <= hi + 1e-9:
            major = abs(t - round(t)) < 1e-9
            tx += [t, t, np.nan]
            ty += [0, 0.07 if major else 0.04, np.nan]
            if major:
                ax.text(t, tick_label_y, f"{int(round(t))}", ha="center", va="bottom", fontsize=FS_SMALL)
            t += 0.5
        ax.add_line(Line2D(tx, ty, color="black", lw=1.0, gid="rank-ticks"))

        # ---- CD bar or diagnostic label -------------------------------------
        if cd is not None:
            ax.add_line(
                Line2D(
                    [lo, lo + cd],
                    [top_item_y, top_item_y],
                    color="black",
                    lw=1.6,
                    marker="|",
                    markersize=9,
                    markeredgewidth=1.6,
                    solid_capstyle="butt",
                    gid="cd-bar",
                )
            )
            ax.text(
                lo + cd / 2,
                top_item_y + 0.07,
                f"CD = {cd:.2f}",
                ha="center",
                va="bottom",
                fontsize=FS,
                gid="cd-label",
            )
        else:
            label = clique_label or diagnostic_label or "diagnostic aggregation — no significance test"
            ax.text(
                (lo + hi) / 2,
                top_item_y,
                label,
                ha="center",
                va="center",
                fontsize=FS,
                style="italic",
                color="#333333",
                gid="clique-source" if clique_label else "diagnostic-label",
            )

        # ---- clique bars ----------------------------------------------------
        for (a, b, c), row in zip(clique_spans, clique_rows):
            y = first_clique_y - clique_step * row
            ax.add_line(
                Line2D(
                    [a - pad_units, b + pad_units],
                    [y, y],
                    color="black",
                    lw=4.0,
                    solid_capstyle="round",
                    zorder=4,
                    gid="clique",
                )
            )

        # ---- elbows and labels ----------------------------------------------
        x_end_left = lo - stub_in / scale
        x_end_right = hi + stub_in / scale
        gap = gap_in / scale
        # tied models would share one dot: put their dots side by side around the rank, in `order`
        # (left labels: deeper rows further right; right labels: deeper rows further left -- no crossings)
        dodge = 0.08 / scale
        x_dot: dict[str, float] = {}
        for r in sorted({round(v, 9) for v in ranks.values()}):
            tied = [n for n in order if round(ranks[n], 9) == r]
            for j, n in enumerate(tied):
                x_dot[n] = ranks[n] + (j - (len(tied) - 1) / 2) * dodge
        placements = [(n, i, "left") for i, n in enumerate(left)]
        placements += [(n, len(right) - 1 - i, "right") for i, n in enumerate(right)]
        for n, row, side in placements:
            x = x_dot[n]
            y = label_y0 - row_step * row
            x_end = x_end_left if side == "left" else x_end_right
            ax.add_line(
                Line2D([x, x, x_end], [0, y, y], color=colors[n], lw=1.3, zorder=2, solid_joinstyle="miter")
            )
            cand = n == candidate
            ax.add_line(
                Line2D(
                    [x], [0], marker="D" if cand else "o", markersize=6.5 if cand else 5, color=colors[n],
                    markeredgecolor=CANDIDATE_COLOR if cand else "black", markeredgewidth=1.3 if cand else 0.6,
                    zorder=6 if cand else 5, linestyle="none", gid="model-dot",
                )
            )
            name_text = ax.text(
                x_end - gap if side == "left" else x_end + gap,
                y,
                labels[n],
                ha="right" if side == "left" else "left",
                va="center",
                fontsize=FS,
                gid="model-label",
            )
            if cand:
                mark_candidate_label(name_text)

        # ---- Friedman / title -----------------------------------------------
        for i, (txt, gid, kw) in enumerate(bottom_lines):
            ax.text((lo + hi) / 2, bottom_y - 0.24 * i, txt, ha="center", va="center", fontsize=FS, gid=gid, **kw)
        if title:
            ax.text((lo + hi) / 2, title_y, title, ha="center", va="bottom", fontsize=FS + 1, weight="bold",
                    gid="title")
    return fig


def plot_mean_ranks(mean_ranks: Mapping[str, float], cd: float | None = None, ax=None,
                    color_order: Sequence[str] | None = None) -> Figure:
    """Horizontal bar chart of mean ranks, best (lowest) model at the top.

    Each bar's length is the model's mean rank across tasks (lower is better),
    printed at the bar end.  If ``cd`` is given, a bracket of length ``cd`` is
    drawn above the bars starting at the best model's mean rank, with a dotted
    threshold line at ``best + cd``: a model whose bar ends beyond the dotted
    line is significantly worse than the best model (Nemenyi); models inside it
    are not distinguishable from the best.  No error bars are drawn (a mean
    rank has no per-model sampling interval in this analysis).

    Colours follow :func:`model_colors` in the order of ``color_order`` (default:
    the order of ``mean_ranks``); models are labelled by
    :func:`~netzbench.report.formatting.display_names`.
    """
    if not mean_ranks:
        raise ValueError("mean_ranks is empty")
    names = list(mean_ranks)
    colors = colors_for(names, color_order)
    ranks = {n: float(mean_ranks[n]) for n in names}
    order = sorted(names, key=lambda n: (ranks[n], names.index(n)))
    k = len(names)
    shown = display_names(names)
    with mpl.rc_context(RC):
        if ax is None:
            name_w = max(text_width_in(shown[n], FS_SMALL) for n in names)
            fig = new_figure(4.8 + name_w, 0.34 * k + (1.45 if cd is not None else 1.0))
            ax = fig.add_subplot()
        else:
            fig = ax.figure
        ys = np.arange(k)
        vals = [ranks[n] for n in order]
        ax.barh(ys, vals, color=[colors[n] for n in order], edgecolor="black", linewidth=0.6, height=0.65)
        ax.set_yticks(ys, [shown[n] for n in order])
        ax.invert_yaxis()
        xmax = max(float(k), max(vals))
        if cd is not None:
            xmax = max(xmax, vals[0] + float(cd))
        ax.set_xlim(0, xmax * 1.08 + 0.1)
        for y, v in zip(ys, vals):
            ax.text(v + 0.02 * xmax, y, f"{v:.2f}", va="center", ha="left", fontsize=FS_SMALL)
        ax.set_xlabel("mean rank (lower is better)")
        if cd is not None:
            cd = float(cd)
            b0, b1 = vals[0], vals[0] + cd
            yb = -0.95
            ax.add_line(
                Line2D([b0, b1], [yb, yb], color="black", lw=1.4, marker="|", markersize=8,
                       markeredgewidth=1.4, gid="cd-bracket", clip_on=False)
            )
            ax.text((b0 + b1) / 2, yb - 0.15, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=FS,
                    gid="cd-label")
            ax.add_line(Line2D([b1, b1], [yb, k - 0.5], color="#555555", lw=1.0, linestyle=":",
                               gid="cd-threshold"))
            ax.set_ylim(k - 0.5, -1.45)
        ax.spines["left"].set_visible(False)
        ax.tick_params(axis="y", length=0)
    return fig


def critical_difference_figure(report, aggregation: str = "uniform", *, models: Sequence[str] | None = None,
                               groups=None, weights=None, title: str | None = None,
                               candidate: str | None = None) -> Figure:
    """The CD diagram of ``report``'s complete models (see :meth:`BenchmarkReport.plot_critical_difference`).

    ``uniform``: mean ranks, the Friedman result and cliques from the
    report's ``posthoc_method``: ``nemenyi`` with the CD bar (mean-rank span
    below CD), ``wilcoxon_holm`` without one (runs of models with no
    Holm-significant Wilcoxon pair).  Other aggregations: the weighted mean ranks drawn as a
    diagnostic, without CD or cliques (no null distribution exists).  ``candidate``: the model to
    highlight (see :func:`plot_critical_difference`), if it is among the complete models.
    """
    fr = report.friedman(models)
    if fr["k"] < 1:
        raise ValueError("no model has results on every task present: " + "; ".join(
            f"{m}: {why}" for m, why in fr["excluded"].items()))
    if aggregation == "uniform":
        if fr["k"] < 2 or not math.isfinite(fr["cd"]):
            return plot_critical_difference(
                {m: 1.0 for m in fr["models"]}, None, [],
                diagnostic_label=f"not enough complete models or tasks (k = {fr['k']}, N = {fr['n_tasks']})",
                title=title, color_order=report.models, candidate=candidate)
        friedman = {"chi2": fr["chi2"], "p_value": fr["p_value"], "n_tasks": fr["n_tasks"]}
        title = title or f"Critical difference diagram (α = {report.alpha:g}, N = {fr['n_tasks']} tasks)"
        if report.posthoc_method == "nemenyi":
            return plot_critical_difference(fr["mean_ranks"], fr["cd"], [tuple(c) for c in fr["cliques"]],
                                            friedman=friedman, title=title, color_order=report.models,
                                            candidate=candidate)
        cl = cliques(report.posthoc(report.posthoc_method, models), fr["mean_ranks"])
        return plot_critical_difference(
            fr["mean_ranks"], None, [tuple(c) for c in cl], friedman=friedman, title=title,
            color_order=report.models, candidate=candidate,
            clique_label=f"cliques: {POSTHOC_NAMES[report.posthoc_method]} (α = {report.alpha:g}), no CD")
    mr = report.mean_ranks(aggregation, groups=groups, weights=weights, models=models)
    if not mr or not all(math.isfinite(v) for v in mr.values()):
        raise ValueError(f"{aggregation} mean ranks are undefined (no usable weights)")
    return plot_critical_difference(
        mr, None, [], diagnostic_label=f"{aggregation}-weighted mean ranks: diagnostic, no CD / cliques",
        title=title or f"Mean ranks, {aggregation} aggregation (N = {fr['n_tasks']} tasks)",
        color_order=report.models, candidate=candidate)


def mean_ranks_figure(report, aggregation: str = "uniform", **kwargs) -> Figure:
    """Mean-rank bars of ``report`` under ``aggregation`` (``kwargs`` as for its ``mean_ranks``);
    the CD bracket only for the uniform aggregation."""
    if aggregation == "uniform":
        fr = report.friedman(kwargs.get("models"))
        cd = fr["cd"] if math.isfinite(fr["cd"]) else None
        if not fr["mean_ranks"]:
            raise ValueError("no model has results on every task present")
        return plot_mean_ranks(fr["mean_ranks"], cd=cd, color_order=report.models)
    mr = report.mean_ranks(aggregation, **kwargs)
    if not mr or not all(math.isfinite(v) for v in mr.values()):
        raise ValueError(f"{aggregation} mean ranks are undefined")
    return plot_mean_ranks(mr, color_order=report.models)
