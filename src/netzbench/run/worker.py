"""One job in a worker: thread pinning, limits, data, then :func:`netzbench.training.seed.fit_seed`.

A job is a :class:`.job.Job`: ``spec`` (what is computed: task spec, model,
hyperparameters, seed -- exactly what the cache key hashes besides the data
and code) and how to run it (data folder, working directory, threads,
device, limits). The result is a plain dict that goes into the run record
under its seed; any exception is caught and returned as ``failed``, so one
bad seed never stops a sweep.

Limits: ``exec.timeout_s`` arms a SIGALRM timer in the worker, which raises
:class:`SeedTimeout` (a ``BaseException``, so a model's ``except Exception``
does not swallow it); a model that swallows it anyway is killed from outside
its process: the parent (the pool, or the warm server's client) is told
when the limits apply (``init_worker``'s ``on_limits``) and stops the process
with SIGKILL :data:`KILL_GRACE_S` seconds after the timeout has passed
(:func:`kill_after`, :func:`stopped_result`). ``exec.max_rss_gb`` caps the
data segment. A seed's temporary files go to the job's ``tmp_dir`` (the
stage's scratch folder, removed when the stage ends).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import math
import os
import resource
import signal
import sys
import tempfile
import time

from .job import Job

#: progress queue of this worker process (set by :func:`init_worker`)
_PROGRESS = None
#: called once the seed's limits apply (set by :func:`init_worker`): the parent's deadline counts from then
_ON_LIMITS = None
#: a job whose process dies is run again at most this many times, alone, then recorded as failed
MAX_RETRIES = 2
#: seconds past ``exec.timeout_s`` after which the parent kills a seed that did not stop itself
KILL_GRACE_S = 3.0


class SeedTimeout(BaseException):
    """The seed ran past ``exec.timeout_s`` (not an ``Exception``: user code's ``except Exception``
    must not swallow it)."""


def huge_page_allocations() -> None:
    """Ask torch to back large CPU tensors with 2 MB transparent huge pages (``THP_MEM_ALLOC_ENABLE``).

    Full-batch message passing allocates temporaries of hundreds of MB every
    step; with 4 KB pages the first-touch page faults cost more than the
    arithmetic (measured 2-3x on a 450 MB gather). Allocation only: results are
    unchanged. Torch reads the variable once, so it is set before torch is
    imported in a worker; an explicit setting in the environment wins.
    """
    os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")


#: glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
#: blocks up to this size come from the heap, where a freed one serves the next allocation as it is
REUSE_BELOW = 256 << 20
#: free memory at the top of the heap that is kept rather than handed back to the kernel
KEEP_FREE = 1 << 30


@functools.lru_cache(maxsize=1)
def _glibc():
    """This process's glibc (ctypes), or None under another C library or system."""
    try:
        if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            return None
        return ctypes.CDLL("libc.so.6")
    except (ValueError, OSError, AttributeError):  # no such confstr name (not Linux); no libc.so.6
        return None


def reuse_freed_memory() -> None:
    """Let glibc's malloc give memory a tensor freed to the next tensor instead of to the kernel.

    By default glibc maps every block over 32 MB (and, after a free, over a moving threshold) afresh
    and unmaps it when freed, and trims the heap's free top: a full-batch epoch allocates the same
    temporaries again and again (Internet AS's GAT: [23k, 512] floats, 47 MB, many times a step),
    and every page of each fresh mapping faults in again on first touch -- 3.4 M page faults a
    10-epoch seed without huge pages, 160 k with them (``THP_MEM_ALLOC_ENABLE``). Keeping blocks
    under :data:`REUSE_BELOW` in the heap and :data:`KEEP_FREE` of free memory at its top removes
    them (13-20 % of that seed's time here, benchmarks/RESULTS.md). Allocation only: the same
    bits. Called in worker processes only (:func:`run_seed` without ``on_epoch``): every worker process
    runs one seed, so what it keeps goes when the seed ends, while the in-process executor runs in the
    caller's process (the Python API's, a notebook's), whose allocator is not ours to change. A no-op
    where the C library is not glibc.
    """
    libc = _glibc()
    if libc is not None:
        libc.mallopt(_M_MMAP_THRESHOLD, REUSE_BELOW)
        libc.mallopt(_M_TRIM_THRESHOLD, KEEP_FREE)


def init_worker(progress_queue=None, on_limits=None) -> None:
    """Remember the queue on which epochs are reported (``put_nowait((job_index, epoch))``) and
    ``on_limits()``, called once the seed's limits are armed."""
    global _PROGRESS, _ON_LIMITS
    _PROGRESS, _ON_LIMITS = progress_queue, on_limits


