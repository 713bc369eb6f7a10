"""Time per epoch and peak memory against graph size, per model: where each stops fitting (issue 29).

For each model and each size (``--edges``: 1e4 .. 1e7 undirected pairs, ``--degree`` pairs per node,
``--features`` node features, node classification with 10 classes) it writes a stand-in graph
(:mod:`netzbench.catalog.standin`) and probes one seed for 1 and 3 epochs in a fresh process
(:mod:`netzbench.run.probe`, after a warm-up epoch, as ``netzbench estimate`` does): seconds per epoch =
(t(3) - t(1)) / 2,
peak resident memory of the process. A size whose memory, extrapolated linearly from the two sizes
before it, would pass ``--memory-gb`` (default: 90 % of this machine's) is not run, and the table says
so: there the model stops fitting, full batch. The growth column is the log-log slope of the time per
epoch between the two largest sizes run (1: linear in the edges).

``--sampling`` measures the same with ``train.sampling: {mode: neighbour}`` (fanouts 15/10, 1024 training
nodes per step, exact layer-wise evaluation, the default ``eval``): an epoch is then one pass over the
training nodes (half of them here) in mini-batches, plus the evaluation of every node layer by layer.

``--device cuda`` trains on the GPU (the probes are fresh processes, so CUDA starts in them, never here):
memory is then the GPU peak of the seed's tensors (``gpu_peak_mb``) and the limit 90 % of the GPU's memory.
The device, the CPU kernels (``exec.arithmetic``, set before torch is imported by
``arithmetic_first.configure_arithmetic``) and, on a GPU, its name head the table. ``--budget-s`` stops
trying larger sizes once that much time has passed (the table says so), so a run fits a time box.

Usage: ``.venv/bin/python benchmarks/bench_scaling.py [--models GCN GAT GraphSAGE GraphTransformer]
[--edges 1e4 1e5 1e6 1e7] [--sampling] [--device cuda] [--budget-s 300]`` on an idle machine (1e7 edges
takes minutes per model on the CPU).
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from arithmetic_first import configure_arithmetic  # noqa: E402 - benchmarks/ is the script's folder


def device_line(device: str, mode: str, gpu: str | None = None) -> str:
    """What the table ran on: the device (the GPU's name when known) and the CPU kernels' mode."""
    where = f"cuda ({gpu})" if device == "cuda" and gpu else device
    return f"device: {where}; CPU arithmetic: {mode}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="+", default=["GCN", "GAT", "GraphSAGE", "GraphTransformer"])
    ap.add_argument("--edges", type=float, nargs="+", default=[1e4, 1e5, 1e6, 1e7])
    ap.add_argument("--degree", type=float, default=5.0)
    ap.add_argument("--features", type=int, default=100)
    ap.add_argument("--memory-gb", type=float, default=None)
    ap.add_argument("--sampling", action="store_true", help="neighbour-sampled training (train.sampling)")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--budget-s", type=float, default=None, help="no larger size is started after this many seconds")
    ap.add_argument("--probe-timeout-s", type=float, default=3600.0)
    args = ap.parse_args()
    mode = configure_arithmetic(params=None)  # the default mode, before anything imports torch

    from helpers import make_params

    from netzbench.catalog.standin import write_standin
    from netzbench.run.device import gpu_memory_gb
    from netzbench.run.estimate import extrapolate, machine_memory_gb
    from netzbench.run.plan import plan_cell
    from netzbench.run.probe import probe_jobs, with_epochs

    started, gpus = time.monotonic(), set()
    sampling = {"sampling": {"mode": "neighbour", "min_edges": 0}} if args.sampling else {}
    memory = gpu_memory_gb() if args.device == "cuda" else machine_memory_gb()
    if args.device == "cuda" and memory <= 0:
        raise SystemExit("bench_scaling.py: --device cuda but no CUDA device is visible here")
    limit = args.memory_gb or 0.9 * memory
    scratch = Path(tempfile.mkdtemp(prefix="netzbench-scaling-"))
    os.environ["NETZBENCH_CACHE_DIR"] = str(scratch / "cache")
    how = "neighbour-sampled (15/10, 1024 per step)" if args.sampling else "full batch"
    print(device_line(args.device, mode))
    print(f"{how}, node classification, {args.features} features, {args.degree:g} pairs per node, "
          f"1 thread; {'GPU' if args.device == 'cuda' else 'memory'} limit {limit:.0f} GB\n", flush=True)
    print("| model | " + " | ".join(f"{e:.0e} edges: s/epoch, GB" for e in args.edges) + " | growth |")
    print("|---|" + "---:|" * len(args.edges) + "---:|")
    try:
        for model in args.models:
            cells, points = [], []
            for e in args.edges:
                n_edges = int(e)
                if len(points) >= 2 and extrapolate([(p[0], p[2]) for p in points[-2:]], n_edges) > limit:
                    cells.append("does not fit")
                    continue
                if args.budget_s is not None and time.monotonic() - started > args.budget_s:
                    cells.append("not run (time budget)")
                    continue
                size = {"num_nodes": max(10, int(n_edges / args.degree)), "num_edges": n_edges,
                        "num_features": args.features, "num_classes": 10}
                task_dir = scratch / f"g{n_edges}"
                if not task_dir.exists():
                    write_standin(task_dir, "scaling", "node_cls", size, epochs=3)
                params = make_params(tasks=["karate"], models=[model], seeds=[0], train=sampling,
                                     exec={"device": args.device})
                plan = plan_cell("scaling", model, params, task_dir=task_dir, quiet=True)
                job = plan.jobs[0]
                results = probe_jobs([with_epochs(job, 1), with_epochs(job, 1), with_epochs(job, 3)],
                                     timeout_s=args.probe_timeout_s)
                bad = [r for r in results if r.get("status") != "ok"]
                if bad or len(results) < 3:  # the warm-up epoch's failure too (a first epoch out of memory)
                    cells.append(f"failed: {((bad[0].get('error') if bad else None) or 'no result')[:60]}")
                    break
                runs = results[1:]
                per_epoch = max(1e-9, (runs[1]["seconds"] - runs[0]["seconds"]) / 2)
                peak = max(r["gpu_peak_mb" if args.device == "cuda" else "peak_rss_mb"] or 0 for r in runs) / 1024
                gpus.update(r["gpu"] for r in runs if r.get("gpu"))
                points.append((n_edges, per_epoch, peak))
                cells.append(f"{per_epoch:.3g}, {peak:.2f}")
            growth = "-"
            if len(points) >= 2:
                (e1, t1, _), (e2, t2, _) = points[-2:]
                growth = f"{math.log(t2 / t1) / math.log(e2 / e1):.2f}"
            cells += [""] * (len(args.edges) - len(cells))
            print(f"| {model} | " + " | ".join(cells) + f" | {growth} |", flush=True)
        if gpus:
            print("\n" + device_line(args.device, mode, ", ".join(sorted(gpus))))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
