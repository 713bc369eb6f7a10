"""Report options as validated properties: a bad value raises ``ValueError`` and never lands on the report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..settings import Settings


def option(name: str, check: Callable[[Any, str], Any]) -> property:
    """A report option stored as ``_<name>`` and validated by ``check(value, name)`` whenever it is set,
    so a bad value raises ``ValueError`` and never lands on the report."""
    attr = "_" + name

    def set_option(self, value) -> None:
        setattr(self, attr, check(value, name))

    return property(lambda self: getattr(self, attr), set_option)


def one_of(choices: Sequence[str]) -> Callable[[Any, str], Any]:
    """A check for :func:`option`: the value must be one of ``choices``."""

    def check(value, name: str):
        if value not in choices:
            raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
        return value

    return check


def options_from_settings(settings: Settings, tasks: Sequence[str] | None = None) -> dict[str, Any]:
    """The :class:`~netzbench.report.BenchmarkReport` options that ``settings.report`` sets, for a report
    of ``tasks`` (default ``settings.tasks``; the ranked ones follow ``rank_tasks``/``rank_exclude``).
    The one place settings become report options: the report stage and the protocol study's strict
    report read them here."""
    rep = settings.report
    out = {"ci_method": rep.ci_method, "bootstrap_n": rep.bootstrap_n, "pairwise_method": rep.pairwise_method,
           "epoch_selection": rep.epoch_selection, "alpha": rep.alpha, "ci": rep.ci,
           "posthoc_method": rep.posthoc, "baseline_mode": rep.baselines, "equivalence_margin": rep.equivalence_margin}
    ranked, _ = rep.ranked_tasks(settings.tasks if tasks is None else tasks)
    if ranked is not None:
        out["rank_tasks"] = ranked
    return out
