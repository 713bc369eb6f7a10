"""``netzbench exps``: the experiments of ``dvc exp run`` side by side, one row each, in the terminal's width.

``dvc exp show`` prints a column per parameter and per metric (a ten-model roster on eight tasks is over
200 columns), and a row does not say which tasks the experiment ran. This reads what ``dvc exp show
--json`` reports (DVC 3: a list of commits, the workspace first, each with the experiments run on it) and
keeps what a reader compares: the candidate (``model``), protocol, seeds, tasks, and from
``metrics/headline.json`` the candidate's mean rank, wins and losses, the Friedman p and the model ranked
first. :func:`experiment_rows` is a pure function of that JSON; :func:`render` lays the rows out so that
the tasks column takes the width the others leave and wraps, never the other way round.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

PARAMS = "params.yaml"
METRICS = "metrics/headline.json"


class ExperimentsError(RuntimeError):
    """``dvc exp show`` could not be run or gave no table (not a DVC repository, DVC missing)."""


@dataclass(frozen=True)
class ExperimentRow:
    """One line of the table: a commit (``kind`` ``workspace`` or ``commit``) or an experiment on one."""

    name: str
    kind: str
    rev: str
    created: str | None
    candidate: str | None
    protocol: str | None
    seeds: int | None
    tasks: list[str] = field(default_factory=list)
    same_tasks_as_baseline: bool = False
    rank: float | None = None
    wins: int | None = None
    losses: int | None = None
    ties: int | None = None
    friedman_p: float | None = None
    first: str | None = None  # the model with the best (lowest) mean rank
    error: str | None = None


def _file_data(data: Mapping | None, section: str, path: str) -> tuple[dict, str | None]:
    """``(contents, error)`` of one params or metrics file in a ``dvc exp show --json`` entry."""
    entry = ((data or {}).get(section) or {}).get(path) or {}
    if "data" in entry:
        return dict(entry["data"] or {}), None
    err = entry.get("error") or {}
    return {}, (err.get("msg") or err.get("type")) if err else None


def _short_model(model: Any, model_args: Any) -> str | None:
    """``SkipGCN`` for ``user_models.skipgcn:SkipGCN``; a roster variant with its arguments (``GAT{heads: 4}``)."""
    if not model:
        return None
    name = str(model).rsplit(":", 1)[-1].rsplit(".", 1)[-1] if ":" in str(model) else str(model)
    if model_args:
        args = ", ".join(f"{k}: {v}" for k, v in dict(model_args).items())
        name += "{" + args + "}"
    return name


def _number(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def _row(entry: Mapping, kind: str, name: str, baseline_tasks: list[str] | None) -> ExperimentRow:
    data = entry.get("data")
    params, params_error = _file_data(data, "params", PARAMS)
    metrics, metrics_error = _file_data(data, "metrics", METRICS)
    top_error = entry.get("error") or {}
    error = (top_error.get("msg") if top_error else None) or params_error or metrics_error
    tasks = [str(t) for t in (params.get("tasks") or [])]
    ranks = {m: _number(r) for m, r in (metrics.get("mean_rank") or {}).items()}
    ranked = sorted((r, m) for m, r in ranks.items() if r is not None)
    cand = metrics.get("candidate") or {}
    overrides = params.get("protocol_overrides") or {}
    protocol = params.get("protocol")
    if protocol and overrides:
        protocol = f"{protocol}+{len(overrides)}"  # the overridden switches: `dvc exp show` lists them
    seeds = params.get("seeds")
    return ExperimentRow(
        name=name, kind=kind, rev=str(entry.get("rev") or ""), created=(data or {}).get("timestamp"),
        candidate=_short_model(params.get("model"), params.get("model_args")), protocol=protocol,
        seeds=len(seeds) if isinstance(seeds, list) else None, tasks=tasks,
        same_tasks_as_baseline=baseline_tasks is not None and bool(tasks) and tasks == baseline_tasks,
        rank=_number(cand.get("mean_rank")), wins=cand.get("wins"), losses=cand.get("losses"),
        ties=cand.get("ties"),
        friedman_p=_number(metrics.get("friedman_p")), first=ranked[0][1] if ranked else None, error=error)


def experiment_rows(show: Sequence[Mapping]) -> list[ExperimentRow]:
    """The rows of ``dvc exp show --json`` output ``show``: the workspace, then each commit followed by the
    experiments run on it (newest first, as DVC lists them). An experiment whose tasks equal its
    baseline commit's says so instead of repeating them (``same_tasks_as_baseline``)."""
    rows: list[ExperimentRow] = []
    for entry in show:
        if entry.get("rev") == "workspace":
            rows.append(_row(entry, "workspace", "workspace", None))
            continue
        base = _row(entry, "commit", str(entry.get("name") or str(entry.get("rev", ""))[:7]), None)
        rows.append(base)
        for group in entry.get("experiments") or []:
            for rev in group.get("revs") or []:  # a queued or checkpointed experiment has several
                name = str(rev.get("name") or str(rev.get("rev", ""))[:7])
                rows.append(_row(rev, "experiment", name, base.tasks))
    return rows


