"""BenchmarkReport options, persistence, exporters and plot methods.

Setting ``epoch_selection``, ``ci_method`` or ``pairwise_method`` once must
switch every table, test, plot and exporter together; JSON must round-trip
exactly; LaTeX must be booktabs; the plot methods must draw what they claim.
"""

import io
import json
import math

import numpy as np
import pytest

from netzbench.report import BenchmarkReport
from netzbench.report.cost import union_length
from netzbench.report.paper import compare_with_paper, load_paper_table

SEEDS = list(range(6))


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=60, metadata={"Software": None})
    return buf.getvalue()


def _gids(fig, gid):
    return [a for ax in fig.axes for a in list(ax.lines) + list(ax.texts) if a.get_gid() == gid]


def _flip_report(**kw) -> BenchmarkReport:
    """Three tasks where `final` ranks A > C > B and `best_val` ranks B > C > A."""
    rng = np.random.default_rng(0)
    hist = {}
    for t in ("t1", "t2", "t3"):
        hist[t] = {"A": [], "B": [], "C": []}
        for _ in SEEDS:
            e = rng.normal(0, 0.01, 3)
            hist[t]["A"].append({"val_acc": [0.9, 0.5, 0.5], "test_acc": [0.60 + e[0], 0.7, 0.90 + e[0]]})
            hist[t]["B"].append({"val_acc": [0.9, 0.5, 0.5], "test_acc": [0.80 + e[1], 0.7, 0.70 + e[1]]})
            hist[t]["C"].append({"val_acc": [0.1, 0.2, 0.3], "test_acc": [0.7, 0.7, 0.78 + e[2]]})
    cells = {t: {m: {"status": "ok", "seeds": {str(s): {"status": "ok", "seconds": 1.5, "epochs": [2, 4, 6]}
                                               for s in SEEDS}} for m in "ABC"} for t in hist}
    return BenchmarkReport(SEEDS, hist, {"note": "flip"}, cells=cells, equivalence_margin=0.05, **kw)


# --------------------------------------------------------------------------- switching
def test_epoch_selection_switches_everything():
    rep = _flip_report()
    before = {
        "X": rep.final_metrics()["t1"]["A"].copy(), "summary": rep.summary(), "pairwise": rep.pairwise(),
        "ranks": rep.friedman()["mean_ranks"], "latex": rep.to_latex(), "platex": rep.pairwise_to_latex(),
        "cd": _png(rep.plot_critical_difference()), "curves": _png(rep.plot_learning_curves()),
        "equiv": rep.equivalence(), "audit": rep.selected_epochs(table=True),
    }
    assert before["ranks"] == {"A": 1.0, "B": 3.0, "C": 2.0}
    rep.epoch_selection = "best_val"
    assert rep.friedman()["mean_ranks"] == {"A": 3.0, "B": 1.0, "C": 2.0}
    assert np.all(rep.final_metrics()["t1"]["A"] < 0.7) and np.all(before["X"] > 0.85)
    assert rep.summary() != before["summary"]
    assert rep.pairwise()[0]["mean_diff"] < 0 < before["pairwise"][0]["mean_diff"]  # A − B flips sign
    assert rep.to_latex() != before["latex"] and "best\\_val" in rep.to_latex()
    assert rep.pairwise_to_latex() != before["platex"]
    assert _png(rep.plot_critical_difference()) != before["cd"]
    assert _png(rep.plot_learning_curves()) != before["curves"]
    assert rep.equivalence() != before["equiv"]
    audit = rep.selected_epochs(table=True)
    assert {(r["model"], r["index"], r["epoch"]) for r in audit} == {("A", 0, 2), ("B", 0, 2), ("C", 2, 6)}
    assert {(r["model"], r["epoch"]) for r in before["audit"]} == {("A", 6), ("B", 6), ("C", 6)}
    rep.epoch_selection = "final"
    assert rep.summary() == before["summary"]


