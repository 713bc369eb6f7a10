"""A figure that only states why there is nothing to draw."""

from __future__ import annotations

import textwrap

import matplotlib as mpl
from matplotlib.figure import Figure

from .style import FS, RC, new_figure


def plot_message(text: str, width: float = 6.0) -> Figure:
    """A small figure that only states ``text`` (e.g. why a plot has no data).

    Pipelines declare their figures as outputs; when there is nothing to draw
    (every task unavailable, one model only) the file still exists and says why.
    """
    lines = textwrap.wrap(str(text), width=int(width * 12)) or [""]
    with mpl.rc_context(RC):
        fig = new_figure(width, 0.3 * len(lines) + 0.5, layout=None)
        ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
        ax.set_axis_off()
        ax.text(0.5, 0.5, "\n".join(lines), ha="center", va="center", fontsize=FS, style="italic",
                color="#333333", gid="message")
    return fig
