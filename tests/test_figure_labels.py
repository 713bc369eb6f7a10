"""How figures name and mark models (issue 17): short labels for class references, the candidate
highlighted, tied mean ranks kept apart, value axes inside the metric's range."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from matplotlib.colors import to_hex

from netzbench.report import BenchmarkReport
from netzbench.report import figures as P
from netzbench.report.figures.style import CANDIDATE_COLOR, CANDIDATE_HATCH
from netzbench.report.formatting import display_names
from netzbench.report.stage import write_outputs

from helpers import as_settings, make_params

REF = "user_models.mlp:EdgeFreeMLP"
SEEDS = [0, 1, 2]


def _gid(fig, gid: str) -> list:
    return [a for ax in fig.axes for a in list(ax.lines) + list(ax.texts) if a.get_gid() == gid]


def _is_candidate_style(text, bold: bool = True) -> bool:
    return to_hex(text.get_color()) == to_hex(CANDIDATE_COLOR) and (not bold or text.get_fontweight() == "bold")


def _plain(text) -> bool:
    return to_hex(text.get_color()) != to_hex(CANDIDATE_COLOR) and text.get_fontweight() != "bold"


def _cells(models, task_means, hi_pad=0.02):
    """``{task: {model: {"mean", "lo", "hi"}}}`` with the given means and a small interval."""
    return {t: {m: {"mean": v, "lo": v - 0.03, "hi": v + hi_pad} for m, v in zip(models, means)}
            for t, means in task_means.items()}


# --------------------------------------------------------------------------- labels
def test_display_names():
    assert display_names(["GCN", "Graph Transformer"]) == {"GCN": "GCN", "Graph Transformer": "Graph Transformer"}
    assert display_names(["GCN", REF]) == {"GCN": "GCN", REF: "EdgeFreeMLP"}
    assert display_names(["a.b:C"]) == {"a.b:C": "C"}
    # a clash keeps the full names of the models that would share a label, and only those
    assert display_names(["a.x:Net", "b.y:Net", "c:Other"]) == {"a.x:Net": "a.x:Net", "b.y:Net": "b.y:Net",
                                                                 "c:Other": "Other"}
    assert display_names(["GCN", "lab.models:GCN"]) == {"GCN": "GCN", "lab.models:GCN": "lab.models:GCN"}
    assert display_names([]) == {}


def test_figures_show_the_class_name():
    models = ["GCN", REF]
    cells = _cells(models, {"t0": [0.7, 0.8]})
    forest = P.plot_forest(cells)
    assert [t.get_text() for t in forest.axes[0].get_yticklabels()] == ["GCN", "EdgeFreeMLP"]
    bars = P.plot_bars(cells)
    assert [t.get_text() for t in bars.axes[0].get_xticklabels()] == ["GCN", "EdgeFreeMLP"]
    cd = P.plot_critical_difference({"GCN": 1.5, REF: 1.5}, None, [])
    assert sorted(t.get_text() for t in _gid(cd, "model-label")) == ["EdgeFreeMLP (1.50)", "GCN (1.50)"]
    clash = P.plot_forest(_cells(["a.x:Net", "b.y:Net"], {"t0": [0.7, 0.8]}))
    assert [t.get_text() for t in clash.axes[0].get_yticklabels()] == ["a.x:Net", "b.y:Net"]


# --------------------------------------------------------------------------- CD diagram ties
def test_cd_tied_models_get_distinct_dots_and_connectors():
    mr = {"A": 2.0, "B": 2.0, "C": 1.0, "D": 3.5, "E": 3.5, "F": 3.5}  # one pair and one triple tied
    fig = P.plot_critical_difference(mr, 1.0, [])
    ax = fig.axes[0]
    dots = _gid(fig, "model-dot")
    assert len(dots) == len(mr)
    xs = [float(d.get_xdata()[0]) for d in dots]
    assert len(set(np.round(xs, 9))) == len(mr)  # k dots at k distinct positions
    # each dot sits within a dot's width of its true rank, and the ties are centred on it
    for rank, k in ((2.0, 2), (3.5, 3)):
        near = [x for x in xs if abs(x - rank) < 0.5]
        assert len(near) == k and np.mean(near) == pytest.approx(rank)
    # each elbow starts at its own dot and ends at its own label row
    elbows = [ln for ln in ax.lines if len(ln.get_xdata()) == 3]
    assert len(elbows) == len(mr)
    starts = {round(float(ln.get_xdata()[0]), 9) for ln in elbows}
    ends = {(round(float(ln.get_xdata()[-1]), 9), round(float(ln.get_ydata()[-1]), 9)) for ln in elbows}
    assert starts == set(np.round(xs, 9)) and len(ends) == len(mr)


def test_cd_tied_elbows_do_not_cross():
    fig = P.plot_critical_difference({"A": 2.0, "B": 2.0, "C": 2.0, "D": 2.0}, None, [])
    elbows = [ln for ln in fig.axes[0].lines if len(ln.get_xdata()) == 3]
    for side in (-1, 1):  # labels left (elbow runs left) and right
        mine = [ln for ln in elbows if np.sign(ln.get_xdata()[-1] - ln.get_xdata()[0]) == side]
        for a in mine:
            for b in mine:
                xa, ya = a.get_xdata(), a.get_ydata()
                xb, yb = b.get_xdata(), b.get_ydata()
                if yb[-1] < ya[-1]:  # b's label lower: its drop must not pass through a's horizontal run
                    lo, hi = sorted((xa[0], xa[-1]))
                    assert not lo < xb[0] < hi


# --------------------------------------------------------------------------- candidate
def test_cd_diagram_marks_the_candidate():
    mr = {"GCN": 2.0, REF: 1.0, "GAT": 3.0}
    fig = P.plot_critical_difference(mr, 1.2, [], candidate=REF)
    labels = {t.get_text().split(" (")[0]: t for t in _gid(fig, "model-label")}
    assert _is_candidate_style(labels["EdgeFreeMLP"])
    assert _plain(labels["GCN"]) and _plain(labels["GAT"])
    dots = {float(d.get_xdata()[0]): d for d in _gid(fig, "model-dot")}
    assert dots[1.0].get_marker() == "D" and to_hex(dots[1.0].get_markeredgecolor()) == to_hex(CANDIDATE_COLOR)
    assert {dots[x].get_marker() for x in (2.0, 3.0)} == {"o"}
    assert [t.get_text() for t in _gid(fig, "candidate-note")] == ["◆ candidate: EdgeFreeMLP"]
    fig.canvas.draw()
    plain = P.plot_critical_difference(mr, 1.2, [])  # no candidate: nothing marked
    assert not _gid(plain, "candidate-note") and all(_plain(t) for t in _gid(plain, "model-label"))


def test_forest_marks_the_candidate():
    models = ["GCN", REF, "GAT"]
    cells = _cells(models, {"t0": [0.9, 0.7, 0.8], "t1": [0.6, 0.65, 0.5]})
    fig = P.plot_forest(cells, candidate=REF)
    # the panels share the model rows, labelled once in the first column
    labels = {t.get_text(): t for t in fig.axes[0].get_yticklabels()}
    assert list(labels) == ["GCN", "EdgeFreeMLP", "GAT"] and not fig.axes[1].get_yticklabels()
    assert _is_candidate_style(labels["EdgeFreeMLP"])
    assert all(_plain(t) for name, t in labels.items() if name != "EdgeFreeMLP")
    for ax, best in zip(fig.axes, (0, 1)):  # the best row (GCN, then the candidate) shaded, its mean a diamond
        marks = [ln for ln in ax.lines if ln.get_gid() == "candidate-mean"]
        assert len(marks) == 1 and to_hex(marks[0].get_markeredgecolor()) == to_hex(CANDIDATE_COLOR)
        diamonds = [ln.get_ydata()[0] for ln in ax.lines if ln.get_marker() == "D"]
        assert diamonds == [best] and len([p for p in ax.patches if p.get_gid() == "best"]) == 1
    note = fig.legends[0].get_texts()[-1]
    assert note.get_text() == "candidate: EdgeFreeMLP" and _is_candidate_style(note)
    fig.canvas.draw()
    plain = P.plot_forest(cells)
    assert not any("candidate" in t.get_text() for t in plain.legends[0].get_texts())
    assert not any(to_hex(t.get_color()) == to_hex(CANDIDATE_COLOR) for t in plain.axes[0].get_yticklabels())


def test_dashboard_marks_the_candidate():
    models = ["GCN", REF, "GAT"]
    panels = {"cat": _cells(models, {"t0": [0.9, 0.7, 0.8]})}
    fig = P.plot_dashboard(panels, candidate=REF)
    texts = {t.get_text(): t for t in fig.legends[0].get_texts()}
    assert _is_candidate_style(texts["EdgeFreeMLP (candidate)"])
    assert _plain(texts["GCN"]) and _plain(texts["GAT"])
    bars = [p for p in fig.axes[0].patches if p.get_height() > 0]
    assert [p.get_hatch() for p in bars] == [None, CANDIDATE_HATCH, None]
    fig.canvas.draw()
    plain = P.plot_dashboard(panels)
    assert [t.get_text() for t in plain.legends[0].get_texts()][:3] == ["GCN", "EdgeFreeMLP", "GAT"]
    assert all(p.get_hatch() is None for p in plain.axes[0].patches)


# --------------------------------------------------------------------------- metric range
def test_forest_and_dashboard_stay_inside_a_bounded_metric():
    models = ["GCN", "GAT"]
    cells = _cells(models, {"t0": [0.97, 0.9]}, hi_pad=0.3)  # intervals running to 1.27 and 1.2
    ranges = {"t0": (0.0, 1.0)}
    forest = P.plot_forest(cells, ranges=ranges)
    ax = forest.axes[0]
    assert ax.get_xlim()[1] <= 1.0
    assert all(max(ln.get_xdata()) <= 1.0 for ln in ax.lines)  # the CI lines are not clipped by the axes
    dash = P.plot_dashboard({"cat": cells}, ranges=ranges)
    ax = dash.axes[0]
    assert max(ax.get_yticks()) <= 1.0 and ax.spines["left"].get_bounds()[1] <= 1.0
    whiskers = [seg for coll in ax.collections for seg in coll.get_segments()]
    assert whiskers and all(max(seg[:, 1]) <= 1.0 for seg in whiskers)
    assert all(max(ln.get_ydata()) <= 1.0 for ln in ax.lines if len(ln.get_ydata()))  # caps
    assert ax.get_ylim()[1] <= 1.12 + 1e-9  # headroom for the ★ only, not for whiskers past 1


# --------------------------------------------------------------------------- through the report stage
def _hist(final, epochs=3):
    curve = [final - 0.02 * (epochs - 1 - e) for e in range(epochs)]
    curve[-1] = final
    return {"train_loss": [1.0 / (e + 1) for e in range(epochs)], "val_acc": curve, "test_acc": curve}


@pytest.fixture(scope="module")
def candidate_report():
    means = {"karate": {"GCN": 0.70, "GAT": 0.74, REF: 0.80}, "mutag": {"GCN": 0.80, "GAT": 0.71, REF: 0.76},
             "cora": {"GCN": 0.81, "GAT": 0.79, REF: 0.60}}
    hist = {t: {m: [_hist(v + 0.01 * s) for s in SEEDS] for m, v in bm.items()} for t, bm in means.items()}
    tasks = {t: {"metric": "test_acc", "direction": "higher", "family": "graph_cls", "category": c}
             for t, c in (("karate", "a"), ("mutag", "b"), ("cora", "a"))}
    return BenchmarkReport(SEEDS, hist, {}, tasks=tasks)


def test_report_plots_mark_the_candidate(candidate_report):
    rep = candidate_report
    cd = rep.plot_critical_difference(candidate=REF)
    assert [t.get_text() for t in _gid(cd, "candidate-note")] == ["◆ candidate: EdgeFreeMLP"]
    forest = rep.plot_forest(candidate=REF)
    assert _is_candidate_style(next(t for t in forest.axes[0].get_yticklabels() if t.get_text() == "EdgeFreeMLP"))
    dash = rep.plot_dashboard(candidate=REF)
    assert "EdgeFreeMLP (candidate)" in [t.get_text() for t in dash.legends[0].get_texts()]
    assert not _gid(rep.plot_critical_difference(), "candidate-note")  # none given: nothing marked


def test_stage_marks_the_candidate_and_keeps_references_in_data(candidate_report, tmp_path, monkeypatch):
    import netzbench.report.stage as stage

    saved = {}

    def keep(i):  # the figures as the stage drew them (in this process: tests render with one worker)
        target, make, message, formats = stage._JOBS[i]
        fig = stage._safe_figure(make, message)
        saved[target.name] = fig
        return {str(fmt): stage.figure_bytes(fig, fmt) for fmt in formats}

    monkeypatch.setattr(stage, "_render_one", keep)
    params = make_params(tasks=["karate", "mutag", "cora"], models=["GCN", "GAT"], seeds=SEEDS)
    write_outputs(candidate_report, as_settings(params), REF, out_dir=tmp_path)
    assert _gid(saved["critical_difference"], "candidate-note")
    assert "candidate: EdgeFreeMLP" in [t.get_text() for t in saved["forest_graph_cls"].legends[0].get_texts()]
    assert "EdgeFreeMLP (candidate)" in [t.get_text() for t in saved["dashboard_graph_cls"].legends[0].get_texts()]
    # the families the run has none of get a figure saying so
    assert [t.get_gid() for t in saved["dashboard_link_pred"].axes[0].texts] == ["message"]
    # REPORT.md's tables show the class name; the protocol line keeps the reference once
    md = (tmp_path / "reports/REPORT.md").read_text(encoding="utf-8")
    table_lines = [line for line in md.splitlines() if line.startswith("| ")]
    assert any("EdgeFreeMLP" in line for line in table_lines)
    assert not any(REF in line for line in table_lines)
    assert f"candidate: **{REF}** (shown as EdgeFreeMLP" in md
    # machine-readable outputs keep the full reference
    with open(tmp_path / "reports/summary.csv", newline="", encoding="utf-8") as fh:
        assert REF in {r["model"] for r in csv.DictReader(fh)}
    assert REF in (tmp_path / "metrics/report.json").read_text(encoding="utf-8")
