"""The test tiers (tests/tiers.py): assigned from what a test calls, and held while it runs."""

import subprocess
import sys

import pytest

import tiers


def _trains_through_a_helper():
    from netzbench.training.seed import fit_seed

    return fit_seed


def _calls_the_helper():
    return _trains_through_a_helper()


def _only_params():
    from helpers import make_params

    return make_params(train={"epochs": {"karate": 1}})


def _cli_train(runner, main):
    return runner.invoke(main, ["train", "karate", "GCN"])


def _cli_fetch(runner, main):
    return runner.invoke(main, ["fetch", "karate"])


def _program():
    return subprocess.run([sys.executable, "-c", "pass"])


def _dvc(run):
    return run("dvc repro")


@pytest.mark.parametrize("func, tier", [
    (_trains_through_a_helper, "train"), (_calls_the_helper, "train"),  # followed through module helpers
    (_only_params, "unit"),  # a `train=` keyword is not a call
    (_cli_train, "train"), (_cli_fetch, "unit"), (_program, "process"), (_dvc, "e2e")])
def test_a_test_gets_the_tier_of_what_it_calls(func, tier):
    assert tiers.tier_of(func, sys.modules[__name__]) == tier


def test_a_fixture_s_tier_counts():
    assert tiers.tier_of(_only_params, sys.modules[__name__], (_program,)) == "process"


def test_the_guard_holds_a_unit_test_to_its_tier(monkeypatch):
    tiers.guard(monkeypatch, "unit")
    from netzbench.training import node, seed

    with pytest.raises(tiers.TierError, match="trains a model but was put in the 'unit' tier"):
        seed.fit_seed(None, "node_cls", "public", {}, 0, {})
    with pytest.raises(tiers.TierError, match="trains a model"):
        node.fit(None, None, None, None)
    with pytest.raises(tiers.TierError, match="starts a program"):
        subprocess.run([sys.executable, "-c", "pass"])
    import multiprocessing

    with pytest.raises(tiers.TierError, match="starts a worker process"):
        multiprocessing.get_context("spawn").Process(target=print).start()


def test_a_train_test_may_not_start_programs_or_dvc(monkeypatch):
    tiers.guard(monkeypatch, "train")
    with pytest.raises(tiers.TierError, match="starts a program"):
        subprocess.run([sys.executable, "-c", "pass"])
    monkeypatch.undo()
    tiers.guard(monkeypatch, "process")
    assert subprocess.run([sys.executable, "-c", "pass"]).returncode == 0
    with pytest.raises(tiers.TierError, match="runs DVC"):
        subprocess.run(["dvc", "--version"])


def test_this_file_s_tests_are_unit(request):
    assert request.node.get_closest_marker("unit") is not None
