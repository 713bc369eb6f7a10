"""Publication-ready figures for netzbench reports.

Every plotting function takes plain Python / numpy data (all statistics are
computed elsewhere and passed in), returns a :class:`matplotlib.figure.Figure`
and never touches pyplot's global figure registry: figures are built with
:class:`~matplotlib.figure.Figure` and an Agg canvas, so the module is
headless, thread-friendly and does not switch the user's backend.  The caller
owns the returned figure (``plt.close(fig)`` is harmless but unnecessary;
dropping the reference frees it).

Conventions shared by all figures

* Colours: the Okabe–Ito colour-blind-safe palette, assigned to models by
  their position in the model order (:func:`model_colors`), so the same model
  order gives the same colours in every figure.  With more than eight models
  the palette cycles.
* Fonts: 10 pt body text, 9 pt tick labels, nothing below 9 pt.
* Output: :func:`save_figure` writes PNG / SVG (and PDF) byte-identically for
  identical inputs.

The artefacts correspond to REPORT_SPEC.md, section "Artefacts": grouped bars
with CIs, forest plot, pairwise matrix and list layouts (one task, or a grid of
tasks), the Demšar critical difference (CD) diagram, learning curves, and the
per-category dashboard (the paper's Figure 2).
"""

from __future__ import annotations

import math
import pathlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.textpath import TextPath
from matplotlib.transforms import blended_transform_factory

from .formatting import p_value

__all__ = [
    "OKABE_ITO",
    "model_colors",
    "save_figure",
    "plot_critical_difference",
    "plot_mean_ranks",
    "plot_bars",
    "plot_forest",
    "plot_pairwise_matrix",
    "plot_pairwise_list",
    "plot_learning_curves",
    "plot_pairwise_grid",
    "plot_dashboard",
    "plot_message",
]

#: Okabe & Ito (2008) colour-blind-safe palette, in assignment order.
OKABE_ITO: list[str] = [
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
]

_FS = 10.0  # body text size (pt)
_FS_SMALL = 9.0  # tick labels, annotations (pt) -- never go below this
_MISSING_GREY = "#BBBBBB"
_NA_GREY = "#D9D9D9"
_DIAG_GREY = "#F2F2F2"

# rc settings applied while a figure is being *built* (fonts and spines are
# read at artist creation time, so the figure keeps them afterwards).
_RC: dict[str, Any] = {
    "font.size": _FS,
    "axes.titlesize": _FS + 0.5,
    "axes.labelsize": _FS,
    "xtick.labelsize": _FS_SMALL,
    "ytick.labelsize": _FS_SMALL,
    "legend.fontsize": _FS_SMALL,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.linewidth": 0.8,
    "svg.fonttype": "path",
}

