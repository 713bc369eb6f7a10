"""The statistics of one report build, computed once and shared by every writer.

``metrics/report.json``, the CSV tables, the console lines and every section
of REPORT.md read the same :class:`ReportFacts`, built by :func:`collect_facts`
under the report's current options, so they cannot disagree and nothing is
computed twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .comparisons import cliques
from .conclusions import collect as collect_conclusions
from .convergence import not_converged
from .degenerate import below_constant, cell_flags
from .degenerate import degenerate as degenerate_cells
from .degenerate import leakage as leaking_cells
from .informative import uninformative_tasks, without_flagged
from .paper import counts as paper_counts
from .paper import load_paper_table
from .questions import question_answers
from .reproduction import comparison, study_effects
from .within_task import nested_summary, paired_agreement

#: the mean-rank aggregations REPORT.md tabulates (``report.aggregation`` is added when another)
AGGREGATIONS = ("uniform", "reliability", "hierarchical", "custom")


@dataclass(frozen=True)
class ReportFacts:
    """Everything the writers need from one :class:`~netzbench.report.BenchmarkReport`."""

    report: Any
    candidate: str | None
    roster: list[str]
    aggregation: str
    weights: dict | None
    summary: list[dict]
    nested: dict[str, dict[str, dict]]
    pairwise: dict[str, list[dict]]  # per paired test: "t", "wilcoxon"
    friedman: dict[str, Any]
    mean_ranks: dict[str, dict[str, float]]  # per aggregation that is defined
    mean_rank_errors: dict[str, str]  # per aggregation that is not: why
    power: list[dict]
    wilcoxon_floor: list[dict]
    equivalence: list[dict] | None
    equivalence_error: str | None
    candidate_block: dict[str, Any]
    missing: list[dict]
    present: list[str]
    without_results: dict[str, str]
    unavailable: dict[str, str]
    cost: dict[str, Any]
    baselines: dict[str, dict]  # per task: what a constant predictor scores on the test sets
    collapsed: list[dict]  # cells with constant test predictions in most seeds
    reproduction: list[dict]  # per cell of the paper's Table 3: paper, reference run here, ours
    study: dict[str, Any]  # the protocol study's effects (reports/protocol_study.json)
    posthoc: dict[str, list[dict]]  # per post-hoc test across tasks: "nemenyi", "wilcoxon_holm"
    bayesian: dict[str, Any] | None  # Bayesian signed-rank (across tasks) and correlated t (per task)
    bayesian_error: str | None  # why there is no Bayesian analysis (no ROPE)
    baseline_kinds: dict[str, str] = field(default_factory=dict)  # baseline model -> kind (report.baselines)
    baseline_comparison: list[dict] = field(default_factory=list)  # per task: best GNN vs best baseline
    degenerate: list[dict] = field(default_factory=list)  # cells whose headline is flat or tied in most seeds
    leakage: list[dict] = field(default_factory=list)  # cells whose seeds saw held-out edges in training
    below_constant: list[dict] = field(default_factory=list)  # cells whose whole CI is worse than the constant
    study_raw: dict | None = None  # the protocol study as read, for the conclusions' variants
    questions: dict = field(default_factory=dict)  # structure controls, tuning budgets, seed rounds (.questions)
    not_converged: list[dict] = field(default_factory=list)  # cells whose validation still rose at the end (.convergence)

    @property
    def paper_rows(self) -> list[dict]:
        """The rows of :attr:`reproduction` whose task has results here: the cells compared with the paper;
        none when the run's setting is not the paper's (:attr:`paper_setting_differs`)."""
        if self.paper_setting_differs:
            return []
        return [r for r in self.reproduction if r["task"] in self.present]

    @cached_property
    def paper_setting_differs(self) -> list[str]:
        """How this run's setting differs from the one the paper's Table 3 was measured in: its protocol,
        its number of seeds, epochs other than the catalogue's (the paper's) for a task of the table. A
        3-seed quick run or a strict run is not a reproduction, and its misses measure nothing."""
        table = load_paper_table() or {}
        config = self.report.config or {}
        out = []
        if config.get("protocol", "paper") != "paper" or config.get("protocol_overrides"):
            overrides = ", ".join(f"{k}: {v}" for k, v in (config.get("protocol_overrides") or {}).items())
            out.append(f"protocol `{config.get('protocol')}`" + (f" with {overrides}" if overrides else ""))
        n_paper = int(table.get("n_seeds", 10))
        if len(self.report.seeds) != n_paper:
            out.append(f"{len(self.report.seeds)} seeds, the paper's {n_paper}")
        changed = [t for t in self.report.tasks
                   if t in ((config.get("train") or {}).get("epochs") or {}) and t in table.get("tasks", {})]
        if changed:
            out.append(f"epochs set in params for {', '.join(f'`{t}`' for t in changed)}")
        return out

    @property
    def paper_overlap(self) -> dict[str, int]:
        """How many comparable cells of the paper's Table 3 there are and how many agree with ours under each
        criterion: CI overlap, the paper's mean inside our CI, |Δ| / pooled SE ≤ 1.96, both (:mod:`.paper`)."""
        return paper_counts(self.paper_rows)

    @cached_property
    def conclusions(self) -> dict[str, Any]:
        """Every claim the report states, with the protocol variants it holds and fails under
        (``{"basis", "claims"}``: :func:`.conclusions.collect`)."""
        return collect_conclusions(self.report, self.study_raw, self.study, candidate=self.candidate,
                                   roster=self.roster, pairwise=self.headline_pairwise,
                                   verdicts=self.baseline_comparison, friedman=self.friedman)

    @cached_property
    def uninformative(self) -> dict[str, str]:
        """``{task: why}``: the tasks no model informs, left out of every across-task analysis (:mod:`.informative`)."""
        return uninformative_tasks(self.summary, self.baselines, {t: i.direction for t, i in
                                                                   self.report.task_info.items()})

    @cached_property
    def without_flagged(self) -> dict[str, Any]:
        """The across-task results over the ranked tasks without collapsed (‡) or leaking (⊗) cells
        (:func:`.informative.without_flagged`)."""
        return without_flagged(self.report, self.friedman)

    @cached_property
    def flags(self) -> dict[tuple[str, str], dict[str, dict]]:
        """Per flagged (task, model): collapsed / degenerate / leakage with reasons (:func:`.degenerate.cell_flags`)."""
        return cell_flags(self.collapsed, self.degenerate, self.leakage)

    @cached_property
    def paired_agreement(self) -> list[dict]:
        """Per within-task comparison, the paired t and the Wilcoxon Holm decision side by side
        (:func:`.within_task.paired_agreement`)."""
        return paired_agreement(self.pairwise["t"], self.pairwise["wilcoxon"])

    @property
    def headline_pairwise(self) -> list[dict]:
        """The comparisons of the report's ``pairwise_method``."""
        return self.pairwise[self.report.pairwise_method]

    @property
    def cd_cliques(self) -> list[list[str]]:
        """The CD diagram's cliques: from the post-hoc test of the report's ``posthoc_method``."""
        if self.report.posthoc_method == "nemenyi":
            return self.friedman["cliques"]
        return cliques(self.posthoc[self.report.posthoc_method], self.friedman["mean_ranks"])

    @property
    def failed_tasks(self) -> dict[str, str]:
        """Tasks without results whose data was there (every run failed or is missing), with the reason."""
        return {t: why for t, why in self.without_results.items() if t not in self.unavailable}


