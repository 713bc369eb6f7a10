"""Power analysis, TOST and the verdict (netzbench.stats.power / equivalence)."""

import math

import numpy as np
import pytest
from scipy import stats

from netzbench.stats import paired_power, tost_paired, verdict


def _pair(seed, n=10, shift=0.01, sd=0.01):
    rng = np.random.default_rng(seed)
    b = rng.normal(0.8, 0.02, size=n)
    return b + rng.normal(shift, sd, size=n), b


# -------------------------------------------------------------------- power


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n", [3, 5, 10])
@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_observed_power_against_nct(seed, n, alpha):
    a, b = _pair(seed, n, shift=0.006)
    d = a - b
    sd = d.std(ddof=1)
    df = n - 1
    nc = d.mean() / (sd / np.sqrt(n))
    tcrit = stats.t.isf(alpha / 2, df)
    expected = 1 - (stats.nct.cdf(tcrit, df, nc) - stats.nct.cdf(-tcrit, df, nc))
    res = paired_power(a, b, alpha=alpha)
    assert res.observed_power == pytest.approx(expected, rel=1e-9, abs=1e-12)
    mde = (stats.t.isf(alpha / 2, df) + stats.t.ppf(0.8, df)) * sd / np.sqrt(n)
    assert res.mde == pytest.approx(mde, rel=1e-12)
    assert res.detectable == (abs(d.mean()) >= mde)
    assert res.n == n and res.sigma_d == pytest.approx(sd, rel=1e-12)


def test_power_is_rejection_rate_by_simulation():
    # observed power should be the rejection rate of ttest_rel at the observed effect
    a, b = _pair(11, n=8, shift=0.01, sd=0.012)
    res = paired_power(a, b)
    d = a - b
    rng = np.random.default_rng(0)
    sims = rng.normal(d.mean(), d.std(ddof=1), size=(20000, 8))
    rate = np.mean(stats.ttest_1samp(sims, 0.0, axis=1).pvalue < 0.05)
    assert res.observed_power == pytest.approx(rate, abs=0.015)


def test_seeds_needed_definition():
    a, b = _pair(2, n=6, shift=0.01, sd=0.02)
    res = paired_power(a, b, effects=(0.02, 0.01, 0.005, 1e-7))
    sd = res.sigma_d

    def mde(n):
        return (stats.t.isf(0.025, n - 1) + stats.t.ppf(0.8, n - 1)) * sd / np.sqrt(n)

    for e in (0.02, 0.01, 0.005):
        n_e = res.seeds_needed[e]
        assert n_e is not None and n_e >= 2
        assert mde(n_e) <= e
        if n_e > 2:
            assert mde(n_e - 1) > e
    assert res.seeds_needed[1e-7] is None  # beyond 10000 seeds
    assert res.seeds_needed[0.005] > res.seeds_needed[0.01] > res.seeds_needed[0.02]
    # MDE at the current n: consistent with the seeds_needed search
    assert res.mde == pytest.approx(mde(6), rel=1e-12)


@pytest.mark.parametrize("alpha,power", [(0.05, 0.8), (0.01, 0.9), (0.1, 0.5)])
def test_seeds_needed_uses_the_mde_curve_exactly(alpha, power):
    """paired_power keeps the t-quantile sum over n = 2..MAX_SEEDS once per (alpha, power); its seeds_needed
    must be the first n of mde()'s own curve at or under each effect, bit for bit."""
    from netzbench.stats.power import MAX_SEEDS, mde

    grid = np.arange(2, MAX_SEEDS + 1)
    for seed in range(3):
        a, b = _pair(seed, n=8, shift=0.01, sd=0.03 * (seed + 1))
        res = paired_power(a, b, alpha=alpha, power=power, effects=(0.05, 0.01, 0.002, 0.0004))
        curve = mde(res.sigma_d, grid, alpha, power)
        for e, n_e in res.seeds_needed.items():
            hit = np.flatnonzero(curve <= e)
            assert n_e == (int(grid[hit[0]]) if hit.size else None)
        assert res.mde == mde(res.sigma_d, 8, alpha, power)


def test_power_detectable_large_effect():
    a, b = _pair(4, n=10, shift=0.05, sd=0.01)
    res = paired_power(a, b)
    assert res.detectable
    assert res.observed_power > 0.99


