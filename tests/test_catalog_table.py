"""The catalogue has the paper's 63 datasets in ten categories, each fully described."""

import json
from collections import Counter

from click.testing import CliRunner

from netzbench.catalog.table import CATEGORIES, DATASETS, TASKS
from netzbench.cli import main

# Table 4 of the GraphNetz paper: datasets per category (the paper calls them loaders)
TABLE4 = {"combinatorial": 6, "biology": 12, "social": 16, "knowledge": 3, "infrastructure": 6, "finance": 5,
          "computing": 4, "vision": 5, "physics": 3, "security": 3}


def test_the_papers_63_datasets_across_ten_categories():
    paper = [d for d in DATASETS.values() if d.in_paper]
    assert len(paper) == 63
    assert Counter(d.category for d in paper) == TABLE4
    assert set(TABLE4) == set(CATEGORIES)


def test_every_entry_has_a_source_format_license_and_citation():
    for d in DATASETS.values():
        assert d.license.strip(), d.id
        assert d.description.strip(), d.id
        if d.needs_download:
            assert d.sources, d.id
            for s in d.sources:
                assert s.url.startswith(("http://", "https://")), (d.id, s.url)
                assert s.kind in ("files", "zip", "tar"), (d.id, s.kind)
                assert s.format and s.files, d.id
                for f in s.files:
                    assert f.sha256 is None or len(f.sha256) == 64, (d.id, f.name)
        else:
            assert d.synthetic or d.builtin


def test_every_dataset_serves_a_task_and_every_task_a_known_family():
    served = {t.dataset for t in TASKS.values()}
    assert set(DATASETS) <= served
    for t in TASKS.values():
        assert t.family in DATASETS[t.dataset].families
        assert t.epochs > 0
    # several tasks may share a dataset
    assert TASKS["cora"].dataset == TASKS["cora_link_pred"].dataset == "cora"
    headline = ["random_tsp", "mutag", "cora", "fb15k_237", "euroroad", "board_directors", "internet_as",
                "terrorists_911", "mnist_superpixels", "ising_lattice"]
    assert all(h in TASKS for h in headline)
    assert len({DATASETS[TASKS[h].dataset].category for h in headline}) == 10  # one per category


def test_datasets_command_json(mirror):
    out = CliRunner().invoke(main, ["datasets", "--json", "--mirror", str(mirror)])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)
    assert len([r for r in rows if r["in_paper"]]) == 63
    for r in rows:
        assert {"id", "category", "families", "sources", "license", "in_paper"} <= set(r)
    by_id = {r["id"]: r for r in rows}
    assert by_id["cora"]["obtainable"] == "mirror"
    assert by_id["pubmed"]["obtainable"] == "not in mirror"  # ind.pubmed.allx is missing
    assert by_id["random_tsp"]["obtainable"] == "synthetic"
    assert by_id["synthetic_triangles"]["in_paper"] is False


def test_datasets_table_shows_size_and_license_in_aligned_columns(tmp_path, monkeypatch):
    """Every column starts where its header does, however long an id is; size comes from data/<id>/."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data" / "karate").mkdir(parents=True)
    (tmp_path / "data" / "karate" / "meta.json").write_text(json.dumps({"counts": {"num_nodes": 34, "num_edges": 78}}))
    out = CliRunner().invoke(main, ["datasets"])
    assert out.exit_code == 0, out.output
    header, _, *rows = out.output.splitlines()
    rows = rows[: len(DATASETS)]
    starts = {name: header.index(name) for name in ("size", "license", "obtainable", "source")}
    for row in rows:
        for name, at in starts.items():
            assert row[at - 2: at] == "  " and row[at] != " ", (name, row)
    karate = next(r for r in rows if r.startswith("karate "))
    assert "34 nodes, 78 edges" in karate and "public domain" in karate


def test_tasks_table_columns_line_up(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(main, ["tasks"])
    header, _, *rows = out.output.splitlines()
    at = header.index("download")
    assert all(r[at:].strip() in ("yes", "no") and r[at - 2: at] == "  " for r in rows if r and not r.startswith("*"))
    assert max(len(r.split()[0]) for r in rows if r) > 16  # ids that used to push the columns out of line
