"""Issue 25's report fixes: the correlated t-test's rho from each task's split design, ``best_val`` (and a
search) refused where validation is the reported set, REPORT.md's text fixes, the paired t / Wilcoxon
disagreement table over every family, and the paper comparison's stricter criterion."""

import ast
import csv
import json
import math
import re
import statistics
from pathlib import Path

import numpy as np
import pytest
from baycomp import CorrelatedTTest
from baycomp.single import Posterior

from netzbench.catalog.table import TASKS
from netzbench.config import check_names
from netzbench.errors import ParamsError
from netzbench.records import write_record
from netzbench.report import BenchmarkReport
from netzbench.report.comparisons import split_correlation
from netzbench.report.markdown.evidence import _median
from netzbench.report.paper import compare_with_paper, counts
from netzbench.report.stage import run_report_stage
from netzbench.stats import correlated_t_test, holm, paired_test

from helpers import as_settings, as_in_the_papers_setting, make_params

S = 6
MODELS = ["GCN", "GAT", "MLP", "CommonNeighbors"]
KINDS = {"MLP": "structure_free", "CommonNeighbors": "heuristic"}
#: GAT − GCN on euroroad: five clear gains and one tiny loss -- the t test finds it, the exact Wilcoxon
#: test at 6 seeds cannot (p = 2·2/64 = 0.0625)
SPLIT_SIGNS = np.array([0.05, 0.06, 0.05, 0.055, 0.06, -0.001])
#: task -> (family, metric, per-model mean (None: incompatible), the seeds' split design, the record's extras)
DESIGN = {
    "euroroad": ("link_pred", "test_auc", {"GCN": 0.55, "GAT": None, "MLP": 0.48, "CommonNeighbors": 0.52},
                 {"redrawn": True, "n_train": 1204, "n_test": 142}, {}),
    "fb15k_237": ("link_pred", "test_auc", {"GCN": 0.67, "GAT": 0.52, "MLP": 0.74, "CommonNeighbors": 0.80},
                  {"redrawn": False, "n_train": 272115, "n_test": 20466}, {}),
    "random_tsp": ("link_pred", "test_auc", {"GCN": 0.880, "GAT": 0.870, "MLP": 0.881, "CommonNeighbors": 0.93},
                   {"redrawn": True, "n_train": 407, "n_test": 48}, {"task_spec": {"synthetic": True}}),
    "karate": ("node_cls", "test_acc", {"GCN": 0.60, "GAT": 0.55, "MLP": 0.60, "CommonNeighbors": None}, None, {}),
    "mutag": ("graph_cls", "test_acc", {"GCN": 0.70, "GAT": 0.64, "MLP": 0.69, "CommonNeighbors": None},
              {"redrawn": True, "n_train": 150, "n_test": 38},
              {"task_spec": {"split": "random_graph_80_10_10"},
               "protocol": {"name": "paper", "switches": {"graph_split": "80_20"}}}),
}


def _record(task, family, metric, model, values, split=None, extra=None, val=None):
    """A schema-valid run record of one cell: one evaluated epoch per seed (``val``: validation values)."""
    if values is None:
        seeds = {str(s): {"status": "incompatible", "reason": f"{model} does not serve {family}"} for s in range(S)}
    else:
        seeds = {}
        for s, v in enumerate(values):
            hist = v if isinstance(v, dict) else {metric.replace("test", "val"): [v if val is None else val[s]],
                                                   metric: [v]}
            seeds[str(s)] = {"status": "ok", "epochs": list(range(1, len(hist[metric]) + 1)), "seconds": 1.0,
                             "num_params": 1, "peak_rss_mb": 1.0, "history": hist,
                             **({"split": dict(split)} if split else {})}
    return {"schema_version": 1, "task": task, "family": family, "model": model, "model_ref": model,
            "model_args": {}, "role": "roster", "headline_metric": metric, "direction": "higher",
            "hyperparameters": {"hidden_channels": 8, "lr": 0.01, "weight_decay": 0.0, "epochs": 1,
                                "eval_every": 1},
            "config_hash": "x", "data_hash": "y", "code_version": "z", "threads": 1, "software": {},
            "status": "ok" if values is not None else "incompatible", "seeds": seeds,
            "baseline_kind": KINDS.get(model), **(extra or {})}


