"""The ``report`` stage: run records in, the published report out.

Writes (all small, committed to git, ``cache: false`` in dvc.yaml), relative
to the working directory (or ``out_dir``):

- ``metrics/headline.json``: the compact numbers DVC shows (``dvc metrics show``, ``dvc exp show``);
- ``metrics/report.json``: every headline number
  (Friedman chi2 and p, Iman–Davenport, CD, k, N, mean ranks, per-cell mean,
  CI and flags -- collapsed, degenerate, sees held-out edges, each with its
  reason and seed counts (:mod:`.degenerate`) --, the candidate block, the
  missing cells, unavailable tasks, compute time,
  per task the best GNN against the best baseline; ``conclusions``: every claim REPORT.md states with
  ``holds_under`` / ``fails_under`` / ``undecided`` / ``not_run``, the protocol variants of the protocol
  study under which it is or is not made, and ``conclusions_basis``: their seeds, :mod:`.conclusions`;
  ``paper_comparison``: the cells of the paper's Table 3 agreeing with ours under each criterion, counted
  and per cell, :mod:`.paper`; ``bayesian_per_task``: the per-task correlated t-tests' decisions and each
  task's correlation rho with its split design, :func:`.comparisons.split_correlation`);
- ``reports/benchmark.json``: the whole metric tensor with seeds, config and cell facts, its
  every history in ``reports/benchmark.histories.json.gz`` beside it (:func:`.persistence.split`;
  ``BenchmarkReport.from_json`` joins them and re-analyses it);
- ``reports/summary.csv``, ``reports/pairwise_t.csv``,
  ``reports/pairwise_wilcoxon.csv``, ``reports/power.csv``,
  ``reports/equivalence.csv``, ``reports/selected_epochs.csv``,
  ``reports/posthoc.csv`` (both post-hoc tests across tasks),
  ``reports/bayesian.csv`` (Bayesian signed-rank across tasks, correlated
  t-test per task): tables;
- ``reports/summary.tex``, ``reports/pairwise.tex``: booktabs tables;
- ``plots/critical_difference.png``/``.svg``, ``plots/learning_curves.png``, ``plots/tuning_curves.png``,
  ``plots/mean_ranks.csv``/``.png``, and per task family (:mod:`.figure_files`)
  ``plots/dashboard_<family>.png``, ``plots/forest_<family>.png`` and
  ``plots/pairwise_<family>.png`` (a family without tasks: a figure saying so);
- ``reports/REPORT.md``: the readable report (:mod:`netzbench.report.markdown`);
- ``reports/site/``: the results as a self-contained static site (:mod:`netzbench.report.site`); a
  task page the build did not write (a task dropped) is removed once the new site is in place.

Every statistic they share is computed once per build
(:func:`~netzbench.report.facts.collect_facts`).

All or nothing (:class:`~netzbench.records.StagedFiles`): the statistics are
computed first; then each output is built and written to a hidden temporary
file beside its target (``.<name>.*.tmp``, fsynced), one after another; only
when every one of them is written are they renamed over the published files.
A failure anywhere before that -- a full disk, a figure that raises -- removes
the temporaries and leaves every previously published output byte for byte as
it was. (Under ``dvc repro``, DVC itself deletes these ``cache: false`` outputs
before the command runs; git keeps their published versions.)

``settings.report`` (params.yaml's ``report`` block) drives it: ``alpha``, ``ci``, ``ci_method``,
``bootstrap_n``, ``pairwise_method``, ``epoch_selection`` (through
:meth:`BenchmarkReport.from_runs`), ``aggregation`` (the mean ranks of
``plots/mean_ranks.*``; the CD diagram and the Friedman test are always the
uniform ones, the only aggregation with a null distribution),
``equivalence_margin`` (the TOST table and the Bayesian ROPE) and
``posthoc`` (``nemenyi`` or ``wilcoxon_holm``: where the CD diagram's
cliques come from; REPORT.md shows both tests) and ``baselines``
(``separate`` or ``include``: whether the baselines -- MLP, the link
heuristics -- enter the across-task analysis; :mod:`.baselines`).  An optional ``report.weights``
mapping ``{task: weight}`` feeds ``aggregation: custom``.
"""

