"""The headline's cells on a GPU: time per task against the number of seeds sharing the GPU, and what
reproduces (issue 29). Untested here (the project's machine has no GPU): run it where one is.

For each task of ``params.yaml`` (fetched: ``dvc repro fetch`` first) and each number of worker processes
in ``--workers`` (seeds trained at once on the one GPU), trains every roster cell of the task on
``exec.device: cuda`` with an empty per-seed cache and prints the wall time per task and workers,
beside the CPU run's training seconds from ``reports/benchmark.json``. Then it trains one cell twice
and says whether the two histories are identical, and which operations torch reported have no
deterministic CUDA implementation (the seed records' ``nondeterministic_ops``).

Usage: ``.venv/bin/python benchmarks/bench_gpu.py [--workers 1 2 4 8] [--tasks cora fb15k_237] [--check cora/GCN]``
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path


def _train(params: dict, tasks: list[str], data_root: str) -> float:
    from netzbench.run.execute import run_plans
    from netzbench.run.plan import plan_cell

    plans = [plan_cell(t, m, params, data_root=data_root, quiet=True) for t in tasks for m in params["models"]]
    t0 = time.perf_counter()
    run_plans([p for p in plans if p.jobs], params, progress=False, quiet=True)
    return time.perf_counter() - t0


def main() -> None:
    import torch

    from netzbench.config import load_config
    from netzbench.params import merge

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--data-root", default="data")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8])
    ap.add_argument("--tasks", nargs="+", default=None)
    ap.add_argument("--check", default="cora/GCN", help="the cell trained twice for the determinism check")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("no CUDA device here: this benchmark needs a GPU")
    base = load_config(args.params)
    tasks = args.tasks or [t for t in base["tasks"] if (Path(args.data_root) / t / "meta.json").is_file()]
    cpu = {}
    if Path("reports/benchmark.json").is_file():
        cells = json.loads(Path("reports/benchmark.json").read_text())["cells"]
        cpu = {t: sum(float(s.get("seconds") or 0) for c in cells.get(t, {}).values()
                      for s in (c.get("seeds") or {}).values()) for t in tasks}
    print(f"GPU: {torch.cuda.get_device_name(0)}; torch {torch.__version__}, CUDA {torch.version.cuda}")
    print("| task | CPU run, training s (summed seeds) | " + " | ".join(f"GPU, {k} worker(s), wall s" for k in args.workers)
          + " |\n|---|---:|" + "---:|" * len(args.workers))
    for task in tasks:
        row = []
        for k in args.workers:
            with tempfile.TemporaryDirectory() as cache:
                os.environ["NETZBENCH_CACHE_DIR"] = cache
                params = merge(base, {"exec": {"device": "cuda", "workers": k, "warm_s": 0}})
                row.append(_train(params, [task], args.data_root))
        print(f"| {task} | {cpu.get(task, float('nan')):.0f} | " + " | ".join(f"{s:.1f}" for s in row) + " |")
    task, model = args.check.split("/")
    histories, ops = [], set()
    for _ in range(2):
        with tempfile.TemporaryDirectory() as cache:
            os.environ["NETZBENCH_CACHE_DIR"] = cache
            from netzbench.run.execute import run_plans
            from netzbench.run.plan import plan_cell

            params = merge(base, {"exec": {"device": "cuda", "workers": 1, "warm_s": 0}})
            plan = plan_cell(task, model, params, data_root=args.data_root, quiet=True)
            run_plans([plan], params, progress=False, quiet=True)
            record = plan.finish().to_dict()
            histories.append({s: e.get("history") for s, e in record["seeds"].items()})
            ops |= {op for e in record["seeds"].values() for op in e.get("nondeterministic_ops", [])}
    same = histories[0] == histories[1]
    print(f"\n{args.check} trained twice on the GPU: histories {'identical' if same else 'differ'}; "
          f"operations without a deterministic CUDA implementation: {', '.join(sorted(ops)) or 'none reported'}")


if __name__ == "__main__":
    main()