def _values(task, model, mean, rng):
    if task == "euroroad" and model == "GAT":
        return None
    return np.round(mean + rng.normal(0, 0.005, S), 6)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One report stage over :data:`DESIGN`: ``(root, metrics/report.json, REPORT.md)``."""
    root = tmp_path_factory.mktemp("fixes")
    rng = np.random.default_rng(7)
    for task, (family, metric, means, split, extra) in DESIGN.items():
        values = {m: (None if mean is None else _values(task, m, mean, rng)) for m, mean in means.items()}
        if task == "euroroad":
            values["GAT"] = np.round(values["GCN"] + SPLIT_SIGNS, 6)
        for model, v in values.items():
            write_record(root / "metrics/runs" / task / f"{model}.json",
                         _record(task, family, metric, model, None if v is None else [float(x) for x in v],
                                 split, extra))
    params = make_params(tasks=list(DESIGN), models=MODELS, seeds=list(range(S)), protocol="paper",
                         train={"epochs": {t: 1 for t in DESIGN}})
    metrics = run_report_stage(as_settings(params), root=root)
    return root, metrics, (root / "reports/REPORT.md").read_text(encoding="utf-8")


def _csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _section(md, number):
    return md.split(f"## {number}.")[1].split(f"## {number + 1}.")[0]


# ------------------------------------------------------------------------------ rho of the correlated t
@pytest.mark.parametrize("runs", [1, 2, 5])
def test_correlated_t_is_baycomps_for_its_rho(runs):
    """baycomp's CorrelatedTTest on n = 10 values of ``runs`` repetitions has rho = 1/k = runs/n: ours agrees."""
    rng = np.random.default_rng(runs)
    x, y = np.round(rng.uniform(0.6, 0.8, 10), 6), np.round(rng.uniform(0.6, 0.8, 10), 6)
    ours = correlated_t_test(x, y, rope=0.01, rho=runs / 10)
    p_left, p_rope, p_right = CorrelatedTTest.probs(x, y, rope=0.01, runs=runs)  # left: y - x < -rope, x better
    assert (ours.p_a_better, ours.p_rope, ours.p_b_better) == pytest.approx((p_left, p_rope, p_right), rel=1e-9)


def test_redrawn_split_rho_is_nadeau_bengios_correction():
    """rho = n_test / (n_train + n_test) gives baycomp's posterior with Nadeau & Bengio's variance
    sigma^2 (1/n + n_test/n_train), the correction for repeated random hold-out."""
    n_train, n_test = 150, 38
    rng = np.random.default_rng(3)
    x, y = np.round(rng.uniform(0.6, 0.9, 10), 6), np.round(rng.uniform(0.6, 0.9, 10), 6)
    d = y - x
    var = np.var(d, ddof=1) * (1 / len(d) + n_test / n_train)
    expected = Posterior(np.mean(d), var, len(d) - 1, rope=0.01).probs()
    ours = correlated_t_test(x, y, rope=0.01, rho=n_test / (n_train + n_test))
    assert (ours.p_a_better, ours.p_rope, ours.p_b_better) == pytest.approx(expected, rel=1e-9)
    wider = correlated_t_test(x, y, rope=0.01, rho=0.0)
    assert ours.p_rope > wider.p_rope  # a redrawn split leaves more doubt than independent repetitions


def _cell(split=None, seeds=3, **facts):
    return {"seeds": {str(s): ({"status": "ok", "split": dict(split)} if split else {"status": "ok"})
                      for s in range(seeds)}, **facts}


