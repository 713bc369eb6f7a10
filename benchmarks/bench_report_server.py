"""What a report server saved a report stage: the imports and the warm-up its children started with.

Until issue 49, a ``dvc exp run`` of a new candidate started a report server while the train stage
waited for its seed server; the report stage then handed its command line to a child forked from it.
What the child did not pay, and a report stage without the server does, is importing the report
(scipy, statsmodels, matplotlib, ``netzbench.report.stage``) and drawing the first figure (fonts,
mathtext, the PNG encoder: the server's warm-up, repeated here) -- both after the command line, which
either path imports. This script times exactly that, in fresh interpreters that imported
the command line module first, ``--runs`` times, and prints each time, the median and the load average: the
cost of retiring the server, per report stage (retired: under 2 s). Its CPU time too: the imports run on one core, so on a
machine that others load, the CPU time estimates the wall time of an idle one. (Issue 49: retire it if under 2 s.)

Usage: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_report_server.py [--runs 7]`` on an idle machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

PROBE = r"""
import time
from netzbench import cli  # noqa: F401 - both paths import the command line (this script trains nothing)
t, c = time.perf_counter(), time.process_time()
import netzbench.report.stage  # noqa: F401
from matplotlib.figure import Figure
from netzbench.report.figures.style import figure_bytes
fig = Figure(figsize=(2, 1.5), layout="constrained")  # the report server's warm-up: one small figure
ax = fig.add_subplot()
ax.plot([0, 1], [0, 1], marker="o")
ax.set_title(r"$\alpha$ = 0.05")
ax.set_xlabel("epoch")
figure_bytes(fig, "png")
print(time.perf_counter() - t, time.process_time() - c)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    times, cpu = [], []
    for _ in range(args.runs):
        done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
        wall, used = map(float, done.stdout.split()[-2:])
        times.append(wall)
        cpu.append(used)
        print(f"report imports + warm-up: {wall:.2f} s wall, {used:.2f} s CPU")
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"median {statistics.median(times):.2f} s wall (min {min(times):.2f}, max {max(times):.2f}), "
          f"{statistics.median(cpu):.2f} s CPU (min {min(cpu):.2f}) over {len(times)} runs; load average {load} "
          f"on {os.cpu_count()} cores (on a loaded machine the CPU time is the better estimate of an idle wall)")


if __name__ == "__main__":
    main()
