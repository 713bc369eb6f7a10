"""Degenerate statistics through the report: the published tables, REPORT.md and the figures flag them.

A hand-built report with three seeds on ``karate`` (accuracies near 1: the t interval leaves [0, 1]; a
model that differs from GCN by a constant 0.4 up to float32 noise; a model identical to GCN) and an
ordinary ``mutag`` task, and a two-model report for the Friedman test at k = 2.
"""

import csv
import json
import math

import numpy as np
import pytest
import scipy.stats as st
from statsmodels.stats.multitest import multipletests

from netzbench.report import BenchmarkReport
from netzbench.report.stage import write_outputs

from helpers import as_settings, make_params

SEEDS = [0, 1, 2]
KARATE_GCN = np.float32([1.0, 0.9655, 0.8966]).astype(float)
KARATE = {"GCN": KARATE_GCN,
          "GAT": (KARATE_GCN - 0.4).astype(np.float32).astype(float),  # constant 0.4 apart, float32 noise
          "GIN": KARATE_GCN.copy()}  # identical to GCN
MUTAG = {"GCN": np.array([0.74, 0.79, 0.68]), "GAT": np.array([0.70, 0.71, 0.69]),
         "GIN": np.array([0.84, 0.87, 0.80])}


def _hist(final, epochs=4):
    curve = [final - 0.02 * (epochs - 1 - e) for e in range(epochs)]
    curve[-1] = final
    return {"train_loss": [1.0 / (e + 1) for e in range(epochs)], "val_acc": curve, "test_acc": curve}


def _report(tables, **kw):
    hist = {t: {m: [_hist(float(v)) for v in vals] for m, vals in bm.items()} for t, bm in tables.items()}
    tasks = {t: {"metric": "test_acc", "direction": "higher", "family": "graph_cls", "category": "c"}
             for t in tables}
    return BenchmarkReport(SEEDS, hist, {}, tasks=tasks, equivalence_margin=0.2, **kw)


@pytest.fixture(scope="module")
def report():
    return _report({"karate": KARATE, "mutag": MUTAG})


@pytest.fixture(scope="module")
def written(tmp_path_factory, report):
    out = tmp_path_factory.mktemp("degenerate")
    params = make_params(tasks=["karate", "mutag"], models=["GCN", "GAT", "GIN"], seeds=SEEDS)
    write_outputs(report, as_settings(params), None, out_dir=out)
    return out


def _csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _pairs(rows, task):
    return {(r["model_a"], r["model_b"]): r for r in rows if r["task"] == task}


# ------------------------------------------------------------------ zero spread
def test_zero_spread_pairs_are_degenerate_not_significant(report):
    d = KARATE["GCN"] - KARATE["GAT"]
    assert 0 < np.ptp(d) < 1e-6 and st.ttest_rel(KARATE["GCN"], KARATE["GAT"]).pvalue < 1e-6  # the bad input
    for method in ("t", "wilcoxon"):
        rows = _pairs(report.pairwise(method), "karate")
        const, zero = rows[("GCN", "GAT")], rows[("GCN", "GIN")]
        assert const["degenerate"] and not const["significant"] and const["p_raw"] == pytest.approx(0.25)
        assert zero["degenerate"] and math.isnan(zero["p_raw"]) and math.isnan(zero["p_holm"])
        defined = [r for r in rows.values() if not math.isnan(r["p_raw"])]
        adj = multipletests([r["p_raw"] for r in defined], method="holm")[1]  # the family leaves the NaN out
        assert [r["p_holm"] for r in defined] == pytest.approx(list(adj), rel=1e-12)


def test_equivalence_and_power_of_zero_spread_pairs(report):
    eq = _pairs(report.equivalence(), "karate")
    for key in (("GCN", "GAT"), ("GCN", "GIN")):  # both inside the 0.2 margin, neither called equivalent
        assert not eq[key]["equivalent"] and math.isnan(eq[key]["p_tost"]) and eq[key]["verdict"] == "undetermined"
    pw = _pairs(report.power(), "karate")
    assert pw[("GCN", "GAT")]["degenerate"] and math.isnan(pw[("GCN", "GAT")]["observed_power"])
    assert not pw[("GCN", "GAT")]["detectable"]


def test_wilcoxon_floor_counts_nonzero_differences():
    base = np.array([0.70, 0.72, 0.71, 0.73, 0.69, 0.74])
    a = base + np.array([0.0, 0.0, 0.01, 0.02, 0.03, 0.04])  # two zero differences
    rep = BenchmarkReport(range(6), {"t": {"A": [_hist(v) for v in a], "B": [_hist(v) for v in base]}})
    (row,) = rep.wilcoxon_floor()
    assert row["n_seeds"] == 6 and row["n_nonzero"] == 4
    assert row["p_min"] == pytest.approx(2 / 2**4)  # not 2 / 2**6
    (w,) = rep.pairwise("wilcoxon")
    assert w["p_raw"] == pytest.approx(st.wilcoxon(a - base).pvalue) == pytest.approx(row["p_min"])


