"""Baselines in the roster: MLP, the link heuristics, their records and the report's `report.baselines`."""

import json

import networkx as nx
import numpy as np
import pytest
import torch
from torch_geometric.data import Data

from netzbench import Task, run_benchmark
from netzbench.models.encoders import MLP
from netzbench.models.heuristics import (AdamicAdar, CommonNeighbors, PreferentialAttachment, ResourceAllocation,
                                         training_adjacency)
from netzbench.models.registry import build_model, resolve_model
from netzbench.records import write_record
from netzbench.report import BenchmarkReport
from netzbench.report.stage import run_report_stage
from netzbench.stats import holm, paired_test
from netzbench.training.fit import Hyper
from netzbench.training.link import random_edge_split, train_link_pred
from netzbench.training.relational import train_relational

from helpers import as_settings, make_params

HEURISTICS = {CommonNeighbors: lambda g, pairs: ((u, v, len(list(nx.common_neighbors(g, u, v)))) for u, v in pairs),
              AdamicAdar: nx.adamic_adar_index, ResourceAllocation: nx.resource_allocation_index,
              PreferentialAttachment: nx.preferential_attachment}
HP = Hyper(hidden_channels=8, lr=0.01, weight_decay=0.0, epochs=5)


# ------------------------------------------------------------------------------------------- the scores
@pytest.mark.parametrize("cls", list(HEURISTICS), ids=lambda c: c.__name__)
def test_heuristic_scores_match_networkx(cls):
    g = nx.gnp_random_graph(40, 0.15, seed=3)
    g.add_edge(0, 39)  # a node of degree 1 next to others: Adamic-Adar's 1/log d is then never 1/log 1
    edges = np.array(list(g.edges())).T
    # duplicates, both orientations and a self-loop in the input: the adjacency is the simple graph
    adjacency = training_adjacency(40, np.concatenate([edges, edges[::-1], [[5], [5]]], axis=1))
    pairs = [(u, v) for u in range(40) for v in range(40) if u != v]
    expected = np.array([s for _, _, s in HEURISTICS[cls](g, pairs)])
    heads, tails = np.array(pairs).T
    np.testing.assert_allclose(cls().scores(adjacency, heads, tails), expected, rtol=1e-12)
    # each head with a matrix of candidate tails (the ranking metrics), blocks smaller than the heads
    cand = np.stack([tails, tails[::-1]], axis=1)
    by_pair = dict(zip(pairs, expected))
    want = np.array([[by_pair.get((h, t), np.nan) for t in row] for h, row in zip(heads, cand)])
    ok = np.isfinite(want)
    import netzbench.models.heuristics as H
    old, H.BLOCK_ENTRIES = H.BLOCK_ENTRIES, 40 * 7  # 7 heads per block
    try:
        np.testing.assert_allclose(cls().scores(adjacency, heads, cand)[ok], want[ok], rtol=1e-12)
    finally:
        H.BLOCK_ENTRIES = old


def test_hand_computed_scores_on_a_tiny_graph():
    # 0-1, 0-2, 1-2, 2-3, 1-3: nodes 0 and 3 share neighbours 1 (degree 3) and 2 (degree 3)
    adjacency = training_adjacency(4, np.array([[0, 0, 1, 2, 1], [1, 2, 2, 3, 3]]))
    h, t = np.array([0]), np.array([3])
    assert CommonNeighbors().scores(adjacency, h, t)[0] == 2
    assert AdamicAdar().scores(adjacency, h, t)[0] == pytest.approx(2 / np.log(3))
    assert ResourceAllocation().scores(adjacency, h, t)[0] == pytest.approx(2 / 3)
    assert PreferentialAttachment().scores(adjacency, h, t)[0] == 2 * 2


# ----------------------------------------------------------------------- training edges only
class Spy(CommonNeighbors):
    """A heuristic that remembers the graph it was given."""

    seen: list = []

    def scores(self, adjacency, heads, tails):
        Spy.seen.append(adjacency.copy())
        return super().scores(adjacency, heads, tails)


def _edges_of(adjacency) -> set:
    coo = adjacency.tocoo()
    return {(min(a, b), max(a, b)) for a, b in zip(coo.row.tolist(), coo.col.tolist())}