_KNOWN_SUFFIXES = {".png", ".svg", ".pdf", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff", ".webp"}


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #
def model_colors(models: Sequence[str]) -> dict[str, str]:
    """Map each model name to an Okabe–Ito colour by its position in ``models``.

    The i-th distinct model gets ``OKABE_ITO[i % 8]``; duplicates keep the colour
    of their first occurrence.  Passing the same model order to every figure
    therefore gives every model the same colour everywhere.
    """
    out: dict[str, str] = {}
    for name in models:
        if name not in out:
            out[name] = OKABE_ITO[len(out) % len(OKABE_ITO)]
    return out


def _colors_for(names: Sequence[str], color_order: Sequence[str] | None) -> dict[str, str]:
    """Colours of ``names`` under :func:`model_colors` of ``color_order`` (then any name not in it)."""
    order = list(color_order or [])
    order += [n for n in names if n not in order]
    return model_colors(order)


def _new_figure(width: float, height: float, layout: str | None = "constrained") -> Figure:
    fig = Figure(figsize=(width, height), layout=layout)
    FigureCanvasAgg(fig)
    return fig


def _text_width_in(text: str, size: float, weight: str = "normal") -> float:
    """Width of ``text`` rendered at ``size`` pt in inches (renderer-free)."""
    if not text:
        return 0.0
    tp = TextPath((0, 0), text, size=size, prop=FontProperties(size=size, weight=weight))
    return float(tp.get_extents().width) / 72.0


def _fmt_signed(v: float) -> str:
    """Signed number with a typographic minus, precision adapted to magnitude."""
    if not np.isfinite(v):
        return "n/a"
    a = abs(v)
    if a == 0:
        s = "0"
    elif a >= 100:
        s = f"{v:+.0f}"
    elif a >= 10:
        s = f"{v:+.1f}"
    elif a >= 1:
        s = f"{v:+.2f}"
    elif a >= 1e-3:
        s = f"{v:+.3f}"
    else:
        s = f"{v:+.1e}"
    return s.replace("-", "\u2212")


def _fmt_num(v: float) -> str:
    if not np.isfinite(v):
        return "n/a"
    a = abs(v)
    if a != 0 and (a < 1e-3 or a >= 1e5):
        return f"{v:.2e}"
    return f"{v:.4g}"


def _grid(n: int) -> tuple[int, int]:
    """(rows, cols) for n panels: 1, 2, 2x2, then 3 columns up to 9, else 4."""
    if n <= 1:
        return 1, 1
    if n == 2:
        return 1, 2
    if n == 4:
        return 2, 2
    ncols = 3 if n <= 9 else 4
    return math.ceil(n / ncols), ncols


def _panel_axes(fig: Figure, n: int) -> list:
    """Create an n-panel grid and delete the unused trailing cells."""
    nrows, ncols = _grid(n)
    axs = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel().tolist()
    for extra in axs[n:]:
        fig.delaxes(extra)
    return axs[:n]


def _collect_models(summary: Mapping[str, Mapping[str, Any]]) -> list[str]:
    models: list[str] = []
    for cells in summary.values():
        for m in cells:
            if m not in models:
                models.append(m)
    return models


def _cell(cells: Mapping[str, Any], model: str) -> tuple[float, float, float]:
    c = cells.get(model)
    if c is None:
        return math.nan, math.nan, math.nan

    def g(key: str) -> float:
        v = c.get(key, math.nan)
        return math.nan if v is None else float(v)

    return g("mean"), g("lo"), g("hi")


def _yerr(mean: float, lo: float, hi: float) -> tuple[float, float] | None:
    """Asymmetric error bar lengths, or None when the CI is unavailable.

    Lengths are clamped at 0 (a CI that does not contain its mean -- only
    possible through rounding -- is drawn as a zero-length whisker).
    """
    if not (np.isfinite(mean) and np.isfinite(lo) and np.isfinite(hi)):
        return None
    return max(mean - lo, 0.0), max(hi - mean, 0.0)


def _luminance(rgba: Sequence[float]) -> float:
    r, g, b = rgba[:3]
    return 0.299 * r + 0.587 * g + 0.114 * b


# --------------------------------------------------------------------------- #
# saving
# --------------------------------------------------------------------------- #
def save_figure(
    fig: Figure,
    path: str | pathlib.Path,
    formats: Iterable[str] = ("png", "svg"),
    dpi: int = 200,
) -> list[pathlib.Path]:
    """Write ``fig`` once per format, deterministically; return the paths written.

    ``path`` may carry a graphics suffix (``.png``, ``.svg``, ``.pdf``, …); it is
    replaced by each format's suffix.  Any other suffix is kept as part of the
    stem (``figs/cd.k4`` -> ``figs/cd.k4.png``).  Parent directories are created.
    The figure is not closed.

    Determinism: PNG is written without the ``Software`` tag, SVG without a
    ``Date`` and with a fixed ``svg.hashsalt`` (stable element ids), PDF without
    creation date / producer, so identical inputs give byte-identical files.
    """
    p = pathlib.Path(path)
    if p.suffix.lower() in _KNOWN_SUFFIXES:
        p = p.with_suffix("")
    p.parent.mkdir(parents=True, exist_ok=True)
    written: list[pathlib.Path] = []
    for fmt in formats:
        fmt = str(fmt).lower().lstrip(".")
        if fmt == "png":
            metadata: dict[str, Any] | None = {"Software": None}
        elif fmt == "svg":
            metadata = {"Date": None}
        elif fmt == "pdf":
            metadata = {"Creator": None, "Producer": None, "CreationDate": None}
        else:
            metadata = None
        out = p.parent / f"{p.name}.{fmt}"
        with mpl.rc_context({"svg.hashsalt": "netzbench", "svg.fonttype": "path"}):
            fig.savefig(
                out,
                format=fmt,
                dpi=dpi,
                metadata=metadata,
                bbox_inches="tight",
                pad_inches=0.05,
                facecolor="white",
            )
        written.append(out)
    return written


# --------------------------------------------------------------------------- #
# Demšar critical-difference diagram
# --------------------------------------------------------------------------- #
def plot_critical_difference(
    mean_ranks: Mapping[str, float],
    cd: float | None,
    cliques: Sequence[Sequence[str]],
    friedman: Mapping[str, Any] | None = None,
    title: str | None = None,
    diagnostic_label: str | None = None,
    ax=None,
    color_order: Sequence[str] | None = None,
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
    default wording) is printed in their place.

    Cliques of fewer than two models are not drawn.  Ties in mean rank are
    drawn at the same axis position with separate labels.  Every clique
    member must be a key of ``mean_ranks``.

    Artists carry gids for programmatic inspection: ``"cd-bar"``,
    ``"cd-label"``, ``"clique"``, ``"friedman"``, ``"diagnostic-label"``,
    ``"model-label"``, ``"rank-axis"``.

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
    if cd is not None:
        for c in cliques or ():
            c = tuple(c)
            missing = [m for m in c if m not in ranks]
            if missing:
                raise ValueError(f"clique {c} contains models without a mean rank: {missing}")
            if len(set(c)) >= 2:
                clique_list.append(c)

    k = len(names)
    colors = _colors_for(names, color_order)
    order = sorted(names, key=lambda n: (ranks[n], names.index(n)))
    n_left = math.ceil(k / 2)
    left, right = order[:n_left], order[n_left:]
    labels = {n: f"{n} ({ranks[n]:.2f})" for n in names}

    lo = min(1.0, min(ranks.values()))
    hi = max(float(k), max(ranks.values()))
    if hi - lo < 1.0:
        hi = lo + 1.0

    stub_in = 0.22  # horizontal run of the elbow beyond the axis end
    gap_in = 0.06  # elbow end -> text
    label_w_in = max(_text_width_in(labels[n], _FS) for n in names)
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

    with mpl.rc_context(_RC):
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
            fig = _new_figure((x_right - x_left) * scale, y_max - y_min, layout=None)
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
                ax.text(t, tick_label_y, f"{int(round(t))}", ha="center", va="bottom", fontsize=_FS_SMALL)
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
                fontsize=_FS,
                gid="cd-label",
            )
        else:
            label = diagnostic_label or "diagnostic aggregation — no significance test"
            ax.text(
                (lo + hi) / 2,
                top_item_y,
                label,
                ha="center",
                va="center",
                fontsize=_FS,
                style="italic",
                color="#333333",
                gid="diagnostic-label",
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
        placements = [(n, i, "left") for i, n in enumerate(left)]
        placements += [(n, len(right) - 1 - i, "right") for i, n in enumerate(right)]
        for n, row, side in placements:
            r = ranks[n]
            y = label_y0 - row_step * row
            x_end = x_end_left if side == "left" else x_end_right
            ax.add_line(
                Line2D([r, r, x_end], [0, y, y], color=colors[n], lw=1.3, zorder=2, solid_joinstyle="miter")
            )
            ax.add_line(
                Line2D(
                    [r], [0], marker="o", markersize=5, color=colors[n], markeredgecolor="black",
                    markeredgewidth=0.6, zorder=5, linestyle="none",
                )
            )
            ax.text(
                x_end - gap if side == "left" else x_end + gap,
                y,
                labels[n],
                ha="right" if side == "left" else "left",
                va="center",
                fontsize=_FS,
                gid="model-label",
            )

        # ---- Friedman / title -----------------------------------------------
        for i, (txt, gid, kw) in enumerate(bottom_lines):
            ax.text((lo + hi) / 2, bottom_y - 0.24 * i, txt, ha="center", va="center", fontsize=_FS, gid=gid, **kw)
        if title:
            ax.text((lo + hi) / 2, title_y, title, ha="center", va="bottom", fontsize=_FS + 1, weight="bold",
                    gid="title")
    return fig


# --------------------------------------------------------------------------- #
# mean-rank bars
# --------------------------------------------------------------------------- #
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
    the order of ``mean_ranks``).
    """
    if not mean_ranks:
        raise ValueError("mean_ranks is empty")
    names = list(mean_ranks)
    colors = _colors_for(names, color_order)
    ranks = {n: float(mean_ranks[n]) for n in names}
    order = sorted(names, key=lambda n: (ranks[n], names.index(n)))
    k = len(names)
    with mpl.rc_context(_RC):
        if ax is None:
            name_w = max(_text_width_in(n, _FS_SMALL) for n in names)
            fig = _new_figure(4.8 + name_w, 0.34 * k + (1.45 if cd is not None else 1.0))
            ax = fig.add_subplot()
        else:
            fig = ax.figure
        ys = np.arange(k)
        vals = [ranks[n] for n in order]
        ax.barh(ys, vals, color=[colors[n] for n in order], edgecolor="black", linewidth=0.6, height=0.65)
        ax.set_yticks(ys, order)
        ax.invert_yaxis()
        xmax = max(float(k), max(vals))
        if cd is not None:
            xmax = max(xmax, vals[0] + float(cd))
        ax.set_xlim(0, xmax * 1.08 + 0.1)
        for y, v in zip(ys, vals):
            ax.text(v + 0.02 * xmax, y, f"{v:.2f}", va="center", ha="left", fontsize=_FS_SMALL)
        ax.set_xlabel("mean rank (lower is better)")
        if cd is not None:
            cd = float(cd)
            b0, b1 = vals[0], vals[0] + cd
            yb = -0.95
            ax.add_line(
                Line2D([b0, b1], [yb, yb], color="black", lw=1.4, marker="|", markersize=8,
                       markeredgewidth=1.4, gid="cd-bracket", clip_on=False)
            )
            ax.text((b0 + b1) / 2, yb - 0.15, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=_FS,
                    gid="cd-label")
            ax.add_line(Line2D([b1, b1], [yb, k - 0.5], color="#555555", lw=1.0, linestyle=":",
                               gid="cd-threshold"))
            ax.set_ylim(k - 0.5, -1.45)
        ax.spines["left"].set_visible(False)
        ax.tick_params(axis="y", length=0)
    return fig


# --------------------------------------------------------------------------- #
# grouped bars
# --------------------------------------------------------------------------- #
def plot_bars(
    summary: Mapping[str, Mapping[str, Mapping[str, float]]],
    metric_label: Mapping[str, str] | None = None,
) -> Figure:
    """Mean ± CI per (task, model) as bars, one panel per task.

    ``summary[task][model] = {"mean", "lo", "hi"}``.  Each panel has one bar
    per model (same colour for the same model in every panel, model order =
    first appearance across tasks) with a whisker from ``lo`` to ``hi``; bars
    start at zero.  A model that has no value for a task (NaN mean or absent
    key) keeps its slot, left empty and annotated "missing", so panels stay
    aligned.  Metrics differ between tasks (the y-label comes from
    ``metric_label[task]``): compare bars within a panel, never across panels.
    """
    if not summary:
        raise ValueError("summary is empty")
    tasks = list(summary)
    models = _collect_models(summary)
    if not models:
        raise ValueError("summary has no models")
    colors = model_colors(models)
    metric_label = metric_label or {}
    m = len(models)
    name_w = max(_text_width_in(n, _FS_SMALL) for n in models)
    nrows, ncols = _grid(len(tasks))
    pw = max(2.5, 0.3 * m + 1.0)
    ph = 2.1 + 0.72 * name_w
    with mpl.rc_context(_RC):
        fig = _new_figure(pw * ncols, ph * nrows)
        axs = _panel_axes(fig, len(tasks))
        for ax, task in zip(axs, tasks):
            cells = summary[task]
            xs = np.arange(m)
            trans = blended_transform_factory(ax.transData, ax.transAxes)
            for x, model in zip(xs, models):
                mean, lo, hi = _cell(cells, model)
                if not np.isfinite(mean):
                    ax.text(x, 0.04, "missing", rotation=90, ha="center", va="bottom", transform=trans,
                            fontsize=_FS_SMALL, color="#666666", style="italic", gid="missing")
                    continue
                ax.bar(x, mean, width=0.72, color=colors[model], edgecolor="black", linewidth=0.6)
                err = _yerr(mean, lo, hi)
                if err is not None:
                    ax.errorbar(x, mean, yerr=[[err[0]], [err[1]]], fmt="none", ecolor="black",
                                elinewidth=1.0, capsize=3, capthick=1.0)
            ax.axhline(0, color="black", lw=0.8)
            ax.set_xticks(xs, models, rotation=45, ha="right", rotation_mode="anchor")
            ax.set_xlim(-0.6, m - 0.4)
            ax.set_title(str(task))
            ax.set_ylabel(metric_label.get(task, ""))
            ax.tick_params(axis="x", length=0)
    return fig


# --------------------------------------------------------------------------- #
# forest plot
# --------------------------------------------------------------------------- #
def plot_forest(
    summary: Mapping[str, Mapping[str, Mapping[str, float]]],
    metric_label: Mapping[str, str] | None = None,
    direction: Mapping[str, str] | None = None,
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
    """
    if not summary:
        raise ValueError("summary is empty")
    tasks = list(summary)
    models = _collect_models(summary)
    colors = model_colors(models)
    metric_label = metric_label or {}
    direction = direction or {}
    m = len(models)
    name_w = max(_text_width_in(n, _FS_SMALL, "bold") for n in models)
    heights = [0.27 * m + 0.95 for _ in tasks]
    with mpl.rc_context(_RC):
        fig = _new_figure(4.8 + name_w, sum(heights))
        axs = fig.subplots(len(tasks), 1, squeeze=False, gridspec_kw={"height_ratios": heights}).ravel()
        for ax, task in zip(axs, tasks):
            d = direction.get(task, "higher")
            if d not in ("higher", "lower"):
                raise ValueError(f"direction[{task!r}] must be 'higher' or 'lower', got {d!r}")
            cells = summary[task]
            vals = [_cell(cells, mm) for mm in models]
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
                            fontsize=_FS_SMALL, color="#666666", style="italic", gid="missing")
                    continue
                if i in best:
                    ax.axhspan(i - 0.45, i + 0.45, color="#000000", alpha=0.07, lw=0, gid="best")
                if np.isfinite(lo) and np.isfinite(hi):
                    ax.add_line(Line2D([lo, hi], [i, i], color=colors[model], lw=2.0, solid_capstyle="butt"))
                ax.add_line(
                    Line2D([mean], [i], marker="D" if i in best else "o", markersize=7.5 if i in best else 5.5,
                           color=colors[model], markeredgecolor="black", markeredgewidth=0.7,
                           linestyle="none", zorder=3)
                )
            ax.autoscale_view()
            ax.set_yticks(np.arange(m), models)
            for i, lab in enumerate(ax.get_yticklabels()):
                if i in best:
                    lab.set_fontweight("bold")
            ax.set_ylim(m - 0.5, -0.5)
            ax.margins(x=0.08)
            arrow = "↑ better" if d == "higher" else "↓ better"
            ax.set_title(f"{task}  ({arrow})", loc="left")
            ax.set_xlabel(metric_label.get(task, ""))
            ax.spines["left"].set_visible(False)
            ax.tick_params(axis="y", length=0)
            ax.grid(axis="x", color="#E5E5E5", lw=0.6)
            ax.set_axisbelow(True)
    return fig


