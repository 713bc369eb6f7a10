"""`netzbench verify` never says a wrong thing: a narrowed run is compared on the part both files have,
a conclusion nobody can compute never "holds", and a file netzbench cannot have written is refused."""

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from netzbench.cli import main
from netzbench.report import BenchmarkReport
from netzbench.report.persistence import MAX_DEPTH, loads, read
from netzbench.report.runs import report_from_records
from netzbench.report.verify import verify
from netzbench.report.verify_input import check_form

from helpers import REPO

TASKS = ["t1", "t2", "t3", "t4", "t5", "t6"]
MODELS = ["A", "B", "C"]
SEEDS = [0, 1, 2, 3, 4]
# B is best on t1-t3, A on t4-t6: the mean-rank order over the six tasks (A, B, C) is not the
# order over the first three (B, A, C), so a run of t1-t3 only changes it when compared whole
BASE = {t: ({"B": 0.8, "A": 0.7, "C": 0.6} if t in ("t1", "t2", "t3") else {"A": 0.8, "C": 0.7, "B": 0.6})
        for t in TASKS}


def _value(task, model, seed):
    """A seed's final accuracy: the same for a (task, model, seed) whatever else the run holds."""
    noise = np.random.default_rng([TASKS.index(task), MODELS.index(model), seed]).normal(0, 0.01)
    return round(float(BASE[task][model] + noise), 6)


def _record(task, model, finals: dict):
    """A run record of one cell: ``finals[seed]`` is the final test accuracy, None for a failed seed."""
    seeds = {}
    for s, v in finals.items():
        if v is None:
            seeds[str(s)] = {"status": "failed", "error": "RuntimeError: boom"}
            continue
        seeds[str(s)] = {"status": "ok", "epochs": [1, 2], "seconds": 1.0,
                         "history": {"train_loss": [1.0, 0.5], "val_acc": [v - 0.1, v], "test_acc": [v - 0.05, v],
                                     "test_constant": [0.0, 0.0]}}
    return {"task": task, "model": model, "family": "node_cls", "headline_metric": "test_acc",
            "direction": "higher", "seeds": seeds}


def _report(tasks=TASKS, seeds=SEEDS, missing=(), failed=(), value=_value):
    """A report as ``netzbench report`` builds it: ``missing`` cells have no run record (not run),
    ``failed`` cells failed every seed."""
    records = {t: {m: None if (t, m) in missing else
                   _record(t, m, {s: None if (t, m) in failed else value(t, m, s) for s in seeds})
                   for m in MODELS} for t in tasks}
    return report_from_records(BenchmarkReport, records, list(seeds))


def _file(tmp_path, name, report):
    path = tmp_path / name
    report.to_json(path)
    return str(path)


def _verify(*args):
    return CliRunner().invoke(main, ["verify", *map(str, args)])


@pytest.fixture
def full(tmp_path):
    return _file(tmp_path, "full.json", _report())


# ------------------------------------------------------------------ the part both files have
def test_a_narrowed_run_is_compared_on_the_tasks_it_ran(tmp_path, full):
    narrowed = _file(tmp_path, "narrowed.json", _report(tasks=TASKS[:3]))
    out = _verify(narrowed, full)
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0] == "cells: 9 of 9 with identical histories"
    assert f"  only in {full}: tasks t4, t5, t6 (every cell)" in lines
    assert "  mean_rank_order: same" in lines and "  significant_pairs: same" in lines
    # the fixture's tasks are not the paper's: that conclusion is not computable, and is not said to hold
    assert lines[-1] == ("every conclusion that can be computed holds (4 of 5; not computable from either file: "
                         "paper_overlap)")
    assert "  paper_overlap: not computable from either file" in lines


def test_whole_compares_the_whole_files_as_before(tmp_path, full):
    narrowed = _file(tmp_path, "narrowed.json", _report(tasks=TASKS[:3]))
    out = _verify(narrowed, full, "--whole")
    assert out.exit_code == 1, out.output
    assert "t4/A: present in one run only" in out.output and "left out" not in out.output
    assert "mean_rank_order: CHANGED (['B', 'A', 'C'] here, ['A', 'B', 'C'] there)" in out.output
    assert out.output.splitlines()[-1].startswith("4 conclusion(s) changed: mean_rank_order")


