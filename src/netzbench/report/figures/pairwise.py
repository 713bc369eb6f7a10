"""Within-task comparison figures: the pairwise matrix (one task, or a grid of tasks) and the list.

The ``plot_*`` functions draw given Holm-adjusted p-values and mean
differences; :func:`pairwise_figure` takes them from a report's pairwise
tests (:mod:`netzbench.report.within_task`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from ..formatting import display_names, p_value
from ..within_task import TEST_NAMES
from ..figure_files import family_name, family_tasks
from .style import FS, FS_SMALL, MAX_WIDTH_IN, OKABE_ITO, RC, new_figure, text_width_in

_NA_GREY = "#D9D9D9"
_DIAG_GREY = "#F2F2F2"


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


def _luminance(rgba: Sequence[float]) -> float:
    r, g, b = rgba[:3]
    return 0.299 * r + 0.587 * g + 0.114 * b


_CELL_IN = 0.62  # side of a matrix cell (inches): fits a signed three-digit difference at 9 pt
_BARS_IN = 1.5  # the two shared colour bars of a grid, with their labels (inches)


def _layers(models: Sequence[str], p_holm, mean_diff) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(P, L, U)``: the p-values, ``−log10 p`` below the diagonal and Δμ above it (NaN elsewhere)."""
    k = len(models)
    P = np.asarray(p_holm, dtype=float)
    D = np.asarray(mean_diff, dtype=float)
    if P.shape != (k, k) or D.shape != (k, k):
        raise ValueError(f"p_holm and mean_diff must be {k}x{k}, got {P.shape} and {D.shape}")
    if k == 0:
        raise ValueError("models is empty")
    ii, jj = np.indices((k, k))
    with np.errstate(divide="ignore", invalid="ignore"):
        L = -np.log10(np.clip(P, np.finfo(float).tiny, 1.0))
    L = np.where((ii > jj) & np.isfinite(P), L, np.nan)
    U = np.where((ii < jj) & np.isfinite(D), D, np.nan)
    return P, L, U


def _evidence_max(L: np.ndarray, alpha: float) -> float:
    """Top of the ``−log10 p`` scale: the largest value, with room above the threshold."""
    lmax = np.nanmax(L) if np.isfinite(L).any() else 0.0
    return max(float(lmax), -math.log10(alpha) * 1.15, 1.0)


def _effect_max(U: np.ndarray) -> float:
    """Half-width of the symmetric Δμ scale: the largest ``|Δμ|`` (1 when there is none)."""
    dmax = np.nanmax(np.abs(U)) if np.isfinite(U).any() else 0.0
    return float(dmax) if dmax > 0 else 1.0


def _draw_matrix(ax, labels: Sequence[str], P, L, U, alpha: float, lnorm: Normalize, dmax: float, dnorm: Normalize):
    """Draw one matrix into ``ax``; Δμ is coloured as ``Δμ / dmax`` under ``dnorm`` (text: Δμ itself).

    Returns the two images (evidence, effect) for colour bars."""
    k = len(labels)
    cmap_l, cmap_d = mpl.colormaps["viridis"], mpl.colormaps["RdBu"]
    im_l = ax.imshow(np.ma.masked_invalid(L), cmap=cmap_l, norm=lnorm, interpolation="nearest")
    im_d = ax.imshow(np.ma.masked_invalid(U / dmax), cmap=cmap_d, norm=dnorm, interpolation="nearest")
    for i in range(k):
        for j in range(k):
            if i == j:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, color=_DIAG_GREY, lw=0))
                continue
            v = L[i, j] if i > j else U[i, j]
            if not np.isfinite(v):
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, color=_NA_GREY, lw=0))
                ax.text(j, i, "n/a", ha="center", va="center", fontsize=FS_SMALL, color="#333333",
                        gid=f"cell-{i}-{j}")
                continue
            sig = bool(np.isfinite(P[i, j]) and P[i, j] < alpha)
            if i > j:
                txt, rgba = f"{v + 0.0:.2f}", cmap_l(lnorm(v))  # + 0.0: no "-0.00" for p = 1
            else:
                txt, rgba = _fmt_signed(v), cmap_d(dnorm(v / dmax))
            if sig:
                txt += "*"
            ax.text(j, i, txt, ha="center", va="center", fontsize=FS_SMALL,
                    color="white" if _luminance(rgba) < 0.5 else "black",
                    weight="bold" if sig else "normal", gid=f"cell-{i}-{j}")
    ax.set_xticks(range(k), labels, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(k), labels)
    ax.set_xlim(-0.5, k - 0.5)
    ax.set_ylim(k - 0.5, -0.5)
    ax.tick_params(length=0)
    for s in ax.spines.values():
        s.set_visible(False)
    ax.set_xticks(np.arange(-0.5, k, 1), minor=True)
    ax.set_yticks(np.arange(-0.5, k, 1), minor=True)
    ax.grid(which="minor", color="white", lw=1.5)
    ax.tick_params(which="minor", length=0)
    return im_l, im_d


