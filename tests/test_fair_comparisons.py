"""Fair comparisons: `train.param_budget` (each model's width sized to a parameter budget) and
`train.node_split` (random 20/30-per-class node splits per seed, Shchur et al. 2018)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import yaml
from torch_geometric.data import Data

from netzbench import run_benchmark, task_from_dataset
from netzbench.catalog.data import fetch_task
from netzbench.graphs.layout import task_arrays
from netzbench.models.registry import build_model, resolve_model
from netzbench.params import ParamsError, load_params
from netzbench.records import validate_record
from netzbench.run.execute import train_cell
from netzbench.run.plan import plan_cell
from netzbench.training import node as node_training
from netzbench.training.budget import BudgetError, parameter_count, width_for_budget
from netzbench.training.seed import fit_seed
from netzbench.training.splits import random_node_split

from helpers import as_settings, REPO, make_params

QUIET = {"progress": False}


def _real_count(spec, family, i, w, o, num_relations=None):
    """Parameters of the model really built (on the CPU), as training counts them."""
    return sum(p.numel() for p in build_model(spec, family, i, w, o, num_relations=num_relations).parameters())


# ---------------------------------------------------------------------------------------------- budget


@pytest.mark.parametrize("model, family, in_dim, out_dim, num_relations, budget", [
    ("GCN", "node_cls", 1433, 7, None, 100_000),
    ("MLP", "node_cls", 1433, 7, None, 100_000),
    ("GAT", "node_cls", 500, 3, None, 100_000),       # 8 heads of `width` channels each
    ("GraphSAGE", "link_pred", 3, None, None, 20_000),  # embeddings as wide as the hidden layer
    ("GraphTransformer", "graph_reg", 7, 1, None, 50_000),
    ("GIN", "graph_cls", 7, 2, None, 100_000),
    ("GCN", "link_pred", 3, None, 237, 30_000),      # relational: DistMult's relation vectors count too
])
def test_the_width_is_the_largest_that_fits_the_budget(model, family, in_dim, out_dim, num_relations, budget):
    spec = resolve_model(model)

    def make(w):
        return build_model(spec, family, in_dim, w, w if out_dim is None else out_dim, num_relations=num_relations)

    width, count = width_for_budget(make, budget, model)
    out = (lambda w: w) if out_dim is None else (lambda w: out_dim)
    assert count == _real_count(spec, family, in_dim, width, out(width), num_relations) <= budget
    assert _real_count(spec, family, in_dim, width + 1, out(width + 1), num_relations) > budget
    assert parameter_count(make, width) == count  # the meta-device count is the real one


def test_a_budget_below_width_one_or_a_width_blind_model_is_a_clear_error():
    spec = resolve_model("GCN")
    with pytest.raises(BudgetError, match="already at hidden width 1"):
        width_for_budget(lambda w: build_model(spec, "node_cls", 1433, w, 7), 1000, "GCN")

    class Fixed(torch.nn.Module):
        def __init__(self, i, h, o):
            super().__init__()
            self.lin = torch.nn.Linear(i, o)

    with pytest.raises(BudgetError, match="does not grow with its hidden width"):
        width_for_budget(lambda w: Fixed(4, w, 2), 1000, "Fixed")


def _node_arrays(n_per_class=(70, 60, 55), n_features=8, seed=0):
    """A small node-classification graph: classes of the given sizes, features carrying the class."""
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.full(c, k) for k, c in enumerate(n_per_class)]).astype(np.int64)
    n = len(y)
    x = rng.normal(size=(n, n_features)).astype(np.float32) + y[:, None].astype(np.float32)
    src = rng.integers(0, n, 4 * n)
    dst = np.where(rng.random(4 * n) < 0.8, [rng.choice(np.flatnonzero(y == y[s])) for s in src],
                   rng.integers(0, n, 4 * n))
    ei = np.stack([src, dst])
    ei = np.concatenate([ei, ei[::-1]], axis=1)
    return {"x": x, "edge_index": ei, "y": y, "num_nodes": np.array([n])}


HP = {"hidden_channels": 16, "lr": 0.01, "weight_decay": 0.0, "epochs": 3, "eval_every": 1}


@pytest.mark.parametrize("model", ["GCN", "GAT"])
def test_a_budgeted_seed_records_its_width_and_trains_exactly_that_width(model):
    arrays = _node_arrays()
    spec = resolve_model(model)
    res = fit_seed(spec, "node_cls", "stratified_per_seed_50_25_25", arrays, 0, {**HP, "param_budget": 3000})
    width = res["hidden_channels"]
    assert res["num_params"] == _real_count(spec, "node_cls", 8, width, 3) <= 3000
    assert _real_count(spec, "node_cls", 8, width + 1, 3) > 3000
    # the width search draws no random numbers: the same run as asking for that width directly
    plain = fit_seed(spec, "node_cls", "stratified_per_seed_50_25_25", arrays, 0, {**HP, "hidden_channels": width})
    assert plain["hidden_channels"] == width and plain["history"] == res["history"]
    # without a budget the configured width is used and recorded
    assert fit_seed(spec, "node_cls", "stratified_per_seed_50_25_25", arrays, 0, HP)["hidden_channels"] == 16


def test_a_heuristic_ignores_the_budget():
    """A model without parameters (``heuristic = True``) is scored as it is, whatever the budget."""
    rng = np.random.default_rng(0)
    ei = rng.integers(0, 40, (2, 160))
    arrays = {"edge_index": ei[:, ei[0] != ei[1]], "num_nodes": np.array([40])}
    res = fit_seed(resolve_model("CommonNeighbors"), "link_pred", "random_edge_80_10_10", arrays, 0,
                   {**HP, "param_budget": 1})
    assert res["status"] == "ok" and res["hidden_channels"] is None and res["num_params"] == 0


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_budget_end_to_end_through_the_pipeline_record(workdir):
    """`netzbench train`'s path (plan -> worker processes -> record) on an offline node task and a
    synthetic link task: every seed records its width and count, within the budget."""
    budget = 5000
    p = make_params(tasks=["karate", "random_tsp"], seeds=[0, 1], train={"param_budget": budget})
    for task in ("karate", "random_tsp"):
        fetch_task(task, as_settings(p), "data")
    widths = {}
    for task, model in (("karate", "GCN"), ("karate", "GAT"), ("random_tsp", "GraphSAGE")):
        rec = train_cell(task, model, as_settings(p), f"{task}_{model}.json", **QUIET)
        validate_record(rec)
        assert rec["status"] == "ok" and rec["hyperparameters"]["param_budget"] == budget
        for entry in rec["seeds"].values():
            assert isinstance(entry["hidden_channels"], int) and 0 < entry["num_params"] <= budget
        widths[model] = rec["seeds"]["0"]["hidden_channels"]
        assert {e["hidden_channels"] for e in rec["seeds"].values()} == {widths[model]}  # same task, same width
    assert widths["GAT"] < widths["GCN"]  # GAT spends its budget on 8 heads: a narrower width per head
    # the split is recorded with the hyperparameters of a node task (karate's classes are small: see
    # test_a_small_class_keeps_a_test_node_and_splits_the_rest_20_to_30)
    rand = make_params(tasks=["karate"], seeds=[0], train={"param_budget": budget, "node_split": "random"})
    rec = train_cell("karate", "GCN", as_settings(rand), "karate_random.json", **QUIET)
    validate_record(rec)
    assert rec["status"] == "ok" and rec["hyperparameters"]["node_split"] == "random"
    assert "node_split" not in train_cell("random_tsp", "GraphSAGE", as_settings(p), "again.json", **QUIET)["hyperparameters"]


def test_budget_end_to_end_through_the_api_on_graph_tasks(tmp_path):
    rep = run_benchmark(models={"GCN": "GCN", "GIN": "GIN"}, tasks=["synthetic_triangles"], seeds=[0], epochs=2,
                        param_budget=20_000, data_root=tmp_path, progress=False)
    arrays = task_arrays(tmp_path / "synthetic_triangles", 0)
    in_dim, out_dim = arrays["x"].shape[1], arrays["y"].shape[1]
    for model in ("GCN", "GIN"):
        entry = rep.cells["synthetic_triangles"][model]["seeds"]["0"]
        spec = resolve_model(model)
        assert entry["status"] == "ok"
        assert entry["num_params"] == _real_count(spec, "graph_reg", in_dim, entry["hidden_channels"], out_dim) <= 20_000
        assert _real_count(spec, "graph_reg", in_dim, entry["hidden_channels"] + 1, out_dim) > 20_000


def _keys(task, params, model="GCN"):
    return plan_cell(task, model, as_settings(params)).keys


def test_the_budget_and_the_split_are_part_of_result_identity(workdir):
    base = make_params(tasks=["karate", "random_tsp"], seeds=[0])
    for task in ("karate", "random_tsp"):
        fetch_task(task, as_settings(base), "data")
    variants = {
        "plain": base,
        "budget_a": make_params(tasks=["karate", "random_tsp"], seeds=[0], train={"param_budget": 5000}),
        "budget_b": make_params(tasks=["karate", "random_tsp"], seeds=[0], train={"param_budget": 6000}),
        "random": make_params(tasks=["karate", "random_tsp"], seeds=[0], train={"node_split": "random"}),
    }
    node = {name: _keys("karate", p)[0, 0] for name, p in variants.items()}
    assert len(set(node.values())) == 4
    assert _keys("karate", base)[0, 0] == node["plain"]  # and stable
    link = {name: _keys("random_tsp", p)[0, 0] for name, p in variants.items()}
    assert link["random"] == link["plain"]  # the node split cannot change a link-prediction result
    assert len({link["plain"], link["budget_a"], link["budget_b"]}) == 3
    # the per-seed cache serves a budgeted seed again, never under another budget
    first = train_cell("random_tsp", "GCN", as_settings(variants["budget_a"]), "a.json", **QUIET)
    again = train_cell("random_tsp", "GCN", as_settings(variants["budget_a"]), "a.json", **QUIET)
    assert again["seeds"]["0"]["cached"] and again["seeds"]["0"]["hidden_channels"] == first["seeds"]["0"]["hidden_channels"]
    other = train_cell("random_tsp", "GCN", as_settings(variants["budget_b"]), "b.json", **QUIET)
    assert not other["seeds"]["0"].get("cached")


# ---------------------------------------------------------------------------------------------- splits


def _counts(mask, y):
    return {int(c): int(mask[y == c].sum()) for c in np.unique(y)}


def test_random_split_takes_20_and_30_per_class_disjoint_reproducible_per_seed():
    y = np.repeat(np.arange(4), [60, 120, 51, 300])
    train, val, test = random_node_split(y, seed=3)
    assert _counts(train, y) == {0: 20, 1: 20, 2: 20, 3: 20}
    assert _counts(val, y) == {0: 30, 1: 30, 2: 30, 3: 30}
    assert _counts(test, y) == {0: 10, 1: 70, 2: 1, 3: 250}
    assert not (train & val).any() and not (train & test).any() and not (val & test).any()
    assert (train | val | test).all()
    again = random_node_split(y, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip((train, val, test), again))
    other = random_node_split(y, seed=4)
    assert not np.array_equal(train, other[0]) and not np.array_equal(val, other[1])


@pytest.mark.parametrize("size, expected", [
    (1, (1, 0, 0)), (2, (1, 0, 1)), (3, (1, 1, 1)), (4, (1, 2, 1)), (5, (2, 2, 1)), (11, (4, 6, 1)),
    (50, (20, 29, 1)), (51, (20, 30, 1)), (52, (20, 30, 2)),
])
def test_a_small_class_keeps_a_test_node_and_splits_the_rest_20_to_30(size, expected):
    y = np.concatenate([np.zeros(size, dtype=int), np.ones(200, dtype=int)])
    masks = random_node_split(y, seed=0)
    assert tuple(int(m[y == 0].sum()) for m in masks) == expected
    assert tuple(int(m[y == 1].sum()) for m in masks) == (20, 30, 150)


def test_unlabelled_nodes_are_in_no_split():
    y = np.array([-1] * 5 + [0] * 60)
    masks = random_node_split(y, seed=0)
    assert not any(m[:5].any() for m in masks) and sum(int(m.sum()) for m in masks) == 60


def _planetoid_like(seed=0):
    """A node task with its own public split (5 training nodes per class), as Planetoid datasets have."""
    a = _node_arrays(seed=seed)
    y = a["y"]
    train = np.zeros(len(y), dtype=bool)
    for c in np.unique(y):
        train[np.flatnonzero(y == c)[:5]] = True
    val = np.zeros(len(y), dtype=bool)
    val[np.flatnonzero(~train)[:30]] = True
    return Data(x=torch.as_tensor(a["x"]), edge_index=torch.as_tensor(a["edge_index"]), y=torch.as_tensor(y),
                train_mask=torch.as_tensor(train), val_mask=torch.as_tensor(val),
                test_mask=torch.as_tensor(~train & ~val))


def test_random_split_end_to_end_same_for_every_model_and_recorded(tmp_path, monkeypatch):
    seen = []  # (seed, node_split, masks) of every seed trained

    def spy(task_split, arrays, seed, node_split="public"):
        masks = real(task_split, arrays, seed, node_split)
        seen.append((seed, node_split, tuple(m.numpy().copy() for m in masks)))
        return masks

    real = node_training.node_masks
    monkeypatch.setattr(node_training, "node_masks", spy)
    task = task_from_dataset("planetoid_like", "node_cls", _planetoid_like(), epochs=3)
    rep = run_benchmark(models={"GCN": "GCN", "GraphSAGE": "GraphSAGE"}, tasks=[task], seeds=[0, 1],
                        node_split="random", data_root=tmp_path, progress=False)
    y = _node_arrays()["y"]
    assert len(seen) == 4 and all(split == "random" for _, split, _ in seen)
    by_seed = {}
    for seed, _, masks in seen:
        assert _counts(masks[0], y) == {0: 20, 1: 20, 2: 20} and _counts(masks[1], y) == {0: 30, 1: 30, 2: 30}
        by_seed.setdefault(seed, []).append(masks)
    for seed, runs in by_seed.items():  # every model of a seed trains on the same split
        assert len(runs) == 2 and all(np.array_equal(a, b) for a, b in zip(*runs))
    assert not np.array_equal(by_seed[0][0][0], by_seed[1][0][0])  # and it changes with the seed
    for model in ("GCN", "GraphSAGE"):
        cell = rep.cells["planetoid_like"][model]
        assert cell["status"] == "ok" and cell["hyperparameters"]["node_split"] == "random"
    # the public split is the dataset's own masks, as before
    seen.clear()
    public = run_benchmark(models={"GCN": "GCN"}, tasks=[task], seeds=[0], data_root=tmp_path, progress=False)
    assert public.cells["planetoid_like"]["GCN"]["hyperparameters"]["node_split"] == "public"
    assert _counts(seen[0][2][0], y) == {0: 5, 1: 5, 2: 5}


# ---------------------------------------------------------------------------------------------- params


def _write(tmp_path, train):
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"tasks": ["cora"], "models": ["GCN"], "train": {"epochs": {"cora": 5}, **train}}))
    return path


@pytest.mark.parametrize("train, message", [
    ({"param_budget": 0}, "`train.param_budget` must be null"),
    ({"param_budget": "100k"}, "`train.param_budget` must be null"),
    ({"param_budget": True}, "`train.param_budget` must be null"),
    ({"node_split": "randm"}, "`train.node_split` must be one of ['public', 'random'], got 'randm' (did you mean 'random'?)"),
    ({"param_budgt": 1000}, "unknown key `train.param_budgt` (did you mean 'param_budget'?)"),
    ({"nodesplit": "random"}, "unknown key `train.nodesplit` (did you mean 'node_split'?)"),
])
def test_bad_values_and_misspelt_keys_stop_with_the_key(tmp_path, train, message):
    with pytest.raises(ParamsError) as err:
        load_params(_write(tmp_path, train))
    assert message in str(err.value)


def test_defaults_and_the_budget_excludes_a_width_search(tmp_path):
    p = load_params(_write(tmp_path, {}))
    assert p["train"]["param_budget"] is None and p["train"]["node_split"] == "public"
    repo = load_params(REPO / "params.yaml")
    assert repo["train"]["param_budget"] is None and repo["train"]["node_split"] == "public"
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"tasks": ["cora"], "models": ["GCN"], "search": {"space": {"hidden_channels": [8]}},
                                    "train": {"epochs": {"cora": 5}, "param_budget": 1000}}))
    with pytest.raises(ParamsError, match="search.space.hidden_channels"):
        load_params(path)
    with pytest.raises(ParamsError, match="run_benchmark argument `param_budget`"):
        run_benchmark(models={"GCN": "GCN"}, tasks=["karate"], seeds=[0], param_budget=-1, progress=False)


def test_both_are_dvc_params_of_the_train_stage():
    params = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]["train"]["params"]
    assert "train.param_budget" in params and "train.node_split" in params


def test_report_shows_each_cells_width_under_a_budget(tmp_path):
    from netzbench.report.markdown.protocol import budget_table

    rep = run_benchmark(models={"GCN": "GCN", "GIN": "GIN"}, tasks=["synthetic_triangles"], seeds=[0, 1], epochs=1,
                        param_budget=20_000, data_root=tmp_path, progress=False)
    lines = budget_table(rep)
    row = next(line for line in lines if "`synthetic_triangles`" in line)
    for model in ("GCN", "GIN"):
        entry = rep.cells["synthetic_triangles"][model]["seeds"]["0"]
        assert f"{entry['hidden_channels']} ({entry['num_params']:,})" in row
