"""The headline's GNN cells on a GPU: wall time per task beside the published CPU run's, seeds that trained,
and whether a cell trained twice on the GPU gives the same histories (issues 29, 48).

For each task (fetched: ``netzbench fetch`` first) and each number of worker processes in ``--workers``
(seeds trained at once, sharing the GPUs), trains the task's GNN cells (the roster without its baselines;
``--models``) for ``--seeds`` on ``exec.device: cuda`` with an empty per-seed cache. A row says how many
seeds trained (``ok/total``) and, only when every one did, the wall time; a failed seed is counted and its
first error shown, never timed (an earlier version printed the seconds of 310 failed seeds as GPU times).
Beside it: the published CPU run's elapsed (wall) and summed training time of the same cells and seeds, from
``reports/benchmark.json``. Then one cell (``--check``) is trained twice and the histories compared, with the
operations torch reported have no deterministic CUDA implementation (the records' ``nondeterministic_ops``).

This process never initialises CUDA (its seeds run in spawned workers, :mod:`netzbench.run.device`); the
arithmetic mode is set before torch is imported (``arithmetic_first``). ``--json FILE`` writes the figures.

Usage: ``python benchmarks/bench_gpu.py [--workers 1 4 8] [--tasks cora mutag] [--seeds 0 1 2] [--check cora/GCN]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from arithmetic_first import configure_arithmetic


def seed_counts(records: list[dict]) -> dict:
    """``{"ok", "failed", "total", "error", "gpus", "devices", "gpu_peak_mb", "nondeterministic_ops"}`` over
    the trained seeds of ``records`` (run records; an incompatible cell's seeds are not counted). ``error``:
    the first failed seed's, as ``task/model seed s: error``."""
    out = {"ok": 0, "failed": 0, "total": 0, "error": None, "gpus": set(), "devices": set(), "gpu_peak_mb": 0.0,
           "nondeterministic_ops": set()}
    for record in records:
        for seed, entry in sorted(record.get("seeds", {}).items(), key=lambda kv: int(kv[0])):
            status = entry.get("status")
            if status not in ("ok", "failed"):
                continue
            out["total"] += 1
            if status == "ok":
                out["ok"] += 1
            else:
                out["failed"] += 1
                if out["error"] is None:
                    first = (entry.get("error") or "no error recorded").strip().splitlines()[0][:160]
                    out["error"] = f"{record.get('task')}/{record.get('model')} seed {seed}: {first}"
            out["gpus"].update([entry["gpu"]] if entry.get("gpu") else [])
            out["devices"].update([entry["cuda_device"]] if entry.get("cuda_device") else [])
            out["gpu_peak_mb"] = max(out["gpu_peak_mb"], float(entry.get("gpu_peak_mb") or 0.0))
            out["nondeterministic_ops"].update(entry.get("nondeterministic_ops") or [])
    return out


def timing(counts: dict, seconds: float) -> str:
    """A row's GPU cell: the wall time only when every seed trained; otherwise what failed, and no time."""
    if counts["total"] == 0:
        return "no seeds trained (every cell incompatible?)"
    if counts["failed"]:
        return f"{counts['ok']}/{counts['total']} ok, no time: {counts['error']}"
    return f"{seconds:.1f} s ({counts['ok']}/{counts['total']} ok)"


def cpu_figures(benchmark: Path, task: str, models: list[str], seeds: list[int]) -> tuple[float, float] | None:
    """The published CPU run's (elapsed, summed) training seconds of ``task``'s cells of ``models`` over
    ``seeds``, from its per-seed facts; None without the file or the cells."""
    if not benchmark.is_file():
        return None
    from netzbench.report.cost import compute_cost

    cells = json.loads(benchmark.read_text()).get("cells", {}).get(task, {})
    chosen = {m: {"seeds": {str(s): f for s, f in (cells[m].get("seeds") or {}).items() if int(s) in seeds}}
              for m in models if m in cells}
    if not chosen:
        return None
    cost = compute_cost({task: chosen})
    return cost["wall_seconds"] or float("nan"), cost["total_seconds"]


def train(params: dict, tasks: list[str], models: list[str], data_root: str) -> tuple[float, list[dict]]:
    """Train the cells of ``tasks`` x ``models`` with an empty per-seed cache: (wall seconds, run records)."""
    from netzbench.run.execute import run_plans
    from netzbench.run.plan import plan_cell

    with tempfile.TemporaryDirectory(prefix="netzbench-gpu-cache-") as cache:
        os.environ["NETZBENCH_CACHE_DIR"] = cache
        plans = [plan_cell(t, m, params, data_root=data_root, quiet=True) for t in tasks for m in models]
        t0 = time.perf_counter()
        run_plans([p for p in plans if p.jobs], params, progress=False, quiet=True)
        seconds = time.perf_counter() - t0
        return seconds, [p.finish().to_dict() for p in plans]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--params", default="params.yaml")
    ap.add_argument("--data-root", default="data")
    ap.add_argument("--benchmark", default="reports/benchmark.json", help="the published CPU run")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 4, 8])
    ap.add_argument("--tasks", nargs="+", default=None)
    ap.add_argument("--models", nargs="+", default=None, help="default: the roster without its baselines")
    ap.add_argument("--seeds", type=int, nargs="+", default=None, help="default: params.yaml's")
    ap.add_argument("--check", default="cora/GCN", help="the cell trained twice for the determinism check")
    ap.add_argument("--check-seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--json", default=None, help="also write the figures here")
    args = ap.parse_args()
    mode = configure_arithmetic(params=args.params)  # before anything imports torch

    from netzbench.config import load_config
    from netzbench.models.roster import BUILTIN_BASELINES
    from netzbench.params import merge
    from netzbench.run.device import gpu_count, visible_devices

    if gpu_count() == 0:
        raise SystemExit("bench_gpu.py: no CUDA device here: this benchmark needs a GPU")
    base = load_config(args.params)
    seeds = args.seeds or list(base["seeds"])
    models = args.models or [m for m in base["models"] if m not in BUILTIN_BASELINES]
    tasks = args.tasks or [t for t in base["tasks"] if (Path(args.data_root) / t / "meta.json").is_file()]
    print(f"{gpu_count()} GPU(s) visible ({', '.join(visible_devices())}); seeds {seeds}; models {', '.join(models)}; "
          f"CPU arithmetic {mode}", flush=True)
    figures: dict = {"seeds": seeds, "models": models, "rows": [], "check": None}
    head = "| task | CPU run: elapsed s (summed s) | " + " | ".join(f"GPU, {k} worker(s)" for k in args.workers) + " |"
    print(head + "\n|---|---:|" + "---:|" * len(args.workers), flush=True)
    names: set[str] = set()
    for task in tasks:
        cpu = cpu_figures(Path(args.benchmark), task, models, seeds)
        row = {"task": task, "cpu_wall_s": cpu and cpu[0], "cpu_summed_s": cpu and cpu[1], "gpu": {}}
        cells = []
        for k in args.workers:
            params = merge(base, {"seeds": seeds, "exec": {"device": "cuda", "workers": k, "warm_s": 0}})
            seconds, records = train(params, [task], models, args.data_root)
            counts = seed_counts(records)
            names |= counts["gpus"]
            row["gpu"][k] = {"ok": counts["ok"], "failed": counts["failed"], "error": counts["error"],
                             "wall_s": None if counts["failed"] or not counts["total"] else seconds,
                             "devices": sorted(counts["devices"]), "gpu_peak_mb": counts["gpu_peak_mb"]}
            cells.append(timing(counts, seconds))
        cpu_text = f"{cpu[0]:.0f} ({cpu[1]:.0f})" if cpu else "n/a"
        print(f"| {task} | {cpu_text} | " + " | ".join(cells) + " |", flush=True)
        figures["rows"].append(row)
    task, model = args.check.split("/")
    runs = []
    for _ in range(2):
        params = merge(base, {"seeds": args.check_seeds, "exec": {"device": "cuda", "workers": 1, "warm_s": 0}})
        runs.append(train(params, [task], [model], args.data_root)[1][0])
    counts = [seed_counts([r]) for r in runs]
    ops = sorted(counts[0]["nondeterministic_ops"] | counts[1]["nondeterministic_ops"])
    if any(c["failed"] or not c["total"] for c in counts):
        verdict = "not checked: " + "; ".join(f"{c['failed']}/{c['total']} failed" for c in counts)
        same = None
    else:
        same = all(runs[0]["seeds"][s]["history"] == runs[1]["seeds"][s]["history"] for s in runs[0]["seeds"])
        verdict = "histories identical" if same else "histories differ"
    figures["check"] = {"cell": args.check, "seeds": args.check_seeds, "identical": same, "nondeterministic_ops": ops}
    figures["gpus"] = sorted(names | counts[0]["gpus"])
    print(f"\n{args.check} (seeds {args.check_seeds}) trained twice on the GPU: {verdict}; operations without a "
          f"deterministic CUDA implementation: {', '.join(ops) or 'none reported'}")
    print(f"GPU: {', '.join(figures['gpus']) or 'unknown (no seed trained)'}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    failed = sum(g["failed"] for r in figures["rows"] for g in r["gpu"].values())
    sys.exit(1 if failed else 0)  # histories that differ are a finding, not a failure


if __name__ == "__main__":
    main()
