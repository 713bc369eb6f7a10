"""`netzbench compare A B`: what run B changes against run A, with the evidence, as Markdown and as a page.

Runs are small synthetic reports written as benchmark files: three tasks (two accuracies, one MAE) x four
models x ten seeds, with the seed facts a run record gives (seconds, a redrawn split).
"""

import html
import json
import math
import re

import numpy as np
import pytest
from click.testing import CliRunner

from netzbench.cli import main
from netzbench.report import BenchmarkReport
from netzbench.report.compare import compare, default_margin
from netzbench.report.compare_render import blocks, to_html, to_markdown
from netzbench.report.sources import resolve
from netzbench.report.verify_input import VerifyError

from helpers import git as _git

SEEDS = list(range(10))
TASKS = {"t1": ("test_acc", "higher"), "t2": ("test_acc", "higher"), "t3": ("test_mae", "lower")}
MODELS = ["GCN", "GAT", "GIN", "MLP"]


def _values():
    """Seed-aligned finals per (task, model); the models 0.03 apart with a seed spread of 0.01."""
    rng = np.random.default_rng(7)
    out = {}
    for task, (metric, _) in TASKS.items():
        base = 0.6 if metric == "test_acc" else 2.0
        out[task] = {m: base + 0.03 * i + rng.normal(0, 0.01, len(SEEDS)) for i, m in enumerate(MODELS)}
    return out


def _history(final: float, metric: str) -> dict:
    name = metric.split("_", 1)[1]
    return {"train_loss": [1.0, 0.5], f"val_{name}": [final - 0.02, final], metric: [final + 0.01, final]}


def _cells(tasks, seconds=1.5):
    facts = {"status": "ok", "seconds": seconds, "split": {"redrawn": True, "n_train": 90, "n_test": 10}}
    return {t: {m: {"status": "ok", "seeds": {str(s): dict(facts) for s in SEEDS}} for m in MODELS} for t in tasks}


def _report(values=None, tasks=None, cells=True, **options) -> BenchmarkReport:
    values = values or _values()
    tasks = tasks or list(values)
    hist = {t: {m: [_history(float(v), TASKS[t][0]) for v in values[t][m]] for m in MODELS} for t in tasks}
    meta = {t: {"metric": TASKS[t][0], "direction": TASKS[t][1], "family": "graph_cls", "category": "c"}
            for t in tasks}
    return BenchmarkReport(SEEDS, hist, {}, tasks=meta, cells=_cells(tasks) if cells else None,
                           **{"equivalence_margin": 0.01, **options})


def _shifted(task, model, by, jitter=0.0):
    """The values with ``by`` added to one cell on every seed (and seeded noise of sd ``jitter``)."""
    values = _values()
    noise = np.random.default_rng(1).normal(0, jitter, len(SEEDS)) if jitter else 0.0
    values[task][model] = values[task][model] + by + noise
    return values


def _row(result, task, model):
    return next(r for r in result["paired"] if (r["task"], r["model"]) == (task, model))


def _write(path, report):
    report.to_json(path)
    return str(path)


# ------------------------------------------------------------------------------------ the analysis
def test_identical_inputs_say_no_change(tmp_path):
    result = compare(_report(), _report())
    assert result["no_change"] and result["identical_cells"] == result["n_cells"] == 12
    assert all(r["unchanged"] and r["outcome"] == "unchanged" for r in result["paired"])
    text = to_markdown(result)
    assert text.splitlines()[2].startswith("**No change.** The 12 cells")
    assert "Paired differences" not in text and "### Compute" in text  # nothing to test, the cost still said
    a, b = _write(tmp_path / "a.json", _report()), _write(tmp_path / "b.json", _report())
    out = CliRunner().invoke(main, ["compare", a, b])
    assert out.exit_code == 0 and "**No change.**" in out.output


def test_last_bit_noise_is_no_significant_change():
    values = _values()
    values["t1"] = {m: v * (1 + 2.0 ** -23) for m, v in values["t1"].items()}  # a float32 unit in the last place
    result = compare(_report(), _report(values))
    assert not result["no_change"] and result["identical_cells"] == 8  # the t1 histories did change...
    assert not any(r["significant"] for r in result["paired"])  # ...by nothing a test can see
    assert all(r["unchanged"] for r in result["paired"] if r["task"] == "t1")
    assert result["conclusions"]["changed"] == []
    assert to_markdown(result).splitlines()[2].startswith("**No significant change.** 4 of 12 cells changed")


def test_small_noise_is_equivalent_within_the_margin():
    result = compare(_report(), _report(_shifted("t2", "GIN", 0.0, jitter=1e-4)))
    row = _row(result, "t2", "GIN")
    assert not row["significant"] and row["p_holm"] >= 0.05
    assert row["p_tost_holm"] < 0.05 and row["outcome"] == "equivalent"
    assert row["p_rope"] > 0.99 and row["p_b_better"] < 0.01  # the posterior sits inside ±0.01


