"""The published files tell the truth about themselves: a stale artefact carries its banner, and
docs/results.md's numbers are the report's (report/publication.py)."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from helpers import REPO
from netzbench.identity import code_version
from netzbench.report import publication as pub

pytestmark = pytest.mark.unit


# ------------------------------------------------------------------------ the repository's published files
def test_every_stale_published_artefact_carries_its_banner():
    state = pub.published_state(REPO)
    assert {s["name"] for s in state} >= {"paper run"}, "no published benchmark file found"
    unmarked = [f"{s['name']} ({s['path']}: code {s['recorded']}, {s['how']}) has no STALE banner in {s['page']}"
                for s in state if s["stale"] and not s["marked"]]
    assert not unmarked, "\n".join(unmarked) + "\nrepublish (make publish) or run: netzbench stale --mark --docs"


def test_a_current_artefact_carries_no_banner():
    wrong = [s["page"] for s in pub.published_state(REPO) if not s["stale"] and s["page"]
             and s["page"] != pub.DOCS_PAGE.as_posix() and s["marked"]]
    assert not wrong, f"a STALE banner on the page of a current artefact: {wrong} (netzbench stale --mark)"


def test_docs_results_counts_equal_the_reports_facts():
    text = " ".join((REPO / "docs/results.md").read_text(encoding="utf-8").split())
    paper = json.loads((REPO / "metrics/report.json").read_text(encoding="utf-8"))["paper_comparison"]
    overlap = re.search(r"intervals overlap in (\d+) of (\d+) comparable cells", text)
    strict = re.search(r"and (\d+) of (\d+) also pass the stricter criterion", text)
    assert overlap and strict, "docs/results.md no longer states the overlap counts in the words this test reads"
    assert (int(overlap[1]), int(overlap[2])) == (paper["overlapping"], paper["compared"])
    assert (int(strict[1]), int(strict[2])) == (paper["strict"], paper["compared"])


def test_docs_results_states_the_studys_state():
    text = " ".join((REPO / "docs/results.md").read_text(encoding="utf-8").split())
    study = next((s for s in pub.published_state(REPO) if s["name"] == "protocol study"), None)
    if study is None:
        pytest.skip("no protocol study published")
    said = re.search(r"study state: (current|incomplete|stale)", text)
    assert said, "docs/results.md does not say `study state: current`, `incomplete` or `stale`"
    assert said[1] == ("stale" if study["stale"] else "incomplete" if study["remaining"] else "current"), \
        f"docs/results.md says the study is {said[1]}; it records code {study['recorded']}, main's is {study['current']}"
    assert (study["stale"] or bool(study["remaining"])) == ("complete with this code" not in text)


# ------------------------------------------------------------------------------- the machinery, on copies
def _published(tmp_path, *, paper=None, strict="x" * 64, study="x" * 64):
    (tmp_path / "reports/strict").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    for rel, code in (("reports/benchmark.json", paper), ("reports/strict/benchmark.json", strict)):
        (tmp_path / rel).write_text(json.dumps({"schema": "netzbench.benchmark/1",
                                                "config": {"code": code} if code else {}}))
    (tmp_path / "reports/protocol_study.json").write_text(json.dumps({"schema": "s", "code": study, "tasks": {}}))
    for rel in ("reports/REPORT.md", "reports/strict/REPORT.md", "docs/results.md"):
        (tmp_path / rel).write_text("# Title\n\nBody text.\n")
    return tmp_path


def test_state_reads_the_recorded_codes_and_compares_them_with_the_checkouts(tmp_path):
    root = _published(tmp_path, paper="c" * 64, strict="c" * 64, study="d" * 64)
    state = {s["name"]: s for s in pub.published_state(root, current="c" * 64)}
    assert not state["paper run"]["stale"] and not state["strict report"]["stale"]
    assert state["protocol study"]["stale"] and state["protocol study"]["recorded"] == "d" * 64
    assert not any(s["marked"] for s in state.values())


def test_mark_puts_the_banner_on_stale_pages_only_and_takes_it_off_again(tmp_path):
    root = _published(tmp_path, paper="c" * 64)
    changed = pub.mark(root, docs=True, current="c" * 64)
    assert sorted(p.relative_to(root).as_posix() for p in changed) == ["docs/results.md", "reports/strict/REPORT.md"]
    strict = (root / "reports/strict/REPORT.md").read_text()
    assert strict.startswith("# Title\n\n" + pub.BEGIN) and "STALE" in strict and strict.endswith("Body text.\n")
    docs = (root / "docs/results.md").read_text()
    assert "strict report" in docs and "protocol study" in docs
    assert pub.BEGIN not in (root / "reports/REPORT.md").read_text()
    assert all(s["marked"] for s in pub.published_state(root, current="c" * 64) if s["stale"])
    assert pub.mark(root, docs=True, current="c" * 64) == []  # idempotent
    # republished: every code is main's, the banners go
    for rel in ("reports/strict/benchmark.json",):
        (root / rel).write_text(json.dumps({"config": {"code": "c" * 64}}))
    (root / "reports/protocol_study.json").write_text(json.dumps({"code": "c" * 64, "tasks": {}}))
    pub.mark(root, docs=True, current="c" * 64)
    for rel in ("reports/strict/REPORT.md", "docs/results.md"):
        assert (root / rel).read_text() == "# Title\n\nBody text.\n"


def test_a_paper_run_without_a_recorded_code_is_checked_through_dvc_lock(tmp_path):
    root = _published(tmp_path)
    shutil.copytree(REPO / "src/netzbench", root / "src/netzbench",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "dvc.lock", root / "dvc.lock")
    lock = pub.lock_matches(REPO)
    assert pub.lock_matches(root) == lock  # the same files, the same MD5s
    current = code_version()
    paper = pub.published_state(root, current=current)[0]
    assert paper["how"] == "dvc.lock's train stage" and paper["stale"] == (not lock)
    (root / "src/netzbench/families.py").write_text((root / "src/netzbench/families.py").read_text() + "\n# edit\n")
    assert pub.lock_matches(root) is False
    assert pub.published_state(root, current=current)[0]["stale"]


def test_dvc_md5_equals_dvcs_own_hash_of_files_and_folders(tmp_path):
    from dvc_data.hashfile.build import build
    from dvc_data.hashfile.db import HashFileDB
    from dvc_objects.fs.local import LocalFileSystem

    folder = tmp_path / "code"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.py").write_text("x = 1\n")
    (folder / "sub" / "b.py").write_text("y = 'ü'\n")
    (folder / "sub" / "data.json").write_bytes(b"\x00\x01")
    fs = LocalFileSystem()
    odb = HashFileDB(fs, str(tmp_path / "cache"))
    dvcs = build(odb, str(folder), fs, "md5")[2].hash_info.value
    assert pub.dvc_md5(folder) == dvcs and dvcs.endswith(".dir")
    assert pub.dvc_md5(folder / "a.py") == build(odb, str(folder / "a.py"), fs, "md5")[2].hash_info.value
    (folder / "sub" / "__pycache__").mkdir()
    (folder / "sub" / "__pycache__" / "b.pyc").write_bytes(b"compiled")  # .dvcignore'd in the repository
    assert pub.dvc_md5(folder) == dvcs
    (folder / "sub" / "b.py").write_text("y = 2\n")
    assert pub.dvc_md5(folder) != dvcs


def test_the_stale_command_lists_marks_and_checks(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from netzbench.cli import main

    root = _published(tmp_path, paper=code_version(), strict=code_version())  # only the study is stale
    monkeypatch.chdir(root)
    run = CliRunner().invoke(main, ["stale", "--check"])
    assert run.exit_code == 1, run.output
    assert "STALE    protocol study" in run.output and "current  strict report" in run.output
    assert CliRunner().invoke(main, ["stale", "--docs"]).exit_code == 2  # --docs goes with --mark
    run = CliRunner().invoke(main, ["stale", "--mark", "--docs", "--check"])
    assert run.exit_code == 0, run.output
    assert pub.BEGIN in (root / "docs/results.md").read_text()
    assert pub.BEGIN not in (root / "reports/strict/REPORT.md").read_text()


def test_a_report_placed_elsewhere_names_its_own_data_file(tmp_path):
    from netzbench.report.stage import _plot_links

    md = ("Recomputed from `reports/benchmark.histories.json.gz` (`BenchmarkReport.from_json(\"reports/benchmark.json\")`)"
          " ![cd](../plots/critical_difference.png)")
    strict = lambda rel: tmp_path / "reports/strict" / rel.removeprefix("reports/")  # noqa: E731 (as the study places)
    out = _plot_links(md, strict, tmp_path)
    assert "`reports/strict/benchmark.histories.json.gz`" in out and '"reports/strict/benchmark.json"' in out
    assert "](plots/critical_difference.png)" in out
    assert _plot_links(md, lambda rel: tmp_path / rel, tmp_path) == md  # the main report: as written


def test_docs_study_state_sentence_is_written_from_the_study(tmp_path):
    root = _published(tmp_path, paper="c" * 64, strict="c" * 64, study="d" * 64)
    (root / "docs/results.md").write_text(f"# Title\n\nText.\n{pub.STATE_BEGIN}\nold words\n{pub.STATE_END}\nMore.\n")
    pub.mark(root, docs=True, current="c" * 64)
    text = (root / "docs/results.md").read_text()
    assert "(study state: stale): it records result code `dddddddd…`" in text and "old words" not in text
    assert text.count(pub.STATE_BEGIN) == 1 and text.endswith("More.\n") and pub.BEGIN in text
    (root / "reports/protocol_study.json").write_text(json.dumps({"code": "c" * 64, "tasks": {}}))
    pub.mark(root, docs=True, current="c" * 64)
    text = (root / "docs/results.md").read_text()
    assert "(study state: current)" in text and pub.BEGIN not in text  # all current: no banner
    (root / "reports/protocol_study.json").write_text(json.dumps({"code": "c" * 64, "tasks": {},
                                                                   "remaining": {"cora": ["strict"], "mutag": []}}))
    assert [s["remaining"] for s in pub.published_state(root, "c" * 64) if s["name"] == "protocol study"] == \
        [{"cora": ["strict"]}]
    pub.mark(root, docs=True, current="c" * 64)
    text = (root / "docs/results.md").read_text()
    assert "(study state: incomplete): 1 task(s) still have variants to run (cora)" in text
    assert "partial  protocol study" in pub.render(pub.published_state(root, "c" * 64))
