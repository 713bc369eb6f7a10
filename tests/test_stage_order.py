"""The one train stage hands the pool the heaviest tasks' seeds first (run/plan.py: pool_weights), so the
stage ends on small seeds; a task whose meta.json says nothing about its size goes last."""

import json
from pathlib import Path

from netzbench.run import execute
from netzbench.run.plan import pool_weights
from helpers import as_settings


def _meta(root, task, epochs, counts):
    (root / task).mkdir(parents=True)
    (root / task / "meta.json").write_text(json.dumps({"epochs": epochs, "counts": counts}))


def test_pool_weights_order_by_epochs_size_and_width(tmp_path):
    _meta(tmp_path, "wide", 100, {"num_nodes": 3000, "num_edges": 4000, "num_features": 3000})
    _meta(tmp_path, "kg", 20, {"num_nodes": 14000, "num_edges": 250000, "num_train_triples": 270000})
    _meta(tmp_path, "small", 40, {"num_nodes": 3000, "num_edges": 4000, "num_features": 7})
    _meta(tmp_path, "synthetic", 80, {})
    (tmp_path / "torn").mkdir()
    (tmp_path / "torn" / "meta.json").write_text("{")
    w = pool_weights(["wide", "kg", "small", "synthetic", "torn", "absent"], tmp_path)
    assert w["wide"] == 100 * 7000 * 3000 / 64 and w["kg"] == 20 * 534000 and w["small"] == 40 * 7000
    assert w["wide"] > w["kg"] > w["small"] > w["synthetic"] == w["torn"] == w["absent"] == 0.0


def test_the_stage_runs_heavy_tasks_first(tmp_path, monkeypatch):
    _meta(tmp_path, "a_small", 10, {"num_nodes": 10, "num_edges": 10})
    _meta(tmp_path, "b_heavy", 10, {"num_nodes": 1000, "num_edges": 1000})

    class Plan:
        def __init__(self, task, model):
            self.record, self.jobs = {"task": task, "model": model}, [object()]

        def finish(self):
            raise SystemExit  # stop after the ordering was seen

    monkeypatch.setattr(execute, "plan_cell", lambda t, m, params, **kw: Plan(t, m))
    seen = []
    monkeypatch.setattr(execute, "run_plans", lambda plans, params, **kw: seen.extend(
        (p.record["task"], p.record["model"]) for p in plans))
    params = {"tasks": ["a_small", "b_heavy"], "models": ["GCN", "MLP"], "model": None}
    try:
        execute._train(["a_small", "b_heavy"], as_settings(params), lambda t: (tmp_path, tmp_path / f"{t}.json"),
                       data_root=tmp_path, progress=False, desc="t")
    except SystemExit:
        pass
    assert seen == [("b_heavy", "GCN"), ("b_heavy", "MLP"), ("a_small", "GCN"), ("a_small", "MLP")]


def test_cached_roster_records_are_written_before_anything_trains(tmp_path, monkeypatch):
    """The roster needs no candidate: a cell whose seeds are all cached is written when the roster is
    planned (the train stage does it while a new candidate's facts are learnt), a cell with seeds to train
    after the pool; the records and their order are the same either way."""
    _meta(tmp_path, "t", 10, {"num_nodes": 10, "num_edges": 10})
    events = []

    class Record:
        def __init__(self, model):
            self.model = model

        def to_dict(self):
            return {"model": self.model}

    class Plan:
        def __init__(self, task, model, role):
            self.record = {"task": task, "model": model}
            self.jobs = [] if model == "GCN" else [object()]

        def finish(self):
            return Record(self.record["model"])

    monkeypatch.setattr(execute, "plan_cell", lambda t, m, params, role, **kw: Plan(t, m, role))
    monkeypatch.setattr(execute, "run_plans", lambda plans, params, **kw: events.append(
        ("train", [p.record["model"] for p in plans])))
    monkeypatch.setattr(execute, "_write", lambda path, record: events.append(("write", Path(path).name)))
    params = {"tasks": ["t"], "models": ["GCN", "MLP"], "model": "pkg.mod:Cand", "model_args": {}}
    paths = lambda t: (tmp_path / "runs", tmp_path / f"{t}.json")  # noqa: E731
    roster = execute.plan_roster(["t"], as_settings(params), paths, data_root=tmp_path)
    assert events == [("write", "GCN.json")]
    out = execute._train(["t"], as_settings(params), paths, data_root=tmp_path, progress=False, desc="t", roster=roster)
    assert events == [("write", "GCN.json"), ("train", ["MLP", "pkg.mod:Cand"]), ("write", "MLP.json"),
                      ("write", "t.json")]
    assert list(out["t"]) == ["GCN", "MLP", "candidate"]
