"""The results site (reports/site/, netzbench.report.site), read as files: what the report stage writes
there from synthetic run records, that its numbers are the benchmark's, and that it needs nothing from
elsewhere. In a real browser: tests/test_site_browser.py."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from netzbench.report import BenchmarkReport
from netzbench.report.formatting import p_value
from netzbench.report.site import SITE
from netzbench.report.site.markup import to_html
from netzbench.report.stage import write_outputs
from netzbench.study import strict_place

from site_records import CANDIDATE, DEFAULT_TASKS, KINDS, build_site, parse
from helpers import as_settings


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    params, metrics = build_site(root)
    return root, params, metrics


def _page(root: Path, rel: str):
    return parse((root / SITE / rel).read_text(encoding="utf-8"))


def _csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_the_stage_writes_every_page_and_asset_and_the_reports_cd_diagram(built):
    root, _, _ = built
    site = root / SITE
    assert _files(site) == {"index.html", "site.css", "site.js", "critical_difference.svg",
                            *(f"tasks/{t}.html" for t in DEFAULT_TASKS)}  # no paper page: not the paper's setting
    assert (site / "critical_difference.svg").read_bytes() == (root / "plots/critical_difference.svg").read_bytes()
    assert not [p for p in site.rglob("*") if p.name.startswith(".")]  # no temporary left


def test_nothing_is_fetched_from_elsewhere_and_every_local_link_resolves(built):
    root, _, _ = built
    site = root / SITE
    for rel in sorted(r for r in _files(site) if r.endswith(".html")):
        page = _page(root, rel)
        for node in page.find_all():
            for attr in ("href", "src"):
                target = node.attrs.get(attr)
                if target is None:
                    continue
                assert not re.match(r"^([a-z]+:|//)", target), f"{rel}: {attr}={target} leaves the site"
                file, _, anchor = target.partition("#")
                dest = (site / rel).parent / file if file else site / rel
                assert dest.is_file(), f"{rel}: {target} does not exist"
                if anchor:
                    assert parse(dest.read_text(encoding="utf-8")).find_all(id=anchor), f"{rel}: no #{anchor}"
    script, style = (site / "site.js").read_text(), (site / "site.css").read_text()
    assert not re.search(r"fetch\(|XMLHttpRequest|import\(|https?:", script)
    assert not re.search(r"url\(|@import|https?:", style)


def _leaderboard(page, task: str):
    return page.find("section", cls="board", data_task=task).find("table", cls="leaderboard").find("tbody")


def test_the_leaderboards_numbers_are_the_benchmark_files(built):
    root, _, _ = built
    report = BenchmarkReport.from_json(root / "reports/benchmark.json")
    summary = {(r["task"], r["model"]): r for r in report.summary()}
    index = _page(root, "index.html")
    for task in report.present_tasks():
        rows = _leaderboard(index, task).find_all("tr")
        models = [r.attrs["data_model"] for r in rows]
        assert sorted(models) == sorted(m for m in report.models if m not in KINDS)  # baselines apart
        means = []
        for row in rows:
            s, mean = summary[(task, row.attrs["data_model"])], row.find("td", cls="mean")
            if s["n_seeds"] == 0:
                assert mean.attrs["data_value"] == "" and "incompatible" in mean.text
                continue
            assert float(mean.attrs["data_value"]) == s["mean"] and mean.text.strip() == f"{s['mean']:.3f}"
            assert row.find("td", cls="ci").text == f"[{s['lo']:.3f}, {s['hi']:.3f}]"
            means.append(s["mean"])
        higher = report.task_info[task].direction == "higher"
        assert means == sorted(means, reverse=higher)  # the best first, in the metric's direction
        board = index.find("section", cls="board", data_task=task)
        shown = [r.attrs["data_model"] for r in board.find("table", cls="baseline-table").find_all("tr", data_model=True)]
        assert sorted(shown) == sorted(KINDS)


def test_the_significance_group_is_the_best_models_under_the_holm_adjusted_tests(built):
    root, _, _ = built
    pairs = _csv(root / "reports/pairwise_t.csv")
    index = _page(root, "index.html")
    seen = set()
    for task in ("cora", "mutag", "random_tsp", "zinc"):
        rows = _leaderboard(index, task).find_all("tr")
        best = rows[0].attrs["data_model"]
        assert rows[0].find("span", cls="badge").text == "best"
        for row in rows[1:]:
            model = row.attrs["data_model"]
            pair = next((p for p in pairs if p["task"] == task and {p["model_a"], p["model_b"]} == {model, best}), None)
            badge = row.find_all("span", cls="badge")
            if pair is None:  # no result: no group
                assert not [b for b in badge if "same" in b.classes() or "sep" in b.classes()]
                continue
            group = row.find_all("span", cls="sep") and "separated" or row.find("span", cls="same").text
            seen.add(group)
            assert group == ("separated" if pair["significant"] == "True" else "not separable"), (task, model)
            assert row.find_all("td")[7].text == p_value(float(pair["p_holm"]))
    assert seen == {"separated", "not separable"}  # the fixture has both


def test_flagged_cells_are_marked_with_their_reasons(built):
    root, _, metrics = built
    index = _page(root, "index.html")
    marks = {}
    for task in ("mutag", "random_tsp", "cora"):
        for row in _leaderboard(index, task).find_all("tr"):
            marks[(task, row.attrs["data_model"])] = {a.text: a.attrs["title"] for a in row.find_all("abbr", cls="flag")}
    assert set(marks[("mutag", "GAT")]) == {"‡", "≡"} and "constant" in marks[("mutag", "GAT")]["‡"]
    assert set(marks[("random_tsp", "GraphSAGE")]) == {"⊗"}
    assert "structural_features" in marks[("random_tsp", "GraphSAGE")]["⊗"]
    flagged = {tuple(c.split("/")) for key in ("collapsed_cells", "degenerate_cells", "leaking_cells")
               for c in metrics[key]}
    assert {k for k, v in marks.items() if v} == flagged  # every flag REPORT.md shows, and no other


def test_the_candidate_against_the_roster(built):
    root, params, metrics = built
    block = _page(root, "index.html").find("section", id="candidate")
    assert "MyGNN" in block.find("h2").text
    outcomes = [r.find("span", cls="badge").text for r in block.find("table").find("tbody").find_all("tr")]
    cand = metrics["candidate"]
    assert cand["name"] == CANDIDATE
    assert [outcomes.count(k) for k in ("win", "loss", "tie")] == [cand["wins"], cand["losses"], cand["ties"]]
    pairs = [p for p in _csv(root / "reports/pairwise_t.csv") if CANDIDATE in (p["model_a"], p["model_b"])
             and (p["model_b"] if p["model_a"] == CANDIDATE else p["model_a"]) in params["models"]]
    assert len(outcomes) == len(pairs) > 0


def test_a_task_page_holds_curves_tests_equivalence_and_the_dataset(built):
    root, _, _ = built
    page = _page(root, "tasks/cora.html")
    pairs = [p for p in _csv(root / "reports/pairwise_t.csv") if p["task"] == "cora"]
    assert page.find("h1").text == "cora"
    panels = page.find("div", cls="panels").find_all("figure", cls="curve")
    assert [p.find("text", cls="panel-title").text for p in panels] == ["GCN", "GAT", "GraphSAGE", "MLP", "MyGNN"]
    lines = panels[0].find_all("polyline")  # 5 seeds x (validation, test), and the two means
    assert len([ln for ln in lines if "seed" in ln.attrs["class"]]) == 10
    assert sorted(ln.attrs["class"] for ln in lines if "mean" in ln.attrs["class"]) == ["test mean", "val mean"]
    matrix = page.find("table", cls="matrix")
    heads = [th.text for th in matrix.find("thead").find_all("th")][1:]
    for line in matrix.find("tbody").find_all("tr"):
        row, cells = line.find("th").text, line.find_all("td")
        for col, cell in zip(heads, cells):
            if row == col:
                assert cell.text == "–"
                continue
            pair = next(p for p in pairs if {p["model_a"], p["model_b"]} == {row.replace("MyGNN", CANDIDATE),
                                                                            col.replace("MyGNN", CANDIDATE)})
            assert cell.text == p_value(float(pair["p_holm"]))
            want = "ns" if pair["significant"] != "True" else ("win" if pair["better"].endswith(row) else "loss")
            assert want in cell.classes()
    assert len(page.find("table", cls="pairs").find("tbody").find_all("tr")) == len(pairs)
    verdicts = [r for r in _csv(root / "reports/equivalence.csv") if r["task"] == "cora"]
    shown = [r.find("span", cls="badge").text for r in page.find("table", cls="equivalence").find("tbody").find_all("tr")]
    assert shown == [r["verdict"] for r in verdicts]
    figures = {d.find("dt").text: d.find("dd").text for d in page.find("dl", cls="figures").find_all("div")}
    assert figures["nodes"] == "2,708" and figures["majority"] == "0.302" and figures["edge hom."] == "0.81"
    assert "No results" in _page(root, "tasks/board_directors.html").find("p", cls="status").text


@pytest.mark.stage_figures  # reads the figure files the stage wrote
def test_the_other_outputs_do_not_depend_on_the_site(built, tmp_path):
    """Leaving the site out (the strict report does) changes no other output by a byte."""
    root, params, _ = built
    report = BenchmarkReport.from_runs(root / "metrics/runs", params=as_settings(params), candidate_dir=root / "metrics/candidate")
    write_outputs(report, as_settings(params), report.config.get("candidate"), out_dir=tmp_path,
                  place=lambda rel: None if rel.startswith("reports/site/") else tmp_path / rel)
    ours = {f"{folder}/{rel}" for folder in ("metrics", "reports", "plots") for rel in _files(tmp_path / folder)}
    assert not (tmp_path / SITE).exists() and ours
    for rel in ours:
        assert (tmp_path / rel).read_bytes() == (root / rel).read_bytes(), rel
    assert strict_place(tmp_path / "reports/strict")("reports/site/index.html") is None


def test_in_the_papers_setting_a_paper_page_and_a_dropped_tasks_page_is_removed(tmp_path):
    stale = tmp_path / SITE / "tasks/dropped_task.html"
    stale.parent.mkdir(parents=True)
    stale.write_text("an earlier build's page")
    build_site(tmp_path, paper_setting=True)
    site = tmp_path / SITE
    assert _files(site) == {"index.html", "site.css", "site.js", "critical_difference.svg", "paper.html",
                            "tasks/euroroad.html"}
    paper = _page(tmp_path, "paper.html")
    table = paper.find("section", id="paper-comparison").find("table")
    rows = {tuple(td.text for td in tr.find_all("td")[:2]): tr for tr in table.find("tbody").find_all("tr")}
    assert set(rows) == {("euroroad", m) for m in ("GCN", "GAT", "GraphSAGE", "GraphTransformer")}  # the paper's
    assert rows[("euroroad", "GCN")].find_all("td")[2].text == "0.524 ± 0.019"  # the paper's Table 3 cell
    assert any(a.attrs.get("href") == "paper.html" for a in _page(tmp_path, "index.html").find_all("a"))


def test_the_report_markdown_becomes_html():
    html = to_html(["## 8. Candidate", "", "> **⚠ note** <b> `a|b`", "", "- one *it*", "  - nested", "- two",
                    "", "| a | b \\| c |", "| --- | ---: |", "| `x` | 1.5 |", "", "![fig](../plots/x.png)"],
                   drop_heading=True)
    assert "<h" not in html and "&lt;b&gt;" in html and "<code>a|b</code>" in html
    assert "<ul><li>one <em>it</em><ul><li>nested</li></ul></li><li>two</li></ul>" in html
    assert '<th class="right">b | c</th>' in html and '<td class="right">1.5</td>' in html
    assert "plots" not in html and "fig" not in html  # a figure's relative link: not part of the site
