"""The Ray executor on a real local Ray cluster: same records as the local executor; the sweep fills the cache."""

import json

import pytest
import yaml
from click.testing import CliRunner

from netzbench.catalog.data import fetch_task
from netzbench.run.execute import train_cell

from helpers import as_settings, make_params

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'netzbench[ray]')")


@pytest.fixture(scope="module")
def cluster():
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"Ray cannot start on this machine: {exc}")
    yield
    ray.shutdown()


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for t in ("karate", "random_tsp"):
        fetch_task(t, as_settings(make_params()), "data")
    return tmp_path


def _hist(rec):
    return {s: e["history"] for s, e in rec["seeds"].items()}


def test_ray_executor_matches_local(cluster, workdir, monkeypatch, tmp_path_factory):
    local = train_cell("karate", "GCN", as_settings(make_params(tasks=["karate"], seeds=[0, 1, 2])), "l.json",
                       progress=False)
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("raycache")))
    p = make_params(tasks=["karate"], seeds=[0, 1, 2], exec={"executor": "ray"})
    remote = train_cell("karate", "GCN", as_settings(p), "r.json", progress=False)
    assert not any(e.get("cached") for e in remote["seeds"].values())
    assert _hist(remote) == _hist(local)
    # synthetic data (generated in the worker) and a search fan out as separate Ray tasks too
    p = make_params(tasks=["random_tsp"], seeds=[0, 1], exec={"executor": "ray"},
                    search={"space": {"lr": [0.01, 0.02]}})
    rec = train_cell("random_tsp", "GraphSAGE", as_settings(p), "s.json", progress=False)
    assert rec["status"] == "ok" and len(rec["seeds"]["0"]["search"]["trace"]) == 2


def test_sweep_fills_the_cache_then_cells_record_without_training(cluster, workdir):
    params = {"tasks": ["karate", "random_tsp"], "models": ["GCN", "GIN"], "seeds": [0, 1],
              "train": {"epochs": {"karate": 3, "random_tsp": 3}}, "exec": {"executor": "ray", "device": "cpu"}}
    (workdir / "params.yaml").write_text(yaml.safe_dump(params))
    out = CliRunner().invoke(main_cli(), ["sweep", "--dry-run"])
    assert out.exit_code == 0 and "4 cells x 2 seeds x 1 candidate(s)" in out.output and "4 not cached" in out.output
    out = CliRunner().invoke(main_cli(), ["sweep"])
    assert out.exit_code == 0, out.output
    assert "4 run(s) cached" in out.output
    for task in ("karate", "random_tsp"):
        out = CliRunner().invoke(main_cli(), ["train", task, "GCN"])
        assert out.exit_code == 0, out.output
        rec = json.loads((workdir / f"metrics/runs/{task}/GCN.json").read_text())
        assert all(e["cached"] for e in rec["seeds"].values())


def main_cli():
    from netzbench.cli import main

    return main


def test_ray_missing_is_a_clear_error(monkeypatch):
    import builtins

    from netzbench.run import ray_executor

    real_import = builtins.__import__

    def fake_import(name, *a, **k):
        if name == "ray":
            raise ImportError("no ray")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(RuntimeError, match=r"pip install 'netzbench\[ray\]'"):
        ray_executor._ray()