def test_a_one_point_drop_is_a_significant_loss_and_a_changed_cell():
    result = compare(_report(), _report(_shifted("t1", "GAT", -0.01)))
    row = _row(result, "t1", "GAT")
    assert row["mean_diff"] == pytest.approx(-0.01, abs=1e-9) and row["n_seeds"] == 10
    assert row["significant"] and row["p_holm"] < 0.05 and row["outcome"] == "loss"
    assert [r["model"] for r in result["paired"] if not r["unchanged"]] == ["GAT"]
    cell = next(c for c in result["cells"] if (c["task"], c["model"]) == ("t1", "GAT"))
    assert not cell["identical"] and cell["mean_diff"] == pytest.approx(-0.01, abs=1e-9)
    assert cell["share_of_ci"] == pytest.approx(0.01 / cell["ci_half_width"])
    text = to_markdown(result)
    assert "1 significant paired difference(s) (Holm, α = 0.05): `t1/GAT` loss" in text
    assert re.search(r"^\| t1/GAT \| [\d.]+ \| [\d.]+ \| −0\.0100 \|", text, re.M)
    assert re.search(r"^\| GAT \| .* \| \*\*loss\*\* \|", text, re.M)


def test_a_drop_that_varies_by_seed_has_a_posterior_and_a_t_test():
    result = compare(_report(), _report(_shifted("t1", "GAT", -0.01, jitter=0.002)))
    row = _row(result, "t1", "GAT")
    assert row["outcome"] == "loss" and row["p_holm"] < 0.05
    assert row["rho"] == pytest.approx(0.1) and row["design"] == "split redrawn per seed"
    assert row["p_b_better"] < 0.05  # B is not better; with rho = 0.1 the posterior is wider than rho = 0's


def test_lower_is_better_a_smaller_error_is_a_gain():
    result = compare(_report(), _report(_shifted("t3", "MLP", -0.05)))
    assert _row(result, "t3", "MLP")["outcome"] == "gain"


def test_a_changed_conclusion_is_listed():
    result = compare(_report(), _report(_shifted("t1", "GCN", 0.2)))  # the worst model becomes the best on t1
    assert "significant_pairs" in result["conclusions"]["changed"]
    text = to_markdown(result)
    assert re.search(r"^\*\*Changed\.\*\* .*; conclusions changed: .*`significant_pairs`", text, re.M)
    assert re.search(r"^- `significant_pairs`: CHANGED \(only in B: .*\['t1', 'GCN', 'GAT', 'GCN'\]", text, re.M)
    assert any(r["model"] == "GCN" and r["change"] != 0 for r in result["ranks"]["rows"])


def test_what_only_one_run_has_is_left_out_and_said():
    result = compare(_report(), _report(tasks=["t1"]))
    assert result["n_cells"] == 4 and result["tasks"] == ["t1"] and not result["no_change"]
    assert "only in A: tasks t2, t3 (every cell)" in to_markdown(result)


def test_compute_from_the_seed_records_or_unknown():
    result = compare(_report(cells=False), _report())
    assert result["cost"]["A"]["seconds"] is None and result["cost"]["B"]["seconds"] == pytest.approx(1.5 * 120)
    compute = next(b for b in blocks(result) if b[0] == "table" and b[1] == ["", "A", "B"])
    assert compute[2][0] == ["training, summed over seeds", "unknown", "3.0 min (120 seeds)"]


def test_the_margin_is_b_s_else_its_config_s_else_the_default():
    report = _report(equivalence_margin=0.02)
    assert default_margin(report) == 0.02
    report.equivalence_margin, report.config = None, {"report": {"equivalence_margin": 0.03}}
    assert default_margin(report) == 0.03
    report.config = {}
    assert default_margin(report) == 0.01  # params.yaml's default


def test_a_margin_per_task_and_a_task_without_one():
    values = _shifted("t1", "GIN", 0.0, jitter=1e-3)
    values["t3"]["GIN"] = values["t3"]["GIN"] + np.random.default_rng(2).normal(0, 1e-3, len(SEEDS))
    result = compare(_report(), _report(values, equivalence_margin={"t1": 0.02, "t2": 0.01}))
    t1, t3 = _row(result, "t1", "GIN"), _row(result, "t3", "GIN")
    assert t1["margin"] == 0.02 and t1["outcome"] == "equivalent"
    assert t3["margin"] is None and math.isnan(t3["p_tost"]) and t3["p_rope"] == 0.0  # no margin: no TOST, no ROPE
    text = to_markdown(result)
    assert "TOST at ±the task's margin" in text and "Margin ±0.02." in text


