"""What a user waits for besides training: stage start-up and the no-op `dvc repro`.

Runs the quick profile (``netzbench quick``'s workspace, fresh cache) through
``dvc repro`` and prints

- the pipeline's wall time, its training wall time (the union of the seeds'
  start-finish intervals in the run records) and the difference per stage
  that ran (the goal of issue 17: <= 2 s per stage), once with each stage
  starting its own workers (``NETZBENCH_WARM_S=0``) and once with the warm
  worker server (the default; any running server is stopped first);
- a no-op ``dvc repro`` (every stage up to date but the fetch re-checks;
  goal: <= 8 s for the default pipeline) and ``dvc status``;
- one train stage's command with every seed cached (start-up alone).

Usage: ``.venv/bin/python benchmarks/bench_pipeline.py [--dir /tmp/netzbench-bench]`` on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import time
from pathlib import Path

from netzbench.quick import PROFILE, env, prepare


def timed(cmd: list[str], cwd: Path, environ: dict) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=environ, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return time.perf_counter() - t0, done.stdout + done.stderr


def training_wall(runs: Path) -> float:
    """Seconds during which at least one seed trained (union of the records' intervals)."""
    spans = []
    for path in runs.rglob("*.json"):
        for seed in json.loads(path.read_text()).get("seeds", {}).values():
            if "started_at" in seed and not seed.get("cached"):
                spans.append((seed["started_at"], seed["finished_at"]))
    total, end = 0.0, None
    for start, finish in sorted(spans):
        if end is None or start > end:
            total += finish - start
            end = finish
        elif finish > end:
            total += finish - end
            end = finish
    return total


def repro_from_nothing(target: Path, warm_s: str) -> dict:
    """``dvc repro`` of the quick profile in a fresh copy at ``target``, warm server at ``warm_s``."""
    if target.exists():
        shutil.rmtree(target)
    prepare(target)
    environ = {**env(target), "NETZBENCH_WARM_S": warm_s}
    wall, out = timed(["dvc", "repro"], target, environ)
    stages = [line for line in out.splitlines() if line.startswith("Running stage")]
    train = training_wall(target / "metrics")
    return {"environ": environ, "wall": wall, "train": train, "stages": len(stages),
            "per_stage": (wall - train) / max(len(stages), 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default="/tmp/netzbench-bench")
    args = ap.parse_args()
    subprocess.run(["netzbench", "warm", "--stop"], capture_output=True)  # measure the first stage's start too
    print(f"# quick profile: {len(PROFILE['tasks'])} tasks x {len(PROFILE['models'])} models x "
          f"{len(PROFILE['seeds'])} seeds")
    for label, warm_s in (("each stage its own workers (exec.warm_s: 0)", "0"), ("warm server (default)", "60")):
        target = Path(f"{args.dir}-{warm_s}")
        got = repro_from_nothing(target, warm_s)
        print(f"{label}: dvc repro {got['wall']:.1f} s wall, {got['train']:.1f} s training wall, "
              f"{got['stages']} stages ran: {got['per_stage']:.2f} s per stage besides training")
    environ = got["environ"]
    subprocess.run(["git", "add", "-A"], cwd=target, env=environ, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-qm", "results"], cwd=target, env=environ, check=True, capture_output=True)
    noop, out = timed(["dvc", "repro"], target, environ)
    ran = [line for line in out.splitlines() if line.startswith("Running stage")]
    status, _ = timed(["dvc", "status"], target, environ)
    print(f"no-op dvc repro: {noop:.1f} s ({len(ran)} fetch re-checks ran); dvc status: {status:.1f} s")
    cell, _ = timed(["netzbench", "train", "karate", "GCN", "--out", "/tmp/netzbench-bench-cell.json"], target,
                    environ)
    print(f"train stage command, every seed cached: {cell:.2f} s")


if __name__ == "__main__":
    main()
