r"""Friedman test on a rank table, with the Iman–Davenport correction.

For a rank table :math:`r_{n,i}` (N tasks, k models) with mean ranks
:math:`\bar r_i = \frac1N\sum_n r_{n,i}` (Friedman 1937; Demšar 2006, eq. 3):

.. math::

    \chi^2_F = \frac{12N}{k(k+1)}\Bigl[\sum_{i=1}^k \bar r_i^2 - \frac{k(k+1)^2}{4}\Bigr]
    \ \sim\ \chi^2_{k-1}\ \text{under}\ H_0 .

Iman & Davenport (1980) F correction (Demšar 2006, eq. 4):

.. math::

    F_F = \frac{(N-1)\chi^2_F}{N(k-1) - \chi^2_F}\ \sim\ F_{k-1,\,(k-1)(N-1)} .

No tie correction is applied (the formula above is the one in the report
spec); on rank tables without ties it equals
:func:`scipy.stats.friedmanchisquare`, which does apply a tie correction.

Edge cases (no exceptions):

* ``k < 2`` or ``N < 1``: every statistic and p-value NaN; ``df = max(k-1, 0)``.
* ``N == 1``: :math:`\chi^2_F` and its p-value are reported, but the
  Iman–Davenport denominator degrees of freedom :math:`(k-1)(N-1)` are 0, so
  ``iman_davenport_f`` and ``iman_davenport_p`` are NaN.
* :math:`\chi^2_F = N(k-1)` (every task ranks the models identically, no
  ties): ``iman_davenport_f = inf`` and ``iman_davenport_p = 0.0``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._common import ResultMixin
from .ranks import _as_rank_table

__all__ = ["FriedmanResult", "friedman"]


@dataclass(frozen=True)
class FriedmanResult(ResultMixin):
    """Result of :func:`friedman`.

    Attributes
    ----------
    chi2 : float
        Friedman statistic :math:`\\chi^2_F`.
    p_value : float
        ``chi2.sf(chi2, k - 1)``.
    df : int
        ``k - 1``.
    iman_davenport_f : float
        :math:`F_F`.
    iman_davenport_p : float
        ``f.sf(F_F, k - 1, (k - 1)(N - 1))``.
    n_tasks : int
        N.
    k : int
        Number of models.
    """

    chi2: float
    p_value: float
    df: int
    iman_davenport_f: float
    iman_davenport_p: float
    n_tasks: int
    k: int


def friedman(ranks) -> FriedmanResult:
    """Friedman chi-square and Iman–Davenport F from a rank table (N, k).

    ``ranks`` is the output of :func:`netzbench.stats.rank_matrix` (rank
    1 = best; ties averaged).  NaN entries raise ``ValueError``.  See the
    module docstring for the formulas and the edge cases.
    """
    r = _as_rank_table(ranks)
    n_tasks, k = r.shape
    nan = float("nan")
    df = max(k - 1, 0)
    if k < 2 or n_tasks < 1:
        return FriedmanResult(nan, nan, df, nan, nan, n_tasks, k)
    rbar = r.mean(axis=0)
    chi2 = 12.0 * n_tasks / (k * (k + 1)) * (float(np.sum(rbar**2)) - k * (k + 1) ** 2 / 4.0)
    chi2 = max(chi2, 0.0)  # round-off guard: the bracket is a variance, never negative
    p = float(stats.chi2.sf(chi2, df))

    if n_tasks == 1:
        return FriedmanResult(chi2, p, df, nan, nan, n_tasks, k)
    full = n_tasks * (k - 1.0)
    denom = full - chi2
    if denom <= 1e-12 * full:
        f_stat, f_p = float("inf"), 0.0
    else:
        f_stat = (n_tasks - 1.0) * chi2 / denom
        f_p = float(stats.f.sf(f_stat, df, df * (n_tasks - 1)))
    return FriedmanResult(chi2, p, df, float(f_stat), f_p, n_tasks, k)
