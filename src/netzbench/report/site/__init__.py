"""``reports/site/``: the results as a self-contained static site, from the facts REPORT.md is written from.

- ``index.html``: the scope, the conclusions with their robustness across protocols, mean ranks
  (bars and table), the Friedman decision and the CD diagram, the candidate against the roster, and a
  sortable leaderboard per task (:mod:`.leaderboard`, :mod:`.overview`);
- ``tasks/<task>.html``: a task's leaderboard, learning curves, pairwise matrix, both paired tests,
  equivalence verdicts and dataset figures (:mod:`.task_page`);
- ``paper.html``: the comparison with the paper's Table 3 and paper vs strict, when present;
- ``critical_difference.svg`` (the report's CD diagram), ``site.css``, ``site.js``.

Nothing is fetched at view time (no font, no script, no data file: the numbers are in the pages), so
the folder opens from ``file://`` on an offline machine and serves from any static host. The pages are
Jinja2 templates (``templates/``, :mod:`.rendering`); the learning curves and bars are drawn here as
SVG (:mod:`.drawing`), REPORT.md's text sections converted from its Markdown (:mod:`.markup`).
"""

from __future__ import annotations

import re
from pathlib import Path

from ...records import StagedFiles
from ..facts import ReportFacts
from ..figures import save_figure
from .leaderboard import leaderboard
from .overview import candidate, conclusions, paper, ranks, scope
from .rendering import asset, render_page
from .task_page import curves, dataset, equivalence, pairwise

__all__ = ["SITE", "build_site", "prune_stale", "write_site"]

#: where the report stage writes the site, under its root
SITE = "reports/site"
#: the site's CD diagram (the report's, as SVG)
CD_DIAGRAM = "critical_difference.svg"


def task_files(tasks: list[str]) -> dict[str, str]:
    """Each task's page, ``tasks/<name>.html``: the task id with anything but letters, digits, ``.``,
    ``_`` and ``-`` replaced (numbered where two would meet)."""
    out: dict[str, str] = {}
    for t in tasks:
        stem = re.sub(r"[^A-Za-z0-9._-]+", "-", t).strip(".-") or "task"
        name, i = stem, 2
        while f"tasks/{name}.html" in out.values():
            name, i = f"{stem}-{i}", i + 1
        out[t] = f"tasks/{name}.html"
    return out


def build_site(facts: ReportFacts, cd_error: str | None = None) -> dict[str, str]:
    """Every text file of the site, by its path under the site's folder; ``cd_error``: why there is no CD
    diagram (None: :data:`CD_DIAGRAM` is written beside the pages)."""
    report = facts.report
    files = task_files(report.tasks)
    boards = {t: leaderboard(facts, t) for t in report.tasks}
    extra = paper(facts)
    common = {"nav": [{"task": t, "href": files[t]} for t in report.tasks], "has_paper": extra is not None,
              "n_seeds": len(report.seeds)}
    out = {"index.html": render_page(
        "index", root="", here="index", scope=scope(facts), conclusions=conclusions(facts), ranks=ranks(facts),
        candidate=candidate(facts), boards=[(boards[t], files[t]) for t in report.tasks],
        cd=None if cd_error else CD_DIAGRAM, cd_error=cd_error, n_tasks=facts.friedman["n_tasks"],
        n_models=len(report.models), **common)}
    for t in report.tasks:
        out[files[t]] = render_page("task", root="../", here=t, board=boards[t], curves=curves(facts, t),
                                    pairwise=pairwise(facts, t), equivalence=equivalence(facts, t),
                                    dataset=dataset(facts, t), **common)
    if extra is not None:
        out["paper.html"] = render_page("paper", root="", here="paper", paper=extra, **common)
    out["site.css"], out["site.js"] = asset("site.css"), asset("site.js")
    return out


def write_site(facts: ReportFacts, out: StagedFiles, folder: Path) -> list[Path]:
    """Stage the site under ``folder`` (the pages, the assets and the CD diagram); return its files."""
    cd_error = None
    try:
        figure = facts.report.plot_critical_difference(candidate=facts.candidate)
    except ValueError as exc:  # too few models or tasks: the page says why
        figure, cd_error = None, str(exc)
    written = []
    for rel, text in build_site(facts, cd_error).items():
        out.write_text(folder / rel, text)
        written.append(folder / rel)
    if figure is not None:
        written += save_figure(figure, folder / CD_DIAGRAM, formats=("svg",), staging=out)
    return written


def prune_stale(folder: Path, written: list[Path]) -> list[Path]:
    """Remove the task pages under ``folder`` that the last build did not write (a task dropped from the
    benchmark), once the new site is in place; return them."""
    keep = {p.resolve() for p in written}
    stale = [p for p in sorted((folder / "tasks").glob("*.html")) if p.resolve() not in keep]
    for p in stale:
        p.unlink()
    return stale
