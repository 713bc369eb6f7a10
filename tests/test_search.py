"""The inner hyperparameter search: selection on validation only, traces, exact no-op when empty."""

import pytest

from netzbench.catalog.data import fetch_task
from netzbench.params import ParamsError
from netzbench.run.execute import train_cell
from netzbench.training.search import select, trials

from helpers import as_settings, logged, make_params


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fetch_task("karate", as_settings(make_params()), "data")
    return tmp_path


def _hist(rec):
    return {s: e["history"] for s, e in rec["seeds"].items()}


def test_empty_space_is_exactly_the_unsearched_protocol(workdir, monkeypatch, tmp_path_factory):
    base = make_params(tasks=["karate"], seeds=[0, 1])
    plain = train_cell("karate", "GCN", as_settings(base), "a.json", progress=False)
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("fresh")))
    empty = make_params(tasks=["karate"], seeds=[0, 1], search={"space": {}, "method": "grid"})
    searched = train_cell("karate", "GCN", as_settings(empty), "b.json", progress=False)
    assert _hist(plain) == _hist(searched)
    assert "search" not in searched and all("search" not in e for e in searched["seeds"].values())


def test_grid_search_selects_on_validation_and_records_the_trace(workdir):
    p = make_params(tasks=["karate"], seeds=[0, 1], train={"epochs": {"karate": 20}},
                    search={"space": {"lr": [0.0001, 0.05], "hidden_channels": [16]}})
    with logged() as msgs:
        rec = train_cell("karate", "GCN", as_settings(p), "s.json", progress=False)
    assert any("2 trials per seed: 2x" in m for m in msgs)  # the cost multiplier is announced
    assert rec["search"]["trials"] == [{"hidden_channels": 16, "lr": 0.0001}, {"hidden_channels": 16, "lr": 0.05}]
    for seed, entry in rec["seeds"].items():
        trace = entry["search"]["trace"]
        scores = [t["val_score"] for t in trace]
        assert entry["search"]["selected_index"] == max(range(2), key=lambda i: (scores[i], -i))
        assert entry["history"]["val_acc"][-1] == max(scores)
    # the selected trial's history is exactly that configuration trained plainly (shared cache)
    chosen = rec["seeds"]["0"]["search"]["selected"]
    plain = make_params(tasks=["karate"], seeds=[0], train={"epochs": {"karate": 20}, "hidden_channels": 16,
                                                            "node_cls": {"lr": chosen["lr"], "weight_decay": 5e-4}})
    again = train_cell("karate", "GCN", as_settings(plain), "p.json", progress=False)
    assert again["seeds"]["0"]["cached"] and again["seeds"]["0"]["history"] == rec["seeds"]["0"]["history"]


def test_random_search_draws_without_replacement_reproducibly():
    search = {"space": {"lr": [0.1, 0.01, 0.001], "weight_decay": [0.0, 5e-4]}, "method": "random", "n": 4, "seed": 7}
    a, b = trials(search), trials(search)
    assert a == b and len(a) == 4 and len({tuple(sorted(c.items())) for c in a}) == 4
    grid = trials({**search, "method": "grid"})
    assert len(grid) == 6 and all(c in grid for c in a)
    draws = {tuple(map(tuple, (sorted(c.items()) for c in trials({**search, "seed": s})))) for s in range(10)}
    assert len(draws) > 1  # the seed matters


def test_selection_ignores_failures_and_nan_and_respects_direction():
    runs = [{"status": "failed"}, {"status": "ok", "history": {"val_mae": [3.0, 2.0]}},
            {"status": "ok", "history": {"val_mae": [9.0, 1.0]}}, {"status": "ok", "history": {"val_mae": [None]}}]
    best, trace = select(runs, "test_mae", "lower")
    assert best == 2 and [t["status"] for t in trace] == ["failed", "ok", "ok", "ok"]
    assert select([{"status": "failed"}], "test_acc", "higher")[0] is None


@pytest.mark.parametrize("search, message", [
    ({"space": {"dropout": [0.1]}}, "unknown keys ['dropout']"),
    ({"space": {"lr": []}}, "non-empty list"),
    ({"space": {"lr": [-1]}}, "invalid value"),
    ({"space": {"lr": [0.1]}, "method": "bayes"}, "['grid', 'random']"),
    ({"space": {"lr": [0.1]}, "method": "random", "n": 0}, "search.n"),
])
def test_bad_search_blocks_are_rejected(search, message):
    with pytest.raises(ParamsError, match=message.replace("[", r"\[").replace("]", r"\]")):
        make_params(search=search)
