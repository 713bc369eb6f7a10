"""BenchmarkReport statistics against independent references (scipy, statsmodels, published numbers).

Every quantity is read through the report's public methods (summary, pairwise,
power, equivalence, friedman, rank_stability), so the tests cover the
arrangement over tasks/models/seeds as well as the numbers.
"""

import math

import numpy as np
import pytest
import scipy.stats as st
from statsmodels.stats.multitest import multipletests

from netzbench.report import BenchmarkReport

MODELS = ["GCN", "GAT", "GraphSAGE", "GraphTransformer", "GIN"]


def _hist(final, epochs=4, metric="test_acc", val_offset=0.01):
    """A history whose last value is ``final`` (None -> a failed seed)."""
    if final is None:
        return None
    split, name = metric.split("_", 1)
    curve = [final - 0.03 * (epochs - 1 - e) for e in range(epochs)]
    return {"train_loss": [1.0 / (e + 1) for e in range(epochs)], f"val_{name}": [c + val_offset for c in curve],
            metric: curve}


def _report(values, metric="test_acc", **kw):
    """values[task][model] = list of finals per seed (None = failed seed)."""
    n = len(next(iter(next(iter(values.values())).values())))
    hist = {t: {m: [_hist(v, metric=metric) for v in vals] for m, vals in bm.items()} for t, bm in values.items()}
    return BenchmarkReport(list(range(n)), hist, {}, **kw)


@pytest.fixture
def random_values():
    rng = np.random.default_rng(42)
    out = {}
    for t in range(3):
        out[f"task{t}"] = {m: list(0.6 + 0.015 * i + rng.normal(0, 0.02, 10)) for i, m in enumerate(MODELS)}
    return out


# --------------------------------------------------------------------------- per cell
def test_t_interval_matches_scipy(random_values):
    rep = _report(random_values)
    for row in rep.summary():
        x = np.asarray(random_values[row["task"]][row["model"]])
        lo, hi = st.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=st.sem(x))
        assert row["lo"] == pytest.approx(lo, rel=1e-12) and row["hi"] == pytest.approx(hi, rel=1e-12)
        assert row["std"] == pytest.approx(np.std(x, ddof=1)) and row["n_seeds"] == 10
        assert row["half_width"] == pytest.approx((hi - lo) / 2)


def test_bootstrap_interval_close_to_scipy_and_reproducible(random_values):
    rep = _report(random_values, ci_method="bootstrap", bootstrap_n=20000, bootstrap_seed=7)
    rows = rep.summary()
    assert rows == rep.summary()  # seeded: identical on recomputation
    for row in rows[:4]:
        x = np.asarray(random_values[row["task"]][row["model"]])
        ref = st.bootstrap((x,), np.mean, n_resamples=20000, method="percentile", confidence_level=0.95,
                           random_state=np.random.default_rng(123)).confidence_interval
        # different random streams: agreement up to Monte-Carlo error
        assert row["lo"] == pytest.approx(ref.low, abs=2e-3) and row["hi"] == pytest.approx(ref.high, abs=2e-3)
        assert row["half_width"] == pytest.approx((row["hi"] - row["lo"]) / 2)
        assert row["ci_method"] == "bootstrap"
    rep.bootstrap_seed = 8
    assert [r["lo"] for r in rep.summary()] != [r["lo"] for r in rows]


# --------------------------------------------------------------------------- pairs
@pytest.mark.parametrize("method", ["t", "wilcoxon"])
def test_pairwise_against_scipy_and_holm_against_statsmodels(random_values, method):
    rep = _report(random_values)
    rows = rep.pairwise(method)
    assert len(rows) == 3 * 10
    for r in rows:
        a = np.asarray(random_values[r["task"]][r["model_a"]])
        b = np.asarray(random_values[r["task"]][r["model_b"]])
        ref = st.ttest_rel(a, b).pvalue if method == "t" else st.wilcoxon(a - b).pvalue
        assert r["p_raw"] == pytest.approx(ref, rel=1e-10)
        assert r["mean_diff"] == pytest.approx(np.mean(a - b))
        assert r["cohens_dz"] == pytest.approx(np.mean(a - b) / np.std(a - b, ddof=1))
        assert r["n_seeds"] == 10 and r["dropped_seeds"] == [] and r["method"] == method
    for t in random_values:
        task_rows = [r for r in rows if r["task"] == t]
        reject, adj, _, _ = multipletests([r["p_raw"] for r in task_rows], alpha=0.05, method="holm")
        assert np.allclose([r["p_holm"] for r in task_rows], adj, rtol=1e-12)
        assert [r["significant"] for r in task_rows] == list(reject)


