"""The per-seed keys of several configurations, pinned: what a seed's key hashes (task spec, model, its
arguments, the hyperparameters, the protocol's switches, the seed, threads, arithmetic, device, data) must
not move when the way params reach planning changes (params.yaml -> Settings -> plan_cell). The code hash
is held constant here (it changes with every edit of result code, by design); the data are small folders
written by the test, so nothing outside this file moves these numbers. The keys were computed on the code
before Settings existed: a failure here means a cached seed would be retrained, or a changed setting
would not retrain it.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from helpers import as_settings, make_params

import netzbench.run.plan as plan_module

#: the data of each fake task: meta.json's fields (the task spec) and one array file's bytes
TASKS = {
    "t_node": {"family": "node_cls", "split": "public", "epochs": 7, "category": "Social"},
    "t_graph": {"family": "graph_cls", "split": "80_10_10", "epochs": 5, "category": "Chemistry"},
    "t_reg": {"family": "graph_reg", "split": "dataset_split", "epochs": 4, "category": "Physics"},
    "t_link": {"family": "link_pred", "split": "random_edge", "epochs": 6, "category": "Infrastructure"},
    "t_kg": {"family": "link_pred", "split": "relational_canonical", "epochs": 3, "category": "Knowledge"},
}

#: name -> (params overrides, cells: (task, model, role, model_args))
CONFIGS = {
    "strict_defaults": ({}, [(t, "GCN", "roster", None) for t in TASKS]),
    "paper": ({"protocol": "paper"}, [(t, "GAT", "roster", None) for t in TASKS]),
    "paper_overrides": ({"protocol": "paper", "protocol_overrides": {"link_negatives": "fresh", "graph_split": "80_10_10",
                                                                     "link_metric": "mrr", "relation_init": "xavier"}},
                        [(t, "GraphTransformer", "roster", None) for t in TASKS]),
    "train_block": ({"train": {"hidden_channels": 32, "param_budget": 50000, "node_split": "random", "eval_every": 2,
                               "sampling": {"mode": "neighbour", "fanouts": [5, 5], "batch_size": 256},
                               "parallel_edges": "per_edge", "node_cls": {"lr": 0.05, "weight_decay": 0.001},
                               "link_pred": {"lr": 0.02}, "model_config": {"GAT": {"heads": 4}},
                               "epochs": {"t_node": 11, "t_kg": 2}}},
                    [(t, m, "roster", None) for t in TASKS for m in ("GAT", "GraphSAGE")]),
    "exec_and_seeds": ({"seeds": [3, 17, 2**40], "exec": {"threads": 2, "arithmetic": "native"}},
                       [(t, "MLP", "roster", None) for t in ("t_node", "t_graph")]),
    "search_random": ({"search": {"space": {"lr": [0.1, 0.01, 0.001], "hidden_channels": [16, 32]},
                                  "method": "random", "n": 3, "seed": 5}},
                      [("t_node", "GCN", "roster", None), ("t_reg", "GIN", "roster", None)]),
    "candidate": ({"model": "GAT", "model_args": {"heads": 2, "dropout": 0.25}},
                  [(t, "GAT", "candidate", {"heads": 2, "dropout": 0.25}) for t in ("t_node", "t_link", "t_kg")]),
}

#: sha256 over the JSON of every cell's (config_hash, per-seed keys) of each configuration, computed on the
#: code before Settings (planning read the params dict); the knowledge-graph cells (t_kg) since moved by one
#: new switch, relational_ranking (issue 47: without it in the task's switches every digest equals its pin before)
PINNED = {
    "strict_defaults": "7a479ca73276ebc9a274c0547b405896bf7dbc3541057a863a1d4e276e82dfc9",
    "paper": "895ff29e4b650d5068bc3784866cb95c0bef0e870fec7cee39345219548359b0",
    "paper_overrides": "23a190c48cb4483385db2bf531a422934eef8d2ce8bbd7f28e0e27bc75ccdb4c",
    "train_block": "8c060ce77d2791100c82223243731f1f75ef49830c65f4941a4f2c27984b8032",
    "exec_and_seeds": "6520974088efbbe9e4ec7ff771f5594bd4b0108117fd23f6988cdc0d9c86093c",
    "search_random": "6a5b7784720975d9a49c8053ce34bf68da627ad857612396640451b657ccbf11",
    "candidate": "00bcde52f0dd5a2fbb3021efd52a12a56f0f6431c8135db0d020d0399343a854",
}


def _write_tasks(root):
    for task, spec in TASKS.items():
        folder = root / task
        folder.mkdir(parents=True)
        meta = {"task": task, "dataset": task, "status": "ok", **spec}
        (folder / "meta.json").write_text(json.dumps(meta, sort_keys=True), encoding="utf-8")
        (folder / "graph.npz").write_bytes(hashlib.sha256(task.encode()).digest())


def _params(overrides: dict) -> dict:
    base = {"tasks": list(TASKS), "models": ["GCN"], "seeds": [0, 1]}
    return make_params(**{**base, "train": {"epochs": {}}, **overrides})


def _keys(params, cells, data_root) -> dict:
    out = {}
    for task, model, role, model_args in cells:
        plan = plan_module.plan_cell(task, model, as_settings(params), role=role, model_args=model_args, data_root=data_root,
                                     quiet=True)
        out[f"{task}/{model}/{role}"] = {"config_hash": plan.record["config_hash"],
                                         "keys": {f"{s}/{c}": k for (s, c), k in sorted(plan.keys.items())},
                                         "specs": [job.spec for job in plan.jobs]}
    return out


def _digest(keys: dict) -> str:
    return hashlib.sha256(json.dumps(keys, sort_keys=True, default=str).encode()).hexdigest()


@pytest.fixture
def data_root(tmp_path, monkeypatch):
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(plan_module, "code_version", lambda *_: "code")
    _write_tasks(tmp_path / "data")
    return tmp_path / "data"


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_per_seed_keys_are_pinned(name, data_root):
    overrides, cells = CONFIGS[name]
    keys = _keys(_params(overrides), cells, data_root)
    assert all(cell["keys"] for cell in keys.values())  # every cell trains: its keys were computed
    assert _digest(keys) == PINNED[name], json.dumps(keys, indent=1, default=str)[:4000]


def test_the_pinned_configurations_differ(data_root):
    """Each configuration moves the keys (the pins would not notice a setting that stopped reaching them)."""
    digests = {name: _digest(_keys(_params(o), [("t_link", "GCN", "roster", None)], data_root))
               for name, (o, _) in CONFIGS.items() if name != "candidate"}
    assert len(set(digests.values())) == len(digests), digests