# ------------------------------------------------------------------ bounded intervals
def test_summary_intervals_clipped_to_the_metric_range(report):
    rows = {(r["task"], r["model"]): r for r in report.summary()}
    gcn = rows[("karate", "GCN")]
    x = KARATE["GCN"]
    lo, hi = st.t.interval(0.95, 2, loc=x.mean(), scale=st.sem(x))
    assert hi > 1.0 and gcn["clipped"] and gcn["hi"] == 1.0 and gcn["lo"] == pytest.approx(lo)
    assert not rows[("mutag", "GAT")]["clipped"]
    assert all(0.0 <= r["lo"] <= r["hi"] <= 1.0 for r in rows.values())
    curves = report.learning_curves()
    assert all(h <= 1.0 for c in curves["karate"].values() for h in c["hi"] if math.isfinite(h))


def test_figures_keep_the_metric_range_on_the_axis(report):
    forest = report.plot_forest()
    assert all(ax.get_xlim()[1] <= 1.0 for ax in forest.axes)
    bars = report.plot()
    assert all(ax.get_ylim()[1] <= 1.0 for ax in bars.axes)
    curves = report.plot_learning_curves()
    assert all(ax.get_ylim()[1] <= 1.0 for ax in curves.axes)
    dash = report.plot_dashboard()
    for ax in dash.axes:
        assert max(ax.get_yticks()) <= 1.0 and ax.spines["left"].get_bounds()[1] <= 1.0


# ------------------------------------------------------------------ published artefacts
def test_published_tables_flag_degenerate_and_clipped(written):
    summary = {(r["task"], r["model"]): r for r in _csv(written / "reports/summary.csv")}
    assert summary[("karate", "GCN")]["clipped"] == "True" and float(summary[("karate", "GCN")]["hi"]) == 1.0
    t = _pairs(_csv(written / "reports/pairwise_t.csv"), "karate")
    assert t[("GCN", "GAT")]["degenerate"] == "True" and t[("GCN", "GAT")]["significant"] == "False"
    assert t[("GCN", "GIN")]["p_raw"] == "" and "zero" in t[("GCN", "GIN")]["note"]
    eq = _pairs(_csv(written / "reports/equivalence.csv"), "karate")
    assert eq[("GCN", "GIN")]["equivalent"] == "False" and eq[("GCN", "GIN")]["note"].startswith("zero spread")
    power = _pairs(_csv(written / "reports/power.csv"), "karate")
    assert power[("GCN", "GAT")]["degenerate"] == "True" and power[("GCN", "GAT")]["observed_power"] == ""


def test_report_md_says_so(written):
    md = (written / "reports/REPORT.md").read_text(encoding="utf-8")
    karate_row = next(line for line in md.splitlines() if line.startswith("| ") and "`karate`" in line)
    assert "[0.8" in karate_row and "1.000] §" in karate_row  # clipped interval, not mean ± h past 1
    assert "§: the" in md
    assert "**degenerate**" in md and "`karate` GCN–GIN" in md
    assert "nonzero" in md
    tex = (written / "reports/summary.tex").read_text(encoding="utf-8")
    assert "1.000]" in tex and "clipped" in tex


# ------------------------------------------------------------------ Friedman at k = 2
def test_friedman_k2_consistent_in_the_report(tmp_path):
    tables = {t: {"GCN": MUTAG["GIN"] + 0.01 * i, "GAT": MUTAG["GAT"] + 0.01 * i} for i, t in
              enumerate(["karate", "mutag"])}
    rep = _report(tables)
    fr = rep.friedman()
    assert fr["k"] == 2 and fr["p_value"] == pytest.approx(st.chi2.sf(2.0, 1))
    assert math.isnan(fr["iman_davenport_f"]) and math.isnan(fr["iman_davenport_p"]) and "k = 2" in fr["friedman_note"]
    params = make_params(tasks=["karate", "mutag"], models=["GCN", "GAT"], seeds=SEEDS)
    metrics = write_outputs(rep, as_settings(params), None, out_dir=tmp_path)
    assert metrics["friedman"]["iman_davenport_p"] is None  # not 0
    assert json.loads((tmp_path / "metrics/report.json").read_text())["friedman"]["iman_davenport_f"] is None
    md = (tmp_path / "reports/REPORT.md").read_text(encoding="utf-8")
    assert "Iman–Davenport not reported at k = 2" in md and "F = ∞" not in md