def test_holm_family_excludes_undefined_p_values():
    rng = np.random.default_rng(1)
    vals = {"t": {m: list(0.7 + 0.02 * i + rng.normal(0, 0.01, 6)) for i, m in enumerate(MODELS[:4])}}
    vals["t"]["GIN"] = [0.5, None, None, None, None, None]  # one seed: its pairs have no p-value
    rep = _report(vals)
    rows = [r for r in rep.pairwise() if r["task"] == "t"]
    undefined = [r for r in rows if "GIN" in (r["model_a"], r["model_b"])]
    assert all(math.isnan(r["p_raw"]) and math.isnan(r["p_holm"]) and not r["significant"] for r in undefined)
    defined = [r for r in rows if r not in undefined]
    _, adj, _, _ = multipletests([r["p_raw"] for r in defined], method="holm")
    assert np.allclose([r["p_holm"] for r in defined], adj)


def test_pairing_is_by_seed_and_dropped_seeds_are_reported():
    a = [0.70, 0.71, 0.69, 0.72, 0.70, 0.73]
    b = [0.65, None, 0.66, 0.64, None, 0.67]
    rep = _report({"t": {"A": a, "B": b}})
    (row,) = rep.pairwise("t")
    keep = [0, 2, 3, 5]
    ref = st.ttest_rel([a[i] for i in keep], [b[i] for i in keep])
    assert row["n_seeds"] == 4 and row["dropped_seeds"] == [1, 4]
    assert row["p_raw"] == pytest.approx(ref.pvalue)
    assert row["mean_diff"] == pytest.approx(np.mean([a[i] - b[i] for i in keep]))
    summ = {r["model"]: r for r in rep.summary()}
    assert summ["A"]["n_seeds"] == 6 and summ["B"]["n_seeds"] == 4


def test_better_follows_metric_direction():
    rep = _report({"t": {"A": [1.0, 1.1, 1.2, 1.05], "B": [2.0, 2.2, 2.1, 2.3]}}, metric="test_mae")
    assert rep.task_info["t"].direction == "lower"
    (row,) = rep.pairwise()
    assert row["mean_diff"] < 0 and row["significant"] and row["better"] == "A"
    _, models, ranks, _ = rep.rank_table()
    assert dict(zip(models, ranks[0])) == {"A": 1.0, "B": 2.0}


# --------------------------------------------------------------------------- power / equivalence
def test_power_against_noncentral_t(random_values):
    rep = _report(random_values)
    for r in rep.power():
        a = np.asarray(random_values[r["task"]][r["model_a"]])
        b = np.asarray(random_values[r["task"]][r["model_b"]])
        d = a - b
        n, sd = len(d), np.std(d, ddof=1)
        tcrit = st.t.ppf(0.975, n - 1)
        nc = d.mean() / (sd / math.sqrt(n))
        ref = st.nct.sf(tcrit, n - 1, nc) + st.nct.cdf(-tcrit, n - 1, nc)
        assert r["observed_power"] == pytest.approx(ref, rel=1e-9)
        mde = (tcrit + st.t.ppf(0.8, n - 1)) * sd / math.sqrt(n)
        assert r["mde"] == pytest.approx(mde) and r["detectable"] == (abs(d.mean()) >= mde)
        for e in (0.02, 0.01, 0.005):
            s = r[f"seeds_needed_{e:g}"]
            assert s is not None
            at = lambda m: (st.t.ppf(0.975, m - 1) + st.t.ppf(0.8, m - 1)) * sd / math.sqrt(m)  # noqa: E731
            assert at(s) <= e and (s == 2 or at(s - 1) > e)


def test_wilcoxon_floor():
    rep = _report({"t": {m: [0.5 + 0.01 * i + 0.001 * s for s in range(10)] for i, m in enumerate(MODELS[:4])}})
    (row,) = rep.wilcoxon_floor()
    assert row["n_seeds"] == 10 and row["comparisons"] == 6
    assert row["p_min"] == pytest.approx(2 / 2**10) and row["p_min_holm"] == pytest.approx(6 * 2 / 2**10)
    assert row["reachable"]
    # the floor is attained by scipy's exact test when all differences share a sign
    w = min(r["p_raw"] for r in rep.pairwise("wilcoxon"))
    assert w == pytest.approx(row["p_min"])
    rep5 = BenchmarkReport(rep.seeds[:5], {"t": {m: runs[:5] for m, runs in rep.histories["t"].items()}})
    assert not rep5.wilcoxon_floor()[0]["reachable"]  # 6 * 2/32 = 0.375: Wilcoxon can never reject


