"""A task's leaderboard on the site: the models under test ranked by mean, with CI, significance group and
flags, and the baselines and the constant predictor apart, all read from the report's facts.

The significance group is the best model's: the models whose paired difference from the best (the
headline paired test, Holm within the task: :attr:`ReportFacts.headline_pairwise`) is not
significant share it (``same``); the others are ``separated``. The best is the best mean among the
models under test (REPORT.md's bold cell, :func:`~netzbench.report.markdown.text.winners`). Flags and
the protocol marks are REPORT.md's (:mod:`netzbench.report.markdown.flags`, ``.robustness``).
"""

from __future__ import annotations

import math

from ..facts import ReportFacts
from ..markdown.baselines import KIND_NAMES
from ..markdown.flags import MARKS, WORDS
from ..markdown.per_task import BASELINE_NAMES
from ..markdown.robustness import mark as protocol_mark
from ..markdown.text import cell_text, label, winners
from ..series import metric_label
from ..within_task import TEST_NAMES

#: the best GNN against the best baseline (:func:`netzbench.report.baselines.comparison`), in words
VERDICTS = {"gnn_better": "the best GNN is significantly better",
            "baseline_better": "the baseline is significantly better",
            "not_significant": "no significant difference"}


def _flags(facts: ReportFacts, task: str, model: str) -> list[dict]:
    return [{"mark": MARKS[kind], "word": WORDS[kind], "reason": flag["reason"]}
            for kind, flag in facts.flags.get((task, model), {}).items()]


def _cell(facts: ReportFacts, task: str, model: str) -> dict:
    """A cell's numbers (None where it has no result, with REPORT.md's text for why)."""
    report = facts.report
    r = facts.nested.get(task, {}).get(model)
    status = report.cell_status(task, model)
    has = r is not None and r["n_seeds"] > 0 and math.isfinite(r["mean"])
    return {"model": model, "label": label(report, model), "candidate": model == facts.candidate,
            "mean": r["mean"] if has else None, "lo": r["lo"] if has else None, "hi": r["hi"] if has else None,
            "half_width": r["half_width"] if has and math.isfinite(r["half_width"]) else None,
            "clipped": bool(has and r.get("clipped")), "n_seeds": r["n_seeds"] if r else 0,
            "status": None if has else cell_text(r, status, len(report.seeds)),
            "flags": _flags(facts, task, model) if has else [], "protocol_mark": ""}


def _ordered(rows: list[dict], direction: str) -> list[dict]:
    """Best mean first (the metric's direction), cells without a result last; each with its place."""
    sign = -1.0 if direction == "higher" else 1.0
    rows = sorted(rows, key=lambda r: (r["mean"] is None, sign * (r["mean"] or 0.0)))
    for i, r in enumerate(rows, 1):
        r["place"] = i if r["mean"] is not None else None
    return rows


def _group(row: dict, best: str | None, pairs: dict) -> None:
    """``row``'s significance group against the best model (``pairs``: the task's headline comparisons)."""
    row["group"], row["p_vs_best"], row["diff_vs_best"] = None, None, None
    if best is None or row["mean"] is None:
        return
    if row["model"] == best:
        row["group"] = "best"
        return
    r = pairs.get(frozenset((row["model"], best)))
    if r is None or not math.isfinite(r["p_holm"]):
        return
    row["group"] = "separated" if r["significant"] else "same"
    row["p_vs_best"] = r["p_holm"]
    row["diff_vs_best"] = r["mean_diff"] if r["model_a"] == row["model"] else -r["mean_diff"]


def leaderboard(facts: ReportFacts, task: str) -> dict:
    """The task's leaderboard (see the module docstring)."""
    report, kinds = facts.report, facts.baseline_kinds
    info = report.task_info[task]
    gnns = [m for m in report.models if m not in kinds]
    rows = _ordered([_cell(facts, task, m) for m in gnns], info.direction)
    means = {r["model"]: facts.nested[task][r["model"]] for r in rows if r["mean"] is not None}
    best_set = winners(info.direction, means)
    best = next((m for m in gnns if m in best_set), None)
    pairs = {frozenset((r["model_a"], r["model_b"])): r for r in facts.headline_pairwise if r["task"] == task}
    for row in rows:
        _group(row, best, pairs)
        row["protocol_mark"] = (protocol_mark(facts, "best_model", task, *[m for m in gnns if m in best_set]).strip()
                                if row["model"] in best_set else "")
    baselines = _ordered([_cell(facts, task, m) for m in report.models if m in kinds], info.direction)
    for row in baselines:
        row["kind"] = KIND_NAMES.get(kinds[row["model"]], kinds[row["model"]]).split(" (")[0]
    constant = facts.baselines.get(task)
    verdict = next((r for r in facts.baseline_comparison if r["task"] == task), None)
    return {
        "task": task, "category": info.category, "family": info.family, "metric": metric_label(info.metric),
        "direction": info.direction, "arrow": "↑" if info.direction == "higher" else "↓", "rows": rows,
        "best": best, "has_results": bool(means), "status": _status(report, task) if not means else None,
        "baselines": baselines, "n_seeds": len(report.seeds),
        "constant": {"name": BASELINE_NAMES.get(constant["name"], constant["name"]), "value": constant["value"]}
        if constant else None,
        "verdict": None if verdict is None or verdict["verdict"] == "no_comparison" else {
            **verdict, "words": VERDICTS[verdict["verdict"]],
            "best_gnn_label": label(report, verdict["best_gnn"]),
            "best_baseline_label": label(report, verdict["best_baseline"])},
        "test": TEST_NAMES[report.pairwise_method], "alpha": report.alpha, "ci": report.ci,
    }


def _status(report, task: str) -> str:
    """Why a task has no result at all: its cells' reasons (an unavailable dataset, failed runs)."""
    reasons = {report.cell_reason(task, m) for m in report.histories[task]}
    return "; ".join(sorted(r for r in reasons if r)) or "no results"