# --------------------------------------------------------------------------- #
# pairwise matrix
# --------------------------------------------------------------------------- #
def plot_pairwise_matrix(
    models: Sequence[str],
    p_holm: np.ndarray,
    mean_diff: np.ndarray,
    alpha: float = 0.05,
    title: str | None = None,
    ax=None,
) -> Figure:
    """k×k pairwise matrix: evidence below the diagonal, effect above it.

    * Below the diagonal (row i > column j): ``−log10(p_Holm[i, j])`` on a
      sequential scale (viridis); larger = stronger evidence.  The colour-bar
      marks the ``−log10(alpha)`` threshold.
    * Above the diagonal (row i < column j): the signed mean difference
      ``Δμ = mean(model_i − model_j)`` on a diverging scale (RdBu, centred at
      0, symmetric limits): blue = row model larger, red = column model larger.
      Whether larger is better depends on the metric direction.
    * Every off-diagonal cell shows its number; a ``*`` marks cells whose own
      ``p_holm[i, j] < alpha``.  NaN cells are grey and read "n/a".

    Returns the figure; it has the matrix axes plus two colour-bar axes.
    """
    models = list(models)
    k = len(models)
    P = np.asarray(p_holm, dtype=float)
    D = np.asarray(mean_diff, dtype=float)
    if P.shape != (k, k) or D.shape != (k, k):
        raise ValueError(f"p_holm and mean_diff must be {k}x{k}, got {P.shape} and {D.shape}")
    if k == 0:
        raise ValueError("models is empty")
    ii, jj = np.indices((k, k))
    lower, upper = ii > jj, ii < jj
    with np.errstate(divide="ignore", invalid="ignore"):
        L = -np.log10(np.clip(P, np.finfo(float).tiny, 1.0))
    L = np.where(lower & np.isfinite(P), L, np.nan)
    U = np.where(upper & np.isfinite(D), D, np.nan)
    thr = -math.log10(alpha)
    lmax = np.nanmax(L) if np.isfinite(L).any() else 0.0
    lmax = max(lmax, thr * 1.15, 1.0)
    dmax = np.nanmax(np.abs(U)) if np.isfinite(U).any() else 0.0
    dmax = dmax if dmax > 0 else 1.0
    lnorm, dnorm = Normalize(0.0, lmax), Normalize(-dmax, dmax)
    cmap_l, cmap_d = mpl.colormaps["viridis"], mpl.colormaps["RdBu"]

    with mpl.rc_context(_RC):
        if ax is None:
            name_w = max(_text_width_in(n, _FS_SMALL) for n in models)
            cell = 0.62
            fig = _new_figure(k * cell + name_w + 2.6, k * cell + 0.72 * name_w + 1.0)
            ax = fig.add_subplot()
        else:
            fig = ax.figure
        im_l = ax.imshow(np.ma.masked_invalid(L), cmap=cmap_l, norm=lnorm, interpolation="nearest")
        im_d = ax.imshow(np.ma.masked_invalid(U), cmap=cmap_d, norm=dnorm, interpolation="nearest")
        for i in range(k):
            for j in range(k):
                if i == j:
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, color=_DIAG_GREY, lw=0))
                    continue
                v = L[i, j] if i > j else U[i, j]
                if not np.isfinite(v):
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, color=_NA_GREY, lw=0))
                    ax.text(j, i, "n/a", ha="center", va="center", fontsize=_FS_SMALL, color="#333333",
                            gid=f"cell-{i}-{j}")
                    continue
                sig = bool(np.isfinite(P[i, j]) and P[i, j] < alpha)
                if i > j:
                    txt, rgba = f"{v + 0.0:.2f}", cmap_l(lnorm(v))  # + 0.0: no "-0.00" for p = 1
                else:
                    txt, rgba = _fmt_signed(v), cmap_d(dnorm(v))
                if sig:
                    txt += "*"
                ax.text(j, i, txt, ha="center", va="center", fontsize=_FS_SMALL,
                        color="white" if _luminance(rgba) < 0.5 else "black",
                        weight="bold" if sig else "normal", gid=f"cell-{i}-{j}")
        ax.set_xticks(range(k), models, rotation=45, ha="right", rotation_mode="anchor")
        ax.set_yticks(range(k), models)
        ax.set_xlim(-0.5, k - 0.5)
        ax.set_ylim(k - 0.5, -0.5)
        ax.tick_params(length=0)
        for s in ax.spines.values():
            s.set_visible(False)
        ax.set_xticks(np.arange(-0.5, k, 1), minor=True)
        ax.set_yticks(np.arange(-0.5, k, 1), minor=True)
        ax.grid(which="minor", color="white", lw=1.5)
        ax.tick_params(which="minor", length=0)
        cb_l = fig.colorbar(im_l, ax=ax, fraction=0.046, pad=0.03)
        cb_l.set_label("−log10 p_Holm (below diagonal)", fontsize=_FS_SMALL)
        cb_l.ax.axhline(thr, color="white", lw=1.6)
        cb_l.ax.axhline(thr, color="black", lw=0.8, linestyle="--")
        cb_d = fig.colorbar(im_d, ax=ax, fraction=0.046, pad=0.03)
        cb_d.set_label("Δμ = row − column (above diagonal)", fontsize=_FS_SMALL)
        head = title if title else "Pairwise comparisons"
        ax.set_title(f"{head}\n* p_Holm < {alpha:g}", fontsize=_FS + 0.5)
    return fig