def test_split_correlation_follows_the_design():
    redrawn = {"redrawn": True, "n_train": 1204, "n_test": 142}
    cells = {
        "road": {"GCN": _cell(redrawn), "CommonNeighbors": _cell(redrawn)},
        "cora": {"GCN": _cell({"redrawn": False, "n_train": 140, "n_test": 1000})},
        "tsp": {"GCN": _cell({"redrawn": True, "n_train": 407, "n_test": 48}, data_per_seed=True)},
        "old": {"GCN": _cell()},
        "mixed": {"GCN": _cell(redrawn), "GAT": _cell({"redrawn": True, "n_train": 100, "n_test": 100}),
                  "MLP": _cell({"redrawn": False, "n_train": 1204, "n_test": 142})},
    }
    out = split_correlation(cells)
    road = out["road"]
    assert road["design"] == "redrawn" and road["rho"] == pytest.approx(142 / 1346) and road["n_seeds"] == 6
    assert road["rho"] / (1 - road["rho"]) == pytest.approx(142 / 1204)  # the Nadeau-Bengio factor
    assert (out["cora"]["design"], out["cora"]["rho"]) == ("fixed", 0.0)
    assert (out["tsp"]["design"], out["tsp"]["rho"], out["tsp"]["n_train"]) == ("generated", 0.0, 407)
    assert (out["old"]["design"], out["old"]["rho"], out["old"]["n_train"]) == ("not_recorded", 0.0, None)
    mixed = out["mixed"]  # disagreeing seeds: the largest rho (the wider posterior), said in the note
    assert mixed["rho"] == pytest.approx(0.5) and (mixed["n_train"], mixed["n_test"]) == (100, 100)
    assert "3 of 9 seed records say the split is fixed" in mixed["note"] and "2 different split sizes" in mixed["note"]


def test_report_takes_rho_from_the_run_records(built):
    root, metrics, md = built
    design = metrics["bayesian_per_task"]["rho"]
    assert design["fb15k_237"]["design"] == "fixed" and design["fb15k_237"]["rho"] == 0.0
    assert design["random_tsp"]["design"] == "generated" and design["random_tsp"]["rho"] == 0.0
    assert design["mutag"]["design"] == "redrawn" and design["mutag"]["rho"] == pytest.approx(38 / 188)
    assert design["karate"]["design"] == "not_recorded"
    rows = [r for r in _csv(root / "reports/bayesian.csv") if r["scope"] == "task"]
    report = BenchmarkReport.from_json(root / "reports/benchmark.json")  # the cell facts travel with it
    final = report.final_metrics()
    for r in rows:
        rho = design[r["task"]]["rho"]
        assert float(r["rho"]) == pytest.approx(rho)
        a, b = final[r["task"]][r["model_a"]], final[r["task"]][r["model_b"]]
        assert float(r["p_a_better"]) == pytest.approx(correlated_t_test(a, b, 0.01, rho).p_a_better, abs=1e-12)
    decided = [r for r in rows if r["p_rope"] != ""]
    assert metrics["bayesian_per_task"]["comparisons"] == len(decided)
    assert metrics["bayesian_per_task"]["one_better"] == sum(
        max(float(r["p_a_better"]), float(r["p_b_better"])) >= 0.95 for r in decided)
    assert report.bayesian(n_samples=100)["split_design"] == design
    bayes = md.split("### Bayesian comparison")[1]
    assert "| `mutag` | split redrawn per seed | 150 | 38 | 0.202 |" in bayes
    assert "| `random_tsp` | new data generated per seed | 407 | 48 | 0.000 |" in bayes
    assert "No split design recorded for `karate`" in bayes and "n_test / (n_train + n_test)" in bayes


# ---------------------------------------------------------------- best_val where validation is the test
def test_best_val_and_search_refused_at_the_first_stage():
    with pytest.raises(ParamsError, match=r"`report.epoch_selection: best_val`.*`graph_split: 80_20`.*mutag is") as e:
        check_names(as_settings(make_params(protocol="paper", tasks=["mutag", "cora"], report={"epoch_selection": "best_val"})))
    assert "cora" not in str(e.value) and "80_10_10" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(ParamsError, match=r"`search.space` selects hyperparameters.*mutag"):
        check_names(as_settings(make_params(protocol="paper", tasks=["mutag"], search={"space": {"lr": [0.01, 0.001]}})))
    own_split = next(t for t, spec in TASKS.items() if spec.family == "graph_cls" and spec.split == "dataset_split")
    for ok in (dict(protocol="paper", protocol_overrides={"graph_split": "80_10_10"}, tasks=["mutag"]),
               dict(protocol="strict", tasks=["mutag"]), dict(protocol="paper", tasks=["cora"]),
               dict(protocol="paper", tasks=[own_split], train={"epochs": {own_split: 1}})):
        check_names(as_settings(make_params(report={"epoch_selection": "best_val"}, search={"space": {"lr": [0.01]}}, **ok)))


