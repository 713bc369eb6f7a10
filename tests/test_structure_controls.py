"""Structure controls (issue 30): does the graph matter? Labels made by the structure must come out
"structure helps"; labels made by the features alone, "no detectable effect"."""

from __future__ import annotations

import numpy as np
import pytest

from netzbench.catalog.controls import ControlError, control_arrays, rewire
from netzbench.graphs.layout import GRAPH, save_arrays, write_meta
from netzbench.structure_controls import run_controls

from helpers import as_settings, make_params


def _pairs_of(ei):
    return {(int(min(a, b)), int(max(a, b))) for a, b in ei.T}


def test_rewiring_keeps_every_degree_and_changes_the_edges():
    rng = np.random.default_rng(0)
    n = 60
    i, j = rng.integers(0, n, 400), rng.integers(0, n, 400)
    keep = i < j
    pairs = np.unique(np.stack([i[keep], j[keep]]), axis=1)
    out = rewire(pairs, np.random.default_rng(1))
    assert out.shape == pairs.shape
    deg = lambda p: np.bincount(p.ravel(), minlength=n)  # noqa: E731
    assert (deg(out) == deg(pairs)).all()
    assert len(_pairs_of(out)) == out.shape[1] and (out[0] != out[1]).all()  # no parallel edge, no self-loop
    assert len(_pairs_of(out) & _pairs_of(pairs)) < 0.3 * pairs.shape[1]  # well mixed


def test_a_control_changes_the_edges_only_and_refuses_link_prediction():
    rng = np.random.default_rng(2)
    n = 30
    pairs = np.unique(np.sort(rng.integers(0, n, (2, 80)), axis=0), axis=1)
    pairs = pairs[:, pairs[0] != pairs[1]]
    arrays = {"x": rng.normal(size=(n, 3)).astype(np.float32), "y": rng.integers(0, 2, n),
              "edge_index": np.concatenate([pairs, pairs[::-1]], axis=1), "num_nodes": np.asarray(n)}
    empty = control_arrays(arrays, "node_cls", "no_edges", 0)
    assert empty["edge_index"].shape == (2, 0) and empty["x"] is arrays["x"] and empty["y"] is arrays["y"]
    rnd = control_arrays(arrays, "node_cls", "random_graph", 0)
    assert len(_pairs_of(rnd["edge_index"])) == pairs.shape[1] == rnd["edge_index"].shape[1] // 2
    assert (control_arrays(arrays, "node_cls", "rewired", 3)["edge_index"]
            == control_arrays(arrays, "node_cls", "rewired", 3)["edge_index"]).all()  # seeded
    with pytest.raises(ControlError, match="labels"):
        control_arrays({"edge_index": pairs, "num_nodes": np.asarray(n)}, "link_pred", "rewired", 0)


