"""Paired tests and Holm correction (netzbench.stats.paired / multiple)."""

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from netzbench.stats import RESOLUTION, holm, paired_test
from netzbench.stats.paired import at_resolution


def _pair(seed, n=10, shift=0.01, sd=0.01):
    rng = np.random.default_rng(seed)
    b = rng.normal(0.8, 0.02, size=n)
    a = b + rng.normal(shift, sd, size=n)
    return a, b


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n", [3, 5, 10, 25])
def test_paired_t_matches_scipy(seed, n):
    a, b = _pair(seed, n)
    res = paired_test(a, b, method="t")
    ref = stats.ttest_rel(a, b)
    d = a - b
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert res.mean_diff == pytest.approx(d.mean(), rel=1e-12)
    assert res.sigma_d == pytest.approx(d.std(ddof=1), rel=1e-12)
    assert res.cohens_dz == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    assert res.n == n and res.note == "" and res.method == "t"


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n", [4, 6, 10, 20])
def test_wilcoxon_matches_scipy_exact(seed, n):
    a, b = _pair(seed, n, shift=0.005)
    res = paired_test(a, b, method="wilcoxon")
    d = at_resolution(a - b, RESOLUTION)  # the test sees the differences at the metric's resolution
    ref = stats.wilcoxon(d)
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-12)
    if np.unique(np.abs(d)).size == n and np.all(d != 0):  # no ties at the resolution: the exact null
        assert res.p_value == pytest.approx(stats.wilcoxon(a - b, method="exact").pvalue, rel=1e-12)
    assert res.statistic == ref.statistic
    assert res.method == "wilcoxon"


def test_sign_convention():
    a = np.array([0.90, 0.91, 0.92, 0.93, 0.95])
    b = np.array([0.80, 0.83, 0.81, 0.85, 0.84])
    res = paired_test(a, b)
    assert res.mean_diff > 0 and res.statistic > 0 and res.cohens_dz > 0
    rev = paired_test(b, a)
    assert rev.mean_diff == pytest.approx(-res.mean_diff)
    assert rev.p_value == pytest.approx(res.p_value)


def test_paper_wilcoxon_floor_and_holm():
    # Paper Sec. 3.5: S = 10, all differences of one sign -> 2 * 2**-10 = 1/512;
    # Holm over 6 comparisons -> 0.0117.  S = 5 -> 0.0625, Holm -> 0.375.
    rng = np.random.default_rng(0)
    a = rng.normal(size=10)
    b = a - rng.uniform(0.01, 0.02, size=10)
    res = paired_test(a, b, method="wilcoxon")
    assert res.p_value == pytest.approx(1 / 512, rel=1e-12)
    assert holm([res.p_value] * 6)[0] == pytest.approx(6 / 512)
    assert round(6 / 512, 4) == 0.0117
    res5 = paired_test(a[:5], b[:5], method="wilcoxon")
    assert res5.p_value == pytest.approx(0.0625)
    assert holm([res5.p_value] + [0.5] * 5)[0] == pytest.approx(0.375)


def test_nan_pairs_dropped_keep_alignment():
    a, b = _pair(1, n=8)
    a_nan, b_nan = a.copy(), b.copy()
    a_nan[2] = np.nan
    b_nan[5] = np.nan
    keep = np.ones(8, bool)
    keep[[2, 5]] = False
    for method in ("t", "wilcoxon"):
        res = paired_test(a_nan, b_nan, method=method)
        ref = paired_test(a[keep], b[keep], method=method)
        assert res == ref
        assert res.n == 6
    # misaligned dropping (removing NaNs separately) would give a different answer
    shifted = paired_test(a_nan[~np.isnan(a_nan)], b_nan[~np.isnan(b_nan)])
    assert shifted.mean_diff != pytest.approx(paired_test(a_nan, b_nan).mean_diff)


@pytest.mark.parametrize("method", ["t", "wilcoxon"])
def test_fewer_than_two_pairs(method):
    res = paired_test([0.5], [0.4], method=method)
    assert res.n == 1
    assert res.mean_diff == pytest.approx(0.1)
    assert math.isnan(res.p_value) and math.isnan(res.sigma_d) and math.isnan(res.cohens_dz)
    assert res.note == "fewer than 2 paired seeds"
    res = paired_test([0.5, np.nan], [np.nan, 0.4], method=method)
    assert res.n == 0 and math.isnan(res.mean_diff) and math.isnan(res.p_value)
    assert res.note == "fewer than 2 paired seeds"
    res = paired_test([], [], method=method)
    assert res.n == 0 and math.isnan(res.p_value)


