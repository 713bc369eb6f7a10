"""What ``dvc exp run`` costs a new user besides training, on a fresh clone (issue 29).

Clones this repository (its committed state: no DVC cache, no seed cache, no
data) into a scratch folder and times, there,

    dvc exp run -S 'tasks=[karate,random_tsp,mutag]' -S 'seeds=[0,1]' -S 'models=[GCN,GraphSAGE]'

(or the ``--tasks``/``--seeds``/``--models`` given; ``--model`` adds ``-S model=...``, a candidate), with
this checkout's ``.venv`` on the PATH. ``--seed-cache DIR`` gives the clone a per-seed cache that already
holds the roster (e.g. this checkout's ``.netzbench`` after ``make repro``): the issue's other case, a
candidate benchmarked against a roster that is not retrained. It prints the wall time, the training wall time (the
union of the seeds' start-finish intervals in the run records the experiment
wrote), the stages that ran, and the difference: the time a user waits for
anything but training. Issue 29's goal for the default case: at most 25 s
besides training, on an idle machine.

``--load N`` runs it beside N busy processes (a core each; issue 51: the per-stage cost must hold when
the machine is not idle), ``--log`` prints the run's output with the second each line arrived.

Usage: ``NETZBENCH_MIRROR=../shared/datasets .venv/bin/python benchmarks/bench_exp_run.py [--load N]`` on
an otherwise idle machine (MUTAG comes from the mirror).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from bench_pipeline import training_wall  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default="/tmp/netzbench-bench-exp")
    ap.add_argument("--tasks", default="karate,random_tsp,mutag")
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--models", default="GCN,GraphSAGE", help="'' for the params.yaml roster")
    ap.add_argument("--seeds-all", action="store_true", help="params.yaml's seeds (ignore --seeds)")
    ap.add_argument("--model", default=None, help="a candidate, e.g. user_models.example:MyGNN")
    ap.add_argument("--seed-cache", default=None, help="per-seed cache for the clone (default: its own, empty)")
    ap.add_argument("--log", action="store_true", help="print dvc exp run's output, each line stamped")
    ap.add_argument("--load", type=int, default=0,
                    help="busy processes beside it (each a pure-Python loop on a core): the run under load")
    args = ap.parse_args()
    with busy(args.load):
        run(args)


@contextmanager
def busy(n: int):
    """``n`` processes that keep a core each busy while the block runs (issue 51: what a stage costs when the
    machine is not idle), stopped after it."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(max(0, n))]
    try:
        if loops:
            print(f"load: {n} busy process(es) beside the run ({os.cpu_count()} cores)")
        yield
    finally:
        for p in loops:
            p.kill()
            p.wait()


def run(args) -> None:
    target = Path(args.dir)
    if target.exists():
        shutil.rmtree(target)
    subprocess.run(["git", "clone", "-q", str(REPO), str(target)], check=True)
    environ = {**os.environ, "PATH": f"{REPO / '.venv/bin'}:{os.environ['PATH']}",
               "NETZBENCH_CACHE_DIR": str(Path(args.seed_cache).resolve() if args.seed_cache else target / ".netzbench")}
    # Python's default writes compiled modules (a user's second run imports them); a sandbox that sets
    # PYTHONDONTWRITEBYTECODE makes every stage process compile netzbench's modules again (0.1-0.3 s each)
    environ.pop("PYTHONDONTWRITEBYTECODE", None)
    if environ.get("NETZBENCH_MIRROR"):
        environ["NETZBENCH_MIRROR"] = str(Path(environ["NETZBENCH_MIRROR"]).resolve())
    subprocess.run(["netzbench", "warm", "--stop"], capture_output=True, env=environ)  # the first start counts too
    cmd = ["dvc", "exp", "run", "-S", f"tasks=[{args.tasks}]"]
    cmd += [] if args.seeds_all else ["-S", f"seeds=[{args.seeds}]"]
    cmd += ["-S", f"models=[{args.models}]"] if args.models else []
    cmd += ["-S", f"model={args.model}"] if args.model else []
    t0 = time.perf_counter()
    # streamed, each line stamped as it arrives: a stage lasts from its "Running stage" line to the next
    proc = subprocess.Popen(cmd, cwd=target, env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, bufsize=1)
    lines = [(time.perf_counter() - t0, line.rstrip("\n")) for line in proc.stdout]
    proc.wait()
    wall = time.perf_counter() - t0
    out = "\n".join(line for _, line in lines)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{out[-6000:]}")
    if args.log:
        print("\n".join(f"{t:6.2f} {line[:160]}" for t, line in lines))
    ran = [line for line in out.splitlines() if line.startswith("Running stage")]
    starts = [(t, line.split("'")[1]) for t, line in lines if line.startswith("Running stage")]
    ends = [t for t, _ in starts[1:]] + [wall]
    print("| stage | s (its line to the next stage's; the last to the end) |\n|---|---:|")
    print(f"| before the first stage | {starts[0][0] if starts else wall:.1f} |")
    for (t, name), end in zip(starts, ends):
        print(f"| {name} | {end - t:.1f} |")
    train = training_wall(target / "metrics")
    print(f"# fresh clone of {REPO.name} at {target}: {' '.join(cmd)}")
    print(f"wall {wall:.1f} s, training wall {train:.1f} s, {len(ran)} stages ran "
          f"({sum(name == 'train' for _, name in starts)} train, {sum(name == 'fetch' for _, name in starts)} fetch); "
          f"besides training: {wall - train:.1f} s (goal: <= 25 s for the default case; with a candidate on a "
          f"cached roster, <= the training time)")


if __name__ == "__main__":
    main()
