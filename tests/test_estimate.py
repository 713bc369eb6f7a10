"""`netzbench estimate` (issue 29): what `dvc repro` would cost, measured on a few epochs before it runs.

The probes train for real (1 and 3 epochs in a fresh process); the tasks are small so each takes seconds.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from netzbench.catalog.data import fetch_task
from netzbench.cli import main
from netzbench.run.estimate import (estimate_plan, extrapolate, render, seed_seconds, stage_seconds,
                                    standin_probe_edges, steady_epoch_seconds)
from netzbench.run.probe import ProbeCache, probe_key
from netzbench.run.execute import run_plans
from netzbench.run.plan import plan_cell

from helpers import as_settings, make_params


def _cell(result, task, model):
    return next(c for c in result["cells"] if (c["task"], c["model"]) == (task, model))


# -- the arithmetic of an estimate -----------------------------------------------------------------------

def test_a_seed_costs_its_probe_and_each_further_epoch_at_the_steady_rate():
    # a probe of 6 epochs took 2.0 s (start, data, the first slower epochs); steady epochs take 0.1 s
    assert seed_seconds(2.0, 0.1, 6, 100) == pytest.approx(2.0 + 94 * 0.1)
    assert seed_seconds(2.0, 0.1, 6, 6) == 2.0  # the probe was the whole seed
    assert seed_seconds(2.0, 0.1, 4, 4) == 2.0
    assert seed_seconds(2.0, -0.1, 6, 50) == 2.0  # no negative epoch


def test_the_steady_epoch_leaves_out_the_first_epochs_and_takes_the_median():
    # epochs finished at these times: the first three slow (a fresh worker), then 0.1 s, once 0.5 s (a hiccup)
    stamps = {1: 1.0, 2: 1.4, 3: 1.8, 4: 1.9, 5: 2.0, 6: 2.5, 7: 2.6}
    assert steady_epoch_seconds(stamps, 3.0, 7) == pytest.approx(0.1)  # median of 0.1, 0.1, 0.5, 0.1
    # a probe too short to settle: every epoch after the first
    assert steady_epoch_seconds({1: 1.0, 2: 1.4, 3: 1.6}, 2.0, 3) == pytest.approx(0.3)
    # no epoch times (an executor that reports none): the run shared over its epochs
    assert steady_epoch_seconds({}, 3.0, 6) == pytest.approx(0.5)
    # one epoch, or a heuristic that scores once whatever the budget: nothing more per epoch
    assert steady_epoch_seconds({1: 1.0}, 2.0, 1) == 0.0
    assert steady_epoch_seconds({}, 0.02, 0) == 0.0


def test_the_stage_pools_every_cell_over_the_workers():
    # two workers: 4 on one; 3, 1 and 2 on the other (free at 3, then 4); the last 1 on the first: 6
    assert stage_seconds([[4.0], [3.0, 1.0], [2.0, 1.0]], 2) == pytest.approx(6.0)
    assert stage_seconds([[4.0], [3.0, 1.0]], 1) == pytest.approx(8.0)  # one worker: the sum
    assert stage_seconds([[5.0, 5.0]], 4) == pytest.approx(5.0)  # more workers than seeds
    assert stage_seconds([], 2) == 0.0


def test_extrapolation_is_linear_in_the_edges_and_never_below_what_was_measured():
    assert extrapolate([(1e5, 2.0), (4e5, 5.0)], 4e6) == pytest.approx(5.0 + 3.0 / 3e5 * 3.6e6)
    assert extrapolate([(4e5, 5.0), (1e5, 6.0)], 4e6) == 6.0  # a noisy negative slope: the larger value


def test_a_stand_in_is_probed_small_unless_that_extrapolates_too_far():
    assert standin_probe_edges(44_324) == 250_000  # within: probed whole
    assert standin_probe_edges(1_044_750) == 250_000  # MNIST superpixels: 4x from 250,000 edges
    assert standin_probe_edges(10_000_000) == 625_000  # no more than 16x
    assert standin_probe_edges(61_859_140) == 2_000_000  # ogbn-products: capped at --max-probe-edges
    assert standin_probe_edges(61_859_140, 500_000) == 500_000


# -- a plan measured ------------------------------------------------------------------------------------

@pytest.fixture
def karate(tmp_path):
    params = make_params(tasks=["karate"], models=["GCN", "GraphSAGE"], seeds=[0, 1],
                         train={"epochs": {"karate": 20}})
    fetch_task("karate", as_settings(params), tmp_path / "data")
    return params, tmp_path / "data"


def test_a_plan_with_one_cached_and_one_new_cell(karate):
    params, data = karate
    cached = plan_cell("karate", "GCN", as_settings(params), data_root=data, quiet=True)
    run_plans([cached], as_settings(params), progress=False)  # GCN's seeds are in the cache now
    result = estimate_plan(as_settings(params), data_root=data)
    gcn, sage = _cell(result, "karate", "GCN"), _cell(result, "karate", "GraphSAGE")
    assert gcn["status"] == "cached" and gcn["seeds_to_train"] == 0 and gcn["seeds_cached"] == 2
    assert gcn["seconds_per_seed"] is None and gcn["train_s"] == 0
    assert sage["status"] == "train" and sage["seeds_to_train"] == 2 and sage["epochs"] == 20
    assert 0 < sage["seconds_per_seed"] < 60 and 0.1 < sage["peak_gb"] < 8  # torch alone is a few hundred MB
    # the sample is stated: GraphSAGE's first seed probed for 6 epochs, its 2 seeds extrapolated from it
    assert result["sample"] == {"cells": 1, "runs": 1, "reused": 0, "measured": 1, "seeds": 2}
    assert result["probe_epochs"] == 6 and result["took_s"] > 0
    assert sage["basis"] == "data/karate"
    assert result["compute_s"] == pytest.approx(2 * sage["seconds_per_seed"])
    assert sage["train_s"] == pytest.approx(2 * sage["seconds_per_seed"])
    # one train stage for every task (workers: 1, seeds in turn) and its fixed cost, once
    assert result["stages"] == {"train": pytest.approx(sage["train_s"] + result["stage_overhead_s"])}
    assert result["wall_s"] == pytest.approx(result["stages"]["train"])
    text = render(result)
    assert "karate  GCN" in text and "cached" in text and "2 seed run(s) to train" in text
    assert "the first seed of 1 cell(s) for 6 epochs: 1 probe run(s) now" in text and "Expected error: per task" in text
    assert "The estimate took" in text
    # --afresh: what a fresh clone pays, the cache notwithstanding (and the cache left as it was)
    only_gcn = make_params(tasks=["karate"], models=["GCN"], seeds=[0, 1], train={"epochs": {"karate": 20}})
    fresh = _cell(estimate_plan(as_settings(only_gcn), data_root=data, afresh=True), "karate", "GCN")
    assert fresh["status"] == "train" and fresh["seeds_to_train"] == 2 and fresh["seconds_per_seed"] > 0
    assert _cell(estimate_plan(as_settings(only_gcn), data_root=data), "karate", "GCN")["status"] == "cached"


def test_every_task_shares_one_train_stage_and_its_fixed_cost(karate):
    params, data = karate
    gin = make_params(tasks=["karate", "cora"], models=["GIN"], seeds=[0, 1])  # node tasks: nothing to probe
    result = estimate_plan(as_settings(gin), data_root=data)
    assert {c["status"] for c in result["cells"]} == {"incompatible"}
    assert result["stages"] == {"train": result["stage_overhead_s"]}  # once, not once per task
    assert result["wall_s"] == result["stage_overhead_s"]


def test_a_cell_that_cannot_fit_says_why_and_what_would_make_it_fit(karate):
    params, data = karate
    capped = make_params(tasks=["karate"], models=["GCN"], seeds=[0, 1], train={"epochs": {"karate": 5}},
                         exec={"workers": 2, "max_rss_gb": 0.01})
    gcn = _cell(estimate_plan(as_settings(capped), data_root=data), "karate", "GCN")
    assert gcn["status"] == "does_not_fit" and "exec.max_rss_gb = 0.01" in gcn["reason"]
    assert gcn["peak_gb"] > 0.01 and gcn["train_s"] == 0
    small = make_params(tasks=["karate"], models=["GCN"], seeds=[0, 1], train={"epochs": {"karate": 5}},
                        exec={"workers": 2})
    peak = gcn["peak_gb"]
    tight = estimate_plan(as_settings(small), data_root=data, machine_gb=1.5 * peak)  # one seed fits, two at once do not
    cell = _cell(tight, "karate", "GCN")
    assert cell["status"] == "does_not_fit" and "set exec.workers: 1" in cell["reason"]
    assert tight["does_not_fit"] == [f"karate/GCN: {cell['reason']}"] and "would not run here" in render(tight)
    none = _cell(estimate_plan(as_settings(small), data_root=data, machine_gb=peak / 2), "karate", "GCN")
    assert "it needs a machine with at least" in none["reason"]


def test_a_task_not_fetched_is_measured_on_a_stand_in_of_its_size(tmp_path):
    params = make_params(tasks=["cora"], models=["GCN", "GIN"], seeds=[0], train={"epochs": {"cora": 10}})
    result = estimate_plan(as_settings(params), data_root=tmp_path / "nothing-here")
    gcn, gin = _cell(result, "cora", "GCN"), _cell(result, "cora", "GIN")
    assert gcn["status"] == "train" and gcn["basis"].startswith("stand-in (2,708 nodes, 5,278 edges, 1,433 features")
    assert gcn["seconds_per_seed"] > 0 and gcn["epochs"] == 10
    assert gin["status"] == "incompatible"  # decided by the plan, as dvc repro would
    assert not (tmp_path / "nothing-here").exists()  # the stand-in lives in a scratch folder, removed after
    # a graph above the probe size: two smaller stand-ins, extrapolated to the full one
    big = estimate_plan(as_settings(params), data_root=tmp_path / "nothing-here", max_probe_edges=2000)
    cell = _cell(big, "cora", "GCN")
    assert cell["status"] == "train" and cell["basis"].startswith("extrapolated from stand-ins of 500 and 2,000 edges")
    assert cell["seconds_per_seed"] > 0 and cell["peak_gb"] > 0


def test_a_probe_is_kept_and_asked_again_measures_nothing(karate, tmp_path, capfd):
    """Probes are kept under keys made like seeds': the same plan asked again runs no probe and gives the same
    figures; another epoch budget is another probe; --remeasure probes again; a damaged entry is a miss."""
    params, data = karate
    settings = as_settings(params)
    first = estimate_plan(settings, data_root=data, afresh=True)
    err = capfd.readouterr().err
    assert "estimate: probing 2 cell(s): 2/2 runs" in err  # the progress line, in runs
    assert first["sample"]["measured"] == 2 and first["sample"]["reused"] == 0
    again = estimate_plan(settings, data_root=data, afresh=True)
    assert again["sample"]["measured"] == 0 and again["sample"]["reused"] == 2
    assert [c["seconds_per_seed"] for c in again["cells"]] == [c["seconds_per_seed"] for c in first["cells"]]
    assert "estimate: probing" not in capfd.readouterr().err  # nothing to probe, no progress line
    # a longer budget is another seed key: probed anew
    longer = as_settings(make_params(tasks=["karate"], models=["GCN", "GraphSAGE"], seeds=[0, 1],
                                     train={"epochs": {"karate": 30}}))
    assert estimate_plan(longer, data_root=data, afresh=True)["sample"]["measured"] == 2
    fresh = estimate_plan(settings, data_root=data, afresh=True, remeasure=True)
    assert fresh["sample"]["measured"] == 2 and fresh["sample"]["reused"] == 0
    # a damaged entry is not served
    entries = sorted(ProbeCache().root.rglob("*.json"))
    assert len(entries) == 4  # two cells x two budgets
    for entry in entries:
        entry.write_text("{not json")
    assert estimate_plan(settings, data_root=data, afresh=True, progress=False)["sample"]["measured"] == 2


def test_a_probe_key_covers_the_seed_the_epochs_and_the_workers():
    class Probe:  # what the key reads of a job: its hyperparameters (the probe's epochs among them)
        def __init__(self, epochs):
            self.spec = {"hp": {"epochs": epochs, "lr": 0.01}}

    base = probe_key("a" * 64, Probe(6), 2)
    assert base == probe_key("a" * 64, Probe(6), 2)
    others = {probe_key("b" * 64, Probe(6), 2), probe_key("a" * 64, Probe(5), 2), probe_key("a" * 64, Probe(6), 1)}
    assert base not in others and len(others) == 3


def test_the_command_prints_the_estimate(karate, monkeypatch, tmp_path):
    params, data = karate
    import yaml

    path = tmp_path / "params.yaml"
    path.write_text(yaml.safe_dump(params))
    out = CliRunner().invoke(main, ["estimate", "karate", "--params", str(path), "--data-root", str(data), "--json"])
    assert out.exit_code == 0, out.output
    result = json.loads(out.stdout)
    assert {(c["task"], c["model"]) for c in result["cells"]} == {("karate", "GCN"), ("karate", "GraphSAGE")}
    bad = CliRunner().invoke(main, ["estimate", "karatee", "--params", str(path)])
    assert bad.exit_code == 2 and "karate" in bad.output  # the typo is named, with the closest task


def test_a_probe_reports_its_own_peak_memory_not_its_parents():
    """Linux carries ``ru_maxrss`` over fork and exec: a probe started by a 400 MB parent (the estimate
    after writing a large stand-in) must still report only what it used itself."""
    import subprocess
    import sys

    held = bytearray(400 * 1024 * 1024)
    held[::4096] = b"\x01" * len(held[::4096])  # touch every page: resident
    code = "from netzbench.training.seed import peak_rss_mb; print(peak_rss_mb())"
    child = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert 1 < child < 200, child
    del held