def test_heuristics_score_from_the_training_edges_only():
    g = nx.gnp_random_graph(60, 0.12, seed=1)
    arrays = {"edge_index": np.array(list(g.edges())).T, "num_nodes": np.array([60])}
    Spy.seen = []
    fit = train_link_pred(lambda i, h, o: Spy(), arrays, 0, HP, protocol={"link_eval_negatives": "uniform"})
    split = random_edge_split(60, arrays["edge_index"], 0)
    train = {tuple(p) for p in split.train_pos.T.tolist()}
    held_out = {tuple(p) for p in np.concatenate([split.val_pos, split.test_pos], axis=1).T.tolist()}
    assert Spy.seen and all(_edges_of(a) == train for a in Spy.seen)  # no held-out edge in the graph
    assert held_out and not held_out & train
    # the test AUC is the one of common neighbours on the training graph alone, not on the whole graph
    g_train = nx.Graph(list(train))
    g_train.add_nodes_from(range(60))
    pairs = [tuple(p) for p in np.concatenate([split.test_pos, split.test_neg], axis=1).T.tolist()]
    cn = np.array([len(list(nx.common_neighbors(g_train, u, v))) for u, v in pairs], dtype=float)
    labels = np.r_[np.ones(split.test_pos.shape[1]), np.zeros(split.test_neg.shape[1])]
    assert fit.history["test_auc"] == [pytest.approx(_auc(cn, labels))]
    leaked = np.array([len(list(nx.common_neighbors(g, u, v))) for u, v in pairs], dtype=float)
    assert _auc(leaked, labels) != pytest.approx(_auc(cn, labels))  # the test can tell a leak
    assert fit.epochs == [1] and fit.num_params == 0 and "train_loss" not in fit.history
    ranks = {f"{s}_{m}" for s in ("val", "test") for m in ("mrr", "hits1", "hits3", "hits10")}
    assert set(fit.history) == {"val_auc", "val_ap", "test_auc", "test_ap", "test_constant", "test_distinct"} | ranks


def _auc(scores, labels):
    pos, neg = scores[labels == 1], scores[labels == 0]
    return float(((pos[:, None] > neg[None]).sum() + 0.5 * (pos[:, None] == neg[None]).sum()) / (pos.size * neg.size))


def _relational_arrays(n=50, seed=0):
    rng = np.random.default_rng(seed)
    out = {"num_nodes": np.array([n]), "num_relations": np.array([3])}
    for part, m in (("train", 300), ("valid", 40), ("test", 40)):
        out[f"{part}_edge_index"] = rng.integers(0, n, (2, m))
        out[f"{part}_edge_type"] = rng.integers(0, 3, m)
    return out


def test_relational_heuristic_uses_training_triples_and_ranks_like_the_trainer():
    arrays = _relational_arrays()
    Spy.seen = []
    fit = train_relational(lambda i, h, o: Spy(), arrays, 0, HP, protocol={"relational_held_out_overlap": "keep"})
    train = {(min(a, b), max(a, b)) for a, b in arrays["train_edge_index"].T.tolist() if a != b}
    assert all(_edges_of(a) == train for a in Spy.seen)  # relations and directions ignored, held-out unseen
    keys = {f"{s}_{m}" for s in ("val", "test") for m in ("auc", "ap", "mrr", "hits1", "hits3", "hits10")}
    full = {f"test_full_{m}" for m in ("mrr", "hits1", "hits3", "hits10")}  # relational_ranking: full (strict)
    assert set(fit.history) == keys | full | {"test_constant", "test_distinct"} and fit.epochs == [1]
    assert all(0.0 <= fit.history[k][0] <= 1.0 for k in keys | full)