def _report(job_index: int, epoch: int) -> None:
    if _PROGRESS is not None:
        try:
            _PROGRESS.put_nowait((job_index, epoch))
        except Exception:  # noqa: BLE001 - progress is best effort, never fatal
            pass


def died_result(attempts: int) -> dict:
    """The result of a job whose worker process died on every attempt."""
    return {"status": "failed", "seconds": 0.0,
            "error": f"worker process died {attempts} time(s); killed by the system (out of memory?) or crashed"}


def timeout_error(timeout_s) -> str:
    """The ``error`` of a seed stopped by its time limit."""
    return f"timeout: stopped after exec.timeout_s = {timeout_s} s"


def kill_after(timeout_s) -> float | None:
    """Seconds after its limits apply at which the parent kills the process of a job with
    ``exec.timeout_s`` = ``timeout_s`` (None: no limit, or one the worker refuses by itself)."""
    try:
        timeout = _limit("timeout_s", timeout_s)
    except ValueError:
        return None
    return None if timeout is None else timeout + KILL_GRACE_S


def stopped_result(timeout_s, started_at: float) -> dict:
    """The result of a seed the parent killed at its ``timeout_s`` deadline (limits armed at Unix time
    ``started_at``)."""
    now = time.time()
    return {"status": "failed", "error": timeout_error(timeout_s), "seconds": now - started_at,
            "started_at": started_at, "finished_at": now}


def _on_alarm(signum, frame):
    raise SeedTimeout("timeout")


def _limit(name: str, value) -> float | None:
    """A limit as a positive finite float, None for none; ``ValueError`` naming ``exec.<name>``
    otherwise (``.nan`` is not "no limit": it would turn the timer off unnoticed)."""
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number) or number <= 0:
        raise ValueError(f"exec.{name} must be null (no limit) or a finite number > 0, got {value!r}")
    return number


def apply_limits(timeout_s: float | None, max_rss_gb: float | None) -> None:
    """Per-process limits: a SIGALRM timer and an address-space cap on data (``RLIMIT_DATA``);
    None is no limit, a non-finite or non-positive value a ``ValueError``."""
    timeout, rss = _limit("timeout_s", timeout_s), _limit("max_rss_gb", max_rss_gb)
    if timeout is not None:
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    if rss is not None:
        cap = int(rss * 1024**3)
        resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))


class DataLoadError(RuntimeError):
    """A seed's data could not be loaded or generated (the message names the task, seed and loader)."""


def resolve_device(requested: str):
    """The torch device of a job in its worker: ``cuda`` (the one device the worker pinned, :func:`.device.pin`,
    or the first visible), ``cpu``, or ``auto`` -> CUDA when present (here, in the worker, torch may ask CUDA:
    nothing forks from a worker)."""
    import torch

    if requested == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if requested == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("exec.device is 'cuda' but no CUDA device is available (use 'auto' or 'cpu')")
    return torch.device(requested)