def test_ci_method_switches_tables_and_plots():
    rep = _flip_report(bootstrap_n=2000)
    s_t, tex_t = rep.summary(), rep.to_latex()
    forest, bars, dash = _png(rep.plot_forest()), _png(rep.plot()), _png(rep.plot_dashboard())
    rel = rep.mean_ranks("reliability")
    rep.ci_method = "bootstrap"
    s_b = rep.summary()
    assert {r["ci_method"] for r in s_b} == {"bootstrap"}
    assert [r["lo"] for r in s_b] != [r["lo"] for r in s_t]
    assert [r["mean"] for r in s_b] == [r["mean"] for r in s_t]
    assert rep.to_latex() != tex_t and "bootstrap" in rep.to_latex()
    assert _png(rep.plot_forest()) != forest and _png(rep.plot()) != bars and _png(rep.plot_dashboard()) != dash
    assert set(rep.mean_ranks("reliability")) == set(rel)


def test_pairwise_method_switches_tests_exporters_and_plots():
    rep = _flip_report()
    rows_t = rep.pairwise()
    tex, mat, lst = rep.pairwise_to_latex(), _png(rep.plot_pairwise()), _png(rep.plot_pairwise("list"))
    cand = rep.candidate_block("A", ["B", "C"])
    rep.pairwise_method = "wilcoxon"
    rows_w = rep.pairwise()
    assert {r["method"] for r in rows_w} == {"wilcoxon"} and [r["p_raw"] for r in rows_w] != [r["p_raw"] for r in rows_t]
    assert rep.pairwise_to_latex() != tex and "Wilcoxon" in rep.pairwise_to_latex()
    assert _png(rep.plot_pairwise()) != mat and _png(rep.plot_pairwise("list")) != lst
    assert {r["pairwise_method"] for r in rep.equivalence()} == {"wilcoxon"}
    assert rep.equivalence()[0]["p_diff_holm"] == rows_w[0]["p_holm"]
    assert sum(rep.candidate_block("A", ["B", "C"])[k] for k in ("wins", "losses", "ties")) == \
        sum(cand[k] for k in ("wins", "losses", "ties"))
    # explicit method arguments still work without changing the report
    assert rep.pairwise("t") == rows_t and rep.pairwise_method == "wilcoxon"


@pytest.mark.parametrize("attr, bad", [("ci_method", "normal"), ("pairwise_method", "sign"),
                                       ("epoch_selection", "best_test"), ("alpha", 1.5), ("ci", 0.0)])
def test_invalid_options_are_rejected(attr, bad):
    rep = _flip_report()
    with pytest.raises(ValueError, match=attr):
        setattr(rep, attr, bad)
    with pytest.raises(ValueError):
        _flip_report(**{attr: bad})


# --------------------------------------------------------------------------- epoch selection support
def test_epoch_selection_support_says_why():
    hist = {
        "ok": {"m": [{"val_auc": [0.5, 0.6], "test_auc": [0.5, 0.7]}]},
        "noval": {"m": [{"test_auc": [0.5, 0.7]}]},
        "valonly": {"m": [{"val_acc": [0.5, 0.7]}]},
        "short": {"m": [{"val_acc": [0.5], "test_acc": [0.5, 0.7]}]},
    }
    rep = BenchmarkReport([0], hist)
    sup = {r["task"]: r for r in rep.epoch_selection_support()}
    assert sup["ok"]["best_val_possible"] and sup["ok"]["validation_series"] == "val_auc"
    assert not sup["noval"]["best_val_possible"] and "val_auc" in sup["noval"]["reason"]
    assert not sup["valonly"]["best_val_possible"] and "reported number" in sup["valonly"]["reason"]
    assert not sup["short"]["best_val_possible"]
    rep.epoch_selection = "best_val"
    with pytest.raises(ValueError, match="noval"):
        rep.final_metrics()
    ok = BenchmarkReport([0], {"ok": hist["ok"]}, epoch_selection="best_val")
    assert ok.final_metrics()["ok"]["m"][0] == 0.7


