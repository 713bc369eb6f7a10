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
    assert rec["status"] == "ok" and rec["headline_metric"] == "test_auc"
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
