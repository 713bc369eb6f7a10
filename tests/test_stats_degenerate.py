"""Degenerate statistics (netzbench.stats): each bad input of the issue fed in, the flagged answer asserted.

* zero-spread paired differences (exact or float32 noise): degenerate, never significant on the t test,
  never TOST-equivalent;
* bounded metrics: intervals clipped to the range and flagged;
* observed power at large effects: survival functions, checked against an independent integral;
* all-zero differences out of the Holm family; near-equal float differences tie at the resolution;
* Friedman with k = 2 and with complete agreement.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestPower

from netzbench.stats import RESOLUTION, friedman, holm, interval, paired_power, paired_test, t_interval, tost_paired
from netzbench.stats.paired import paired_differences
from netzbench.stats.power import observed_power


def _float32_pair(base, shift):
    """Values stored as float32 (the run records' origin): ``a = float32(b + shift)``."""
    b = np.asarray(base, dtype=np.float32)
    a = (b.astype(np.float64) + shift).astype(np.float32)
    return a.astype(np.float64), b.astype(np.float64)


# ------------------------------------------------------------------ zero spread / resolution
def test_float32_noise_is_one_constant_difference_not_a_huge_t():
    a, b = _float32_pair([0.10, 0.25, 0.33], 0.6)
    d = a - b
    assert 0 < np.ptp(d) < 1e-7  # identical differences of 0.6, apart only in float32 noise
    raw = stats.ttest_rel(a, b)
    assert raw.pvalue < 1e-10 and abs(d.mean() / d.std(ddof=1)) > 1e6  # what the bare t test claims
    res = paired_test(a, b, method="t")
    assert res.degenerate and res.sigma_d == 0.0
    assert math.isnan(res.statistic) and res.cohens_dz == math.inf  # t undefined, not 3.5e7
    assert res.p_value == pytest.approx(stats.binomtest(3, 3).pvalue) == pytest.approx(0.25)
    assert "t test undefined" in res.note
    assert res.mean_diff == pytest.approx(0.6, abs=1e-7)


@pytest.mark.parametrize("method", ["t", "wilcoxon"])
def test_two_seeds_constant_difference_is_never_significant(method):
    res = paired_test([0.81, 0.93], [0.71, 0.83], method=method)
    assert res.degenerate and res.p_value == pytest.approx(0.5)
    assert holm([res.p_value])[0] >= 0.05


def test_constant_difference_sign_test_p_matches_scipy_for_any_n():
    for n in (2, 3, 5, 10, 20, 30):
        b = np.linspace(0.5, 0.7, n)
        res = paired_test(b - 0.125, b, method="t")
        assert res.degenerate and res.p_value == pytest.approx(stats.binomtest(0, n).pvalue, rel=1e-12)


def test_zero_spread_straddling_a_rounding_boundary_is_still_degenerate():
    # differences 0.6000005 +- 1e-8 would round to two different multiples of 1e-6
    b = np.array([0.1, 0.2, 0.3])
    a = b + 0.6000005 + np.array([-1e-8, 1e-8, 0.0])
    assert np.unique(np.rint((a - b) / RESOLUTION)).size == 2
    res = paired_test(a, b)
    assert res.degenerate and not res.p_value < 0.05


def test_resolution_is_an_argument():
    b = np.array([0.001, 0.002, 0.003])  # small values: float32 itself resolves ~1e-9 here
    a = b + 0.005 + np.array([0.0, 2e-8, 5e-8])
    assert paired_test(a, b).degenerate
    fine = paired_test(a, b, resolution=1e-9)  # a finer resolution: the spread is measurable
    assert not fine.degenerate and fine.p_value == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-12)
    with pytest.raises(ValueError):
        paired_test(a, b, resolution=0.0)


def test_large_magnitude_float32_noise_scales_the_resolution():
    # an MAE near 256: float32 spacing is 1.5e-5 to 3e-5, far above 1e-6
    a, b = _float32_pair([250.3, 251.7, 253.1, 254.9, 249.2], 3.3)
    assert np.ptp(a - b) > RESOLUTION
    res = paired_test(a, b)
    assert res.degenerate and res.mean_diff == pytest.approx(3.3, abs=1e-4)


def test_spread_above_resolution_is_an_ordinary_t_test():
    b = np.array([0.70, 0.72, 0.75, 0.71])
    a = b + np.array([0.010, 0.012, 0.009, 0.011])
    res = paired_test(a, b)
    ref = stats.ttest_rel(a, b)
    assert not res.degenerate and res.note == ""
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-12) and res.statistic == pytest.approx(ref.statistic)