def test_metric_and_direction_inference_and_override():
    h = {"test_ap": [0.9], "test_auc": [0.8], "val_auc": [0.7]}
    rep = BenchmarkReport([0], {"lp": {"m": [h]}, "reg": {"m": [{"test_mae": [3.0], "val_mae": [2.0]}]}})
    assert rep.task_info["lp"].metric == "test_auc" and rep.task_info["lp"].direction == "higher"
    assert rep.task_info["reg"].direction == "lower"
    rep2 = BenchmarkReport([0], {"lp": {"m": [h]}}, tasks={"lp": {"metric": "test_ap", "direction": "lower"}})
    assert rep2.task_info["lp"].metric == "test_ap" and rep2.task_info["lp"].direction == "lower"
    with pytest.raises(ValueError, match="direction"):
        BenchmarkReport([0], {"lp": {"m": [h]}}, tasks={"lp": {"direction": "up"}})
    with pytest.raises(ValueError, match="histories for"):
        BenchmarkReport([0, 1], {"lp": {"m": [h]}})


# --------------------------------------------------------------------------- persistence
def test_json_round_trip_exact_with_nan_failed_seeds_and_options():
    rep = _flip_report(ci_method="bootstrap", bootstrap_n=500, bootstrap_seed=3, pairwise_method="wilcoxon",
                       epoch_selection="best_val", alpha=0.1, ci=0.9)
    rep.histories["t1"]["A"][2] = None
    rep.histories["t2"]["B"][1]["test_acc"][2] = float("nan")
    rep.equivalence_margin = {"t1": 0.01, "t2": 0.02, "t3": 0.03}
    text = rep.to_json()
    again = BenchmarkReport.from_json(text)
    assert again.to_json() == text
    assert again.options() == rep.options() and again.cells == rep.cells and again.config == rep.config
    assert json.dumps(again.summary()) == json.dumps(rep.summary())
    assert json.dumps(again.equivalence()) == json.dumps(rep.equivalence())
    d = json.loads(text)
    assert d["schema"] == "netzbench.benchmark/1" and d["histories"]["t1"]["A"][2] is None
    assert d["histories"]["t2"]["B"][1]["test_acc"][2] is None
    for bad in ({**d, "schema": "netzbench.benchmark/2"}, {k: v for k, v in d.items() if k != "schema"}):
        with pytest.raises(ValueError, match="unsupported benchmark schema"):
            BenchmarkReport.from_json(json.dumps(bad))
    with pytest.raises(ValueError, match="unsupported benchmark schema"):
        BenchmarkReport.from_dict([1, 2])


# --------------------------------------------------------------------------- exporters
def test_summary_latex_is_booktabs_with_best_bold():
    hist = {"my_task": {"A": [{"test_acc": [v]} for v in (0.8, 0.82, 0.81)],
                        "B": [{"test_acc": [v]} for v in (0.7, 0.71, 0.72)],
                        "C": [None, None, None]},
            "mae": {"A": [{"test_mae": [v]} for v in (2.0, 2.1, 2.2)], "B": [{"test_mae": [v]} for v in (1.0, 1.1, 1.2)],
                    "C": [{"test_mae": [0.5]}, None, None]}}
    tex = BenchmarkReport([0, 1, 2], hist).to_latex()
    for token in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{tabular}{llccc}", r"my\_task"):
        assert token in tex
    acc = next(line for line in tex.splitlines() if line.startswith(r"my\_task"))
    assert r"$\mathbf{0.810 \pm" in acc and "& --" in acc and r"$\uparrow$" in acc
    mae = next(line for line in tex.splitlines() if line.startswith("mae"))
    assert r"$\mathbf{0.500}$ (1 seed)" in mae and r"$\downarrow$" in mae  # lowest MAE is best, even with 1 seed


def test_pairwise_latex_marks_significance():
    rep = _flip_report()
    tex = rep.pairwise_to_latex()
    assert r"\toprule" in tex and r"$p_{\mathrm{Holm}}$" in tex and r"\addlinespace" in tex
    body = [line for line in tex.splitlines() if " vs.\\ " in line]
    assert len(body) == len(rep.pairwise())
    for line, row in zip(body, rep.pairwise()):
        assert line.rstrip().endswith("$^{*}$ \\\\") == row["significant"]


