"""Which device the seeds train on, decided without initialising CUDA in this process.

CUDA cannot be used in a process forked from one that had initialised it (``CUDA error: initialization
error``: every seed of a GPU run failed so, issue 48). ``torch.cuda.is_available()`` initialises enough of
the driver to poison a later fork, so the process that plans the seeds and starts their workers never
calls it: it asks NVML (:mod:`pynvml`, where it is installed; NVML is the driver's management library and
leaves CUDA alone) or, failing that, a short child process that imports torch and counts the devices.
Workers that train on a GPU are *spawned* (a fresh interpreter, never a fork of this process or of a
server that preloaded torch, :func:`start_method`) and each makes one device visible to itself before
torch touches CUDA (:func:`pin`: round-robin over ``CUDA_VISIBLE_DEVICES``), so several seeds share a GPU
(``exec.workers``) and several GPUs share the seeds.

Nothing here imports torch.
"""

from __future__ import annotations

import functools
import glob
import os
import platform
import subprocess
import sys

#: seconds the counting child may take (it imports torch: a few seconds; a hung driver must not hang a stage)
COUNT_TIMEOUT_S = 120.0
#: cuBLAS's fixed workspace, which deterministic GEMMs need; read when cuBLAS starts (set before torch is)
CUBLAS_WORKSPACE = ":4096:8"


class DeviceError(RuntimeError):
    """``exec.device`` asks for a device this machine does not have (a one-line message)."""


def no_gpu_driver() -> bool:
    """True when this machine cannot have a CUDA (or ROCm) device: Linux without the NVIDIA or AMD
    kernel driver's device files, or macOS. Elsewhere we cannot tell without asking."""
    system = platform.system()
    if system == "Darwin":
        return True
    if system != "Linux":
        return False
    return not (os.path.exists("/proc/driver/nvidia") or glob.glob("/dev/nvidia*") or os.path.exists("/dev/kfd"))


def _listed() -> list[str] | None:
    """The entries of ``CUDA_VISIBLE_DEVICES`` as CUDA reads them (up to the first invalid one, ``-1`` hiding
    every device after it); None when it is unset."""
    value = os.environ.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return None
    out = []
    for entry in (e.strip() for e in value.split(",")):
        if not entry or entry.startswith("-"):
            break
        out.append(entry)
    return out


def _nvml_count() -> int | None:
    """Devices the driver has, by NVML (no CUDA context); None without pynvml or a working NVML."""
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
        try:
            return int(pynvml.nvmlDeviceGetCount())
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # noqa: BLE001 - no driver, no permission: ask the child instead
        return None


_COUNT_CODE = "import torch; print(torch.cuda.device_count() if torch.cuda.is_available() else 0)"


def _child_count() -> int:
    """CUDA devices visible to a fresh child process (it initialises CUDA; this process does not)."""
    try:
        done = subprocess.run([sys.executable, "-c", _COUNT_CODE], capture_output=True, text=True,
                              timeout=COUNT_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    try:
        return int(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else 0
    except (ValueError, IndexError):
        return 0


@functools.lru_cache(maxsize=8)
def _count(visible: str | None) -> int:
    if no_gpu_driver():
        return 0
    listed = _listed()
    if listed is not None and not listed:
        return 0  # CUDA_VISIBLE_DEVICES hides every device
    found = _nvml_count()
    if found is None:
        return _child_count()  # honours CUDA_VISIBLE_DEVICES itself
    return found if listed is None else min(found, len(listed))


def gpu_count() -> int:
    """CUDA devices this process's workers can use (0 without a driver), without initialising CUDA here."""
    return _count(os.environ.get("CUDA_VISIBLE_DEVICES"))


def resolve(requested: str) -> str:
    """``exec.device`` as the seeds will train: ``cpu`` or ``cuda`` (``auto``: CUDA where a device is
    visible). :class:`DeviceError` for ``cuda`` on a machine without one."""
    if requested == "cpu" or (requested == "auto" and no_gpu_driver()):
        return "cpu"
    if requested not in ("auto", "cuda"):
        raise DeviceError(f"exec.device must be one of auto, cpu, cuda, got {requested!r}")
    if gpu_count() > 0:
        return "cuda"
    if requested == "cuda":
        raise DeviceError("exec.device is 'cuda' but no CUDA device is available here; use 'auto' or 'cpu'")
    return "cpu"


def visible_devices() -> list[str]:
    """The devices the workers are pinned to, in order: ``CUDA_VISIBLE_DEVICES``'s entries (indices or
    UUIDs), else ``0 .. n-1``."""
    listed = _listed()
    return listed[:gpu_count()] if listed is not None else [str(i) for i in range(gpu_count())]


def start_method(device: str) -> str | None:
    """The multiprocessing start method a worker training on ``device`` needs: ``spawn`` for CUDA (a fresh
    interpreter: no CUDA state inherited, whatever the parent or a preloading server did), None for the CPU
    (the pool's own choice: a forkserver with torch preloaded)."""
    return "spawn" if device == "cuda" else None


def pin(devices: list[str], job_index: int) -> str:
    """In a worker, before torch initialises CUDA: make ``devices[job_index % len(devices)]`` its only
    visible device (it is then ``cuda:0`` there), set cuBLAS's deterministic workspace, and return the
    device's entry (recorded per seed as ``cuda_device``). Raises ``RuntimeError`` where CUDA is already
    initialised in this process (the pin would not take)."""
    if not devices:
        raise DeviceError("exec.device is 'cuda' but no CUDA device is visible to the worker")
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        raise RuntimeError("CUDA was initialised in this worker before its device was pinned")
    chosen = devices[job_index % len(devices)]
    os.environ["CUDA_VISIBLE_DEVICES"] = chosen
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", CUBLAS_WORKSPACE)
    return chosen


def pinned_entry(index: int = 0) -> str:
    """The ``CUDA_VISIBLE_DEVICES`` entry of this process's device ``cuda:<index>`` (after :func:`pin`, or
    Ray's own assignment, the physical device), or the index itself where the variable is unset."""
    listed = _listed()
    return listed[index] if listed is not None and index < len(listed) else str(index)


_MEMORY_CODE = "import torch; print(torch.cuda.get_device_properties(0).total_memory if torch.cuda.is_available() else 0)"


def gpu_memory_gb() -> float:
    """Memory of the first visible GPU (GiB; 0 without one), by NVML or a child process: never CUDA here."""
    if gpu_count() == 0:
        return 0.0
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            first = (_listed() or ["0"])[0]
            handle = (pynvml.nvmlDeviceGetHandleByUUID(first) if not first.isdigit()
                      else pynvml.nvmlDeviceGetHandleByIndex(int(first)))
            return pynvml.nvmlDeviceGetMemoryInfo(handle).total / 2**30
        finally:
            pynvml.nvmlShutdown()
    except Exception:  # noqa: BLE001 - no pynvml, a MIG or short UUID it does not take: ask the child
        pass
    try:
        done = subprocess.run([sys.executable, "-c", _MEMORY_CODE], capture_output=True, text=True,
                              timeout=COUNT_TIMEOUT_S, stdin=subprocess.DEVNULL)
        return int(done.stdout.strip().splitlines()[-1]) / 2**30 if done.returncode == 0 else 0.0
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
        return 0.0