def test_a_changed_common_cell_still_fails(tmp_path, full):
    def boosted(task, model, seed):  # C becomes the best model on t1
        return _value(task, model, seed) + (0.3 if (task, model) == ("t1", "C") else 0.0)

    narrowed = _file(tmp_path, "narrowed.json", _report(tasks=TASKS[:3], value=boosted))
    out = _verify(narrowed, full)
    assert out.exit_code == 1, out.output
    assert out.output.splitlines()[0] == "cells: 8 of 9 with identical histories"
    assert "t1/C: mean differs by +0.300000" in out.output
    assert "significant_pairs: CHANGED (only here: [['t1', 'A', 'C', 'C']" in out.output


def test_cells_without_a_run_record_and_extra_seeds_are_left_out(tmp_path, full):
    not_run = {(t, m) for t in TASKS[3:] for m in MODELS} | {("t1", "C")}
    ours = _file(tmp_path, "ours.json", _report(seeds=[0, 1, 2], missing=not_run))
    result = verify(BenchmarkReport.from_json(ours), BenchmarkReport.from_json(full))
    assert result["n_cells"] == 8 and result["identical_cells"] == 8 and result["changed"] == []
    assert result["left_out"]["cells_there"][0] == ("t1", "C") and result["left_out"]["seeds_there"] == [3, 4]
    assert result["left_out"]["cells_here"] == [] == result["left_out"]["seeds_here"]
    out = _verify(ours, full)
    assert out.exit_code == 0, out.output
    assert f"  only in {full}: tasks t4, t5, t6 (every cell); cells t1/C; seeds 3, 4" in out.output.splitlines()
    assert f"only in {ours}" not in out.output


def test_no_common_cell_or_seed_is_a_clear_error(tmp_path):
    one, other = _file(tmp_path, "one.json", _report(tasks=["t1"])), _file(tmp_path, "two.json", _report(tasks=["t2"]))
    out = _verify(one, other)
    assert out.exit_code == 2 and "no (task, model) cell in common" in out.output and "--whole" in out.output
    early, late = _file(tmp_path, "early.json", _report(seeds=[0, 1])), _file(tmp_path, "late.json", _report(seeds=[2, 3]))
    out = _verify(early, late)
    assert out.exit_code == 2 and "no seed in common (seeds [0, 1] here, [2, 3] there)" in out.output


# ------------------------------------------------------------------ conclusions nobody can compute
def test_nothing_computable_verifies_nothing(tmp_path):
    every = {(t, m) for t in TASKS for m in MODELS}
    failed = _file(tmp_path, "failed.json", _report(failed=every))
    out = _verify(failed, failed)
    assert out.exit_code == 1, out.output
    assert out.output.count("not computable from either file") == 5
    assert "every conclusion" not in out.output and out.output.splitlines()[-1].endswith("nothing is verified")


def test_a_conclusion_computable_in_one_file_only_changed(tmp_path, full):
    only_a = _file(tmp_path, "only_a.json", _report(failed={(t, m) for t in TASKS for m in ("B", "C")}))
    out = _verify(only_a, full)
    assert out.exit_code == 1, out.output
    assert "mean_rank_order: CHANGED (computable there only: ['A', 'B', 'C'])" in out.output


# ------------------------------------------------------------------ files netzbench cannot have written
def _edited(text, edit):
    form = json.loads(text)
    edit(form)
    return json.dumps(form)


def _set(path, value):
    def edit(form):
        node = form
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return edit


def _all_null(form):  # the file whose values are all NaN
    for by_model in form["histories"].values():
        for runs in by_model.values():
            for h in runs:
                for name in h or {}:
                    h[name] = [None] * len(h[name])


