"""The commands that read runs rather than make them: what a plan will cost (``estimate``), whether a
rerun reproduces (``verify``), what a change does (``compare``), the experiments side by side (``exps``).

:mod:`netzbench.cli` adds them to the ``netzbench`` group.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import click

from .cli_common import UserError, check_task_name, checked_params

log = logging.getLogger(__name__)


@click.command("estimate")
@click.argument("tasks", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Every task of the catalogue, not params.yaml's tasks.")
@click.option("--params", "params_path", default="params.yaml", show_default=True, help="Parameters file.")
@click.option("--data-root", default="data", show_default=True)
@click.option("--epochs", "probe_epochs", type=click.IntRange(min=2), default=6, show_default=True,
              help="Epochs a probe trains (the first 3 settle; the rest give the steady time of an epoch).")
@click.option("--max-probe-edges", type=click.IntRange(min=1000), default=2_000_000, show_default=True,
              help="Larger fetched graphs are probed as scaled stand-ins and extrapolated (a stand-in of data "
                   "not here: above 250,000 edges).")
@click.option("--afresh", is_flag=True, help="As if nothing were cached (what a fresh clone pays).")
@click.option("--remeasure", is_flag=True,
              help="Probe again what an earlier estimate of the same code and data measured (kept in the probe cache).")
@click.option("--json", "as_json", is_flag=True, help="Print the estimate as JSON.")
def estimate_cmd(tasks, every, params_path, data_root, probe_epochs, max_probe_edges, afresh, remeasure,
                 as_json) -> None:
    """What `dvc repro` of TASKS (default: params.yaml's) would cost here, measured on a few epochs per cell:
    time and memory per seed, cached cells, cells that would not fit, the total with this machine's workers."""
    from .catalog.table import TASKS
    from .run.estimate import estimate_plan, render

    settings = checked_params(params_path)
    for task in tasks:
        check_task_name(task)
    chosen = sorted(TASKS) if every else list(tasks) or None
    result = estimate_plan(settings, chosen, data_root=data_root, probe_epochs=probe_epochs,
                          max_probe_edges=max_probe_edges, afresh=afresh, remeasure=remeasure)
    click.echo(json.dumps(result, indent=2) if as_json else render(result))


@click.command("verify")
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option("--against", default=None, type=click.Path(exists=True, dir_okay=False),
              help="The benchmark file to compare with [default: reports/benchmark.json as committed (git HEAD)].")
@click.option("--whole", is_flag=True,
              help="Compare the whole files (every cell of either, each file's own conclusions) instead of "
                   "the cells and seeds both have.")
def verify_cmd(files: tuple[str, ...], against: str | None, whole: bool) -> None:
    """Compare two benchmark files cell by cell and conclusion by conclusion.

    `netzbench verify` after a local `dvc repro` compares reports/benchmark.json with the published
    one (git HEAD); `--against FILE` names the other file; `netzbench verify A B` compares any two.
    It compares the cells both ran, on the seeds both have, with the conclusions recomputed on them,
    and lists what it left out (a narrowed run's tasks); `--whole` compares the files as they are.
    Exit code 2 for a file netzbench cannot have written (not JSON, an accuracy of 5.5, ...), 1 when a
    conclusion changed (mean-rank order, Friedman decision, CD cliques, significant pairwise
    differences, cells overlapping the paper) or none can be computed, 0 otherwise.
    """
    from .report.sources import Source, read
    from .report.verify import VerifyError, render, verify as compare
    from .report.verify_input import read_benchmark

    if len(files) > 2 or (len(files) == 2 and against):
        raise UserError("give at most two files, or one file and --against")
    ours = files[0] if files else "reports/benchmark.json"
    theirs = files[1] if len(files) == 2 else against
    theirs_shown = theirs or f"HEAD:{ours}"  # what an error calls the other file
    try:
        a = read_benchmark(ours)
        b = read_benchmark(theirs, theirs_shown) if theirs else read(Source("HEAD", "revision", "HEAD", "HEAD"), ours)
        result = compare(a, b, whole=whole)
    except VerifyError as exc:
        raise UserError(str(exc)) from None
    click.echo(render(result, labels=(ours, theirs_shown)))
    if not files and not against:  # the published files: say which of them another result code made
        from .report.publication import published_state, render as render_state

        state = published_state(".")
        if any(s["stale"] for s in state):
            click.echo("\npublished artefacts:\n" + render_state(state))
    if not result["verified"]:
        sys.exit(1)


@click.command("compare")
@click.argument("runs", nargs=-1, metavar="[A [B]]")
@click.option("--html", "html_path", default=None, type=click.Path(dir_okay=False),
              help="Also write the summary as a standalone HTML page (style inline, nothing fetched) to this path.")
def compare_cmd(runs: tuple[str, ...], html_path: str | None) -> None:
    """Compare run B with run A, as Markdown for a pull request: the cells that changed, paired B - A
    differences per task (Holm), TOST equivalence, P(B better), mean ranks, conclusions, compute.

    A and B: benchmark files, git revisions (their reports/benchmark.json) or `dvc exp` names.
    `netzbench compare`: HEAD against the workspace; `netzbench compare A`: A against the workspace.
    """
    from .report.compare import compare
    from .report.compare_render import to_html, to_markdown
    from .report.sources import BENCHMARK, load
    from .report.verify_input import VerifyError

    if len(runs) > 2:
        raise UserError("give at most two runs: A and B")
    specs = [*(runs or ["HEAD"]), BENCHMARK][:2]
    try:  # the default baseline is the commit HEAD, never a working-tree file named HEAD
        (a, source_a), (b, source_b) = load(specs[0], files=bool(runs)), load(specs[1])
        result = compare(a, b, labels=(source_a.label, source_b.label))
    except VerifyError as exc:
        raise UserError(str(exc)) from None
    click.echo(to_markdown(result), nl=False)
    if html_path:
        Path(html_path).write_text(to_html(result), encoding="utf-8")
        log.info(f"compare: the page is {html_path}")


@click.command("stale")
@click.option("--mark", is_flag=True, help="Put the STALE banner on each stale artefact's page (REPORT.md), "
                                           "and take it off a current one's.")
@click.option("--docs", is_flag=True, help="With --mark: the banner naming every stale artefact in docs/results.md too.")
@click.option("--check", is_flag=True, help="Exit 1 when an artefact is stale and its page lacks the banner.")
def stale_cmd(mark: bool, docs: bool, check: bool) -> None:
    """Which published artefacts (the paper run, the strict report, the protocol study) were made by
    other result code than this checkout's, each with the code it records and how to republish it."""
    from .report.publication import mark as mark_pages, published_state, render as render_state

    if docs and not mark:
        raise UserError("--docs goes with --mark")
    if mark:
        for path in mark_pages(".", docs=docs):
            log.info(f"stale: banner updated in {path}")
    state = published_state(".")
    click.echo(render_state(state))
    if check and any(s["stale"] and s["page"] and not s["marked"] for s in state):
        sys.exit(1)


@click.command("exps")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON instead of a table.")
@click.option("-A", "--all-commits", is_flag=True, help="Every commit's experiments, not only HEAD's.")
@click.option("--width", type=click.IntRange(60), default=None, help="Table width [default: the terminal's].")
def exps_cmd(as_json: bool, all_commits: bool, width: int | None) -> None:
    """The `dvc exp run` experiments side by side, one row each, within the terminal's width: candidate,
    protocol, seeds, the candidate's mean rank and wins/losses/ties, Friedman p, the model ranked first,
    and the tasks each ran (from `dvc exp show --json`; every column: `dvc exp show`)."""
    from .report.experiments import ExperimentsError, experiment_rows, read_show, render, rows_json

    try:
        rows = experiment_rows(read_show(all_commits=all_commits))
    except ExperimentsError as exc:
        raise UserError(str(exc)) from None
    click.echo(rows_json(rows) if as_json else render(rows, width))


@click.command("export")
@click.argument("source", default="reports/benchmark.json", type=click.Path(dir_okay=False))
@click.argument("out", type=click.Path(dir_okay=False))
def export_cmd(source: str, out: str) -> None:
    """Write SOURCE (a benchmark file, its histories joined from the sidecar beside it) to OUT as one
    self-contained file: a copy that still reads once the next report replaces the sidecar, anywhere
    `BenchmarkReport.from_json`, `verify` and `compare` read a benchmark file."""
    from .report.verify_input import VerifyError, read_benchmark

    try:
        report = read_benchmark(source)  # checked as verify checks it: a pair that does not belong is refused
    except VerifyError as exc:
        raise UserError(str(exc)) from None
    if Path(out).resolve() == Path(source).resolve():
        raise UserError(f"{out}: the export would replace the file it is read from; name another file")
    report.to_json(out)
    log.info(f"export: {source} and its histories -> {out} (one file)")