from __future__ import annotations

import csv
import json
import logging
import math
import multiprocessing
import os
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from ..errors import RecordError
from ..identity import code_version
from ..records import StagedFiles
from ..settings import Settings
from ..stats import VERDICTS
from ..stats._common import to_plain
from . import persistence
from .benchmark import BenchmarkReport
from .facts import ReportFacts, collect_facts
from .figure_files import written_families
from .figures import figure_bytes, plot_message
from .figures.curves import tuning_curves_figure
from .formatting import number, p_value
from .informative import without_flagged_json
from .markdown import render_markdown
from .memo import computed_once
from .paper import CELL_FIELDS as PAPER_CELL_FIELDS
from .series import task_metrics
from .site import SITE, prune_stale, write_site

log = logging.getLogger(__name__)

SUMMARY_COLUMNS = ["task", "model", "metric", "direction", "mean", "std", "sem", "n_seeds", "lo", "hi",
                   "half_width", "ci", "ci_method", "status", "clipped"]
PAIRWISE_COLUMNS = ["task", "model_a", "model_b", "direction", "mean_diff", "sigma_d", "cohens_dz", "p_raw",
                    "p_holm", "significant", "better", "n_seeds", "dropped_seeds", "method", "note", "degenerate"]
EQUIVALENCE_COLUMNS = ["task", "model_a", "model_b", "mean_diff", "n_seeds", "margin", "p_lower", "p_upper",
                       "p_tost", "p_tost_holm", "equivalent", "p_diff_holm", "pairwise_method", "verdict", "note"]
AUDIT_COLUMNS = ["task", "model", "seed", "selection", "index", "epoch", "value", "validation"]
POSTHOC_COLUMNS = ["method", "model_a", "model_b", "mean_rank_a", "mean_rank_b", "statistic", "p_raw", "p_holm",
                   "p_adjusted", "significant", "better", "n_tasks", "wins_a", "wins_b", "degenerate", "note"]
BAYESIAN_COLUMNS = ["scope", "task", "model_a", "model_b", "mean_diff", "p_a_better", "p_rope", "p_b_better", "rope",
                    "rho", "n_tasks", "n_seeds", "n_samples", "seed", "degenerate", "note"]
#: the reference implementation's cells, run here (benchmarks/side_by_side.py)
REFERENCE_CELLS = Path("benchmarks/reference_cells.json")
#: the protocol study (netzbench protocols)
STUDY = Path("reports/protocol_study.json")
#: what netzbench controls and netzbench seeds write (read where present; not DVC dependencies, since
#: most runs have neither: `netzbench report` or `dvc repro -f report` after running them)
CONTROLS = Path("reports/controls.json")
SEED_PLAN = Path("reports/seed_plan.json")

