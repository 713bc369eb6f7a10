"""The cell runner: determinism, the per-seed cache, failures, incompatible cells, records."""

import json
import subprocess
import sys
import textwrap

import pytest

from netzbench.catalog.data import fetch_task
from netzbench.records import read_record, validate_record
from netzbench.run.execute import train_cell

from helpers import as_settings, MISBEHAVING_MODELS, REPO, make_params, write_package


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _fetch(task, params):
    fetch_task(task, as_settings(params), "data")


def _histories(record):
    return {s: e.get("history") for s, e in record["seeds"].items()}


def test_same_seed_same_history_whatever_exec_says(workdir, monkeypatch, tmp_path_factory):
    p1 = make_params(tasks=["karate"], models=["GCN"], seeds=[0, 1, 2], exec={"workers": 1})
    _fetch("karate", p1)
    r1 = train_cell("karate", "GraphSAGE", as_settings(p1), "a.json", progress=False)
    # fresh cache, two workers: must train again and give identical histories
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("other")))
    p2 = make_params(tasks=["karate"], models=["GCN"], seeds=[0, 1, 2], exec={"workers": 2})
    r2 = train_cell("karate", "GraphSAGE", as_settings(p2), "b.json", progress=False)
    assert all(not e.get("cached") for e in r2["seeds"].values())
    assert _histories(r1) == _histories(r2)
    assert r1["seeds"]["0"]["history"] != r1["seeds"]["1"]["history"]  # seeds do differ
    validate_record(read_record("a.json"))


def test_cache_resumes_adds_seeds_and_never_serves_stale(workdir):
    p = make_params(tasks=["random_tsp"], seeds=[0, 1])
    _fetch("random_tsp", p)
    first = train_cell("random_tsp", "GCN", as_settings(p), "r.json", progress=False)
    again = train_cell("random_tsp", "GCN", as_settings(p), "r.json", progress=False)
    assert all(e["cached"] for e in again["seeds"].values())
    assert _histories(first) == _histories(again)
    more = train_cell("random_tsp", "GCN", as_settings(make_params(tasks=["random_tsp"], seeds=[0, 1, 2])), "r.json",
                      progress=False)
    assert [more["seeds"][s].get("cached", False) for s in ("0", "1", "2")] == [True, True, False]
    # a result-changing parameter changes the key: nothing is served from the cache
    changed = make_params(tasks=["random_tsp"], seeds=[0, 1], train={"epochs": {"random_tsp": 4}})
    other = train_cell("random_tsp", "GCN", as_settings(changed), "r.json", progress=False)
    assert not any(e.get("cached") for e in other["seeds"].values())
    assert len(other["seeds"]["0"]["epochs"]) == 4
    # exec settings are not part of the result
    faster = make_params(tasks=["random_tsp"], seeds=[0, 1], exec={"workers": 2})
    assert all(e["cached"] for e in train_cell("random_tsp", "GCN", as_settings(faster), "r.json",
                                               progress=False)["seeds"].values())


def test_record_contents(workdir):
    p = make_params(tasks=["random_tsp"], seeds=[0], train={"eval_every": 2, "epochs": {"random_tsp": 5}})
    _fetch("random_tsp", p)
    rec = train_cell("random_tsp", "GCN", as_settings(p), "rec.json", progress=False)
    on_disk = json.loads((workdir / "rec.json").read_text())
    validate_record(on_disk)
    assert on_disk["headline_metric"] == "test_mrr" and on_disk["direction"] == "higher"  # strict: MRR
    assert on_disk["threads"] == 1 and on_disk["software"]["torch"]
    seed = on_disk["seeds"]["0"]
    assert seed["epochs"] == [2, 4, 5]  # every eval_every-th epoch and always the last
    assert set(seed["history"]) >= {"train_loss", "val_auc", "test_auc", "val_ap", "test_ap", "val_mrr", "test_mrr",
                                    "test_hits1", "test_hits3", "test_hits10", "test_distinct"}
    assert all(len(v) == 3 for v in seed["history"].values())
    assert seed["split"] == {"redrawn": True, "n_train": seed["split"]["n_train"], "n_test": seed["split"]["n_test"]}
    assert seed["split"]["n_train"] > seed["split"]["n_test"] > 0 and seed["leakage"] == []
    assert seed["num_params"] > 0 and seed["peak_rss_mb"] > 0
    assert rec["status"] == "ok"


