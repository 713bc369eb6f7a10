"""BenchmarkReport.posthoc and .bayesian against independent references, the ``report.posthoc`` option, and
the CD diagram's cliques from the Wilcoxon–Holm matrix.

A hand-built report with six tasks (one lower-is-better MAE task), four models that differ by
steps of about a rank, and six seeds.
"""

import math

import baycomp
import numpy as np
import pytest
import scipy.stats as st
from statsmodels.stats.multitest import multipletests

from netzbench.errors import ParamsError
from netzbench.params import DEFAULTS, check_keys
from netzbench.report import BenchmarkReport

from helpers import make_params

MODELS = ["GCN", "GAT", "GraphSAGE", "GraphTransformer"]
TASKS = ["t0", "t1", "t2", "t3", "t4", "mae"]
SEEDS = list(range(6))


def _hist(final, metric):
    name = metric.split("_", 1)[1]
    curve = [final + 0.01 * (3 - e) * (1 if metric == "test_mae" else -1) for e in range(4)]
    curve[-1] = final
    return {"train_loss": [1.0 / (e + 1) for e in range(4)], f"val_{name}": curve, metric: curve}


def _values(seed=0):
    rng = np.random.default_rng(seed)
    out = {}
    for t in TASKS:
        shift = rng.normal(0, 0.01, len(MODELS)) + 0.012 * np.arange(len(MODELS))
        out[t] = {m: (0.7 + shift[i] + rng.normal(0, 0.006, len(SEEDS))) for i, m in enumerate(MODELS)}
        if t == "mae":  # lower is better: the better models get the smaller error
            out[t] = {m: 2.0 - v for m, v in out[t].items()}
    return out


def _report(values=None, **kw):
    values = values or _values()
    hist, tasks = {}, {}
    for t, bm in values.items():
        metric, direction = ("test_mae", "lower") if t == "mae" else ("test_acc", "higher")
        hist[t] = {m: [_hist(float(v), metric) for v in vals] for m, vals in bm.items()}
        tasks[t] = {"metric": metric, "direction": direction, "family": "graph_cls", "category": "c"}
    return BenchmarkReport(SEEDS, hist, {}, tasks=tasks, **kw)


def _oriented_means(values):
    """Per-task seed means, negated on the MAE task (larger = better), tasks x models."""
    return np.array([[np.mean(values[t][m]) * (-1 if t == "mae" else 1) for m in MODELS] for t in TASKS])


# ---------------------------------------------------------------------------- post-hoc
def test_posthoc_wilcoxon_holm_against_scipy_and_multipletests():
    values = _values()
    rows = _report(values).posthoc("wilcoxon_holm")
    means = _oriented_means(values)
    pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    raw = [st.wilcoxon(means[:, i] - means[:, j]).pvalue for i, j in pairs]
    adj = multipletests(raw, method="holm")[1]
    assert [(r["model_a"], r["model_b"]) for r in rows] == [(MODELS[i], MODELS[j]) for i, j in pairs]
    for r, p, ph in zip(rows, raw, adj):
        assert r["p_raw"] == pytest.approx(p, rel=1e-12) and r["p_holm"] == pytest.approx(ph, rel=1e-12)
        assert r["significant"] == (ph < 0.05) and r["n_tasks"] == len(TASKS) and r["method"] == "wilcoxon_holm"
    # the MAE task counts for the model with the smaller error: GraphTransformer wins it against GCN
    gt = next(r for r in rows if (r["model_a"], r["model_b"]) == ("GCN", "GraphTransformer"))
    assert gt["wins_b"] == int(np.sum(means[:, 3] > means[:, 0]))


