"""The in-process executor: jobs one after another in this process.

For the Python API and for debugging (a breakpoint in a model works). The
same worker code as the pool (:func:`.worker.run_seed`) with the same thread
pinning (the caller's setting is restored afterwards), hence the same
histories; but no per-seed timeout or memory cap (they would hit the
caller's process) and no crash isolation. Models defined in memory (a
notebook class, an inline factory) can only run here.
"""

from __future__ import annotations

from .job import Job
from .worker import run_seed


def run_jobs(jobs: list[Job], on_result, on_epochs=None) -> None:
    """Run ``jobs`` in order; ``on_result(job, result)`` after each, ``on_epochs(job_index, epoch)`` as it trains."""
    import torch

    threads = torch.get_num_threads()
    try:
        for i, job in enumerate(jobs):
            job = job.placed(i)
            report = (lambda epoch, i=i: on_epochs(i, epoch)) if on_epochs is not None else (lambda epoch: None)
            on_result(job, run_seed(job, on_epoch=report))
    finally:
        torch.set_num_threads(threads)
