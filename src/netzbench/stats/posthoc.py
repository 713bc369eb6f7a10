r"""Post-hoc tests across tasks: which model pairs differ, after (or instead of) Friedman.

Both tests compare every unordered pair ``(i, j)`` of ``k`` models over ``N``
tasks and return one :class:`PosthocPair` per pair (``i < j``, in model
order).

``nemenyi`` (Nemenyi 1963; Demšar 2006, sec. 3.2.2), on the rank table
    :math:`z_{ij} = (\bar r_i - \bar r_j)\big/\sqrt{k(k+1)/(6N)}`.
    ``p_raw`` is the unadjusted two-sided normal p-value of :math:`z`,
    ``p_holm`` its Holm adjustment over the :math:`k(k-1)/2` pairs, and
    ``p_adjusted`` Nemenyi's single-step p-value, the studentized-range
    tail :math:`\Pr(Q_{k,\infty} \ge \sqrt2\,|z|)`.  ``significant`` is
    :math:`|\bar r_i - \bar r_j| \ge CD` -- the same decision as
    ``p_adjusted <= alpha`` and exactly the CD diagram's.  Every one of
    these depends on which other models are in the pool: the mean ranks do
    (Benavoli, Corani & Mangili 2016).
``wilcoxon_holm`` (Benavoli et al. 2016's recommendation), on per-task scores
    the Wilcoxon signed-rank test of :math:`d_n = s_{n,i} - s_{n,j}` over the
    tasks, with scores oriented so that larger is better on every task:
    :func:`.paired.paired_test` with ``method="wilcoxon"`` -- scipy's exact
    null for small N, differences compared at the resolution, zero
    differences dropped, a constant difference tested by the exact sign
    test and an all-zero one left untested (NaN, out of Holm, ``degenerate``).
    ``p_adjusted = p_holm`` (Holm over the pairs), ``significant`` is
    ``p_holm < alpha``.  A pair's p-value depends on the two models only.
    The test ranks the absolute differences across tasks, so it treats
    differences on different tasks as commensurable (Demšar 2006: only
    qualitatively -- a larger difference counts more).

``better`` names the favoured model of a significant pair (``i`` or ``j``):
the lower mean rank (Nemenyi) or the larger signed-rank sum (Wilcoxon), ``-1``
when not significant.  ``wins_i``/``wins_j`` count the tasks each model wins:
a better rank (Nemenyi) or a difference beyond the resolution (Wilcoxon).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._common import ResultMixin, check_open_unit
from .multiple import holm
from .nemenyi import cliques_from_matrix, critical_difference
from .paired import RESOLUTION, at_resolution, paired_differences, paired_test
from .ranks import as_rank_table, rank_matrix

__all__ = ["POSTHOC_METHODS", "PosthocPair", "nemenyi_posthoc", "wilcoxon_holm", "posthoc", "significance_matrix",
           "posthoc_cliques"]

POSTHOC_METHODS = ("nemenyi", "wilcoxon_holm")


@dataclass(frozen=True)
class PosthocPair(ResultMixin):
    """One pair of :func:`posthoc` (see the module docstring for each field's meaning per method)."""

    i: int
    j: int
    method: str
    statistic: float
    p_raw: float
    p_holm: float
    p_adjusted: float
    significant: bool
    better: int
    n_tasks: int
    wins_i: int
    wins_j: int
    degenerate: bool = False
    note: str = ""


def nemenyi_posthoc(ranks, alpha: float = 0.05) -> list[PosthocPair]:
    """Nemenyi's test on a rank table (N, k) (rank 1 = best; :func:`.ranks.rank_matrix`)."""
    alpha = check_open_unit(alpha, "alpha")
    r = as_rank_table(ranks)
    n, k = r.shape
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    if not pairs or n < 1:
        return []
    rbar = r.mean(axis=0)
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    cd = critical_difference(k, n, alpha)
    z = np.array([(rbar[i] - rbar[j]) / se for i, j in pairs])
    p_raw = 2.0 * stats.norm.sf(np.abs(z))
    p_holm = holm(p_raw)
    p_nem = np.minimum(1.0, stats.studentized_range.sf(np.sqrt(2.0) * np.abs(z), k, np.inf)) if k > 2 else p_raw
    out = []
    for (i, j), zz, pr, ph, pn in zip(pairs, z, p_raw, p_holm, p_nem):
        sig = bool(abs(rbar[i] - rbar[j]) >= cd)
        out.append(PosthocPair(i, j, "nemenyi", float(zz), float(pr), float(ph), float(pn), sig,
                               (i if rbar[i] < rbar[j] else j) if sig else -1, n,
                               int(np.sum(r[:, i] < r[:, j])), int(np.sum(r[:, j] < r[:, i]))))
    return out


def wilcoxon_holm(scores, alpha: float = 0.05, resolution: float = RESOLUTION) -> list[PosthocPair]:
    """Pairwise Wilcoxon signed-rank tests over tasks with Holm (scores (N, k), larger = better)."""
    alpha = check_open_unit(alpha, "alpha")
    s = np.asarray(scores, dtype=float)
    if s.ndim != 2:
        raise ValueError(f"scores must be a (tasks, models) table, got shape {s.shape}")
    n, k = s.shape
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    if not pairs or n < 1:
        return []
    tests = [paired_test(s[:, i], s[:, j], method="wilcoxon", resolution=resolution) for i, j in pairs]
    p_holm = holm([t.p_value for t in tests])
    out = []
    for (i, j), t, ph in zip(pairs, tests, p_holm):
        sig = bool(np.isfinite(ph) and ph < alpha)
        d = paired_differences(s[:, i], s[:, j], resolution)
        rounded = at_resolution(d.d, d.unit)
        nz = rounded[rounded != 0]
        signed = float(np.sum(np.sign(nz) * stats.rankdata(np.abs(nz)))) if nz.size else 0.0
        better = (i if signed > 0 else j) if sig and signed != 0 else -1
        out.append(PosthocPair(i, j, "wilcoxon_holm", t.statistic, t.p_value, float(ph), float(ph), sig, better,
                               t.n, int(np.sum(rounded > 0)), int(np.sum(rounded < 0)), t.degenerate, t.note))
    return out


def posthoc(scores, method: str = "nemenyi", alpha: float = 0.05, ranks=None) -> list[PosthocPair]:
    """:func:`nemenyi_posthoc` or :func:`wilcoxon_holm` of a score table (N, k, larger = better).

    ``ranks`` (the rank table of ``scores``) is computed when not given.  An
    unknown ``method`` raises ``ValueError`` naming the choices.
    """
    if method not in POSTHOC_METHODS:
        raise ValueError(f"unknown post-hoc method {method!r}; valid choices: {', '.join(POSTHOC_METHODS)}")
    s = np.asarray(scores, dtype=float)
    if method == "wilcoxon_holm":
        return wilcoxon_holm(s, alpha)
    return nemenyi_posthoc(rank_matrix(s, True) if ranks is None else ranks, alpha)


def significance_matrix(pairs, k: int) -> np.ndarray:
    """Symmetric boolean (k, k) matrix of ``pair.significant`` (False on the diagonal)."""
    m = np.zeros((k, k), dtype=bool)
    for p in pairs:
        m[p.i, p.j] = m[p.j, p.i] = bool(p.significant)
    return m


def posthoc_cliques(mean_ranks, pairs) -> list[tuple[int, ...]]:
    """CD-diagram cliques of a post-hoc result (:func:`.nemenyi.cliques_from_matrix`)."""
    r = np.asarray(mean_ranks, dtype=float).ravel()
    return cliques_from_matrix(r, significance_matrix(pairs, r.size))
