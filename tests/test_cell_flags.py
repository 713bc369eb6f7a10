"""Flagged cells (issue 25): degenerate cells (a headline that never moves, or a handful of distinct test
predictions) and cells that saw held-out edges, from the trainers' records through ``metrics/report.json``,
REPORT.md's section 2 and ``reports/benchmark.json``; and the split design / ``test_distinct`` the node and
graph trainers record."""

import json
from pathlib import Path

import numpy as np
import pytest

from netzbench.models.registry import resolve_model
from netzbench.records import write_record
from netzbench.report import BenchmarkReport
from netzbench.report.degenerate import FEW_DISTINCT, degenerate, few_distinct, headline_flat, leakage
from netzbench.report.facts import collect_facts
from netzbench.report.persistence import read as read_form, split
from netzbench.report.stage import run_report_stage
from netzbench.report.verify_input import VerifyError, read_benchmark
from netzbench.training.seed import fit_seed

from helpers import as_settings, REPO, make_params

SEEDS = list(range(10))
PUBLISHED = REPO / "reports" / "benchmark.json"


def _curve(start, n=60, step=0.002):
    return [start + step * e for e in range(n)]


def _ising_mlp_like():
    """Like the published Ising MLP cell: test AUC the same at all 60 epochs in 9 of 10 seeds."""
    runs = []
    for s in SEEDS:
        auc = [0.54 + 0.001 * s] * 60 if s != 4 else [0.55] * 30 + [0.56] * 30
        runs.append({"train_loss": _curve(0.7, step=-0.001), "val_auc": auc, "test_auc": auc,
                     "test_constant": [0.0] * 60})
    return runs


def _moving(n_distinct=400.0, epochs=60):
    return [{"train_loss": _curve(0.7, epochs, -0.001), "val_auc": _curve(0.6 + 0.001 * s, epochs),
             "test_auc": _curve(0.6 + 0.001 * s, epochs), "test_constant": [0.0] * epochs,
             "test_distinct": [n_distinct] * epochs} for s in SEEDS]


def _heuristic():  # scored once, no training
    return [{"val_auc": [0.9], "test_auc": [0.9 + 0.001 * s], "test_constant": [0.0], "test_distinct": [350.0]}
            for s in SEEDS]


LINK = {"metric": "test_auc", "direction": "higher", "family": "link_pred", "category": "physics"}


def _report(histories, task_meta=LINK, cells=None, **options):
    return BenchmarkReport(SEEDS, {"t": histories}, {}, tasks={"t": task_meta}, cells=cells, **options)


def _flags(report):
    return collect_facts(report, None, report.models).flags


def test_the_ising_mlp_like_cell_is_degenerate_with_its_seed_count():
    rep = _report({"MLP": _ising_mlp_like(), "GCN": _moving(), "AdamicAdar": _heuristic()})
    flags = _flags(rep)
    assert set(flags) == {("t", "MLP")}  # neither the moving GCN nor the single-evaluation heuristic
    flag = flags[("t", "MLP")]["degenerate"]
    assert (flag["n_flagged"], flag["n_seeds"], flag["n_flat"], flag["n_few_distinct"]) == (9, 10, 9, 0)
    assert flag["reason"] == "degenerate in 9 of 10 seeds: test ROC-AUC the same at every evaluated epoch (9 seeds)"


def test_the_published_ising_mlp_cell_is_flagged():
    if not PUBLISHED.is_file():
        pytest.skip("no published reports/benchmark.json")
    rep = BenchmarkReport.from_json(PUBLISHED)
    if "MLP" not in rep.histories.get("ising_lattice", {}):
        pytest.skip("the published run has no ising_lattice/MLP cell")
    rep = rep.subset(tasks=["ising_lattice"])
    flags = _flags(rep)
    assert "degenerate" in flags[("ising_lattice", "MLP")]
    assert not any(k[1] in ("GCN", "GAT", "GraphSAGE", "GraphTransformer") for k in flags)  # they learn


