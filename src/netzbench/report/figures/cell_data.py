"""What the per-cell figures (bars, forest plot, dashboard) read from a report: the cells of its tasks
under the current ``ci_method``, each task's metric label, direction and range, the baselines, and the
tasks and models a family's figures show (:mod:`netzbench.report.figure_files`)."""

from __future__ import annotations

from ..figure_files import family_models, family_name, family_tasks
from ..series import metric_label, metric_range
from ..within_task import nested_summary


def present_cells(report, tasks=None) -> dict[str, dict[str, dict]]:
    """``{task: {model: cell}}`` of the tasks with results (of ``tasks``, default all); ValueError when none."""
    present = set(report.present_tasks())
    keep = [t for t in (report.tasks if tasks is None else tasks) if t in present]
    nested = nested_summary(report.summary())
    if not keep:
        raise ValueError("no task has results")
    return {t: nested[t] for t in keep}


def metric_labels(report, prefix: bool = True) -> dict[str, str]:
    """Each task's metric as shown (``test ROC-AUC``; ``prefix=False``: ``ROC-AUC``)."""
    return {t: metric_label(i.metric) if prefix else metric_label(i.metric).replace("test ", "")
            for t, i in report.task_info.items()}


def directions(report) -> dict[str, str]:
    return {t: i.direction for t, i in report.task_info.items()}


def ranges(report) -> dict[str, tuple[float, float]]:
    return {t: metric_range(i.metric) for t, i in report.task_info.items()}


def interval_text(report) -> str:
    """``95% t-CI`` or ``95% bootstrap-CI``: the interval the figures draw."""
    return f"{report.ci:.0%} {'t' if report.ci_method == 't' else 'bootstrap'}-CI"


def family_selection(report, family: str | None) -> tuple[list[str], list[str], str]:
    """The tasks (every one of the family, with results or not), the models that serve them and the
    family's name for a title (None: every task and model, no name); ValueError when it has no task."""
    tasks = family_tasks(report, family)
    if not tasks:
        raise ValueError(f"the run has no {family_name(family)} task")
    if family is None:
        return tasks, list(report.models), ""
    return tasks, family_models(report, tasks), family_name(family)