def _mutag_records(root, switches, split="random_graph_80_10_10"):
    for model, base in (("GCN", 0.7), ("GIN", 0.8)):
        hist = [{"val_acc": [base, base + 0.05, base - 0.02], "test_acc": [base, base + 0.05, base - 0.02]}] * S
        write_record(root / "metrics/runs/mutag" / f"{model}.json",
                     _record("mutag", "graph_cls", "test_acc", model, hist,
                             extra={"task_spec": {"split": split},
                                    "protocol": {"name": "paper", "switches": switches}}))


def test_report_refuses_best_val_where_validation_is_the_test_set(tmp_path):
    _mutag_records(tmp_path, {"graph_split": "80_20"})
    kw = dict(tasks=["mutag"], models=["GCN", "GIN"], seeds=list(range(S)), params=None)
    report = BenchmarkReport.from_runs(tmp_path / "metrics/runs", **kw)
    support = {r["task"]: r for r in report.epoch_selection_support()}
    assert not support["mutag"]["best_val_possible"]
    assert "validation set is the reported test set" in support["mutag"]["reason"]
    assert report.final_metrics()["mutag"]["GIN"][0] == pytest.approx(0.78)  # final is fine
    report.epoch_selection = "best_val"
    with pytest.raises(ValueError, match=r"best_val.*mutag \(its validation set is the reported test set"):
        report.final_metrics()
    params = make_params(tasks=["mutag"], models=["GCN", "GIN"], seeds=list(range(S)),
                         report={"epoch_selection": "best_val"}, train={"epochs": {"mutag": 3}})
    with pytest.raises(ValueError, match="mutag"):
        run_report_stage(as_settings(params), root=tmp_path)
    assert not (tmp_path / "reports/REPORT.md").exists()
    again = BenchmarkReport.from_dict(json.loads(report.subset().to_json()) | {"options": {}})
    again.epoch_selection = "best_val"  # the fact is in the cell facts: a re-analysis refuses too
    with pytest.raises(ValueError, match="validation set is the reported test set"):
        again.final_metrics()
    for switches, split in (({"graph_split": "80_10_10"}, "random_graph_80_10_10"), ({"graph_split": "80_20"},
                                                                                       "dataset_split")):
        _mutag_records(tmp_path, switches, split)
        ok = BenchmarkReport.from_runs(tmp_path / "metrics/runs", epoch_selection="best_val", **kw)
        assert ok.final_metrics()["mutag"]["GIN"][0] == pytest.approx(0.85)  # the best validation epoch


