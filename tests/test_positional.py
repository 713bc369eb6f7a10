"""Node features for declared node-classification graphs without any: the encodings, the entry key, and
community labels that structural features cannot express but the default can."""

from __future__ import annotations

import json

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

from netzbench.catalog import custom, positional
from netzbench.catalog.table import DATASETS, TASKS
from netzbench.cli import main
from netzbench.errors import ParamsError
from netzbench.graphs import features


def _sbm(blocks=3, size=30, p_in=0.3, p_out=0.02, seed=0):
    """A planted partition with equal expected degrees: the block is the label."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(blocks), size)
    n = y.size
    upper = np.triu(rng.random((n, n)) < np.where(y[:, None] == y[None, :], p_in, p_out), 1)
    return np.stack(np.nonzero(upper)), y


def test_parse_accepts_the_choices_and_refuses_the_rest():
    assert positional.parse(None) == ("auto", None)
    assert positional.parse("laplacian") == ("laplacian", positional.LAPLACIAN_K)
    assert positional.parse("laplacian:4") == ("laplacian", 4)
    for bad in ("spectral", "identity:3", "laplacian:0", "laplacian:x"):
        with pytest.raises(ValueError, match="`features` must be one of"):
            positional.parse(bad)


def test_laplacian_eigenvectors_are_the_low_frequency_ones_sign_fixed_and_repeatable():
    ei, y = _sbm()
    x = positional.laplacian_eigenvectors(ei, y.size, 4)
    assert x.shape == (90, 4) and x.dtype == np.float32
    np.testing.assert_allclose(x.T @ x, np.eye(4), atol=1e-5)  # orthonormal
    assert all(col[np.argmax(np.abs(col))] > 0 for col in x.T)
    np.testing.assert_array_equal(x, positional.laplacian_eigenvectors(ei, y.size, 4))
    # the two non-trivial lowest eigenvectors separate the three planted blocks: block means differ
    means = np.stack([x[y == b, :2].mean(axis=0) for b in range(3)])
    assert min(np.linalg.norm(means[i] - means[j]) for i in range(3) for j in range(i)) > 0.1
    # they are eigenvectors of L = I - D^-1/2 A D^-1/2 with the smallest eigenvalues after 0
    a = np.zeros((90, 90))
    a[ei[0], ei[1]] = a[ei[1], ei[0]] = 1
    d = a.sum(1) ** -0.5
    lap = np.eye(90) - d[:, None] * a * d[None, :]
    values = np.linalg.eigvalsh(lap)
    rayleigh = np.einsum("ij,ik,kj->j", x, lap, x)
    np.testing.assert_allclose(rayleigh, values[1:5], atol=1e-4)


def test_the_sparse_solver_gives_the_dense_one_s_eigenvectors(monkeypatch):
    ei, y = _sbm(blocks=4, size=60, seed=2)
    dense = positional.laplacian_eigenvectors(ei, y.size, 3)
    monkeypatch.setattr(features, "_DENSE", 0)
    sparse = positional.laplacian_eigenvectors(ei, y.size, 3)
    np.testing.assert_allclose(np.abs(dense.T @ sparse), np.eye(3), atol=1e-3)


def test_small_graphs_get_padding_and_auto_picks_by_size():
    tiny = positional.laplacian_eigenvectors(np.array([[0], [1]]), 3, 4)  # 3 nodes: 2 non-trivial vectors
    assert tiny.shape == (3, 4) and tiny[:, 2:].tolist() == [[0, 0]] * 3 and np.abs(tiny[:, :2]).sum() > 0
    ei, y = _sbm()
    arrays = {"edge_index": ei, "num_nodes": np.asarray(y.size), "y": y}
    out, used = positional.node_features(arrays, None)
    assert used["kind"] == "identity" and out["x"].shape == (90, 90)
    out, used = positional.node_features(arrays, "structural")
    assert "x" not in out and used["kind"] == "structural"
    kept, used = positional.node_features({**arrays, "x": np.ones((90, 5), np.float32)}, "auto")
    assert used is None and kept["x"].shape == (90, 5)
    with pytest.raises(ValueError, match="replaces node features"):
        positional.node_features({**arrays, "x": np.ones((90, 5), np.float32)}, "identity")


def test_features_is_a_node_classification_key():
    with pytest.raises(ParamsError, match="`custom_tasks.t.features`: `features` must be one of"):
        custom._check_entry("t", {"path": "raw/x", "family": "node_cls", "features": "spectral"})
    with pytest.raises(ParamsError, match="features` is for node_cls and link_pred"):
        custom._check_entry("t", {"path": "raw/x", "family": "graph_cls", "features": "laplacian"})
    custom._check_entry("t", {"path": "raw/x", "family": "link_pred", "features": "laplacian:8"})


def test_link_prediction_gets_eigenvectors_of_each_seed_s_training_edges_only(tmp_path):
    from netzbench.models.registry import resolve_model
    from netzbench.protocol import Protocol
    from netzbench.training.link import random_edge_split
    from netzbench.training.seed import fit_seed

    ei, y = _sbm(size=40, p_in=0.3, p_out=0.01, seed=7)
    _gml(tmp_path / "sbm.gml", ei, y)
    # uniform evaluation negatives: hard (HeaRT) ones are the pairs inside a block, which position cannot rank
    protocol = Protocol(link_eval_negatives="uniform")
    hp = {"hidden_channels": 16, "lr": 0.01, "weight_decay": 0.0, "epochs": 60, "eval_every": 60}
    auc, records = {}, {}
    for choice in ("structural", "laplacian:8", "identity"):
        arrays, counts, records[choice] = custom.process(str(tmp_path / "data" / "t"), "link_pred",
                                                         path=str(tmp_path / "sbm.gml"), format="gml",
                                                         features=choice)
        res = fit_seed(resolve_model("GCN"), "link_pred", "random_edge_80_10_10", arrays, 0, hp, protocol=protocol)
        assert res["leakage"] == [], choice  # no held-out edge reaches the inputs
        auc[choice] = res["history"]["test_auc"][-1]
        if choice == "laplacian:8":
            assert "x" not in arrays and int(arrays["laplacian_k"]) == 8 and counts["num_features"] == 8
            split = random_edge_split(int(arrays["num_nodes"]), arrays["edge_index"], 0)  # strict: 10 % / 10 %
            from netzbench.training.link import link_inputs
            x = link_inputs(arrays, split, protocol).numpy()
            np.testing.assert_array_equal(x, features.laplacian_eigenvectors(split.train_pos, 120, 8))
            assert not np.allclose(x, features.laplacian_eigenvectors(arrays["edge_index"], 120, 8), atol=1e-3)
    assert "node_features" not in records["structural"]
    assert records["laplacian:8"]["node_features"]["source"].endswith("of each seed's training edges")
    # edges fall inside blocks: position predicts them, degrees (all alike) do not
    assert auc["laplacian:8"] > 0.7 > 0.55 > auc["structural"] and auc["identity"] > 0.7, auc


def _gml(path, ei, y):
    nodes = "".join(f"  node [ id {i} block {int(c)} ]\n" for i, c in enumerate(y))
    edges = "".join(f"  edge [ source {u} target {v} ]\n" for u, v in ei.T)
    path.write_text(f"graph [\n{nodes}{edges}]\n")


def test_community_labels_are_learnt_with_the_default_not_with_structural_features(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ei, y = _sbm(size=40, p_in=0.25, p_out=0.01, seed=4)
    (tmp_path / "raw").mkdir()
    _gml(tmp_path / "raw" / "sbm.gml", ei, y)
    tasks = {"sbm_auto": {"path": "raw/sbm.gml", "family": "node_cls", "label": "block"},
             "sbm_lap": {"path": "raw/sbm.gml", "family": "node_cls", "label": "block", "features": "laplacian:8"},
             "sbm_struct": {"path": "raw/sbm.gml", "family": "node_cls", "label": "block", "features": "structural"}}
    params = {"tasks": list(tasks), "models": ["GCN"], "seeds": [0, 1], "custom_tasks": tasks,
              "exec": {"workers": 1, "executor": "inprocess", "arithmetic": "native"},
              "train": {"epochs": {t: 60 for t in tasks}}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    runner, acc = CliRunner(), {}
    try:
        for tid in tasks:
            assert runner.invoke(main, ["fetch", tid]).exit_code == 0
            out = runner.invoke(main, ["train", tid, "GCN"])
            assert out.exit_code == 0, out.output
            rec = json.loads((tmp_path / "metrics/runs" / tid / "GCN.json").read_text())
            acc[tid] = np.mean([s["history"]["test_acc"][-1] for s in rec["seeds"].values()])
        meta = {t: json.loads((tmp_path / "data" / t / "meta.json").read_text()) for t in tasks}
    finally:
        for tid in tasks:
            TASKS.pop(tid, None)
            DATASETS.pop(tid, None)
            custom._REGISTERED.pop(tid, None)
    assert meta["sbm_auto"]["node_features"]["kind"] == "identity" and meta["sbm_auto"]["counts"]["num_features"] == 120
    assert meta["sbm_lap"]["node_features"] == {"kind": "laplacian", "dim": 8, "source": meta["sbm_lap"]["node_features"]["source"]}
    assert meta["sbm_struct"]["node_features"]["kind"] == "structural"
    assert acc["sbm_auto"] >= 0.8 and acc["sbm_lap"] >= 0.8, acc  # three balanced blocks: chance is 1/3
    assert acc["sbm_struct"] <= 0.6, acc  # equal expected degrees: [1, log(1 + degree)] cannot tell blocks apart
