"""Rank table, aggregations, Friedman and Nemenyi (netzbench.stats.ranks/friedman/nemenyi)."""

import math

import numpy as np
import pytest
from scipy import stats

from netzbench.stats import (
    aggregate_ranks,
    cliques,
    critical_difference,
    friedman,
    max_rank_gap,
    mean_ranks,
    n_for_observed_gap,
    nemenyi_q,
    rank_matrix,
)

# Paper Table 3 (cross-category run): seed means of GCN, GAT, SAGE, GT on ten tasks,
# all higher-is-better.  Euroroad reads 0.524 for both GCN and GT after rounding;
# the paper's mean ranks (GCN 2.40, GT 2.60) imply GT was ahead, so GT gets 0.5245.
PAPER_SCORES = np.array(
    [
        [0.864, 0.832, 0.884, 0.871],  # TSP-random
        [0.705, 0.637, 0.708, 0.721],  # MUTAG
        [0.811, 0.793, 0.798, 0.794],  # Cora
        [0.674, 0.528, 0.633, 0.538],  # FB15k-237
        [0.524, 0.609, 0.534, 0.5245],  # Euroroad
        [0.968, 0.988, 0.902, 0.847],  # Board-directors
        [0.967, 0.652, 0.751, 0.598],  # Internet AS
        [0.103, 0.107, 0.123, 0.137],  # MNIST-superpixels
        [0.676, 0.625, 0.632, 0.628],  # Ising-lattice
        [0.685, 0.756, 0.700, 0.712],  # 9/11 terrorists
    ]
)

# Demšar (2006) Sec. 3.2.2 worked example: N = 14, k = 4 with mean ranks
# 3.143, 2.000, 2.893, 1.964 -> chi2_F = 9.28, F_F = 3.69.  Any rank table with
# those column sums reproduces it; this one was built by hand.
DEMSAR_RANKS = np.array(
    [[2, 1, 4, 3], [4, 3, 1, 2], [4, 2, 3, 1], [3, 2, 4, 1], [3, 1, 4, 2], [4, 2, 3, 1], [1, 2, 3, 4],
     [4, 3, 1, 2], [3, 2, 4, 1], [4, 2, 1, 3], [4, 2, 3, 1], [3, 1, 4, 2], [4, 3, 2, 1], [1, 2, 3.5, 3.5]],
    dtype=float,
)  # fmt: skip


# ---------------------------------------------------------------- rank table


def test_rank_matrix_mixed_directions_and_ties():
    scores = np.array(
        [
            [0.90, 0.80, 0.85],  # accuracy, higher better
            [0.30, 0.10, 0.20],  # MAE, lower better
            [0.70, 0.70, 0.60],  # tie for best
            [0.50, 0.50, 0.50],  # all tied
        ]
    )
    hib = [True, False, True, True]
    r = rank_matrix(scores, hib)
    np.testing.assert_array_equal(r, [[1, 3, 2], [3, 1, 2], [1.5, 1.5, 3], [2, 2, 2]])
    assert np.all(r.sum(axis=1) == 6)  # k(k+1)/2


def test_rank_matrix_scalar_direction_and_scipy():
    rng = np.random.default_rng(0)
    s = rng.normal(size=(6, 5))
    np.testing.assert_array_equal(rank_matrix(s, False), np.vstack([stats.rankdata(row) for row in s]))
    np.testing.assert_array_equal(rank_matrix(s, True), np.vstack([stats.rankdata(-row) for row in s]))


def test_rank_matrix_errors():
    with pytest.raises(ValueError, match="NaN"):
        rank_matrix([[0.1, np.nan], [0.2, 0.3]], True)
    with pytest.raises(ValueError):
        rank_matrix([0.1, 0.2], True)
    with pytest.raises(ValueError):
        rank_matrix([[0.1, 0.2]], [True, False])


def test_rank_matrix_one_task():
    r = rank_matrix([[0.2, 0.9, 0.5]], True)
    np.testing.assert_array_equal(r, [[3, 1, 2]])


# -------------------------------------------------------------- aggregations


def test_mean_ranks_and_weights():
    r = np.array([[1, 2, 3], [3, 2, 1], [1, 3, 2.0]])
    np.testing.assert_allclose(mean_ranks(r), [5 / 3, 7 / 3, 2])
    np.testing.assert_allclose(mean_ranks(r, [1, 0, 0]), [1, 2, 3])
    np.testing.assert_allclose(mean_ranks(r, [2, 2, 4]), mean_ranks(r, [0.25, 0.25, 0.5]))
    np.testing.assert_allclose(mean_ranks(r, [1, 1, 2]), [1.5, 2.5, 2.0])
    for bad in ([1, 1], [1, -1, 1], [0, 0, 0], [1, np.nan, 1]):
        with pytest.raises(ValueError):
            mean_ranks(r, bad)