# --------------------------------------------------------------------------- plots through the report
def test_plot_methods_draw_what_they_claim():
    rep = _flip_report()
    cd = rep.plot_critical_difference()
    assert _gids(cd, "cd-bar") and _gids(cd, "friedman") and not _gids(cd, "diagnostic-label")
    for agg in ("reliability", "hierarchical"):
        diag = rep.plot_critical_difference(agg)
        assert _gids(diag, "diagnostic-label") and not _gids(diag, "cd-bar") and not _gids(diag, "clique")
    custom = rep.plot_critical_difference("custom", weights={"t1": 1, "t2": 1, "t3": 2})
    assert _gids(custom, "diagnostic-label")
    assert len(_gids(rep.plot_learning_curves(), "selected-epoch")) == 9  # 3 tasks x 3 models
    assert len(rep.plot_learning_curves(series="val").axes) >= 3
    single = rep.plot_pairwise(task="t1")
    assert any(t.get_gid() == "cell-1-0" for ax in single.axes for t in ax.texts)
    for fig in (rep.plot(), rep.plot_forest(), rep.plot_pairwise(), rep.plot_pairwise("list"), rep.plot_dashboard(),
                rep.plot_mean_ranks(), rep.plot_mean_ranks("reliability")):
        fig.canvas.draw()
    with pytest.raises(ValueError, match="layout"):
        rep.plot_pairwise("grid")


def test_cd_diagram_with_mixed_directions():
    hist = {"acc": {m: [{"test_acc": [0.6 + 0.1 * i + 0.01 * s]} for s in range(3)] for i, m in enumerate("ABC")},
            "mae": {m: [{"test_mae": [1.0 + i + 0.01 * s]} for s in range(3)] for i, m in enumerate("ABC")},
            "auc": {m: [{"test_auc": [0.9 - 0.1 * i + 0.01 * s]} for s in range(3)] for i, m in enumerate("ABC")}}
    rep = BenchmarkReport([0, 1, 2], hist)
    fr = rep.friedman()
    assert fr["mean_ranks"] == pytest.approx({"A": 5 / 3, "B": 2.0, "C": 7 / 3})
    labels = [t.get_text() for t in _gids(rep.plot_critical_difference(), "model-label")]
    assert sorted(labels) == ["A (1.67)", "B (2.00)", "C (2.33)"]


# --------------------------------------------------------------------------- cost / paper
def test_compute_cost_splits():
    cost = _flip_report().compute_cost()
    assert cost["total_seconds"] == pytest.approx(3 * 3 * 6 * 1.5) and cost["n_timed"] == 54
    assert cost["by_task"] == pytest.approx({t: 27.0 for t in ("t1", "t2", "t3")})
    assert cost["by_model"] == pytest.approx({m: 27.0 for m in "ABC"})


def test_union_length_against_a_fine_grid():
    rng = np.random.default_rng(5)
    for _ in range(20):
        starts = rng.uniform(0, 50, 8)
        ivs = [(a, a + w) for a, w in zip(starts, rng.uniform(0, 10, 8))]
        grid = np.linspace(0, 60, 600001)
        covered = np.zeros_like(grid, dtype=bool)
        for a, b in ivs:
            covered |= (grid >= a) & (grid <= b)
        assert union_length(ivs) == pytest.approx(covered.mean() * 60, abs=1e-3)
    assert union_length([]) == 0.0
    assert union_length([(0, 2), (1, 3), (5, 6)]) == pytest.approx(4.0)