def test_half_the_seeds_is_not_most():
    runs = _moving()
    for h in runs[:5]:  # 5 of 10 flat: not more than half
        h["test_auc"] = [0.7] * 60
    assert _flags(_report({"M": runs})) == {}
    runs[5]["test_auc"] = [0.7] * 60
    assert _flags(_report({"M": runs}))[("t", "M")]["degenerate"]["n_flat"] == 6


@pytest.mark.parametrize("family, metric, distinct, flagged", [
    ("link_pred", "test_auc", 3.0, True), ("link_pred", "test_auc", float(FEW_DISTINCT), False),
    ("graph_reg", "test_mae", 3.0, True),
    ("graph_cls", "test_acc", 3.0, False),  # a classifier predicting 3 classes is not degenerate
    ("node_cls", "test_acc", 1.0, True),  # one class for every test node
])
def test_few_distinct_test_predictions(family, metric, distinct, flagged):
    meta = {"metric": metric, "direction": "lower" if metric == "test_mae" else "higher", "family": family}
    runs = [{metric: _curve(0.5 + 0.01 * s, 20), "test_distinct": [200.0] * 19 + [distinct]} for s in SEEDS]
    flags = _flags(_report({"M": runs}, meta))
    assert (("t", "M") in flags) is flagged
    if flagged:
        flag = flags[("t", "M")]["degenerate"]
        assert flag["n_few_distinct"] == 10 and flag["n_flat"] == 0 and flag["distinct_median"] == distinct
        assert ("one class predicted" if family == "node_cls" else
                f"fewer than 5 distinct test predictions (median {distinct:g}) (10 seeds)") in flag["reason"]


def test_only_the_reported_epoch_and_the_epochs_before_it_count():
    # flat up to the epoch best_val selects, moving after it; few distinct values only after it
    runs = [{"val_auc": [0.9] + [0.5] * 19, "test_auc": [0.6] * 10 + _curve(0.61, 10),
             "test_distinct": [300.0] + [2.0] * 19} for _ in SEEDS]
    assert _flags(_report({"M": runs}, epoch_selection="final"))[("t", "M")]["degenerate"]["n_few_distinct"] == 10
    assert _flags(_report({"M": runs}, epoch_selection="best_val")) == {}  # one evaluation up to epoch 1
    assert not headline_flat([0.5], 0) and not headline_flat([0.5, float("nan")], 1)
    assert headline_flat([0.5, 0.5 + 1e-9, 0.7], 1) and not headline_flat([0.5, 0.5 + 1e-9, 0.7], 2)
    assert few_distinct([2.0], 0, False) == 2.0 and few_distinct(None, 0, False) is None
    assert few_distinct([float("nan")], 0, False) is None


def test_missing_seeds_are_not_counted():
    runs = _ising_mlp_like()
    runs[0] = runs[1] = None  # failed seeds: 7 of the 8 with a history are flat
    rows = degenerate({"t": {"M": runs}}, {"t": {"M": [None, None] + [59] * 8}},
                      {"t": _report({"M": runs}).task_info["t"]})
    assert [(r["n_degenerate"], r["n_seeds"]) for r in rows] == [(7, 8)]


def test_leakage_rows_name_the_channels_and_count_ok_seeds():
    cells = {"t": {"GCN": {"seeds": {"0": {"status": "ok", "leakage": ["structural_features"]},
                                     "1": {"status": "ok", "leakage": ["message_passing", "structural_features"]},
                                     "2": {"status": "ok", "leakage": []},
                                     "3": {"status": "failed", "leakage": ["train_negatives"]}}},
                   "CN": {"seeds": {"0": {"status": "ok", "leakage": []}}},
                   "old": {"seeds": {"0": {"status": "ok"}}}}}  # recorded before the guard: nothing to say
    (row,) = leakage(cells)
    assert row["model"] == "GCN" and row["channels"] == ["structural_features", "message_passing"]
    assert (row["n_leaking"], row["n_seeds"]) == (2, 3)
    assert row["reason"] == "sees held-out edges (structural_features, message_passing) in 2 of 3 seeds"


