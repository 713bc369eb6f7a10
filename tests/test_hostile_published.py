"""Reading published results safely (issue 50): hostile checkouts and commits stop with one line, within seconds.

A sidecar or benchmark file that is a link to ``/dev/zero`` or a FIFO, a commit whose ``benchmark.json`` is
stored small in git but is huge, a sidecar that inflates past what its benchmark file names, and a file
named ``HEAD`` in the working tree: each is built here and read under a 2 GB address-space cap
(``resource.setrlimit``) in a subprocess with a timeout, or through the CLI where it cannot allocate.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from helpers import git
from netzbench.cli import main
from netzbench.report import BenchmarkReport
from netzbench.report.persistence import histories_name, read_regular, split
from netzbench.report.verify_input import VerifyError, read_benchmark

MEMORY_CAP = 2 << 30


def _report(final: float = 0.7) -> BenchmarkReport:
    seeds = [0, 1, 2]
    hist = {"t": {m: [{"train_loss": [1.0, 0.5], "val_acc": [0.5, final], "test_acc": [0.5, final + 0.01 * s]}
                      for s in seeds] for m in ("GCN", "MLP")}}
    tasks = {"t": {"metric": "test_acc", "direction": "higher", "family": "node_cls", "category": "c"}}
    return BenchmarkReport(seeds, hist, {}, tasks=tasks)


def _publish(folder, report=None) -> tuple:
    """``folder/benchmark.json`` and its sidecar as the report stage writes them."""
    folder.mkdir(parents=True, exist_ok=True)
    text, sidecar = split(json.loads((report or _report()).to_json()), "benchmark.json")
    (folder / "benchmark.json").write_text(text + "\n")
    (folder / histories_name("benchmark.json")).write_bytes(sidecar)
    return folder / "benchmark.json", folder / histories_name("benchmark.json")


def _capped_cli(args: list[str], cwd, timeout: float = 60) -> subprocess.CompletedProcess:
    """``netzbench ARGS`` in ``cwd`` under a 2 GB address-space cap and a timeout."""
    code = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_CAP}, {MEMORY_CAP}))
        from netzbench.cli import main
        sys.argv = ["netzbench", *{args!r}]
        main()
    """)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=env)


def _one_error_line(proc, *parts) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    for part in parts:
        assert part in lines[0], (part, lines[0])
    return lines[0]


@pytest.mark.parametrize("which", ["sidecar", "benchmark"])
def test_a_link_to_dev_zero_is_refused_not_read(tmp_path, which):
    bench, sidecar = _publish(tmp_path / "reports")
    target = sidecar if which == "sidecar" else bench
    target.unlink()
    target.symlink_to("/dev/zero")
    with pytest.raises(VerifyError, match="not a regular file"):
        read_benchmark(bench)
    proc = _capped_cli(["verify", str(bench), str(bench)], tmp_path)
    _one_error_line(proc, "not a regular file")


@pytest.mark.parametrize("which", ["sidecar", "benchmark"])
def test_a_fifo_is_refused_without_blocking(tmp_path, which):
    bench, sidecar = _publish(tmp_path / "reports")
    target = sidecar if which == "sidecar" else bench
    target.unlink()
    os.mkfifo(target)
    proc = _capped_cli(["verify", str(bench), str(bench)] if which == "sidecar" else
                       ["compare", str(bench), str(bench)], tmp_path, timeout=60)
    _one_error_line(proc, "not a regular file")


def test_a_benchmark_file_over_its_cap_is_refused_before_reading(tmp_path, monkeypatch):
    bench, _ = _publish(tmp_path / "reports")
    assert read_regular(bench)  # within the cap
    monkeypatch.setenv("NETZBENCH_MAX_BENCHMARK", "100")
    with pytest.raises(VerifyError, match=r"bytes, over the cap of 100 for a benchmark file \(set "
                                          r"NETZBENCH_MAX_BENCHMARK higher"):
        read_benchmark(bench)


def _commit(repo, files: dict) -> str:
    for rel, data in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)
        git(repo, "add", rel)
    git(repo, "commit", "-q", "-m", "x")
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, "init", "-q")
    bench, sidecar = _publish(tmp_path / "reports")
    git(tmp_path, "add", "reports")
    git(tmp_path, "commit", "-q", "-m", "published")
    return tmp_path


def test_a_commit_whose_benchmark_file_is_huge_but_small_in_git(repo):
    huge = b"{" + b" " * (80 << 20) + b"}"  # 80 MB of JSON, a few hundred KB in git
    _commit(repo, {"reports/benchmark.json": huge})
    proc = _capped_cli(["compare", "HEAD", "HEAD~1"], repo)
    _one_error_line(proc, "reports/benchmark.json: 83,886,082 bytes, over the cap of 67,108,864",
                    "NETZBENCH_MAX_BENCHMARK")


def test_a_commit_whose_sidecar_inflates_to_gigabytes(repo):
    """A 2 MB sidecar of 2 GiB whose benchmark file names 2 GiB, and one that names its own small length."""
    text, _ = split(json.loads(_report().to_json()), "benchmark.json")
    form = json.loads(text)
    member = gzip.compress(b" " * (16 << 20), compresslevel=9)
    bomb = member * 128  # 2 GiB of blanks from about 2 MB
    form["histories_file"]["bytes"] = 2 << 30
    _commit(repo, {"reports/benchmark.json": json.dumps(form).encode(), "reports/" + histories_name("benchmark.json"): bomb})
    proc = _capped_cli(["compare", "HEAD", "HEAD~1"], repo)
    _one_error_line(proc, "names 2,147,483,648 bytes of histories, over the cap of 134,217,728",
                    "NETZBENCH_MAX_HISTORIES")
    form["histories_file"]["bytes"] = 1000  # a length within the cap: inflation stops past it
    _commit(repo, {"reports/benchmark.json": json.dumps(form).encode()})
    proc = _capped_cli(["compare", "HEAD", "HEAD~2"], repo)
    _one_error_line(proc, "is not the one the benchmark file names")