def test_tost_against_two_one_sided_scipy_tests(random_values):
    margin = 0.02
    rep = _report(random_values, equivalence_margin=margin)
    rows = rep.equivalence()
    diff = {(r["task"], r["model_a"], r["model_b"]): r for r in rep.pairwise()}
    for r in rows:
        a = np.asarray(random_values[r["task"]][r["model_a"]])
        b = np.asarray(random_values[r["task"]][r["model_b"]])
        p_lo = st.ttest_rel(a + margin, b, alternative="greater").pvalue  # H0: mu_d <= -margin
        p_hi = st.ttest_rel(a - margin, b, alternative="less").pvalue  # H0: mu_d >= +margin
        assert r["p_lower"] == pytest.approx(p_lo, rel=1e-9) and r["p_upper"] == pytest.approx(p_hi, rel=1e-9)
        assert r["p_tost"] == pytest.approx(max(p_lo, p_hi))
        assert r["p_diff_holm"] == diff[(r["task"], r["model_a"], r["model_b"])]["p_holm"]
        d_sig, e_sig = r["p_diff_holm"] < 0.05, r["p_tost_holm"] < 0.05
        expected = {(True, False): "different", (False, True): "equivalent", (True, True): "trivial",
                    (False, False): "undetermined"}[(d_sig, e_sig)]
        assert r["verdict"] == expected
    for t in random_values:
        task_rows = [r for r in rows if r["task"] == t]
        _, adj, _, _ = multipletests([r["p_tost"] for r in task_rows], method="holm")
        assert np.allclose([r["p_tost_holm"] for r in task_rows], adj)
    assert {r["verdict"] for r in rep.equivalence(margin=0.5)} <= {"equivalent", "trivial"}
    with pytest.raises(ValueError, match="margin"):
        _report(random_values).equivalence()


def test_equivalence_margin_per_task():
    vals = {"acc": {"A": [0.80, 0.81, 0.80, 0.81], "B": [0.80, 0.81, 0.80, 0.81]},
            "mae": {"A": [10.0, 11.0, 10.5, 10.2], "B": [10.1, 11.2, 10.4, 10.3]}}
    rep = _report(vals, equivalence_margin={"acc": 0.01, "mae": 2.0})
    assert {r["task"]: r["margin"] for r in rep.equivalence()} == {"acc": 0.01, "mae": 2.0}


# --------------------------------------------------------------------------- across tasks
def _rank_consistent(n_tasks, k, seed=0, scale=0.05):
    rng = np.random.default_rng(seed)
    vals = {}
    for t in range(n_tasks):
        means = rng.permutation(k) * scale + 0.5
        vals[f"t{t}"] = {m: list(means[i] + rng.normal(0, 0.001, 5)) for i, m in enumerate(MODELS[:k])}
    return vals


def test_friedman_matches_scipy_and_iman_davenport():
    vals = _rank_consistent(9, 4, seed=3)
    rep = _report(vals)
    fr = rep.friedman()
    seed_means = [[np.mean(vals[t][m]) for t in vals] for m in MODELS[:4]]
    ref = st.friedmanchisquare(*seed_means)
    assert fr["chi2"] == pytest.approx(ref.statistic) and fr["p_value"] == pytest.approx(ref.pvalue)
    n, k, chi2 = 9, 4, fr["chi2"]
    f_ref = (n - 1) * chi2 / (n * (k - 1) - chi2)
    assert fr["iman_davenport_f"] == pytest.approx(f_ref)
    assert fr["iman_davenport_p"] == pytest.approx(st.f.sf(f_ref, k - 1, (k - 1) * (n - 1)))
    assert fr["max_gap"] == pytest.approx(max(fr["mean_ranks"].values()) - min(fr["mean_ranks"].values()))
    if fr["max_gap"] > 0:
        assert fr["n_for_observed_gap"] == math.ceil(fr["cd"] ** 2 * n / fr["max_gap"] ** 2 - 1e-9)


@pytest.mark.parametrize("n_tasks, expected", [(10, 1.48), (14, 1.25)])
def test_cd_worked_examples(n_tasks, expected):
    rep = _report(_rank_consistent(n_tasks, 4))
    fr = rep.friedman()
    assert fr["k"] == 4 and fr["n_tasks"] == n_tasks
    assert fr["cd"] == pytest.approx(expected, abs=0.006)
    assert fr["cd"] == pytest.approx(2.569 * math.sqrt(4 * 5 / (6 * n_tasks)), rel=1e-3)  # Demšar Table 5 q


