"""Which cells and tasks have results, and why not: statuses and reasons from the run records.

``cells[task][model]`` holds the facts of a cell that are not histories, as
read from its run record: ``status`` (``ok``/``partial``/``failed``/
``incompatible``/``unavailable``/``missing``), ``reason``, and per seed a
status, reason or error.  For hand-built reports without cell facts the
status is derived from the histories (``histories[task][model]``: one
history or None per seed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..records import cell_status as status_of_seeds

Cells = Mapping[str, Mapping[str, Mapping]]
Histories = Mapping[str, Mapping[str, list]]


def cell_status(cells: Cells, histories: Histories, task: str, model: str) -> str:
    """The run record's status when known, else ``ok``/``partial``/``missing`` from the histories
    (``"no cell"`` when the model has no entry for the task at all)."""
    cell = cells.get(task, {}).get(model)
    if cell and cell.get("status"):
        return str(cell["status"])
    runs = histories.get(task, {}).get(model)
    if runs is None:
        return "no cell"  # the model does not serve this task (no cell was created)
    return status_of_seeds(["ok" if h is not None else "missing" for h in runs]) if runs else "ok"


def cell_reason(cells: Cells, task: str, model: str) -> str:
    """Why a cell has no (or incomplete) results: the record's reason, else its failed seeds' reasons."""
    cell = cells.get(task, {}).get(model) or {}
    if cell.get("reason"):
        return str(cell["reason"])
    reasons = sorted({str(f.get("reason") or f.get("error") or f.get("status"))
                      for f in (cell.get("seeds") or {}).values() if f.get("status") != "ok"})
    return "; ".join(reasons)


def missing(cells: Cells, histories: Histories) -> list[dict]:
    """Cells without a complete set of ok seeds: ``{task, model, status, reason, n_ok}``."""
    out = []
    for task, by_model in histories.items():
        for model, runs in by_model.items():
            status = cell_status(cells, histories, task, model)
            n_ok = sum(h is not None for h in runs)
            if status == "ok" and n_ok == len(runs):
                continue
            out.append({"task": task, "model": model, "status": status,
                        "reason": cell_reason(cells, task, model), "n_ok": n_ok})
    return out


def tasks_without_results(cells: Cells, histories: Histories, present: Sequence[str]) -> dict[str, str]:
    """The tasks not in ``present`` (no model has a value), with the reason(s) of their cells."""
    out = {}
    for t in histories:
        if t in present:
            continue
        reasons = sorted({cell_reason(cells, t, m) or cell_status(cells, histories, t, m) for m in histories[t]})
        out[t] = "; ".join(r for r in reasons if r) or "no results"
    return out


def unavailable_tasks(cells: Cells, histories: Histories, without_results: Mapping[str, str]) -> dict[str, str]:
    """The tasks of ``without_results`` whose data could not be obtained (a cell with status ``unavailable``)."""
    return {t: why for t, why in without_results.items()
            if any(cell_status(cells, histories, t, m) == "unavailable" for m in histories[t])}
