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

from ..formatting import p_value
from ..within_task import TEST_NAMES
from .common import FS, FS_SMALL, OKABE_ITO, RC, new_figure, panel_axes, text_width_in

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

    with mpl.rc_context(RC):
        if ax is None:
            name_w = max(text_width_in(n, FS_SMALL) for n in models)
            cell = 0.62
            fig = new_figure(k * cell + name_w + 2.6, k * cell + 0.72 * name_w + 1.0)
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
                    ax.text(j, i, "n/a", ha="center", va="center", fontsize=FS_SMALL, color="#333333",
                            gid=f"cell-{i}-{j}")
                    continue
                sig = bool(np.isfinite(P[i, j]) and P[i, j] < alpha)
                if i > j:
                    txt, rgba = f"{v + 0.0:.2f}", cmap_l(lnorm(v))  # + 0.0: no "-0.00" for p = 1
                else:
                    txt, rgba = _fmt_signed(v), cmap_d(dnorm(v))
                if sig:
                    txt += "*"
                ax.text(j, i, txt, ha="center", va="center", fontsize=FS_SMALL,
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
        cb_l.set_label("−log10 p_Holm (below diagonal)", fontsize=FS_SMALL)
        cb_l.ax.axhline(thr, color="white", lw=1.6)
        cb_l.ax.axhline(thr, color="black", lw=0.8, linestyle="--")
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
    name_w = max(text_width_in(m, FS_SMALL) for m in all_models)
    kmax = max(len(matrices[t][0]) for t in tasks)
    cell = 0.62
    pw = kmax * cell + name_w + 2.8
    ph = kmax * cell + 0.72 * name_w + 1.3
    with mpl.rc_context(RC):
        fig = new_figure(pw * ncols, ph * nrows + (0.4 if title else 0.0))
        axs = panel_axes(fig, n)
        for ax, task in zip(axs, tasks):
            models, P, D = matrices[task]
            if len(models) == 0:
                ax.set_axis_off()
                ax.set_title(f"{task}: no models")
                continue
            plot_pairwise_matrix(models, P, D, alpha=alpha, title=str(task), ax=ax)
        if title:
            fig.suptitle(title, fontsize=FS + 1, weight="bold")
    return fig


def pairwise_figure(report, layout: str = "matrix", task: str | None = None, method: str | None = None) -> Figure:
    """Pairwise comparisons of ``report`` under ``method`` (default its ``pairwise_method``), Holm-adjusted.

    ``layout="matrix"``: one :func:`plot_pairwise_matrix` (only ``task``, or
    a single task with two models) or a :func:`plot_pairwise_grid` of every
    task present with two models; ``layout="list"``: :func:`plot_pairwise_list`.
    """
    method = method or report.pairwise_method
    tasks = [task] if task is not None else report.present_tasks()
    label = TEST_NAMES[method]
    if layout == "list":
        rows = [r for r in report.pairwise(method) if r["task"] in tasks]
        if not rows:
            raise ValueError("no pairwise comparison to plot")
        return plot_pairwise_list(rows, alpha=report.alpha, title=f"Pairwise comparisons ({label}, Holm within task)")
    if layout != "matrix":
        raise ValueError(f"layout must be 'matrix' or 'list', got {layout!r}")
    mats = {t: report.pairwise_matrix(t, method) for t in tasks}
    mats = {t: v for t, v in mats.items() if len(v[0]) >= 2}
    if not mats:
        raise ValueError("no task has two models with results")
    if len(mats) == 1:
        (t, (names, P, D)), = mats.items()
        return plot_pairwise_matrix(names, P, D, alpha=report.alpha, title=f"{t} ({label})")
    return plot_pairwise_grid(mats, alpha=report.alpha, title=f"Pairwise comparisons ({label}, Holm within task)")
