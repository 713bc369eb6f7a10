r"""Nemenyi post-hoc test: critical difference and cliques.

Two models are significantly different when their mean ranks differ by at
least the critical difference (Nemenyi 1963; Demšar 2006, eq. 5)

.. math:: CD_\alpha = q_\alpha\sqrt{\frac{k(k+1)}{6N}},\qquad
          q_\alpha = \frac{q^{\mathrm{SR}}_{1-\alpha}(k, \infty)}{\sqrt 2},

with :math:`q^{\mathrm{SR}}` the studentized-range quantile at infinite
degrees of freedom (:func:`scipy.stats.studentized_range`).  For
:math:`\alpha = 0.05`, :math:`k = 2..10` this reproduces Demšar's Table 5
(1.960, 2.343, 2.569, ...).

Because :math:`CD \propto 1/\sqrt N`, an observed mean-rank gap :math:`g`
would reach significance (``g >= CD``) once
:math:`N' \ge CD^2 N / g^2` (:func:`n_for_observed_gap`).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy import stats

from ._common import check_open_unit

__all__ = ["nemenyi_q", "critical_difference", "cliques", "cliques_from_matrix", "n_for_observed_gap",
           "max_rank_gap"]


@lru_cache(maxsize=256)
def _q(k: int, alpha: float) -> float:
    q = float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf))
    if not math.isfinite(q):  # fall back to a very large finite df
        q = float(stats.studentized_range.ppf(1.0 - alpha, k, 1e6))
    return q / math.sqrt(2.0)


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """Critical value :math:`q_\\alpha` of the Nemenyi test for ``k`` models.

    The studentized-range quantile with ``k`` groups and infinite df divided
    by :math:`\\sqrt 2`.  ``k < 2`` returns NaN (nothing to compare).
    """
    alpha = check_open_unit(alpha, "alpha")
    k = int(k)
    if k < 2:
        return float("nan")
    return _q(k, alpha)


def critical_difference(k: int, n_tasks: int, alpha: float = 0.05) -> float:
    r"""Nemenyi critical difference :math:`q_\alpha\sqrt{k(k+1)/(6N)}`.

    ``k < 2`` or ``n_tasks < 1`` returns NaN.
    """
    q = nemenyi_q(k, alpha)
    k, n_tasks = int(k), int(n_tasks)
    if math.isnan(q) or n_tasks < 1:
        return float("nan")
    return q * math.sqrt(k * (k + 1) / (6.0 * n_tasks))


def max_rank_gap(mean_ranks) -> float:
    """Largest mean-rank gap, ``max(mean_ranks) - min(mean_ranks)`` (NaN if empty)."""
    r = np.asarray(mean_ranks, dtype=float)
    if r.size == 0:
        return float("nan")
    return float(np.max(r) - np.min(r))


def cliques(mean_ranks, cd: float) -> list[tuple[int, ...]]:
    """Groups of models that are not significantly different (CD-diagram bars).

    Models are sorted by mean rank (stable, so ties keep index order).  For
    each model the run extends to every later model whose mean rank is less
    than ``cd`` above it; a run is a clique when it has at least two models
    and is not contained in another run.  Returned tuples hold indices into
    ``mean_ranks`` in rank order; cliques are listed from best to worst.

    ``cd`` NaN (e.g. k < 2) gives no cliques; ``cd = inf`` gives one clique of
    all models (when k >= 2).
    """
    r = np.asarray(mean_ranks, dtype=float).ravel()
    cd = float(cd)
    if r.size < 2 or math.isnan(cd):
        return []
    # sorted by rank, a run's widest pair is its first and last model: "span < cd" is "no pair >= cd"
    return cliques_from_matrix(r, np.abs(r[:, None] - r[None, :]) >= cd)


def cliques_from_matrix(mean_ranks, significant) -> list[tuple[int, ...]]:
    """CD-diagram bars from any pairwise significance matrix (Nemenyi, Wilcoxon–Holm, ...).

    ``significant[i, j]`` (symmetric, k x k, diagonal ignored) says whether
    models ``i`` and ``j`` differ significantly.  Models are sorted by mean
    rank (stable); for each model the run extends over the following models
    as long as no pair inside the run is significant; a run of at least two
    models that is not contained in another run is a clique.  Returned
    tuples hold indices in rank order, cliques from best to worst.  With the
    Nemenyi matrix ``|r_i - r_j| >= CD`` this is :func:`cliques`.
    """
    r = np.asarray(mean_ranks, dtype=float).ravel()
    sig = np.asarray(significant, dtype=bool)
    if sig.shape != (r.size, r.size):
        raise ValueError(f"significant must be {r.size} x {r.size}, got shape {sig.shape}")
    if r.size < 2:
        return []
    order = np.argsort(r, kind="stable")
    sig = sig[np.ix_(order, order)]
    out: list[tuple[int, ...]] = []
    last_end = -1
    for i in range(r.size):
        j = i
        while j + 1 < r.size and not sig[i : j + 1, j + 1].any():
            j += 1
        # runs start in increasing order; a later run is contained in an earlier one exactly when its
        # end does not pass the furthest end so far (same start order, shorter or equal reach).
        if j > i and j > last_end:
            out.append(tuple(int(x) for x in order[i : j + 1]))
        last_end = max(last_end, j)
    return out


def n_for_observed_gap(cd: float, n_tasks: int, gap: float) -> int | None:
    r"""Number of tasks at which ``gap`` would become significant.

    :math:`\lceil CD^2 N / g^2\rceil` (smallest :math:`N'` with
    :math:`CD(N') \le g`).  ``gap <= 0``, NaN inputs or ``cd <= 0`` return
    ``None``.  A relative round-off of 1e-12 is forgiven before the ceiling.
    """
    cd, gap, n_tasks = float(cd), float(gap), int(n_tasks)
    if not (gap > 0.0) or not (cd > 0.0) or n_tasks < 1 or math.isinf(cd) or math.isinf(gap):
        return None
    x = cd * cd * n_tasks / (gap * gap)
    return int(math.ceil(x * (1.0 - 1e-12)))
