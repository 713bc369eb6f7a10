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


def test_every_seed_runs_with_it(monkeypatch):
    """run_seed turns it on before the seed's first tensor (in a worker and in-process alike)."""
    calls = []
    monkeypatch.setattr(worker, "reuse_freed_memory", lambda: calls.append(True))
    monkeypatch.setattr(worker, "resolve_device", lambda requested: (_ for _ in ()).throw(RuntimeError("stop")))
    job = worker.Job(spec={"task": "t", "model": "GCN", "model_args": None, "seed": 0}, candidate=0, data_dir="d",
                     meta={}, cwd=".", sys_path=[], threads=1, device="cpu", timeout_s=None, max_rss_gb=None,
                     arithmetic="native")
    result = worker.run_seed(job, on_epoch=lambda epoch: None)
    assert calls == [True] and result["status"] == "failed"