def test_aggregations():
    r = np.array([[1, 2, 3], [3, 2, 1], [1, 3, 2.0], [2, 1, 3]])
    np.testing.assert_allclose(aggregate_ranks(r), r.mean(axis=0))
    # reliability: 1/h weights
    h = np.array([0.01, 0.02, 0.04, 0.02])
    w = 1 / h
    np.testing.assert_allclose(aggregate_ranks(r, "reliability", ci_half_widths=h), (w / w.sum()) @ r)
    # hierarchical: mean within groups, then across groups
    groups = ["bio", "bio", "social", "vision"]
    expected = (r[:2].mean(axis=0) + r[2] + r[3]) / 3
    np.testing.assert_allclose(aggregate_ranks(r, "hierarchical", groups=groups), expected)
    # custom
    np.testing.assert_allclose(aggregate_ranks(r, "custom", weights=[0, 0, 0, 5]), r[3])
    with pytest.raises(ValueError, match="uniform, reliability, hierarchical, custom"):
        aggregate_ranks(r, "median")
    with pytest.raises(ValueError):
        aggregate_ranks(r, "custom")
    with pytest.raises(ValueError):
        aggregate_ranks(r, "hierarchical", groups=["a", "b"])
    with pytest.raises(ValueError):
        aggregate_ranks(r, "reliability")


def test_reliability_degenerate_half_widths():
    r = np.array([[1, 2, 3], [3, 2, 1], [1, 3, 2.0]])
    # NaN half-width (one seed): task excluded
    np.testing.assert_allclose(
        aggregate_ranks(r, "reliability", ci_half_widths=[0.1, np.nan, 0.1]), r[[0, 2]].mean(axis=0)
    )
    # zero half-width: limit of 1/h, the zero-width task dominates
    np.testing.assert_allclose(aggregate_ranks(r, "reliability", ci_half_widths=[0.1, 0.0, 0.1]), r[1])
    # all NaN: no usable weights
    assert np.all(np.isnan(aggregate_ranks(r, "reliability", ci_half_widths=[np.nan] * 3)))


# ------------------------------------------------------------------ Friedman


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("shape", [(10, 4), (6, 3), (20, 6)])
def test_friedman_matches_scipy_without_ties(seed, shape):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=shape) + np.linspace(0, 1, shape[1])
    r = rank_matrix(scores, True)
    res = friedman(r)
    ref = stats.friedmanchisquare(*scores.T)
    assert res.chi2 == pytest.approx(ref.statistic, rel=1e-10)
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert res.df == shape[1] - 1
    n, k = shape
    f = (n - 1) * res.chi2 / (n * (k - 1) - res.chi2)
    assert res.iman_davenport_f == pytest.approx(f, rel=1e-12)
    assert res.iman_davenport_p == pytest.approx(stats.f.sf(f, k - 1, (k - 1) * (n - 1)), rel=1e-10)
    assert (res.n_tasks, res.k) == shape


def test_friedman_paper_example():
    # Paper Sec. 3.4: mean ranks SAGE 2.10, GCN 2.40, GT 2.60, GAT 2.90; chi2_3 = 2.04, p = 0.56
    r = rank_matrix(PAPER_SCORES, True)
    np.testing.assert_allclose(mean_ranks(r), [2.4, 2.9, 2.1, 2.6])
    res = friedman(r)
    assert res.chi2 == pytest.approx(2.04, abs=1e-12)
    assert round(res.p_value, 2) == 0.56
    cd = critical_difference(4, 10)
    assert round(cd, 2) == 1.48
    gap = max_rank_gap(mean_ranks(r))
    assert gap == pytest.approx(0.8)
    assert cliques(mean_ranks(r), cd) == [(2, 0, 3, 1)]  # one clique: SAGE, GCN, GT, GAT
    assert n_for_observed_gap(cd, 10, gap) == math.ceil(cd**2 * 10 / 0.64) == 35


