"""Limits, crashes and progress of the local executor: one bad seed never stops the sweep."""

import pytest

from netzbench.params import ParamsError
from netzbench.run.execute import train_cell

from helpers import as_settings, make_params, misbehaving_workdir


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    return misbehaving_workdir(tmp_path, monkeypatch, "lab")


def test_timeout_stops_the_seed_and_the_sweep_goes_on(workdir):
    # generous: a spawned worker imports torch inside its time limit, slow on a loaded machine
    p = make_params(seeds=[0, 1, 2], exec={"workers": 2, "timeout_s": 20})
    rec = train_cell("random_tsp", "lab.models:SlowOnSeedOne", as_settings(p), "t.json", role="candidate",
                     progress=False)
    assert rec["seeds"]["1"]["status"] == "failed" and "timeout" in rec["seeds"]["1"]["error"]
    assert rec["seeds"]["0"]["status"] == rec["seeds"]["2"]["status"] == "ok"
    assert rec["status"] == "partial"


def test_memory_cap_fails_the_seed_not_the_machine(workdir):
    p = make_params(seeds=[0], exec={"workers": 1, "max_rss_gb": 2})
    rec = train_cell("random_tsp", "lab.models:Hungry", as_settings(p), "m.json", role="candidate",
                     progress=False)
    assert rec["seeds"]["0"]["status"] == "failed"
    assert "memory limit" in rec["seeds"]["0"]["error"]
    assert "()" not in rec["seeds"]["0"]["error"]  # a bare MemoryError has no text to put in parentheses


def test_a_crashing_worker_is_retried_then_recorded_and_others_finish(workdir):
    p = make_params(seeds=[0, 1, 2, 3], exec={"workers": 2})
    rec = train_cell("random_tsp", "lab.models:CrashOnSeedOne", as_settings(p), "c.json", role="candidate", progress=False)
    assert rec["seeds"]["1"]["status"] == "failed" and "died" in rec["seeds"]["1"]["error"]
    assert all(rec["seeds"][s]["status"] == "ok" for s in ("0", "2", "3"))


def test_progress_counts_epochs(workdir, capsys):
    p = make_params(seeds=[0, 1], train={"epochs": {"random_tsp": 7}}, exec={"workers": 2})
    train_cell("random_tsp", "GCN", as_settings(p), "p.json", progress=True)
    err = capsys.readouterr().err
    assert "14/14" in err and "epoch" in err


@pytest.mark.parametrize("exec_, message", [({"timeout_s": 0}, "exec.timeout_s"), ({"max_rss_gb": -1}, "exec.max_rss_gb"),
                                           ({"device": "tpu"}, "exec.device")])
def test_bad_exec_values(exec_, message):
    with pytest.raises(ParamsError, match=message):
        make_params(exec=exec_)


def test_device_resolution_needs_no_torch_without_a_gpu_driver(monkeypatch):
    """Planning a cell (every seed cached: no training) decides the device without importing torch
    where no GPU driver exists; where one might, it counts devices without CUDA here (run.device)."""
    import subprocess
    import sys

    from netzbench.run import device

    code = ("import sys; from netzbench.run import device; device.no_gpu_driver = lambda: True; "
            "print(device.resolve('auto'), device.resolve('cpu'), 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["cpu", "cpu", "False"]
    monkeypatch.setattr(device, "no_gpu_driver", lambda: False)
    device._count.cache_clear()
    monkeypatch.setattr(device, "_nvml_count", lambda: 0)
    assert device.resolve("auto") == "cpu"
    with pytest.raises(device.DeviceError, match="no CUDA device is available"):
        device.resolve("cuda")
    device._count.cache_clear()


def test_jobs_that_cannot_start_are_recorded_failed_not_waited_for(monkeypatch):
    """A worker that cannot be started (the forkserver unreachable, a job that will not pickle) fails its
    job; the pool then has nothing running and returns, where it used to wait on an empty list forever."""
    import threading

    from netzbench.run import pool

    def refuse(ctx, job, devices=None):
        raise OSError("AF_UNIX path too long")

    monkeypatch.setattr(pool, "_Worker", refuse)
    results = []
    runner = threading.Thread(target=lambda: pool._run_processes(["a", "b", "c"], 2, lambda job, r: results.append((job, r)),
                                                                 None, None), daemon=True)
    runner.start()
    runner.join(10)
    assert not runner.is_alive(), "the pool waits for workers that never started"
    assert [job for job, _ in results] == ["a", "b", "c"]
    assert all(r["status"] == "failed" and "AF_UNIX path too long" in r["error"] for _, r in results)


def test_a_deep_temporary_folder_gets_spawned_workers(monkeypatch, tmp_path):
    """The forkserver's socket lives in the temporary folder: where its path would not fit a Unix socket
    the pool spawns its workers instead (each imports torch itself) rather than failing every seed."""
    import multiprocessing
    import tempfile

    from netzbench.run import pool

    monkeypatch.setattr(pool, "_CONTEXT", None)
    monkeypatch.setattr(tempfile, "tempdir", "/tmp/" + "d" * 80)
    assert pool._forkserver_address_too_long()
    assert pool.pool_context().get_start_method() == "spawn"
    monkeypatch.setattr(pool, "_CONTEXT", None)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    if "forkserver" in multiprocessing.get_all_start_methods() and not pool._forkserver_address_too_long():
        assert pool.pool_context().get_start_method() == "forkserver"