def test_compute_cost_elapsed_time_from_seed_intervals():
    """Two workers: seeds overlap in pairs; cells run one after another with a pause between two invocations."""
    rep = _flip_report()
    t = 1000.0
    for task in ("t1", "t2", "t3"):
        for model in "ABC":
            for i, s in enumerate(SEEDS):  # seeds two at a time, 1.5 s each
                rep.cells[task][model]["seeds"][str(s)].update(started_at=t + (i // 2) * 1.5,
                                                                finished_at=t + (i // 2) * 1.5 + 1.5)
            t += (len(SEEDS) + 1) // 2 * 1.5
        t += 100.0  # idle between invocations: not training time
    cost = rep.compute_cost()
    per_cell = (len(SEEDS) + 1) // 2 * 1.5
    assert cost["wall_seconds"] == pytest.approx(9 * per_cell)
    assert cost["span_seconds"] == pytest.approx(9 * per_cell + 200.0)
    assert cost["wall_by_task"] == pytest.approx({t: 3 * per_cell for t in ("t1", "t2", "t3")})
    assert cost["wall_by_model"] == pytest.approx({m: 3 * per_cell for m in "ABC"})
    assert cost["wall_by_cell"]["t2"]["B"] == pytest.approx(per_cell)
    assert cost["parallelism"] == pytest.approx(cost["total_seconds"] / cost["wall_seconds"])
    assert 1.5 < cost["parallelism"] <= 2.0


def test_compute_cost_without_intervals_has_no_elapsed_time():
    cost = _flip_report().compute_cost()
    assert cost["wall_seconds"] is None and cost["wall_by_task"] == {} and cost["parallelism"] is None


def test_paper_table_and_comparison():
    table = load_paper_table()
    assert set(table["tasks"]) == {"random_tsp", "mutag", "cora", "fb15k_237", "euroroad", "board_directors",
                                   "internet_as", "mnist_superpixels", "ising_lattice", "terrorists_911"}
    assert table["tasks"]["cora"]["cells"]["GCN"] == [0.811, 0.001]
    assert "GIN" not in table["tasks"]["cora"]["cells"] and table["tasks"]["mutag"]["cells"]["GIN"] == [0.834, 0.036]
    rows = [{"task": "cora", "model": "GCN", "mean": 0.8115, "lo": 0.8105, "hi": 0.8125, "half_width": 0.001,
             "n_seeds": 10},
            {"task": "cora", "model": "GAT", "mean": 0.75, "lo": 0.74, "hi": 0.76, "half_width": 0.01, "n_seeds": 10},
            {"task": "cora", "model": "GraphSAGE", "mean": 0.8, "lo": math.nan, "hi": math.nan,
             "half_width": math.nan, "n_seeds": 1},
            {"task": "karate", "model": "GCN", "mean": 0.7, "lo": 0.6, "hi": 0.8, "half_width": 0.1, "n_seeds": 10}]
    comp = {(c["task"], c["model"]): c for c in compare_with_paper(rows)}
    assert {t for t, _ in comp} == {"cora"}  # only tasks present in both
    assert comp[("cora", "GCN")]["overlap"] is True and comp[("cora", "GAT")]["overlap"] is False
    assert comp[("cora", "GraphSAGE")]["overlap"] is None  # no interval on our side
    assert math.isnan(comp[("cora", "GraphTransformer")]["ours_mean"])
    assert comp[("cora", "GAT")]["diff"] == pytest.approx(0.75 - 0.793)


def test_settings_become_report_options_in_one_place():
    from helpers import make_settings

    from netzbench.report.options import options_from_settings

    p = make_settings(tasks=["karate", "cora", "citeseer"],
                    report={"ci_method": "bootstrap", "posthoc": "wilcoxon_holm", "baselines": "include",
                            "equivalence_margin": 0.02, "rank_exclude": ["citeseer"]})
    o = options_from_settings(p)
    assert (o["ci_method"], o["posthoc_method"], o["baseline_mode"], o["equivalence_margin"]) == \
        ("bootstrap", "wilcoxon_holm", "include", 0.02)
    assert o["rank_tasks"] == ["karate", "cora"]
    assert options_from_settings(p, ["cora"])["rank_tasks"] == ["cora"]  # a report of fewer tasks ranks those
    assert "rank_tasks" not in options_from_settings(make_settings(tasks=["karate"]))


def test_section_1_gives_the_optimiser_settings_the_cells_trained_with():
    from netzbench.report import BenchmarkReport
    from netzbench.report.markdown.protocol import optimiser_settings

    hist = {"t": {"A": [{"test_acc": [0.5]}], "B": [{"test_acc": [0.6]}]}}
    cells = {"t": {"A": {"hyperparameters": {"lr": 0.005, "weight_decay": 0.0}},
                   "B": {"hyperparameters": {"lr": 0.01, "weight_decay": 0.0005}}}}
    rep = BenchmarkReport([0], hist, tasks={"t": {"metric": "test_acc", "family": "node_cls"}}, cells=cells)
    # the records alone (params never enter section 1); a family without tasks is not listed
    assert optimiser_settings(rep) == ["node_cls: lr 0.005, weight decay 0.0 or lr 0.01, weight decay 0.0005"]


def test_section_1_gives_the_batch_sizes_the_cells_trained_with():
    from netzbench.report import BenchmarkReport
    from netzbench.report.markdown.protocol import batch_settings
    from netzbench.report.markdown.templating import render

    hist = {t: {"A": [{"test_acc": [0.5]}]} for t in ("n", "g", "old")}
    cells = {"n": {"A": {"hyperparameters": {"lr": 0.01}, "batch_size": None}},
             "g": {"A": {"hyperparameters": {"lr": 0.01}, "batch_size": 16}},
             "old": {"A": {"hyperparameters": {"lr": 0.01}}}}  # a record from before the field
    tasks = {"n": {"metric": "test_acc", "family": "node_cls"}, "g": {"metric": "test_acc", "family": "graph_cls"},
             "old": {"metric": "test_mae", "direction": "lower", "family": "graph_reg"}}
    rep = BenchmarkReport.from_json(BenchmarkReport([0], hist, tasks=tasks, cells=cells).to_json())
    settings = batch_settings(rep)
    assert settings == {"full": ["node"], "sampled": [], "mini": [(16, "graph classification")],
                        "unrecorded": ["graph regression"]}
    assert render("protocol", "batch_text", batches=settings) == [
        "full batch for node-level tasks, shuffled mini-batches of 16 (graph classification) graphs, "
        "batch size not recorded (graph regression)"]
    settings = batch_settings(rep.subset(tasks=["n"]))
    assert render("protocol", "batch_text", batches=settings) == ["full batch for node-level tasks"]


def test_section_1_says_which_levels_trained_neighbour_sampled():
    from netzbench.report import BenchmarkReport
    from netzbench.report.markdown.protocol import batch_settings
    from netzbench.report.markdown.templating import render

    drawn = {"train": "neighbour", "eval": "layerwise", "fanouts": [15, 10], "batch_size": 1024}
    approx = {**drawn, "eval": "sampled"}
    seeds = {"big": [drawn, drawn], "small": [{"train": "full"}, {"train": "full"}], "mixed": [drawn, {"train": "full"}],
             "approx": [approx]}
    hist = {t: {"A": [{"test_acc": [0.5]}, {"test_acc": [0.6]}]} for t in seeds}
    cells = {t: {"A": {"hyperparameters": {"lr": 0.01}, "batch_size": None,
                       "seeds": {str(i): {"status": "ok", "sampling": w} for i, w in enumerate(ways)}}}
             for t, ways in seeds.items()}
    tasks = {t: {"metric": "test_acc", "family": "node_cls"} for t in seeds}
    rep = BenchmarkReport.from_json(BenchmarkReport([0, 1], hist, tasks=tasks, cells=cells).to_json())
    assert batch_settings(rep.subset(tasks=["big"]))["full"] == []
    assert batch_settings(rep.subset(tasks=["small"]))["sampled"] == []
    settings = batch_settings(rep)
    assert settings["full"] == ["node"]
    assert settings["sampled"] == [("node", "15/10", 1024, "layerwise"), ("node", "15/10", 1024, "sampled")]
    assert render("protocol", "batch_text", batches=batch_settings(rep.subset(tasks=["big"]))) == [
        "neighbour-sampled mini-batches for node-level tasks (15/10 neighbours per hop, 1024 targets per step, "
        "evaluated exactly layer by layer)"]
    assert render("protocol", "batch_text", batches=batch_settings(rep.subset(tasks=["approx"])))[0].endswith(
        "(15/10 neighbours per hop, 1024 targets per step, evaluated on sampled neighbourhoods: approximate)")