def test_tost_never_calls_a_zero_spread_pair_equivalent():
    a, b = _float32_pair([0.10, 0.25, 0.33, 0.41, 0.52], 0.004)  # |0.004| well inside the margin
    res = tost_paired(a, b, margin=0.01)
    assert not res.equivalent and math.isnan(res.p_value) and res.note.startswith("zero spread")
    x = np.array([0.7, 0.72, 0.75])
    assert not tost_paired(x, x.copy(), margin=0.01).equivalent  # identical models
    # with spread the ordinary TOST (two one-sided scipy tests) still concludes
    a2 = b + 0.004 + np.array([1e-3, -1e-3, 5e-4, -5e-4, 0.0])
    ok = tost_paired(a2, b, margin=0.01)
    d = a2 - b
    p = max(stats.ttest_1samp(d, -0.01, alternative="greater").pvalue,
            stats.ttest_1samp(d, 0.01, alternative="less").pvalue)
    assert ok.p_value == pytest.approx(p, rel=1e-12) and ok.equivalent and ok.note == ""


# ------------------------------------------------------------------ all-zero differences / Holm / ties
@pytest.mark.parametrize("method", ["t", "wilcoxon"])
def test_all_zero_differences_have_no_p_value_and_leave_the_holm_family(method):
    x = np.array([0.81, 0.79, 0.80, 0.82, 0.78])
    noise = x + np.array([3e-8, -2e-8, 0.0, 1e-8, -4e-8])  # zero at the resolution, not in float64
    zero = paired_test(noise, x, method=method)
    assert math.isnan(zero.p_value) and zero.degenerate and zero.mean_diff == 0.0
    others = [0.004, 0.03]
    adj = holm([zero.p_value] + others)
    assert math.isnan(adj[0])
    np.testing.assert_allclose(adj[1:], multipletests(others, method="holm")[1], rtol=1e-12)  # m = 2, not 3


def test_wilcoxon_ties_at_the_resolution():
    # accuracies k/38 in float32 (MUTAG's 38 test graphs): equal differences differ in the last bits
    k_a = np.array([30, 31, 29, 33, 30, 32, 28, 33, 29, 31])
    k_b = np.array([33, 29, 30, 33, 31, 32, 30, 33, 31, 31])
    a, b = (np.float32(k / 38).astype(np.float64) for k in (k_a, k_b))
    exact = stats.wilcoxon(k_a - k_b)  # integers: ties and zeros handled exactly
    res = paired_test(a, b, method="wilcoxon")
    assert res.p_value == pytest.approx(exact.pvalue, rel=1e-12)
    assert stats.wilcoxon(a - b).pvalue != pytest.approx(exact.pvalue)  # raw floats defeat the tie handling


def test_nonzero_count_drops_differences_zero_at_the_resolution():
    b = np.array([0.5, 0.6, 0.7, 0.8, 0.9, 0.55])
    a = b + np.array([0.0, 2e-8, 0.01, 0.02, 0.03, 0.04])
    pd = paired_differences(a, b)
    assert pd.n == 6 and pd.n_nonzero == 4
    w = paired_test(a, b, method="wilcoxon")
    assert w.p_value == pytest.approx(2 / 2**4)  # the floor of 4 nonzero differences, not 2 / 2**6


# ------------------------------------------------------------------ power at large effects
def _power_by_integration(nc, df, alpha=0.05):
    """Two-sided power of the t test by integrating over the chi-square variate (independent of nct)."""
    c = stats.t.ppf(1 - alpha / 2, df)

    def tail(delta):  # P(T' > c) = E_V[Phi(delta - c sqrt(V/df))]
        f = lambda v: stats.norm.cdf(delta - c * math.sqrt(v / df)) * stats.chi2.pdf(v, df)  # noqa: E731
        return integrate.quad(f, 0, np.inf, epsabs=1e-13, epsrel=1e-11, limit=200)[0]

    return tail(nc) + tail(-nc)


@pytest.mark.parametrize("df", [1, 2, 4, 9, 19])
@pytest.mark.parametrize("nc", [0.5, 2.0, 5.0, 9.4, 12.0, 40.0])
def test_observed_power_against_integration(df, nc):
    n = df + 1
    sigma = 0.01
    mean = nc * sigma / math.sqrt(n)
    p = observed_power(mean, sigma, n)
    assert math.isfinite(p)
    assert p == pytest.approx(_power_by_integration(nc, df), abs=1e-8)
    assert observed_power(-mean, sigma, n) == p  # symmetric in the sign of the effect
    ref = TTestPower().power(nc / math.sqrt(n), n, 0.05)  # statsmodels, where it is defined
    if math.isfinite(ref):
        assert p == pytest.approx(ref, abs=1e-10)


def test_observed_power_cora_case_is_one_not_zero():
    # the published cora GCN-GraphSAGE pair: nct.cdf gives NaN there, which max(0, nan) wrote as 0.0
    mean, sigma, n = 0.012299996614456177, 0.004137890962347338, 10
    nc = mean / (sigma / math.sqrt(n))
    assert observed_power(mean, sigma, n) == pytest.approx(1.0, abs=1e-9)
    assert observed_power(mean, sigma, n) == pytest.approx(_power_by_integration(nc, n - 1), abs=1e-9)
    rng = np.random.default_rng(3)
    b = rng.normal(0.8, 0.01, n)
    a = b + mean + sigma * stats.zscore(rng.normal(size=n), ddof=1)  # exactly this mean and spread
    res = paired_power(a, b)
    assert res.observed_power == pytest.approx(1.0, abs=1e-9) and res.detectable


