"""Across-task post-hoc tests, Bayesian comparisons, tie-corrected Friedman and the library calls
behind Holm, TOST, power and the bootstrap -- each against an independent reference."""

import math

import baycomp
import numpy as np
import pytest
import scipy.stats as st
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestPower
from statsmodels.stats.weightstats import ttost_paired

from netzbench import stats as S
from netzbench.stats.bayesian import correlated_t_test, signed_rank_test
from netzbench.stats.intervals import bootstrap_interval
from netzbench.stats.posthoc import nemenyi_posthoc, posthoc, wilcoxon_holm
from netzbench.stats.power import observed_power


def _scores(seed, n=10, k=4, spread=0.6):
    rng = np.random.default_rng(seed)
    return rng.normal(0.75, 0.05, size=(n, k)) + np.linspace(0, spread * 0.05, k)


# ------------------------------------------------------------------ Wilcoxon–Holm over tasks
@pytest.mark.parametrize("seed", range(6))
def test_wilcoxon_holm_matches_scipy_and_statsmodels(seed):
    s = _scores(seed, n=int(6 + seed), k=4)
    rows = wilcoxon_holm(s, alpha=0.05)
    pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    raw = [st.wilcoxon(s[:, i] - s[:, j]).pvalue for i, j in pairs]
    adj = multipletests(raw, method="holm")[1]
    assert [(r.i, r.j) for r in rows] == pairs
    for r, p, ph in zip(rows, raw, adj):
        assert r.p_raw == pytest.approx(p, rel=1e-12)
        assert r.p_holm == pytest.approx(ph, rel=1e-12) and r.p_adjusted == r.p_holm
        assert r.significant == (ph < 0.05)
        assert r.n_tasks == s.shape[0] and r.wins_i + r.wins_j == s.shape[0]


def test_wilcoxon_holm_better_and_degenerate_pairs():
    rng = np.random.default_rng(0)
    base = rng.normal(0.7, 0.05, 10)
    s = np.column_stack([base, base + 0.05 + rng.normal(0, 0.001, 10), base])  # model 2 == model 0
    rows = {(r.i, r.j): r for r in wilcoxon_holm(s)}
    assert rows[(0, 1)].significant and rows[(0, 1)].better == 1 and rows[(0, 1)].wins_j == 10
    tie = rows[(0, 2)]  # every task difference zero: no test, out of the Holm family, degenerate
    assert math.isnan(tie.p_raw) and math.isnan(tie.p_holm) and not tie.significant and tie.degenerate
    assert rows[(0, 1)].p_holm == pytest.approx(multipletests([rows[(0, 1)].p_raw, rows[(1, 2)].p_raw],
                                                              method="holm")[1][0])


# ------------------------------------------------------------------------------- Nemenyi
@pytest.mark.parametrize("seed", range(5))
def test_nemenyi_pairs_agree_with_the_cd(seed):
    s = _scores(seed, n=12, k=5, spread=3.0)
    r = S.rank_matrix(s, True)
    mr = S.mean_ranks(r)
    cd = S.critical_difference(5, 12, 0.05)
    rows = nemenyi_posthoc(r, 0.05)
    se = math.sqrt(5 * 6 / (6 * 12))
    for p in rows:
        z = (mr[p.i] - mr[p.j]) / se
        assert p.statistic == pytest.approx(z, rel=1e-12)
        assert p.p_raw == pytest.approx(2 * st.norm.sf(abs(z)), rel=1e-12)
        assert p.significant == (abs(mr[p.i] - mr[p.j]) >= cd)
        assert p.significant == (p.p_adjusted <= 0.05)  # Nemenyi's p and the CD are one decision
        assert p.wins_i == int(np.sum(r[:, p.i] < r[:, p.j]))
    np.testing.assert_allclose([p.p_holm for p in rows], multipletests([p.p_raw for p in rows], method="holm")[1])
    # the cliques drawn from the Nemenyi matrix are the CD cliques
    assert S.posthoc_cliques(mr, rows) == S.cliques(mr, cd)


def test_nemenyi_p_at_k2_is_the_normal_test():
    r = S.rank_matrix(_scores(1, n=9, k=2, spread=5), True)
    (p,) = nemenyi_posthoc(r)
    assert p.p_adjusted == p.p_raw == pytest.approx(2 * st.norm.sf(abs(p.statistic)))