@pytest.mark.parametrize("method", ["t", "wilcoxon"])
def test_identical_models(method):
    # all differences zero: no test, an undefined p-value (Holm leaves it out), flagged degenerate
    x = np.array([0.81, 0.79, 0.80, 0.82])
    res = paired_test(x, x.copy(), method=method)
    assert math.isnan(res.p_value) and math.isnan(res.statistic)
    assert res.mean_diff == 0.0 and res.sigma_d == 0.0
    assert math.isnan(res.cohens_dz)
    assert res.note.startswith("all differences zero") and res.degenerate
    assert res.n == 4


def test_constant_nonzero_difference_t():
    b = np.array([0.70, 0.72, 0.75, 0.71, 0.73])
    a = b + 0.125  # exactly representable: d is exactly constant
    res = paired_test(a, b, method="t")
    # the t test is undefined (0/0); the p-value is the exact sign test's, 2 * 2**-5
    assert res.p_value == pytest.approx(stats.binomtest(5, 5).pvalue) == pytest.approx(2 / 2**5)
    assert res.sigma_d == 0.0 and res.degenerate
    assert res.cohens_dz == math.inf and math.isnan(res.statistic)
    assert res.mean_diff == pytest.approx(0.125)
    assert "t test undefined" in res.note and "sign test" in res.note
    neg = paired_test(b, a, method="t")
    assert neg.cohens_dz == -math.inf and neg.p_value == res.p_value


def test_constant_difference_up_to_roundoff():
    # 0.81-0.71, 0.82-0.72, 0.83-0.73 differ in the last bits; treated as constant
    a = np.array([0.81, 0.82, 0.83])
    b = np.array([0.71, 0.72, 0.73])
    assert np.ptp(a - b) > 0  # the raw float differences are not identical
    res = paired_test(a, b)
    assert res.sigma_d == 0.0 and res.p_value == pytest.approx(0.25) and res.cohens_dz == math.inf
    assert res.degenerate


def test_constant_nonzero_difference_wilcoxon_is_the_sign_test():
    b = np.array([0.70, 0.72, 0.75, 0.71, 0.73, 0.74])
    a = b + 0.125
    res = paired_test(a, b, method="wilcoxon")
    ref = stats.wilcoxon(a - b)
    assert res.p_value == pytest.approx(ref.pvalue)
    assert res.p_value == pytest.approx(2 / 2**6) == pytest.approx(stats.binomtest(6, 6).pvalue)
    assert res.cohens_dz == math.inf and res.statistic == 0.0 and res.degenerate
    assert "constant difference" in res.note


def test_wilcoxon_with_some_zero_differences():
    a = np.array([0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1])
    b = a - np.array([0.0, 0.01, 0.03, -0.02, 0.05, 0.04, 0.06])
    res = paired_test(a, b, method="wilcoxon")
    assert res.p_value == pytest.approx(stats.wilcoxon(a - b).pvalue)
    assert res.note == ""


def test_bad_inputs():
    with pytest.raises(ValueError, match="t, wilcoxon"):
        paired_test([1, 2], [1, 2], method="sign")
    with pytest.raises(ValueError):
        paired_test([1, 2, 3], [1, 2])


# --------------------------------------------------------------------- Holm


@pytest.mark.parametrize("seed", range(8))
def test_holm_matches_statsmodels(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 25))
    p = rng.uniform(0, 0.2, size=m) ** rng.uniform(0.5, 3)
    ref = multipletests(p, method="holm")[1]
    np.testing.assert_allclose(holm(p), ref, rtol=1e-12, atol=0)


def test_holm_with_ties_and_ones():
    p = np.array([0.01, 0.01, 0.04, 0.04, 1.0, 0.3])
    np.testing.assert_allclose(holm(p), multipletests(p, method="holm")[1], rtol=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_holm_nan_excluded_from_family(seed):
    rng = np.random.default_rng(100 + seed)
    p = rng.uniform(0, 0.1, size=12)
    nan_at = rng.choice(12, size=4, replace=False)
    p[nan_at] = np.nan
    out = holm(p)
    ok = ~np.isnan(p)
    assert np.all(np.isnan(out[~ok]))
    np.testing.assert_allclose(out[ok], multipletests(p[ok], method="holm")[1], rtol=1e-12)


def test_holm_properties():
    p = np.random.default_rng(9).uniform(size=30)
    adj = holm(p)
    order = np.argsort(p)
    assert np.all(np.diff(adj[order]) >= 0)  # monotone
    assert np.all(adj >= p) and np.all(adj <= 1.0)
    assert holm([0.02])[0] == 0.02
    assert holm([]).shape == (0,)
    assert np.all(np.isnan(holm([np.nan, np.nan])))
    np.testing.assert_allclose(holm(np.array([[0.01, 0.04], [0.03, 0.2]])), [[0.04, 0.09], [0.09, 0.2]])
    with pytest.raises(ValueError):
        holm([0.5, 1.2])
