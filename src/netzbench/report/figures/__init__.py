"""Publication-ready figures for netzbench reports, one module per kind of figure.

- :mod:`.style` -- colours (twelve, Okabe–Ito first, by model order; baselines
  hatched or square), fonts, panel grids, :func:`save_figure` (byte-identical
  PNG / SVG / PDF for identical inputs);
- :mod:`.ranks` -- the Demšar critical-difference diagram and mean-rank bars;
- :mod:`.cells` -- per-cell grouped bars; :mod:`.forest` -- the forest plot;
  :mod:`.dashboard` -- the dashboard by research category (after the paper's
  Figure 2), one axis per task; :mod:`.cell_data` -- what these read from a
  report, per task family;
- :mod:`.pairwise` -- pairwise matrix (one task or a grid of tasks) and list;
- :mod:`.curves` -- learning curves; :mod:`.message` -- a figure stating why
  there is nothing to draw.

Every ``plot_*`` function takes plain Python / numpy data (all statistics are
computed elsewhere and passed in), returns a :class:`matplotlib.figure.Figure`
and never touches pyplot's global figure registry: figures are built with
:class:`~matplotlib.figure.Figure` and an Agg canvas, so the package is
headless, thread-friendly and does not switch the user's backend.  The caller
owns the returned figure (``plt.close(fig)`` is harmless but unnecessary;
dropping the reference frees it).  The ``*_figure(report, ...)`` functions
behind :class:`~netzbench.report.BenchmarkReport`'s ``plot*`` methods read
the numbers from a report and call them.

The artefacts correspond to docs/statistics.md, section "Artefacts".
"""

from .cells import plot_bars
from .dashboard import plot_dashboard
from .forest import plot_forest
from .style import MODEL_PALETTE, OKABE_ITO, figure_bytes, model_colors, save_figure
from .curves import plot_learning_curves
from .message import plot_message
from .pairwise import plot_pairwise_grid, plot_pairwise_list, plot_pairwise_matrix
from .ranks import plot_critical_difference, plot_mean_ranks

__all__ = [
    "OKABE_ITO",
    "MODEL_PALETTE",
    "model_colors",
    "save_figure",
    "figure_bytes",
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
