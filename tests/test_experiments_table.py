"""`netzbench exps` (issue 28): the experiments in one table within the terminal's width, each row with the
tasks it ran, from what `dvc exp show --json` prints (DVC 3's shape, as 3.67 writes it)."""

from __future__ import annotations

import json

import pytest

from netzbench.report.experiments import ExperimentRow, experiment_rows, render, rows_json

PAPER_TASKS = ["random_tsp", "mutag", "cora", "fb15k_237", "euroroad", "board_directors", "internet_as",
               "ising_lattice", "terrorists_911", "citeseer"]


def _entry(rev, name, params, metrics=None, experiments=None, error=None):
    data = {"rev": rev, "timestamp": "2026-12-02T06:34:53", "params": {"params.yaml": {"data": params}},
            "metrics": ({"metrics/headline.json": {"data": metrics}} if metrics is not None else
                        {"metrics/headline.json": {"error": {"type": "FileNotFoundError", "msg": "no such file"}}}),
            "deps": {}, "outs": {}, "meta": {}}
    return {"rev": rev, "name": name, "data": data, "error": error, "experiments": experiments}


def _params(**kw):
    base = {"tasks": PAPER_TASKS, "seeds": list(range(10)), "model": None, "model_args": None, "protocol": "paper",
            "protocol_overrides": {}}
    return {**base, **kw}


HEADLINE = {"friedman_p": 0.1149, "mean_rank": {"GAT": 2.6, "GCN": 1.9, "GraphSAGE": 2.4, "GraphTransformer": 3.1},
            "mean": {"cora": {"GCN": 0.81}}}
SHOW = [
    _entry("workspace", None, _params(), HEADLINE),
    _entry("9b6146d0", "main", _params(), HEADLINE, experiments=[
        {"revs": [_entry("aaa1", "skip-gcn", _params(model="user_models.skipgcn:SkipGCN"),
                         {**HEADLINE, "candidate": {"wins": 5, "losses": 1, "ties": 34, "mean_rank": 1.45}})]},
        {"revs": [_entry("bbb2", "small", _params(tasks=["karate", "mutag"], seeds=[0, 1], model="GAT",
                                                  model_args={"heads": 4}, protocol="strict",
                                                  protocol_overrides={"link_negatives": "fresh"}),
                         {"friedman_p": 2e-5, "mean_rank": {"GCN": 1.0}, "candidate": {"wins": 0, "losses": 2,
                                                                                       "ties": 0, "mean_rank": 2.0}})]},
        {"revs": [_entry("ccc3", "broken", _params(), None)]},
    ]),
]


def test_each_experiment_says_what_it_ran_and_how_its_candidate_did():
    rows = experiment_rows(SHOW)
    assert [(r.kind, r.name) for r in rows] == [("workspace", "workspace"), ("commit", "main"),
                                                ("experiment", "skip-gcn"), ("experiment", "small"),
                                                ("experiment", "broken")]
    skip, small, broken = rows[2:]
    assert skip.candidate == "SkipGCN" and skip.same_tasks_as_baseline and skip.tasks == PAPER_TASKS
    assert (skip.wins, skip.losses, skip.ties, skip.rank) == (5, 1, 34, 1.45)
    assert skip.first == "GCN" and skip.friedman_p == pytest.approx(0.1149) and skip.seeds == 10
    assert small.candidate == "GAT{heads: 4}" and small.protocol == "strict+1" and small.seeds == 2
    assert small.tasks == ["karate", "mutag"] and not small.same_tasks_as_baseline
    assert broken.error == "no such file" and broken.rank is None and broken.first is None
    assert rows[1].candidate is None and rows[1].wins is None  # no candidate, no record
    assert json.loads(rows_json(rows))[3]["tasks"] == ["karate", "mutag"]


@pytest.mark.parametrize("width", [80, 100, 120, 200])
def test_the_table_fits_the_width_and_the_tasks_wrap_into_what_is_left(width):
    text = render(experiment_rows(SHOW), width)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width
    beside = width >= 110  # under 30 columns left for the tasks: they go on lines of their own
    assert lines[0].split() == ["experiment", "candidate", "protocol", "seeds", "rank", "W/L/T", "friedman_p",
                                "first"] + (["tasks"] if beside else [])
    start = lines[0].index("tasks") if beside else 0
    # every task of the published list is printed once per row that lists them, in the tasks column
    legend = next(i for i, line in enumerate(lines) if line.startswith("rank:"))
    listed = " ".join(line[start:] for line in lines[2:legend]).replace(",", " ").split()
    assert beside or lines[3].startswith("    tasks 10: random_tsp")
    for task in PAPER_TASKS:  # the workspace and main list them; skip-gcn says "as its baseline"
        assert listed.count(task) == 2 + (task == "mutag"), task
    assert "as its baseline (10)" in text and "2: karate, mutag" in text and "5/1/34" in text
    assert "1.45" in text and "2e-05" in text and "└ skip-gcn" in text
    assert text.count("(no such file)") == 1  # the experiment without metrics says why its numbers read "-"


def test_a_row_without_params_says_why():
    show = [{"rev": "workspace", "name": None, "data": None, "experiments": None,
             "error": {"type": "YAMLSyntaxError", "msg": "unable to read: 'dvc.yaml'"}}]
    (row,) = experiment_rows(show)
    assert isinstance(row, ExperimentRow) and row.error == "unable to read: 'dvc.yaml'"
    assert "(unable to read: 'dvc.yaml')" in render([row], 100)
