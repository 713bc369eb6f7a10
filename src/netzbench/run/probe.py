"""A probe: a few epochs of one seed job, timed, in a fresh process (``python -m netzbench.run.probe``).

``netzbench estimate`` runs a cell's first job for 1 epoch to warm the process, then for 1 and for k
epochs, and reads the cost of a seed off the difference: ``t(E) = t(1) + (E - 1) * (t(k) - t(1)) / (k - 1)``. A fresh interpreter per
cell makes the peak resident memory (``VmHWM``) that cell's and nothing else's: a pool worker
holds one seed at a time, with the same torch and data loaded. The jobs come pickled on stdin
(:func:`probe_jobs` writes them); one JSON line per job comes back on stdout. Nothing is cached: a
probe's few epochs are not a seed's result.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from dataclasses import replace

from ..training.seed import peak_rss_mb
from .job import Job


def with_epochs(job: Job, epochs: int) -> Job:
    """``job`` trained for ``epochs`` epochs (every other setting as planned)."""
    hp = {**job.spec["hp"], "epochs": int(epochs)}
    return replace(job, spec={**job.spec, "hp": hp}, timeout_s=None)


def with_sampling(job: Job) -> Job:
    """``job`` trained neighbour-sampled (``train.sampling.mode: neighbour``, its other settings as planned)."""
    hp = {**job.spec["hp"], "sampling": {**job.spec["hp"]["sampling"], "mode": "neighbour"}}
    return replace(job, spec={**job.spec, "hp": hp})


def main() -> None:  # pragma: no cover - run as a subprocess by probe_jobs (its tests go through it)
    from .worker import reuse_freed_memory, run_seed

    reuse_freed_memory()  # our own process, timing seeds in-process: it allocates as a seed's worker does
    jobs = pickle.load(sys.stdin.buffer)
    for job in jobs:
        result = run_seed(job.placed(0), on_epoch=lambda epoch: None)
        line = {"status": result.get("status"), "error": result.get("error"), "seconds": result.get("seconds"),
                "epochs": job.spec["hp"]["epochs"], "peak_rss_mb": peak_rss_mb(),
                "gpu_peak_mb": result.get("gpu_peak_mb"), "gpu": result.get("gpu")}
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()


def probe_jobs(jobs: list[Job], timeout_s: float | None = None) -> list[dict]:
    """Run ``jobs`` one after another in a fresh Python process; their results, in order (a probe that
    died or ran out of time: ``status`` ``failed`` with the reason, and nothing after it)."""
    cmd = [sys.executable, "-m", "netzbench.run.probe"]
    try:
        done = subprocess.run(cmd, input=pickle.dumps(jobs), capture_output=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or b""
        lines = [json.loads(s) for s in out.decode().splitlines() if s.strip()]
        return lines + [{"status": "failed", "error": f"the probe ran past {timeout_s:g} s"}]
    lines = [json.loads(s) for s in done.stdout.decode().splitlines() if s.strip()]
    if done.returncode != 0 and len(lines) < len(jobs):
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
        died = "killed (out of memory?)" if done.returncode in (-9, 137) else tail[0][:300]
        lines.append({"status": "failed", "error": f"the probe process died: {died}"})
    return lines


if __name__ == "__main__":  # pragma: no cover
    main()
