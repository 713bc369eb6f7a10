"""A process model that is safe with CUDA (issue 48), tested without a GPU.

Every seed of a GPU run failed with ``CUDA error: initialization error``: its worker was a fork of a process
that had initialised CUDA. Here: the parent never initialises CUDA while it plans and places the seeds (CUDA
is made to raise in a child interpreter that plans a cuda cell); GPU jobs are spawned, never forked or sent to
the warm server; each worker pins one device, round-robin; the portable arithmetic check is for CPU seeds
only; a spawned, pinned run of a small cell on the CPU gives the histories of the default path. CUDA itself is
stood in for (device counts, ``is_initialized``), never its results.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from netzbench.run import device, pool
from netzbench.run.job import Job

from helpers import as_settings, make_params

TESTS = str(Path(__file__).resolve().parent)


@pytest.fixture
def gpus(monkeypatch):
    """A machine with ``n`` GPUs as this process's device module sees it (the driver's count stood in for)."""
    def have(n: int, visible: str | None = None):
        monkeypatch.setattr(device, "no_gpu_driver", lambda: False)
        monkeypatch.setattr(device, "_nvml_count", lambda: n)
        if visible is None:
            monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
        else:
            monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
        device._count.cache_clear()

    yield have
    device._count.cache_clear()


def _job(index: int, dev: str = "cuda", arithmetic: str = "native") -> Job:
    return Job(spec={"task": "t", "model": "GCN", "model_args": None, "seed": index}, trial=0, data_dir="d",
               meta={}, cwd=".", sys_path=[], threads=1, device=dev, timeout_s=None, max_rss_gb=None,
               arithmetic=arithmetic, job_index=index)


# -- deciding the device -------------------------------------------------------------------------

def test_auto_and_cuda_follow_the_devices_counted_without_cuda(gpus):
    gpus(0)
    assert device.resolve("auto") == "cpu" and device.resolve("cpu") == "cpu"
    with pytest.raises(device.DeviceError, match="'cuda' but no CUDA device"):
        device.resolve("cuda")
    gpus(2)
    assert device.resolve("auto") == device.resolve("cuda") == "cuda"
    assert device.visible_devices() == ["0", "1"]


@pytest.mark.parametrize("visible, expected", [("2,3", ["2", "3"]), ("GPU-5f1c,1", ["GPU-5f1c", "1"]),
                                               ("0,-1,2", ["0"]), ("", []), ("-1", []), ("0,1,2,3,4,5", ["0", "1", "2", "3"])])
def test_visible_devices_are_read_as_cuda_reads_them(gpus, visible, expected):
    gpus(4, visible)
    assert device.visible_devices() == expected
    assert device.gpu_count() == len(expected)
    assert device.resolve("auto") == ("cuda" if expected else "cpu")


def test_a_cuda_run_without_a_gpu_is_a_one_line_error_of_the_command_line(gpus):
    from netzbench.cli_common import UserError, check_device

    gpus(0)
    with pytest.raises(UserError, match="^exec.device is 'cuda' but no CUDA device is available here"):
        check_device(as_settings(make_params(exec={"device": "cuda"})))
    gpus(1)
    check_device(as_settings(make_params(exec={"device": "cuda"})))


PLAN_WITH_CUDA_REFUSED = """
import json, sys
sys.path.insert(0, {tests!r})
import torch

def refuse(*args, **kwargs):
    raise AssertionError("CUDA touched in the parent")

for name in ("_lazy_init", "init", "is_available", "device_count", "current_device", "get_device_name",
             "get_device_properties", "synchronize"):
    setattr(torch.cuda, name, refuse)
if hasattr(torch._C, "_cuda_getDeviceCount"):  # a CUDA build (set on a CPU build, torch would think it one)
    torch._C._cuda_getDeviceCount = refuse
from netzbench.run import device
device.no_gpu_driver = lambda: False
device._nvml_count = lambda: 2
from helpers import as_settings, make_params
from netzbench.cli_common import check_device
from netzbench.run.plan import plan_cell
from netzbench.run import pool

