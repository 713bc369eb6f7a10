"""The CLI: --help everywhere, clear errors before training, task listing."""

import json
import re

import pytest
import yaml
from click.testing import CliRunner

from netzbench.cli import main

COMMANDS = ["fetch", "train", "candidate", "report", "tasks"]


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    params = {"tasks": ["karate"], "models": ["GCN"], "seeds": [0], "train": {"epochs": {"karate": 2}}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    return tmp_path


@pytest.mark.parametrize("cmd", COMMANDS)
def test_help(cmd):
    result = CliRunner().invoke(main, [cmd, "--help"])
    assert result.exit_code == 0 and "Usage:" in result.output


@pytest.mark.parametrize("args, message", [
    (["train", "corra", "GCN"], "unknown task 'corra' (did you mean 'cora'?); `netzbench tasks` lists"),
    (["train", "karate", "GCNN"], "unknown model 'GCNN'; known models:"),
    (["train", "karate", "user_models.example:Missing"], "has no 'Missing'"),
    (["train", "karate", "nopkg.mod:X"], "cannot import module 'nopkg.mod'"),
    (["fetch", "nope"], "unknown task 'nope'"),
])
def test_bad_arguments_fail_before_training(project, args, message, monkeypatch):
    from helpers import REPO

    monkeypatch.syspath_prepend(str(REPO))  # user_models lives in the repository
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not (project / "metrics").exists()


def test_malformed_params_are_reported(project):
    (project / "params.yaml").write_text(yaml.safe_dump({"tasks": ["karate"], "models": ["GCN"], "seeds": [],
                                                         "train": {"epochs": {"karate": 2}}}))
    result = CliRunner().invoke(main, ["train", "karate", "GCN"])
    assert result.exit_code == 2 and "`seeds` must be a non-empty list" in result.output


def test_the_train_stage_writes_a_record_per_roster_model_and_the_candidates(project):
    """`netzbench train TASK` (the pipeline's train@TASK): every roster cell and the candidate's placeholder;
    a second run recalls every seed from the cache; --out names one cell's record, so it needs MODEL."""
    params = {"tasks": ["karate"], "models": ["GCN", "CommonNeighbors"], "seeds": [0, 1],
              "train": {"epochs": {"karate": 2}}, "exec": {"workers": 1}}
    (project / "params.yaml").write_text(yaml.safe_dump(params))
    assert CliRunner().invoke(main, ["fetch", "karate"]).exit_code == 0
    result = CliRunner().invoke(main, ["train", "karate"])
    assert result.exit_code == 0, result.output
    runs = project / "metrics/runs/karate"
    assert sorted(p.name for p in runs.iterdir()) == ["CommonNeighbors.json", "GCN.json"]
    gcn = json.loads((runs / "GCN.json").read_text())
    assert gcn["status"] == "ok" and sorted(gcn["seeds"]) == ["0", "1"]
    assert json.loads((runs / "CommonNeighbors.json").read_text())["status"] == "incompatible"  # a node task
    assert json.loads((project / "metrics/candidate/karate.json").read_text())["status"] == "no_candidate"
    assert CliRunner().invoke(main, ["train", "karate"]).exit_code == 0
    again = json.loads((runs / "GCN.json").read_text())
    assert all(s.get("cached") for s in again["seeds"].values())
    assert again["seeds"]["0"]["history"] == gcn["seeds"]["0"]["history"]
    refused = CliRunner().invoke(main, ["train", "karate", "--out", "x.json"])
    assert refused.exit_code == 2 and "give MODEL too" in refused.output


@pytest.mark.parametrize("patch, message", [
    ({"models": ["GCN", "GATT"]}, "unknown model 'GATT' (did you mean 'GAT'?)"),
    ({"model": "GraphSAG"}, "unknown model 'GraphSAG' (did you mean 'GraphSAGE'?)"),
    ({"tasks": ["karate", "corra"], "train": {"epochs": {"karate": 2, "corra": 2}}}, "unknown task 'corra'"),
    ({"model": "nopkg.mod:X"}, "cannot (find|import) module 'nopkg.mod'"),
    ({"train": {"epochs": {"karate": 2}, "model_config": {"GAT": {"heads": 2}}}},
     "`train.model_config.GAT` is not a model of `models` or `model`"),
    ({"train": {"epochs": {"karate": 2, "karatee": 3}}}, "`train.epochs.karatee` is not a task of the catalogue"),
])
@pytest.mark.parametrize("stage", [["fetch", "karate"], ["train", "karate"], ["train", "karate", "GCN"],
                                   ["candidate", "karate"]])
def test_every_stage_checks_every_name_in_params(project, patch, message, stage):
    """A bad name anywhere in params.yaml stops the first stage that runs, whichever cell it is for."""
    params = {"tasks": ["karate"], "models": ["GCN"], "seeds": [0], "train": {"epochs": {"karate": 2}}, **patch}
    (project / "params.yaml").write_text(yaml.safe_dump(params))
    result = CliRunner().invoke(main, stage)
    assert result.exit_code == 2, result.output
    assert re.search(message.replace("(did", r"\(did").replace("?)", r"\?\)"), result.output), result.output
    assert not (project / "data").exists() and not (project / "metrics").exists()


def test_fetch_all_brings_every_task_of_params(project):
    out = CliRunner().invoke(main, ["fetch", "--all"])
    assert out.exit_code == 0, out.output
    assert (project / "data/karate/meta.json").is_file() and "karate: ok" in out.output
    both = CliRunner().invoke(main, ["fetch", "karate", "--all"])
    assert both.exit_code == 2 and "or give --all" in both.output


def test_candidate_placeholders(project):
    result = CliRunner().invoke(main, ["candidate", "karate"])
    assert result.exit_code == 0
    assert json.loads((project / "metrics/candidate/karate.json").read_text())["status"] == "no_candidate"
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["model"] = "GCN"
    (project / "params.yaml").write_text(yaml.safe_dump(params))
    result = CliRunner().invoke(main, ["candidate", "karate"])
    assert result.exit_code == 0
    rec = json.loads((project / "metrics/candidate/karate.json").read_text())
    assert rec == {"status": "in_roster", "task": "karate", "model": "GCN"}


def test_tasks_json_lists_required_fields(project):
    result = CliRunner().invoke(main, ["tasks", "--json"])
    rows = json.loads(result.output)
    ids = {r["id"] for r in rows}
    assert {"random_tsp", "ising_lattice", "karate", "cora", "mutag"} <= ids
    for r in rows:
        assert {"id", "category", "family", "dataset", "epochs", "needs_download"} <= set(r)
    karate = next(r for r in rows if r["id"] == "karate")
    assert karate["epochs"] == 2 and karate["needs_download"] is False and karate["family"] == "node_cls"