# ------------------------------------------------------------------------------------------ text fixes
PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])*\}|\{[A-Za-z_][A-Za-z0-9_]*\[")


def test_no_format_placeholder_survives(built):
    _, _, md = built
    assert not PLACEHOLDER.findall(md)
    assert re.search(r"Monte Carlo: 50,000 posterior samples, seed 0", md)
    # every string constant of the markdown writers, f-string parts included: none is an unformatted field
    for path in sorted((Path(__file__).parents[1] / "src/netzbench/report/markdown").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert not PLACEHOLDER.findall(node.value), f"{path.name}:{node.lineno}: {node.value[:80]!r}"


def test_median_keeps_its_half(built):
    assert (_median([87, 88]), _median([9]), _median([1, 2, 3, 4]), _median([10**6, 10**6 + 1])) == (
        "87.5", "9", "2.5", "1000000.5")
    root, _, md = built
    power = _csv(root / "reports/power.csv")
    table = {line.split("|")[1].strip(" `"): line.split("|")[7].strip() for line in _section(md, 6).splitlines()
             if line.startswith("| `")}
    for task, shown in table.items():
        need = [int(r["seeds_needed_0.01"]) for r in power if r["task"] == task and r["seeds_needed_0.01"]]
        assert shown == (_median(need) if need else "n/a")
        assert float(shown) == statistics.median(need) if need else True


def test_structure_sentences_state_the_direction_and_ask_the_heuristics(built):
    root, metrics, md = built
    lines = {line.split("`")[1]: line for line in _section(md, 2).splitlines() if line.startswith("- `")
             and "structure-free" in line}
    fb = lines["fb15k_237"]  # MLP beats the best GNN; the structure-only heuristic beats MLP
    assert "the structure-free MLP is significantly better than the best GNN (GCN; p_Holm = " in fb
    assert "but the structure-only CommonNeighbors beats MLP" in fb and "the task rewards structure" in fb
    assert "does not reward structure" not in fb and "does not beat" not in fb
    tsp = lines["random_tsp"]
    assert "the best GNN (GCN) does not beat the structure-free MLP significantly" in tsp
    assert "the task rewards structure, and **the best GNN, given graph and features, is not significantly better " \
           "than the features alone**" in tsp and "random_tsp`'s coordinates" in tsp  # the MLP sees what defines the graph
    assert "**the task does not reward structure**" in lines["karate"]  # no heuristic serves node tasks
    per_task = metrics["baselines"]["per_task"]
    assert per_task["fb15k_237"]["structure_free_better"] is True
    assert per_task["fb15k_237"]["structure_only_beats_free"] is True and per_task["karate"]["structure_only"] is None
    # one Holm family per task: GNN vs the best baseline, vs the structure-free one, heuristic vs structure-free
    final = BenchmarkReport.from_json(root / "reports/benchmark.json").final_metrics()["fb15k_237"]
    p = [paired_test(final[a], final[b]).p_value for a, b in (("GCN", "CommonNeighbors"), ("GCN", "MLP"),
                                                              ("CommonNeighbors", "MLP"))]
    row = per_task["fb15k_237"]
    assert [row["p_holm"], row["structure_p_holm"], row["structure_only_p_holm"]] == pytest.approx(list(holm(p)))


def test_disagreement_table_covers_every_family(built):
    root, _, md = built
    t, w = ({(r["task"], r["model_a"], r["model_b"]): r["significant"]
             for r in _csv(root / f"reports/pairwise_{m}.csv")} for m in ("t", "wilcoxon"))
    differ = sorted(k for k in t if t[k] != w[k])
    assert ("euroroad", "GCN", "GAT") in differ  # a link task: the old section showed node classification only
    sec = _section(md, 4)
    assert f"The two decide differently on **{len(differ)} of {len(t)}** comparisons" in sec
    rows = [line for line in sec.split("### Node classification")[0].splitlines()
            if line.startswith("| `") and ("t only" in line or "Wilcoxon only" in line)]
    assert len(rows) == len(differ)
    road = next(line for line in rows if line.startswith("| `euroroad` | link prediction | GCN vs. GAT |"))
    assert road.rstrip(" |").endswith("t only") and "0.0625" in road  # both p-values are shown
    families = {line.split("|")[1].strip() for line in sec.splitlines()[:12] if line.startswith("| ")}
    assert {"link prediction", "node classification", "graph classification"} <= families
    assert "### Node classification (the paper's Table 2 layout)" in sec and "| `karate` | GCN vs. GAT |" in sec


# ------------------------------------------------------------------------------- paper: stricter criterion
T9 = 2.2621571627409915  # Student t, 0.975 quantile, 9 degrees of freedom (the paper's 10 seeds)


def test_paper_criteria_by_hand():
    table = {"n_seeds": 10, "ci": 0.95, "tasks": {"t": {"cells": {
        "A": [0.700, 0.0452], "B": [0.700, 0.0452], "C": [0.800, 0.0001], "D": [0.500, 0.0905], "E": [0.5, 0.1]}}}}

    def ours(model, mean, sem):
        h = T9 * sem
        return {"task": "t", "model": model, "mean": mean, "sem": sem, "half_width": h, "lo": mean - h,
                "hi": mean + h, "n_seeds": 10}

    rows = {r["model"]: r for r in compare_with_paper(
        [ours("A", 0.750, 0.010), ours("B", 0.710, 0.010), ours("C", 0.821, 0.010), ours("D", 0.510, 0.001)], table)}
    a = rows["A"]
    # paper SE = h / t(0.975, 9) = 0.0452 / 2.26216 = 0.019981; pooled = sqrt(0.010^2 + 0.019981^2) = 0.022344
    assert a["paper_se"] == pytest.approx(0.019981, abs=1e-6) and a["pooled_se"] == pytest.approx(0.022344, abs=1e-6)
    assert a["z"] == pytest.approx(0.05 / 0.022344, rel=1e-4) and a["z"] == pytest.approx(2.2377, abs=1e-4)
    # A: the intervals overlap ([0.6548, 0.7452] and [0.7274, 0.7726]), yet 0.700 is outside ours and z > 1.96
    assert (a["overlap"], a["inside"], a["z_ok"], a["strict"]) == (True, False, False, False)
    b = rows["B"]  # z = 0.01 / 0.022344 = 0.448, 0.700 inside [0.6874, 0.7326]: agrees under both
    assert b["z"] == pytest.approx(0.4475, abs=1e-4) and (b["inside"], b["z_ok"], b["strict"]) == (True, True, True)
    c = rows["C"]  # inside (0.021 < 0.0226) but z = 0.021 / 0.010 = 2.10 with a near-exact paper mean
    assert c["z"] == pytest.approx(2.0999, abs=1e-3) and (c["inside"], c["z_ok"], c["strict"]) == (True, False, False)
    d = rows["D"]  # our interval is narrow ([0.50774, 0.51226]), the paper's SE large: z = 0.01 / 0.040018 = 0.25
    assert d["z"] == pytest.approx(0.2499, abs=1e-4) and (d["overlap"], d["inside"], d["z_ok"]) == (True, False, True)
    assert d["strict"] is False
    e = rows["E"]  # a cell we do not have: nothing to judge
    assert (e["overlap"], e["inside"], e["z_ok"], e["strict"]) == (None, None, None, None) and math.isnan(e["z"])
    assert counts(list(rows.values())) == {"compared": 4, "overlapping": 4, "inside": 2, "z": 2, "strict": 1,
                                           "equivalent": 0}  # no margin given: the TOST is not computed


def test_paper_criteria_in_report_json_and_section_11(tmp_path, monkeypatch):
    as_in_the_papers_setting(monkeypatch)
    gin = [0.84, 0.85, 0.83, 0.86, 0.84, 0.85]  # Table 3: GIN 0.834 ± 0.036, GCN 0.705 ± 0.059
    for model, values in (("GIN", gin), ("GCN", [0.80, 0.81, 0.79, 0.80, 0.81, 0.80])):
        write_record(tmp_path / "metrics/runs/mutag" / f"{model}.json",
                     _record("mutag", "graph_cls", "test_acc", model, values))
    metrics = run_report_stage(as_settings(make_params(tasks=["mutag"], models=["GCN", "GIN"], seeds=list(range(S)),
                                           train={"epochs": {"mutag": 1}})), root=tmp_path)
    pc = metrics["paper_comparison"]
    assert {k: pc[k] for k in ("compared", "overlapping", "inside", "z", "strict")} == {
        "compared": 2, "overlapping": 1, "inside": 1, "z": 1, "strict": 1}
    gcn, gin_cell = pc["cells"]["mutag/GCN"], pc["cells"]["mutag/GIN"]
    assert gcn["overlap"] is False and gcn["strict"] is False and gcn["z"] > 1.96
    assert gin_cell["strict"] is True and gin_cell["paper_se"] == pytest.approx(0.036 / T9)
    md = (tmp_path / "reports/REPORT.md").read_text(encoding="utf-8")
    sec = md.split("## 11.")[1].split("## 12.")[0]
    assert "| CIs overlap | paper inside ours | \\|Δ\\| / SE | strict |" in sec
    assert "**1 of 2** comparable cells" in sec and "**1 of 2** agree" in sec
