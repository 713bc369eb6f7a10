"""Expected best validation score against the tuning budget (issue 30; Dodge et al. 2019)."""

from __future__ import annotations

import numpy as np
import pytest

from netzbench.stats.tuning import crossings, expected_max_curve


def test_a_worked_example_by_hand():
    # scores 1, 2, 3: with one trial the mean, 2; with two, P(max = 1, 2, 3) = 1/9, 3/9, 5/9
    c = expected_max_curve([3.0, 1.0, 2.0], [1, 2])
    assert c.mean == pytest.approx((2.0, (1 * 1 + 2 * 3 + 3 * 5) / 9))
    assert c.sd[0] == pytest.approx(np.std([1.0, 2.0, 3.0]))  # one draw: the scores' own spread (ddof 0)
    low = expected_max_curve([3.0, 1.0, 2.0], [2], direction="lower")  # the best is the smallest
    assert low.mean[0] == pytest.approx((3 * 1 + 2 * 3 + 1 * 5) / 9)


def test_the_curve_is_the_mean_of_the_best_of_n_random_draws():
    rng = np.random.default_rng(5)
    scores = rng.beta(5, 2, 25)
    budgets = [1, 3, 10, 25]
    curve = expected_max_curve(scores, budgets)
    for n, mean, sd in zip(budgets, curve.mean, curve.sd):
        best = rng.choice(scores, size=(200_000, n), replace=True).max(axis=1)
        assert mean == pytest.approx(best.mean(), abs=4 * best.std() / np.sqrt(len(best)))
        assert sd == pytest.approx(best.std(), rel=0.02)
    assert list(curve.mean) == sorted(curve.mean) and curve.mean[-1] < scores.max()
    assert curve.n_trials == 25


def test_curves_that_cross_say_where_the_ranking_turns():
    # A: steady (every trial 0.80); B: a lottery (0.70 six times, 0.90 four): A wins with one trial, B with more
    a = expected_max_curve([0.80] * 10, [1, 2, 4, 8])
    b = expected_max_curve([0.70] * 6 + [0.90] * 4, [1, 2, 4, 8])
    assert b.mean[0] < a.mean[0] and b.mean[1] > a.mean[1]
    assert crossings(a, b) == [2] and crossings(b, a) == [2]
    assert crossings(a, a) == []
    assert crossings(a, expected_max_curve([0.6, 0.7], [1, 2, 4, 8])) == []  # A better at every budget


def test_edge_cases():
    nan = expected_max_curve([np.nan, np.inf], [1, 2])
    assert nan.n_trials == 0 and all(np.isnan(nan.mean))
    with pytest.raises(ValueError, match="budgets"):
        expected_max_curve([1.0], [0])
    with pytest.raises(ValueError, match="direction"):
        expected_max_curve([1.0], [1], direction="up")
    with pytest.raises(ValueError, match="share"):
        crossings(expected_max_curve([1.0], [1]), expected_max_curve([1.0], [2]))
