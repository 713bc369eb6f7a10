"""Hostile command lines and data files (issue 50): exit code 2 and one line, never a traceback or a verdict
from no data.

Every command is walked with path-like names, NaN/inf, huge numbers and unknown names; each case must stop
before anything is trained, with one ``Error:`` line. A torn or incomplete ``meta.json`` stops ``card`` and
``train`` the same way; ``controls`` gives no verdict for a model whose seeds failed; ``netzbench report``
refuses a task name no task has, as ``dvc repro`` does; ``estimate`` probes within ``exec.timeout_s``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

from helpers import as_settings, make_params
from netzbench.cli import main
from netzbench.params import MAX_LOOK
from netzbench.stats.power import MAX_SEEDS
from netzbench.structure_controls import NO_DATA, verdict


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A params.yaml of karate x GCN, and a data root with nothing fetched."""
    params = make_params(tasks=["karate"], models=["GCN"])
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    (tmp_path / "data").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _refused(args: list[str], *parts: str) -> str:
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 2, (args, out.exit_code, out.output, out.exception)
    assert "Traceback" not in out.output and not isinstance(out.exception, Exception) or \
        isinstance(out.exception, SystemExit), (args, out.exception)
    errors = [ln for ln in out.output.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1, (args, out.output)
    for part in parts:
        assert part in errors[0], (args, part, errors[0])
    return errors[0]


HOSTILE = [  # (arguments, what the one line says)
    (["card", "../../etc"], "is not a plain name"),
    (["card", "a/b"], "is not a plain name"),
    (["card", ".."], "is not a plain name"),
    (["fetch", "../../etc"], "task '../../etc'"),
    (["fetch", "karate", "--data-root", "/dev/null/x"], "fetch karate: /dev/null/x"),
    (["train", "../x", "GCN"], "task '../x'"),
    (["train", "karate", "../../GCN"], "model '../../GCN'"),
    (["seeds", "--target-effect", "nan"], "--target-effect must be a finite number"),
    (["seeds", "--target-effect", "inf"], "--target-effect must be a finite number"),
    (["seeds", "--alpha", "nan"], "--alpha must be a finite number"),
    (["seeds", "--looks", "2,99999999999999999999999"], f"more than {MAX_LOOK:,}"),
    (["seeds", "--looks", "2,nan"], "--looks must be comma-separated seed counts"),
    (["seeds", "--target-effect", "-1"], "--target-effect"),
    (["controls", "--models", "NoSuchModel", "karate"], "NoSuchModel"),
    (["controls", "--models", "../x", "karate"], "model '../x'"),
    (["controls", "../../etc"], "task '../../etc'"),
    (["estimate", "../../etc"], "../../etc"),
    (["candidate", "../x"], "task '../x'"),
    (["protocols", "--tasks", "../x"], "'../x' is not one of params.yaml's tasks"),
    (["sweep", "--params", "/dev/zero"], "/dev/zero"),
    (["report", "--params", "no-such.yaml"], "no-such.yaml not found"),
    (["tasks", "--json", "extra"], "unexpected extra argument"),
    (["export", "/dev/zero", "out.json"], "not a regular file"),
    (["export", "params.yaml", "out.json"], "not JSON"),
    (["compare", "no-such-run"], "is not a file, a git revision"),
    (["compare", "/dev/zero"], "not a regular file"),
    (["verify", "/dev/zero"], "not a regular file"),
    (["verify", "/dev/null"], "not a regular file"),
]


@pytest.mark.parametrize("args, says", HOSTILE, ids=[" ".join(a) for a, _ in HOSTILE])
def test_every_command_refuses_hostile_arguments_in_one_line(project, args, says):
    _refused(args, says)


def test_the_look_cap_is_the_power_analysis_cap():
    assert MAX_LOOK == MAX_SEEDS


@pytest.mark.parametrize("text, says", [
    ('{"task": "karate", "fam', "cannot be read: not JSON"),
    ("", "cannot be read: not JSON"),
    ("[1, 2]", "is incomplete (no task, family, split, status)"),
    ('{"task": "karate", "family": "node_cls"}', "is incomplete (no split, status)"),
])
def test_a_torn_or_incomplete_meta_json_stops_card_and_train_in_one_line(project, text, says):
    (project / "data" / "karate").mkdir()
    (project / "data" / "karate" / "meta.json").write_text(text)
    for args in (["card", "karate"], ["train", "karate", "GCN"], ["train", "karate"], ["train", "--all"]):
        _refused(args, "data/karate/meta.json", says, "run `netzbench fetch karate` again")


def test_report_alone_refuses_a_rank_exclude_typo_as_dvc_repro_does(project):
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["report"]["rank_exclude"] = ["karat"]
    (project / "params.yaml").write_text(yaml.safe_dump(params))
    _refused(["report"], "rank_exclude", "'karat'", "karate")


def test_controls_give_no_verdict_from_failed_seeds():
    assert verdict([math.nan] * 5, 0.05)["verdict"] == NO_DATA  # every seed failed on a side
    one = verdict([0.2, math.nan, math.nan], 0.05)
    assert one["verdict"] == NO_DATA and one["n_seeds"] == 1 and math.isnan(one["mean_diff"])
    assert verdict(np.full(5, 0.1) + np.arange(5) * 1e-3, 0.05)["verdict"] == "structure helps"


def test_estimate_probes_within_exec_timeout(monkeypatch, tmp_path):
    """A candidate that hangs is probed for at most twice ``exec.timeout_s`` (a seed's epochs and two more),
    not the 900 s of before, and its cell says the probe failed."""
    from netzbench.run import estimate

    asked = []

    def probe(jobs, workers, warm_s, on_result, on_epoch=None):
        for i, job in enumerate(jobs):
            asked.append(job.timeout_s)
            on_result(i, {"status": "failed", "error": f"the probe ran past {job.timeout_s:g} s"})

    monkeypatch.setattr(estimate, "run_probes", probe)
    params = make_params(tasks=["karate"], models=["GCN"], exec={"workers": 1, "timeout_s": 7})
    result = estimate.estimate_plan(as_settings(params), ["karate"], data_root=tmp_path, afresh=True)
    assert asked and set(asked) == {14.0}
    assert all(c["status"] == "failed" and "ran past 14 s" in c["reason"] for c in result["cells"])
    asked.clear()
    estimate.estimate_plan(as_settings(make_params(tasks=["karate"], models=["GCN"])), ["karate"], data_root=tmp_path,
                           afresh=True)
    assert set(asked) == {900}
