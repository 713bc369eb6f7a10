"""Portable arithmetic: the same bits on every x86-64 CPU of one vendor with AVX2.

PyTorch picks its CPU kernels by the instruction set it finds (ATen's CPU
capability: SSE/AVX2/AVX-512), and so do MKL (BLAS, vector maths) and oneDNN;
a wider vector unit sums in another order, the last bits differ, and training
amplifies them (the same seed on an AVX-512 and an AVX2 machine can end
several points apart). ``exec.arithmetic: portable`` pins all three to their
AVX2 paths before torch is imported, so CPUs of one vendor with and without
AVX-512 give the same bits (checked on 27 cells, every model and family: an
AVX-512/AMX Xeon natively and an emulated AVX2-only Intel CPU). The training
code adds one rule the variables cannot: no ``Tensor.sqrt`` in the update,
since MKL's vector square root rounds by processor (hence the fused Adam,
:func:`netzbench.training.fit.adam`).

Intel and AMD CPUs still differ: MKL picks its code by vendor as well, and its
only vendor-neutral branch (``MKL_CBWR=COMPATIBLE``) made the published plan's
training 1.5 times as long (benchmarks/RESULTS.md). ``native`` lets each
library use the best it finds (on a CPU that is not x86-64 it is the only
mode). The mode is part of result identity (a portable run's cache keys differ
from a native run's).

The variables are read once, when torch (or MKL/oneDNN) initialises, so
:func:`configure` must run before the first ``import torch`` of the process
that starts the workers: the command line calls it first thing, and
:func:`check` in each worker refuses to train a CPU seed on another capability (a GPU seed is not
checked: the mode is about CPU kernels).
"""

from __future__ import annotations

import os
import platform

MODES = ("native", "portable")
#: the pinned level: AVX2, which every x86-64 CPU of the last decade has
PORTABLE_ENV = {
    "ATEN_CPU_CAPABILITY": "avx2",  # ATen's vectorised kernels (reductions, elementwise, ...)
    "MKL_CBWR": "AVX2",              # MKL conditional numerical reproducibility: its AVX2 branch
    "ONEDNN_MAX_CPU_ISA": "AVX2",    # oneDNN (convolutions, matmul primitives)
}
X86_64 = ("x86_64", "amd64")
CAPABILITY = "AVX2"  # what torch.backends.cpu.get_cpu_capability() reports under PORTABLE_ENV


class ArithmeticError_(RuntimeError):
    """Portable arithmetic was asked for in a process whose torch already chose other kernels."""


#: the variables :func:`configure` set in this process (not the user's own)
_set_here: set[str] = set()


def configure(mode: str) -> None:
    """Set the environment of ``mode`` for torch and the workers this process will start
    (``native`` removes the pins an earlier ``portable`` call in this process set, so a later native
    run is native; variables the user set are left alone)."""
    if mode == "portable":
        _set_here.update(k for k, v in PORTABLE_ENV.items() if os.environ.get(k) != v)
        os.environ.update(PORTABLE_ENV)
    else:
        for name in list(_set_here):
            os.environ.pop(name, None)
        _set_here.clear()


def check(mode: str, device: str = "cpu") -> None:
    """Raise :class:`ArithmeticError_` unless this process's torch computes in ``mode``. Only a seed that
    trains on the CPU is checked: the mode pins CPU kernels, and a GPU seed's numbers come from the GPU's
    (a cuda run on a host CPU with AVX-512 trains; its key holds the device)."""
    if mode != "portable" or device != "cpu":
        return
    import torch

    found = torch.backends.cpu.get_cpu_capability()
    if found != CAPABILITY and platform.machine().lower() not in X86_64:
        raise ArithmeticError_(
            f"exec.arithmetic is 'portable' (the default), which pins the x86-64 AVX2 kernels, but this CPU is "
            f"{platform.machine()}: set `exec.arithmetic: native` (dvc repro -S exec.arithmetic=native); "
            "results then agree with the published ones up to this CPU's rounding (check with netzbench verify)")
    if found != CAPABILITY:
        raise ArithmeticError_(
            f"exec.arithmetic is 'portable' but torch in this process uses the {found} kernels: torch was "
            f"imported before the mode was set. Set {', '.join(f'{k}={v}' for k, v in PORTABLE_ENV.items())} "
            "in the environment, or run through the netzbench command line")