# ----------------------------------------------------------------- through the report stage, from records

def _record(task, model, values, *, leak, flat=False, kind=None, epochs=5):
    seeds = {}
    for s, v in enumerate(values):
        curve = [v] * epochs if flat else [v - 0.01 * (epochs - 1 - e) for e in range(epochs)]
        seeds[str(s)] = {"status": "ok", "epochs": list(range(1, epochs + 1)), "seconds": 1.0, "num_params": 1,
                         "peak_rss_mb": 1.0, "baseline": {"test_constant_auc": 0.5},
                         "split": {"redrawn": True, "n_train": 80, "n_test": 10},
                         "leakage": ["structural_features"] if leak else [],
                         "history": {"train_loss": [0.5] * epochs, "val_auc": curve, "test_auc": curve,
                                     "test_constant": [0.0] * epochs, "test_distinct": [20.0] * epochs}}
    rec = {"schema_version": 1, "task": task, "family": "link_pred", "category": "computing", "model": model,
           "model_ref": model, "role": "roster", "headline_metric": "test_auc", "direction": "higher",
           "hyperparameters": {"hidden_channels": 8, "lr": 0.01, "weight_decay": 0.0, "epochs": epochs,
                               "eval_every": 1},
           "config_hash": "c", "data_hash": "d", "code_version": "v", "threads": 1, "software": {}, "status": "ok",
           "seeds": seeds}
    if kind:
        rec["baseline_kind"] = kind
    return rec


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """A report stage over records: GCN and MLP see held-out edges through the structural features,
    the heuristic does not; GAT's test AUC never moves."""
    root = tmp_path_factory.mktemp("flags")
    cells = {"GCN": _record("internet_as", "GCN", [0.96, 0.97, 0.965, 0.968], leak=True),
             "GAT": _record("internet_as", "GAT", [0.66, 0.65, 0.67, 0.64], leak=False, flat=True),
             "MLP": _record("internet_as", "MLP", [0.94, 0.952, 0.941, 0.95], leak=True, kind="structure_free"),
             "CommonNeighbors": _record("internet_as", "CommonNeighbors", [0.70, 0.69, 0.71, 0.70], leak=False,
                                        kind="heuristic", epochs=1)}
    for model, rec in cells.items():
        write_record(root / f"metrics/runs/internet_as/{model}.json", rec)
    params = make_params(tasks=["internet_as"], models=list(cells), seeds=[0, 1, 2, 3], protocol="paper",
                         train={"epochs": {"internet_as": 5}})
    metrics = run_report_stage(as_settings(params), root=root)
    return root, metrics


def test_report_json_carries_each_cells_flags(published):
    root, metrics = published
    on_disk = json.loads((root / "metrics/report.json").read_text())
    assert on_disk == json.loads(json.dumps(metrics))
    cells = on_disk["cells"]["internet_as"]
    assert cells["GCN"]["flags"] == {"leakage": {"reason": "sees held-out edges (structural_features) in 4 of 4 seeds",
                                                 "n_flagged": 4, "n_seeds": 4, "channels": ["structural_features"]}}
    assert list(cells["GAT"]["flags"]) == ["degenerate"] and cells["GAT"]["flags"]["degenerate"]["n_flat"] == 4
    assert cells["CommonNeighbors"]["flags"] == {}
    assert on_disk["leaking_cells"] == ["internet_as/GCN", "internet_as/MLP"]
    assert on_disk["degenerate_cells"] == ["internet_as/GAT"] and on_disk["collapsed_cells"] == []


