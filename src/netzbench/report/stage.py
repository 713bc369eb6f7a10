"""The ``report`` stage: run records in, the published report out.

Writes (all small, committed to git, ``cache: false`` in dvc.yaml):

- ``metrics/report.json``: headline numbers for ``dvc metrics``/``dvc exp show``
  (Friedman chi2 and p, CD, k, N, mean ranks, per-cell mean and CI, the
  candidate block, the missing cells);
- ``reports/benchmark.json``: the whole metric tensor with seeds, config and
  every history (``BenchmarkReport.from_json`` re-analyses it);
- ``reports/summary.csv``, ``reports/pairwise_t.csv``,
  ``reports/pairwise_wilcoxon.csv``: per-cell and per-pair tables;
- ``plots/critical_difference.png``/``.svg``, ``plots/mean_ranks.csv``/``.png``;
- ``reports/REPORT.md``: the readable report.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

from ..training.record import write_json_atomic
from .core import BenchmarkReport


def _num(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _fmt(v: Any, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def _fmt_p(p: Any) -> str:
    if p is None or (isinstance(p, float) and not math.isfinite(p)):
        return "n/a"
    return f"{p:.3g}"


def _write_csv(path: Path, rows: list[dict], columns: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({c: ("" if r.get(c) is None else r.get(c)) for c in columns})


def missing_cells(report: BenchmarkReport) -> list[dict]:
    """Cells (task, model) without a complete set of ok seeds, with the reason."""
    out = []
    for task, by_model in report.cells.items():
        for model, cell in by_model.items():
            if cell.get("status") == "ok":
                continue
            reasons = sorted({f.get("reason") or f.get("error") or f["status"] for f in cell.get("seeds", {}).values()
                              if f["status"] != "ok"})
            out.append({"task": task, "model": model, "status": cell.get("status"),
                        "reason": cell.get("reason") or "; ".join(reasons)})
    return out


def headline_metrics(report: BenchmarkReport, candidate: str | None, roster: list[str]) -> dict:
    fr = report.friedman()
    cells: dict[str, dict] = {}
    for row in report.summary():
        cells.setdefault(row["task"], {})[row["model"]] = {
            "mean": _num(row["mean"]), "lo": _num(row["lo"]), "hi": _num(row["hi"]), "n_seeds": row["n_seeds"]}
    return {
        "friedman": {"chi2": _num(fr["chi2"]), "p_value": _num(fr["p_value"]),
                     "iman_davenport_f": _num(fr["iman_davenport_f"]),
                     "iman_davenport_p": _num(fr["iman_davenport_p"])},
        "cd": _num(fr["cd"]), "alpha": report.alpha, "k": fr["k"], "n_tasks": fr["n_tasks"],
        "mean_ranks": {m: _num(r) for m, r in fr["mean_ranks"].items()},
        "max_gap": _num(fr["max_gap"]), "n_for_observed_gap": fr["n_for_observed_gap"],
        "excluded_from_ranks": fr["excluded"],
        "cells": cells,
        "candidate": report.candidate_block(candidate, roster),
        "missing": {f"{m['task']}/{m['model']}": m["status"] for m in missing_cells(report)},
        "options": report.options(),
    }


def render_markdown(report: BenchmarkReport, metrics: dict, params: dict) -> str:
    fr = report.friedman()
    lines = ["# netzbench report", ""]
    lines += ["## Protocol", ""]
    train = params["train"]
    lines.append(f"- Tasks ({len(report.tasks)}): " + ", ".join(report.tasks))
    lines.append(f"- Models: {', '.join(params['models'])}"
                 + (f"; candidate: **{metrics['candidate']['name']}**" if metrics["candidate"]["name"] else ""))
    lines.append(f"- Seeds: {len(report.seeds)} ({', '.join(map(str, report.seeds))}); hidden channels "
                 f"{train['hidden_channels']}; full-batch Adam")
    for fam in ("node_cls", "graph_cls", "graph_reg", "link_pred"):
        lines.append(f"  - {fam}: lr {train[fam]['lr']}, weight decay {train[fam].get('weight_decay', 0)}")
    lines.append("- Epochs: " + ", ".join(f"{t} {train['epochs'][t]}" for t in report.tasks if t in train["epochs"]))
    lines.append(f"- Epoch selection: `{report.epoch_selection}`; CI: {int(report.ci * 100)}% `{report.ci_method}`; "
                 f"pairwise test: `{report.pairwise_method}` with Holm correction within each task; alpha = {report.alpha}")
    if params["data"]["on_missing"] == "skip":
        lines.append("- `data.on_missing: skip`: a task whose data cannot be obtained is reported as missing "
                     "and the ranks use the tasks present.")
    lines.append("")

    lines += ["## Results per task (mean ± CI half-width over seeds)", ""]
    models = report.models
    lines.append("| task | metric | " + " | ".join(models) + " |")
    lines.append("|---|---|" + "---|" * len(models))
    summary = {(r["task"], r["model"]): r for r in report.summary()}
    for t in report.tasks:
        info = report.task_info[t]
        vals = {m: summary[(t, m)]["mean"] for m in models if (t, m) in summary}
        finite = {m: v for m, v in vals.items() if isinstance(v, float) and math.isfinite(v)}
        best = None
        if finite:
            best = (max if info.direction == "higher" else min)(finite, key=finite.get)
        cells = []
        for m in models:
            r = summary.get((t, m))
            if r is None or r["n_seeds"] == 0:
                cells.append("—")
                continue
            text = f"{r['mean']:.3f}" + (f" ± {r['half_width']:.3f}" if math.isfinite(r["half_width"]) else " (1 seed, no CI)")
            cells.append(f"**{text}**" if m == best else text)
        arrow = "↑" if info.direction == "higher" else "↓"
        lines.append(f"| {t} | {info.metric} {arrow} | " + " | ".join(cells) + " |")
    lines.append("")

    sig = [r for r in report.pairwise() if r["significant"]]
    lines += [f"## Significant paired differences (Holm-corrected {report.pairwise_method} test, alpha = {report.alpha})", ""]
    if sig:
        lines.append("| task | model a | model b | Δ mean (a − b) | d_z | p (Holm) | seeds |")
        lines.append("|---|---|---|---|---|---|---|")
        for r in sig:
            lines.append(f"| {r['task']} | {r['model_a']} | {r['model_b']} | {r['mean_diff']:+.4f} | "
                         f"{_fmt(r['cohens_dz'], 2)} | {_fmt_p(r['p_holm'])} | {r['n_seeds']} |")
    else:
        lines.append("No pairwise difference is significant after Holm correction.")
    lines.append("")

    lines += ["## Across tasks: Friedman test and critical-difference diagram", ""]
    if fr["k"] >= 2 and fr["n_tasks"] >= 1:
        ranks = ", ".join(f"{m} {r:.2f}" for m, r in sorted(fr["mean_ranks"].items(), key=lambda kv: kv[1]))
        lines.append(f"Mean ranks over N = {fr['n_tasks']} tasks and k = {fr['k']} models (1 = best): {ranks}.")
        lines.append("")
        lines.append(f"Friedman χ² = {fr['chi2']:.3f} (df = {fr['k'] - 1}), p = {_fmt_p(fr['p_value'])}; "
                     f"Iman–Davenport F = {_fmt(fr['iman_davenport_f'])}, p = {_fmt_p(fr['iman_davenport_p'])}. "
                     f"Nemenyi CD at alpha = {report.alpha}: {fr['cd']:.3f}.")
        lines.append("")
        if len(fr["cliques"]) == 1 and len(fr["cliques"][0]) == fr["k"]:
            reading = ("All models fall within one clique: no model's mean rank differs from another's by more "
                       "than the CD, so the benchmark does not establish any ordering at this alpha.")
        elif fr["max_gap"] > fr["cd"]:
            reading = ("At least one pair of models differs in mean rank by more than the CD; models not joined "
                       "by a clique bar are significantly different (Nemenyi).")
        else:
            reading = "No pair differs by more than the CD."
        lines.append(reading + " The diagram speaks about average rank across tasks, not about the size of "
                     "the metric differences on any one task; a rank difference on a small task counts as much "
                     "as one on a large task.")
        if fr["n_for_observed_gap"] and fr["max_gap"] <= fr["cd"]:
            lines.append(f"The largest observed gap ({fr['max_gap']:.2f}) would become significant at about "
                         f"N = {fr['n_for_observed_gap']} tasks, if it persisted.")
        lines.append("")
        lines.append("![critical difference diagram](../plots/critical_difference.png)")
    else:
        lines.append(f"Not enough complete models or tasks for a Friedman test (k = {fr['k']}, N = {fr['n_tasks']}).")
    if fr["excluded"]:
        lines.append("")
        lines.append("Excluded from the ranks (a model must have results on every task present): "
                     + "; ".join(f"{m} ({why})" for m, why in fr["excluded"].items()) + ".")
    lines.append("")

    cand = metrics["candidate"]
    if cand["name"]:
        lines += ["## Candidate", ""]
        lines.append(f"**{cand['name']}**: mean rank {_fmt(cand['mean_rank'], 2)} over {cand['n_tasks']} task(s); "
                     f"against the roster: {cand['wins']} significant wins, {cand['losses']} significant losses, "
                     f"{cand['ties']} not significant (Holm-corrected paired tests).")
        lines.append("")

    missing = missing_cells(report)
    lines += ["## Missing cells", ""]
    if missing:
        lines.append("| task | model | status | reason |")
        lines.append("|---|---|---|---|")
        for m in missing:
            lines.append(f"| {m['task']} | {m['model']} | {m['status']} | {m['reason']} |")
    else:
        lines.append("None: every cell has results for every seed.")
    lines.append("")
    return "\n".join(lines)


def write_outputs(report: BenchmarkReport, params: dict, candidate: str | None, echo=print) -> dict:
    """Write every report artefact (see the module docstring); return the headline metrics."""
    from . import plots

    roster = list(params["models"])
    metrics = headline_metrics(report, candidate, roster)
    write_json_atomic("metrics/report.json", metrics, indent=2)
    Path("reports").mkdir(exist_ok=True)
    report.to_json("reports/benchmark.json")

    cols = ["task", "model", "metric", "direction", "mean", "std", "sem", "n_seeds", "lo", "hi", "half_width",
            "ci_method"]
    _write_csv(Path("reports/summary.csv"), report.summary(), cols)
    pcols = ["task", "model_a", "model_b", "mean_diff", "sigma_d", "cohens_dz", "p_raw", "p_holm", "significant",
             "n_seeds", "note"]
    for method in ("t", "wilcoxon"):
        _write_csv(Path(f"reports/pairwise_{method}.csv"), report.pairwise(method), pcols)

    fr = report.friedman()
    Path("plots").mkdir(exist_ok=True)
    rank_rows = sorted(fr["mean_ranks"].items(), key=lambda kv: kv[1])
    _write_csv(Path("plots/mean_ranks.csv"), [{"model": m, "mean_rank": round(r, 6)} for m, r in rank_rows],
               ["model", "mean_rank"])
    friedman = {"chi2": fr["chi2"], "p_value": fr["p_value"], "n_tasks": fr["n_tasks"]}
    if fr["k"] >= 2:
        fig = plots.plot_critical_difference(fr["mean_ranks"], fr["cd"], [tuple(c) for c in fr["cliques"]],
                                             friedman=friedman,
                                             title=f"Critical difference diagram (α = {report.alpha})")
        fig_r = plots.plot_mean_ranks(fr["mean_ranks"], cd=fr["cd"])
    else:
        fig = plots.plot_critical_difference({m: 1.0 for m in fr["models"]} or {"(no complete model)": 1.0}, None, [],
                                             diagnostic_label=f"not enough complete models (k = {fr['k']})")
        fig_r = plots.plot_mean_ranks(fr["mean_ranks"] or {"(none)": float("nan")})
    plots.save_figure(fig, "plots/critical_difference", formats=("png", "svg"))
    plots.save_figure(fig_r, "plots/mean_ranks", formats=("png",))

    Path("reports/REPORT.md").write_text(render_markdown(report, metrics, params), encoding="utf-8")
    echo(f"report: N = {fr['n_tasks']} tasks, k = {fr['k']} models, Friedman p = {_fmt_p(fr['p_value'])}, "
         f"CD = {_fmt(fr['cd'])}; {len(missing_cells(report))} missing cell(s)")
    return metrics


def run_report_stage(params: dict, echo=print) -> dict:
    """What ``netzbench report`` does: read the roster's records, write the report."""
    report = BenchmarkReport.from_runs("metrics/runs", params=params, candidate_dir="metrics/candidate")
    candidate = report.config.get("candidate")
    if candidate is None and params["model"] in params["models"] and not params["model_args"]:
        candidate = params["model"]  # in_roster: the candidate block uses the roster cells
    return write_outputs(report, params, candidate, echo=echo)
