"""Each statistic computed once inside the report stage (report/memo.py), and nothing else changed."""

import contextlib

import numpy as np
import pytest

from netzbench.report import BenchmarkReport
from netzbench.report import within_task
from netzbench.report.memo import computed_once
from helpers import as_settings


def _report():
    rng = np.random.default_rng(0)
    hist = {t: {m: [{"test_acc": [float(x)]} for x in rng.random(5) * 0.1 + i * 0.05]
                for i, m in enumerate(["A", "B", "C"])} for t in ("t1", "t2", "t3")}
    return BenchmarkReport(list(range(5)), hist)


def test_inside_the_block_a_statistic_is_computed_once_and_each_caller_gets_its_own_copy(monkeypatch):
    rep, calls = _report(), []
    real = within_task.pairwise
    monkeypatch.setattr(within_task, "pairwise", lambda *a, **k: calls.append(1) or real(*a, **k))
    with computed_once(rep):
        first = rep.pairwise()
        first[0]["p_holm"] = -1.0  # a caller changing its rows changes nothing shared
        again = rep.pairwise()
        assert len(calls) == 1 and again[0]["p_holm"] != -1.0
        rep.pairwise("wilcoxon")  # other arguments: computed
        rep.alpha = 0.01  # other options: computed
        rep.pairwise()
        assert len(calls) == 3
    rep.pairwise()
    rep.pairwise()  # outside: every call computes
    assert len(calls) == 5


def test_histories_changed_outside_the_block_are_seen():
    rep = _report()
    with computed_once(rep):
        before = rep.summary()
    rep.histories["t1"]["A"][0] = {"test_acc": [0.99]}
    assert rep.summary() != before


@pytest.mark.stage_figures  # the figures too
def test_the_stage_writes_the_same_files_with_and_without_sharing(tmp_path, monkeypatch):
    import netzbench.report.stage as stage
    from helpers import make_params

    params = make_params(tasks=["t1", "t2", "t3"], models=["A", "B", "C"], seeds=list(range(5)))
    stage.write_outputs(_report(), as_settings(params), None, out_dir=tmp_path / "shared")
    monkeypatch.setattr(stage, "computed_once", lambda r: contextlib.nullcontext(r))
    stage.write_outputs(_report(), as_settings(params), None, out_dir=tmp_path / "plain")
    shared = {p.relative_to(tmp_path / "shared"): p.read_bytes() for p in (tmp_path / "shared").rglob("*")
              if p.is_file()}
    plain = {p.relative_to(tmp_path / "plain"): p.read_bytes() for p in (tmp_path / "plain").rglob("*")
             if p.is_file()}
    assert shared.keys() == plain.keys() and len(shared) > 20
    assert [str(p) for p in shared if shared[p] != plain[p]] == []
