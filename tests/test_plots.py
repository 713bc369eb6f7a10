"""Tests for netzbench.report.figures (rendering, CD-diagram semantics, determinism)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from netzbench.report import figures as P

MODEL_POOL = ["GCN", "GAT", "GraphSAGE", "Graph Transformer", "GIN", "A_rather_long_model_name_v2"]


def _models(k: int) -> list[str]:
    return MODEL_POOL[:k]


def _summary(k: int, n_tasks: int, seed: int = 0, nan_cell: bool = False) -> dict:
    rng = np.random.default_rng(seed)
    out: dict = {}
    for t in range(n_tasks):
        cells = {}
        for m in _models(k):
            mu = float(rng.uniform(0.5, 0.9))
            cells[m] = {"mean": mu, "lo": mu - 0.03, "hi": mu + 0.02}
        out[f"task{t}"] = cells
    if nan_cell:
        first = next(iter(out))
        out[first][_models(k)[-1]] = {"mean": math.nan, "lo": math.nan, "hi": math.nan}
    return out


def _gid_lines(ax, gid: str) -> list:
    return [ln for ln in ax.lines if ln.get_gid() == gid]


def _gid_texts(ax, gid: str) -> list:
    return [t for t in ax.texts if t.get_gid() == gid]


def _draw(fig: Figure) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. constrained-layout / glyph warnings
        fig.canvas.draw()


# --------------------------------------------------------------------------- #
def test_model_colors_stable_and_cycling():
    models = [f"m{i}" for i in range(10)]
    c = P.model_colors(models)
    assert list(c) == models
    assert [c[m] for m in models[:7]] == P.OKABE_ITO[:7]  # Okabe–Ito first, without its black
    assert len(set(c.values())) == 10  # ten models, ten colours (issue 28: GCN and ResourceAllocation shared one)
    assert P.model_colors(models[:3]) == {m: c[m] for m in models[:3]}
    assert len(P.MODEL_PALETTE) == 12 and len(set(P.MODEL_PALETTE)) == 12 and "#000000" not in P.MODEL_PALETTE
    assert P.model_colors([f"m{i}" for i in range(13)])["m12"] == P.MODEL_PALETTE[0]  # cycles after 12


# --------------------------------------------------------------------------- #
# CD diagram
# --------------------------------------------------------------------------- #
def test_cd_diagram_elements():
    mr = {"GCN": 2.4, "GraphSAGE": 2.1, "Graph Transformer": 2.6, "GAT": 2.9}
    cliques = [("GraphSAGE", "GCN", "Graph Transformer"), ("Graph Transformer", "GAT")]
    fig = P.plot_critical_difference(
        mr, 1.4812, cliques, friedman={"chi2": 2.04, "p_value": 0.5641, "n_tasks": 10}, title="CD"
    )
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    _draw(fig)
    texts = [t.get_text() for t in ax.texts]
    assert "CD = 1.48" in texts
    assert "Friedman χ² = 2.04, p = 0.564, N = 10 tasks" in texts
    labels = [t.get_text() for t in _gid_texts(ax, "model-label")]
    assert len(labels) == 4
    for name, r in mr.items():
        assert f"{name} ({r:.2f})" in labels
    assert len(_gid_lines(ax, "cd-bar")) == 1
    bar = _gid_lines(ax, "cd-bar")[0]
    assert np.allclose(bar.get_xdata(), [1.0, 1.0 + 1.4812])  # starts at rank 1, length cd
    clique_lines = _gid_lines(ax, "clique")
    assert len(clique_lines) == 2
    # each bar spans (at least) its members' mean ranks and is thick
    spans = sorted((min(ln.get_xdata()), max(ln.get_xdata())) for ln in clique_lines)
    assert spans[0][0] <= 2.1 and spans[0][1] >= 2.6
    assert spans[1][0] <= 2.6 and spans[1][1] >= 2.9
    assert all(ln.get_linewidth() >= 3 for ln in clique_lines)
    # overlapping cliques (sharing "Graph Transformer") go on different rows
    assert len({ln.get_ydata()[0] for ln in clique_lines}) == 2
    assert not _gid_texts(ax, "diagnostic-label")


def test_cd_diagram_label_sides_best_left():
    mr = {"a": 3.5, "b": 1.0, "c": 2.0, "d": 3.5, "e": 5.0}  # ties a/d
    fig = P.plot_critical_difference(mr, 2.0, [("b", "c"), ("a", "d", "e")])
    ax = fig.axes[0]
    by_name = {t.get_text().split(" (")[0]: t for t in _gid_texts(ax, "model-label")}
    assert set(by_name) == set(mr)
    left = {n for n, t in by_name.items() if t.get_ha() == "right"}
    assert left == {"b", "c", "a"}  # best ceil(5/2)=3 on the left (tie broken by input order)
    xs = {n: t.get_position()[0] for n, t in by_name.items()}
    assert xs["b"] < 1.0 < 5.0 < xs["e"]
    _draw(fig)


def test_cd_diagram_no_friedman_and_k2():
    fig = P.plot_critical_difference({"A": 1.3, "B": 1.7}, 0.62, [("A", "B")])
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert not any("Friedman" in s for s in texts)
    assert "CD = 0.62" in texts
    assert len(_gid_lines(ax, "clique")) == 1
    _draw(fig)


def test_cd_diagram_cd_none_is_diagnostic():
    label = "reliability-weighted mean ranks — diagnostic, no significance test"
    fig = P.plot_critical_difference(
        {m: float(i + 1) for i, m in enumerate(_models(6))}, None, [("GCN", "GAT")], diagnostic_label=label
    )
    ax = fig.axes[0]
    assert not _gid_lines(ax, "cd-bar") and not _gid_lines(ax, "clique")
    assert [t.get_text() for t in _gid_texts(ax, "diagnostic-label")] == [label]
    assert not any(t.get_text().startswith("CD = ") for t in ax.texts)
    _draw(fig)


def test_cd_diagram_cd_longer_than_axis_and_singleton_clique_and_validation():
    fig = P.plot_critical_difference({"A": 1.2, "B": 1.8}, 2.5, [("A",), ("A", "B")])
    ax = fig.axes[0]
    assert len(_gid_lines(ax, "clique")) == 1  # singleton not drawn
    assert ax.get_xlim()[1] >= 1 + 2.5
    with pytest.raises(ValueError):
        P.plot_critical_difference({"A": 1.2, "B": 1.8}, 1.0, [("A", "Z")])


def test_cd_diagram_into_given_axes():
    host = Figure(figsize=(8, 3))
    FigureCanvasAgg(host)
    ax = host.add_subplot()
    out = P.plot_critical_difference({m: 1.0 + i * 0.5 for i, m in enumerate(_models(4))}, 1.1, [], ax=ax)
    assert out is host
    _draw(out)


# --------------------------------------------------------------------------- #
# other figures
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("k", [2, 4, 6])
def test_mean_ranks(k):
    mr = {m: float(k - i) for i, m in enumerate(_models(k))}
    fig = P.plot_mean_ranks(mr, cd=1.2)
    ax = fig.axes[0]
    assert len(fig.axes) == 1
    # sorted best first: top tick label is the lowest mean rank
    assert [t.get_text() for t in ax.get_yticklabels()][0] == _models(k)[-1]
    assert len(_gid_lines(ax, "cd-bracket")) == 1
    _draw(fig)
    assert not _gid_lines(P.plot_mean_ranks(mr).axes[0], "cd-bracket")


@pytest.mark.parametrize("k,n_tasks", [(2, 1), (4, 5), (6, 5)])
def test_bars(k, n_tasks):
    fig = P.plot_bars(_summary(k, n_tasks, nan_cell=True), {"task0": "accuracy"})
    assert len(fig.axes) == n_tasks
    assert fig.axes[0].get_ylabel() == "accuracy"
    assert len(fig.axes[0].patches) == k - 1  # missing slot has no bar
    assert [t.get_text() for t in fig.axes[0].texts if t.get_gid() == "missing"] == ["missing"]
    _draw(fig)


@pytest.mark.parametrize("k,n_tasks", [(2, 1), (6, 5)])
def test_forest(k, n_tasks):
    summ = _summary(k, n_tasks, nan_cell=True)
    direction = {"task0": "lower"}
    fig = P.plot_forest(summ, {t: "MAE" for t in summ}, direction)
    assert len(fig.axes) == n_tasks
    ax0 = fig.axes[0]
    assert ax0.get_title(loc="left") == "task0" and ax0.get_xlabel() == "MAE (↓ better)"
    if n_tasks > 1:
        assert "↑ better" in fig.axes[1].get_xlabel()
    finite = {m: c["mean"] for m, c in summ["task0"].items() if np.isfinite(c["mean"])}
    best = list(summ["task0"]).index(min(finite, key=finite.get))
    assert [ln.get_ydata()[0] for ln in ax0.lines if ln.get_marker() == "D"] == [best]
    assert [t.get_text() for t in _gid_texts(ax0, "missing")] == ["missing"]
    _draw(fig)
    with pytest.raises(ValueError):
        P.plot_forest(summ, direction={"task0": "up"})


def _pairwise_inputs(k: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.0, 0.12, (k, k))
    p = np.minimum(p, p.T)
    np.fill_diagonal(p, np.nan)
    d = rng.normal(0, 0.02, (k, k))
    d = d - d.T
    return p, d


@pytest.mark.parametrize("k", [2, 4, 6])
def test_pairwise_matrix_stars_exactly_where_significant(k):
    p, d = _pairwise_inputs(k)
    p[0, 1] = 0.01
    p[1, 0] = 0.2
    if k > 2:
        p[2, 0] = np.nan  # n/a cell below the diagonal
        d[0, 2] = np.nan  # n/a cell above the diagonal
    alpha = 0.05
    fig = P.plot_pairwise_matrix(_models(k), p, d, alpha=alpha, title="task0")
    assert len(fig.axes) == 3  # matrix + two colour bars
    ax = fig.axes[0]
    cells = {t.get_gid(): t.get_text() for t in ax.texts if (t.get_gid() or "").startswith("cell-")}
    assert len(cells) == k * (k - 1)
    for i in range(k):
        for j in range(k):
            if i == j:
                continue
            txt = cells[f"cell-{i}-{j}"]
            shown = d[i, j] if i < j else p[i, j]
            if not np.isfinite(shown):
                assert txt == "n/a"
                continue
            assert txt.endswith("*") == bool(p[i, j] < alpha), (i, j, txt, p[i, j])
    assert cells["cell-0-1"].endswith("*") and not cells["cell-1-0"].endswith("*")
    # lower triangle shows -log10 p
    assert cells["cell-1-0"] == f"{-np.log10(0.2):.2f}"
    _draw(fig)


def test_pairwise_list():
    rows = [
        {"task": "Cora", "model_a": "GAT", "model_b": "GCN", "mean_diff": -0.018, "p_holm": 0.0005,
         "significant": True},
        {"task": "Cora", "model_a": "GAT", "model_b": "GraphSAGE", "mean_diff": -0.006, "p_holm": 0.34,
         "significant": False},
        {"task": "CiteSeer", "model_a": "GAT", "model_b": "GCN", "mean_diff": float("nan"), "p_holm": float("nan")},
        {"task": "CiteSeer", "model_a": "GCN", "model_b": "GraphSAGE", "mean_diff": 0.01, "p_holm": 0.01},
    ]
    fig = P.plot_pairwise_list(rows, title="pairwise")
    ax = fig.axes[0]
    assert len(fig.axes) == 1
    assert len(_gid_lines(ax, "sig")) == 2 and len(_gid_lines(ax, "nonsig")) == 1
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["Cora", "GAT − GCN", "GAT − GraphSAGE", "CiteSeer", "GAT − GCN", "GCN − GraphSAGE"]
    _draw(fig)


@pytest.mark.parametrize("k,n_tasks", [(2, 1), (6, 5)])
def test_learning_curves(k, n_tasks):
    ep = list(range(1, 21))
    base = np.log1p(np.arange(20))
    curves = {
        f"task{t}": {
            m: {"epochs": ep, "mean": list(base * 0.1 * (i + 1)), "lo": list(base * 0.1 * (i + 1) - 0.05),
                "hi": list(base * 0.1 * (i + 1) + 0.05)}
            for i, m in enumerate(_models(k))
        }
        for t in range(n_tasks)
    }
    curves["task0"][_models(k)[0]]["mean"][3] = float("nan")
    fig = P.plot_learning_curves(curves, {"task0": "val acc"})
    assert len(fig.axes) == n_tasks
    assert len(fig.axes[0].lines) == k
    assert fig.axes[0].get_ylabel() == "val acc"
    assert len(fig.legends) == 1 and len(fig.legends[0].get_texts()) == k
    _draw(fig)


# --------------------------------------------------------------------------- #
# saving
# --------------------------------------------------------------------------- #
def _cd_fig():
    return P.plot_critical_difference(
        {"GCN": 2.4, "GraphSAGE": 2.1, "Graph Transformer": 2.6, "GAT": 2.9},
        1.48,
        [("GraphSAGE", "GCN", "Graph Transformer", "GAT")],
        friedman={"chi2": 2.04, "p_value": 0.56, "n_tasks": 10},
    )


def test_save_figure_deterministic(tmp_path):
    paths_a = P.save_figure(_cd_fig(), tmp_path / "a" / "cd.png", dpi=80)
    paths_b = P.save_figure(_cd_fig(), tmp_path / "b" / "cd", dpi=80)
    assert [p.name for p in paths_a] == ["cd.png", "cd.svg"]
    assert [p.name for p in paths_b] == ["cd.png", "cd.svg"]
    for pa, pb in zip(paths_a, paths_b):
        assert pa.exists() and pa.stat().st_size > 0
        assert pa.read_bytes() == pb.read_bytes(), pa.name
    assert paths_a[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = paths_a[1].read_text()
    assert "<svg" in svg and "dc:date" not in svg


def test_save_figure_matrix_deterministic_and_other_suffix(tmp_path):
    p, d = _pairwise_inputs(4)
    outs = []
    for sub in ("x", "y"):
        fig = P.plot_pairwise_matrix(_models(4), p, d)
        outs.append(P.save_figure(fig, tmp_path / sub / "pm.k4", formats=("svg", ".png"), dpi=60))
    assert [q.name for q in outs[0]] == ["pm.k4.svg", "pm.k4.png"]
    for qa, qb in zip(*outs):
        assert qa.read_bytes() == qb.read_bytes()


# --------------------------------------------------------------------------- #
# colours across figures, pairwise grid, dashboard, message
# --------------------------------------------------------------------------- #
def test_color_order_keeps_model_colours_across_subsets():
    order = ["GCN", "GAT", "GIN", "GraphSAGE", "Graph Transformer"]
    want = P.model_colors(order)
    ranks = {"GraphSAGE": 1.5, "GCN": 2.0, "GAT": 3.0}  # GIN absent, as when it is excluded from the ranks
    fig = P.plot_critical_difference(ranks, 1.0, [], color_order=order)
    dots = {ln.get_color() for ln in fig.axes[0].lines if ln.get_marker() == "o"}
    assert dots == {want[m] for m in ranks}
    bars = P.plot_mean_ranks(ranks, color_order=order)
    got = {lab.get_text(): patch.get_facecolor() for lab, patch in zip(bars.axes[0].get_yticklabels(),
                                                                        bars.axes[0].patches)}
    from matplotlib.colors import to_rgba

    assert got == {m: to_rgba(want[m]) for m in got}
    curves = {"t": {"GraphSAGE": {"epochs": [1, 2], "mean": [0.1, 0.2]}, "GCN": {"epochs": [1, 2], "mean": [0.1, 0.3]}}}
    lc = P.plot_learning_curves(curves, color_order=order)
    assert {ln.get_label(): ln.get_color() for ln in lc.axes[0].lines} == {"GraphSAGE": want["GraphSAGE"],
                                                                          "GCN": want["GCN"]}
    assert [t.get_text() for t in lc.legends[0].get_texts()] == ["GCN", "GraphSAGE"]


def test_pairwise_grid_one_panel_per_task():
    mats = {}
    for t, k in (("cora", 4), ("mutag", 3), ("tsp", 2)):
        p, d = _pairwise_inputs(k)
        mats[t] = (_models(k), p, d)
    fig = P.plot_pairwise_grid(mats, title="grid")
    titled = [ax for ax in fig.axes if ax.get_title() in mats]
    assert len(titled) == 3
    assert len(fig.axes) == 3 + 2  # the panels + one shared pair of colour bars
    assert len(_colorbar_axes(fig)) == 2
    # the evidence scale is shared (-log10 p compares across tasks); Δμ is coloured relative to each panel's
    # largest |Δμ| (metric units do not compare across tasks), so every panel reaches the bar's ends
    evidence = [ax.images[0] for ax in titled]
    assert len({im.norm.vmax for im in evidence}) == 1
    assert all(np.nanmax(np.abs(ax.images[1].get_array())) == pytest.approx(1.0) for ax in titled)
    _draw(fig)
    with pytest.raises(ValueError):
        P.plot_pairwise_grid({})


def _colorbar_axes(fig) -> list:
    return [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]


def test_pairwise_grid_is_compact():
    p, d = _pairwise_inputs(4)
    sizes = {}
    for n in (1, 2, 3, 4, 6, 9):
        fig = P.plot_pairwise_grid({f"task{i}": (_models(4), p, d) for i in range(n)}, title="grid")
        assert len(fig.axes) == n + 2 and len(_colorbar_axes(fig)) == 2  # constant in the number of panels
        sizes[n] = tuple(fig.get_size_inches())
        # the panels (cells, names, titles) and the colour bars fill the figure: no empty column or gap
        fig.draw_without_rendering()  # the layout, without rasterising
        renderer = fig.canvas.get_renderer()
        used = sum(b.width * b.height for b in (ax.get_tightbbox(renderer) for ax in fig.axes))
        assert used / (fig.bbox.width * fig.bbox.height) > 0.8, n
    # the figure grows with the columns and the rows of panels, and only with them
    assert sizes[1][0] < sizes[2][0] < sizes[3][0] == sizes[6][0] == sizes[9][0]
    assert sizes[4][0] == sizes[2][0]  # 2 x 2
    assert sizes[1][1] == sizes[2][1] == sizes[3][1] < sizes[4][1] == sizes[6][1] < sizes[9][1]
    # per panel about what its 4 x 4 cells and labels need (0.62 in a cell), not 2.5 in of colour bars
    assert (sizes[9][0] - sizes[1][0]) / 2 < 4 * 0.62 + 1.6


def test_dashboard_panels_best_and_missing():
    nan = float("nan")
    panels = {
        "combinatorial": {"random_tsp": {"GCN": {"mean": 0.86, "lo": 0.84, "hi": 0.88},
                                         "GAT": {"mean": 0.83, "lo": 0.81, "hi": 0.85}}},
        "physics": {"ising": {"GCN": {"mean": 0.6, "lo": 0.5, "hi": 0.7}, "GAT": {"mean": 0.7, "lo": 0.6, "hi": 0.8},
                              "GIN": {"mean": nan, "lo": nan, "hi": nan}},
                    "qm9": {"GCN": {"mean": 0.3, "lo": 0.2, "hi": 0.4}, "GAT": {"mean": 0.2, "lo": 0.1, "hi": 0.3},
                            "GIN": {"mean": 0.25, "lo": 0.2, "hi": 0.3}}},
        "finance": {"board": {"GCN": {"mean": nan}, "GAT": {"mean": nan}}},
    }
    fig = P.plot_dashboard(panels, {"qm9": "MAE"}, {"qm9": "lower"}, title="dash")
    axes = {ax.get_title(): ax for ax in fig.axes}  # a panel per task, on its own axis
    assert list(axes) == ["random_tsp", "ising", "qm9", "board"]
    assert [t.get_text() for ax in fig.axes for t in _gid_texts(ax, "category")] == ["combinatorial", "physics",
                                                                                      "finance"]
    for task, height in (("ising", 0.7), ("qm9", 0.2)):  # GAT best on both (MAE lower)
        best = [p for p in axes[task].patches if p.get_gid() == "best"]
        assert [round(p.get_height(), 3) for p in best] == [height] and len(_gid_texts(axes[task], "best-star")) == 1
    assert len(_gid_texts(axes["ising"], "missing")) == 1 and not _gid_texts(axes["qm9"], "missing")
    assert axes["ising"].get_ylabel() == "↑" and axes["qm9"].get_ylabel() == "MAE ↓"
    assert _gid_texts(axes["board"], "no-results")
    _draw(fig)
    with pytest.raises(ValueError, match="direction"):
        P.plot_dashboard(panels, direction={"qm9": "down"})


def test_plot_message():
    fig = P.plot_message("nothing to draw: every task is unavailable " * 4)
    texts = [t for t in fig.axes[0].texts if t.get_gid() == "message"]
    assert len(texts) == 1 and "every task is unavailable" in texts[0].get_text()
    _draw(fig)