# ------------------------------------------------------------------------------------------------- MLP
def test_mlp_ignores_edges_and_serves_every_family():
    torch.manual_seed(0)
    x = torch.randn(12, 5)
    ring = torch.stack([torch.arange(12), (torch.arange(12) + 1) % 12])
    full = torch.combinations(torch.arange(12)).T
    mlp = MLP(5, 16, 3)
    out = mlp(x, ring)
    assert out.shape == (12, 3) and torch.equal(out, mlp(x, full)) and torch.equal(out, mlp(x, ring[:, :0]))
    assert torch.allclose(mlp(x.to_sparse_csr(), ring), out, atol=1e-6)  # sparse_input: same function
    mlp.reset_parameters()
    assert not torch.equal(mlp(x, ring), out) and sum(p.numel() for p in mlp.parameters()) == 5 * 16 + 16 + 16 * 3 + 3
    spec = resolve_model("MLP")
    assert spec.baseline == "structure_free" and spec.builtin
    batch = torch.zeros(12, dtype=torch.long)
    graph = build_model(spec, "graph_cls", 5, 16, 2)
    assert torch.equal(graph(x, ring, batch), graph(x, full, batch))
    link = build_model(spec, "link_pred", 5, 16, 16)
    assert torch.equal(link(x, ring), link(x, full))
    for name in ("CommonNeighbors", "AdamicAdar", "ResourceAllocation", "PreferentialAttachment"):
        h = resolve_model(name)
        assert h.baseline == "heuristic" and h.task_types == {"link_pred"}
        assert build_model(h, "link_pred", 5, 16, 16).heuristic
    assert resolve_model("GCN").baseline is None


# -------------------------------------------------------------------------------------------- end to end
def _kg_loader(_root):
    a = _relational_arrays(n=40, seed=1)
    data = Data(num_nodes=40, num_relations=3)
    for part in ("train", "valid", "test"):
        data[f"{part}_edge_index"] = torch.as_tensor(a[f"{part}_edge_index"])
        data[f"{part}_edge_type"] = torch.as_tensor(a[f"{part}_edge_type"])
    return data


def test_end_to_end_with_mlp_and_heuristics(tmp_path):
    kg = Task("tiny_kg", "link_pred", _kg_loader, epochs=3)
    models = {m: m for m in ("GCN", "MLP", "CommonNeighbors", "ResourceAllocation")}
    rep = run_benchmark(models=models, tasks=["random_tsp", "karate", kg], seeds=[0, 1, 2], epochs=3,
                        data_root=tmp_path, progress=False)
    assert rep.baseline_models() == {"MLP": "structure_free", "CommonNeighbors": "heuristic",
                                     "ResourceAllocation": "heuristic"}
    assert set(rep.histories["karate"]) == {"GCN", "MLP"}  # heuristics are incompatible with node_cls
    for task in ("random_tsp", "tiny_kg"):
        assert set(rep.histories[task]) == set(models)
        fm = rep.final_metrics()[task]
        assert all(np.isfinite(fm[m]).all() for m in models)
        for h in ("CommonNeighbors", "ResourceAllocation"):
            facts = rep.cells[task][h]
            assert facts["baseline_kind"] == "heuristic"
            assert all(s["epochs"] == [1] and s["num_params"] == 0 for s in facts["seeds"].values())
        assert set(rep.histories[task]["GCN"][0]) - set(rep.histories[task]["CommonNeighbors"][0]) == {"train_loss"}
    assert "test_mrr" in rep.histories["tiny_kg"]["ResourceAllocation"][0]
    # separate (default): the ranks cover the models under test only; include: every complete model
    assert rep.ranked_models == ["GCN"] and rep.rank_table()[1] == ["GCN"]
    rep.baseline_mode = "include"
    tasks, ranked, _, excluded = rep.rank_table()
    assert ranked == ["GCN", "MLP"] and set(excluded) == {"CommonNeighbors", "ResourceAllocation"}
    assert "incompatible" in excluded["CommonNeighbors"] or "no cell" in excluded["CommonNeighbors"]
    rows = {r["task"]: r for r in rep.baseline_comparison()}
    assert rows["karate"]["best_baseline"] == "MLP" and rows["karate"]["verdict"] in (
        "gnn_better", "baseline_better", "not_significant")


