"""Epoch budgets: a task trains its catalogue budget (recorded in data/<task>/meta.json by fetch)
unless `train.epochs.<task>` overrides it; the run record says which applied."""

import json
import textwrap

import pytest
import yaml
from click.testing import CliRunner

from netzbench.catalog import custom
from netzbench.catalog.data import fetch_task, write_loader_task
from netzbench.catalog.table import DATASETS, TASKS
from netzbench.cli import main
from netzbench.config import load_config
from netzbench.params import load_params
from netzbench.records import validate_record
from netzbench.run.plan import plan_cell

from helpers import as_settings, REPO, make_params, write_package

#: what the published run trained (params.yaml's explicit entries before budgets moved to the catalogue)
PUBLISHED = {"random_tsp": 80, "mutag": 40, "cora": 100, "fb15k_237": 20, "euroroad": 80, "board_directors": 40,
             "internet_as": 40, "mnist_superpixels": 4, "ising_lattice": 60, "terrorists_911": 120,
             "citeseer": 100, "pubmed": 100}


def params_with(epochs: dict, **overrides) -> dict:
    """Test params whose `train.epochs` is exactly ``epochs`` (make_params fills some in)."""
    params = make_params(**overrides)
    params["train"]["epochs"] = dict(epochs)
    return params


def test_default_tasks_resolve_to_the_published_budgets():
    p = load_params(REPO / "params.yaml")
    assert p["train"]["epochs"] == {}
    assert {t: p["train"]["epochs"].get(t, TASKS[t].epochs) for t in p["tasks"]} == PUBLISHED


def test_a_narrowed_task_list_needs_no_epoch_entries(tmp_path):
    raw = yaml.safe_load((REPO / "params.yaml").read_text())
    raw.update(tasks=["karate", "random_tsp"], seeds=[0, 1], models=["GCN"])  # what `dvc exp run -S` writes
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(raw))
    settings = load_config(path)
    assert settings.tasks == ("karate", "random_tsp") and settings.train.epochs == {}


@pytest.mark.parametrize("epochs, message", [
    ({"karate": 0}, "`train.epochs.karate` must be a positive integer"),
    ({"karate": 2.5}, "`train.epochs.karate` must be a positive integer"),
    ({"karatee": 3}, "`train.epochs.karatee` is not a task of the catalogue"),
])
def test_overrides_are_still_checked(tmp_path, epochs, message):
    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump({"tasks": ["karate"], "models": ["GCN"], "train": {"epochs": epochs}}))
    with pytest.raises(Exception, match=message):
        load_config(path)


def test_fetch_writes_the_budget_into_meta(tmp_path):
    params = make_params(tasks=["random_tsp", "karate"])
    for task in ("random_tsp", "karate"):
        meta = fetch_task(task, as_settings(params), tmp_path)
        on_disk = json.loads((tmp_path / task / "meta.json").read_text())
        assert meta["epochs"] == on_disk["epochs"] == TASKS[task].epochs


def test_the_record_says_where_the_epochs_came_from(tmp_path):
    base = {"tasks": ["karate"], "seeds": [0]}
    fetch_task("karate", as_settings(make_params(**base)), tmp_path)
    budget = params_with({}, **base)
    override = params_with({"karate": 7}, **base)
    cells = {}
    for name, params in (("budget", budget), ("override", override)):
        for model in ("GCN", "GIN"):  # GIN does not serve node_cls: a record decided without training
            cells[name, model] = plan_cell("karate", model, as_settings(params), data_root=tmp_path)
    for model in ("GCN", "GIN"):
        rec = cells["budget", model].record
        assert rec["hyperparameters"]["epochs"] == 100 and rec["epochs_source"] == "catalogue"
        assert rec["task_spec"]["epochs"] == 100
        rec = cells["override", model].record
        assert rec["hyperparameters"]["epochs"] == 7 and rec["epochs_source"] == "params"
    assert cells["budget", "GCN"].keys[0, 0] != cells["override", "GCN"].keys[0, 0]
    assert [j.spec["hp"]["epochs"] for j in cells["override", "GCN"].jobs] == [7]
    validate_record(cells["budget", "GIN"].finish().to_dict())  # the schema knows the new fields
    with pytest.raises(Exception, match="epochs_source"):
        validate_record({**cells["budget", "GIN"].finish().to_dict(), "epochs_source": "guess"})


