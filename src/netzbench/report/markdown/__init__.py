"""``reports/REPORT.md``: the readable report for a careful researcher, one function per section.

Each section function computes the values its text needs from the facts (and builds its tables); the
text itself is a Jinja2 macro in ``templates/<module>.md.j2``, rendered by :mod:`.templating`.

:func:`render_markdown` assembles, from the :class:`~netzbench.report.facts.ReportFacts`
of one build and the parameters of the run:

0. what holds under every protocol: the claims below that hold under both protocols of the protocol
   study, and those that depend on it (:mod:`.robustness`, after the title and warnings; unnumbered, so
   the numbers below stay those of earlier reports);
1. protocol (:mod:`.protocol`);
2. results per task (the paper's Table 3 layout: mean ± CI, best per row, CI
   overlap with the winner; the baselines' block and, per task, whether the
   best GNN beats the best baseline, :mod:`.baselines`), 3. significant differences, 4. paired t and
   Wilcoxon side by side: where they disagree, in every family, and node classification in the paper's
   Table 2 layout (:mod:`.per_task`);
5. across tasks: Friedman (textbook and tie-corrected), CD diagram (Figure 3)
   with a plain-language reading, Nemenyi and Wilcoxon–Holm post-hoc tests
   side by side, the Bayesian comparison in words (:mod:`.comparisons`),
   aggregations, rank stability (:mod:`.across_tasks`);
6. power floor, 7. equivalence verdicts (:mod:`.evidence`);
8. candidate, 9. missing cells, 10. compute cost, 13. files (:mod:`.bookkeeping`);
11. comparison with the paper's Table 3 and the reference implementation run
    here, with the measured cause of every miss, 12. paper vs strict: what
    each protocol switch does (:mod:`.paper_comparison`);
14. the three questions, where the run answers them: structure controls, tuning budgets, seed rounds
    (:mod:`.questions`; after the files, so the numbers of earlier reports stay).

Every number comes from the facts, computed once under the report's current
options, so the text always matches the tables and figures written next to it.
"""

from __future__ import annotations

from ..facts import ReportFacts
from ..formatting import inert_html
from .across_tasks import across_tasks
from .bookkeeping import candidate, compute_cost, files, missing_cells
from .evidence import equivalence, power_floor
from .paper_comparison import paper_comparison, protocol_study
from .per_task import paired_tests, results_per_task, significant_differences
from .protocol import header, protocol
from .questions import questions
from .robustness import robustness

__all__ = ["render_markdown"]


def render_markdown(facts: ReportFacts) -> str:
    """The whole REPORT.md text (see the module docstring)."""
    sections = [header(facts), robustness(facts), protocol(facts), results_per_task(facts),
                significant_differences(facts), paired_tests(facts), across_tasks(facts), power_floor(facts),
                equivalence(facts), candidate(facts), missing_cells(facts), compute_cost(facts),
                paper_comparison(facts), protocol_study(facts), files(), questions(facts)]
    return inert_html("\n".join(line for section in sections for line in section))  # user text is text
