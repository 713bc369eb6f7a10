"""What every figure shares: the model colours, fonts, panel grids, figure creation and saving.

* Colours: :data:`MODEL_PALETTE` (twelve colours, the Okabe–Ito ones first),
  assigned to models by their position in the model order
  (:func:`model_colors`), so the same model order gives the same colours in
  every figure.  With more than twelve models the palette cycles.
* Baselines (MLP, the link heuristics) keep their model colour and are drawn
  apart from the models under test: hatched bars (:data:`BASELINE_HATCH`),
  square markers (:data:`BASELINE_MARKER`).
* The candidate (the user's model benchmarked against the roster) keeps its
  model colour and is marked on top of it: its label in :data:`CANDIDATE_COLOR`
  (:func:`mark_candidate_label`), and a marker edged in it (CD diagram,
  forest plot) or hatched bars (dashboard).
* Fonts: 10 pt body text, 9 pt tick labels, nothing below 9 pt (:data:`RC`,
  applied while a figure is built).
* Figures are :class:`~matplotlib.figure.Figure` objects on an Agg canvas
  (:func:`new_figure`), never pyplot's global registry.
* Output: :func:`save_figure` writes PNG / SVG (and PDF) byte-identically for
  identical inputs, each through a temporary file renamed into place.
"""

from __future__ import annotations

import functools
import io
import math
import pathlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextPath

from ...records import StagedFiles

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

#: model colours in assignment order: Okabe–Ito without black (a black bar would hide its whisker, best-model edge
#: and hatching), then five colours from the tab20/ColorBrewer/Tol sets picked greedily, each the farthest
#: (CIEDE2000) from those before it and from black, white and :data:`CANDIDATE_COLOR`. Any two of the twelve are
#: >= 20.6 apart (Okabe–Ito's own closest pair: 21.7), so a roster of up to twelve models, baselines included,
#: needs no colour twice
MODEL_PALETTE: list[str] = OKABE_ITO[:7] + [
    "#7F7F7F",  # grey
    "#999933",  # olive
    "#FBB4AE",  # light pink
    "#98DF8A",  # light green
    "#6A3D9A",  # purple
]

#: hatch of a baseline's bars and marker of its means: it keeps its colour, but reads as a reference point
BASELINE_HATCH = "..."
BASELINE_MARKER = "s"
#: hatch of the candidate's bars (the edge already marks the best model)
CANDIDATE_HATCH = "///"

#: text and marker-edge colour of the candidate model (dark red: apart from every Okabe–Ito colour and black)
CANDIDATE_COLOR = "#A50026"

#: the resolution the report's PNGs are written at (save_figure's default)
DPI = 200
#: widest a figure is laid out (in): 2,900 px at the report's 200 dpi, so it reads at its natural size
MAX_WIDTH_IN = 14.5

FS = 10.0  # body text size (pt)
FS_SMALL = 9.0  # tick labels, annotations (pt) -- never go below this

# rc settings applied while a figure is being *built* (fonts and spines are
# read at artist creation time, so the figure keeps them afterwards).
RC: dict[str, Any] = {
    "font.size": FS,
    "axes.titlesize": FS + 0.5,
    "axes.labelsize": FS,
    "xtick.labelsize": FS_SMALL,
    "ytick.labelsize": FS_SMALL,
    "legend.fontsize": FS_SMALL,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.linewidth": 0.8,
    "svg.fonttype": "path",
}