def test_friedman_demsar_worked_example():
    res = friedman(DEMSAR_RANKS)
    np.testing.assert_allclose(mean_ranks(DEMSAR_RANKS), [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    assert round(res.chi2, 2) == 9.28
    assert round(res.iman_davenport_f, 2) == 3.69
    assert res.iman_davenport_p < 0.05  # critical F(3, 39) = 2.85 in Demšar
    assert stats.f.isf(0.05, 3, 39) == pytest.approx(2.85, abs=5e-3)


def test_friedman_ties_use_spec_formula():
    r = np.array([[1, 2.5, 2.5], [1, 2, 3], [2, 1, 3], [1.5, 1.5, 3]])
    rbar = r.mean(axis=0)
    n, k = r.shape
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(rbar**2) - k * (k + 1) ** 2 / 4)
    assert friedman(r).chi2 == pytest.approx(chi2, rel=1e-12)


def test_friedman_edge_cases():
    # perfect agreement: F = inf, p the exact probability of agreement, (4!)^(1-5), not 0
    r = np.tile([1.0, 2.0, 3.0, 4.0], (5, 1))
    res = friedman(r)
    assert res.chi2 == pytest.approx(5 * 3)
    assert res.iman_davenport_f == math.inf and res.iman_davenport_p == pytest.approx(24.0 ** -4, rel=1e-12)
    assert "identically" in res.note
    # identical models on every task: all ranks tied
    res = friedman(np.full((6, 3), 2.0))
    assert res.chi2 == 0.0 and res.p_value == 1.0
    assert res.iman_davenport_f == 0.0 and res.iman_davenport_p == 1.0
    # one task: chi2 defined, Iman-Davenport undefined (df2 = 0)
    res = friedman([[1.0, 3.0, 2.0]])
    assert res.chi2 == pytest.approx(2.0) and res.n_tasks == 1
    assert math.isnan(res.iman_davenport_f) and math.isnan(res.iman_davenport_p)
    # one model / no tasks
    res = friedman(np.ones((5, 1)))
    assert math.isnan(res.chi2) and math.isnan(res.p_value) and res.df == 0 and res.k == 1
    res = friedman(np.zeros((0, 4)))
    assert math.isnan(res.chi2) and res.n_tasks == 0 and res.df == 3
    with pytest.raises(ValueError):
        friedman([[1.0, np.nan]])


# ------------------------------------------------------------------- Nemenyi

DEMSAR_Q = {
    0.05: [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164],
    0.10: [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920],
}


@pytest.mark.parametrize("alpha", [0.05, 0.10])
def test_nemenyi_q_demsar_table5(alpha):
    got = [nemenyi_q(k, alpha) for k in range(2, 11)]
    np.testing.assert_allclose(got, DEMSAR_Q[alpha], atol=2e-3)


def test_nemenyi_q_k2_is_normal_quantile():
    assert nemenyi_q(2, 0.05) == pytest.approx(stats.norm.isf(0.025), abs=1e-6)
    assert math.isnan(nemenyi_q(1))


@pytest.mark.parametrize("n_tasks, expected", [(14, 1.25), (10, 1.48), (8, 1.66)])
def test_critical_difference_worked_examples(n_tasks, expected):
    cd = critical_difference(4, n_tasks, 0.05)
    assert cd == pytest.approx(expected, abs=6e-3)
    assert cd == pytest.approx(nemenyi_q(4) * math.sqrt(4 * 5 / (6 * n_tasks)), rel=1e-12)


def test_critical_difference_edge_cases():
    assert math.isnan(critical_difference(1, 10))
    assert math.isnan(critical_difference(4, 0))
    assert critical_difference(4, 1) == pytest.approx(2.569 * math.sqrt(20 / 6), abs=2e-3)


def test_cliques_hand_built():
    # sorted: 1.0 (idx 1), 1.5 (idx 4), 2.25 (idx 2), 3.5 (idx 0), 3.75 (idx 3); exact binary fractions
    r = [3.5, 1.0, 2.25, 3.75, 1.5]
    assert cliques(r, 1.3) == [(1, 4, 2), (2, 0), (0, 3)]
    # span must be strictly below cd: 2.25 - 1.0 = 1.25 is not < 1.25
    assert cliques(r, 1.25) == [(1, 4), (4, 2), (0, 3)]
    assert cliques(r, 0.4) == [(0, 3)]
    assert cliques(r, 0.1) == []
    assert cliques(r, 10.0) == [(1, 4, 2, 0, 3)]
    # overlapping maximal runs are both kept; contained runs dropped
    assert cliques([1.0, 2.0, 3.0, 4.0], 2.5) == [(0, 1, 2), (1, 2, 3)]
    assert cliques([1.0, 1.0, 4.0], 1.0) == [(0, 1)]  # tied mean ranks join a clique
    assert cliques([2.0], 1.0) == []
    assert cliques([1.0, 2.0], float("nan")) == []


def test_n_for_observed_gap():
    assert n_for_observed_gap(1.48, 10, 0.8) == math.ceil(1.48**2 * 10 / 0.64)
    assert n_for_observed_gap(1.0, 10, 0.5) == 40  # exactly 40, no round-off bump to 41
    assert n_for_observed_gap(1.0, 10, 2.0) == 3  # already significant
    cd = critical_difference(4, 10)
    n_new = n_for_observed_gap(cd, 10, 0.8)
    assert critical_difference(4, n_new) <= 0.8 < critical_difference(4, n_new - 1)
    assert n_for_observed_gap(1.48, 10, 0.0) is None
    assert n_for_observed_gap(1.48, 10, -0.3) is None
    assert n_for_observed_gap(float("nan"), 10, 0.5) is None
