"""The published benchmark file in two parts: reports/benchmark.json without the histories, and
reports/benchmark.histories.json.gz beside it (netzbench.report.persistence.split / join / read)."""

import gzip
import json

import pytest

from netzbench.report import BenchmarkReport
from netzbench.report.persistence import HISTORIES_SCHEMA, loads, read, split, write_split
from netzbench.report.sources import read as read_source
from netzbench.report.sources import resolve
from netzbench.report.verify_input import VerifyError, read_benchmark

from helpers import git

SEEDS = [0, 1, 2]
META = {"t": {"metric": "test_acc", "direction": "higher", "family": "node_cls", "category": "c"}}


def _report(shift: float = 0.0) -> BenchmarkReport:
    def history(seed, model):
        final = 0.5 + 0.1 * model + 0.01 * seed + shift
        return {"train_loss": [1.0, 0.5], "val_acc": [final - 0.05, final], "test_acc": [final - 0.02, final]}

    hist = {"t": {m: [history(s, i) for s in SEEDS] for i, m in enumerate(["A", "B"])}}
    hist["t"]["B"][1]["test_acc"][0] = float("nan")  # a non-finite value: null on disk, NaN read back
    return BenchmarkReport(SEEDS, hist, {"code": "x"}, tasks=META)


def _pair(tmp_path, report=None, folder="run"):
    path = tmp_path / folder / "benchmark.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_split((report or _report()).to_dict(), path)
    return path, path.with_name("benchmark.histories.json.gz")


def test_the_pair_reads_back_as_the_one_file_form(tmp_path):
    report = _report()
    path, side = _pair(tmp_path, report)
    main = json.loads(path.read_text())
    assert "histories" not in main and list(main)[-1] == "histories_file"
    assert main["histories_file"]["name"] == "benchmark.histories.json.gz"
    assert read(path) == report.to_dict()  # every part, in the one-file form's key order
    assert list(read(path)) == list(report.to_dict())
    again = BenchmarkReport.from_json(path)
    assert again.to_json() == report.to_json() and again.summary() == report.summary()
    # any gzip reader opens the sidecar: the histories' own schema, plain JSON inside
    inner = json.loads(gzip.decompress(side.read_bytes()))
    assert inner == {"schema": HISTORIES_SCHEMA, "histories": report.to_dict()["histories"]}
    assert read_benchmark(path).to_json() == report.to_json()  # netzbench verify's reading


def test_the_pair_is_the_same_bytes_every_time(tmp_path):
    first = [p.read_bytes() for p in _pair(tmp_path, folder="a")]
    second = [p.read_bytes() for p in _pair(tmp_path, folder="b")]
    assert first == second
    assert split(_report().to_dict(), "benchmark.json") != split(_report(0.01).to_dict(), "benchmark.json")


def test_a_one_file_form_still_reads(tmp_path):
    """Every benchmark file written before the split holds its histories; it reads as it did."""
    path = tmp_path / "benchmark.json"
    _report().to_json(path)
    assert read(path) == _report().to_dict() == loads(path)
    assert read_benchmark(path).to_json() == _report().to_json()


def test_a_sidecar_of_another_run_is_refused(tmp_path):
    path, side = _pair(tmp_path)
    _, other = _pair(tmp_path, _report(0.01), folder="other")
    side.write_bytes(other.read_bytes())  # a stale sidecar: well-formed, but not this file's
    with pytest.raises(ValueError, match="not the one the benchmark file names"):
        read(path)
    with pytest.raises(VerifyError, match=r"run/benchmark.json: histories file benchmark.histories.json.gz is not"):
        read_benchmark(path)


def test_an_edited_sidecar_is_refused(tmp_path):
    path, side = _pair(tmp_path)
    text = gzip.decompress(side.read_bytes()).decode().replace("0.5", "0.6", 1)
    side.write_bytes(gzip.compress(text.encode()))  # the same length, another value
    with pytest.raises(ValueError, match="not the one the benchmark file names"):
        read(path)


@pytest.mark.parametrize("damage, message", [
    (lambda data: data[:len(data) // 2], "truncated gzip data"),
    (lambda data: b"not gzip at all", "not gzip data"),
    # inflates past the length it names: not inflated further
    (lambda data: gzip.compress(gzip.decompress(data) + b" " * 100), "not the one the benchmark file names"),
])
def test_a_damaged_sidecar_is_refused(tmp_path, damage, message):
    path, side = _pair(tmp_path)
    side.write_bytes(damage(side.read_bytes()))
    with pytest.raises(ValueError, match=message):
        read(path)


def test_a_missing_sidecar_is_named(tmp_path):
    path, side = _pair(tmp_path)
    side.unlink()
    with pytest.raises(FileNotFoundError):
        read(path)
    with pytest.raises(VerifyError, match=r"cannot be read \(benchmark.histories.json.gz\): No such file"):
        read_benchmark(path)


@pytest.mark.parametrize("ref", [
    {"name": "../elsewhere.histories.json.gz"},  # never a path out of the file's folder
    {"name": "/etc/passwd"},
    {"name": "benchmark.json"},  # not a histories file
    {"sha256": "XYZ"},
    {"bytes": 0},
    {"bytes": True},
])
def test_a_malformed_reference_is_refused_before_anything_is_read(tmp_path, ref):
    path, _ = _pair(tmp_path)
    main = json.loads(path.read_text())
    main["histories_file"].update(ref)
    path.write_text(json.dumps(main))
    with pytest.raises(ValueError, match="'histories_file' is"):
        read(path)


def test_json_text_naming_a_sidecar_says_to_read_the_file(tmp_path):
    path, _ = _pair(tmp_path)
    with pytest.raises(ValueError, match="beside the benchmark file: read it by its path"):
        BenchmarkReport.from_json(path.read_text())


def test_a_git_revision_reads_its_own_pair(tmp_path):
    """`netzbench verify`/`compare` read a committed pair from the commit, not from the workspace."""
    git(tmp_path, "init", "-q")
    _pair(tmp_path, folder="reports")
    git(tmp_path, "add", "reports")
    git(tmp_path, "commit", "-q", "-m", "published")
    _pair(tmp_path, _report(0.01), folder="reports")  # the workspace: another run
    got = read_source(resolve("HEAD", cwd=tmp_path), cwd=tmp_path)
    assert got.to_json() == _report().to_json()
    git(tmp_path, "rm", "-q", "--cached", "reports/benchmark.histories.json.gz")
    git(tmp_path, "commit", "-q", "-m", "sidecar dropped")
    with pytest.raises(VerifyError, match="no reports/benchmark.histories.json.gz in that commit"):
        read_source(resolve("HEAD", cwd=tmp_path), cwd=tmp_path)