# --------------------------------------------------------------------------- #
# pairwise list
# --------------------------------------------------------------------------- #
def plot_pairwise_list(rows: Sequence[Mapping[str, Any]], alpha: float = 0.05, title: str | None = None) -> Figure:
    """Pairwise comparisons as a list: one line per (task, model_a, model_b).

    ``rows``: dicts with ``task, model_a, model_b, mean_diff, p_holm`` and
    optionally ``significant`` (defaults to ``p_holm < alpha``).  Rows are
    grouped by task (bold task header, order of first appearance).  Each
    comparison shows ``Δμ = mean(model_a − model_b)`` as a point -- filled if
    significant after Holm correction, hollow otherwise -- against a dashed
    zero line; the Holm-adjusted p-value is listed on the right.  Points to the
    right of zero mean model_a scored higher.
    """
    rows = list(rows)
    if not rows:
        raise ValueError("rows is empty")
    tasks: list[str] = []
    for r in rows:
        if r["task"] not in tasks:
            tasks.append(r["task"])
    entries: list[tuple[str, Any]] = []  # ("header", task) or ("row", dict)
    for t in tasks:
        entries.append(("header", t))
        entries.extend(("row", r) for r in rows if r["task"] == t)
    n = len(entries)
    labels = [str(t) if kind == "header" else f"{t['model_a']} − {t['model_b']}" for kind, t in entries]
    name_w = max(_text_width_in(s, _FS_SMALL, "bold") for s in labels)
    sig_color = OKABE_ITO[0]
    with mpl.rc_context(_RC):
        fig = _new_figure(5.2 + name_w, 0.27 * n + 1.3)
        ax = fig.add_subplot()
        ys, ylabels, plabels, bold = [], [], [], []
        xs_fin: list[float] = []
        for y, ((kind, r), lab) in enumerate(zip(entries, labels)):
            ys.append(y)
            ylabels.append(lab)
            bold.append(kind == "header")
            if kind == "header":
                plabels.append("p_Holm" if y == 0 else "")
                if y > 0:
                    ax.axhline(y - 0.5, color="#CCCCCC", lw=0.8)
                continue
            d = float(r.get("mean_diff", math.nan) if r.get("mean_diff") is not None else math.nan)
            p = float(r.get("p_holm", math.nan) if r.get("p_holm") is not None else math.nan)
            sig = r.get("significant")
            sig = bool(sig) if sig is not None else bool(np.isfinite(p) and p < alpha)
            plabels.append(p_value(p) + ("*" if sig else ""))
            if not np.isfinite(d):
                ax.text(0, y, "n/a", ha="center", va="center", fontsize=_FS_SMALL, color="#666666")
                continue
            xs_fin.append(d)
            ax.add_line(
                Line2D([d], [y], marker="o", markersize=7, linestyle="none", markeredgewidth=1.3,
                       markeredgecolor=sig_color, markerfacecolor=sig_color if sig else "white",
                       zorder=3, gid="sig" if sig else "nonsig")
            )
            ax.add_line(Line2D([0, d], [y, y], color="#999999", lw=0.8, zorder=2))
        ax.axvline(0, color="black", lw=0.9, linestyle="--", zorder=1)
        span = max([abs(x) for x in xs_fin] + [0.0])
        span = span if span > 0 else 1.0
        ax.set_xlim(-span * 1.15, span * 1.15)
        ax.set_ylim(n - 0.5, -0.5)
        ax.set_yticks(ys, ylabels)
        for lab, b in zip(ax.get_yticklabels(), bold):
            if b:
                lab.set_fontweight("bold")
        ax.tick_params(axis="y", length=0)
        ax.spines["left"].set_visible(False)
        sec = ax.secondary_yaxis("right")
        sec.set_yticks(ys, plabels)
        sec.tick_params(length=0)
        sec.spines["right"].set_visible(False)
        ax.set_xlabel("Δμ = mean(model_a − model_b)")
        ax.grid(axis="x", color="#E5E5E5", lw=0.6)
        ax.set_axisbelow(True)
        handles = [
            Line2D([], [], marker="o", linestyle="none", markeredgecolor=sig_color, markerfacecolor=sig_color,
                   markersize=7, label=f"p_Holm < {alpha:g}"),
            Line2D([], [], marker="o", linestyle="none", markeredgecolor=sig_color, markerfacecolor="white",
                   markersize=7, markeredgewidth=1.3, label="not significant"),
        ]
        fig.legend(handles=handles, loc="outside lower center", ncols=2, frameon=False)
        ax.set_title(title if title else "Pairwise comparisons (Holm-adjusted)")
    return fig


