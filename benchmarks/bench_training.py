"""Training-path benchmark (prints figures; not a test).

Fixed workload: cora + random_tsp + mutag, the four node-level encoders
(GCN, GAT, GraphSAGE, GraphTransformer) plus GIN where it applies, 10 seeds,
the paper's epochs. Measures, on this machine:

1. wall time of the seed loop serially (``exec.workers: 1``) and with N
   workers, and the speed-up;
2. per (task, model): seconds per epoch, per run, and peak RSS of a seed;
3. Cora, GCN + GAT, 10 seeds, 100 epochs: our N-worker run against one
   process using all cores for intra-op threads (the reference library's
   way of using a multi-core CPU);
4. fixed overhead of a train stage (a cell whose seeds are all cached), of an
   incompatible cell, and of a no-op ``dvc repro`` of the default pipeline;
5. the committed headline run's elapsed wall time and its split (read from
   ``reports/benchmark.json``: the run records time every seed).

Usage (from the repository root, with the mirror set)::

    NETZBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_training.py [--quick] [--out FILE]

``--quick`` uses 2 seeds and 10 epochs (a smoke run of the script itself).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arithmetic_first import configure_arithmetic

REPO = Path(__file__).resolve().parents[1]
TASKS = {"cora": 100, "random_tsp": 80, "mutag": 40}
MODELS = ["GCN", "GAT", "GraphSAGE", "GraphTransformer", "GIN"]


def params_for(seeds, epochs, workers, threads=1, models=MODELS, tasks=TASKS):
    from netzbench.params import DEFAULTS, merge, validate

    return validate(merge(DEFAULTS, {
        "tasks": list(tasks), "models": list(models), "seeds": list(seeds),
        "train": {"epochs": {t: epochs or e for t, e in tasks.items()}},
        "exec": {"workers": workers, "threads": threads, "device": "cpu"},
    }))


def run_cells(params, cache_dir: Path, cells):
    """Train ``cells`` with a fresh per-seed cache; return wall seconds and the records."""
    from netzbench.run.execute import train_cell

    os.environ["NETZBENCH_CACHE_DIR"] = str(cache_dir)
    shutil.rmtree(cache_dir, ignore_errors=True)
    records = {}
    t0 = time.perf_counter()
    for task, model in cells:
        records[task, model] = train_cell(task, model, params, cache_dir / "rec" / f"{task}-{model}.json",
                                          echo=lambda m: None, progress=False)
    return time.perf_counter() - t0, records


def timed(cmd, cwd, env=None):
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2 seeds, 10 epochs")
    ap.add_argument("--out", default=None, help="also write the figures as JSON here")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seeds", type=int, default=10, help="seeds per cell (default 10)")
    args = ap.parse_args()
    configure_arithmetic(params=None)  # its params: the default mode; the subprocesses inherit it; before torch
    seeds = range(2) if args.quick else range(args.seeds)
    epochs = 10 if args.quick else None
    work = Path(tempfile.mkdtemp(prefix="nb-bench-"))
    os.chdir(work)
    (work / "dvc.yaml").write_text("stages: {}\n")
    from netzbench.catalog.data import fetch_task
    from netzbench.models.registry import builtin_families
    from netzbench.catalog.table import get_task

    base = params_for(seeds, epochs, 1)
    for t in TASKS:
        fetch_task(t, base, "data", echo=lambda m: None)
    cells = [(t, m) for t in TASKS for m in MODELS if get_task(t).family in builtin_families(m)]
    figures: dict = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                 "platform": platform.platform()},
                     "workload": {"tasks": TASKS if not args.quick else {t: 10 for t in TASKS},
                                  "models": MODELS, "seeds": len(list(seeds))}}

    print(f"# netzbench training benchmark ({os.cpu_count()} CPUs, {len(cells)} cells x {len(list(seeds))} seeds)")
    serial_s, serial = run_cells(params_for(seeds, epochs, 1), work / "c1", cells)
    par_s, par = run_cells(params_for(seeds, epochs, args.workers), work / "cN", cells)
    identical = all(serial[c]["seeds"][s].get("history") == par[c]["seeds"][s].get("history")
                    for c in cells for s in serial[c]["seeds"])
    figures["seed_loop"] = {"serial_s": serial_s, "workers": args.workers, "parallel_s": par_s,
                            "speedup": serial_s / par_s, "identical_histories": identical}
    print(f"\n## Seed loop\nserial (1 worker): {serial_s:.1f} s; {args.workers} workers: {par_s:.1f} s; "
          f"speed-up {serial_s / par_s:.2f}x; histories identical: {identical}")

    print("\n## Per cell (serial run, one thread per seed)\n")
    print("| task | model | s/epoch | s/run (mean) | peak RSS MB (max) |\n|---|---|---|---|---|")
    figures["cells"] = []
    for (t, m), rec in serial.items():
        runs = [e for e in rec["seeds"].values() if e["status"] == "ok"]
        n_ep = rec["hyperparameters"]["epochs"]
        per_run = sum(e["seconds"] for e in runs) / len(runs)
        rss = max(e["peak_rss_mb"] for e in runs)
        figures["cells"].append({"task": t, "model": m, "s_per_epoch": per_run / n_ep, "s_per_run": per_run,
                                 "peak_rss_mb": rss})
        print(f"| {t} | {m} | {per_run / n_ep:.4f} | {per_run:.2f} | {rss:.0f} |")

    cora_cells = [("cora", "GCN"), ("cora", "GAT")]
    threads_s, _ = run_cells(params_for(seeds, epochs, 1, threads=os.cpu_count(), tasks={"cora": 100}),
                             work / "ct", cora_cells)
    ours_s, _ = run_cells(params_for(seeds, epochs, args.workers, tasks={"cora": 100}), work / "co", cora_cells)
    figures["cora_gcn_gat"] = {"one_process_all_threads_s": threads_s, "workers_s": ours_s,
                               "speedup": threads_s / ours_s}
    print(f"\n## Cora, GCN + GAT, {len(list(seeds))} seeds\none process x {os.cpu_count()} threads: {threads_s:.1f} s; "
          f"{args.workers} single-thread workers: {ours_s:.1f} s; speed-up {threads_s / ours_s:.2f}x")

    # stage overheads, through the real CLI
    env = {**os.environ, "NETZBENCH_CACHE_DIR": str(work / "c1")}
    import yaml

    p = {"tasks": list(TASKS), "models": MODELS, "seeds": list(seeds),
         "train": {"epochs": {t: (epochs or e) for t, e in TASKS.items()}}, "exec": {"workers": 1, "device": "cpu"}}
    (work / "params.yaml").write_text(yaml.safe_dump(p))
    bin_dir = Path(sys.executable).parent
    cached = timed([str(bin_dir / "netzbench"), "train", "cora", "GCN"], work, env)
    incompatible = timed([str(bin_dir / "netzbench"), "train", "cora", "GIN"], work, env)
    figures["overhead"] = {"train_stage_all_cached_s": cached, "incompatible_cell_s": incompatible}
    print(f"\n## Fixed overheads\ntrain stage, all seeds cached: {cached:.2f} s; incompatible cell: {incompatible:.2f} s")

    noop = None
    if shutil.which("git") and (REPO / "dvc.lock").is_file():
        env2 = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
        status = timed(["dvc", "status"], REPO, env2)
        fetch = []
        for task in yaml.safe_load((REPO / "params.yaml").read_text())["tasks"]:
            fetch.append(timed(["dvc", "repro", "--single-item", f"fetch@{task}"], REPO, env2))
        noop = timed(["dvc", "repro"], REPO, env2)
        figures["dvc"] = {"status_s": status, "repro_noop_s": noop, "fetch_recheck_s": sum(fetch),
                          "repro_noop_minus_fetch_s": noop - sum(fetch)}
        print(f"\n## DVC (default pipeline, already reproduced)\n`dvc status`: {status:.2f} s; no-op `dvc repro`: "
              f"{noop:.2f} s, of which fetch re-checks about {sum(fetch):.2f} s (measured one by one)")
    published = REPO / "reports" / "benchmark.json"
    if published.is_file():  # the headline run itself is timed by its own records
        from netzbench.report import BenchmarkReport

        cost = BenchmarkReport.from_json(published).compute_cost()
        if cost["wall_seconds"]:
            figures["headline"] = {k: cost[k] for k in ("wall_seconds", "total_seconds", "parallelism",
                                                        "wall_by_task", "by_task", "wall_by_model", "by_model")}
            print(f"\n## Headline run (the committed reports/benchmark.json)\nelapsed training wall time "
                  f"{cost['wall_seconds'] / 60:.1f} min; summed over seeds {cost['total_seconds'] / 60:.1f} min "
                  f"({cost['parallelism']:.2f} seeds at a time)\n\n| task | elapsed min | summed min |\n|---|---|---|")
            for t, w in sorted(cost["wall_by_task"].items(), key=lambda kv: -kv[1]):
                print(f"| {t} | {w / 60:.1f} | {cost['by_task'].get(t, 0.0) / 60:.1f} |")
            print("\n| model | elapsed min | summed min |\n|---|---|---|")
            for m, w in sorted(cost["wall_by_model"].items(), key=lambda kv: -kv[1]):
                print(f"| {m} | {w / 60:.1f} | {cost['by_model'].get(m, 0.0) / 60:.1f} |")
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