def test_posthoc_dispatch_and_errors():
    s = _scores(3)
    assert posthoc(s, "wilcoxon_holm") == wilcoxon_holm(s)
    assert posthoc(s, "nemenyi") == nemenyi_posthoc(S.rank_matrix(s, True))
    with pytest.raises(ValueError, match="nemenyi, wilcoxon_holm"):
        posthoc(s, "conover")
    assert posthoc(s[:, :1], "nemenyi") == [] and posthoc(s[:, :1], "wilcoxon_holm") == []


# ------------------------------------------------------------------ cliques from any matrix
@pytest.mark.parametrize("seed", range(8))
def test_cliques_from_matrix_reproduce_nemenyi_cliques(seed):
    rng = np.random.default_rng(seed)
    r = rng.uniform(1, 6, size=6)
    for cd in (0.3, 1.0, 2.5, 10.0):
        assert S.cliques_from_matrix(r, np.abs(r[:, None] - r[None, :]) >= cd) == S.cliques(r, cd)


def test_cliques_from_matrix_hand_built():
    r = [1.0, 2.0, 3.0, 4.0]
    sig = np.zeros((4, 4), dtype=bool)
    sig[0, 2] = sig[2, 0] = True  # only 0-2 differ: runs {0,1} and {1,2,3}
    assert S.cliques_from_matrix(r, sig) == [(0, 1), (1, 2, 3)]
    sig[0, 3] = sig[3, 0] = sig[1, 3] = sig[3, 1] = True  # 1-3 too: {0,1}, {1,2}, {2,3}
    assert S.cliques_from_matrix(r, sig) == [(0, 1), (1, 2), (2, 3)]
    assert S.cliques_from_matrix(r, np.zeros((4, 4), bool)) == [(0, 1, 2, 3)]
    assert S.cliques_from_matrix(r, ~np.eye(4, dtype=bool)) == []
    with pytest.raises(ValueError):
        S.cliques_from_matrix(r, np.zeros((3, 3), bool))


# ---------------------------------------------------------------- Friedman with ties
@pytest.mark.parametrize("seed", range(6))
def test_tie_corrected_friedman_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 4, size=(12, 4)).astype(float)  # many ties
    res = S.friedman(S.rank_matrix(scores, True))
    ref = st.friedmanchisquare(*scores.T)
    assert res.chi2_tie_corrected == pytest.approx(ref.statistic, rel=1e-12)
    assert res.p_value_tie_corrected == pytest.approx(ref.pvalue, rel=1e-12)
    assert res.chi2_tie_corrected >= res.chi2  # ties only shrink the textbook statistic


def test_tie_corrected_friedman_k2_and_edge_cases():
    # k = 2: the tie-corrected statistic is the sign test's (W - L)^2 / (W + L) over the untied tasks
    r = np.array([[1, 2], [1.5, 1.5], [2, 1], [1, 2], [1, 2]], dtype=float)
    res = S.friedman(r)
    assert res.chi2_tie_corrected == pytest.approx((3 - 1) ** 2 / 4)
    assert res.p_value_tie_corrected == pytest.approx(st.chi2.sf(1.0, 1))
    # no ties: the two statistics coincide
    res = S.friedman(S.rank_matrix(_scores(0), True))
    assert res.chi2_tie_corrected == pytest.approx(res.chi2, rel=1e-12)
    # every task ties every model: undefined, the textbook statistic is 0
    res = S.friedman(np.full((5, 3), 2.0))
    assert res.chi2 == 0.0 and math.isnan(res.chi2_tie_corrected) and math.isnan(res.p_value_tie_corrected)
    assert math.isnan(S.friedman(np.ones((4, 1))).chi2_tie_corrected)


