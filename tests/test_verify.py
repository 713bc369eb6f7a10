"""`netzbench verify`: two benchmark files compared cell by cell and conclusion by conclusion."""

import json

import pytest
from click.testing import CliRunner

from netzbench.cli import main
from netzbench.report import BenchmarkReport
from netzbench.report.persistence import read as read_form
from netzbench.report.verify import verify

from helpers import REPO

PUBLISHED = REPO / "reports" / "benchmark.json"
pytestmark = pytest.mark.skipif(not PUBLISHED.is_file(), reason="no published reports/benchmark.json")


def _variant(tmp_path, name, edit):
    data = read_form(PUBLISHED)  # with its histories, from the file beside it
    edit(data["histories"])
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_identical_runs_agree_on_everything(tmp_path):
    result = verify(BenchmarkReport.from_json(PUBLISHED), BenchmarkReport.from_json(PUBLISHED))
    assert result["identical_cells"] == result["n_cells"] > 0 and result["changed"] == []


def test_last_bit_noise_moves_numbers_not_conclusions(tmp_path):
    def nudge(h):
        for seed in h["cora"]["GCN"]:
            seed["test_acc"] = [v + 1e-7 for v in seed["test_acc"]]

    noisy = _variant(tmp_path, "noisy.json", nudge)
    out = CliRunner().invoke(main, ["verify", str(noisy), str(PUBLISHED)])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0].endswith("with identical histories") and "cora/GCN: mean differs by +0.000000" in out.output
    assert "every conclusion holds" in out.output


def test_a_changed_conclusion_fails(tmp_path):
    def boost(h):  # GAT becomes the clear winner on Cora
        for seed in h["cora"]["GAT"]:
            seed["test_acc"] = [0.99 + 0.001 * (i % 3) for i in range(len(seed["test_acc"]))]

    boosted = _variant(tmp_path, "boosted.json", boost)
    result = verify(BenchmarkReport.from_json(boosted), BenchmarkReport.from_json(PUBLISHED))
    assert "significant_pairs" in result["changed"] and "paper_overlap" in result["changed"]
    gat = next(c for c in result["cells"] if (c["task"], c["model"]) == ("cora", "GAT"))
    assert not gat["identical"] and gat["share_of_ci"] > 10
    out = CliRunner().invoke(main, ["verify", str(boosted), "--against", str(PUBLISHED)])
    assert out.exit_code == 1 and "significant_pairs: CHANGED (only here: [['cora', 'GAT'" in out.output


def test_bad_arguments(tmp_path):
    out = CliRunner().invoke(main, ["verify", str(PUBLISHED), str(PUBLISHED), "--against", str(PUBLISHED)])
    assert out.exit_code == 2 and "at most two files" in out.output