GOOD = _report().to_json()
BAD_FILES = {
    "not_json": ("hello", "not JSON (Expecting value at line 1 column 1"),
    "truncated": (GOOD[:700], "not JSON ("),
    "a_list": ("[1, 2]", 'unsupported benchmark schema: the JSON is a list, not an object with "schema"'),
    "deep_inside": ('{"schema": "netzbench.benchmark/1", "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
                    f"JSON nested deeper than {MAX_DEPTH} levels"),
    "deep_list": ("[" * 100_000 + "]" * 100_000, f"JSON nested deeper than {MAX_DEPTH} levels"),
    "huge_float": (GOOD.replace('"bootstrap_seed": 0', '"bootstrap_seed": 1e999'), "number '1e999' is out of the range"),
    "huge_int": (GOOD.replace('"bootstrap_seed": 0', '"bootstrap_seed": ' + "9" * 5000), "integer of 5000 digits"),
    "nan_literal": (GOOD.replace('"bootstrap_seed": 0', '"bootstrap_seed": NaN'), "non-standard JSON constant NaN"),
    "other_schema": (_edited(GOOD, _set(["schema"], "netzbench.benchmark/0")),
                     "unsupported benchmark schema 'netzbench.benchmark/0'; this version reads"),
    "no_histories": (_edited(GOOD, lambda f: f.pop("histories")), "benchmark file without 'histories'"),
    "histories_a_list": (_edited(GOOD, _set(["histories"], [])), "'histories' is a list, not an object"),
    "accuracy_5_5": (_edited(GOOD, _set(["histories", "t2", "B", 3, "test_acc", 1], 5.5)),
                     "cell t2/B seed 3: test_acc holds 5.5 at evaluation 2, outside [0, 1]"),
    "negative_accuracy": (_edited(GOOD, _set(["histories", "t1", "A", 0, "val_acc", 0], -0.1)),
                          "cell t1/A seed 0: val_acc holds -0.1 at evaluation 1, outside [0, 1]"),
    "constant_share_2": (_edited(GOOD, _set(["histories", "t1", "A", 0, "test_constant", 0], 2)),
                         "test_constant holds 2 at evaluation 1, outside [0, 1]"),
    "a_string": (_edited(GOOD, _set(["histories", "t1", "A", 0, "test_acc", 1], "0.8")),
                 'test_acc holds "0.8" at evaluation 2, not a number or null'),
    "a_boolean": (_edited(GOOD, _set(["histories", "t1", "A", 0, "test_acc", 1], True)),
                  "test_acc holds True at evaluation 2, not a number or null"),
    "all_null": (_edited(GOOD, _all_null), "cell t1/A seed 0: an ok seed whose headline test_acc holds no finite value"),
    "no_headline": (_edited(GOOD, lambda f: f["histories"]["t1"]["A"][0].pop("test_acc")),
                    "cell t1/A seed 0: an ok seed without the headline test_acc"),
    "ok_without_history": (_edited(GOOD, _set(["histories", "t1", "A", 2], None)),
                           "cell t1/A seed 2: status ok but no history"),
    "failed_with_history": (_edited(GOOD, _set(["cells", "t1", "A", "seeds", "2", "status"], "failed")),
                            "cell t1/A seed 2: a history, but status 'failed'"),
    "bad_series_name": (_edited(GOOD, lambda f: f["histories"]["t1"]["A"][0].update({"Test-Acc": [0.5]})),
                        'series name "Test-Acc" is not <train|val|test>_<metric>'),
    "seed_count": (_edited(GOOD, lambda f: f["histories"]["t1"]["A"].pop()), "cell t1/A: 4 histories for 5 seeds"),
    "duplicate_seeds": (_edited(GOOD, _set(["seeds"], [0, 1, 2, 3, 3])), "are not a non-empty list of distinct integers"),
    "unknown_option": (_edited(GOOD, _set(["options", "alpah"], 0.05)), 'options: unknown "alpah" (known: ci_method'),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_file_netzbench_cannot_have_written_is_refused_in_one_line(tmp_path, full, case):
    text, message = BAD_FILES[case]
    bad = tmp_path / f"{case}.json"
    bad.write_text(text)
    for args, named in (([bad, full], bad), ([full, "--against", bad], bad)):
        out = _verify(*args)
        assert out.exit_code == 2 and isinstance(out.exception, SystemExit), (case, out.output)
        lines = out.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"Error: file {named}: "), out.output
        assert message in lines[0] and "Traceback" not in out.output


def test_an_all_null_file_is_not_said_to_hold_against_itself(tmp_path):
    bad = tmp_path / "nan.json"
    bad.write_text(BAD_FILES["all_null"][0])
    out = _verify(bad, bad)
    assert out.exit_code == 2 and "holds no finite value" in out.output and "conclusion" not in out.output


