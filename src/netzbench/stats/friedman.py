r"""Friedman test on a rank table, with the Iman–Davenport correction.

For a rank table :math:`r_{n,i}` (N tasks, k models) with mean ranks
:math:`\bar r_i = \frac1N\sum_n r_{n,i}` (Friedman 1937; Demšar 2006, eq. 3):

.. math::

    \chi^2_F = \frac{12N}{k(k+1)}\Bigl[\sum_{i=1}^k \bar r_i^2 - \frac{k(k+1)^2}{4}\Bigr]
    \ \sim\ \chi^2_{k-1}\ \text{under}\ H_0 .

Iman & Davenport (1980) F correction (Demšar 2006, eq. 4):

.. math::

    F_F = \frac{(N-1)\chi^2_F}{N(k-1) - \chi^2_F}\ \sim\ F_{k-1,\,(k-1)(N-1)} .

The statistic above is the textbook one (the report spec's, Demšar's); it is
the headline and what the report's reading of the CD diagram checks first.
Next to it, the tie-corrected statistic (Friedman 1937; Conover 1999)

.. math::

    \chi^2_{F,\mathrm{ties}} = \chi^2_F \Big/ \Bigl(1 - \frac{\sum_n\sum_g (t_{ng}^3 - t_{ng})}{N k (k^2-1)}\Bigr),

with :math:`t_{ng}` the sizes of the groups of tied ranks in task :math:`n`,
is :func:`scipy.stats.friedmanchisquare` on the rank table (scipy re-ranks
each row, which leaves averaged ranks as they are); scipy needs
:math:`k \ge 3`, so at :math:`k = 2` the same formula is evaluated here.
Without ties the two statistics are equal; with ties the corrected one is
larger (ties shrink the rank variance that the textbook formula assumes).
When every task ties every model the correction divides 0 by 0: the
tie-corrected statistic and p-value are NaN (the textbook one is 0, p = 1).
The Nemenyi critical difference does not depend on either statistic.

Edge cases (no exceptions):

* ``k < 2`` or ``N < 1``: every statistic and p-value NaN; ``df = max(k-1, 0)``.
* ``N == 1``: :math:`\chi^2_F` and its p-value are reported, but the
  Iman–Davenport denominator degrees of freedom :math:`(k-1)(N-1)` are 0, so
  ``iman_davenport_f`` and ``iman_davenport_p`` are NaN.
* ``k == 2``: ``iman_davenport_f`` and ``iman_davenport_p`` NaN, with a
  note.  With two models the Friedman test is the sign test over tasks
  (:math:`\chi^2_F = (W-L)^2/N` with W wins and L losses: without ties the
  square of the sign test's normal-approximation z), and the
  Iman–Davenport F is a t test on the ±1 win signs, infinite (p = 0)
  whenever one model wins every task -- contradicting the Friedman p
  (0.157 at N = 2).  It adds nothing at k = 2 and is not reported.
* :math:`\chi^2_F = N(k-1)` with ``k >= 3`` (every task ranks the models
  identically, no ties): ``iman_davenport_f = inf``; the F distribution
  gives no p-value there, so ``iman_davenport_p`` is the exact probability
  of that agreement under the null (each task's order uniform over the
  :math:`k!` orders): :math:`(k!)^{1-N}` (not the F tail's 0).  The note
  says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._common import ResultMixin
from .ranks import as_rank_table

__all__ = ["FriedmanResult", "friedman", "tie_corrected"]


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
    note : str
        Empty, or why the Iman–Davenport values are special (see the module docstring).
    chi2_tie_corrected : float
        :math:`\\chi^2_F` with the tie correction (:func:`scipy.stats.friedmanchisquare`).
    p_value_tie_corrected : float
        ``chi2.sf(chi2_tie_corrected, k - 1)``.
    """

    chi2: float
    p_value: float
    df: int
    iman_davenport_f: float
    iman_davenport_p: float
    n_tasks: int
    k: int
    note: str = ""
    chi2_tie_corrected: float = float("nan")
    p_value_tie_corrected: float = float("nan")


NOTE_K2 = ("k = 2: Iman–Davenport not reported (with two models Friedman's test is the sign test over tasks; "
           "the F correction is a t test on the win signs, infinite whenever one model wins every task)")
NOTE_CONCORDANT = ("every task ranks the models identically: Iman–Davenport F is infinite and its p-value is "
                   "the exact probability of that agreement under the null, (k!)^(1-N)")


def tie_corrected(ranks) -> tuple[float, float]:
    """Tie-corrected Friedman statistic and p-value of a rank table (N, k) (see the module docstring).

    :func:`scipy.stats.friedmanchisquare` for ``k >= 3``; the same formula for
    ``k == 2``; NaN for ``k < 2``, ``N < 1`` or when every task ties every model.
    """
    r = as_rank_table(ranks)
    n_tasks, k = r.shape
    nan = float("nan")
    if k < 2 or n_tasks < 1:
        return nan, nan
    ties = sum(float(np.sum(c**3 - c)) for c in (np.unique(row, return_counts=True)[1] for row in r))
    correction = 1.0 - ties / (n_tasks * k * (k * k - 1.0))
    if correction <= 1e-12:
        return nan, nan
    if k >= 3:
        res = stats.friedmanchisquare(*r.T)
        return float(res.statistic), float(res.pvalue)
    rbar = r.mean(axis=0)
    chi2 = max(12.0 * n_tasks / (k * (k + 1)) * (float(np.sum(rbar**2)) - k * (k + 1) ** 2 / 4.0), 0.0)
    chi2 /= correction
    return chi2, float(stats.chi2.sf(chi2, k - 1))


def friedman(ranks) -> FriedmanResult:
    """Friedman chi-square and Iman–Davenport F from a rank table (N, k).

    ``ranks`` is the output of :func:`netzbench.stats.rank_matrix` (rank
    1 = best; ties averaged).  NaN entries raise ``ValueError``.  See the
    module docstring for the formulas and the edge cases.
    """
    r = as_rank_table(ranks)
    n_tasks, k = r.shape
    nan = float("nan")
    df = max(k - 1, 0)
    if k < 2 or n_tasks < 1:
        return FriedmanResult(nan, nan, df, nan, nan, n_tasks, k)
    rbar = r.mean(axis=0)
    chi2 = 12.0 * n_tasks / (k * (k + 1)) * (float(np.sum(rbar**2)) - k * (k + 1) ** 2 / 4.0)
    chi2 = max(chi2, 0.0)  # round-off guard: the bracket is a variance, never negative
    p = float(stats.chi2.sf(chi2, df))
    ties = tie_corrected(r)

    if k == 2:
        return FriedmanResult(chi2, p, df, nan, nan, n_tasks, k, NOTE_K2, *ties)
    if n_tasks == 1:
        return FriedmanResult(chi2, p, df, nan, nan, n_tasks, k, "", *ties)
    full = n_tasks * (k - 1.0)
    denom = full - chi2
    if denom <= 1e-12 * full:
        # log-space: (k!)^(1-N) underflows to 0 only below ~1e-308, where it is 0 to double precision
        exact = math.exp((1 - n_tasks) * math.lgamma(k + 1))
        return FriedmanResult(chi2, p, df, math.inf, exact, n_tasks, k, NOTE_CONCORDANT, *ties)
    f_stat = (n_tasks - 1.0) * chi2 / denom
    f_p = float(stats.f.sf(f_stat, df, df * (n_tasks - 1)))
    return FriedmanResult(chi2, p, df, float(f_stat), f_p, n_tasks, k, "", *ties)