# ------------------------------------------------------------- Bayesian signed-rank test
@pytest.mark.parametrize("seed, rope", [(0, 0.01), (1, 0.005), (2, 0.0), (3, 0.02)])
def test_signed_rank_test_is_baycomp(seed, rope):
    rng = np.random.default_rng(seed)
    a = rng.normal(0.8, 0.05, 10)
    b = a - rng.normal(0.008, 0.015, 10)
    res = signed_rank_test(a, b, rope, n_samples=20000, seed=11)
    ref = baycomp.two_on_multiple(a, b, rope, nsamples=20000, random_state=11)
    assert (res.p_a_better, res.p_rope, res.p_b_better) == pytest.approx(tuple(ref), abs=1e-12)
    assert res.p_a_better + res.p_rope + res.p_b_better == pytest.approx(1.0)
    # an independent Monte-Carlo sample (another seed) agrees within Monte-Carlo error
    other = signed_rank_test(a, b, rope, n_samples=20000, seed=12)
    se = 0.5 / math.sqrt(20000)
    assert abs(other.p_a_better - res.p_a_better) < 8 * se and abs(other.p_rope - res.p_rope) < 8 * se


@pytest.mark.parametrize("k,rope,decimals", [(1, 0.0, 2), (5, 0.01, 2), (8, 0.0, 3), (12, 0.02, 1), (39, 0.005, 3)])
def test_signed_rank_draws_are_baycomps_bit_for_bit(k, rope, decimals):
    """Every draw's region masses equal baycomp's (its Python loop, vectorised here), ties included."""
    from netzbench.stats.bayesian import _region_masses

    d = np.round(np.random.default_rng(k).normal(0.0, 0.04, k), decimals)  # rounding makes exact ties
    for n in (1, 7, 5000):
        ref = baycomp.SignedRankTest.sample(np.zeros(k), -d, rope, prior=0.5, nsamples=n, random_state=k)
        got = _region_masses(d, rope, 0.5, n, k, chunk=1000)
        assert np.array_equal(got, ref)


def test_signed_rank_test_against_direct_dirichlet_computation():
    # the published method, computed directly: theta_right = sum_ij w_i w_j [d_i + d_j > 2 rope]
    # (pseudo-observation 0 with prior weight 0.5); P(region) = P(region is the largest)
    rng = np.random.default_rng(5)
    d = rng.normal(0.01, 0.02, 8)
    rope = 0.01
    z = np.concatenate([[0.0], d])
    w = np.random.default_rng(99).dirichlet(np.r_[0.5, np.ones(d.size)], 40000)
    sums = z[:, None] + z[None, :]
    right = np.einsum("si,ij,sj->s", w, (sums > 2 * rope).astype(float), w)
    left = np.einsum("si,ij,sj->s", w, (sums < -2 * rope).astype(float), w)
    probs = np.bincount(np.argmax(np.c_[right, 1 - left - right, left], axis=1), minlength=3) / w.shape[0]
    res = signed_rank_test(d, np.zeros(d.size), rope, n_samples=40000, seed=3)
    se = 0.5 / math.sqrt(40000)
    assert res.p_a_better == pytest.approx(probs[0], abs=8 * se)
    assert res.p_rope == pytest.approx(probs[1], abs=8 * se)


def test_signed_rank_test_reproducible_and_degenerate():
    a = np.array([0.71, 0.80, 0.65, 0.90, 0.77])
    b = a - np.array([0.02, 0.01, -0.005, 0.03, 0.015])
    assert signed_rank_test(a, b, 0.01, seed=4) == signed_rank_test(a, b, 0.01, seed=4)
    same = signed_rank_test(a, a, 0.0)
    assert (same.p_a_better, same.p_rope, same.p_b_better) == (0.5, 0.0, 0.5) and same.degenerate
    assert signed_rank_test(a, a, 0.01).p_rope == 1.0  # all zero inside a ROPE: practically equivalent
    assert signed_rank_test(a, a + 1e-9, 0.0).degenerate  # float noise below the resolution is no difference
    assert math.isnan(signed_rank_test([], [], 0.01).p_rope)
    with pytest.raises(ValueError):
        signed_rank_test(a, b, -0.01)