# ------------------------------------------------------------------------------------------------ report
S = 6
GNNS = ["GCN", "GAT"]
BASE = {"MLP": "structure_free", "CommonNeighbors": "heuristic"}
#: task -> family, metric, and each model's mean (None: incompatible)
DESIGN = {
    "cora": ("node_cls", "test_acc", {"GCN": 0.80, "GAT": 0.70, "MLP": 0.60, "CommonNeighbors": None}),
    "karate": ("node_cls", "test_acc", {"GCN": 0.60, "GAT": 0.55, "MLP": 0.60, "CommonNeighbors": None}),
    "random_tsp": ("link_pred", "test_auc", {"GCN": 0.70, "GAT": 0.72, "MLP": 0.65, "CommonNeighbors": 0.90}),
}


def _write_records(root):
    rng = np.random.default_rng(0)
    for task, (family, metric, means) in DESIGN.items():
        for model, mean in means.items():
            if mean is None:
                seeds = {str(s): {"status": "incompatible", "reason": f"{model} does not serve {family}"}
                         for s in range(S)}
            else:
                seeds = {}
                for s in range(S):
                    v = float(mean + rng.normal(0, 0.01))
                    seeds[str(s)] = {"status": "ok", "epochs": [1], "seconds": 1.0, "num_params": 0,
                                     "peak_rss_mb": 1.0,
                                     "history": {metric.replace("test", "val"): [v], metric: [v]}}
            record = {"schema_version": 1, "task": task, "family": family, "model": model, "model_ref": model,
                      "model_args": {}, "role": "roster", "headline_metric": metric, "direction": "higher",
                      "hyperparameters": {"hidden_channels": 8, "lr": 0.01, "weight_decay": 0.0, "epochs": 1,
                                          "eval_every": 1},
                      "config_hash": "x", "data_hash": "y", "code_version": "z", "threads": 1, "software": {},
                      "status": "ok" if mean is not None else "incompatible", "seeds": seeds,
                      "baseline_kind": BASE.get(model)}
            write_record(root / "metrics/runs" / task / f"{model}.json", record)


def _stage(root, mode):
    params = make_params(tasks=list(DESIGN), models=GNNS + list(BASE), seeds=list(range(S)),
                         train={"epochs": {t: 1 for t in DESIGN}}, report={"baselines": mode})
    return run_report_stage(as_settings(params), root=root)


def test_report_separate_keeps_baselines_out_of_the_ranks(tmp_path):
    _write_records(tmp_path)
    metrics = _stage(tmp_path, "separate")
    assert set(metrics["mean_ranks"]) == set(GNNS) and metrics["k"] == 2
    assert metrics["baselines"]["mode"] == "separate" and metrics["baselines"]["models"] == BASE
    per_task = metrics["baselines"]["per_task"]
    assert per_task["cora"]["verdict"] == "gnn_better" and per_task["cora"]["rewards_structure"] is True
    assert per_task["karate"]["best_baseline"] == "MLP" and per_task["karate"]["rewards_structure"] is False
    assert per_task["random_tsp"]["verdict"] == "baseline_better"
    assert per_task["random_tsp"]["best_baseline"] == "CommonNeighbors"
    assert per_task["random_tsp"]["structure_free"] == "MLP" and per_task["random_tsp"]["rewards_structure"] is True
    md = (tmp_path / "reports/REPORT.md").read_text()
    section2 = md.split("## 2.")[1].split("## 3.")[0]
    header = next(line for line in section2.splitlines() if line.startswith("| category |"))
    assert header.endswith("| GCN | GAT |")  # the models under test only
    assert "### Baselines" in section2 and "| task | metric | MLP | CommonNeighbors |" in section2
    assert "### Does the best GNN beat the best baseline?" in section2
    assert "`karate`: the best GNN (GCN) does not beat the structure-free MLP significantly" in section2
    assert "**the task does not reward structure**" in section2
    assert "`cora`: the best GNN" not in section2
    assert "Baselines left out of the across-task analysis (`report.baselines: separate`): MLP and CommonNeighbors" in md
    again = BenchmarkReport.from_json(tmp_path / "reports/benchmark.json")
    assert again.baseline_mode == "separate" and again.baseline_models() == BASE
    assert again.ranked_models == GNNS
    # the pairwise tests (and their Holm families) compare the models under test only
    assert {r["model_a"] for r in again.pairwise()} | {r["model_b"] for r in again.pairwise()} == set(GNNS)
    assert {r["model_a"] for r in again.equivalence()} <= set(GNNS)