# --------------------------------------------------------------------------- #
# learning curves
# --------------------------------------------------------------------------- #
def plot_learning_curves(
    curves: Mapping[str, Mapping[str, Mapping[str, Sequence[float]]]],
    ylabel: Mapping[str, str] | None = None,
    color_order: Sequence[str] | None = None,
) -> Figure:
    """Learning curves: mean over seeds per epoch with a shaded CI band.

    ``curves[task][model] = {"epochs", "mean", "lo", "hi"}`` (``lo``/``hi``
    optional; NaN entries leave gaps).  One panel per task, one line per model
    (colours consistent with the other figures), band = per-epoch confidence
    interval across seeds; a shared legend sits below the panels.  Panels have
    independent y-axes (``ylabel[task]``): compare curves within a panel.
    ``color_order`` fixes the model order of the colours (and of the legend).
    """
    if not curves:
        raise ValueError("curves is empty")
    tasks = list(curves)
    found = _collect_models(curves)
    models = [m for m in (color_order or []) if m in found] + [m for m in found if m not in (color_order or [])]
    colors = _colors_for(models, color_order)
    ylabel = ylabel or {}
    nrows, ncols = _grid(len(tasks))
    with mpl.rc_context(_RC):
        fig_w = 3.3 * ncols
        entry_w = max(_text_width_in(m, _FS_SMALL) for m in models) + 0.75
        legend_cols = max(1, min(len(models), int(fig_w // entry_w)))
        legend_rows = math.ceil(len(models) / legend_cols)
        fig = _new_figure(fig_w, 2.5 * nrows + 0.21 * legend_rows + 0.25)
        axs = _panel_axes(fig, len(tasks))
        for ax, task in zip(axs, tasks):
            for model in models:
                c = curves[task].get(model)
                if not c:
                    continue
                ep = np.asarray(c["epochs"], dtype=float)
                mean = np.asarray(c["mean"], dtype=float)
                ax.plot(ep, mean, color=colors[model], lw=1.6, label=model)
                if c.get("lo") is not None and c.get("hi") is not None:
                    lo = np.asarray(c["lo"], dtype=float)
                    hi = np.asarray(c["hi"], dtype=float)
                    ax.fill_between(ep, lo, hi, color=colors[model], alpha=0.2, lw=0,
                                    where=np.isfinite(lo) & np.isfinite(hi))
            ax.set_title(str(task))
            ax.set_xlabel("epoch")
            ax.set_ylabel(ylabel.get(task, ""))
            ax.grid(color="#EEEEEE", lw=0.6)
            ax.set_axisbelow(True)
        handles = [Line2D([], [], color=colors[m], lw=2.0, label=m) for m in models]
        fig.legend(handles=handles, loc="outside lower center", ncols=legend_cols, frameon=False)
    return fig


# --------------------------------------------------------------------------- #
# pairwise matrices of several tasks
# --------------------------------------------------------------------------- #
def plot_pairwise_grid(
    matrices: Mapping[str, tuple[Sequence[str], np.ndarray, np.ndarray]],
    alpha: float = 0.05,
    title: str | None = None,
) -> Figure:
    """One :func:`plot_pairwise_matrix` panel per task.

    ``matrices[task] = (models, p_holm, mean_diff)`` with the k×k arrays of
    :func:`plot_pairwise_matrix` (the Holm family is the task, so panels are
    not comparable in colour: each has its own colour bars).  Panels are laid
    out in at most three columns; ``title`` is printed above the grid.
    """
    if not matrices:
        raise ValueError("matrices is empty")
    tasks = list(matrices)
    n = len(tasks)
    ncols = min(3, n)
    nrows = math.ceil(n / ncols)
    all_models = [m for t in tasks for m in matrices[t][0]]
    if not all_models:
        raise ValueError("every task has an empty model list")
    name_w = max(_text_width_in(m, _FS_SMALL) for m in all_models)
    kmax = max(len(matrices[t][0]) for t in tasks)
    cell = 0.62
    pw = kmax * cell + name_w + 2.8
    ph = kmax * cell + 0.72 * name_w + 1.3
    with mpl.rc_context(_RC):
        fig = _new_figure(pw * ncols, ph * nrows + (0.4 if title else 0.0))
        axs = _panel_axes(fig, n)
        for ax, task in zip(axs, tasks):
            models, P, D = matrices[task]
            if len(models) == 0:
                ax.set_axis_off()
                ax.set_title(f"{task}: no models")
                continue
            plot_pairwise_matrix(models, P, D, alpha=alpha, title=str(task), ax=ax)
        if title:
            fig.suptitle(title, fontsize=_FS + 1, weight="bold")
    return fig


# --------------------------------------------------------------------------- #
# per-category dashboard (the paper's Figure 2)
# --------------------------------------------------------------------------- #
def plot_dashboard(
    panels: Mapping[str, Mapping[str, Mapping[str, Mapping[str, float]]]],
    metric_label: Mapping[str, str] | None = None,
    direction: Mapping[str, str] | None = None,
    models: Sequence[str] | None = None,
    title: str | None = None,
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
    panels -- the across-task comparison is the CD diagram.
    """
    if not panels:
        raise ValueError("panels is empty")
    metric_label = metric_label or {}
    direction = direction or {}
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
    cats = list(panels)
    max_tasks = max(max(len(v), 1) for v in panels.values())
    nrows, ncols = _grid(len(cats))
    pw = max(2.8, max_tasks * (0.26 * m + 0.55) + 0.9)
    ph = 2.7
    with mpl.rc_context(_RC):
        entry_w = max(_text_width_in(x, _FS_SMALL) for x in models) + 0.7
        fig_w = pw * ncols
        legend_cols = max(1, min(m, int(fig_w // entry_w)))
        legend_rows = math.ceil(m / legend_cols)
        fig = _new_figure(fig_w, ph * nrows + 0.22 * legend_rows + (0.45 if title else 0.2))
        axs = _panel_axes(fig, len(cats))
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
                vals = [_cell(cells, mm) for mm in models]
                means = np.array([v[0] for v in vals], dtype=float)
                best: set[int] = set()
                if np.isfinite(means).any():
                    target = np.nanmax(means) if d == "higher" else np.nanmin(means)
                    best = {i for i in range(m) if np.isfinite(means[i]) and means[i] == target}
                else:
                    ax.text(g, 0.5, "no results", ha="center", va="center", transform=trans, fontsize=_FS,
                            style="italic", color="#666666", gid="no-results")
                    continue
                for i, (model, (mean, lo, hi)) in enumerate(zip(models, vals)):
                    x = g + (i - (m - 1) / 2) * width
                    if not np.isfinite(mean):
                        ax.text(x, 0.03, "n/a", rotation=90, ha="center", va="bottom", transform=trans,
                                fontsize=_FS_SMALL - 1.5, color="#666666", gid="missing")
                        continue
                    ax.bar(x, mean, width=width * 0.92, color=colors[model], edgecolor="black",
                           linewidth=1.6 if i in best else 0.5, gid="best" if i in best else None)
                    err = _yerr(mean, lo, hi)
                    top = mean
                    if err is not None:
                        ax.errorbar(x, mean, yerr=[[err[0]], [err[1]]], fmt="none", ecolor="black",
                                    elinewidth=0.9, capsize=2, capthick=0.9)
                        top = mean + err[1]
                    tops.append(top)
                    if i in best:
                        ax.text(x, top, "★", ha="center", va="bottom", fontsize=_FS_SMALL, gid="best-star")
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
            ax.grid(axis="y", color="#EEEEEE", lw=0.6)
            ax.set_axisbelow(True)
        handles = [Rectangle((0, 0), 1, 1, facecolor=colors[mm], edgecolor="black", lw=0.5, label=mm)
                   for mm in models]
        handles.append(Line2D([], [], marker="$★$", color="black", linestyle="none", markersize=8,
                              label="best in task"))
        fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), legend_cols + 1),
                   frameon=False)
        if title:
            fig.suptitle(title, fontsize=_FS + 1, weight="bold")
    return fig


# --------------------------------------------------------------------------- #
# placeholder
# --------------------------------------------------------------------------- #
def plot_message(text: str, width: float = 6.0) -> Figure:
    """A small figure that only states ``text`` (e.g. why a plot has no data).

    Pipelines declare their figures as outputs; when there is nothing to draw
    (every task unavailable, one model only) the file still exists and says why.
    """
    import textwrap

    lines = textwrap.wrap(str(text), width=int(width * 12)) or [""]
    with mpl.rc_context(_RC):
        fig = _new_figure(width, 0.3 * len(lines) + 0.5, layout=None)
        ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
        ax.set_axis_off()
        ax.text(0.5, 0.5, "\n".join(lines), ha="center", va="center", fontsize=_FS, style="italic",
                color="#333333", gid="message")
    return fig
