"""custom_tasks in params.yaml: a user's dataset through fetch and train, without touching the package."""

import json
import textwrap

import pytest
import yaml
from click.testing import CliRunner

from netzbench.catalog import custom
from netzbench.catalog.table import DATASETS, TASKS
from netzbench.cli import main
from netzbench.config import load_config
from netzbench.errors import ParamsError

from helpers import write_package

LOADERS = textwrap.dedent("""
    import torch
    from torch_geometric.data import Data

    def ring(root):
        n = 40
        src = torch.arange(n)
        ei = torch.stack([torch.cat([src, (src + 1) % n]), torch.cat([(src + 1) % n, src])])
        y = (src % 2)
        return Data(x=torch.nn.functional.one_hot(y, 2).float() + 0.1 * torch.randn(n, 2,
                    generator=torch.Generator().manual_seed(0)), edge_index=ei, y=y, num_nodes=n)

    def random_graph(root, *, seed):
        g = torch.Generator().manual_seed(seed)
        n = 30
        return Data(x=torch.randn(n, 3, generator=g), edge_index=torch.randint(0, n, (2, 100), generator=g),
                    num_nodes=n)
""")


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    write_package(tmp_path, "mydata", {"loaders": LOADERS})
    params = {
        "tasks": ["my_ring", "my_random"], "models": ["GCN"], "seeds": [0, 1],
        "custom_tasks": {"my_ring": {"loader": "mydata.loaders:ring", "family": "node_cls", "epochs": 30},
                         "my_random": {"loader": "mydata.loaders:random_graph", "family": "link_pred", "epochs": 5,
                                       "category": "social"}},
        "train": {"epochs": {"my_ring": 30, "my_random": 5}}, "exec": {"workers": 1},
    }
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    yield tmp_path
    for tid in ("my_ring", "my_random"):  # leave the catalogue as the other tests expect it
        TASKS.pop(tid, None)
        DATASETS.pop(tid, None)
        custom._REGISTERED.pop(tid, None)


def test_custom_tasks_fetch_and_train_like_any_other(project):
    r = CliRunner()
    for task in ("my_ring", "my_random"):
        out = r.invoke(main, ["fetch", task])
        assert out.exit_code == 0, out.output
    ring_meta = json.loads((project / "data/my_ring/meta.json").read_text())
    assert ring_meta["status"] == "ok" and ring_meta["counts"]["num_nodes"] == 40
    rand_meta = json.loads((project / "data/my_random/meta.json").read_text())
    assert rand_meta["synthetic"] is True and rand_meta["loader_sha256"]  # seed-aware: generated per seed
    for task in ("my_ring", "my_random"):
        out = r.invoke(main, ["train", task, "GCN"])
        assert out.exit_code == 0, out.output
    rec = json.loads((project / "metrics/runs/my_ring/GCN.json").read_text())
    assert rec["status"] == "ok" and rec["family"] == "node_cls"
    assert rec["seeds"]["0"]["history"]["test_acc"][-1] > 0.5
    rec = json.loads((project / "metrics/runs/my_random/GCN.json").read_text())
    # the default protocol is strict: a link task's headline is MRR against hard negatives, AUC recorded beside it
    assert rec["status"] == "ok" and rec["headline_metric"] == "test_mrr"
    assert 0 < rec["seeds"]["0"]["history"]["test_mrr"][-1] <= 1 and "test_auc" in rec["seeds"]["0"]["history"]
    assert rec["seeds"]["0"]["history"] != rec["seeds"]["1"]["history"]
    listed = json.loads(r.invoke(main, ["tasks", "--json"]).output)
    ring = next(t for t in listed if t["id"] == "my_ring")
    assert ring["in_paper"] is False and ring["epochs"] == 30


@pytest.mark.parametrize("entry, message", [
    ({"loader": "nocolon", "family": "node_cls", "epochs": 3}, "package.module:function"),
    ({"loader": "a:b", "family": "node_classification", "epochs": 3}, "family"),
    ({"loader": "a:b", "family": "node_cls", "epochs": 0}, "epochs"),
])
def test_bad_custom_entries(tmp_path, entry, message):
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"tasks": ["x_custom"], "models": ["GCN"], "custom_tasks": {"x_custom": entry},
                                    "train": {"epochs": {"x_custom": 3}}}))
    with pytest.raises(ParamsError, match=message):
        load_config(path)
    TASKS.pop("x_custom", None)
    DATASETS.pop("x_custom", None)


def test_custom_id_cannot_shadow_the_catalogue(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"tasks": ["cora"], "models": ["GCN"], "train": {"epochs": {"cora": 3}},
                                    "custom_tasks": {"cora": {"loader": "a:b", "family": "node_cls", "epochs": 3}}}))
    with pytest.raises(ParamsError, match="collides with a catalogue task"):
        load_config(path)


