"""The per-cell figures (dashboard, forest plot) come one file per task family: which families a report
has, and which of its tasks and models each family's figures show.

One figure of every task grows with the run (the 68 catalogue tasks make a dashboard 12,000 px wide);
per family each stays within about 3,000 px (15 in at the report's 200 dpi) and its tasks share a kind of
metric. The report stage writes ``plots/dashboard_<family>.png`` and ``plots/forest_<family>.png`` for every
family of :data:`FAMILIES` (a family the run has no task of gets a figure saying so: DVC declares each
file), REPORT.md shows the families the run has. No matplotlib here: REPORT.md needs the list too.
"""

from __future__ import annotations

from collections.abc import Sequence

#: the task families, in the order the report shows them (netzbench.families.TASK_TYPES)
FAMILIES = ("node_cls", "graph_cls", "graph_reg", "link_pred")
FAMILY_NAMES = {"node_cls": "node classification", "graph_cls": "graph classification",
                "graph_reg": "graph regression", "link_pred": "link prediction"}
#: the tasks whose records name no family of :data:`FAMILIES` (hand-built reports)
OTHER = "other"


def family_of(report, task: str) -> str:
    """The family ``task``'s figures belong to: its own, or :data:`OTHER`."""
    family = report.task_info[task].family
    return family if family in FAMILIES else OTHER


def family_name(family: str) -> str:
    """``"link prediction"`` for ``"link_pred"``; :data:`OTHER` and unknown names as given."""
    return FAMILY_NAMES.get(family, family)


def family_tasks(report, family: str | None, with_results: bool = False) -> list[str]:
    """The tasks of ``family`` (None: every task) in the report's order; ``with_results``: only those on
    which a model has a value."""
    present = set(report.present_tasks()) if with_results else None
    return [t for t in report.tasks if (family is None or family_of(report, t) == family)
            and (present is None or t in present)]


def figure_families(report) -> list[str]:
    """The families of :data:`FAMILIES` with a task in ``report``, in that order, then :data:`OTHER` when a
    task with results names none of them. (A task without any run record names no family either; it has
    nothing to draw, and REPORT.md's missing cells say why.)"""
    present = set(report.present_tasks())
    found = {family_of(report, t) for t in report.tasks}
    out = [f for f in FAMILIES if f in found]
    if any(family_of(report, t) == OTHER and t in present for t in report.tasks):
        out.append(OTHER)
    return out


def written_families(report) -> list[str]:
    """The families the report stage draws files for: all of :data:`FAMILIES`, and :data:`OTHER` if shown."""
    return list(FAMILIES) + ([OTHER] if OTHER in figure_families(report) else [])


def family_models(report, tasks: Sequence[str]) -> list[str]:
    """The report's models that serve ``tasks``: each with a cell on one of them that is not
    ``incompatible`` (a link heuristic stays out of the node-classification figures; a model that failed
    keeps its slot), in the report's order; every model when none does."""
    serving = [m for m in report.models
               if any(report.cell_status(t, m) not in ("incompatible", "no cell") for t in tasks)]
    return serving or list(report.models)
