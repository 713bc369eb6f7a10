"""A seed's worker keeps the memory its tensors free for the next ones (worker.reuse_freed_memory): a
full-batch epoch allocates the same large temporaries again and again, and without it every one of
them is a fresh mapping whose pages fault in anew."""

import os
import subprocess
import sys

import pytest

from netzbench.run import worker

pytestmark = pytest.mark.skipif(worker._glibc() is None, reason="glibc's malloc only (mallopt)")

#: a [23k, 512] float tensor (Internet AS's GAT hidden layer, 47 MB) written, then freed, again and
#: again: the page faults of the 30 times after the first 10 (the heap settles in those)
ALLOCATE = """
import resource, sys
import torch
from netzbench.run import worker
if sys.argv[1] == "reuse":
    worker.reuse_freed_memory()
x = torch.ones(22963, 512)
for i in range(40):
    if i == 10:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    y = x * 2.0
    del y
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _page_faults(mode: str) -> int:
    env = {k: v for k, v in os.environ.items() if k != "THP_MEM_ALLOC_ENABLE"}  # 4 KB pages: clear counts
    done = subprocess.run([sys.executable, "-c", ALLOCATE, mode], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stdout.split()[-1])


def test_freed_tensors_are_reused_without_page_faults():
    pages = 22963 * 512 * 4 // 4096  # one tensor's 4 KB pages
    assert _page_faults("default") > 25 * pages  # glibc maps and unmaps each one: every page faults again
    assert _page_faults("reuse") < pages // 10  # the memory freed serves the next one as it is


class _Libc:
    """Stands in for glibc: records every mallopt call."""

    def __init__(self):
        self.calls = []

    def mallopt(self, param, value):
        self.calls.append((param, value))
        return 1


def _job():
    return worker.Job(spec={"task": "t", "model": "GCN", "model_args": None, "seed": 0}, trial=0, data_dir="d",
                      meta={}, cwd=".", sys_path=[], threads=1, device="cpu", timeout_s=None, max_rss_gb=None,
                      arithmetic="native")


@pytest.fixture
def libc(monkeypatch):
    """glibc's mallopt recorded, not called; every seed stops at its data (there is none: before any tensor)."""
    import torch

    fake = _Libc()
    monkeypatch.setattr(worker, "_glibc", lambda: fake)
    monkeypatch.setenv("THP_MEM_ALLOC_ENABLE", os.environ.get("THP_MEM_ALLOC_ENABLE", "1"))  # restored after
    threads = torch.get_num_threads()
    yield fake
    torch.set_num_threads(threads)


def test_a_worker_process_reuses_freed_memory_before_its_first_tensor(libc):
    """run_seed in a worker (no ``on_epoch``) sets both thresholds before the seed's first tensor."""
    result = worker.run_seed(_job())
    assert libc.calls == [(worker._M_MMAP_THRESHOLD, worker.REUSE_BELOW), (worker._M_TRIM_THRESHOLD, worker.KEEP_FREE)]
    assert result["status"] == "failed" and "d/meta.json is missing" in result["error"]


def test_the_in_process_executor_leaves_the_callers_allocator_alone(libc):
    """The Python API trains in the caller's process: mallopt would change its allocator for the rest
    of the user's session, so in-process seeds never call it."""
    from netzbench.run.inprocess import run_jobs

    results = []
    run_jobs([_job(), _job()], lambda job, result: results.append(result))
    assert [r["status"] for r in results] == ["failed", "failed"] and "d/meta.json is missing" in results[0]["error"]
    assert libc.calls == []
    assert worker.run_seed(_job(), on_epoch=lambda epoch: None)["status"] == "failed" and libc.calls == []
