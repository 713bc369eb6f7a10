"""A seed on a GPU trains with torch's deterministic algorithms and records the GPU and what stayed
nondeterministic (issue 29); on the CPU nothing changes. No GPU here: the CUDA calls are stood in for,
so what is tested is netzbench's side (which settings it makes, what it records), not CUDA's."""

from __future__ import annotations

import os
import warnings

import pytest
import torch

from netzbench.run.worker import accelerator


class _Cuda:
    type = "cuda"


def test_the_cpu_path_is_left_as_it_is():
    before = torch.are_deterministic_algorithms_enabled()
    with accelerator(torch.device("cpu")) as facts, pytest.warns(UserWarning):
        warnings.warn("scatter_add_cuda_kernel does not have a deterministic implementation")
    assert facts == {} and torch.are_deterministic_algorithms_enabled() == before


def test_a_gpu_seed_asks_for_determinism_and_records_the_gpu_and_the_exceptions(monkeypatch):
    calls = []
    monkeypatch.setattr(torch, "use_deterministic_algorithms", lambda *a, **k: calls.append((a, k)))
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device: "NVIDIA H200")
    monkeypatch.setattr(torch.backends.cudnn, "benchmark", True)
    monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", lambda device: None)
    monkeypatch.setattr(torch.cuda, "max_memory_allocated", lambda device: 3 * 2**20)
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "5")  # as a pinned worker sees it: cuda:0 is physical device 5
    with accelerator(_Cuda()) as facts:
        for op in ("scatter_add_cuda_kernel", "index_add_cuda_", "scatter_add_cuda_kernel"):
            warnings.warn(f"{op} does not have a deterministic implementation, but you set "
                          "'torch.use_deterministic_algorithms(True, warn_only=True)'")
        warnings.warn("an unrelated warning")
    assert calls == [((True,), {"warn_only": True})]
    assert torch.backends.cudnn.benchmark is False and os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    assert facts == {"gpu": "NVIDIA H200", "cuda_device": "5", "gpu_peak_mb": 3.0,
                     "nondeterministic_ops": ["index_add_cuda_", "scatter_add_cuda_kernel"]}
