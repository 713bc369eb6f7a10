"""Nothing published is torn, the per-seed cache trusts nothing (issue 24, "Data safety").

- The report stage (and the protocol study's strict report) writes every output to a temporary beside
  it and renames them only once all are written: a full disk or a failing figure at any point leaves
  every previously published file as it was (same bytes, same inode), with no temporary left and one
  clear line at the command line.
- A per-seed cache entry is served only when it is an envelope of its own key whose sha256 matches and
  whose result is a seed entry of the run-record schema; anything else is set aside, reported once and
  retrained. A store that fails (a full disk) is a warning: the run record keeps every seed.
- A torn run record stops ``netzbench report`` with one line naming the file and the stage to re-run.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import stat
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

from netzbench.catalog.data import fetch_task
from netzbench.cli import main
from netzbench.errors import RecordError
from netzbench.records import StagedFiles, atomic_write, read_record, write_record
from netzbench.report import BenchmarkReport
from netzbench.report.figures import plot_message, save_figure
from netzbench.run.cache import SeedCache, result_hash
from netzbench.run.execute import train_cell
from netzbench.run.plan import plan_cell

from helpers import as_settings, make_params

TASKS = [("cora", "node_cls", "test_acc"), ("karate", "node_cls", "test_acc"), ("mutag", "graph_cls", "test_acc")]
MODELS = ["GCN", "GAT", "GraphSAGE"]
SEEDS = [0, 1, 2]
EPOCHS = 3
ENOSPC = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


# --- the report stage: all or nothing ---------------------------------------------------------------------

def _records(root: Path) -> None:
    rng = np.random.default_rng(0)
    for task, family, metric in TASKS:
        for i, model in enumerate(MODELS):
            seeds = {}
            for s in SEEDS:
                v = 0.6 + 0.05 * i + float(rng.normal(0, 0.01))
                curve = [v - 0.02 * (EPOCHS - 1 - e) for e in range(EPOCHS)]
                seeds[str(s)] = {"status": "ok", "epochs": list(range(1, EPOCHS + 1)), "seconds": 1.0,
                                 "num_params": 10, "peak_rss_mb": 1.0,
                                 "history": {"train_loss": [1.0 / (e + 1) for e in range(EPOCHS)],
                                             metric.replace("test", "val"): curve, metric: curve}}
            write_record(root / "metrics/runs" / task / f"{model}.json", {
                "schema_version": 1, "task": task, "family": family, "model": model, "model_ref": model,
                "model_args": {}, "role": "roster", "headline_metric": metric, "direction": "higher",
                "hyperparameters": {"hidden_channels": 8, "lr": 0.01, "weight_decay": 0.0, "epochs": EPOCHS,
                                    "eval_every": 1},
                "config_hash": "x", "data_hash": "y", "code_version": "z", "threads": 1, "software": {},
                "status": "ok", "seeds": seeds})


def _write_params(root: Path, **report) -> None:
    (root / "params.yaml").write_text(yaml.safe_dump({
        "tasks": [t[0] for t in TASKS], "models": MODELS, "seeds": SEEDS,
        "train": {"epochs": {t[0]: EPOCHS for t in TASKS}}, "report": report}))


def _published(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``root``'s output folders (and the records): its bytes and inode (a rename gives a
    new inode, so a file replaced by identical bytes counts as touched)."""
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_ino)
            for folder in ("metrics", "reports", "plots") for p in sorted((root / folder).rglob("*")) if p.is_file()}


def _temporaries(root: Path) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.name.startswith(".") or p.name.endswith(".tmp")]


@pytest.fixture(scope="module")
def published_template(tmp_path_factory):
    """A repository whose report is published (by the CLI), once for the module, and how many files
    that report wrote (fsynced)."""
    root = tmp_path_factory.mktemp("published")
    _records(root)
    _write_params(root)
    with pytest.MonkeyPatch.context() as mp:
        calls = _fsync_failing_at(mp, 10**9)
        mp.chdir(root)
        result = CliRunner().invoke(main, ["report"])
    assert result.exit_code == 0, result.output
    return root, len(calls)


@pytest.fixture
def repo(published_template, tmp_path, monkeypatch):
    """A copy of the published repository, cwd, with params that change the report (``ci: 0.9``)."""
    root = tmp_path / "repo"
    shutil.copytree(published_template[0], root)
    _write_params(root, ci=0.9)
    monkeypatch.chdir(root)
    return root