def test_the_page_says_what_the_markdown_says(tmp_path):
    result = compare(_report(), _report(_shifted("t1", "GAT", -0.01)))
    page = to_html(result)
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert not re.search(r"(src|href)=|https?://|@import", page)  # nothing is fetched when it is opened
    shown = html.unescape(re.sub(r"<[^>]+>", "", page))  # the page's text
    for block in blocks(result):
        texts = {"h": lambda b: [b[2]], "p": lambda b: [b[1]], "ul": lambda b: b[1],
                 "table": lambda b: b[1] + [c for row in b[2] for c in row]}[block[0]](block)
        for text in texts:
            assert re.sub(r"\*\*|`", "", text) in shown, text
    assert '<td class="loss"><strong>loss</strong></td>' in page
    out = CliRunner().invoke(main, ["compare", _write(tmp_path / "a.json", _report()),
                                    _write(tmp_path / "b.json", _report(_shifted("t1", "GAT", -0.01))),
                                    "--html", str(tmp_path / "cmp.html")])
    assert out.exit_code == 0 and (tmp_path / "cmp.html").read_text().startswith("<!DOCTYPE html>")


def test_runs_without_a_common_cell_or_seed_are_refused():
    other = BenchmarkReport([11, 12], {"t1": {"GCN": [_history(0.5, "test_acc")] * 2}})
    with pytest.raises(VerifyError, match="no seed in common"):
        compare(_report(), other)
    with pytest.raises(VerifyError, match="no .task, model. cell in common"):
        compare(_report(tasks=["t2"]), _report(tasks=["t1"]))


# ------------------------------------------------------------------------- where the runs come from
@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git repository whose HEAD~1 has the base run in reports/benchmark.json and HEAD the one-point drop."""
    (tmp_path / "reports").mkdir()
    _git(tmp_path, "init", "-q")
    for message, report in (("base", _report()), ("drop", _report(_shifted("t1", "GAT", -0.01)))):
        report.to_json(tmp_path / "reports" / "benchmark.json")
        _git(tmp_path, "add", "reports/benchmark.json")
        _git(tmp_path, "commit", "-q", "-m", message)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _experiment(repo, name, report, baseline="HEAD") -> str:
    """An experiment as DVC keeps one: a commit (on the baseline) under refs/exps/<sha[:2]>/<sha[2:]>/<name>,
    the layout of the installed DVC's ExpRefInfo."""
    base = _git(repo, "rev-parse", baseline)
    report.to_json(repo / "reports" / "benchmark.json")
    _git(repo, "add", "reports/benchmark.json")
    tree = _git(repo, "write-tree")
    commit = _git(repo, "commit-tree", tree, "-p", base, "-m", f"exp {name}")
    _git(repo, "update-ref", f"refs/exps/{base[:2]}/{base[2:]}/{name}", commit)
    _git(repo, "reset", "-q", "--hard", "HEAD")  # the index and the workspace back at HEAD
    return commit


def test_two_git_revisions(repo):
    source = resolve("HEAD~1")
    assert source.kind == "revision" and source.commit == _git(repo, "rev-parse", "HEAD~1")
    out = CliRunner().invoke(main, ["compare", "HEAD~1", "HEAD"])
    assert out.exit_code == 0, out.output
    assert f"A: `HEAD~1 ({source.commit[:7]})`" in out.output and "`t1/GAT` loss" in out.output
    back = CliRunner().invoke(main, ["compare", "HEAD", "HEAD~1"])  # the other way round: a gain
    assert back.exit_code == 0 and "`t1/GAT` gain" in back.output


def test_the_default_is_head_against_the_workspace(repo):
    assert "**No change.**" in CliRunner().invoke(main, ["compare"]).output
    _report().to_json(repo / "reports" / "benchmark.json")  # the workspace: the base run again
    out = CliRunner().invoke(main, ["compare"])
    assert "A: `HEAD (" in out.output and "B: `reports/benchmark.json`" in out.output
    assert "`t1/GAT` gain" in out.output
    assert "**No change.**" in CliRunner().invoke(main, ["compare", "HEAD~1"]).output


def test_two_experiments(repo):
    first = _experiment(repo, "calm-oak", _report(_shifted("t2", "GIN", 0.05)))
    _experiment(repo, "bold-elm", _report(_shifted("t2", "GIN", 0.05, jitter=0.001)))
    source = resolve("calm-oak")
    assert source.kind == "experiment" and source.commit == first
    assert source.label == f"experiment calm-oak ({first[:7]})"
    out = CliRunner().invoke(main, ["compare", "calm-oak", "bold-elm"])
    assert out.exit_code == 0, out.output
    assert f"A: `experiment calm-oak ({first[:7]})`" in out.output and "t2/GIN" in out.output
    assert "`t1/GAT`" not in out.output  # neither experiment has the drop HEAD has
    out = CliRunner().invoke(main, ["compare", "HEAD", "calm-oak"])
    assert "`t2/GIN` gain" in out.output


