"""Rank stability and the JSON contract of the result types."""

import dataclasses
import json
import math

import numpy as np
import pytest

import netzbench.stats as S
from netzbench.stats import critical_difference, rank_matrix, rank_stability


def _ranks(seed, n=10, k=4, signal=1.0):
    rng = np.random.default_rng(seed)
    return rank_matrix(rng.normal(size=(n, k)) + signal * np.arange(k), True)


def test_reproducible_given_seed():
    r = _ranks(0)
    a = rank_stability(r, n_boot=500, seed=3)
    b = rank_stability(r, n_boot=500, seed=3)
    c = rank_stability(r, n_boot=500, seed=4)
    assert a.to_dict() == b.to_dict()
    assert a.to_dict() != c.to_dict()
    assert a.n_boot == 500


def test_bootstrap_quantities_against_direct_computation():
    r = _ranks(1, n=12, k=5, signal=0.4)
    res = rank_stability(r, n_boot=300, seed=9)
    rng = np.random.default_rng(9)
    idx = rng.integers(0, 12, size=(300, 12))
    boot = np.array([r[i].mean(axis=0) for i in idx])
    obs = np.argsort(r.mean(axis=0), kind="stable")
    reproduced = np.mean([np.array_equal(np.argsort(m, kind="stable"), obs) for m in boot])
    assert res.order_reproduced == pytest.approx(reproduced)
    gaps = boot.max(axis=1) - boot.min(axis=1)
    for q in (0.025, 0.5, 0.975):
        assert res.largest_gap_quantiles[q] == pytest.approx(np.quantile(gaps, q))
    cd = critical_difference(5, 12)
    assert set(res.pair_separation) == {(i, j) for i in range(5) for j in range(i + 1, 5)}
    for (i, j), frac in res.pair_separation.items():
        assert frac == pytest.approx(np.mean(np.abs(boot[:, i] - boot[:, j]) > cd))


def test_strong_signal_is_stable_weak_signal_is_not():
    strong = rank_stability(np.tile([1.0, 2.0, 3.0, 4.0], (20, 1)), n_boot=200)
    assert strong.order_reproduced == 1.0
    assert strong.pair_separation[(0, 3)] == 1.0
    assert strong.largest_gap_quantiles[0.5] == 3.0
    np.testing.assert_array_equal(strong.jackknife_max_shift, 0.0)
    weak = rank_stability(_ranks(2, n=10, k=4, signal=0.0), n_boot=500)
    assert weak.order_reproduced < 0.5


def test_jackknife():
    r = _ranks(3, n=6, k=3)
    res = rank_stability(r, n_boot=10)
    expected = np.array([np.delete(r, n, axis=0).mean(axis=0) for n in range(6)])
    np.testing.assert_allclose(res.jackknife_mean_ranks, expected)
    np.testing.assert_allclose(res.jackknife_max_shift, np.abs(expected - r.mean(axis=0)).max(axis=0))
    assert res.jackknife_mean_ranks.shape == (6, 3)


def test_one_task():
    res = rank_stability([[2.0, 1.0, 3.0]], n_boot=50)
    assert res.order_reproduced == 1.0
    assert res.largest_gap_quantiles == {0.025: 2.0, 0.5: 2.0, 0.975: 2.0}
    assert res.jackknife_mean_ranks.shape == (1, 3) and np.all(np.isnan(res.jackknife_mean_ranks))
    assert res.jackknife_max_shift.shape == (3,) and np.all(np.isnan(res.jackknife_max_shift))
    json.dumps(res.to_dict())


def test_identical_models_tied_ranks():
    res = rank_stability(np.full((5, 3), 2.0), n_boot=50)
    assert res.order_reproduced == 1.0  # ties recur in every resample
    assert res.largest_gap_quantiles[0.5] == 0.0
    assert all(v == 0.0 for v in res.pair_separation.values())


def test_invalid():
    with pytest.raises(ValueError):
        rank_stability(np.ones((3, 2)), n_boot=0)
    with pytest.raises(ValueError):
        rank_stability([[1.0, np.nan]])


# ------------------------------------------------------------ JSON contract


def _all_results():
    a = np.array([0.81, 0.79, 0.80, 0.83, 0.82])
    b = np.array([0.78, 0.79, 0.77, 0.80, 0.81])
    r = _ranks(0)
    return [
        S.t_interval(a),
        S.t_interval([0.5]),
        S.bootstrap_interval(a, n_resamples=200),
        S.paired_test(a, b),
        S.paired_test(a, a),
        S.paired_test(a, b, method="wilcoxon"),
        S.paired_power(a, b),
        S.paired_power([1.0], [2.0]),
        S.tost_paired(a, b, 0.02),
        S.friedman(r),
        S.friedman(r[:1]),
        rank_stability(r, n_boot=50),
    ]


def test_results_are_frozen_and_json_serialisable():
    for res in _all_results():
        assert dataclasses.is_dataclass(res)
        d = res.to_dict()
        text = json.dumps(d)
        back = json.loads(text)
        assert set(back) == {f.name for f in dataclasses.fields(res)}
        for v in d.values():
            assert not isinstance(v, (np.generic, np.ndarray))
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(res, dataclasses.fields(res)[0].name, 0)


def test_to_dict_values():
    d = S.paired_power([1.0, 2.0, 3.0], [0.5, 1.9, 2.0]).to_dict()
    assert set(d["seeds_needed"]) == {0.02, 0.01, 0.005}
    assert isinstance(d["n"], int) and isinstance(d["detectable"], bool)
    d = S.t_interval([0.5]).to_dict()
    assert d["n"] == 1 and math.isnan(d["lo"]) and d["method"] == "t"
    d = rank_stability(_ranks(0), n_boot=20).to_dict()
    assert "0-1" in d["pair_separation"]
    assert isinstance(d["jackknife_mean_ranks"], list) and len(d["jackknife_mean_ranks"]) == 10


def test_public_names():
    names = {
        "Interval", "t_interval", "bootstrap_interval", "interval",
        "PairedResult", "paired_test", "holm",
        "PowerResult", "paired_power", "TostResult", "tost_paired", "verdict",
        "rank_matrix", "mean_ranks", "aggregate_ranks",
        "FriedmanResult", "friedman", "nemenyi_q", "critical_difference", "cliques",
        "n_for_observed_gap", "RankStability", "rank_stability",
    }  # fmt: skip
    assert names <= set(S.__all__)
    for n in S.__all__:
        assert hasattr(S, n)
