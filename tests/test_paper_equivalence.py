"""The reproduction criterion: TOST of our cells against the paper's Table 3 (stats.tost_welch, report/paper.py)."""

import math

import numpy as np
import pytest
from statsmodels.stats.weightstats import ttost_ind

from netzbench.report.paper import compare_with_paper, counts
from netzbench.stats import holm, tost_welch

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("shift, margin", [(0.0, 0.05), (0.02, 0.05), (-0.04, 0.03), (0.1, 0.01)])
def test_tost_welch_equals_statsmodels_ttost_ind_on_the_raw_values(shift, margin):
    rng = np.random.default_rng(7)
    a, b = rng.normal(0.8 + shift, 0.02, 10), rng.normal(0.8, 0.05, 7)  # unequal spreads and counts
    se = lambda x: x.std(ddof=1) / math.sqrt(len(x))  # noqa: E731
    ours = tost_welch(a.mean(), se(a), len(a), b.mean(), se(b), len(b), margin)
    p, (_, p_low, _), (_, p_upp, _) = ttost_ind(a, b, -margin, margin, usevar="unequal")
    assert ours.p_lower == pytest.approx(p_low, rel=1e-9) and ours.p_upper == pytest.approx(p_upp, rel=1e-9)
    assert ours.p_value == pytest.approx(p, rel=1e-9) and ours.equivalent == (p < 0.05)


def test_tost_welch_worked_example():
    # Δ = 0.004, SE_a = SE_b = 0.002 -> SE = 0.002828, ν = 18; margin 0.01:
    # t⁻ = 0.014 / 0.002828 = 4.950, p⁻ = 5.2e-5; t⁺ = -0.006 / 0.002828 = -2.121, p⁺ = 0.0241
    r = tost_welch(0.804, 0.002, 10, 0.800, 0.002, 10, 0.01)
    assert r.p_lower == pytest.approx(5.17e-5, rel=0.01) and r.p_upper == pytest.approx(0.02407, rel=0.01)
    assert r.p_value == r.p_upper and r.equivalent
    assert not tost_welch(0.804, 0.002, 10, 0.800, 0.002, 10, 0.005).equivalent  # Δ near the margin
    none = tost_welch(0.8, math.nan, 10, 0.8, 0.01, 10, 0.01)
    assert math.isnan(none.p_value) and not none.equivalent and none.note
    with pytest.raises(ValueError, match="margin"):
        tost_welch(0.8, 0.01, 10, 0.8, 0.01, 10, 0.0)


TABLE = {"n_seeds": 10, "ci": 0.95, "tasks": {"t": {"cells": {"A": [0.800, 0.002], "B": [0.700, 0.050],
                                                             "C": [0.500, 0.002]}}}}


def _row(model, mean, sem, n=10):
    from scipy import stats as st
    h = st.t.ppf(0.975, n - 1) * sem
    return {"task": "t", "model": model, "mean": mean, "sem": sem, "n_seeds": n, "lo": mean - h, "hi": mean + h,
            "half_width": h}


def test_paper_cells_equivalent_within_the_margin_holm_over_the_cells():
    summary = [_row("A", 0.801, 0.0008), _row("B", 0.700, 0.02), _row("C", 0.530, 0.001)]
    rows = compare_with_paper(summary, TABLE, margin=0.01)
    by = {r["model"]: r for r in rows}
    # A: close and precise -> equivalent; B: same mean but wide -> not shown; C: 0.03 off -> not equivalent
    assert by["A"]["equivalent"] is True and by["B"]["equivalent"] is False and by["C"]["equivalent"] is False
    raw = [tost_welch(r["ours_mean"], r["ours_se"], 10, r["paper_mean"], r["paper_se"], 10, 0.01).p_value
           for r in rows]
    assert [r["tost_p"] for r in rows] == pytest.approx(raw)
    assert [r["tost_p_holm"] for r in rows] == pytest.approx(list(holm(raw)))
    assert counts(rows)["equivalent"] == 1 and bool(by["B"]["overlap"])  # B overlaps, yet is not reproduced
    # a per-task margin, and none: not computed
    assert compare_with_paper(summary, TABLE, margin={"t": 0.2})[1]["equivalent"] is True
    plain = compare_with_paper(summary, TABLE)
    assert all(r["equivalent"] is None and r["tost_margin"] is None for r in plain) and counts(plain)["equivalent"] == 0