def _evidence_colorbar(fig, im, ax, alpha: float, label: str, **kw):
    """The ``−log10 p_Holm`` colour bar with the ``−log10(alpha)`` threshold marked."""
    thr = -math.log10(alpha)
    cb = fig.colorbar(im, ax=ax, **(kw or {"fraction": 0.046, "pad": 0.03}))
    cb.set_label(label, fontsize=FS_SMALL)
    cb.ax.axhline(thr, color="white", lw=1.6)
    cb.ax.axhline(thr, color="black", lw=0.8, linestyle="--")
    return cb


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

    Models are labelled by :func:`~netzbench.report.formatting.display_names`.
    Returns the figure; it has the matrix axes plus two colour-bar axes.
    """
    models = list(models)
    P, L, U = _layers(models, p_holm, mean_diff)
    k = len(models)
    shown = display_names(models)
    labels = [shown[m] for m in models]
    dmax = _effect_max(U)
    lnorm = Normalize(0.0, _evidence_max(L, alpha))
    with mpl.rc_context(RC):
        if ax is None:
            name_w = max(text_width_in(n, FS_SMALL) for n in labels)
            fig = new_figure(k * _CELL_IN + name_w + 2.6, k * _CELL_IN + 0.72 * name_w + 1.0)
            ax = fig.add_subplot()
        else:
            fig = ax.figure
        # Δμ is coloured in its own units here: dmax scales the data and the colour bar alike
        im_l, im_d = _draw_matrix(ax, labels, P, L, U, alpha, lnorm, 1.0, Normalize(-dmax, dmax))
        _evidence_colorbar(fig, im_l, ax, alpha, "−log10 p_Holm (below diagonal)")
        cb_d = fig.colorbar(im_d, ax=ax, fraction=0.046, pad=0.03)
        cb_d.set_label("Δμ = row − column (above diagonal)", fontsize=FS_SMALL)
        head = title if title else "Pairwise comparisons"
        ax.set_title(f"{head}\n* p_Holm < {alpha:g}", fontsize=FS + 0.5)
    return fig


def plot_pairwise_list(rows: Sequence[Mapping[str, Any]], alpha: float = 0.05, title: str | None = None) -> Figure:
    """Pairwise comparisons as a list: one line per (task, model_a, model_b).

    ``rows``: dicts with ``task, model_a, model_b, mean_diff, p_holm`` and
    optionally ``significant`` (defaults to ``p_holm < alpha``).  Rows are
    grouped by task (bold task header, order of first appearance).  Each
    comparison shows ``Δμ = mean(model_a − model_b)`` as a point -- filled if
    significant after Holm correction, hollow otherwise -- against a dashed
    zero line; the Holm-adjusted p-value is listed on the right.  Points to the
    right of zero mean model_a scored higher.  Models are labelled by
    :func:`~netzbench.report.formatting.display_names`.
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
    shown = display_names([m for r in rows for m in (r["model_a"], r["model_b"])])
    labels = [str(t) if kind == "header" else f"{shown[t['model_a']]} − {shown[t['model_b']]}"
              for kind, t in entries]
    name_w = max(text_width_in(s, FS_SMALL, "bold") for s in labels)
    sig_color = OKABE_ITO[0]
    with mpl.rc_context(RC):
        fig = new_figure(5.2 + name_w, 0.27 * n + 1.3)
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
                ax.text(0, y, "n/a", ha="center", va="center", fontsize=FS_SMALL, color="#666666")
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


