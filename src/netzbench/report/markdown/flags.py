"""How REPORT.md shows a flagged cell (:mod:`netzbench.report.degenerate`): a mark in the tables, the
reasons in a list under section 2's table, and the flag in words beside any verdict that rests on it
(the wording: ``templates/flags.md.j2``)."""

from __future__ import annotations

from ..degenerate import FEW_DISTINCT
from ..facts import ReportFacts
from .templating import phrase, render
from .text import label

#: the mark each flag puts after a cell's number (‡: collapsed, as before)
MARKS = {"collapsed": "‡", "degenerate": "≡", "leakage": "⊗"}
#: each flag in words, where a verdict names it
WORDS = {"collapsed": "collapsed", "degenerate": "degenerate", "leakage": "sees held-out edges"}


def marks(facts: ReportFacts, task: str, model: str) -> str:
    """The marks of the cell's flags, each after a space (empty when the cell has none)."""
    return "".join(f" {MARKS[k]}" for k in facts.flags.get((task, model), {}))


def words(facts: ReportFacts, task: str, model: str | None) -> list[str]:
    """The cell's flags in words (the channels a leaking cell saw held-out edges through included)."""
    out = []
    for kind, flag in facts.flags.get((task, model), {}).items():
        out.append(f"{WORDS[kind]} ({', '.join(flag['channels'])})" if kind == "leakage" else WORDS[kind])
    return out


def caveat(facts: ReportFacts, task: str, models: list[str | None], inside: bool = False) -> str:
    """``" (flagged: GCN and MLP — sees held-out edges (structural_features))"`` for the flagged ``models``
    of a verdict on ``task``, models with the same flags named together (``inside`` a parenthesis:
    ``"; flagged: ..."``); empty when none is flagged."""
    groups: dict[str, list[str]] = {}
    for m in dict.fromkeys(models):
        if words(facts, task, m):
            groups.setdefault(" and ".join(words(facts, task, m)), []).append(label(facts.report, m))
    return phrase("flags", "caveat", groups=groups, inside=inside)


def marks_legend() -> str:
    """Section 2's legend of the marks, in one paragraph."""
    return phrase("flags", "legend", few_distinct=FEW_DISTINCT)


def flag_list(facts: ReportFacts) -> list[str]:
    """Section 2's list of the flagged cells in table order, one line per task and set of reasons (cells of a
    task flagged for the same reasons named together), with every flag's reason and seed counts."""
    groups: dict[tuple[str, str], list[str]] = {}
    report = facts.report
    order = {key: i for i, key in enumerate((t, m) for t in report.tasks for m in report.models)}
    for (task, model), by_kind in sorted(facts.flags.items(), key=lambda kv: order.get(kv[0], len(order))):
        reasons = "; ".join(f"{MARKS[k]} {flag['reason']}" for k, flag in by_kind.items())
        groups.setdefault((task, reasons), []).append(label(facts.report, model))
    return render("flags", "flag_list", groups=[(task, models, reasons) for (task, reasons), models in groups.items()])


def convergence_list(facts: ReportFacts) -> list[str]:
    """Section 2's list of the cells not converged (:mod:`netzbench.report.convergence`), in table order,
    cells of a task with the same reason named together; no lines when every cell converged."""
    groups: dict[tuple[str, str], list[str]] = {}
    for row in facts.not_converged:
        groups.setdefault((row["task"], row["reason"]), []).append(label(facts.report, row["model"]))
    return render("flags", "convergence_list", groups=[(t, models, why) for (t, why), models in groups.items()])