out = {{}}
for requested in ("cuda", "auto"):
    params = make_params(tasks=["karate"], seeds=[0, 1, 2], exec={{"device": requested}})
    check_device(as_settings(params))
    plan = plan_cell("karate", "GCN", as_settings(params), data_root={root!r}, quiet=True)
    out[requested] = [j.device for j in plan.jobs]
    groups = pool.placement([j.placed(i) for i, j in enumerate(plan.jobs)])
    out[requested + "_placement"] = [(len(g), m, d) for g, m, d in groups]
import netzbench.run.preload  # what a forkserver or warm server imports: no CUDA either
out["initialized"] = torch.cuda.is_initialized()
print(json.dumps(out))
"""


def test_planning_and_placing_a_cuda_cell_never_touches_cuda_in_the_parent(tmp_path):
    """A child interpreter in which every CUDA entry point raises plans a cuda and an auto cell (2 GPUs stood in
    for), places its jobs and imports the preload module: no raise, and CUDA is not initialised."""
    from netzbench.catalog.data import fetch_task

    fetch_task("karate", as_settings(make_params(tasks=["karate"])), tmp_path)
    code = PLAN_WITH_CUDA_REFUSED.format(tests=TESTS, root=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["cuda"] == out["auto"] == ["cuda"] * 3
    assert out["cuda_placement"] == [[3, "spawn", ["0", "1"]]]
    assert out["initialized"] is False


def test_planning_a_cpu_cell_where_no_driver_exists_imports_no_torch(tmp_path):
    from netzbench.catalog.data import fetch_task

    fetch_task("karate", as_settings(make_params(tasks=["karate"])), tmp_path)
    code = (f"import sys; sys.path.insert(0, {TESTS!r}); from netzbench.run import device; "
            "device.no_gpu_driver = lambda: True; from helpers import make_settings; "
            "from netzbench.run.plan import plan_cell; "
            "p = plan_cell('karate', 'GCN', make_settings(tasks=['karate'], exec={'device': 'auto'}), "
            f"data_root={str(tmp_path)!r}, quiet=True); print(p.jobs[0].device, 'torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-2:] == ["cpu", "False"]


# -- starting and pinning the workers -------------------------------------------------------------

def test_cuda_work_is_spawned_and_cpu_work_keeps_the_pool(gpus):
    gpus(3, "4,5,6")
    assert device.start_method("cuda") == "spawn" and device.start_method("cpu") is None
    jobs = [_job(0, "cuda"), _job(1, "cpu"), _job(2, "cuda")]
    groups = pool.placement(jobs)
    assert [([j.job_index for j in g], m, d) for g, m, d in groups] == [([0, 2], "spawn", ["4", "5", "6"]),
                                                                      ([1], None, None)]


def test_cuda_jobs_never_go_to_the_warm_server(gpus, monkeypatch):
    """The warm server's children are forks: GPU jobs run in spawned workers of the stage's own pool."""
    from netzbench.run import warm

    gpus(2)
    ran = []

    def refuse(*args, **kwargs):
        raise AssertionError("a GPU job was sent to the warm server")

    monkeypatch.setattr(warm, "run_jobs_warm", refuse)
    monkeypatch.setattr(pool, "_run_with_retries",
                        lambda jobs, workers, on_result, on_epochs, ctx, devices=None:
                        ran.append((len(jobs), ctx.get_start_method(), devices)))
    pool.run_jobs([_job(i) for i in range(3)], 2, lambda job, result: None, warm_s=60.0)
    assert ran == [(3, "spawn", ["0", "1"])]


def test_workers_pin_their_devices_round_robin(monkeypatch):
    import torch

    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1,2")
    chosen = []
    for index in range(7):
        chosen.append(device.pin(["0", "1", "2"], index))
        assert __import__("os").environ["CUDA_VISIBLE_DEVICES"] == chosen[-1]
        assert device.pinned_entry() == chosen[-1]  # what the seed records as its cuda_device
    assert chosen == ["0", "1", "2", "0", "1", "2", "0"]
    assert __import__("os").environ["CUBLAS_WORKSPACE_CONFIG"] == device.CUBLAS_WORKSPACE
    with pytest.raises(device.DeviceError, match="no CUDA device is visible"):
        device.pin([], 0)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    with pytest.raises(RuntimeError, match="initialised in this worker before its device was pinned"):
        device.pin(["0"], 0)


def test_a_spawned_pinned_run_gives_the_default_paths_histories(monkeypatch, tmp_path):
    """The GPU branch of the pool (spawned workers, each pinning a device from its job's index) run on the CPU:
    the same histories as the default forkserver path, and each seed says which device it was pinned to."""
    import multiprocessing

    from netzbench.catalog.data import fetch_task
    from netzbench.run.plan import plan_cell

    from netzbench.run.arithmetic import PORTABLE_ENV

    params = make_params(tasks=["karate"], seeds=[0, 1, 2], train={"epochs": {"karate": 3}}, exec={"workers": 2})
    for name, value in PORTABLE_ENV.items():  # what run_plans sets for the workers (the default mode: portable)
        monkeypatch.setenv(name, value)
    fetch_task("karate", as_settings(params), tmp_path)
    jobs = plan_cell("karate", "GCN", as_settings(params), data_root=tmp_path, quiet=True).jobs

    def run() -> dict:
        got = {}
        pool.run_jobs(jobs, 2, lambda job, result: got.__setitem__(job.spec["seed"], result), warm_s=0.0)
        return got

    default = run()
    assert "spawn" in multiprocessing.get_all_start_methods()
    monkeypatch.setattr(pool, "start_method", lambda dev: "spawn")
    monkeypatch.setattr(pool, "visible_devices", lambda: ["7", "8"])
    spawned = run()
    assert all(r["status"] == "ok" for r in [*default.values(), *spawned.values()]), [default, spawned]
    assert {s: r["history"] for s, r in spawned.items()} == {s: r["history"] for s, r in default.items()}
    assert {s: r["cuda_device"] for s, r in spawned.items()} == {0: "7", 1: "8", 2: "7"}
    assert not any("cuda_device" in r for r in default.values())


# -- arithmetic and Ray ----------------------------------------------------------------------------

def test_portable_arithmetic_is_checked_for_cpu_seeds_only(monkeypatch):
    """On an AVX-512 host a cuda seed trains; a CPU seed is refused as before."""
    import torch

    from netzbench.run import worker
    from netzbench.run.arithmetic import ArithmeticError_, check

    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX512")
    with pytest.raises(ArithmeticError_, match="uses the AVX512 kernels"):
        check("portable", "cpu")
    check("portable", "cuda")
    monkeypatch.setattr(worker, "job_arrays", lambda job: {})
    monkeypatch.setattr(worker, "resolve_device", lambda requested: (_ for _ in ()).throw(RuntimeError("past it")))
    cuda = worker.run_seed(_job(0, "cuda", "portable"), on_epoch=lambda epoch: None)
    cpu = worker.run_seed(_job(0, "cpu", "portable"), on_epoch=lambda epoch: None)
    assert "past it" in cuda["error"] and "ArithmeticError_" not in cuda["error"]
    assert "AVX512" in cpu["error"]


def test_ray_tasks_share_a_gpu_by_exec_workers():
    from netzbench.run.ray_executor import task_options

    params = as_settings(make_params(exec={"workers": 4})).execution
    gpu = task_options(_job(0, "cuda", "portable"), params)
    assert gpu["num_gpus"] == 0.25 and gpu["num_cpus"] == 1
    assert gpu["runtime_env"]["env_vars"]["CUBLAS_WORKSPACE_CONFIG"] == device.CUBLAS_WORKSPACE
    assert gpu["runtime_env"]["env_vars"]["ATEN_CPU_CAPABILITY"] == "avx2"
    assert "num_gpus" not in task_options(_job(0, "cpu"), params)
    assert "runtime_env" not in task_options(_job(0, "cpu"), params)
