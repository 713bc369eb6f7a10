import pytest
import yaml

from netzbench.params import ParamsError, load_params

from helpers import REPO


def write(tmp_path, data):
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


BASE = {"tasks": ["cora"], "models": ["GCN"], "train": {"epochs": {"cora": 5}}}


def test_repository_params_are_valid():
    p = load_params(REPO / "params.yaml")
    assert p["seeds"] == list(range(10))
    assert p["model"] is None and p["model_args"] == {}
    assert set(p["tasks"]) <= set(p["train"]["epochs"])
    assert p["train"]["node_cls"] == {"lr": 0.01, "weight_decay": 0.0005}
    assert p["train"]["link_pred"]["lr"] == 0.01 and p["train"]["graph_cls"]["lr"] == 0.001


@pytest.mark.parametrize("patch, message", [
    ({"train": {"epochs": {"cora": -3}}}, "train.epochs.cora"),
    ({"seeds": []}, "seeds"),
    ({"seeds": [0, 0]}, "duplicates"),
    ({"seeds": [-1]}, "non-negative"),
    ({"train": {"epochs": {"cora": 5}, "node_cls": {"lr": 0}}}, "train.node_cls.lr"),
    ({"train": {"epochs": {"cora": 5}, "link_pred": {"lr": -1e-3}}}, "train.link_pred.lr"),
    ({"train": {"epochs": {}}}, "no entry for ['cora']"),
    ({"tasks": []}, "`tasks`"),
    ({"report": {"ci_method": "bayes"}}, "['t', 'bootstrap']"),
    ({"data": {"on_missing": "ignore"}}, "['skip', 'fail']"),
    ({"exec": {"workers": 0}}, "exec.workers"),
    ({"bogus": 1}, "unknown top-level keys ['bogus']"),
])
def test_malformed_values_are_rejected_with_the_key(tmp_path, patch, message):
    data = {**BASE, **patch}
    with pytest.raises(ParamsError) as err:
        load_params(write(tmp_path, data))
    assert message in str(err.value)


def test_model_args_null_means_no_args(tmp_path):
    p = load_params(write(tmp_path, {**BASE, "model": "GAT", "model_args": None}))
    assert p["model_args"] == {}


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ParamsError, match="not found"):
        load_params(tmp_path / "nope.yaml")