# ----------------------------------------------------------- Bayesian correlated t-test
@pytest.mark.parametrize("seed", range(5))
def test_correlated_t_test_is_baycomps_with_its_rho(seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(0.8, 0.01, 10)
    b = a - rng.normal(0.004, 0.01, 10)
    res = correlated_t_test(a, b, 0.005, rho=1 / 10)  # baycomp: runs = 1, rho = 1 / n_folds
    ref = baycomp.two_on_single(a, b, 0.005, runs=1)
    assert (res.p_a_better, res.p_rope, res.p_b_better) == pytest.approx(tuple(ref), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_correlated_t_test_with_rho_zero_is_the_paired_t_posterior(seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(0.8, 0.01, 8)
    b = a - rng.normal(0.003, 0.01, 8)
    res = correlated_t_test(a, b, 0.0)
    # flat prior: P(mu > 0 | data) is the one-sided paired t test's p-value for the other direction
    assert res.p_a_better == pytest.approx(st.ttest_rel(a, b, alternative="less").pvalue, rel=1e-10)
    assert res.p_rope == 0.0
    wide = correlated_t_test(a, b, 0.0, rho=0.5)  # correlation widens the posterior towards 1/2
    assert abs(wide.p_a_better - 0.5) < abs(res.p_a_better - 0.5)


def test_correlated_t_test_degenerate():
    x = np.array([0.7, 0.72, 0.75])
    for b in (x, x - 0.3):  # zero spread: no posterior scale
        res = correlated_t_test(x, b, 0.01)
        assert res.degenerate and math.isnan(res.p_a_better) and math.isnan(res.p_rope)
    assert math.isnan(correlated_t_test([0.5], [0.4], 0.01).p_a_better)
    with pytest.raises(ValueError):
        correlated_t_test(x, x + [0.01, 0.0, 0.02], 0.01, rho=1.0)


# ---------------------------------------------- the library calls behind Holm, power, bootstrap
def test_holm_is_statsmodels_with_nan_left_out():
    p = np.array([0.01, np.nan, 0.04, 0.03, np.nan, 0.2])
    out = S.holm(p)
    ok = ~np.isnan(p)
    assert np.array_equal(out[ok], multipletests(p[ok], method="holm")[1])
    assert np.isnan(out[~ok]).all()


@pytest.mark.parametrize("n", [2, 3, 5, 10, 30])
def test_observed_power_is_statsmodels_or_the_survival_path(n):
    for dz in (0.05, 0.3, 1.0, 2.0, 3.0, 10.0, 50.0):
        ours = observed_power(dz, 1.0, n, 0.05)
        ref = TTestPower().power(dz, n, 0.05, alternative="two-sided")
        if np.isfinite(ref):
            assert ours == pytest.approx(min(1.0, ref), abs=1e-14)
        else:  # statsmodels' non-central t CDF is NaN for large effects: the survival-function path answers
            tc = st.t.ppf(0.975, n - 1)
            nc = dz * math.sqrt(n)
            assert ours == pytest.approx(min(1.0, st.nct.sf(tc, n - 1, nc) + st.nct.sf(tc, n - 1, -nc)), abs=1e-14)
            assert 0.99 < ours <= 1.0


def test_tost_is_statsmodels_ttost_paired():
    rng = np.random.default_rng(2)
    b = rng.normal(0.8, 0.02, 10)
    a = b + rng.normal(0.002, 0.004, 10)
    res = S.tost_paired(a, b, 0.01)
    p, (_, p1, _), (_, p2, _) = ttost_paired(a, b, -0.01, 0.01)
    assert (res.p_value, res.p_lower, res.p_upper) == pytest.approx((p, p1, p2), rel=1e-12)


@pytest.mark.parametrize("n", [2, 5, 10, 40])
def test_bootstrap_interval_is_scipy_and_unchanged(n):
    x = np.random.default_rng(n).normal(0.8, 0.03, n)
    res = bootstrap_interval(x, 0.95, 5000, seed=3)
    ref = st.bootstrap((x,), np.mean, n_resamples=5000, method="percentile", rng=np.random.default_rng(3))
    assert (res.lo, res.hi) == pytest.approx((ref.confidence_interval.low, ref.confidence_interval.high), abs=1e-12)
    # the scheme this module used before it called scipy: one (B, n) index draw, percentiles of the means
    means = x[np.random.default_rng(3).integers(0, n, size=(5000, n))].mean(axis=1)
    assert (res.lo, res.hi) == pytest.approx(tuple(np.percentile(means, [2.5, 97.5])), abs=1e-12)