_KNOWN_SUFFIXES = {".png", ".svg", ".pdf", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff", ".webp"}


def model_colors(models: Sequence[str]) -> dict[str, str]:
    """Map each model name to a colour of :data:`MODEL_PALETTE` by its position in ``models``.

    The i-th distinct model gets ``MODEL_PALETTE[i % 12]``; duplicates keep the colour
    of their first occurrence.  Passing the same model order to every figure
    therefore gives every model the same colour everywhere.
    """
    out: dict[str, str] = {}
    for name in models:
        if name not in out:
            out[name] = MODEL_PALETTE[len(out) % len(MODEL_PALETTE)]
    return out


def colors_for(names: Sequence[str], color_order: Sequence[str] | None) -> dict[str, str]:
    """Colours of ``names`` under :func:`model_colors` of ``color_order`` (then any name not in it)."""
    order = list(color_order or [])
    order += [n for n in names if n not in order]
    return model_colors(order)


def mark_candidate_label(text, bold: bool = True) -> None:
    """Style a matplotlib text naming the candidate: :data:`CANDIDATE_COLOR`, and bold unless the
    figure already uses bold for something else (the forest plot's best model)."""
    text.set_color(CANDIDATE_COLOR)
    if bold:
        text.set_fontweight("bold")


def best_indices(means: Sequence[float], direction: str, task: str) -> set[int]:
    """Positions of the best finite ``means`` (every tied one) when ``direction`` (``"higher"`` or
    ``"lower"``, else ValueError naming ``task``) is better; empty when none is finite."""
    if direction not in ("higher", "lower"):
        raise ValueError(f"direction[{task!r}] must be 'higher' or 'lower', got {direction!r}")
    arr = np.asarray(means, dtype=float)
    finite = np.isfinite(arr)
    if not finite.any():
        return set()
    target = np.nanmax(arr) if direction == "higher" else np.nanmin(arr)
    return {i for i in range(len(arr)) if finite[i] and arr[i] == target}


def new_figure(width: float, height: float, layout: str | None = "constrained") -> Figure:
    """A figure of ``width`` x ``height`` inches on its own Agg canvas (headless, no pyplot state)."""
    fig = Figure(figsize=(width, height), layout=layout)
    FigureCanvasAgg(fig)
    return fig


@functools.lru_cache(maxsize=4096)
def text_width_in(text: str, size: float, weight: str = "normal") -> float:
    """Width of ``text`` rendered at ``size`` pt in inches (renderer-free; remembered: the figures measure
    the same model and task names again and again, a text path each)."""
    if not text:
        return 0.0
    tp = TextPath((0, 0), text, size=size, prop=FontProperties(size=size, weight=weight))
    return float(tp.get_extents().width) / 72.0


def grid_shape(n: int) -> tuple[int, int]:
    """(rows, cols) for n panels: 1, 2, 2x2, then 3 columns up to 9, else 4."""
    if n <= 1:
        return 1, 1
    if n == 2:
        return 1, 2
    if n == 4:
        return 2, 2
    ncols = 3 if n <= 9 else 4
    return math.ceil(n / ncols), ncols


def panel_axes(fig: Figure, n: int) -> list:
    """Create an n-panel grid and delete the unused trailing cells."""
    nrows, ncols = grid_shape(n)
    axs = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel().tolist()
    for extra in axs[n:]:
        fig.delaxes(extra)
    return axs[:n]


def collect_models(summary: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The models of ``summary[task][model]``, in order of first appearance."""
    models: list[str] = []
    for cells in summary.values():
        for m in cells:
            if m not in models:
                models.append(m)
    return models


def cell_bounds(cells: Mapping[str, Any], model: str) -> tuple[float, float, float]:
    """``(mean, lo, hi)`` of ``cells[model]``; NaN for an absent cell or a None value."""
    c = cells.get(model)
    if c is None:
        return math.nan, math.nan, math.nan

    def g(key: str) -> float:
        v = c.get(key, math.nan)
        return math.nan if v is None else float(v)

    return g("mean"), g("lo"), g("hi")


def error_lengths(mean: float, lo: float, hi: float) -> tuple[float, float] | None:
    """Asymmetric error bar lengths, or None when the CI is unavailable.

    Lengths are clamped at 0 (a CI that does not contain its mean -- only
    possible through rounding -- is drawn as a zero-length whisker).
    """
    if not (np.isfinite(mean) and np.isfinite(lo) and np.isfinite(hi)):
        return None
    return max(mean - lo, 0.0), max(hi - mean, 0.0)


def clip_interval(lo: float, hi: float, bounds: tuple[float, float] | None) -> tuple[float, float]:
    """``(lo, hi)`` cut to the metric's range ``bounds`` (None: unchanged; NaN stays NaN), for marks drawn
    outside the axes' clipping or that set the axis limits."""
    if bounds is None:
        return lo, hi
    # comparisons with NaN are false: a missing bound stays missing
    return (bounds[0] if lo < bounds[0] else lo), (bounds[1] if hi > bounds[1] else hi)


def clamp_to_range(ax, axis: str, bounds: tuple[float, float] | None) -> None:
    """Keep the ``axis`` (``"x"`` or ``"y"``) limits of ``ax`` inside the metric's range ``bounds = (lower,
    upper)`` (±inf for an open end; None: no range).  Intervals are clipped to the range, so autoscaling
    margins past it would only show values the metric cannot take (an accuracy axis running to 1.05)."""
    if bounds is None:
        return
    get, put = (ax.get_xlim, ax.set_xlim) if axis == "x" else (ax.get_ylim, ax.set_ylim)
    lo, hi = get()
    new_lo, new_hi = max(lo, bounds[0]), min(hi, bounds[1])
    if (new_lo, new_hi) != (lo, hi) and new_lo < new_hi:
        put(new_lo, new_hi)


def range_spine(ax, bounds: tuple[float, float] | None) -> None:
    """Draw the y axis (spine and ticks) only over the part of the view inside ``bounds``, leaving any
    headroom above it (room for annotations) without ticks the metric cannot take."""
    if bounds is None:
        return
    lo, hi = ax.get_ylim()
    top, bottom = min(hi, bounds[1]), max(lo, bounds[0])
    if (bottom, top) == (lo, hi) or not bottom < top:
        return
    ticks = [t for t in ax.get_yticks() if bottom - 1e-9 <= t <= top + 1e-9]
    ax.set_yticks(ticks)
    ax.set_ylim(lo, hi)
    ax.spines["left"].set_bounds(bottom, top)


def figure_bytes(fig: Figure, fmt: str, dpi: int | None = None) -> bytes:
    """The file ``fig`` makes in format ``fmt``, deterministically (as :func:`save_figure` writes it)."""
    fmt = str(fmt).lower().lstrip(".")
    if fmt == "png":
        metadata: dict[str, Any] | None = {"Software": None}
    elif fmt == "svg":
        metadata = {"Date": None}
    elif fmt == "pdf":
        metadata = {"Creator": None, "Producer": None, "CreationDate": None}
    else:
        metadata = None
    buf = io.BytesIO()
    with mpl.rc_context({"svg.hashsalt": "netzbench", "svg.fonttype": "path"}):
        fig.savefig(buf, format=fmt, dpi=DPI if dpi is None else dpi, metadata=metadata, bbox_inches="tight",
                    pad_inches=0.05, facecolor="white")
    return buf.getvalue()


def save_figure(
    fig: Figure,
    path: str | pathlib.Path,
    formats: Iterable[str] = ("png", "svg"),
    dpi: int | None = None,
    *,
    staging: StagedFiles | None = None,
) -> list[pathlib.Path]:
    """Write ``fig`` once per format, deterministically; return the paths written.

    ``path`` may carry a graphics suffix (``.png``, ``.svg``, ``.pdf``, …); it is
    replaced by each format's suffix.  Any other suffix is kept as part of the
    stem (``figs/cd.k4`` -> ``figs/cd.k4.png``).  Parent directories are created.
    ``dpi``: of the raster formats, default :data:`DPI`. The figure is not closed.

    Determinism: PNG is written without the ``Software`` tag, SVG without a
    ``Date`` and with a fixed ``svg.hashsalt`` (stable element ids), PDF without
    creation date / producer, so identical inputs give byte-identical files.

    Each file is rendered into a temporary beside it; without ``staging`` they are renamed into
    place together once every format is written (a failure leaves the old files), with it they
    wait for ``staging``'s commit (the report stage publishes all its outputs at once).
    """
    dpi = DPI if dpi is None else dpi  # read here, not bound at import: the tests draw drafts (tests/conftest.py)
    if staging is None:
        with StagedFiles() as own:
            return save_figure(fig, path, formats, dpi, staging=own)
    p = pathlib.Path(path)
    if p.suffix.lower() in _KNOWN_SUFFIXES:
        p = p.with_suffix("")
    written: list[pathlib.Path] = []
    for fmt in formats:
        fmt = str(fmt).lower().lstrip(".")
        out = p.parent / f"{p.name}.{fmt}"
        with staging.open(out, "wb") as fh:
            fh.write(figure_bytes(fig, fmt, dpi))
        written.append(out)
    return written