def test_report_include_ranks_complete_baselines(tmp_path):
    _write_records(tmp_path)
    metrics = _stage(tmp_path, "include")
    assert set(metrics["mean_ranks"]) == {"GCN", "GAT", "MLP"} and metrics["k"] == 3
    assert "CommonNeighbors" in metrics["excluded_from_ranks"]
    assert "incompatible" in metrics["excluded_from_ranks"]["CommonNeighbors"]
    md = (tmp_path / "reports/REPORT.md").read_text()
    header = next(line for line in md.splitlines() if line.startswith("| category |"))
    assert header.endswith("| GCN | GAT | MLP ° | CommonNeighbors ° |")
    assert "**CommonNeighbors** — no result on cora, karate" in md
    assert "| task | metric | MLP | CommonNeighbors |" not in md  # no separate block
    assert "`karate`: the best GNN (GCN) does not beat the structure-free MLP significantly" in md
    again = BenchmarkReport.from_json(tmp_path / "reports/benchmark.json")
    assert again.baseline_mode == "include"
    assert "MLP" in {r["model_a"] for r in again.pairwise()} | {r["model_b"] for r in again.pairwise()}


def test_verdict_is_the_paired_test_of_the_best_against_the_best(tmp_path):
    _write_records(tmp_path)
    rep = BenchmarkReport.from_runs(tmp_path / "metrics/runs", tasks=list(DESIGN), models=GNNS + list(BASE),
                                    seeds=list(range(S)), params=None)
    final = rep.final_metrics()
    rows = {r["task"]: r for r in rep.baseline_comparison()}
    # random_tsp: best GNN GAT against the best baseline CommonNeighbors, and against MLP; Holm over both
    main = paired_test(final["random_tsp"]["GAT"], final["random_tsp"]["CommonNeighbors"])
    free = paired_test(final["random_tsp"]["GAT"], final["random_tsp"]["MLP"])
    adjusted = holm([main.p_value, free.p_value])
    r = rows["random_tsp"]
    assert (r["best_gnn"], r["best_baseline"]) == ("GAT", "CommonNeighbors")
    assert r["p_raw"] == pytest.approx(main.p_value) and r["p_holm"] == pytest.approx(adjusted[0])
    assert r["structure_p_holm"] == pytest.approx(adjusted[1])
    assert r["mean_diff"] == pytest.approx(main.mean_diff) and r["mean_diff"] < 0
    # karate: MLP is the best baseline and structure-free: one test, no Holm partner
    k = rows["karate"]
    single = paired_test(final["karate"]["GCN"], final["karate"]["MLP"])
    assert k["p_holm"] == pytest.approx(single.p_value) and k["structure_p_holm"] == k["p_holm"]
    assert k["verdict"] == "not_significant" and k["rewards_structure"] is False
    with pytest.raises(ValueError, match="baseline_mode must be one of"):
        rep.baseline_mode = "both"
    with pytest.raises(Exception, match="report.baselines"):
        make_params(report={"baselines": "both"})


def test_record_carries_the_baseline_kind(tmp_path):
    from netzbench.run.plan import plan_cell

    class MyBaseline(torch.nn.Module):
        baseline = True

        def __init__(self, i, h, o):
            super().__init__()
            self.lin = torch.nn.Linear(i, o)

        def forward(self, x, edge_index):
            return self.lin(x)

    rep = run_benchmark(models={"Mine": MyBaseline, "GCN": "GCN"}, tasks=["karate"], seeds=[0], epochs=2,
                        data_root=tmp_path, progress=False)
    assert rep.baseline_models() == {"Mine": "baseline"} and rep.ranked_models == ["GCN"]
    plan = plan_cell("karate", "CommonNeighbors", as_settings(make_params(tasks=["karate"])), data_root=tmp_path)
    assert plan.outcome == "incompatible" and plan.record["baseline_kind"] == "heuristic"
    assert json.loads(json.dumps(plan.finish().to_dict()))["baseline_kind"] == "heuristic"