def _task(root, name, structure: bool, seed=7):
    """200 nodes, two classes: by community (SBM, noise features) or by a feature (random edges)."""
    rng = np.random.default_rng(seed)
    n = 200
    y = np.repeat([0, 1], n // 2)
    x = rng.normal(size=(n, 8)).astype(np.float32)
    if structure:
        same = y[:, None] == y[None, :]
        prob = np.where(same, 0.08, 0.004)
    else:
        x[:, 0] = np.where(y == 1, 1.0, -1.0) + 0.3 * rng.normal(size=n)
        prob = np.full((n, n), 0.03)
    upper = np.triu(rng.random((n, n)) < prob, 1)
    i, j = np.nonzero(upper)
    arrays = {"x": x, "y": y.astype(np.int64), "num_nodes": np.asarray(n, dtype=np.int64),
              "edge_index": np.concatenate([np.stack([i, j]), np.stack([j, i])], axis=1).astype(np.int64)}
    (root / name).mkdir(parents=True)
    save_arrays(root / name / GRAPH, arrays)
    write_meta(root / name, {"task": name, "dataset": name, "family": "node_cls", "category": "test",
                             "split": "stratified_per_seed_50_25_25", "relational": False, "status": "ok",
                             "synthetic": False, "format": "test", "epochs": 60,
                             "counts": {"num_nodes": n, "num_edges": int(len(i)), "num_classes": 2}})


def test_structure_helps_where_labels_follow_it_and_not_where_they_follow_the_features(tmp_path):
    _task(tmp_path, "by_structure", structure=True)
    _task(tmp_path, "by_features", structure=False)
    params = make_params(tasks=["karate"], models=["GraphSAGE"], seeds=[0, 1, 2, 3, 4], exec={"workers": 2})
    result = run_controls(as_settings(params), ["by_structure", "by_features"], controls=("no_edges", "rewired"),
                          data_root=tmp_path, out=tmp_path / "controls.json", progress=False)
    verdicts = {(r["task"], r["control"]): r for r in result["rows"]}
    assert set(verdicts) == {(t, c) for t in ("by_structure", "by_features") for c in ("no_edges", "rewired")}
    for control in ("no_edges", "rewired"):
        helps = verdicts["by_structure", control]
        assert helps["verdict"] == "structure helps", helps
        assert helps["lo"] > 0 and helps["original_mean"] > helps["control_mean"] + 0.1
        none = verdicts["by_features", control]
        assert none["verdict"] == "no detectable effect", none
        assert none["lo"] <= 0 <= none["hi"] and none["mde"] > 0
    assert (tmp_path / "controls.json").is_file() and (tmp_path / "by_structure~rewired" / "meta.json").is_file()
    for r in result["rows"]:  # issue 52: the constant predictor beside both means, flags, convergence
        assert r["constant"] == pytest.approx(0.5, abs=0.1) and r["identical_to"] is None
        assert r["original_flags"] == {} and r["control_flags"] == {}
        assert r["original_converged"] in (True, False, None) and isinstance(r["not_converged"], list)


def test_the_command_reads_the_controls_block_and_its_arguments_win(tmp_path, monkeypatch):
    import yaml
    from click.testing import CliRunner

    import netzbench.structure_controls as structure_controls
    from netzbench.cli import main

    calls = []
    monkeypatch.setattr(structure_controls, "run_controls",
                        lambda params, tasks, models, kinds, **kw: calls.append((tasks, models, kinds)))
    monkeypatch.chdir(tmp_path)
    params = {"tasks": ["karate"], "models": ["GCN", "GraphSAGE", "MLP"],
              "controls": {"tasks": ["karate", "mutag"], "models": ["GCN"], "kinds": ["rewired"]}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    r = CliRunner()
    from netzbench.params import CONTROL_KINDS

    assert tuple(next(p for p in main.commands["controls"].params if p.name == "kinds").type.choices) == CONTROL_KINDS
    assert r.invoke(main, ["controls"]).exit_code == 0
    assert calls[-1] == (["karate", "mutag"], ["GCN"], ("rewired",))
    assert r.invoke(main, ["controls", "cora", "--models", "MLP", "--control", "no_edges"]).exit_code == 0
    assert calls[-1] == (["cora"], ["MLP"], ("no_edges",))
    params["controls"] = {}  # the defaults: no tasks (say so), the roster, all three controls
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    out = r.invoke(main, ["controls"])
    assert out.exit_code == 2 and "controls.tasks" in out.output and len(calls) == 2
    assert r.invoke(main, ["controls", "karate"]).exit_code == 0
    assert calls[-1] == (["karate"], None, ("no_edges", "rewired", "random_graph"))
    for bad, said in (({"kinds": ["shuffled"]}, "`controls.kinds` must be"), ({"tasks": ["no_such_task"]}, "`controls.tasks`"),
                      ({"models": ["NoSuchModel"]}, "`controls.models`")):
        params["controls"] = bad
        (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
        out = r.invoke(main, ["controls", "karate"])
        assert out.exit_code == 2 and said in out.output, (bad, out.output)
