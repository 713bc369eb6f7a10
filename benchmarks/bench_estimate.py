"""How close `netzbench estimate` comes to what a finished run took, per task.

Runs the estimate of ``params.yaml``'s tasks as a fresh clone would pay it (``--afresh``: every seed to
train, the cache notwithstanding) and sets it beside the published run's seed records
(``reports/benchmark.json``): per task, the seconds of training summed over every seed of every cell
(each seed's own ``seconds``, measured by the worker as the probe measures its few epochs), and the
ratio estimate / actual. Goal (issue 29): within a factor of 1.5 per task.

The two are measured under different loads: the probes run one at a time, the run's seeds two at a
time on two cores (and beside whatever else the machine did then). Run it on an idle machine, after the
run's data is fetched (``dvc repro fetch``).

Usage: ``.venv/bin/python benchmarks/bench_estimate.py [--params params.yaml] [--benchmark reports/benchmark.json]``
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict

from netzbench.config import load_config
from netzbench.run.estimate import estimate_plan


def actual_seconds(benchmark: dict) -> dict[str, float]:
    """Per task, the seconds of every seed of every cell with a record (the published run's training)."""
    out: dict[str, float] = defaultdict(float)
    for task, cells in benchmark["cells"].items():
        for cell in cells.values():
            for seed in (cell.get("seeds") or {}).values():
                out[task] += float(seed.get("seconds") or 0.0)
    return dict(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--benchmark", default="reports/benchmark.json")
    args = ap.parse_args()
    params = load_config(args.params)
    with open(args.benchmark, encoding="utf-8") as fh:
        actual = actual_seconds(json.load(fh))
    t0 = time.perf_counter()
    result = estimate_plan(params, afresh=True)
    took = time.perf_counter() - t0
    estimated: dict[str, float] = defaultdict(float)
    for c in result["cells"]:
        if c["status"] == "train":
            estimated[c["task"]] += c["seconds_per_seed"] * c["seeds_to_train"]
    print(f"| task | estimate (s) | published run (s) | estimate / run |\n|---|---:|---:|---:|")
    for task in params["tasks"]:
        if task not in actual and task not in estimated:
            continue
        e, a = estimated.get(task, 0.0), actual.get(task, 0.0)
        ratio = f"{e / a:.2f}" if a else "-"
        print(f"| {task} | {e:.0f} | {a:.0f} | {ratio} |")
    e_all, a_all = sum(estimated.values()), sum(actual.values())
    print(f"| all | {e_all:.0f} | {a_all:.0f} | {e_all / a_all:.2f} |" if a_all else "")
    print(f"\nthe estimate itself took {took:.0f} s; its plan: {result['wall_s'] / 60:.1f} min of dvc repro wall time "
          f"with {result['workers']} worker(s)")


if __name__ == "__main__":
    main()