def _fsync_failing_at(monkeypatch, n: int) -> list[int]:
    """``os.fsync`` of regular files raises ENOSPC from the ``n``-th call on (what a full disk reports)."""
    real, calls = os.fsync, []

    def fsync(fd):
        if stat.S_ISREG(os.fstat(fd).st_mode):
            calls.append(fd)
            if len(calls) >= n:
                raise ENOSPC
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


def _assert_untouched(root: Path, before: dict, result) -> None:
    assert _published(root) == before  # same files, same bytes, not even renamed
    assert _temporaries(root) == []
    assert "nothing was published: the previous report outputs are unchanged" in result.output


@pytest.mark.parametrize("which", ["second", "last"])
def test_a_full_disk_at_any_write_leaves_the_published_report_as_it_was(published_template, repo, which):
    n_files = published_template[1]
    outputs = [rel for rel in _published(repo) if not rel.startswith("metrics/runs/")]
    assert n_files == len(outputs) >= 20  # every output goes through the staging
    before = _published(repo)
    with pytest.MonkeyPatch.context() as mp:
        _fsync_failing_at(mp, 2 if which == "second" else n_files)
        result = CliRunner().invoke(main, ["report"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "No space left on device" in result.output
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("Error: report: cannot write ") and ".tmp" not in line and "/." not in line, line
    _assert_untouched(repo, before, result)
    if which == "last":  # space again: the new report is published
        assert CliRunner().invoke(main, ["report"]).exit_code == 0
        assert json.loads((repo / "metrics/report.json").read_text())["options"]["ci"] == 0.9


@pytest.mark.stage_figures  # reads the figure files the stage wrote
def test_a_full_disk_inside_savefig_leaves_a_half_written_figure_nowhere(repo, monkeypatch):
    from matplotlib.figure import Figure

    before = _published(repo)

    def savefig(self, fh, **kwargs):
        fh.write(b"\x89PNG\r\n\x1a\n half a figure")
        raise ENOSPC

    monkeypatch.setattr(Figure, "savefig", savefig)
    result = CliRunner().invoke(main, ["report"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    # the first figure drawn names the output, not its temporary: the site's CD diagram (the figures of
    # plots/ are drawn while the site is written, and here in this process after it)
    assert re.search(r"cannot write (reports/site/critical_difference\.svg|plots/critical_difference\.png): "
                     r"No space left on device", result.output), result.output
    _assert_untouched(repo, before, result)


@pytest.mark.parametrize("where", ["figure", "markdown"])
def test_a_failure_while_building_leaves_the_published_report_as_it_was(repo, monkeypatch, where):
    import netzbench.report.stage as stage

    def boom(*args, **kwargs):
        raise RuntimeError("boom in the middle of the report")

    if where == "figure":  # half the figures are written by then
        monkeypatch.setattr(BenchmarkReport, "plot_learning_curves", boom)
    else:  # the last thing built: every other output is written
        monkeypatch.setattr(stage, "render_markdown", boom)
    before = _published(repo)
    result = CliRunner().invoke(main, ["report"])
    assert result.exit_code == 1 and isinstance(result.exception, RuntimeError)  # a bug keeps its traceback
    _assert_untouched(repo, before, result)


@pytest.mark.parametrize("cut", ["half", "inside a character"])
def test_a_torn_run_record_stops_the_report_with_one_line_naming_it(repo, cut):
    record = repo / "metrics/runs/karate/GAT.json"
    data = record.read_bytes()
    if cut == "half":
        record.write_bytes(data[: len(data) // 2])
    else:  # a multi-byte character cut in two: not even text
        record.write_bytes(data[:-30] + "é".encode()[:1])
    before = _published(repo)
    result = CliRunner().invoke(main, ["report"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert "metrics/runs/karate/GAT.json" in lines[0] and "torn" in lines[0]
    assert "`dvc repro -s -f train`" in lines[0]  # one train stage writes every record
    _assert_untouched(repo, before, result)


def test_a_torn_protocol_study_stops_the_report_naming_it(repo):
    (repo / "reports/protocol_study.json").write_text('{"schema": "netzbench.protocol_study/1", "tas')
    before = _published(repo)
    result = CliRunner().invoke(main, ["report"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "reports/protocol_study.json: not readable JSON" in result.output
    _assert_untouched(repo, before, result)


def test_the_strict_report_and_the_study_are_published_together(repo, monkeypatch):
    """The protocol study's outputs: staged with the study file, in the strict layout; a failure leaves both."""
    import netzbench.study as study_mod
    records = {t: {m: read_record(repo / "metrics/runs" / t / f"{m}.json") for m in MODELS} for t, _, _ in TASKS}
    params = make_params(tasks=[t[0] for t in TASKS], models=MODELS, seeds=SEEDS)
    target = repo / "reports/strict"
    with StagedFiles() as out:
        out.write_json(repo / "reports/protocol_study.json", {"first": True})
        study_mod._write_strict_report(records, {}, as_settings(params), target, out)
        assert [p for p in target.rglob("*") if p.is_file() and not p.name.startswith(".")] == []  # not yet
    md = (target / "REPORT.md").read_text()
    assert "](plots/dashboard_node_cls.png)" in md and "](plots/dashboard_graph_cls.png)" in md
    assert "dashboard_link_pred" not in md and "../plots" not in md  # the families the run has, beside it
    for rel in ("benchmark.json", "benchmark.histories.json.gz", "summary.csv", "report.json",
                "plots/critical_difference.svg"):
        assert (target / rel).is_file(), rel
    assert not (target / "headline.json").exists() and not (target / "metrics").exists()
    before = _published(repo)

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(BenchmarkReport, "plot_dashboard", boom)
    with pytest.raises(RuntimeError), StagedFiles() as out:
        out.write_json(repo / "reports/protocol_study.json", {"first": False})
        study_mod._write_strict_report(records, {}, as_settings(params), target, out)
    assert _published(repo) == before and _temporaries(repo) == []


# --- the staging itself -----------------------------------------------------------------------------------

def test_staged_files_appear_only_at_the_commit_and_follow_the_umask(tmp_path):
    (tmp_path / "old.txt").write_text("old")
    old_mask = os.umask(0o027)
    try:
        from netzbench.records import _file_mode

        _file_mode.cache_clear()
        with StagedFiles() as out:
            out.write_text(tmp_path / "old.txt", "new")
            out.write_json(tmp_path / "deep/er/new.json", {"b": float("nan"), "a": 1})
            assert (tmp_path / "old.txt").read_text() == "old" and not (tmp_path / "deep/er/new.json").exists()
        assert (tmp_path / "old.txt").read_text() == "new"
        assert json.loads((tmp_path / "deep/er/new.json").read_text()) == {"a": 1, "b": None}
        assert stat.S_IMODE((tmp_path / "deep/er/new.json").stat().st_mode) == 0o640  # not mkstemp's 0600
    finally:
        os.umask(old_mask)
        _file_mode.cache_clear()
    assert _temporaries(tmp_path) == []


def test_a_discarded_staging_leaves_no_temporary_and_no_new_folder(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    with pytest.raises(KeyError), StagedFiles() as out:
        out.write_text(tmp_path / "a.txt", "A")
        out.write_text(tmp_path / "new/folder/b.txt", "B")
        raise KeyError("stop")
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"] and (tmp_path / "a.txt").read_text() == "a"


def test_a_folder_in_the_way_refuses_the_commit_before_any_rename(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "b.txt").mkdir()
    with pytest.raises(IsADirectoryError, match="b.txt"), StagedFiles() as out:
        out.write_text(tmp_path / "a.txt", "A")
        out.write_text(tmp_path / "b.txt", "B")
    assert (tmp_path / "a.txt").read_text() == "a" and _temporaries(tmp_path) == []


def _failing_replace(monkeypatch, at: int, also=()):
    """``os.replace`` failing at its ``at``-th call (and at the calls in ``also``)."""
    real, calls = os.replace, []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == at or len(calls) in also:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace)


def test_a_rename_failing_halfway_puts_back_what_was_replaced(tmp_path, monkeypatch):
    from netzbench.records import CommitError

    (tmp_path / "a.txt").write_text("old a")
    _failing_replace(monkeypatch, 2)
    with pytest.raises(OSError, match=r"the 1 outputs already replaced were put back as they were\): .*b\.txt") as err, \
            StagedFiles() as out:
        for name in ("a.txt", "b.txt", "c.txt"):
            out.write_text(tmp_path / name, name)
    assert not isinstance(err.value, CommitError)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"] and (tmp_path / "a.txt").read_text() == "old a"


def test_a_rename_failing_halfway_that_cannot_be_undone_says_how_many_were_replaced(tmp_path, monkeypatch):
    from netzbench.records import CommitError

    (tmp_path / "a.txt").write_text("old a")
    _failing_replace(monkeypatch, 2, also=(3,))  # the rename putting a.txt back fails too
    with pytest.raises(CommitError, match=r"1 of 3 outputs already replaced\): .*b\.txt"), StagedFiles() as out:
        for name in ("a.txt", "b.txt", "c.txt"):
            out.write_text(tmp_path / name, name)
    assert (tmp_path / "a.txt").read_text() == "a.txt"


def test_the_benchmark_file_and_its_sidecar_stay_a_pair_when_a_rename_fails(tmp_path, monkeypatch):
    """The sidecar is renamed first: a failing rename of benchmark.json left a new sidecar beside the old
    benchmark file, which then no longer read. Now the old pair is put back and reads as before."""
    from netzbench.report import BenchmarkReport
    from netzbench.report.persistence import read, write_split

    def form(v):
        hist = {"t": {"GCN": [{"test_acc": [v, v + 0.1]}] * 2}}
        tasks = {"t": {"metric": "test_acc", "direction": "higher", "family": "node_cls", "category": "c"}}
        return BenchmarkReport([0, 1], hist, {}, tasks=tasks).to_dict()

    bench = tmp_path / "benchmark.json"
    write_split(form(0.5), bench)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    _failing_replace(monkeypatch, 2)  # the sidecar is in place, the benchmark file's rename fails
    with pytest.raises(OSError, match="put back as they were"):
        write_split(form(0.7), bench)
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    assert read(bench)["histories"]["t"]["GCN"][0]["test_acc"][0] == 0.5


def test_atomic_write_and_save_figure_leave_the_old_file_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "x.json"
    target.write_text("old")
    with pytest.raises(ValueError), atomic_write(target) as fh:
        fh.write("half")
        raise ValueError("stop")
    assert target.read_text() == "old"
    fig = plot_message("nothing to draw")
    save_figure(fig, tmp_path / "fig", formats=("png", "svg"))
    before = {p: p.read_bytes() for p in tmp_path.glob("fig.*")}
    assert len(before) == 2
    _fsync_failing_at(monkeypatch, 2)  # the svg, after the png was written
    with pytest.raises(OSError, match="fig.svg"):
        save_figure(plot_message("something else"), tmp_path / "fig", formats=("png", "svg"))
    assert {p: p.read_bytes() for p in tmp_path.glob("fig.*")} == before and _temporaries(tmp_path) == []


# --- the per-seed cache: checked entries, failed stores -----------------------------------------------------

@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """random_tsp/GCN on two seeds, trained once: its data, params, record and sound cache entries."""
    root = tmp_path_factory.mktemp("trained")
    params = make_params(tasks=["random_tsp"], seeds=[0, 1],
                         exec={"workers": 1, "executor": "inprocess", "arithmetic": "native"})  # torch is loaded here
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NETZBENCH_CACHE_DIR", str(root / "cache"))
        mp.setenv("NETZBENCH_WARM_S", "0")
        fetch_task("random_tsp", as_settings(params), root / "data")
        record = train_cell("random_tsp", "GCN", as_settings(params), root / "r.json", data_root=root / "data",
                            progress=False)
        keys = plan_cell("random_tsp", "GCN", as_settings(params), data_root=root / "data").keys
    assert {e["status"] for e in record["seeds"].values()} == {"ok"}, record["seeds"]
    return {"root": root, "params": params, "record": record, "keys": {s: keys[s, 0] for s in (0, 1)}}


def _histories(record: dict) -> dict:
    return {s: e["history"] for s, e in record["seeds"].items()}


def _train(trained, tmp_path):
    return train_cell("random_tsp", "GCN", as_settings(trained["params"]), tmp_path / "r.json", data_root=trained["root"] / "data",
                      progress=False)


def _corrupt(kind: str, path: Path, other: Path) -> None:
    env = json.loads(path.read_text())
    if kind == "a list":
        path.write_text("[]")
    elif kind == "a bare status":
        path.write_text('{"status": "ok"}')
    elif kind == "a changed number":
        env["result"]["history"]["test_auc"][-1] = 0.999
        path.write_text(json.dumps(env))
    elif kind == "another key's entry":
        shutil.copy(other, path)
    elif kind == "truncated":
        text = path.read_text()
        path.write_text(text[: len(text) // 2])
    elif kind == "an old bare result":  # a sound result, from before entries were envelopes
        path.write_text(json.dumps(env["result"]))
    elif kind == "a result off the schema":  # hashed correctly, but not a seed entry
        result = {"status": "ok", "history": "none"}
        path.write_text(json.dumps({"key": env["key"], "sha256": result_hash(result), "result": result}))


@pytest.mark.parametrize("kind", ["a list", "a bare status", "a changed number", "another key's entry", "truncated",
                                  "an old bare result", "a result off the schema"])
def test_a_bad_cache_entry_is_set_aside_reported_once_and_retrained(trained, tmp_path, monkeypatch, capsys, kind):
    cache_dir = tmp_path / "cache"
    shutil.copytree(trained["root"] / "cache", cache_dir)
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(cache_dir))
    cache = SeedCache()
    path, other = cache._path(trained["keys"][1]), cache._path(trained["keys"][0])
    _corrupt(kind, path, other)
    bad = path.read_bytes()
    capsys.readouterr()
    record = _train(trained, tmp_path)
    assert [record["seeds"][s].get("cached", False) for s in ("0", "1")] == [True, False]  # seed 1 retrained
    assert _histories(record) == _histories(trained["record"])  # and right
    warned = [line for line in capsys.readouterr().err.splitlines() if "per-seed cache entry" in line]
    assert len(warned) == 1 and str(path) in warned[0] and "trained again" in warned[0], warned
    rejected = list((cache_dir / "seeds/rejected").iterdir())
    assert len(rejected) == 1 and rejected[0].name.startswith(path.name) and rejected[0].read_bytes() == bad
    assert cache.get(trained["keys"][1])["history"] == trained["record"]["seeds"]["1"]["history"]  # stored anew
    again = _train(trained, tmp_path)
    assert all(e["cached"] for e in again["seeds"].values())
    assert "per-seed cache entry" not in capsys.readouterr().err  # reported once, never served again


def test_an_entry_is_an_envelope_of_its_key_and_the_hash_of_its_result(trained):
    cache = SeedCache(trained["root"] / "cache" / "seeds")
    env = json.loads(cache._path(trained["keys"][0]).read_text())
    assert set(env) == {"key", "sha256", "result"} and env["key"] == trained["keys"][0]
    assert env["sha256"] == result_hash(env["result"]) and env["result"]["status"] == "ok"


def _failing_under(monkeypatch, folder: Path, what: str) -> None:
    """A full disk under ``folder`` only: its fsyncs (``what="fsync"``) or its new files (``"mkstemp"``) fail."""
    import tempfile

    folder = str(folder)
    if what == "fsync":
        real = os.fsync

        def fsync(fd):
            if os.readlink(f"/proc/self/fd/{fd}").startswith(folder):
                raise ENOSPC
            return real(fd)

        monkeypatch.setattr(os, "fsync", fsync)
    else:
        real = tempfile.mkstemp

        def mkstemp(*args, dir=None, **kwargs):
            if str(dir).startswith(folder):
                raise ENOSPC
            return real(*args, dir=dir, **kwargs)

        monkeypatch.setattr(tempfile, "mkstemp", mkstemp)


@pytest.mark.parametrize("what", ["fsync", "mkstemp"])
def test_a_full_cache_disk_keeps_every_trained_seed_in_the_record(trained, tmp_path, monkeypatch, capsys, what):
    monkeypatch.chdir(tmp_path)
    cache_dir = tmp_path / "cache"
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(cache_dir))
    _failing_under(monkeypatch, cache_dir, what)
    record = _train(trained, tmp_path)
    assert record["status"] == "ok" and _histories(record) == _histories(trained["record"])
    assert read_record(tmp_path / "r.json")["seeds"] == record["seeds"]  # the stage wrote its record
    left = [p.name for p in (cache_dir / "seeds").rglob("*") if p.is_file() and "locks" not in p.parts]
    assert left == []  # no entry, no .tmp-* left behind
    warned = [line for line in capsys.readouterr().err.splitlines() if "could not store a finished seed" in line]
    assert len(warned) == 2 and all("No space left on device" in w for w in warned), warned


def test_a_record_that_cannot_be_written_is_one_clear_error(trained, tmp_path, monkeypatch):
    monkeypatch.setenv("NETZBENCH_CACHE_DIR", str(tmp_path / "cache"))
    shutil.copytree(trained["root"] / "cache", tmp_path / "cache")
    out = tmp_path / "metrics/runs/random_tsp"
    out.mkdir(parents=True)
    _failing_under(monkeypatch, out, "fsync")
    with pytest.raises(RecordError, match=r"GCN.json: cannot write the run record \(No space left on device\)"):
        train_cell("random_tsp", "GCN", as_settings(trained["params"]), out / "GCN.json", data_root=trained["root"] / "data",
                   progress=False)
    assert list(out.iterdir()) == []