def collect_facts(report, candidate: str | None, roster: list[str], *, aggregation: str = "uniform",
                  weights: dict | None = None, reference: dict | None = None,
                  study: dict | None = None, code: str | None = None, controls: dict | None = None,
                  seed_plan: dict | None = None) -> ReportFacts:
    """Compute every shared statistic of ``report`` once.

    ``candidate`` and ``roster`` feed the candidate block; ``aggregation``
    (with ``weights`` for ``custom``) is the one of ``plots/mean_ranks.*``;
    ``reference`` and ``study`` are the reference implementation's cells and
    the protocol study (:mod:`.reproduction`), when there are any; ``controls`` and ``seed_plan`` what
    ``netzbench controls`` and ``netzbench seeds`` wrote (:mod:`.questions`).
    An equivalence or aggregation that cannot be computed (no margin, no
    weights) is recorded with the reason instead of failing the build.
    """
    summary = report.summary()
    mean_ranks, mean_rank_errors = {}, {}
    for name in dict.fromkeys(AGGREGATIONS + (aggregation,)):
        try:
            mean_ranks[name] = report.mean_ranks(name, weights=weights)  # weights only count for custom
        except ValueError as exc:
            mean_rank_errors[name] = str(exc)
    equivalence, equivalence_error = None, None
    try:
        equivalence = report.equivalence()
    except ValueError as exc:
        equivalence_error = str(exc)
    bayesian, bayesian_error = None, None
    try:
        bayesian = report.bayesian()
    except ValueError as exc:
        bayesian_error = str(exc)
    kinds = report.baseline_models()
    nested, baselines = nested_summary(summary), report.baselines()
    # the candidate's standing is across-task analysis too: against the ranked roster only
    roster = [m for m in roster if m in report.ranked_models or m not in kinds]
    return ReportFacts(
        report=report, candidate=candidate, roster=list(roster), aggregation=aggregation, weights=weights,
        summary=summary, nested=nested,
        pairwise={method: report.pairwise(method) for method in ("t", "wilcoxon")},
        friedman=report.friedman(), mean_ranks=mean_ranks, mean_rank_errors=mean_rank_errors,
        power=report.power(), wilcoxon_floor=report.wilcoxon_floor(),
        equivalence=equivalence, equivalence_error=equivalence_error,
        candidate_block=report.candidate_block(candidate, roster), missing=report.missing(),
        present=report.present_tasks(), without_results=report.tasks_without_results(),
        unavailable=report.unavailable_tasks(), cost=report.compute_cost(),
        baselines=baselines, collapsed=report.collapsed(),
        reproduction=comparison(summary, reference, report.ci, margin=report.equivalence_margin, alpha=report.alpha),
        study=study_effects(study, report.final_metrics(), report.seeds, code), study_raw=study,
        posthoc={method: report.posthoc(method) for method in ("nemenyi", "wilcoxon_holm")},
        bayesian=bayesian, bayesian_error=bayesian_error,
        baseline_kinds=kinds, baseline_comparison=report.baseline_comparison(),
        degenerate=degenerate_cells(report.histories, report.selected_epochs(), report.task_info),
        leakage=leaking_cells(report.cells),
        below_constant=below_constant(nested, baselines, report.task_info, report.tasks),
        questions=question_answers(report, controls, seed_plan),
        not_converged=not_converged(report.histories, report.task_info),
    )
