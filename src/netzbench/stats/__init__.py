"""netzbench.stats -- the pure-statistics layer of the report.

Arrays in, numbers / small frozen dataclasses out (numpy, scipy,
statsmodels only).  Every result type has ``to_dict()`` returning plain
Python values for JSON.  Quantities are defined in REPORT_SPEC.md; each
module docstring gives the formulas and the documented edge cases.

Modules
-------
intervals    per-cell mean and t / bootstrap confidence intervals
paired       paired t / Wilcoxon test of two models on one task, at the metric's resolution
multiple     Holm–Bonferroni adjustment
power        minimum detectable effect, observed power, seeds needed
equivalence  paired TOST and the different/equivalent/trivial/undetermined verdict
ranks        rank table and mean-rank aggregations
friedman     Friedman chi-square and Iman–Davenport F
nemenyi      Nemenyi q, critical difference, cliques, tasks needed for a gap
stability    bootstrap / jackknife stability of the rank order
"""

from .equivalence import VERDICTS, TostResult, tost_paired, verdict
from .friedman import FriedmanResult, friedman
from .intervals import INTERVAL_METHODS, Interval, bootstrap_interval, clip_interval, interval, t_interval
from .multiple import holm
from .nemenyi import cliques, critical_difference, max_rank_gap, n_for_observed_gap, nemenyi_q
from .paired import PAIRED_METHODS, RESOLUTION, PairedResult, paired_test
from .power import PowerResult, paired_power
from .ranks import AGGREGATIONS, aggregate_ranks, mean_ranks, rank_matrix
from .stability import RankStability, rank_stability

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
    # power / equivalence
    "PowerResult",
    "paired_power",
    "TostResult",
    "tost_paired",
    "verdict",
    "VERDICTS",
    # ranks
    "rank_matrix",
    "mean_ranks",
    "aggregate_ranks",
    "AGGREGATIONS",
    "FriedmanResult",
    "friedman",
    "nemenyi_q",
    "critical_difference",
    "cliques",
    "n_for_observed_gap",
    "max_rank_gap",
    "RankStability",
    "rank_stability",
]
