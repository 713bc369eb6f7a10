"""The load a benchmark measures under (issue 51): ``bench_exp_run.py --load N`` runs ``dvc exp run`` beside N
processes that each keep a core busy, and stops them after, whatever happens inside."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_exp_run  # noqa: E402


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads CPU time from /proc (Linux)")
def test_the_busy_processes_use_the_cpu_while_the_block_runs_and_are_gone_after(capsys):
    with pytest.raises(RuntimeError, match="inside"):
        with bench_exp_run.busy(2):
            deadline, pids = time.monotonic() + 10, []
            while len(pids) < 2 and time.monotonic() < deadline:  # each is ours once it has exec'd Python
                pids = [int(p) for p in os.listdir("/proc") if p.isdigit() and _is_loop(int(p))]
                time.sleep(0.05)
            assert len(pids) == 2, pids
            time.sleep(0.5)
            assert all(_cpu_seconds(p) > 0.1 for p in pids)  # busy, not sleeping
            raise RuntimeError("inside")
    assert not any(_alive(p) for p in pids)
    assert "load: 2 busy process(es)" in capsys.readouterr().out
    with bench_exp_run.busy(0):  # no load: nothing started, nothing said
        pass
    assert capsys.readouterr().out == ""


def _is_loop(pid: int) -> bool:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        return b"while True: pass" in cmd and int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]) \
            == os.getpid()
    except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
        return False