@contextlib.contextmanager
def accelerator(device):
    """Train on ``device`` as deterministically as torch allows, and say what could not be.

    On the CPU nothing changes (its kernels are deterministic; the CPU path's bits are the published
    ones). On a GPU: deterministic algorithms where torch has them (``use_deterministic_algorithms`` in
    warn-only mode, cuBLAS's fixed workspace, no cuDNN autotuning), and the facts the seed record
    keeps: ``gpu`` (the device's name), ``cuda_device`` (its entry of ``CUDA_VISIBLE_DEVICES`` as the
    parent saw it, or its index), ``gpu_peak_mb`` (the most memory the seed's tensors held on it) and
    ``nondeterministic_ops``, the operations torch warned have no deterministic CUDA implementation
    (PyG's scatter-add among them: their sums come in no fixed order)."""
    facts: dict = {}
    if getattr(device, "type", "cpu") != "cuda":
        yield facts
        return
    import warnings

    import torch

    from .device import CUBLAS_WORKSPACE, pinned_entry

    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", CUBLAS_WORKSPACE)  # read when cuBLAS starts: before the first GEMM
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.cudnn.benchmark = False
    facts["gpu"] = torch.cuda.get_device_name(device)
    facts["cuda_device"] = pinned_entry(getattr(device, "index", None) or 0)
    torch.cuda.reset_peak_memory_stats(device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield facts
        finally:
            ops = {str(w.message).split(" does not have a deterministic", 1)[0].strip()
                   for w in caught if "does not have a deterministic" in str(w.message)}
            facts["nondeterministic_ops"] = sorted(ops)
            facts["gpu_peak_mb"] = torch.cuda.max_memory_allocated(device) / 2**20


def job_arrays(job: Job) -> dict:
    """The processed arrays of the job's task for its seed (shipped bytes on Ray, else the data folder)."""
    if job.data_bytes is not None:
        import io

        import numpy as np

        with np.load(io.BytesIO(job.data_bytes), allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    from ..graphs.layout import task_arrays

    return task_arrays(job.data_dir, job.spec["seed"], job.meta)


def run_seed(job: Job, on_epoch=None) -> dict:
    """Train the job and return ``{status, history, epochs, seconds, num_params, peak_rss_mb,
    started_at, finished_at}`` (the last two: Unix times, from which the report measures elapsed time).

    In a worker process (``on_epoch`` None) epochs are reported on the progress queue and
    the limits apply; in-process callers pass ``on_epoch`` and get no limits.
    """
    started = time.time()
    try:
        result = _run_seed(job, on_epoch)
    except SeedTimeout:  # the alarm rang while a failure was being recorded (its handlers are past)
        result = {"status": "failed", "error": timeout_error(job.timeout_s), "seconds": time.time() - started}
    result["started_at"], result["finished_at"] = started, time.time()
    return result


def _run_seed(job: Job, on_epoch) -> dict:
    from ..training.seed import failure

    t0 = time.perf_counter()
    in_process = on_epoch is not None
    try:
        if not in_process:
            if job.cwd and os.path.isdir(job.cwd):  # not on a remote Ray node
                os.chdir(job.cwd)
            if job.tmp_dir and os.path.isdir(job.tmp_dir):
                tempfile.tempdir = job.tmp_dir  # PyG's generated modules: removed with the stage's folder
            for entry in reversed(job.sys_path or []):
                if entry not in sys.path:
                    sys.path.insert(0, entry)
            huge_page_allocations()  # a Ray worker imports torch here first; a pool worker already has it
            reuse_freed_memory()  # the worker's own allocator; never the caller's (in-process: the user's session)
        import torch

        from ..models.registry import resolve_model
        from ..training.seed import fit_seed
        from .arithmetic import check as check_arithmetic

        check_arithmetic(job.arithmetic, job.device)  # portable pins CPU kernels: checked for CPU seeds only

        torch.set_num_threads(int(job.threads))
        if not in_process:
            apply_limits(job.timeout_s, job.max_rss_gb)
            if _ON_LIMITS is not None:
                _ON_LIMITS()
            index = job.job_index or 0
            on_epoch = lambda epoch: _report(index, epoch)  # noqa: E731
        spec = job.spec
        model = job.model_spec or resolve_model(spec["model"], spec["model_args"])
        try:
            arrays = job_arrays(job)
        except Exception as exc:  # noqa: BLE001 - a per-seed generator or a user's seed-aware loader
            meta = job.meta or {}
            who = (meta.get("generator_params") or {}).get("loader") or meta.get("generator") or "its data files"
            raise DataLoadError(f"task {spec['task']!r}, seed {spec['seed']}: loading the data ({who}) raised "
                                f"{type(exc).__name__}: {exc}") from exc
        device = resolve_device(job.device)
        with accelerator(device) as facts:
            result = fit_seed(model, spec["task_spec"]["family"], spec["task_spec"]["split"], arrays,
                              spec["seed"], spec["hp"], device=device, on_epoch=on_epoch, protocol=spec.get("protocol"))
        result.update(facts)
        result["seconds"] = time.perf_counter() - t0
        return result
    except SeedTimeout:
        return {**failure(SeedTimeout(f"stopped after exec.timeout_s = {job.timeout_s} s"), t0),
                "error": timeout_error(job.timeout_s)}
    except MemoryError as exc:
        detail = f" ({type(exc).__name__}: {exc})" if str(exc) else ""  # a bare MemoryError has no text
        return {**failure(exc, t0), "error": f"memory limit: exec.max_rss_gb = {job.max_rss_gb} exceeded{detail}"}
    except RuntimeError as exc:
        if "allocate" in str(exc) and job.max_rss_gb:
            return {**failure(exc, t0),
                    "error": f"memory limit: exec.max_rss_gb = {job.max_rss_gb} exceeded ({str(exc)[:200]})"}
        return failure(exc, t0)
    except Exception as exc:  # recorded, never raised: the sweep goes on
        return failure(exc, t0)
    finally:
        if not in_process:
            signal.setitimer(signal.ITIMER_REAL, 0)