BAD_LOADERS = textwrap.dedent("""
    import torch
    from torch_geometric.data import Data

    def _ring(n=40):
        src = torch.arange(n)
        return torch.stack([torch.cat([src, (src + 1) % n]), torch.cat([(src + 1) % n, src])])

    def one_class(root):
        return Data(x=torch.ones(40, 2), edge_index=_ring(), y=torch.zeros(40, dtype=torch.long), num_nodes=40)

    def string_labels(root):
        y = ["red" if i % 2 else "blue" for i in range(40)]
        return Data(x=torch.ones(40, 2), edge_index=_ring(), y=y, num_nodes=40)

    def edge_out_of_range(root):
        ei = _ring()
        ei[0, 3] = 40
        return Data(x=torch.ones(40, 2), edge_index=ei, y=torch.arange(40) % 2, num_nodes=40)

    def empty_test_mask(root):
        test = torch.zeros(40, dtype=torch.bool)
        return Data(x=torch.ones(40, 2), edge_index=_ring(), y=torch.arange(40) % 2, num_nodes=40,
                    train_mask=torch.arange(40) < 20, val_mask=torch.arange(40) >= 20, test_mask=test)

    def one_class_in_training(root):
        y = torch.arange(40) % 2
        return Data(x=torch.ones(40, 2), edge_index=_ring(), y=y, num_nodes=40,
                    train_mask=y == 0, val_mask=y == 1, test_mask=y == 1)

    def signed_graph_labels(root):
        graphs = []
        for i in range(20):
            graphs.append(Data(x=torch.ones(5, 1) * (i % 2), edge_index=_ring(5), y=torch.tensor([1 if i % 2 else -1])))
        return graphs
""")


@pytest.mark.parametrize("loader, family, message", [
    ("one_class", "node_cls", "the node labels hold 1 class ([0])"),
    ("edge_out_of_range", "node_cls", "edge_index holds node index 40, outside [0, 40)"),
    ("empty_test_mask", "node_cls", "the test mask selects no node"),
    ("one_class_in_training", "node_cls", "the training nodes hold one class only ([0])"),
])
def test_fetch_refuses_a_dataset_that_cannot_give_an_honest_number(tmp_path, monkeypatch, loader, family, message):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    write_package(tmp_path, "baddata", {"loaders": BAD_LOADERS})
    params = {"tasks": ["bad"], "models": ["GCN"], "seeds": [0], "train": {"epochs": {"bad": 2}},
              "custom_tasks": {"bad": {"loader": f"baddata.loaders:{loader}", "family": family, "epochs": 2}}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    try:
        out = CliRunner().invoke(main, ["fetch", "bad"])
        assert out.exit_code == 2, out.output
        assert f"custom task 'bad' ({family}): {message}" in out.output
        assert "Traceback" not in out.output and not (tmp_path / "data/bad").exists()
    finally:
        TASKS.pop("bad", None)
        DATASETS.pop("bad", None)
        custom._REGISTERED.pop("bad", None)


@pytest.mark.parametrize("loader, family, mapping", [
    ("string_labels", "node_cls", {"0": "blue", "1": "red"}),
    ("signed_graph_labels", "graph_cls", {"0": -1, "1": 1}),
])
def test_labels_that_are_not_0_to_c_are_mapped_and_the_mapping_recorded(tmp_path, monkeypatch, loader, family,
                                                                         mapping):
    import numpy as np

    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    write_package(tmp_path, "mapdata", {"loaders": BAD_LOADERS})
    params = {"tasks": ["mapped"], "models": ["GCN"], "seeds": [0, 1], "train": {"epochs": {"mapped": 3}},
              "custom_tasks": {"mapped": {"loader": f"mapdata.loaders:{loader}", "family": family, "epochs": 3}},
              "exec": {"workers": 1}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    try:
        out = CliRunner().invoke(main, ["fetch", "mapped"])
        assert out.exit_code == 0, out.output
        meta = json.loads((tmp_path / "data/mapped/meta.json").read_text())
        assert meta["label_mapping"] == mapping and meta["counts"]["num_classes"] == 2
        with np.load(tmp_path / "data/mapped/graph.npz") as npz:
            assert sorted(np.unique(npz["y"]).tolist()) == [0, 1]
        out = CliRunner().invoke(main, ["train", "mapped", "GCN"])
        assert out.exit_code == 0, out.output
        rec = json.loads((tmp_path / "metrics/runs/mapped/GCN.json").read_text())
        assert rec["status"] == "ok", rec
    finally:
        TASKS.pop("mapped", None)
        DATASETS.pop("mapped", None)
        custom._REGISTERED.pop("mapped", None)


def test_the_python_api_checks_a_loader_task_the_same_way(tmp_path):
    import torch
    from torch_geometric.data import Data

    from netzbench import run_benchmark, task_from_dataset
    from netzbench.catalog.checks import DatasetError

    n = 30
    src = torch.arange(n)
    ei = torch.stack([src, (src + 1) % n])
    data = Data(x=torch.ones(n, 2), edge_index=ei, y=torch.zeros(n, dtype=torch.long), num_nodes=n)
    with pytest.raises(DatasetError, match="custom task 'flat' \\(node_cls\\): the node labels hold 1 class"):
        run_benchmark(models={"GCN": "GCN"}, tasks=[task_from_dataset("flat", "node_cls", data, epochs=2)], seeds=[0],
                      data_root=tmp_path, progress=False)
