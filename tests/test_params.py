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
    assert p["train"]["epochs"] == {}  # overrides only: every task trains its catalogue budget
    assert p["train"]["node_cls"] == {"lr": 0.01, "weight_decay": 0.0005}
    assert p["train"]["link_pred"]["lr"] == 0.01 and p["train"]["graph_cls"]["lr"] == 0.001


@pytest.mark.parametrize("patch, message", [
    ({"train": {"epochs": {"cora": -3}}}, "train.epochs.cora"),
    ({"seeds": []}, "seeds"),
    ({"seeds": [0, 0]}, "duplicates"),
    ({"seeds": [-1]}, "integers from 0 to 2**63 - 1"),
    ({"seeds": [0, 2**64]}, "integers from 0 to 2**63 - 1"),  # accepted once, then every seed failed
    ({"train": {"epochs": {"cora": 5}, "node_cls": {"lr": 0}}}, "train.node_cls.lr"),
    ({"train": {"epochs": {"cora": 5}, "link_pred": {"lr": -1e-3}}}, "train.link_pred.lr"),
    ({"tasks": []}, "`tasks`"),
    ({"report": {"ci_method": "bayes"}}, "['t', 'bootstrap']"),
    ({"data": {"on_missing": "ignore"}}, "['skip', 'fail']"),
    ({"exec": {"workers": 0}}, "exec.workers"),
    ({"bogus": 1}, "unknown key `bogus`"),
    ({"controls": {"kinds": []}}, "`controls.kinds` must be a non-empty list"),
    ({"controls": {"kinds": ["rewired", "rewired"]}}, "`controls.kinds` must be a non-empty list of distinct"),
    ({"controls": {"models": []}}, "`controls.models` must be null"),
    ({"seed_plan": {"target_effect": 0}}, "`seed_plan.target_effect` must be null"),
    ({"seed_plan": {"looks": [1, 3]}}, "`seed_plan.looks` must be increasing seed counts of at least 2"),
    ({"seed_plan": {"alpha": 1.0}}, "`seed_plan.alpha` must be null"),
])
def test_malformed_values_are_rejected_with_the_key(tmp_path, patch, message):
    data = {**BASE, **patch}
    with pytest.raises(ParamsError) as err:
        load_params(write(tmp_path, data))
    assert message in str(err.value)


def test_model_args_null_means_no_args(tmp_path):
    p = load_params(write(tmp_path, {**BASE, "model": "GAT", "model_args": None}))
    assert p["model_args"] == {}


def test_yaml_syntax_error_names_the_file_and_line(tmp_path):
    bad = tmp_path / "params.yaml"
    bad.write_text("tasks: [cora\nmodels: {GCN\n")
    with pytest.raises(ParamsError, match=r"params.yaml: not valid YAML at line \d+, column \d+"):
        load_params(bad)


def test_errors_name_the_params_file_given(tmp_path):
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump({**BASE, "seeds": [0, 0]}))
    with pytest.raises(ParamsError) as err:
        load_params(other)
    assert str(err.value).startswith(f"{other}: `seeds` has duplicates")


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ParamsError, match="not found"):
        load_params(tmp_path / "nope.yaml")


@pytest.mark.parametrize("patch, message", [
    ({"train": {"epochs": {"cora": 5}, "hiden_channels": 32}},
     "unknown key `train.hiden_channels` (did you mean 'hidden_channels'?)"),
    ({"exec": {"timeout": 10}}, "unknown key `exec.timeout` (did you mean 'timeout_s'?)"),
    ({"train": {"epochs": {"cora": 5}, "node_cls": {"learning_rate": 0.1}}},
     "unknown key `train.node_cls.learning_rate`"),
    ({"report": {"alfa": 0.1}}, "unknown key `report.alfa` (did you mean 'alpha'?)"),
    ({"search": {"methd": "grid"}}, "unknown key `search.methd` (did you mean 'method'?)"),
    ({"sedes": [0]}, "unknown key `sedes` (did you mean 'seeds'?)"),
])
def test_misspelt_keys_stop_with_the_key_and_the_closest_name(tmp_path, patch, message):
    with pytest.raises(ParamsError) as err:
        load_params(write(tmp_path, {**BASE, **patch}))
    assert message in str(err.value)


def test_keys_chosen_by_the_user_are_not_option_names(tmp_path):
    """Mappings keyed by tasks, models or search dimensions accept any name here (the names are
    checked against the catalogue and registry by netzbench.config)."""
    p = load_params(write(tmp_path, {**BASE, "model": "GAT", "model_args": {"heads": 2},
                                     "train": {"epochs": {"cora": 5, "karate": 3},
                                               "model_config": {"GCN": {"dropout": 0.1}}},
                                     "report": {"weights": {"cora": 1.0}}}))
    assert p["train"]["model_config"] == {"GCN": {"dropout": 0.1}} and p["model_args"] == {"heads": 2}


def test_a_misspelt_task_says_what_was_meant_and_how_to_undo_dvc_exp_run(tmp_path):
    """`dvc exp run -S 'tasks=[karate,mutagg]'` leaves the typo in params.yaml: the error says how to undo it."""
    from netzbench.config import load_config

    with pytest.raises(ParamsError) as err:
        load_config(write(tmp_path, {**BASE, "tasks": ["karate", "mutagg"]}))
    message = str(err.value)
    assert "unknown task 'mutagg' (did you mean 'mutag'?)" in message
    assert "git checkout -- params.yaml" in message and "karate, " not in message  # not the whole catalogue
    with pytest.raises(ParamsError) as err:  # a malformed value too
        load_params(write(tmp_path, {**BASE, "seeds": [0, 0]}))
    assert "git checkout -- params.yaml" in str(err.value)
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump({**BASE, "seeds": [0, 0]}))
    with pytest.raises(ParamsError) as err:  # a file dvc never writes: no such advice
        load_params(other)
    assert "git checkout" not in str(err.value)
