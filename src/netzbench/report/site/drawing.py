"""The site's own vector drawings, as inline SVG: learning curves per model and mean-rank bars.

Drawn here rather than by matplotlib so that they are small, scale with the page (``viewBox``) and
take their colours from the stylesheet (classes ``test``, ``val``, ``seed``, ``mean``, ``bar``), so
the page's light and dark themes both apply. Coordinates are rounded to 0.1 px.
"""

from __future__ import annotations

import math
from html import escape

W, H = 320, 190  # one learning-curve panel
LEFT, RIGHT, TOP, BOTTOM = 46, 10, 22, 30


def nice_ticks(lo: float, hi: float, n: int = 4) -> list[float]:
    """About ``n`` round tick values covering ``[lo, hi]`` (steps of 1, 2 or 5 times a power of ten)."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo] if math.isfinite(lo) else []
    raw = (hi - lo) / n
    power = 10 ** math.floor(math.log10(raw))
    step = next(s * power for s in (1, 2, 5, 10) if s * power >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    return [round(first + i * step, 12) for i in range(int((hi - first) / step + 1e-9) + 1)]


def _tick_text(v: float, ticks: list[float]) -> str:
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    digits = max(0, -math.floor(math.log10(step))) if step > 0 else 0
    return f"{v:.{digits}f}"


def _points(xs, ys, sx, sy) -> list[str]:
    """``points`` attributes of the polylines through (xs, ys), split where a value is missing."""
    out, run = [], []
    for x, y in zip(xs, ys):
        if y is None or not math.isfinite(y):
            if len(run) > 1:
                out.append(" ".join(run))
            run = []
            continue
        run.append(f"{sx(x):.1f},{sy(y):.1f}")
    if len(run) > 1:
        out.append(" ".join(run))
    elif len(run) == 1:  # a single evaluation: a dot's worth of line
        x, y = run[0].split(",")
        out.append(f"{x},{y} {float(x) + 0.1:.1f},{y}")
    return out


def value_range(panels: list[dict]) -> tuple[float, float]:
    """The y range every panel of a task shares: all the values drawn, padded by 5 %."""
    vals = [y for p in panels for s in p["series"] for y in s["y"] if y is not None and math.isfinite(y)]
    if not vals:
        return 0.0, 1.0
    lo, hi = min(vals), max(vals)
    pad = (hi - lo) * 0.05 or max(abs(hi) * 0.05, 0.01)
    return lo - pad, hi + pad


def curve_panel(panel: dict, y_range: tuple[float, float], ylabel: str) -> str:
    """One model's learning curves: ``panel["series"]`` = ``[{"x", "y", "kind": "test"|"val",
    "mean": bool}]`` (a seed's series or the mean over seeds), on a shared y range."""
    xs = [x for s in panel["series"] for x in s["x"]]
    x0, x1 = (min(xs), max(xs)) if xs else (0, 1)
    x1 = x1 if x1 > x0 else x0 + 1
    y0, y1 = y_range

    def sx(x):
        return LEFT + (x - x0) / (x1 - x0) * (W - LEFT - RIGHT)

    def sy(y):
        return H - BOTTOM - (y - y0) / (y1 - y0) * (H - TOP - BOTTOM)

    parts = [f'<svg viewBox="0 0 {W} {H}" role="img" aria-label="{escape(panel["label"])}: {escape(ylabel)} '
             'per epoch, validation and test, per seed and mean">',
             f'<text class="panel-title" x="{LEFT}" y="14">{escape(panel["label"])}</text>',
             f'<rect class="frame" x="{LEFT}" y="{TOP}" width="{W - LEFT - RIGHT}" height="{H - TOP - BOTTOM}"/>']
    yt = nice_ticks(y0, y1)
    for t in yt:
        parts.append(f'<line class="grid" x1="{LEFT}" x2="{W - RIGHT}" y1="{sy(t):.1f}" y2="{sy(t):.1f}"/>'
                     f'<text class="tick" x="{LEFT - 4}" y="{sy(t) + 3:.1f}" text-anchor="end">'
                     f'{_tick_text(t, yt)}</text>')
    xt = [t for t in nice_ticks(x0, x1, 3) if x0 <= t <= x1]
    for t in xt:
        parts.append(f'<text class="tick" x="{sx(t):.1f}" y="{H - BOTTOM + 13}" text-anchor="middle">'
                     f'{_tick_text(t, xt)}</text>')
    parts.append(f'<text class="axis-label" x="{(LEFT + W - RIGHT) / 2:.1f}" y="{H - 4}" '
                 'text-anchor="middle">epoch</text>')
    for s in sorted(panel["series"], key=lambda s: s["mean"]):  # means on top
        cls = f'{s["kind"]} {"mean" if s["mean"] else "seed"}'
        parts += [f'<polyline class="{cls}" points="{pts}"/>' for pts in _points(s["x"], s["y"], sx, sy)]
    parts.append("</svg>")
    return "".join(parts)


def rank_bars(mean_ranks: dict[str, float], labels: dict[str, str], cd: float | None,
              candidate: str | None = None) -> str:
    """Horizontal bars of the mean ranks (1 = best), best first, with the critical difference as a bracket
    from rank 1 when there is one."""
    order = sorted((m for m, r in mean_ranks.items() if math.isfinite(r)), key=lambda m: mean_ranks[m])
    if not order:
        return ""
    k = max(len(mean_ranks), 2)
    width, row, left, right, top = 560, 26, 150, 50, 34
    height = top + row * len(order) + 26

    def sx(r):
        return left + (r - 0) / k * (width - left - right)

    parts = [f'<svg viewBox="0 0 {width} {height}" role="img" aria-label="mean rank per model, 1 is best">']
    for t in range(1, k + 1):
        parts.append(f'<line class="grid" x1="{sx(t):.1f}" x2="{sx(t):.1f}" y1="{top - 6}" '
                     f'y2="{height - 22}"/><text class="tick" x="{sx(t):.1f}" y="{height - 8}" '
                     f'text-anchor="middle">{t}</text>')
    if cd is not None and math.isfinite(cd) and cd > 0:
        x0, x1 = sx(1), sx(min(1 + cd, k))
        parts.append(f'<path class="cd" d="M{x0:.1f},{top - 10} V{top - 16} H{x1:.1f} V{top - 10}"/>'
                     f'<text class="tick" x="{(x0 + x1) / 2:.1f}" y="{top - 20}" text-anchor="middle">'
                     f'CD = {cd:.2f}</text>')
    for i, m in enumerate(order):
        y = top + i * row
        cls = "bar candidate" if m == candidate else "bar"
        parts.append(f'<text class="bar-label" x="{left - 8}" y="{y + row / 2 + 4:.1f}" text-anchor="end">'
                     f'{escape(labels.get(m, m))}</text>'
                     f'<rect class="{cls}" x="{sx(0):.1f}" y="{y + 4}" width="{sx(mean_ranks[m]) - sx(0):.1f}" '
                     f'height="{row - 8}"><title>{escape(labels.get(m, m))}: {mean_ranks[m]:.2f}</title></rect>'
                     f'<text class="tick" x="{sx(mean_ranks[m]) + 5:.1f}" y="{y + row / 2 + 4:.1f}">'
                     f'{mean_ranks[m]:.2f}</text>')
    parts.append("</svg>")
    return "".join(parts)