def plot_pairwise_grid(
    matrices: Mapping[str, tuple[Sequence[str], np.ndarray, np.ndarray]],
    alpha: float = 0.05,
    title: str | None = None,
) -> Figure:
    """One pairwise matrix (as :func:`plot_pairwise_matrix`) per task, sharing one pair of colour bars.

    ``matrices[task] = (models, p_holm, mean_diff)`` with the k×k arrays of
    :func:`plot_pairwise_matrix`.  Panels fill rows no wider than :data:`.style.MAX_WIDTH_IN` (one
    column when a panel alone is wider), each sized to its cells and labels; ``title`` is printed above
    the grid.  The two colour bars on the right serve every panel:

    * ``−log10 p_Holm`` (below the diagonal) is on one scale for all panels --
      a p-value means the same on every task (each task is its own Holm
      family), so the shades compare across panels;
    * Δμ (above the diagonal) is in each task's metric units, which do not
      compare across tasks (accuracy, MAE, …): each panel is coloured as
      ``Δμ / max |Δμ|`` of that panel, so the shared bar runs from the
      panel's largest "column larger" (red) to its largest "row larger"
      (blue), and the cell texts give Δμ itself.
    """
    if not matrices:
        raise ValueError("matrices is empty")
    tasks = list(matrices)
    n = len(tasks)
    all_models = [m for t in tasks for m in matrices[t][0]]
    if not all_models:
        raise ValueError("every task has an empty model list")
    shown = display_names(all_models)  # one label per model across the panels
    layers = {t: _layers(matrices[t][0], matrices[t][1], matrices[t][2]) for t in tasks if len(matrices[t][0])}
    lmax = max([_evidence_max(L, alpha) for _, L, _ in layers.values()] + [1.0])
    lnorm, dnorm = Normalize(0.0, lmax), Normalize(-1.0, 1.0)
    name_w = max(text_width_in(shown[m], FS_SMALL) for m in all_models)
    kmax = max(len(matrices[t][0]) for t in tasks)
    pw = kmax * _CELL_IN + name_w + 0.3  # cells and row names
    ph = kmax * _CELL_IN + 0.72 * name_w + 0.45  # cells, column names (45°) and the task title
    fit = max(1, min(n, int((MAX_WIDTH_IN - _BARS_IN) // pw)))  # readable at natural size: no wider
    nrows = math.ceil(n / fit)
    ncols = math.ceil(n / nrows)  # the rows as even as the width allows (4 panels: 2 x 2, not 3 + 1)
    with mpl.rc_context(RC):
        fig = new_figure(pw * ncols + _BARS_IN, ph * nrows + (0.45 if title else 0.1))
        grid = fig.subplots(nrows, ncols, squeeze=False).ravel().tolist()
        for extra in grid[n:]:
            fig.delaxes(extra)
        axs = grid[:n]
        images = None
        for ax, task in zip(axs, tasks):
            models = list(matrices[task][0])
            if not models:
                ax.set_axis_off()
                ax.set_title(f"{task}: no models")
                continue
            P, L, U = layers[task]
            images = _draw_matrix(ax, [shown[m] for m in models], P, L, U, alpha, lnorm, _effect_max(U), dnorm)
            ax.set_title(str(task))
        if images is not None:
            # thin bars of fixed width (fraction of the grid's width would fatten them with every column)
            bar = {"fraction": 0.16 / fig.get_figwidth(), "pad": 0.1 / fig.get_figwidth(), "aspect": 40,
                   "shrink": min(1.0, 6.0 / fig.get_figheight()) if nrows > 1 else 1.0}
            _evidence_colorbar(fig, images[0], axs, alpha, f"−log10 p_Holm (below diagonal);  * p_Holm < {alpha:g}",
                               **bar)
            cb_d = fig.colorbar(images[1], ax=axs, ticks=[-1, 0, 1], **bar)
            cb_d.ax.set_yticklabels(["−max", "0", "+max"])
            cb_d.set_label("Δμ = row − column ÷ panel's max |Δμ| (above diagonal)", fontsize=FS_SMALL)
        if title:
            fig.suptitle(title, fontsize=FS + 1, weight="bold")
    return fig


def pairwise_figure(report, layout: str = "matrix", task: str | None = None, method: str | None = None,
                    family: str | None = None) -> Figure:
    """Pairwise comparisons of ``report`` under ``method`` (default its ``pairwise_method``), Holm-adjusted.

    ``layout="matrix"``: one :func:`plot_pairwise_matrix` (only ``task``, or
    a single task with two models) or a :func:`plot_pairwise_grid` of every
    task present with two models (of ``family``, e.g. ``"link_pred"``; default every family);
    ``layout="list"``: :func:`plot_pairwise_list`.
    """
    method = method or report.pairwise_method
    if task is not None:
        tasks = [task]
    elif family is not None:
        tasks = family_tasks(report, family, with_results=True)
        if not tasks:
            raise ValueError(f"the run has no {family_name(family)} task with results")
    else:
        tasks = report.present_tasks()
    label = TEST_NAMES[method]
    what = f"{family_name(family).capitalize()}: pairwise" if family is not None and task is None else "Pairwise"
    if layout == "list":
        rows = [r for r in report.pairwise(method) if r["task"] in tasks]
        if not rows:
            raise ValueError("no pairwise comparison to plot")
        return plot_pairwise_list(rows, alpha=report.alpha, title=f"{what} comparisons ({label}, Holm within task)")
    if layout != "matrix":
        raise ValueError(f"layout must be 'matrix' or 'list', got {layout!r}")
    mats = {t: report.pairwise_matrix(t, method) for t in tasks}
    mats = {t: v for t, v in mats.items() if len(v[0]) >= 2}
    if not mats:
        raise ValueError("no task has two models with results")
    if len(mats) == 1:
        (t, (names, P, D)), = mats.items()
        return plot_pairwise_matrix(names, P, D, alpha=report.alpha, title=f"{t} ({label})")
    return plot_pairwise_grid(mats, alpha=report.alpha, title=f"{what} comparisons ({label}, Holm within task)")
