"""How close `netzbench estimate` comes to what a finished run took, per task.

Runs the estimate of ``params.yaml``'s tasks as a fresh clone would pay it (``--afresh``: every seed to
train, the cache notwithstanding; ``--remeasure``: every probe measured now, none taken from the probe
cache), then once more with the probes the first kept, and prints how long each took (issue 51's goal:
about a minute for the published plan). It sets the estimate beside the published run's seed records
(``reports/benchmark.json``): per task, the seconds of training summed over every seed of every cell
(each seed's own ``seconds``, measured by the worker as the probe measures its epochs), and the
ratio estimate / actual (the error the estimate states, ``STATED_ERROR``, comes from here).

Probes and seeds run alike (``exec.workers`` at a time, children of the warm server), but the run's
seeds shared the machine with whatever else it did then. Run it on an idle machine, after the
run's data is fetched (``dvc repro fetch``).

``--retrain`` also trains the chosen tasks' cells afresh now, on this machine, into a scratch seed cache
(the project's cache is left alone), and sets the estimate beside those seconds too: a reference measured
under the probes' own conditions, where the published run's seeds shared the machine with other work.

Usage: ``.venv/bin/python benchmarks/bench_estimate.py [--params params.yaml] [--benchmark reports/benchmark.json]
[--tasks T ...] [--retrain]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from arithmetic_first import configure_arithmetic
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


def retrained_seconds(params: dict, tasks: list[str]) -> dict[str, float]:
    """Per task, the seconds of every seed of every cell trained now into a scratch seed cache."""
    from netzbench.run.execute import run_plans
    from netzbench.run.plan import plan_cell

    scratch = Path(tempfile.mkdtemp(prefix="netzbench-estimate-"))
    before = os.environ.get("NETZBENCH_CACHE_DIR")
    os.environ["NETZBENCH_CACHE_DIR"] = str(scratch)
    out: dict[str, float] = defaultdict(float)
    try:
        plans = {(t, m): plan_cell(t, m, params, quiet=True) for t in tasks for m in params.models}
        live = {k: p for k, p in plans.items() if p.outcome is None}
        run_plans([p for p in live.values() if p.jobs], params, desc="retrain")
        for (task, _), plan in live.items():
            for seed in (plan.finish().to_dict().get("seeds") or {}).values():
                out[task] += float(seed.get("seconds") or 0.0)
    finally:
        if before is None:
            os.environ.pop("NETZBENCH_CACHE_DIR", None)
        else:
            os.environ["NETZBENCH_CACHE_DIR"] = before
        shutil.rmtree(scratch, ignore_errors=True)
    return dict(out)


def _ratio(e: float, a: float) -> str:
    return f"{e / a:.2f}" if a else "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--benchmark", default="reports/benchmark.json")
    ap.add_argument("--tasks", nargs="+", default=None, help="these tasks of params.yaml only")
    ap.add_argument("--retrain", action="store_true", help="also train the tasks afresh now (scratch cache)")
    args = ap.parse_args()
    configure_arithmetic(params=args.params)  # the probes and workers inherit it; before torch
    params = load_config(args.params)
    tasks = args.tasks or list(params.tasks)
    with open(args.benchmark, encoding="utf-8") as fh:
        actual = actual_seconds(json.load(fh))
    from netzbench.run.probe import machine

    print(f"device: CPU, {machine()['cpu']}, {machine()['cores']} core(s)")
    t0 = time.perf_counter()
    result = estimate_plan(params, tasks, afresh=True, remeasure=True)  # every probe measured now
    took = time.perf_counter() - t0
    t0 = time.perf_counter()
    again = estimate_plan(params, tasks, afresh=True, progress=False)  # the probes kept by the first
    took_again = time.perf_counter() - t0
    failed = [f"{c['task']}/{c['model']}: {c['reason']}" for c in result["cells"] if c["status"] == "failed"]
    if failed:  # a failed probe is not a time
        raise SystemExit("bench_estimate.py: probes failed, no figures:\n  " + "\n  ".join(failed))
    if again["sample"]["measured"]:
        print(f"note: the second estimate measured {again['sample']['measured']} probe run(s) again")
    estimated: dict[str, float] = defaultdict(float)
    for c in result["cells"]:
        if c["status"] == "train":
            estimated[c["task"]] += c["seconds_per_seed"] * c["seeds_to_train"]
    fresh = retrained_seconds(params, tasks) if args.retrain else {}
    head = "| task | estimate (s) | published run (s) | estimate / published |"
    print(head + (" retrained now (s) | estimate / retrained |" if fresh else "") + "\n|---|---:|---:|---:|"
          + ("---:|---:|" if fresh else ""))
    for task in tasks:
        if task not in actual and task not in estimated:
            continue
        e, a = estimated.get(task, 0.0), actual.get(task, 0.0)
        more = f" {fresh.get(task, 0.0):.0f} | {_ratio(e, fresh.get(task, 0.0))} |" if fresh else ""
        print(f"| {task} | {e:.0f} | {a:.0f} | {_ratio(e, a)} |{more}")
    both = [t for t in tasks if actual.get(t)]  # the tasks the published run trained (the others had no data)
    e_all, a_all = sum(estimated.get(t, 0.0) for t in both), sum(actual[t] for t in both)
    print(f"| all the published run trained | {e_all:.0f} | {a_all:.0f} | {_ratio(e_all, a_all)} |")
    sample = result["sample"]
    print(f"\nthe estimate itself took {took:.0f} s ({sample['measured']} probe runs of {result['probe_epochs']} epochs "
          f"for {sample['cells']} cells), {took_again:.1f} s asked again with the probes kept; its plan: "
          f"{result['wall_s'] / 60:.1f} min of dvc repro wall time with {result['workers']} worker(s)")


if __name__ == "__main__":
    main()
