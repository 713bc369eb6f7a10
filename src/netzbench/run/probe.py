"""Probes: a few epochs of a cell's first seed, run as the train stage runs its seeds, and kept.

``netzbench estimate`` trains each cell's first job for a few epochs (:mod:`.estimate` reads the cost of a
seed off the run's seconds and the times its later epochs finished). The probes go through the stage's own
executor (:func:`.pool.run_jobs`): each in a fresh child of the warm worker server, ``exec.workers`` at a
time, so a probe pays what a seed pays (its fork, its first calls, its data loading, a neighbour at work on
the other core) and reports the seed's own ``seconds`` and peak resident memory (``VmHWM`` of the child).

A probe's result is kept (``<cache>/probes/``, :class:`ProbeCache`) under a key made like a seed's
(:func:`probe_key`: the seed key -- task, model, hyperparameters, data, code, threads, arithmetic --
with the probe's epochs, the machine's processor and core count, the workers at once, and
:data:`PROBE_VERSION`): an estimate asked again with unchanged code and data measures nothing again.
A failed probe is not kept.

:func:`probe_jobs` is the older, isolated form (a fresh interpreter, one warm-up epoch, then the jobs in
order): ``benchmarks/bench_scaling.py`` times graphs at the limit of memory with it, where a probe must not
share the machine with another.
"""

from __future__ import annotations

import json
import os
import pickle
import platform
import subprocess
import sys
import time
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from ..identity import seed_key
from ..paths import cache_root
from ..training.seed import peak_rss_mb
from .job import Job

#: what a probe measures and how; a change here makes every kept probe a miss
PROBE_VERSION = 4


def with_epochs(job: Job, epochs: int, timeout_s: float | None = None) -> Job:
    """``job`` trained for ``epochs`` epochs (every other setting as planned), stopped past ``timeout_s``; no
    memory cap: the probe measures the peak, and the estimate judges it against ``exec.max_rss_gb``."""
    hp = {**job.spec["hp"], "epochs": int(epochs)}
    return replace(job, spec={**job.spec, "hp": hp}, timeout_s=timeout_s, max_rss_gb=None)


def with_sampling(job: Job) -> Job:
    """``job`` trained neighbour-sampled (``train.sampling.mode: neighbour``, its other settings as planned)."""
    hp = {**job.spec["hp"], "sampling": {**job.spec["hp"]["sampling"], "mode": "neighbour"}}
    return replace(job, spec={**job.spec, "hp": hp})


@lru_cache(maxsize=1)
def machine() -> dict:
    """What a probe's seconds depend on besides the job: the processor, its cores, the platform."""
    model = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            model = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), model)
    except OSError:
        pass
    return {"cpu": model, "cores": os.cpu_count(), "platform": platform.machine()}


def probe_key(key: str, job: Job, workers: int) -> str:
    """The key of a probe of ``job`` (``key``: its seed's cache key; the job's epochs and sampling are the
    probe's) run ``workers`` at a time on this machine."""
    return seed_key(probe=PROBE_VERSION, seed_key=key, hp=job.spec["hp"], workers=int(workers), machine=machine())


class ProbeCache:
    """Probe results by key under ``root`` (default ``<cache>/probes``). An entry that does not parse or names
    another key is a miss (and is overwritten by the next probe)."""

    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root) if root else cache_root() / "probes"

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        try:
            entry = json.loads(self._path(key).read_text())
        except (OSError, ValueError):
            return None
        ok = isinstance(entry, dict) and entry.get("key") == key and isinstance(entry.get("result"), dict)
        result = entry["result"] if ok else None
        if result is None or not all(isinstance(result.get(k), (int, float)) and result[k] >= 0
                                     for k in ("seconds", "per_epoch", "peak_rss_mb")):
            return None
        return result

    def put(self, key: str, result: dict) -> None:
        """Keep an ok probe's ``seconds`` and ``peak_rss_mb`` (a store that fails is skipped: it is a cache)."""
        from ..records import write_json_atomic

        entry = {"key": key, "result": {"seconds": float(result["seconds"]),
                                        "per_epoch": float(result["per_epoch"]),
                                        "peak_rss_mb": float(result["peak_rss_mb"]),
                                        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S")}}
        try:
            self._path(key).parent.mkdir(parents=True, exist_ok=True)
            write_json_atomic(self._path(key), entry)
        except OSError:
            pass


def run_probes(jobs: list[Job], workers: int, warm_s: float, on_result, on_epoch=None) -> None:
    """Run probe ``jobs`` as the train stage runs seeds (:func:`.pool.run_jobs`: ``workers`` at a time, children
    of the warm server when ``warm_s`` > 0); ``on_result(i, result)`` as the ``i``-th job ends, ``on_epoch(i,
    epoch)`` as it finishes an epoch."""
    from .pool import run_jobs

    run_jobs(jobs, workers, lambda job, result: on_result(job.job_index, result), on_epoch, warm_s=warm_s)


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