def read_show(cwd: str | Path | None = None, all_commits: bool = False) -> list[dict]:
    """``dvc exp show --json`` run in ``cwd`` (the DVC next to this Python first, then the one on PATH)."""
    here = Path(sys.executable).with_name("dvc")
    dvc = str(here) if here.is_file() else shutil.which("dvc")
    if dvc is None:
        raise ExperimentsError("dvc is not installed here (pip install dvc, or run `make setup`)")
    cmd = [dvc, "exp", "show", "--json", *(["--all-commits"] if all_commits else [])]
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env={**os.environ, "DVC_NO_ANALYTICS": "1"})
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ExperimentsError(f"`dvc exp show --json` failed: {tail[0]}")
    try:
        show = json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        raise ExperimentsError(f"`dvc exp show --json` printed no JSON: {exc}") from None
    if not isinstance(show, list):
        raise ExperimentsError("`dvc exp show --json` printed an unexpected shape (a list of commits expected)")
    return show


def _fmt(v: float | None, digits: int) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def _p_text(p: float | None) -> str:
    if p is None:
        return "-"
    return f"{p:.3f}" if p >= 1e-3 else f"{p:.0e}"


_MIN_TASKS_W = 30  # narrower, the tasks column would hold one name per line: they go below the row instead


def render(rows: Sequence[ExperimentRow], width: int | None = None) -> str:
    """The table, at most ``width`` columns (default the terminal's; 100 when it is not one): experiment,
    candidate, protocol, seeds, the candidate's rank and wins/losses, Friedman p, the model ranked first,
    then the tasks, wrapped into what is left (on lines of their own below each row when under 30 columns
    are left)."""
    width = width or shutil.get_terminal_size((100, 24)).columns
    header = ["experiment", "candidate", "protocol", "seeds", "rank", "W/L/T", "friedman_p", "first"]
    cells = []
    for r in rows:
        name = r.name if r.kind != "experiment" else f"└ {r.name}"
        wl = "-" if r.wins is None else "/".join("?" if v is None else str(v) for v in (r.wins, r.losses, r.ties))
        cells.append([name, r.candidate or "-", r.protocol or "-", "-" if r.seeds is None else str(r.seeds),
                      _fmt(r.rank, 2), wl, _p_text(r.friedman_p), r.first or "-"])
    caps = [28, 22, 12, 5, 5, 8, 10, 16]  # a longer name is cut with "…": the full one is in `dvc exp show`
    cells = [[c if len(c) <= cap else c[: cap - 1] + "…" for c, cap in zip(row, caps)] for row in cells]
    widths = [max(len(row[i]) for row in [header, *cells]) for i in range(len(header))]
    fixed = sum(widths) + 2 * len(widths)
    beside = width - fixed >= _MIN_TASKS_W  # else each row's tasks go on indented lines below it
    task_w = width - fixed if beside else width - 4
    right = {3, 4, 5, 6}

    def line(values: Sequence[str], tasks: str = "") -> str:
        out = [v.rjust(w) if i in right else v.ljust(w) for i, (v, w) in enumerate(zip(values, widths))]
        return ("  ".join(out) + "  " + tasks).rstrip()

    lines = [line(header, "tasks" if beside else ""), "-" * (width if beside else fixed - 2)]
    for r, values in zip(rows, cells):
        if r.error and not r.tasks:
            text = f"({r.error})"
        elif r.same_tasks_as_baseline:
            text = f"as its baseline ({len(r.tasks)})"
        else:
            text = f"{len(r.tasks)}: " + ", ".join(r.tasks) if r.tasks else "-"
        if r.error and r.tasks:
            text += f" ({r.error})"  # e.g. no metrics/headline.json: the experiment did not finish
        wrapped = textwrap.wrap(text, task_w, break_on_hyphens=False) or ["-"]
        if beside:
            lines.append(line(values, wrapped[0]))
            lines.extend(line([""] * len(values), more) for more in wrapped[1:])
        else:
            lines.append(line(values))
            lines.extend(f"    {'tasks ' if i == 0 else '      '}{more}" for i, more in
                         enumerate(textwrap.wrap(text, task_w - 6, break_on_hyphens=False) or ["-"]))
    lines.append("rank: the candidate's mean rank among the ranked models (1 = best); W/L/T: its wins, losses "
                 "and ties against the roster (paired tests, Holm within task); first: the model ranked first")
    return "\n".join(textwrap.fill(ln, width) if ln.startswith("rank:") else ln for ln in lines)


def rows_json(rows: Sequence[ExperimentRow]) -> str:
    return json.dumps([asdict(r) for r in rows], indent=2)
