"""Per-cell confidence intervals (netzbench.stats.intervals)."""

import math

import numpy as np
import pytest
from scipy import stats

from netzbench.stats import Interval, bootstrap_interval, interval, t_interval


@pytest.mark.parametrize("n", [2, 3, 5, 10, 30])
@pytest.mark.parametrize("ci", [0.9, 0.95, 0.99])
def test_t_interval_matches_scipy(n, ci):
    x = np.random.default_rng(n).normal(0.7, 0.05, size=n)
    res = t_interval(x, ci=ci)
    sem = stats.sem(x)
    lo, hi = stats.t.interval(ci, n - 1, loc=x.mean(), scale=sem)
    assert res.method == "t"
    assert res.n == n
    assert res.mean == pytest.approx(x.mean(), rel=1e-14)
    assert res.std == pytest.approx(np.std(x, ddof=1), rel=1e-12)
    assert res.sem == pytest.approx(sem, rel=1e-12)
    assert res.lo == pytest.approx(lo, rel=1e-12)
    assert res.hi == pytest.approx(hi, rel=1e-12)
    assert res.half_width == pytest.approx((hi - lo) / 2, rel=1e-12)


def test_t_interval_known_value():
    # mean 2.5, sd sqrt(5/3), t_{0.975,3} = 3.182446305...
    res = t_interval([1.0, 2.0, 3.0, 4.0])
    assert res.half_width == pytest.approx(3.182446305284263 * math.sqrt(5 / 3) / 2, rel=1e-12)


def test_t_interval_drops_nan_and_counts_finite():
    x = [0.5, np.nan, 0.7, 0.6, np.inf]
    res = t_interval(x)
    ref = t_interval([0.5, 0.7, 0.6])
    assert res.n == 3
    assert res == ref


def test_n_equals_one_gives_no_interval():
    for fn in (t_interval, bootstrap_interval):
        res = fn([0.83])
        assert res.n == 1
        assert res.mean == 0.83
        for name in ("lo", "hi", "half_width", "std", "sem"):
            assert math.isnan(getattr(res, name)), name


def test_n_equals_one_after_nan_drop():
    res = t_interval([np.nan, 0.4, np.nan])
    assert res.n == 1 and res.mean == 0.4 and math.isnan(res.half_width)


def test_empty_and_all_nan_give_all_nan():
    for values in ([], [np.nan, np.nan]):
        for fn in (t_interval, bootstrap_interval):
            res = fn(values)
            assert res.n == 0
            assert all(math.isnan(getattr(res, f)) for f in ("mean", "lo", "hi", "half_width", "std", "sem"))


def test_constant_values_zero_width():
    for fn in (t_interval, bootstrap_interval):
        res = fn([0.1, 0.1, 0.1])
        assert res.std == 0.0 and res.sem == 0.0
        assert res.lo == res.hi == res.mean == 0.1
        assert res.half_width == 0.0


def test_bootstrap_reproducible_and_seed_dependent():
    x = np.random.default_rng(0).gamma(2.0, 0.05, size=10)
    a = bootstrap_interval(x, seed=1)
    b = bootstrap_interval(x, seed=1)
    c = bootstrap_interval(x, seed=2)
    assert a == b
    assert (a.lo, a.hi) != (c.lo, c.hi)
    assert a.method == "bootstrap"


def test_bootstrap_is_percentile_of_resampled_means():
    x = np.array([0.61, 0.64, 0.66, 0.70, 0.71, 0.90])
    res = bootstrap_interval(x, ci=0.9, n_resamples=5000, seed=7)
    rng = np.random.default_rng(7)
    means = x[rng.integers(0, x.size, size=(5000, x.size))].mean(axis=1)
    lo, hi = np.percentile(means, [5, 95])
    assert res.lo == pytest.approx(lo, rel=1e-12)
    assert res.hi == pytest.approx(hi, rel=1e-12)
    assert res.half_width == pytest.approx((hi - lo) / 2, rel=1e-12)
    # one high outlier: the percentile interval is asymmetric about the mean
    assert (res.hi - res.mean) > (res.mean - res.lo)


def test_bootstrap_close_to_scipy_percentile_bootstrap():
    x = np.random.default_rng(3).normal(0.8, 0.02, size=10)
    res = bootstrap_interval(x, n_resamples=20000, seed=0)
    ref = stats.bootstrap((x,), np.mean, n_resamples=20000, method="percentile", rng=np.random.default_rng(5))
    assert res.lo == pytest.approx(ref.confidence_interval.low, abs=1.5e-3)
    assert res.hi == pytest.approx(ref.confidence_interval.high, abs=1.5e-3)


def test_bootstrap_n_resamples_chunking_consistent():
    # large n * n_resamples goes through several chunks; still a valid percentile interval
    x = np.random.default_rng(1).normal(size=500)
    res = bootstrap_interval(x, n_resamples=10000, seed=0)
    assert res.lo < res.mean < res.hi
    assert res.half_width == pytest.approx(1.96 * res.sem, rel=0.05)


def test_dispatcher():
    x = [0.5, 0.6, 0.7, 0.65]
    assert interval(x) == t_interval(x)
    assert interval(x, method="bootstrap", n_resamples=500, seed=3) == bootstrap_interval(x, n_resamples=500, seed=3)
    with pytest.raises(ValueError, match="t, bootstrap"):
        interval(x, method="bca")


@pytest.mark.parametrize("ci", [0.0, 1.0, 1.5, -0.1])
def test_invalid_ci(ci):
    with pytest.raises(ValueError):
        t_interval([1.0, 2.0], ci=ci)


def test_interval_is_frozen():
    res = t_interval([1.0, 2.0])
    assert isinstance(res, Interval)
    with pytest.raises(Exception):
        res.mean = 3.0  # type: ignore[misc]
