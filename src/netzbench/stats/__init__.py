"""netzbench.stats -- the pure-statistics layer of the report.

Arrays in, numbers / small frozen dataclasses out (numpy, scipy,
statsmodels).  Where one of these libraries computes a quantity (Holm, TOST,
power, bootstrap, tie-corrected Friedman, Wilcoxon) it is called; the
Bayesian signed-rank test reproduces baycomp's draws bit for bit, vectorised
(baycomp's loop took about a second per pair; tested against it); hand-written code remains for what no
library fits (resolution and degenerate cases, MDE and seeds needed, CD and
cliques, aggregations, rank stability).  Every result type has ``to_dict()`` returning plain
Python values for JSON.  Quantities are defined in docs/statistics.md; each
module docstring gives the formulas and the documented edge cases.

Modules
-------
intervals    per-cell mean and t / bootstrap confidence intervals
paired       paired t / Wilcoxon test of two models on one task, at the metric's resolution
multiple     Holm–Bonferroni adjustment
power        minimum detectable effect, observed power, seeds needed
equivalence  paired TOST, Welch TOST of two summaries, the different/equivalent/trivial/undetermined verdict
ranks        rank table and mean-rank aggregations
friedman     Friedman chi-square (textbook and tie-corrected) and Iman–Davenport F
nemenyi      Nemenyi q, critical difference, cliques, tasks needed for a gap
posthoc      pairwise post-hoc tests across tasks: Nemenyi, Wilcoxon signed-rank + Holm
bayesian     Bayesian signed-rank test over tasks, Bayesian correlated t-test over seeds
stability    bootstrap / jackknife stability of the rank order
sequential   the seed plan's group-sequential test: Pocock's boundary over looks, different / equivalent / more seeds
tuning       expected best validation score against the tuning budget, and where two curves cross
"""

from .bayesian import BayesResult, correlated_t_test, signed_rank_test
from .equivalence import VERDICTS, TostResult, tost_paired, tost_welch, verdict
from .friedman import FriedmanResult, friedman, tie_corrected
from .intervals import INTERVAL_METHODS, Interval, bootstrap_interval, clip_interval, interval, t_interval
from .multiple import holm
from .nemenyi import cliques, cliques_from_matrix, critical_difference, max_rank_gap, n_for_observed_gap, nemenyi_q
from .paired import PAIRED_METHODS, RESOLUTION, PairedResult, paired_test
from .posthoc import POSTHOC_METHODS, PosthocPair, posthoc, posthoc_cliques, significance_matrix
from .power import PowerResult, paired_power
from .ranks import AGGREGATIONS, aggregate_ranks, mean_ranks, rank_matrix
from .sequential import DECISIONS, SequentialDecision, bonferroni_level, decide, pocock_level, seeds_saved
from .stability import RankStability, rank_stability
from .tuning import BudgetCurve, crossings, expected_max_curve

__all__ = [
    # intervals
    "Interval",
    "t_interval",
    "bootstrap_interval",
    "interval",
    "clip_interval",
    "INTERVAL_METHODS",
    # paired tests
    "PairedResult",
    "paired_test",
    "PAIRED_METHODS",
    "RESOLUTION",
    "holm",
    # tuning budgets
    "BudgetCurve",
    "expected_max_curve",
    "crossings",
    # the seed plan's group-sequential test
    "SequentialDecision",
    "decide",
    "pocock_level",
    "bonferroni_level",
    "seeds_saved",
    "DECISIONS",
    # power / equivalence
    "PowerResult",
    "paired_power",
    "TostResult",
    "tost_paired",
    "tost_welch",
    "verdict",
    "VERDICTS",
    # ranks
    "rank_matrix",
    "mean_ranks",
    "aggregate_ranks",
    "AGGREGATIONS",
    "FriedmanResult",
    "friedman",
    "tie_corrected",
    "nemenyi_q",
    "critical_difference",
    "cliques",
    "cliques_from_matrix",
    # post-hoc and Bayesian comparisons across tasks
    "PosthocPair",
    "posthoc",
    "posthoc_cliques",
    "significance_matrix",
    "POSTHOC_METHODS",
    "BayesResult",
    "signed_rank_test",
    "correlated_t_test",
    "n_for_observed_gap",
    "max_rank_gap",
    "RankStability",
    "rank_stability",
]
