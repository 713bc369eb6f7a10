"""Sequential seeds (issue 30): Pocock's boundary, the decisions, and the error control by simulation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from netzbench.stats.sequential import bonferroni_level, decide, pocock_level, seeds_saved


@pytest.mark.parametrize("k, published", [(2, 0.0294), (3, 0.0221), (4, 0.0182), (5, 0.0158)])
def test_the_nominal_level_is_pococks_for_equally_spaced_looks(k, published):
    # Pocock (1977), Table 1: two-sided overall alpha = 0.05, K equally spaced looks (normal statistics)
    looks = [10 * i for i in range(1, k + 1)]
    assert pocock_level(0.05, looks, method="normal") == pytest.approx(published, abs=1e-4)
    # t statistics at 10+ seeds are close to normal: the t calibration lands near Pocock's (a little lower)
    assert published - 0.003 < pocock_level(0.05, looks) <= published + 0.001


def test_one_look_is_the_plain_test_and_the_levels_order_as_they_should():
    assert pocock_level(0.05, [10]) == 0.05
    assert bonferroni_level(0.05, [5, 10, 20]) == pytest.approx(0.05 / 3)
    assert bonferroni_level(0.05, [5, 10, 20]) < pocock_level(0.05, [5, 10, 20]) < 0.05
    assert pocock_level(0.05, [3, 5, 10, 20]) < pocock_level(0.05, [3, 5, 10, 20], method="normal")  # heavier tails
    with pytest.raises(ValueError, match="method"):
        pocock_level(0.05, [5, 10], method="z")
    with pytest.raises(ValueError, match="increasing"):
        pocock_level(0.05, [10, 5])
    with pytest.raises(ValueError, match="increasing"):
        pocock_level(0.05, [1, 5])


def _null_pairs(n_sims, cap, seed=30):
    """Null comparisons: the same model twice (seed-aligned values of the same law)."""
    rng = np.random.default_rng(seed)
    return rng.normal(0.8, 0.02, (n_sims, cap)), rng.normal(0.8, 0.02, (n_sims, cap))


def _crosses(a, b, looks, level):
    """Vectorised over comparisons: does the paired t test reject at ``level`` at some look?"""
    hit = np.zeros(len(a), dtype=bool)
    for n in looks:
        d = a[:, :n] - b[:, :n]
        t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / np.sqrt(n))
        hit |= 2 * stats.t.sf(np.abs(t), n - 1) < level
    return hit


def test_decide_calls_a_null_comparison_different_exactly_when_some_look_crosses():
    looks = [3, 5, 10, 20]
    a, b = _null_pairs(300, 20)
    level = pocock_level(0.05, looks)
    # a target effect far below the noise: equivalence never stops a comparison first
    called = np.array([decide(x, y, looks, target_effect=1e-4).decision == "different" for x, y in zip(a, b)])
    assert (called == _crosses(a, b, looks, level)).all() and called.any()


def test_on_null_comparisons_the_rate_of_false_differences_stays_at_alpha():
    looks = [3, 5, 10, 20]
    n = 40_000
    a, b = _null_pairs(n, 20, seed=31)
    se = np.sqrt(0.05 * 0.95 / n)
    naive = _crosses(a, b, looks, 0.05).mean()  # each look at 0.05: the error the correction prevents
    corrected = _crosses(a, b, looks, pocock_level(0.05, looks)).mean()
    normal = _crosses(a, b, looks, pocock_level(0.05, looks, method="normal")).mean()
    assert naive > 0.05 + 10 * se  # looking four times at 0.05 rejects far more often (about 0.11)
    assert abs(corrected - 0.05) < 4 * se, corrected  # about alpha: the boundary calibrated for t tests
    assert normal > corrected  # the normal-law boundary lets a few more through with 3 seeds at the first look
    assert _crosses(a, b, looks, bonferroni_level(0.05, looks)).mean() <= 0.05  # Bonferroni: at most alpha


def test_a_large_effect_is_decided_early_and_a_tiny_one_is_called_equivalent():
    rng = np.random.default_rng(1)
    looks = [3, 5, 10, 20]
    base = rng.normal(0.80, 0.01, 20)
    better = base + 0.05 + rng.normal(0, 0.005, 20)
    d = decide(better, base, looks, target_effect=0.01)
    assert d.decision == "different" and d.look == 1 and d.n == 3 and d.mean_diff > 0.04
    same = base + rng.normal(0, 0.001, 20)  # within +-0.01 by far: equivalent at the target effect
    e = decide(same, base, looks, target_effect=0.01)
    assert e.decision == "equivalent" and e.n < 20 and e.p_equiv < e.level
    # a difference about the size of the noise stays open until the cap
    noisy_b = rng.normal(0.80, 0.05, 20)
    noisy_a = noisy_b + rng.normal(0.0, 0.05, 20)
    u = decide(noisy_a, noisy_b, looks, target_effect=0.001)
    assert u.decision in ("undecided", "different") and (u.decision == "different" or u.n == 20)


def test_fewer_seeds_than_the_next_look_asks_for_more():
    rng = np.random.default_rng(2)
    a, b = rng.normal(0.8, 0.05, 7), rng.normal(0.8, 0.05, 7)
    d = decide(a, b, [3, 5, 10], target_effect=0.001)
    assert d.decision == "more" and d.look == 2 and d.n == 5  # looks 1 and 2 undecided, 10 seeds not yet there
    assert decide(a[:2], b[:2], [3, 5], target_effect=0.01).decision == "more"


def test_the_t_test_at_each_look_is_scipys():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0.8, 0.05, 10), rng.normal(0.8, 0.05, 10)
    d = decide(a, b, [10], target_effect=0.001)
    assert d.p_diff == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-12)


def test_seed_runs_saved_against_the_cap():
    rng = np.random.default_rng(4)
    looks = [3, 5, 10, 20]
    base = rng.normal(0.8, 0.01, 20)
    decisions = [decide(base + 0.05, base + rng.normal(0, 0.003, 20), looks, 0.01),
                 decide(base, base + rng.normal(0, 0.001, 20), looks, 0.01)]
    saved = seeds_saved(decisions, cap=20)
    assert saved["cap"] == 40 and saved["used"] == sum(d.n for d in decisions) < 40
    assert saved["saved"] == 40 - saved["used"] and 0 < saved["share"] < 1