def test_report_md_marks_the_row_lists_the_reasons_and_flags_the_verdict(published):
    root, _ = published
    md = (root / "reports/REPORT.md").read_text()
    section2 = md[md.index("## 2."):md.index("## 3.")]
    (row,) = [line for line in section2.splitlines() if line.startswith("| computing | `internet_as`")]
    gcn, gat = row.strip("| ").split(" | ")[5:7]
    assert gcn.endswith("⊗") and gat.endswith("≡") and "⊗" not in gat
    assert "- `internet_as` GCN and MLP: ⊗ sees held-out edges (structural_features) in 4 of 4 seeds." in section2
    assert "- `internet_as` GAT: ≡ degenerate in 4 of 4 seeds: test ROC-AUC the same at every evaluated epoch" \
           in section2
    assert "⊗: **sees held-out edges**" in section2
    (verdict,) = [line for line in section2.splitlines() if line.startswith("| `internet_as` | GCN (")]
    assert verdict.rstrip(" |").endswith("| **yes** (flagged: GCN and MLP — sees held-out edges "
                                         "(structural_features))")
    assert "`internet_as` (GCN vs MLP; flagged: GCN and MLP — sees held-out edges (structural_features))" in section2
    assert section2.index("- `internet_as` GCN and MLP") < section2.index("- `internet_as` GAT")  # roster order


def test_benchmark_json_keeps_the_flags(published):
    root, metrics = published
    path = root / "reports/benchmark.json"
    again = BenchmarkReport.from_json(path)  # the file and its histories beside it
    text, sidecar = split(again.to_dict(), path.name)
    assert text + "\n" == path.read_text() and sidecar == (root / "reports/benchmark.histories.json.gz").read_bytes()
    facts = collect_facts(again, None, again.models)
    assert {k: v for k, v in facts.flags.items()} == {
        ("internet_as", m): metrics["cells"]["internet_as"][m]["flags"] for m in ("GCN", "GAT", "MLP")}
    checked = read_benchmark(path)  # netzbench verify's reading accepts the new facts and series
    assert collect_facts(checked, None, checked.models).flags == facts.flags


@pytest.mark.parametrize("edit, message", [
    (lambda seed: seed.update(leakage="structural_features"), "is not a list of channel names"),
    (lambda seed: seed.update(split={"redrawn": 1, "n_train": 8, "n_test": 2}), "split"),
    (lambda seed: seed.update(split={"redrawn": True, "n_train": -1, "n_test": 2}), "split"),
])
def test_verify_refuses_malformed_design_facts(published, tmp_path, edit, message):
    root, _ = published
    form = read_form(root / "reports/benchmark.json")
    edit(form["cells"]["internet_as"]["GCN"]["seeds"]["0"])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(form))
    with pytest.raises(VerifyError, match=message):
        read_benchmark(bad)
    form["histories"]["internet_as"]["GCN"][0]["test_distinct"][0] = -1.0
    (tmp_path / "worse.json").write_text(json.dumps(read_form(root / "reports/benchmark.json")
                                                    | {"histories": form["histories"]}))
    with pytest.raises(VerifyError, match="test_distinct holds -1.0"):
        read_benchmark(tmp_path / "worse.json")


# --------------------------------------------------------------------- what the node and graph trainers record

HP = {"hidden_channels": 8, "lr": 0.01, "weight_decay": 0.0, "epochs": 3, "eval_every": 1}


def _node_arrays(mask_columns=None):
    rng = np.random.default_rng(0)
    n = 40
    y = np.arange(n) % 3
    src = rng.integers(0, n, 120)
    dst = rng.integers(0, n, 120)
    arrays = {"x": rng.random((n, 4)).astype(np.float32), "edge_index": np.stack([src, dst]), "y": y,
              "num_nodes": np.array([n])}
    part = np.arange(n) % 4  # 0, 1: train, 2: val, 3: test
    masks = [part <= 1, part == 2, part == 3]
    if mask_columns:
        masks = [np.stack([np.roll(m, c) for c in range(mask_columns)], axis=1) for m in masks]
    arrays.update(train_mask=masks[0], val_mask=masks[1], test_mask=masks[2])
    return arrays


@pytest.mark.parametrize("columns, node_split, redrawn", [(None, "public", False), (3, "public", True),
                                                          (None, "random", True)])