def test_an_experiment_name_of_two_baselines(repo):
    _experiment(repo, "twin", _report(), baseline="HEAD~1")
    _experiment(repo, "twin", _report(_shifted("t2", "GIN", 0.05)), baseline="HEAD")
    head = _git(repo, "rev-parse", "HEAD")
    assert resolve("twin").commit == _git(repo, "rev-parse", f"refs/exps/{head[:2]}/{head[2:]}/twin")  # HEAD's
    _git(repo, "checkout", "-q", "--detach", "HEAD~1")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "elsewhere")  # HEAD is neither baseline now
    with pytest.raises(VerifyError, match="Ambiguous name 'twin'"):
        resolve("twin")


def test_what_names_nothing_is_refused(repo):
    out = CliRunner().invoke(main, ["compare", "no-such-run"])
    assert out.exit_code == 2 and "'no-such-run' is not a file, a git revision or a" in out.output
    out = CliRunner().invoke(main, ["compare", "HEAD", "--", "-x"])
    assert out.exit_code == 2 and "'-x' is not a file" in out.output
    _git(repo, "rm", "-q", "reports/benchmark.json")
    _git(repo, "commit", "-q", "-m", "no report")
    out = CliRunner().invoke(main, ["compare", "HEAD", "HEAD~1"])
    assert out.exit_code == 2 and "no reports/benchmark.json in that commit" in out.output
    out = CliRunner().invoke(main, ["compare", "a", "b", "c"])
    assert out.exit_code == 2 and "at most two runs" in out.output


def test_a_broken_file_is_refused_as_verify_refuses_it(tmp_path):
    data = json.loads(_report().to_json())
    data["histories"]["t1"]["GCN"][0]["test_acc"][-1] = 5.5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    out = CliRunner().invoke(main, ["compare", _write(tmp_path / "a.json", _report()), str(bad)])
    assert out.exit_code == 2 and "outside [0, 1]" in out.output


def test_verify_reads_head_the_same_way(repo):
    """`netzbench verify` with no other file reads HEAD's reports/benchmark.json through the same code."""
    out = CliRunner().invoke(main, ["verify"])
    assert out.exit_code == 0 and "cells: 12 of 12 with identical histories" in out.output
    _report().to_json(repo / "reports" / "benchmark.json")  # the workspace: the drop undone
    out = CliRunner().invoke(main, ["verify"])
    assert out.exit_code == 0 and "t1/GAT: mean differs by +0.010000" in out.output  # no conclusion moves
    _git(repo, "rm", "-q", "--cached", "reports/benchmark.json")
    _git(repo, "commit", "-q", "-m", "untracked")
    out = CliRunner().invoke(main, ["verify"])
    assert out.exit_code == 2 and "HEAD: no reports/benchmark.json in that commit" in out.output


def test_a_model_only_b_has_is_named_once():
    values = _values()
    b = _report(values)
    for task in b.histories:  # a candidate only B ran
        b.histories[task]["Mine"] = list(b.histories[task]["GCN"])
    b = BenchmarkReport.from_json(b.to_json())
    result = compare(_report(), b)
    assert not result["no_change"] and result["n_cells"] == 12
    assert "only in B: models Mine (every cell)" in to_markdown(result)


def test_a_candidate_only_b_has_is_set_against_b_s_roster():
    """The review workflow: B is `dvc exp run -S model=Mine`; Mine is outside the common part, and the
    comparison still says how it does against the roster (a clear winner on every task here)."""
    values = _values()
    a = _report(values)
    b = _report(values)
    for task, (metric, direction) in TASKS.items():
        better = 0.2 if direction == "higher" else -0.2  # beyond every roster model, on every seed
        b.histories[task]["Mine"] = [_history(float(v) + better, metric) for v in values[task]["MLP"]]
    b.config.update(candidate="Mine", models=MODELS)
    b = BenchmarkReport.from_json(b.to_json())
    result = compare(a, b)
    assert set(result["candidates"]) == {"B"}
    block = result["candidates"]["B"]
    assert block["name"] == "Mine" and block["n_tasks"] == 3
    assert (block["wins"], block["losses"], block["ties"]) == (12, 0, 0)  # 4 roster models x 3 tasks
    assert block["mean_rank"] == 1.0
    text = to_markdown(result)
    assert "### The candidate against the roster" in text
    assert re.search(r"^\| B \| `Mine` \| 3 \| 12 \| 0 \| 0 \| 1\.00 \|$", text, re.M), text
    assert "The candidate against the roster" in to_html(result)
    assert "candidate against" not in to_markdown(compare(a, a))  # no candidate, no section
