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
    """`netzbench train TASK` (one task of the pipeline's train stage): every roster cell and the candidate's
    placeholder; a second run recalls every seed from the cache; --out names one cell's record, so it needs MODEL."""
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
    assert refused.exit_code == 2 and "give TASK and MODEL" in refused.output


def test_train_all_is_the_pipelines_one_train_stage(project):
    """`netzbench train --all`: every task's cells in one pool, a record per task and roster model and the
    candidate's per task; a stale cell retrains alone; records of what params.yaml no longer names are removed
    (a .gitignore there is not a record: kept); a task whose data could not be obtained is recorded
    `unavailable`, as fetch's `data.on_missing: skip` leaves it."""
    params = {"tasks": ["karate", "random_tsp"], "models": ["GCN", "CommonNeighbors"], "seeds": [0, 1],
              "train": {"epochs": {"karate": 2, "random_tsp": 2}}, "exec": {"workers": 1}}
    (project / "params.yaml").write_text(yaml.safe_dump(params))
    assert CliRunner().invoke(main, ["fetch", "--all"]).exit_code == 0
    result = CliRunner().invoke(main, ["train", "--all"])
    assert result.exit_code == 0, result.output
    runs, cand = project / "metrics/runs", project / "metrics/candidate"
    assert sorted(p.name for p in runs.iterdir()) == ["karate", "random_tsp"]
    for task in ("karate", "random_tsp"):
        assert sorted(p.name for p in (runs / task).iterdir()) == ["CommonNeighbors.json", "GCN.json"]
        assert json.loads((cand / f"{task}.json").read_text())["status"] == "no_candidate"
    first = {t: json.loads((runs / t / "GCN.json").read_text()) for t in ("karate", "random_tsp")}
    assert all(r["status"] == "ok" and not any(s.get("cached") for s in r["seeds"].values()) for r in first.values())
    assert "karate: GCN ok, CommonNeighbors incompatible, candidate no_candidate" in result.output

    # a change that stales one cell: karate/GCN (the only node-level cell that trains) retrains, nothing else
    (runs / ".gitignore").write_text("/karate\n")
    (runs / "old_task").mkdir()
    (runs / "old_task/GCN.json").write_text(json.dumps(first["karate"]))
    (runs / "karate/GAT.json").write_text(json.dumps(first["karate"]))
    (cand / "old_task.json").write_text(json.dumps({"status": "no_candidate", "task": "old_task"}))
    params["train"]["node_cls"] = {"lr": 0.02, "weight_decay": 0.0005}
    (project / "params.yaml").write_text(yaml.safe_dump(params))
    assert CliRunner().invoke(main, ["train", "--all"]).exit_code == 0
    cached = {(t, m): [s.get("cached", False) for s in json.loads((runs / t / f"{m}.json").read_text())["seeds"].values()]
              for t in ("karate", "random_tsp") for m in ("GCN", "CommonNeighbors")}
    assert cached[("karate", "GCN")] == [False, False]
    assert cached[("random_tsp", "GCN")] == cached[("random_tsp", "CommonNeighbors")] == [True, True]
    assert sorted(p.name for p in runs.iterdir()) == [".gitignore", "karate", "random_tsp"]
    assert sorted(p.name for p in (runs / "karate").iterdir()) == ["CommonNeighbors.json", "GCN.json"]
    assert sorted(p.name for p in cand.iterdir()) == ["karate.json", "random_tsp.json"]

    # a shorter task list: the dropped task's records go; one whose data is unavailable is recorded so
    (project / "data/cora").mkdir()
    (project / "data/cora/meta.json").write_text(json.dumps(
        {"status": "unavailable", "reason": "offline", "task": "cora", "family": "node_cls", "split": "planetoid",
         "epochs": 2}))
    params["tasks"] = ["karate", "cora"]
    (project / "params.yaml").write_text(yaml.safe_dump(params))
    assert CliRunner().invoke(main, ["train", "--all"]).exit_code == 0
    assert sorted(p.name for p in runs.iterdir() if p.is_dir()) == ["cora", "karate"]
    assert sorted(p.name for p in cand.iterdir()) == ["cora.json", "karate.json"]
    gcn = json.loads((runs / "cora/GCN.json").read_text())
    assert gcn["status"] == "unavailable" and "offline" in gcn["seeds"]["0"]["reason"]


def test_train_all_refuses_what_it_cannot_do_before_training(project):
    assert CliRunner().invoke(main, ["fetch", "karate"]).exit_code == 0
    for args, message in ((["train"], "or give --all"), (["train", "karate", "--all"], "give TASK or --all, not both"),
                          (["train", "--all", "--out", "x.json"], "give TASK and MODEL")):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2 and message in result.output, (args, result.output)
    params = {"tasks": ["karate", "random_tsp"], "models": ["GCN"], "seeds": [0],
              "train": {"epochs": {"karate": 2, "random_tsp": 2}}}
    (project / "params.yaml").write_text(yaml.safe_dump(params))
    result = CliRunner().invoke(main, ["train", "--all"])  # random_tsp not fetched: every cell is planned first
    assert result.exit_code == 2 and "`netzbench fetch random_tsp`" in result.output, result.output
    assert not (project / "metrics").exists()


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
                                   ["train", "--all"], ["candidate", "karate"]])
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