def test_a_file_named_head_does_not_replace_the_committed_baseline(repo):
    head = git(repo, "rev-parse", "HEAD")
    spoof = _publish(repo / "spoof", _report(0.1))[0]
    (repo / "HEAD").write_bytes(spoof.read_bytes())
    (repo / histories_name("benchmark.json")).write_bytes((repo / "spoof" / histories_name("benchmark.json")).read_bytes())
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        out = CliRunner().invoke(main, ["compare"])
    finally:
        os.chdir(cwd)
    assert out.exit_code == 0, out.output
    assert f"A: `HEAD ({head[:7]})`" in out.output and "**No change.**" in out.output


HOSTILE_NAME = "GCN[hidden=<!-- hides the rest -->,act=<script>x</script>]"


def _outside_code(markdown: str) -> str:
    return re.sub(r"`[^`\n]*`", "", re.sub(r"(?ms)^```.*?^```", "", markdown))


def test_model_arguments_are_text_in_report_md_and_compare_markdown():
    """A candidate's display name carries its ``model_args``: a ``<!--`` there hid the rest of the rendered
    REPORT.md and compare summary. Outside code it is written ``&lt;``; in code spans it stays as typed."""
    from netzbench.report.compare import compare
    from netzbench.report.compare_render import to_html, to_markdown
    from netzbench.report.facts import collect_facts
    from netzbench.report.markdown import render_markdown

    seeds = [0, 1, 2, 3]
    tasks = {"t": {"metric": "test_acc", "direction": "higher", "family": "node_cls", "category": "c"}}

    def run(shift):
        hist = {"t": {m: [{"train_loss": [1.0, 0.5], "val_acc": [0.5, v], "test_acc": [0.5, v]}
                          for v in (base + shift + 0.01 * s for s in seeds)]
                      for m, base in ((HOSTILE_NAME, 0.6), ("MLP", 0.5))}}
        return BenchmarkReport(seeds, hist, {}, tasks=tasks)

    report_md = render_markdown(collect_facts(run(0.0), HOSTILE_NAME, ["MLP"]))
    summary = to_markdown(compare(run(0.0), run(0.05)))
    for text in (report_md, summary):
        assert "hidden=&lt;!-- hides" in text
        assert not re.search(r"<[A-Za-z/!?]", _outside_code(text))
    assert "&lt;!--" in to_html(compare(run(0.0), run(0.05))) and "<script>" not in to_html(compare(run(0.0), run(0.05)))


def test_inert_html_leaves_code_comparisons_and_quotes_alone():
    from netzbench.report.formatting import inert_html

    text = "p < 0.05 and `<b>` in code\n```\n<pre>raw</pre>\n```\n> quoted <i>x</i>"
    assert inert_html(text) == "p < 0.05 and `<b>` in code\n```\n<pre>raw</pre>\n```\n> quoted &lt;i>x&lt;/i>"


def test_export_makes_a_copy_that_reads_after_the_sidecar_is_replaced(tmp_path):
    bench, sidecar = _publish(tmp_path / "reports")
    copy = tmp_path / "aside.json"
    out = CliRunner().invoke(main, ["export", str(bench), str(copy)])
    assert out.exit_code == 0, out.output
    assert "histories_file" not in json.loads(copy.read_text()) and "histories" in json.loads(copy.read_text())
    _publish(tmp_path / "reports", _report(0.2))  # the next report replaces the pair
    with pytest.raises(VerifyError, match="is not the one the benchmark file names"):
        _stale_copy(tmp_path, bench)  # what a plain copy of the benchmark file meets now
    assert read_benchmark(copy).to_json() == _report().to_json()
    same = CliRunner().invoke(main, ["export", str(copy), str(copy)])
    assert same.exit_code == 2 and "would replace the file it is read from" in same.output


def _stale_copy(tmp_path, bench):
    """A plain copy of an earlier benchmark file beside the current sidecar: refused, not misread."""
    old_text, _ = split(json.loads(_report().to_json()), "benchmark.json")
    stale = bench.with_name("stale.json")
    stale.write_text(old_text)
    return read_benchmark(stale)


def test_model_arguments_are_escaped_in_the_latex_tables():
    from netzbench.report.latex import pairwise_table, summary_table

    seeds = [0, 1, 2, 3]
    name = r"GCN[act=\input{/etc/passwd}%,w=$x$&#_~^]"
    tasks = {"t": {"metric": "test_acc", "direction": "higher", "family": "node_cls", "category": "c"}}
    hist = {"t": {m: [{"test_acc": [0.5, base + 0.01 * s]} for s in seeds] for m, base in ((name, 0.6), ("MLP", 0.5))}}
    report = BenchmarkReport(seeds, hist, {}, tasks=tasks)
    for tex in (summary_table(report), pairwise_table(report)):
        assert r"\input{" not in tex and r"\textbackslash{}input\{/etc/passwd\}\%" in tex
        assert "$x$" not in tex and r"\&\#\_" in tex
