"""REPORT.md sections 8-10 and 13: the candidate, missing cells, compute cost and the list of files.

The tables are built here; the text is ``templates/bookkeeping.md.j2``.
"""

from __future__ import annotations

from ..cost import gpu_cells
from ..facts import ReportFacts
from ..within_task import TEST_NAMES
from .robustness import dependent, legend
from .templating import duration, render
from .text import label, table


def candidate(facts: ReportFacts) -> list[str]:
    """Section 8: the candidate's mean rank and significant wins/losses against the roster."""
    moved = dependent(facts, "candidate") if facts.candidate_block.get("name") else []
    return render("bookkeeping", "candidate", cand=facts.candidate_block,
                  pw_name=TEST_NAMES[facts.report.pairwise_method], moved=moved, legend=legend(facts, moved))


def missing_cells(facts: ReportFacts) -> list[str]:
    """Section 9: tasks without data or results, and every cell without a complete set of ok seeds."""
    report = facts.report
    rows = [[f"`{m['task']}`", label(report, m["model"]), m["status"], f"{m['n_ok']}/{len(report.seeds)}",
             (m["reason"] or "").replace("|", "\\|").replace("\n", " ")] for m in facts.missing]
    return render("bookkeeping", "missing_cells", unavailable=facts.unavailable, failed=facts.failed_tasks,
                  n_tasks=facts.friedman["n_tasks"],
                  table=table(["task", "model", "status", "ok seeds", "reason"], rows, "lllrl") if rows else [])


def _cost_table(cost: dict, group: str, name) -> list[str]:
    """Elapsed and summed training time per task or model (``group``, each shown as ``name(group)``),
    largest first."""
    tot = cost["total_seconds"]
    wall_by = cost[f"wall_by_{group}"]
    rows = [[name(g), duration(wall_by[g]) if g in wall_by else "n/a", duration(s),
             f"{s / tot:.1%}" if tot else "n/a"]
            for g, s in sorted(cost[f"by_{group}"].items(), key=lambda kv: -kv[1])]
    return table([group, "elapsed", "summed over seeds", "share of compute"], rows, "lrrr")


def compute_cost(facts: ReportFacts) -> list[str]:
    """Section 10: elapsed and summed training time, split by task and by model; the cells trained on a GPU."""
    cost = facts.cost
    tables = (_cost_table(cost, "task", "`{}`".format) + [""]
              + _cost_table(cost, "model", lambda m: label(facts.report, m))) if cost["n_timed"] else []
    gpus = {name: [f"`{task}`/{label(facts.report, model)}" for task, model in cells]
            for name, cells in gpu_cells(facts.report.cells).items()}
    return render("bookkeeping", "compute_cost", cost=cost, tables=tables, gpus=gpus)


def files() -> list[str]:
    """Section 13: what the report stage writes, and the protocol study beside it."""
    return render("bookkeeping", "files")