def test_mixed_directions_share_one_rank_table():
    hist = {
        "acc": {m: [_hist(v) for v in [0.6 + 0.1 * i] * 3] for i, m in enumerate(["A", "B", "C"])},
        "mae": {m: [_hist(v, metric="test_mae") for v in [1.0 + i] * 3] for i, m in enumerate(["A", "B", "C"])},
    }
    rep = BenchmarkReport([0, 1, 2], hist)
    tasks, models, ranks, _ = rep.rank_table()
    assert tasks == ["acc", "mae"] and models == ["A", "B", "C"]
    assert ranks.tolist() == [[3.0, 2.0, 1.0], [1.0, 2.0, 3.0]]  # C best on acc, A best (lowest MAE) on mae
    assert rep.friedman()["mean_ranks"] == {"A": 2.0, "B": 2.0, "C": 2.0}


def test_aggregations():
    vals = _rank_consistent(4, 3, seed=5)
    rep = _report(vals, tasks={"t0": {"category": "x"}, "t1": {"category": "x"}, "t2": {"category": "y"},
                               "t3": {"category": "y"}})
    tasks, models, ranks, _ = rep.rank_table()
    assert rep.mean_ranks() == pytest.approx(dict(zip(models, ranks.mean(axis=0))))
    w = {"t0": 1.0, "t1": 0.0, "t2": 0.0, "t3": 0.0}
    assert rep.mean_ranks("custom", weights=w) == pytest.approx(dict(zip(models, ranks[0])))
    hier = rep.mean_ranks("hierarchical")
    ref = 0.5 * ranks[:2].mean(axis=0) + 0.5 * ranks[2:].mean(axis=0)
    assert hier == pytest.approx(dict(zip(models, ref)))
    hw = {(r["task"], r["model"]): r["half_width"] for r in rep.summary()}
    wt = np.array([1 / np.mean([hw[(t, m)] for m in models]) for t in tasks])
    assert rep.mean_ranks("reliability") == pytest.approx(dict(zip(models, wt @ ranks / wt.sum())))
    with pytest.raises(ValueError, match="custom"):
        rep.mean_ranks("custom")
    with pytest.raises(ValueError, match="aggregation"):
        rep.mean_ranks("bogus")


def test_rank_stability_reproducible_and_named():
    rep = _report(_rank_consistent(8, 4, seed=11))
    a = rep.rank_stability(n_boot=500, seed=3)
    assert a == rep.rank_stability(n_boot=500, seed=3)
    b = rep.rank_stability(n_boot=500, seed=4)
    assert a["largest_gap_quantiles"] != b["largest_gap_quantiles"] or a["order_reproduced"] != b["order_reproduced"]
    assert set(a["jackknife_max_shift"]) == set(MODELS[:4]) and len(a["jackknife_mean_ranks"]) == 8
    assert set(a["pair_separation"]) == {f"{x} vs {y}" for i, x in enumerate(MODELS[:4]) for y in MODELS[i + 1:4]}
    assert 0.0 <= a["order_reproduced"] <= 1.0
    # jackknife against a direct recomputation
    tasks, models, ranks, _ = rep.rank_table()
    drop0 = ranks[1:].mean(axis=0)
    assert [a["jackknife_mean_ranks"][tasks[0]][m] for m in models] == pytest.approx(drop0)


# --------------------------------------------------------------------------- edge cases
def test_one_seed_gives_defined_answers():
    rep = _report({"t": {"A": [0.8], "B": [0.7]}, "u": {"A": [0.6], "B": [0.65]}}, equivalence_margin=0.01)
    row = rep.summary()[0]
    assert row["n_seeds"] == 1 and row["mean"] == 0.8 and math.isnan(row["lo"]) and math.isnan(row["half_width"])
    for r in rep.pairwise("t") + rep.pairwise("wilcoxon"):
        assert math.isnan(r["p_raw"]) and not r["significant"] and r["n_seeds"] == 1
    assert all(math.isnan(r["mde"]) for r in rep.power())
    assert {r["verdict"] for r in rep.equivalence()} == {"undetermined"}
    fr = rep.friedman()
    assert fr["k"] == 2 and fr["n_tasks"] == 2 and math.isfinite(fr["chi2"])
    BenchmarkReport.from_json(rep.to_json())