def _num(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _csv_value(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, float) and not math.isfinite(v):
        return ""
    if isinstance(v, (list, tuple)):
        return ";".join(str(x) for x in v)
    return v


def _write_csv(out: StagedFiles, path: Path, rows: list[dict], columns: list[str]) -> None:
    with out.open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({c: _csv_value(r.get(c)) for c in columns})


def missing_cells(report: BenchmarkReport) -> list[dict]:
    """Cells (task, model) without a complete set of ok seeds, with the reason."""
    return report.missing()


def _verdict_counts(rows: list[dict]) -> dict[str, int]:
    counts = {v: 0 for v in VERDICTS}
    for r in rows:
        counts[r["verdict"]] += 1
    return counts


def report_metrics(facts: ReportFacts) -> dict:
    """The ``metrics/report.json`` dict of one build (JSON-safe: NaN becomes null)."""
    report, fr, cost = facts.report, facts.friedman, facts.cost
    cells: dict[str, dict] = {}
    flags = facts.flags  # collapsed / degenerate / leakage, with reasons and counts (report/degenerate.py)
    for row in facts.summary:
        cells.setdefault(row["task"], {})[row["model"]] = {
            "mean": _num(row["mean"]), "lo": _num(row["lo"]), "hi": _num(row["hi"]), "n_seeds": row["n_seeds"],
            "flags": flags.get((row["task"], row["model"]), {})}
    agg = {"name": facts.aggregation, "mean_ranks": {}}
    if facts.aggregation in facts.mean_ranks:
        agg["mean_ranks"] = {m: _num(r) for m, r in facts.mean_ranks[facts.aggregation].items()}
    else:  # e.g. custom without weights: said in REPORT.md, uniform stays the headline
        agg["error"] = facts.mean_rank_errors[facts.aggregation]
    pw = facts.headline_pairwise
    out = {
        "friedman": {"chi2": _num(fr["chi2"]), "p_value": _num(fr["p_value"]),
                     "iman_davenport_f": _num(fr["iman_davenport_f"]),
                     "iman_davenport_p": _num(fr["iman_davenport_p"]),
                     "chi2_tie_corrected": _num(fr["chi2_tie_corrected"]),
                     "p_value_tie_corrected": _num(fr["p_value_tie_corrected"])},
        "posthoc": {"cliques_from": report.posthoc_method,
                    "significant_pairs": {m: sum(r["significant"] for r in rows) for m, rows in facts.posthoc.items()}},
        "cd": _num(fr["cd"]), "alpha": report.alpha, "k": fr["k"], "n_tasks": fr["n_tasks"],
        "mean_ranks": {m: _num(r) for m, r in fr["mean_ranks"].items()},
        "max_gap": _num(fr["max_gap"]), "n_for_observed_gap": fr["n_for_observed_gap"],
        "excluded_from_ranks": fr["excluded"],
        "aggregation": agg,
        "cells": cells,
        "significant_pairs": sum(r["significant"] for r in pw), "n_pairs": len(pw),
        "candidate": facts.candidate_block,
        "missing": {f"{m['task']}/{m['model']}": m["status"] for m in facts.missing},
        "unavailable_tasks": facts.unavailable,
        "tasks_without_results": facts.without_results,
        "compute": {"total_seconds": round(cost["total_seconds"], 3), "n_timed_seeds": cost["n_timed"],
                    "wall_seconds": None if cost["wall_seconds"] is None else round(cost["wall_seconds"], 3)},
        "paper_comparison": {**facts.paper_overlap, "cells": {f"{r['task']}/{r['model']}": {
            k: _num(r[k]) for k in PAPER_CELL_FIELDS} for r in facts.paper_rows}},  # the criteria: report/paper.py
        "collapsed_cells": [f"{c['task']}/{c['model']}" for c in facts.collapsed],
        "degenerate_cells": [f"{c['task']}/{c['model']}" for c in facts.degenerate],
        "leaking_cells": [f"{c['task']}/{c['model']}" for c in facts.leakage],
        "below_constant_cells": [f"{c['task']}/{c['model']}" for c in facts.below_constant],
        # tasks no model informs: left out of the ranks, Friedman/Nemenyi and the Bayesian comparison (.informative)
        "uninformative_tasks": facts.uninformative,
        "across_tasks_without_flagged": without_flagged_json(facts.without_flagged),
        "options": report.options(),
        "result_code": (report.config or {}).get("code"),  # what trained it (report/publication.py)
    }
    if facts.equivalence is not None:
        out["equivalence_verdicts"] = _verdict_counts(facts.equivalence)
    out["baselines"] = baseline_metrics(facts)
    # every claim REPORT.md states, with the protocol variants it holds and fails under (report/conclusions.py)
    out["conclusions"] = facts.conclusions["claims"]
    out["conclusions_basis"] = facts.conclusions["basis"]
    if facts.bayesian is not None:
        out["bayesian"] = {f"{r['model_a']} vs {r['model_b']}": {k: _num(r[k]) for k in
                                                                 ("p_a_better", "p_rope", "p_b_better")}
                           for r in facts.bayesian["across_tasks"]}
        # the per-task correlated t-tests: their decisions at PROBABLE and each task's rho with its split design
        out["bayesian_per_task"] = {**facts.bayesian["per_task_counts"],
                                    "rho": facts.bayesian["split_design"] or facts.bayesian["rho"]}
    if facts.questions:  # structure controls, tuning budgets, seed rounds: only where the run has them
        out["questions"] = to_plain(facts.questions)
    return out


#: the per-task fields of ``report.json``'s ``baselines`` block (rows of :func:`.baselines.comparison`)
BASELINE_FIELDS = ("best_gnn", "gnn_mean", "best_baseline", "baseline_kind", "baseline_mean", "mean_diff", "p_raw",
                   "p_holm", "n_seeds", "significant", "verdict", "structure_free", "structure_p_holm",
                   "rewards_structure", "structure_free_better", "structure_only", "structure_only_p_holm",
                   "structure_only_beats_free", "structure_free_beats_only")


def baseline_metrics(facts: ReportFacts) -> dict:
    """``report.json``'s ``baselines`` block: the mode, the baseline models and their kinds, and per task
    the best GNN against the best baseline (``verdict``) and whether the task rewards structure."""
    return {"mode": facts.report.baseline_mode, "models": dict(facts.baseline_kinds),
            "method": facts.report.pairwise_method,
            "per_task": {r["task"]: {k: _num(r[k]) for k in BASELINE_FIELDS}
                         for r in facts.baseline_comparison if r["verdict"] != "no_comparison"}}


def compact_metrics(metrics: dict) -> dict:
    """``metrics/headline.json``, the file DVC shows as metrics: per task each model's mean (rounded
    to 4 digits, cells without results left out), the mean ranks, the Friedman p and the candidate's
    wins/losses/ties, so that ``dvc exp show`` has a column per number a reader compares across experiments
    and nothing else (the full headline stays in ``metrics/report.json``)."""
    def r4(v):
        return None if v is None else round(v, 4)

    out = {"friedman_p": r4(metrics["friedman"]["p_value"]),
           "mean_rank": {m: r4(v) for m, v in metrics["mean_ranks"].items()},
           "mean": {t: {m: r4(c["mean"]) for m, c in by_model.items() if c["mean"] is not None}
                    for t, by_model in metrics["cells"].items()
                    if any(c["mean"] is not None for c in by_model.values())}}
    cand = metrics.get("candidate") or {}
    if cand.get("name"):
        out["candidate"] = {"wins": cand["wins"], "losses": cand["losses"], "ties": cand["ties"],
                            "mean_rank": r4(cand.get("mean_rank"))}
    return out


def bayesian_rows(bayes: dict | None) -> list[dict]:
    """``reports/bayesian.csv``: the across-task rows (``scope = across_tasks``), then the per-task ones."""
    if bayes is None:
        return []
    common = {"n_samples": bayes["n_samples"], "seed": bayes["seed"]}
    rows = [{"scope": "across_tasks", **common, **r} for r in bayes["across_tasks"]]
    return rows + [{"scope": "task", **r} for r in bayes["per_task"]]


def headline_metrics(report: BenchmarkReport, candidate: str | None, roster: list[str], *,
                     aggregation: str = "uniform", weights: dict | None = None) -> dict:
    """The ``metrics/report.json`` dict of ``report`` on its own (:func:`report_metrics` of fresh facts)."""
    return report_metrics(collect_facts(report, candidate, roster, aggregation=aggregation, weights=weights))


def _safe_figure(make, message: str):
    """``make()``, or a figure stating why there is nothing to draw (outputs must always exist)."""
    try:
        return make()
    except ValueError as exc:
        return plot_message(f"{message}: {exc}")


#: where an output goes: its path under the report's root (``reports/summary.csv``) -> the file (None: not written)
Place = Callable[[str], "Path | None"]


def _write_tables(facts: ReportFacts, out: StagedFiles, place: Place) -> None:
    """The CSV and booktabs tables under ``reports/``."""
    report = facts.report

    def csv_(rel, rows, columns):
        if place(rel) is not None:
            _write_csv(out, place(rel), rows, columns)

    csv_("reports/summary.csv", facts.summary, SUMMARY_COLUMNS)
    for method, rows in facts.pairwise.items():
        csv_(f"reports/pairwise_{method}.csv", rows, PAIRWISE_COLUMNS)
    power_rows = facts.power
    power_cols = ["task", "model_a", "model_b", "mean_diff", "sigma_d", "n_seeds", "mde", "observed_power",
                  "detectable", "power"] + [c for c in (power_rows[0] if power_rows else {}) if
                                            c.startswith("seeds_needed_")]
    if not power_rows:
        power_cols += ["seeds_needed_0.02", "seeds_needed_0.01", "seeds_needed_0.005"]
    power_cols.append("degenerate")
    csv_("reports/power.csv", power_rows, power_cols)
    csv_("reports/equivalence.csv", facts.equivalence or [], EQUIVALENCE_COLUMNS)
    csv_("reports/selected_epochs.csv", report.selected_epochs(table=True), AUDIT_COLUMNS)
    csv_("reports/posthoc.csv", [r for rows in facts.posthoc.values() for r in rows], POSTHOC_COLUMNS)
    csv_("reports/bayesian.csv", bayesian_rows(facts.bayesian), BAYESIAN_COLUMNS)
    for rel, render in (("reports/summary.tex", report.to_latex), ("reports/pairwise.tex", report.pairwise_to_latex)):
        if place(rel) is not None:
            out.write_text(place(rel), render())


@contextmanager
def _drawing_figures(facts: ReportFacts, out: StagedFiles, place: Place):
    """``plots/``: the mean ranks of the configured aggregation (CSV) and every figure. The figures are
    drawn while the block runs (in forked workers where there are cores: the stage writes its site and
    REPORT.md meanwhile) and written when it ends."""
    report, aggregation, weights, candidate = facts.report, facts.aggregation, facts.weights, facts.candidate
    uniform = facts.friedman["mean_ranks"]
    rank_rows = sorted(((m, r) for m, r in facts.mean_ranks.get(aggregation, {}).items() if math.isfinite(r)),
                       key=lambda kv: kv[1])
    if place("plots/mean_ranks.csv") is not None:
        _write_csv(out, place("plots/mean_ranks.csv"),
                   [{"model": m, "mean_rank": round(r, 6), "aggregation": aggregation,
                     "uniform_mean_rank": round(uniform.get(m, math.nan), 6)} for m, r in rank_rows],
                   ["model", "mean_rank", "aggregation", "uniform_mean_rank"])
    figures = {
        "critical_difference": (lambda: report.plot_critical_difference(candidate=candidate),
                                "no critical-difference diagram",
                                ("png", "svg")),
        "mean_ranks": (lambda: report.plot_mean_ranks(aggregation, **({"weights": weights}
                                                                      if aggregation == "custom" else {})),
                       "no mean ranks", ("png",)),
        "learning_curves": (report.plot_learning_curves, "no learning curves", ("png",)),
        "tuning_curves": (lambda: tuning_curves_figure(facts.questions.get("tuning", {}), report.models,
                                                       task_metrics(report.task_info)),
                          "no tuning-budget curves (a search over a non-empty search.space records every trial)", ("png",)),
    }
    for family in written_families(report):  # one file per family: each stays about 3,000 px at most
        figures[f"dashboard_{family}"] = (lambda f=family: report.plot_dashboard(candidate=candidate, family=f),
                                          "no dashboard", ("png",))
        figures[f"forest_{family}"] = (lambda f=family: report.plot_forest(candidate, family=f), "no forest plot",
                                       ("png",))
        figures[f"pairwise_{family}"] = (lambda f=family: report.plot_pairwise("matrix", family=f),
                                         "no pairwise comparison", ("png",))
    # the costliest first (each pairwise figure runs its family's paired tests), so the pool ends on small ones
    order = sorted(figures, key=lambda name: next((i for i, kind in enumerate(_COSTLIEST) if name.startswith(kind)),
                                                  len(_COSTLIEST)))
    jobs = [(place(f"plots/{name}"), *figures[name]) for name in order if place(f"plots/{name}") is not None]
    with _rendering(jobs) as rendered:
        yield
        for (target, _, _, _), files in zip(jobs, rendered()):
            for fmt, data in files.items():
                with out.open(target.parent / f"{target.name}.{fmt}", "wb") as fh:
                    fh.write(data)


#: kinds of figure, the costliest to draw first (measured on the headline: 0.3-0.7 s each against 0.02-0.1 s)
_COSTLIEST = ("pairwise", "learning_curves", "dashboard", "forest")
#: the figures the report stage renders, while a pool renders them (forked children read it)
_JOBS: list = []


def _render_one(i: int) -> dict[str, bytes]:
    target, make, message, formats = _JOBS[i]
    fig = _safe_figure(make, message)
    files = {}
    for fmt in formats:
        try:
            files[str(fmt)] = figure_bytes(fig, fmt)
        except OSError as exc:  # said of the output it was for (a pool hands the error back to the stage)
            raise OSError(exc.errno, exc.strerror or str(exc), f"{target}.{fmt}") from exc
    return files


def figure_workers() -> int:
    """Processes that render the report's figures at once: ``$NETZBENCH_FIGURE_WORKERS``, else one per core
    up to 4 (each a fork of the stage, sharing its computed facts; 1 renders them here)."""
    configured = os.environ.get("NETZBENCH_FIGURE_WORKERS")
    return max(1, int(configured)) if configured else max(1, min(4, os.cpu_count() or 1))


@contextmanager
def _rendering(jobs: list):
    """Yields a function that returns each figure's files (format -> bytes), in order. Rendering is most of
    the stage's time and the figures are independent, so where there are cores they are drawn in forked
    processes (the same bytes), started here and running while the caller's block does other work."""
    global _JOBS
    workers = min(figure_workers(), len(jobs))
    _JOBS = jobs
    try:
        if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
            yield lambda: [_render_one(i) for i in range(len(jobs))]
            return
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            pending = pool.map_async(_render_one, range(len(jobs)), chunksize=1)
            yield pending.get
    finally:
        _JOBS = []


def _plot_links(markdown: str, place: Place, root: Path) -> str:
    """REPORT.md with its figure links pointing at where ``place`` puts ``plots/`` (written as ``../plots/``), and
    its data file named where ``place`` puts it under ``root`` (``reports/strict/benchmark.json``, say)."""
    md, plots, data = place("reports/REPORT.md"), place("plots/x"), place("reports/benchmark.json")
    if data is not None and Path(os.path.abspath(data)).is_relative_to(os.path.abspath(root)):
        rel = Path(os.path.relpath(data, root)).as_posix().removesuffix(".json")
        markdown = markdown.replace("reports/benchmark.json", rel + ".json").replace("reports/benchmark.histories",
                                                                                   rel + ".histories")
    if md is None or plots is None:
        return markdown
    rel = Path(os.path.relpath(plots.parent, md.parent)).as_posix()
    return markdown if rel == "../plots" else markdown.replace("](../plots/", f"]({rel}/")


def write_outputs(report: BenchmarkReport, settings: Settings, candidate: str | None,
                  out_dir: str | Path = ".", reference: dict | None = None, study: dict | None = None, *,
                  staging: StagedFiles | None = None, place: Place | None = None, controls: dict | None = None,
                  seed_plan: dict | None = None) -> dict:
    """Write every report artefact, all or nothing (see the module docstring); return the headline metrics.
    ``reference``, ``study``, ``controls`` and ``seed_plan``: see :func:`~netzbench.report.facts.collect_facts`.

    ``place(rel)`` maps an output's path under ``out_dir`` to where it goes (None: left out); default
    ``out_dir / rel``. ``staging``: stage the files there and leave the commit to its owner (the
    protocol study publishes its strict report with its own file); default: renamed into place here.
    """
    root = Path(out_dir)
    place = place or (lambda rel: root / rel)
    rep = settings.report
    report.posthoc_method = rep.posthoc  # the CD diagram's cliques
    report.baseline_mode = rep.baselines  # are baselines ranked?
    # every statistic computed once: the facts, the figures, the tables and the text share each result
    with computed_once(report), nullcontext(staging) if staging is not None else StagedFiles() as out:
        facts = collect_facts(report, candidate, list(settings.models), aggregation=rep.aggregation,
                              weights=None if rep.weights is None else dict(rep.weights),
                              reference=reference, study=study, controls=controls, seed_plan=seed_plan,
                              code=code_version() if study is not None else None)  # another result code's: stale
        metrics = report_metrics(facts)
        # the figures are drawn (forked workers) while everything else is written: the metrics, the
        # metric tensor, the tables, the site and REPORT.md
        with _drawing_figures(facts, out, place):
            for rel, obj, indent in (("metrics/report.json", metrics, 2),
                                     ("metrics/headline.json", compact_metrics(metrics), 1)):
                if place(rel) is not None:
                    out.write_json(place(rel), obj, indent=indent)
            if place("reports/benchmark.json") is not None:
                persistence.write_split(report.to_dict(), place("reports/benchmark.json"), out)  # + its histories
            _write_tables(facts, out, place)
            site = place(f"{SITE}/index.html")
            site_files = write_site(facts, out, site.parent) if site is not None else []
            if place("reports/REPORT.md") is not None:
                out.write_text(place("reports/REPORT.md"), _plot_links(render_markdown(facts), place, root))
        # leaving the block without an exception renames everything into place (a given staging: its owner)
    if site_files and staging is None:
        prune_stale(site.parent, site_files)

    fr, unavailable = facts.friedman, facts.unavailable
    if unavailable:
        log.info(f"report: DATA UNAVAILABLE for {len(unavailable)} task(s): {', '.join(unavailable)}; "
                 f"their cells are reported as missing and the ranks use the N = {fr['n_tasks']} tasks present")
    if facts.failed_tasks:
        log.info(f"report: NO RESULTS for {len(facts.failed_tasks)} task(s): {', '.join(facts.failed_tasks)} "
                 f"(every run failed or is missing); the ranks use the N = {fr['n_tasks']} tasks present")
    log.info(f"report: N = {fr['n_tasks']} tasks, k = {fr['k']} models, Friedman p = {p_value(fr['p_value'])}, "
             f"CD = {number(fr['cd'])}; {len(facts.missing)} missing cell(s)")
    return metrics


def read_optional_json(path: Path) -> dict | None:
    """The JSON at ``path``, or None when there is no such file; a torn one is a :class:`RecordError`
    naming it (the report stops before writing anything)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, nested too deeply
        raise RecordError(f"{path}: not readable JSON ({exc if isinstance(exc, ValueError) else 'nested too deeply'}): "
                          f"a torn or hand-edited file; restore it (`git checkout -- {path}`) or regenerate "
                          "it") from None


def run_report_stage(settings: Settings, root: str | Path = ".") -> dict:
    """What ``netzbench report`` does: read the roster's records under ``root``, write the report there
    (with the reference implementation's cells and the protocol study, where present)."""
    root = Path(root)
    report = BenchmarkReport.from_runs(root / "metrics/runs", params=settings, candidate_dir=root / "metrics/candidate")
    candidate = report.config.get("candidate")
    from .publication import published_state  # which published artefacts another result code made

    for s in published_state(root):
        if s["stale"] and s["path"] != "reports/benchmark.json":  # this stage rewrites that one
            log.warning(f"report: the published {s['name']} ({s['path']}) is of result code "
                        f"{(s['recorded'] or 'unrecorded')[:19]}, not this checkout's {s['current'][:8]}: "
                        f"republish it (`{s['remedy']}`, or `make publish`), or mark it (`netzbench stale --mark --docs`)")
    if candidate is None and settings.candidate.model in settings.models and not settings.candidate.args:
        candidate = settings.candidate.model  # in_roster: the candidate block uses the roster cells
    return write_outputs(report, settings, candidate, out_dir=root,
                         reference=read_optional_json(root / REFERENCE_CELLS), study=read_optional_json(root / STUDY),
                         controls=read_optional_json(root / CONTROLS), seed_plan=read_optional_json(root / SEED_PLAN))
