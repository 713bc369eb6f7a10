"""Honest GPU benchmarks (issue 48): bench_gpu.py counts the seeds that trained and never times a failed one,
and every benchmark script sets the arithmetic mode before torch through one helper (arithmetic_first).

An earlier bench_gpu printed "cora 12.8 s, mutag 0.5 s" and "histories identical" for 310 seeds that had all
failed. These tests feed its accounting run records as the pool writes them (no GPU needed)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import arithmetic_first  # noqa: E402
import bench_gpu  # noqa: E402

from netzbench.run import arithmetic  # noqa: E402

TIME = re.compile(r"\d+\.\d s")


def _record(model: str, statuses: list[str], **facts) -> dict:
    seeds = {}
    for s, status in enumerate(statuses):
        entry = {"status": status}
        if status == "failed":
            entry["error"] = "AcceleratorError: CUDA error: initialization error"
        elif status == "ok":
            entry.update(history={"test_acc": [0.5]}, **facts)
        seeds[str(s)] = entry
    return {"task": "cora", "model": model, "seeds": seeds}


def test_failed_seeds_are_counted_and_never_timed():
    records = [_record("GCN", ["ok", "failed", "ok"], gpu="NVIDIA H200", cuda_device="1", gpu_peak_mb=120.5,
                       nondeterministic_ops=["scatter_add_cuda_kernel"]),
               _record("GIN", ["incompatible"] * 3)]
    counts = bench_gpu.seed_counts(records)
    assert (counts["ok"], counts["failed"], counts["total"]) == (2, 1, 3)
    assert counts["error"] == "cora/GCN seed 1: AcceleratorError: CUDA error: initialization error"
    assert counts["gpus"] == {"NVIDIA H200"} and counts["devices"] == {"1"} and counts["gpu_peak_mb"] == 120.5
    assert counts["nondeterministic_ops"] == {"scatter_add_cuda_kernel"}
    text = bench_gpu.timing(counts, 12.8)
    assert text.startswith("2/3 ok, no time") and TIME.search(text) is None and "12.8" not in text


def test_a_run_where_every_seed_failed_prints_no_time():
    """The issue's run: 310 of 310 seeds failed and the old script printed their seconds as GPU times."""
    counts = bench_gpu.seed_counts([_record(m, ["failed"] * 10) for m in ("GCN", "GAT", "GraphSAGE")])
    assert (counts["ok"], counts["failed"]) == (0, 30)
    assert TIME.search(bench_gpu.timing(counts, 0.5)) is None
    assert bench_gpu.timing(bench_gpu.seed_counts([_record("GIN", ["incompatible"])]), 0.5).startswith("no seeds")


def test_a_run_where_every_seed_trained_is_timed():
    counts = bench_gpu.seed_counts([_record("GCN", ["ok"] * 4)])
    assert bench_gpu.timing(counts, 12.84) == "12.8 s (4/4 ok)"


def test_the_cpu_run_beside_it_is_its_elapsed_and_summed_time_of_the_same_cells_and_seeds(tmp_path):
    cells = {"cora": {
        "GCN": {"seeds": {"0": {"seconds": 2.0, "started_at": 100.0, "finished_at": 102.0},
                          "1": {"seconds": 2.0, "started_at": 101.0, "finished_at": 103.0},
                          "2": {"seconds": 50.0, "started_at": 200.0, "finished_at": 250.0}}},
        "MLP": {"seeds": {"0": {"seconds": 9.0, "started_at": 300.0, "finished_at": 309.0}}}}}
    path = tmp_path / "benchmark.json"
    path.write_text(json.dumps({"cells": cells}))
    assert bench_gpu.cpu_figures(path, "cora", ["GCN", "GIN"], [0, 1]) == (3.0, 4.0)  # [100, 103]: 3 s elapsed
    assert bench_gpu.cpu_figures(path, "mutag", ["GCN"], [0]) is None
    assert bench_gpu.cpu_figures(tmp_path / "none.json", "cora", ["GCN"], [0]) is None


@pytest.fixture
def own_environment(monkeypatch):
    """What the helper sets stays in this test."""
    monkeypatch.setattr(os, "environ", dict(os.environ))
    monkeypatch.setattr(arithmetic, "_set_here", set())
    for name in arithmetic.PORTABLE_ENV:
        os.environ.pop(name, None)


def test_the_helper_refuses_portable_after_torch_was_imported(own_environment, capsys):
    import torch  # noqa: F401 - this process has it, as a script that imported it first would

    with pytest.raises(arithmetic_first.TorchAlreadyImported) as info:
        arithmetic_first.configure_arithmetic("portable")
    assert info.value.code == 2 and "configure_arithmetic() first" in capsys.readouterr().err
    assert arithmetic_first.configure_arithmetic("native") == "native"
    os.environ.update(arithmetic.PORTABLE_ENV)  # pinned before torch was (the parent set them): fine
    assert arithmetic_first.configure_arithmetic("portable") == "portable"


def test_the_helper_reads_the_mode_of_a_params_file(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text("exec:\n  arithmetic: native\n")
    assert arithmetic_first.mode_of(path) == "native"
    path.write_text("exec:\n  workers: 2\n")
    assert arithmetic_first.mode_of(path) == "portable"
    assert arithmetic_first.mode_of(tmp_path / "missing.yaml") == arithmetic_first.mode_of(None) == "portable"


def test_every_benchmark_script_that_trains_sets_the_mode_through_the_helper():
    """One helper, not a copy per script: a script that trains or starts training processes calls it, and none
    sets the mode's variables itself (the reference's script runs another package in its own environment)."""
    folder = Path(bench_gpu.__file__).parent
    trains = re.compile(r"run_plans|fit_seed|train_cell|estimate_plan|probe_jobs|train_link_pred|netzbench\.cli")
    for script in sorted(folder.glob("bench_*.py")):
        source = script.read_text()
        if trains.search(source):
            assert "configure_arithmetic(" in source, f"{script.name} trains without configure_arithmetic"
        assert "arithmetic.configure(" not in source and "ATEN_CPU_CAPABILITY" not in source, script.name