def test_identical_models_and_zero_variance_differences():
    base = [0.70, 0.72, 0.71, 0.73, 0.69]
    rep = _report({"t": {"A": base, "B": list(base), "C": [v + 0.05 for v in base]}}, equivalence_margin=0.01)
    rows = {(r["model_a"], r["model_b"]): r for r in rep.pairwise("t")}
    same = rows[("A", "B")]  # all differences zero: no p-value, out of the Holm family
    assert math.isnan(same["p_raw"]) and math.isnan(same["p_holm"]) and same["mean_diff"] == 0.0
    assert "zero" in same["note"] and same["degenerate"] and not same["significant"]
    const = rows[("A", "C")]  # constant difference: t undefined, exact sign test 2/2**5, Holm over the 2 defined
    assert const["p_raw"] == pytest.approx(2 / 2**5) and const["p_holm"] == pytest.approx(2 * 2 / 2**5)
    assert const["degenerate"] and not const["significant"] and const["better"] == ""
    assert math.isinf(const["cohens_dz"])
    w = {(r["model_a"], r["model_b"]): r for r in rep.pairwise("wilcoxon")}
    assert math.isnan(w[("A", "B")]["p_raw"]) and w[("A", "C")]["p_raw"] == pytest.approx(2 / 2**5)
    eq = {(r["model_a"], r["model_b"]): r for r in rep.equivalence()}
    assert all(math.isnan(r["p_tost"]) and not r["equivalent"] for r in eq.values())  # zero spread everywhere
    assert {r["verdict"] for r in eq.values()} == {"undetermined"}
    pw = {(r["model_a"], r["model_b"]): r for r in rep.power()}
    assert math.isnan(pw[("A", "B")]["observed_power"]) and not pw[("A", "B")]["detectable"]
    assert pw[("A", "B")]["degenerate"]
    _, models, ranks, _ = rep.rank_table()
    assert dict(zip(models, ranks[0])) == {"A": 2.5, "B": 2.5, "C": 1.0}  # tie averaged


def test_nan_in_a_history_drops_that_seed():
    h = {"A": [_hist(v) for v in [0.7, 0.71, 0.72, 0.7]], "B": [_hist(v) for v in [0.6, 0.61, 0.62, 0.6]]}
    h["B"][2]["test_acc"][-1] = float("nan")
    rep = BenchmarkReport([0, 1, 2, 3], {"t": h})
    assert math.isnan(rep.final_metrics()["t"]["B"][2])
    (row,) = rep.pairwise()
    assert row["n_seeds"] == 3 and row["dropped_seeds"] == [2]
    assert {r["model"]: r["n_seeds"] for r in rep.summary()} == {"A": 4, "B": 3}
    # NaN in the validation series: best_val skips it
    h["A"][0]["val_acc"] = [float("nan"), 0.9, float("nan"), 0.1]
    rep.epoch_selection = "best_val"
    assert rep.selected_epochs()["t"]["A"][0] == 1
    h["A"][1]["val_acc"] = [float("nan")] * 4
    assert rep.selected_epochs()["t"]["A"][1] is None and math.isnan(rep.final_metrics()["t"]["A"][1])


def test_model_missing_from_one_task_is_excluded_and_listed():
    vals = _rank_consistent(3, 4)
    vals["t1"]["GraphTransformer"] = [None] * 5
    rep = _report(vals)
    fr = rep.friedman()
    assert "GraphTransformer" not in fr["models"] and fr["k"] == 3
    assert "t1" in fr["excluded"]["GraphTransformer"]
    assert {(m["task"], m["model"]) for m in rep.missing()} == {("t1", "GraphTransformer")}
    assert rep.unavailable_tasks() == {}
    # a task with no result at all leaves N and is listed as unavailable
    vals["t2"] = {m: [None] * 5 for m in vals["t2"]}
    rep = _report(vals)
    assert rep.friedman()["n_tasks"] == 2 and list(rep.tasks_without_results()) == ["t2"]
    assert rep.unavailable_tasks() == {}  # no run record says the data was unavailable: the runs just failed


def test_one_task_only():
    rep = _report(_rank_consistent(1, 3))
    fr = rep.friedman()
    assert fr["n_tasks"] == 1 and math.isfinite(fr["chi2"]) and math.isnan(fr["iman_davenport_f"])
    stab = rep.rank_stability(n_boot=50)
    assert stab["order_reproduced"] == 1.0 and all(math.isnan(v) for v in stab["jackknife_max_shift"].values())
    assert len(rep.mean_ranks("reliability")) == 3


def test_no_complete_model_and_single_model():
    rep = _report({"t": {"A": [0.5, 0.6]}, "u": {"A": [0.4, 0.5]}})
    fr = rep.friedman()
    assert fr["k"] == 1 and math.isnan(fr["chi2"]) and fr["cliques"] == []
    assert rep.pairwise() == [] and rep.power() == [] and rep.equivalence(margin=0.1) == []