def test_posthoc_nemenyi_is_the_cd_and_default():
    rep = _report()
    fr = rep.friedman()
    rows = rep.posthoc()  # default posthoc_method: nemenyi
    assert {r["method"] for r in rows} == {"nemenyi"}
    for r in rows:
        gap = abs(fr["mean_ranks"][r["model_a"]] - fr["mean_ranks"][r["model_b"]])
        assert r["significant"] == (gap >= fr["cd"]) == (r["p_adjusted"] <= rep.alpha)
        assert r["mean_rank_a"] == fr["mean_ranks"][r["model_a"]]
        if r["significant"]:
            assert r["better"] == min((r["model_a"], r["model_b"]), key=fr["mean_ranks"].get)
    with pytest.raises(ValueError, match="nemenyi"):
        rep.posthoc("conover")


def test_posthoc_covers_only_ranked_models():
    values = _values()
    values["t0"]["GIN"] = np.full(len(SEEDS), np.nan)  # no result on t0: out of the ranks
    for t in TASKS[1:]:
        values[t]["GIN"] = np.full(len(SEEDS), 0.7)
    rep = _report(values)
    for method in ("nemenyi", "wilcoxon_holm"):
        assert all("GIN" not in (r["model_a"], r["model_b"]) for r in rep.posthoc(method))
    assert "GIN" in rep.score_table()[3]


def test_posthoc_method_option_validated_and_round_trips():
    rep = _report(posthoc_method="wilcoxon_holm")
    assert rep.options()["posthoc_method"] == "wilcoxon_holm"
    assert {r["method"] for r in rep.posthoc()} == {"wilcoxon_holm"}
    again = BenchmarkReport.from_json(rep.to_json())
    assert again.posthoc_method == "wilcoxon_holm" and again.posthoc() == rep.posthoc()
    with pytest.raises(ValueError, match="posthoc_method"):
        rep.posthoc_method = "bonferroni"
    legacy = rep.to_dict()
    del legacy["options"]["posthoc_method"]  # a benchmark.json written before the option existed
    assert BenchmarkReport.from_dict(legacy).posthoc_method == "nemenyi"


def test_params_report_posthoc_key():
    assert DEFAULTS["report"]["posthoc"] == "nemenyi"
    assert make_params(report={"posthoc": "wilcoxon_holm"})["report"]["posthoc"] == "wilcoxon_holm"
    with pytest.raises(ParamsError, match=r"report.posthoc.*nemenyi"):
        make_params(report={"posthoc": "conover"})
    check_keys({"report": {"posthoc": "wilcoxon_holm"}})
    with pytest.raises(ParamsError, match="did you mean 'posthoc'"):
        check_keys({"report": {"post_hoc": "nemenyi"}})  # misspelt: unknown key, closest valid name


def test_cd_diagram_cliques_follow_the_posthoc_option():
    rep = _report()
    fr = rep.friedman()
    ax = rep.plot_critical_difference().axes[0]
    gids = [a.get_gid() for a in list(ax.lines) + list(ax.texts)]
    assert "cd-bar" in gids and "clique-source" not in gids
    assert gids.count("clique") == len(fr["cliques"])
    rep.posthoc_method = "wilcoxon_holm"
    rows = rep.posthoc()
    ax = rep.plot_critical_difference().axes[0]
    gids = [a.get_gid() for a in list(ax.lines) + list(ax.texts)]
    assert "cd-bar" not in gids and "clique-source" in gids
    names = list(fr["mean_ranks"])
    sig = np.zeros((4, 4), bool)
    for r in rows:
        i, j = names.index(r["model_a"]), names.index(r["model_b"])
        sig[i, j] = sig[j, i] = r["significant"]
    from netzbench.stats import cliques_from_matrix
    expected = cliques_from_matrix([fr["mean_ranks"][m] for m in names], sig)
    assert gids.count("clique") == len(expected)