def test_node_classification_records_its_split_design_and_distinct_classes(columns, node_split, redrawn):
    arrays = _node_arrays(columns)
    res = fit_seed(resolve_model("GCN"), "node_cls", "dataset_masks", arrays, 1, {**HP, "node_split": node_split})
    split = res["split"]
    assert split["redrawn"] is redrawn and res["leakage"] == []
    if node_split == "public":
        assert (split["n_train"], split["n_test"]) == (20, 10)
    else:
        assert split["n_train"] > 0 and split["n_test"] > 0 and split["n_train"] + split["n_test"] <= 40
    distinct, constant = res["history"]["test_distinct"], res["history"]["test_constant"]
    assert all(1 <= d <= 3 for d in distinct)  # classes predicted among three
    assert all((d == 1) == (c == 1) for d, c in zip(distinct, constant))


def _graph_arrays(n_graphs=40, split=False):
    rng = np.random.default_rng(1)
    sizes = rng.integers(4, 8, n_graphs)
    eis = [np.array([[i, i + 1] for i in range(s - 1)] + [[i + 1, i] for i in range(s - 1)]).T for s in sizes]
    arrays = {"x": rng.random((sizes.sum(), 3)).astype(np.float32), "edge_index": np.concatenate(eis, axis=1),
              "node_ptr": np.concatenate([[0], np.cumsum(sizes)]),
              "edge_ptr": np.concatenate([[0], np.cumsum([e.shape[1] for e in eis])])}
    if split:
        arrays["split"] = np.arange(n_graphs) % 5 // 2  # 0, 0, 1, 1, 2: 16 train, 16 val, 8 test
    return arrays, sizes


@pytest.mark.parametrize("family, split, protocol, expected", [
    ("graph_cls", "random_graph_80_10_10", {"graph_split": "80_10_10"}, (True, 32, 4)),
    ("graph_cls", "random_graph_80_10_10", {"graph_split": "80_20"}, (True, 32, 8)),
    ("graph_reg", "dataset_split", {}, (False, 16, 8)),
])
def test_graph_level_records_its_split_design_and_distinct_predictions(family, split, protocol, expected):
    arrays, sizes = _graph_arrays(split=split == "dataset_split")
    arrays["y"] = (sizes > 5).astype(np.int64) if family == "graph_cls" else sizes.astype(np.float32)
    res = fit_seed(resolve_model("GCN"), family, split, arrays, 0, HP, protocol=protocol)
    assert (res["split"]["redrawn"], res["split"]["n_train"], res["split"]["n_test"]) == expected
    distinct = res["history"]["test_distinct"]
    assert len(distinct) == 3 and all(1 <= d <= expected[2] for d in distinct)
    if family == "graph_reg":  # a regression's predicted values: distinct per test graph unless collapsed
        assert distinct[-1] > 1
    again = fit_seed(resolve_model("GCN"), family, split, arrays, 0, HP, protocol=protocol)
    assert again["history"] == res["history"] and again["split"] == res["split"]


def test_cells_worse_than_the_constant_predictor_are_in_report_json_and_report_md(tmp_path):
    """The facts object lists them once: metrics/report.json names the cell and REPORT.md gives both numbers."""
    cells = {"GCN": _record("internet_as", "GCN", [0.40, 0.41, 0.39, 0.40], leak=False),
             "GAT": _record("internet_as", "GAT", [0.66, 0.65, 0.67, 0.64], leak=False)}
    for model, rec in cells.items():
        write_record(tmp_path / f"metrics/runs/internet_as/{model}.json", rec)
    params = make_params(tasks=["internet_as"], models=list(cells), seeds=[0, 1, 2, 3], protocol="paper",
                         train={"epochs": {"internet_as": 5}})
    metrics = run_report_stage(as_settings(params), root=tmp_path)
    assert metrics["below_constant_cells"] == ["internet_as/GCN"]
    md = (tmp_path / "reports/REPORT.md").read_text()
    assert "**Worse than the constant predictor**" in md and "`internet_as` GCN (0.400 against 0.500)" in md
    assert "GAT (0.6" not in md.split("**Worse than the constant predictor**")[1].split("\n\n")[0]