def test_a_meta_without_a_budget_asks_for_a_new_fetch(tmp_path):
    params = params_with({}, tasks=["karate"], seeds=[0])
    fetch_task("karate", as_settings(params), tmp_path)
    path = tmp_path / "karate" / "meta.json"
    meta = json.loads(path.read_text())
    del meta["epochs"]  # as an older netzbench wrote it
    path.write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="no epoch budget.*netzbench fetch karate"):
        plan_cell("karate", "GCN", as_settings(params), data_root=tmp_path)
    with_override = params_with({"karate": 3}, tasks=["karate"], seeds=[0])
    assert plan_cell("karate", "GCN", as_settings(with_override), data_root=tmp_path).record["epochs_source"] == "params"


def test_a_custom_task_trains_its_declared_epochs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    write_package(tmp_path, "budgetdata", {"loaders": textwrap.dedent("""
        def graph(root, *, seed):
            raise AssertionError("seed-aware: called at training time only")
    """)})
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({
        "tasks": ["bd_declared", "bd_default"], "models": ["GCN"], "seeds": [0],
        "custom_tasks": {"bd_declared": {"loader": "budgetdata.loaders:graph", "family": "link_pred", "epochs": 7},
                         "bd_default": {"loader": "budgetdata.loaders:graph", "family": "link_pred"}}}))
    try:
        params = load_config(tmp_path / "params.yaml")
        for task, budget in (("bd_declared", 7), ("bd_default", custom.DEFAULT_EPOCHS)):
            assert fetch_task(task, as_settings(params), tmp_path / "data")["epochs"] == budget
            rec = plan_cell(task, "GCN", as_settings(params), data_root=tmp_path / "data").record
            assert rec["hyperparameters"]["epochs"] == budget and rec["epochs_source"] == "catalogue"
    finally:
        for tid in ("bd_declared", "bd_default"):
            TASKS.pop(tid, None)
            DATASETS.pop(tid, None)
            custom._REGISTERED.pop(tid, None)


def test_a_loader_task_of_the_api_records_its_budget(tmp_path):
    from torch_geometric.datasets import KarateClub

    data = KarateClub()[0]
    meta = write_loader_task(tmp_path / "k", "k", "node_cls", lambda _root: data, root=tmp_path, epochs=9)
    assert meta["epochs"] == json.loads((tmp_path / "k" / "meta.json").read_text())["epochs"] == 9
    rec = plan_cell("k", "GCN", as_settings(params_with({}, seeds=[0])), task_dir=tmp_path / "k").record
    assert rec["hyperparameters"]["epochs"] == 9 and rec["epochs_source"] == "catalogue"


def test_netzbench_tasks_shows_budgets_and_overrides(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"tasks": ["karate"], "models": ["GCN"],
                                                           "train": {"epochs": {"karate": 5}}}))
    rows = {r["id"]: r for r in json.loads(CliRunner().invoke(main, ["tasks", "--json"]).output)}
    assert (rows["karate"]["epochs"], rows["karate"]["epochs_source"]) == (5, "params")
    assert (rows["cora"]["epochs"], rows["cora"]["epochs_source"]) == (TASKS["cora"].epochs, "catalogue")
    table = CliRunner().invoke(main, ["tasks"]).output
    assert any(line.startswith("karate ") and "5*" in line for line in table.splitlines())
    assert "* epochs from `train.epochs`" in table


def test_dvc_yaml_depends_on_the_whole_epochs_mapping():
    stages = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]
    params = stages["train"]["params"]
    assert "train.epochs" in params
    assert not [p for p in params if isinstance(p, str) and p.startswith("train.epochs.")]


def test_the_documented_overrides_apply(tmp_path):
    """The README's `-S` recipes, applied as `dvc exp run` applies them, give valid params."""
    hydra = pytest.importorskip("dvc.utils.hydra")
    path = tmp_path / "params.yaml"
    path.write_text((REPO / "params.yaml").read_text())
    hydra.apply_overrides(path, ["tasks=[karate,random_tsp]", "seeds=[0,1]", "models=[GCN]"])
    hydra.apply_overrides(path, ["++train.epochs.karate=5"])
    settings = load_config(path)
    assert settings.tasks == ("karate", "random_tsp") and settings.train.epochs == {"karate": 5}


def test_run_benchmark_trains_a_tasks_own_budget(tmp_path):
    from torch_geometric.datasets import KarateClub

    from netzbench.api import run_benchmark, task_from_dataset

    task = task_from_dataset("k_budget", "node_cls", KarateClub()[0], epochs=2)
    rep = run_benchmark(models={"GCN": "GCN"}, tasks=[task], seeds=[0], data_root=tmp_path, progress=False)
    assert rep.cells["k_budget"]["GCN"]["hyperparameters"]["epochs"] == 2
    with pytest.raises(ValueError, match="epochs must be a positive integer"):
        task_from_dataset("bad", "node_cls", None, epochs=0)