def test_power_edge_cases():
    # one seed
    res = paired_power([0.5], [0.4])
    assert math.isnan(res.mde) and math.isnan(res.observed_power) and math.isnan(res.sigma_d)
    assert res.detectable is False and res.n == 1
    assert res.seeds_needed == {0.02: None, 0.01: None, 0.005: None}
    # identical models / constant nonzero difference: zero spread, the t test (and its power) undefined
    x = np.array([0.8, 0.82, 0.81])
    for a in (x, x + 0.25):
        res = paired_power(a, x)
        assert math.isnan(res.mde) and math.isnan(res.observed_power) and res.sigma_d == 0.0
        assert res.detectable is False and res.degenerate
        assert res.seeds_needed == {0.02: None, 0.01: None, 0.005: None}
    # no effect with spread: lambda = 0, power equals alpha
    res = paired_power(x + np.array([0.01, -0.01, 0.0]), x)
    assert res.observed_power == 0.05 and res.detectable is False and not res.degenerate
    # NaN pairs dropped
    a, b = _pair(5, n=6)
    a2 = np.append(a, np.nan)
    b2 = np.append(b, 0.3)
    assert paired_power(a2, b2) == paired_power(a, b)


def test_power_bad_arguments():
    with pytest.raises(ValueError):
        paired_power([1, 2, 3], [1, 2, 4], alpha=0)
    with pytest.raises(ValueError):
        paired_power([1, 2, 3], [1, 2, 4], power=1.0)
    with pytest.raises(ValueError):
        paired_power([1, 2, 3], [1, 2, 4], effects=(0.01, 0.0))


# --------------------------------------------------------------------- TOST


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("margin", [0.005, 0.01, 0.03])
def test_tost_against_two_one_sided_ttests(seed, margin):
    a, b = _pair(seed, n=10, shift=0.002, sd=0.01)
    d = a - b
    p_lo = stats.ttest_1samp(d, -margin, alternative="greater").pvalue
    p_hi = stats.ttest_1samp(d, margin, alternative="less").pvalue
    res = tost_paired(a, b, margin)
    assert res.p_lower == pytest.approx(p_lo, rel=1e-10)
    assert res.p_upper == pytest.approx(p_hi, rel=1e-10)
    assert res.p_value == pytest.approx(max(p_lo, p_hi), rel=1e-10)
    assert res.equivalent == (max(p_lo, p_hi) < 0.05)
    assert res.margin == margin and res.n == 10


def test_tost_equivalence_and_not():
    rng = np.random.default_rng(0)
    b = rng.normal(0.8, 0.02, size=20)
    a = b + rng.normal(0.0, 0.002, size=20)
    assert tost_paired(a, b, margin=0.01).equivalent
    assert not tost_paired(a + 0.02, b, margin=0.01).equivalent
    # the TOST p-value agrees with the 90 % CI rule: equivalent iff CI inside (-m, m)
    d = a - b
    lo, hi = stats.t.interval(0.90, d.size - 1, loc=d.mean(), scale=stats.sem(d))
    for m in (0.0005, 0.001, 0.002, 0.005):
        assert tost_paired(a, b, m).equivalent == (-m < lo and hi < m)


def test_tost_edge_cases():
    res = tost_paired([0.5], [0.5], 0.01)
    assert math.isnan(res.p_value) and res.equivalent is False and res.n == 1
    x = np.array([0.7, 0.72, 0.75])
    # zero spread (identical models, constant differences inside or outside the margin): the one-sided
    # t tests are undefined, so no p-value and never equivalent
    for a, margin in ((x, 0.01), (x + 0.25, 0.01), (x + 0.25, 0.5)):
        res = tost_paired(a, x, margin)
        assert math.isnan(res.p_value) and math.isnan(res.p_lower) and math.isnan(res.p_upper)
        assert res.equivalent is False and res.note.startswith("zero spread")
    with pytest.raises(ValueError):
        tost_paired(x, x, 0.0)
    with pytest.raises(ValueError):
        tost_paired(x, x, -0.1)


# ------------------------------------------------------------------ verdict


@pytest.mark.parametrize(
    "p_diff, p_eq, expected",
    [
        (0.01, 0.40, "different"),
        (0.40, 0.01, "equivalent"),
        (0.01, 0.01, "trivial"),
        (0.40, 0.40, "undetermined"),
        (float("nan"), float("nan"), "undetermined"),
        (float("nan"), 0.01, "equivalent"),
        (0.01, float("nan"), "different"),
        (0.05, 0.01, "equivalent"),  # p == alpha is not significant
    ],
)
def test_verdict_table(p_diff, p_eq, expected):
    assert verdict(p_diff, p_eq) == expected


def test_verdict_alpha():
    assert verdict(0.07, 0.5, alpha=0.1) == "different"
    assert verdict(0.07, 0.5, alpha=0.05) == "undetermined"