# ---------------------------------------------------------------------------- Bayesian
def test_bayesian_across_tasks_against_baycomp():
    values = _values()
    rep = _report(values, equivalence_margin=0.01, bootstrap_seed=3)
    out = rep.bayesian(n_samples=4000)
    means = _oriented_means(values)
    assert out["rope"] == 0.01 and out["seed"] == 3 and out["models"] == MODELS and out["tasks"] == TASKS
    for r in out["across_tasks"]:
        i, j = MODELS.index(r["model_a"]), MODELS.index(r["model_b"])
        ref = baycomp.two_on_multiple(means[:, i], means[:, j], 0.01, nsamples=4000, random_state=3)
        assert (r["p_a_better"], r["p_rope"], r["p_b_better"]) == pytest.approx(tuple(ref), abs=1e-12)
        assert r["n_tasks"] == len(TASKS)
    assert rep.bayesian(n_samples=4000) == out  # seeded: reproducible
    # independent Monte-Carlo draws (another seed) agree within Monte-Carlo error
    other = rep.bayesian(n_samples=4000, seed=4)["across_tasks"]
    se = 0.5 / math.sqrt(4000)
    for r, o in zip(out["across_tasks"], other):
        assert abs(r["p_a_better"] - o["p_a_better"]) < 8 * se and abs(r["p_rope"] - o["p_rope"]) < 8 * se


def test_bayesian_per_task_correlated_t_and_direction():
    values = _values()
    rep = _report(values, equivalence_margin=0.01)
    rows = {(r["task"], r["model_a"], r["model_b"]): r for r in rep.bayesian(n_samples=500)["per_task"]}
    assert len(rows) == len(TASKS) * 6
    for (t, a, b), r in rows.items():
        x, y = np.asarray(values[t][a]), np.asarray(values[t][b])
        sign = -1 if t == "mae" else 1
        d = sign * (x - y)  # a better by d
        post = st.t(len(d) - 1, loc=d.mean(), scale=np.std(d, ddof=1) / math.sqrt(len(d)))
        assert r["p_a_better"] == pytest.approx(post.sf(0.01), rel=1e-9, abs=1e-15)
        assert r["p_b_better"] == pytest.approx(post.cdf(-0.01), rel=1e-9, abs=1e-15)
        assert r["mean_diff"] == pytest.approx(np.mean(x - y)) and r["rho"] == 0.0 and r["n_seeds"] == 6
    # on the MAE task the model with the smaller error is the better one
    r = rows[("mae", "GCN", "GraphTransformer")]
    assert r["mean_diff"] > 0 and r["p_b_better"] > r["p_a_better"]


def test_bayesian_rope_defaults_and_per_task_margins():
    rep = _report(equivalence_margin=0.02)
    assert rep.bayesian(n_samples=500)["rope"] == 0.02
    assert rep.bayesian(0.005, n_samples=500)["rope"] == 0.005
    same = rep.bayesian({t: 0.02 for t in TASKS}, n_samples=500)
    scalar = rep.bayesian(n_samples=500)
    assert same["rope_scaled"] and not scalar["rope_scaled"]
    for a, b in zip(same["across_tasks"], scalar["across_tasks"]):  # a ROPE of one margin, in margins
        assert (a["p_a_better"], a["p_rope"], a["p_b_better"]) == pytest.approx(
            (b["p_a_better"], b["p_rope"], b["p_b_better"]), abs=1e-9)
    assert [r["p_rope"] for r in same["per_task"]] == [r["p_rope"] for r in scalar["per_task"]]
    with pytest.raises(ValueError, match="margin"):
        _report().bayesian(n_samples=500)  # no equivalence margin, no ROPE
    rho = rep.bayesian(n_samples=500, rho={"t0": 0.2})["per_task"]
    assert {r["rho"] for r in rho if r["task"] == "t0"} == {0.2}
    assert {r["rho"] for r in rho if r["task"] != "t0"} == {0.0}


def test_bayesian_degenerate_cells():
    values = _values()
    values["t1"]["GAT"] = np.asarray(values["t1"]["GCN"]).copy()  # identical on t1: zero spread
    rep = _report(values, equivalence_margin=0.01)
    r = next(r for r in rep.bayesian(n_samples=500)["per_task"]
             if (r["task"], r["model_a"], r["model_b"]) == ("t1", "GCN", "GAT"))
    assert r["degenerate"] and math.isnan(r["p_a_better"]) and "zero spread" in r["note"]