def test_observed_power_monotone_in_the_effect():
    for n in (2, 3, 5, 10, 30):
        p = [observed_power(e, 1.0, n) for e in np.linspace(0, 60, 600)]
        assert all(math.isfinite(x) for x in p)
        assert p[0] == pytest.approx(0.05) and np.all(np.diff(p) >= -1e-12) and p[-1] <= 1.0


def test_power_of_a_zero_spread_pair_is_undefined():
    a, b = _float32_pair([0.10, 0.25, 0.33], 0.6)
    res = paired_power(a, b)
    assert res.degenerate and math.isnan(res.observed_power) and math.isnan(res.mde) and not res.detectable


# ------------------------------------------------------------------ intervals of bounded metrics
def test_t_interval_clipped_to_the_metric_range():
    x = [1.0, 0.9655, 0.8966]  # karate-like: three accuracies near 1
    raw = t_interval(x)
    assert raw.hi > 1.0 and not raw.clipped
    res = t_interval(x, bounds=(0.0, 1.0))
    lo, hi = stats.t.interval(0.95, 2, loc=np.mean(x), scale=stats.sem(x))
    assert res.clipped and res.hi == 1.0 and res.lo == pytest.approx(lo, rel=1e-12) and hi > 1.0
    assert res.half_width == pytest.approx(raw.half_width)  # the precision measure stays unclipped
    two = t_interval([0.4211, 0.6842], bounds=(0.0, 1.0))  # MUTAG at 2 seeds: -0.45..1.56 unclipped
    assert two.clipped and (two.lo, two.hi) == (0.0, 1.0)


def test_interval_inside_the_range_is_not_flagged():
    x = [0.70, 0.72, 0.71, 0.69]
    res = interval(x, bounds=(0.0, 1.0))
    assert not res.clipped and res == t_interval(x)
    boot = interval([0.98, 1.0, 0.99], method="bootstrap", bounds=(0.0, 1.0), n_resamples=500)
    assert not boot.clipped and boot.hi <= 1.0  # percentiles of means stay within the values
    mae = t_interval([0.05, 0.4], bounds=(0.0, math.inf))
    assert mae.clipped and mae.lo == 0.0 and mae.hi > 1.0
    with pytest.raises(ValueError):
        t_interval(x, bounds=(1.0, 0.0))


# ------------------------------------------------------------------ Friedman, k = 2 and complete agreement
def test_friedman_k2_reports_no_iman_davenport():
    res = friedman([[1.0, 2.0], [1.0, 2.0]])
    assert res.chi2 == pytest.approx(2.0) and res.p_value == pytest.approx(stats.chi2.sf(2.0, 1))
    assert math.isnan(res.iman_davenport_f) and math.isnan(res.iman_davenport_p)  # not F = inf, p = 0
    assert "k = 2" in res.note
    # chi2 at k = 2 is (W - L)^2 / N, the sign test's z^2
    r = np.array([[1, 2], [1, 2], [2, 1], [1, 2], [1, 2]], dtype=float)
    assert friedman(r).chi2 == pytest.approx((4 - 1) ** 2 / 5)


def _exact_friedman_tail(k, n, chi2_obs):
    """P(chi2 >= chi2_obs) by enumerating every combination of per-task orders (the Friedman null)."""
    perms = [np.array(p, dtype=float) + 1 for p in itertools.permutations(range(k))]
    hits = total = 0
    for combo in itertools.product(perms, repeat=n):
        total += 1
        hits += friedman(np.array(combo)).chi2 >= chi2_obs - 1e-9
    return hits / total


@pytest.mark.parametrize("k,n", [(3, 2), (3, 3), (4, 2)])
def test_complete_agreement_p_is_exact_not_zero(k, n):
    r = np.tile(np.arange(1.0, k + 1), (n, 1))
    res = friedman(r)
    assert res.iman_davenport_f == math.inf and res.iman_davenport_p > 0
    assert res.iman_davenport_p == pytest.approx(_exact_friedman_tail(k, n, res.chi2), rel=1e-12)
    assert res.iman_davenport_p == pytest.approx(math.factorial(k) ** (1 - n), rel=1e-12)


def test_the_wilcoxon_permutation_path_is_scipys_bit_for_bit():
    """Ties or zeros with at most 13 differences: scipy enumerates every sign flip one statistic call at a
    time (about 0.3 s a pair); ours in one matrix product must give the same statistic and p-value."""
    from scipy import stats as st

    from netzbench.stats.paired import wilcoxon_exact_permutation

    rng = np.random.default_rng(17)
    checked = 0
    while checked < 30:
        n = int(rng.integers(2, 11))
        d = rng.integers(-3, 4, n) * 0.125  # on a grid: ties and zeros, as differences at the resolution are
        if not d.any():
            continue
        ref = st.wilcoxon(d)
        assert wilcoxon_exact_permutation(d) == (float(ref.statistic), float(ref.pvalue)), d
        checked += 1