def test_a_file_that_is_not_utf8_or_missing_is_named(tmp_path, full, monkeypatch):
    raw = tmp_path / "raw.json"
    raw.write_bytes(b"\xff\xfe{")
    out = _verify(raw, full)
    assert out.exit_code == 2 and f"file {raw}: not UTF-8 text" in out.output
    monkeypatch.chdir(tmp_path)  # no reports/benchmark.json here: the default first file is named
    out = _verify("--against", full)
    assert out.exit_code == 2 and "file reports/benchmark.json: cannot be read: No such file" in out.output


def test_files_netzbench_wrote_pass_the_checks(full):
    check_form(json.loads(Path(full).read_text()))
    published = REPO / "reports" / "benchmark.json"
    if published.is_file():  # the real run: every series, failed and unavailable cells (its histories beside it)
        check_form(read(published))


def test_loads_limits_depth_without_recursion_and_reads_a_path_as_a_file(tmp_path):
    def nested(depth):
        return '{"a": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"

    with pytest.raises(ValueError, match="nested deeper"):
        loads(nested(5000))  # json.loads alone raises RecursionError here
    with pytest.raises(ValueError, match="nested deeper"):
        loads(nested(MAX_DEPTH + 1))
    assert loads(nested(MAX_DEPTH)) == json.loads(nested(MAX_DEPTH))  # within the limit: parsed as usual
    odd = tmp_path / "{odd}.json"  # a name that looks like JSON text
    odd.write_text(GOOD)
    assert BenchmarkReport.from_json(odd).tasks == TASKS
    with pytest.raises(ValueError, match="non-standard JSON constant Infinity"):
        loads('{"x": Infinity}')


def test_float_rounding_past_a_bound_is_read_an_edit_is_not(tmp_path, full):
    """Average precision is a float64 sum of precision x recall gains: a perfect ranking can end one unit in the
    last place above 1 (1.0000000000000002, as a published 9/11 cell did). That is arithmetic; 1 + 1e-9 is not."""
    import math

    ulp_above = math.nextafter(1.0, 2.0)
    fine = tmp_path / "rounded.json"
    fine.write_text(_edited(GOOD, _set(["histories", "t2", "B", 3, "test_acc", 1], ulp_above)))
    assert _verify(fine, full).exit_code in (0, 1)  # read and compared (it differs from the full file)
    bad = tmp_path / "edited.json"
    bad.write_text(_edited(GOOD, _set(["histories", "t2", "B", 3, "test_acc", 1], 1 + 1e-9)))
    out = _verify(bad, full)
    assert out.exit_code == 2 and "outside [0, 1]" in out.output


def test_a_task_the_other_file_could_not_obtain_is_left_out_not_a_changed_conclusion(tmp_path, full):
    """The published run before a dataset reached the mirror lists its cells as unavailable: they did not run
    there, so they are left out like a task that file never listed, and the conclusions are compared on the rest."""
    records = {t: {m: _record(t, m, {s: _value(t, m, s) for s in SEEDS}) for m in MODELS} for t in TASKS[:3]}
    for t in TASKS[3:]:
        records[t] = {m: {"task": t, "model": m, "family": "node_cls", "headline_metric": "test_acc",
                          "direction": "higher", "status": "unavailable",
                          "seeds": {str(s): {"status": "unavailable", "reason": "not in the mirror"} for s in SEEDS}}
                      for m in MODELS}
    before = report_from_records(BenchmarkReport, records, list(SEEDS))
    assert before.cell_status("t4", "A") == "unavailable"
    old = _file(tmp_path, "before.json", before)
    out = _verify(full, old)
    assert out.exit_code == 0, out.output
    assert f"  only in {full}: tasks t4, t5, t6 (every cell)" in out.output.splitlines()
    assert "mean_rank_order: same" in out.output and "histories differ" not in out.output


def test_a_cell_whose_headline_agrees_names_the_series_that_differ(tmp_path, full):
    """A retrain that adds series (MRR beside AUC) and changes a side metric keeps the headline bit for bit:
    verify says so instead of 'histories differ'."""
    def with_more(report):
        for by_model in report.histories.values():
            for runs in by_model.values():
                for h in runs:
                    h["test_mrr"] = [0.25, 0.5]
                    h["val_acc"] = [v + 0.001 for v in h["val_acc"]]
        return report

    more = _file(tmp_path, "more.json", with_more(_report()))
    out = _verify(more, full)
    assert out.exit_code == 0, out.output
    assert "  t1/A: headline identical; other series differ (changed: val_acc; only here: test_mrr)" in out.output
