"""What portable arithmetic costs on the headline (prints figures; not a test).

Trains the headline tasks (the default ``tasks`` of params.yaml that have
data under ``data/``) with every roster model on ``--seeds`` seeds twice, once
per arithmetic mode (``exec.arithmetic: native`` and ``portable``), each mode
in its own process on one core with one thread and a fresh per-seed cache.
The two processes run at the same time, so both see the same machine load.
Reports the summed per-seed training seconds per task and mode, and the
relative cost of portable over native.

Usage (from the repository root, after ``netzbench fetch --all``)::

    .venv/bin/python benchmarks/bench_arithmetic.py [--seeds 1] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arithmetic_first import configure_arithmetic

REPO = Path(__file__).resolve().parents[1]


def child(mode: str, seeds: int, out: str) -> None:
    """Train every headline cell in ``mode``; write {task: seconds summed over seeds and models}."""
    configure_arithmetic(mode)  # before torch is imported
    from netzbench.params import load_params, ranked_tasks
    from netzbench.run.execute import train_cell
    from netzbench.catalog.table import get_task
    from netzbench.models.registry import builtin_families

    base = load_params(REPO / "params.yaml")
    tasks = [t for t in (ranked_tasks(base)[0] or base["tasks"]) if (REPO / "data" / t / "meta.json").exists()]
    base["seeds"] = list(range(seeds))
    base["exec"].update({"workers": 1, "threads": 1, "device": "cpu", "arithmetic": mode})
    work = Path(tempfile.mkdtemp(prefix=f"nb-arith-{mode}-"))
    os.environ["NETZBENCH_CACHE_DIR"] = str(work / "cache")
    figures: dict = {}
    t0 = time.perf_counter()
    for task in tasks:
        fam = get_task(task).family
        total = 0.0
        for model in base["models"]:
            if fam not in builtin_families(model):
                continue
            rec = train_cell(task, model, base, work / f"{task}-{model}.json", data_root=REPO / "data",
                             echo=lambda m: None, progress=False)
            total += sum(s.get("seconds", 0.0) for s in rec["seeds"].values())
        figures[task] = total
        print(f"[{mode}] {task}: {total:.1f} s", flush=True)
    figures["_wall"] = time.perf_counter() - t0
    Path(out).write_text(json.dumps(figures))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--out", default=None)
    ap.add_argument("--child", nargs=2, metavar=("MODE", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child[0], args.seeds, args.child[1])
    work = Path(tempfile.mkdtemp(prefix="nb-arith-"))
    procs = {m: subprocess.Popen([sys.executable, __file__, "--seeds", str(args.seeds),
                                  "--child", m, str(work / f"{m}.json")], cwd=REPO)
             for m in ("native", "portable")}
    for m, p in procs.items():
        if p.wait() != 0:
            raise SystemExit(f"{m} run failed")
    res = {m: json.loads((work / f"{m}.json").read_text()) for m in procs}
    # a task without data here trains nothing (0 s in both modes)
    tasks = [t for t in res["native"] if not t.startswith("_") and res["native"][t] > 0]
    print(f"\n| task | native s | portable s | portable / native |\n|---|---:|---:|---:|")
    for t in tasks:
        n, p = res["native"][t], res["portable"][t]
        print(f"| {t} | {n:.1f} | {p:.1f} | {p / n:.3f} |")
    n, p = sum(res["native"][t] for t in tasks), sum(res["portable"][t] for t in tasks)
    print(f"| **all** | {n:.1f} | {p:.1f} | {p / n:.3f} |")
    if args.out:
        Path(args.out).write_text(json.dumps({"seeds": args.seeds, "runs": res, "ratio": p / n}, indent=2))


if __name__ == "__main__":
    main()