def test_failing_seed_is_recorded_not_raised(workdir):
    write_package(workdir, "badpkg", {"models": MISBEHAVING_MODELS})
    p = make_params(tasks=["random_tsp"], seeds=[0, 1])
    _fetch("random_tsp", p)
    rec = train_cell("random_tsp", "badpkg.models:Exploding", as_settings(p), "f.json", role="candidate",
                     progress=False)
    assert rec["status"] == "failed"
    assert all(e["status"] == "failed" and "boom in forward" in e["error"] for e in rec["seeds"].values())
    validate_record(read_record("f.json"))


def test_incompatible_cell_is_decided_without_torch(workdir):
    code = textwrap.dedent(f"""
        import sys, json
        sys.path.insert(0, {str(REPO / 'tests')!r})
        from helpers import make_settings
        from netzbench.catalog.data import fetch_task
        from netzbench.run.execute import train_cell
        fetch_task("random_tsp", make_settings(), "data")
        rec = train_cell("random_tsp", "GIN", make_settings(), "gin.json")
        print(json.dumps({{"status": rec["status"], "torch": "torch" in sys.modules}}))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=workdir)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"status": "incompatible", "torch": False}
    rec = read_record(workdir / "gin.json")
    assert "does not serve link_pred" in rec["seeds"]["0"]["reason"]
    validate_record(rec)


def test_unavailable_data_gives_unavailable_cell(workdir):
    (workdir / "data" / "cora").mkdir(parents=True)
    (workdir / "data" / "cora" / "meta.json").write_text(json.dumps(
        {"status": "unavailable", "reason": "offline", "task": "cora", "family": "node_cls", "split": "planetoid"}))
    rec = train_cell("cora", "GCN", as_settings(make_params(tasks=["cora"])), "u.json")
    assert rec["status"] == "unavailable" and "offline" in rec["seeds"]["1"]["reason"]


def test_kill_minus_nine_loses_no_finished_seed(workdir):
    """Kill the stage while seeds are still running: finished seeds are in the cache, a rerun resumes."""
    import os
    import signal
    import time

    from netzbench.run.cache import SeedCache

    p = make_params(tasks=["karate"], seeds=list(range(6)), train={"epochs": {"karate": 400}},
                    exec={"workers": 1})
    _fetch("karate", p)
    import yaml

    (workdir / "params.yaml").write_text(yaml.safe_dump(
        {"tasks": ["karate"], "models": ["GraphSAGE"], "seeds": list(range(6)),
         "train": {"epochs": {"karate": 400}}, "exec": {"workers": 1}}))
    proc = subprocess.Popen([sys.executable, "-m", "netzbench.cli", "train", "karate", "GraphSAGE"], cwd=workdir,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    cache = SeedCache()
    deadline = time.time() + 120
    while time.time() < deadline and not any(cache.root.rglob("*.json")):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)  # the stage and its workers, mid-run
    proc.wait()
    finished = len(list(cache.root.rglob("*.json")))
    assert 1 <= finished < 6
    assert not (workdir / "metrics/runs/karate/GraphSAGE.json").exists()  # nothing torn was written
    rec = train_cell("karate", "GraphSAGE", as_settings(make_params(tasks=["karate"], seeds=list(range(6)),
                     train={"epochs": {"karate": 400}}, exec={"workers": 2})), "k.json",
                     progress=False)
    assert sum(bool(e.get("cached")) for e in rec["seeds"].values()) == finished
    assert rec["status"] == "ok"
