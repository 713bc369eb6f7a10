r"""Paired (seed-aligned) comparison of two models on one task.

With seed-aligned values :math:`a_s, b_s` and differences
:math:`d_s = a_s - b_s` over the :math:`n` seeds where both are finite:

.. math::

    \bar d = \frac1n\sum_s d_s,\qquad
    \hat\sigma_d = \sqrt{\tfrac{1}{n-1}\sum_s (d_s-\bar d)^2},\qquad
    d_z = \bar d/\hat\sigma_d,\qquad
    T = \frac{\bar d}{\hat\sigma_d/\sqrt n}\sim t_{n-1}.

A positive ``mean_diff`` means ``a`` is larger (on a lower-is-better metric
such as MAE a negative difference means ``a`` is better).

``method="t"`` uses :func:`scipy.stats.ttest_rel` (two-sided);
``method="wilcoxon"`` uses :func:`scipy.stats.wilcoxon` with its defaults
(two-sided, ``zero_method="wilcox"`` i.e. zero differences are discarded,
``method="auto"``: the exact null distribution for ``n <= 50`` without
ties/zeros, exact permutation for ``n <= 13`` with ties/zeros).  For the
Wilcoxon test ``statistic`` is scipy's two-sided statistic
:math:`\min(W^+, W^-)`.

Degenerate inputs give defined answers (never an exception):

============================  ==========================================================
case                          result
============================  ==========================================================
``n < 2``                     ``p_value``, ``statistic``, ``sigma_d``, ``cohens_dz`` NaN
                              (``mean_diff`` is the single difference when ``n == 1``),
                              note ``"fewer than 2 paired seeds"``.
all differences zero          ``mean_diff = sigma_d = 0``, ``cohens_dz`` NaN (0/0),
                              ``statistic`` NaN, ``p_value = 1.0``,
                              note ``"all differences zero"``.
constant nonzero difference   ``sigma_d = 0``, ``cohens_dz = ±inf``.  ``t``:
                              ``statistic = ±inf``, ``p_value = 0.0``.  ``wilcoxon``:
                              scipy's answer on the constant differences (all of one
                              sign, e.g. ``2/2**n`` exactly at small n).  The note says so.
============================  ==========================================================

"All differences zero / constant" is decided up to floating-point round-off:
if the spread ``max(d) - min(d)`` is at most ``64·eps·max(|a|, |b|)`` (the
size of the rounding error of ``a - b`` itself) the differences are treated
as exactly constant, so ``[0.81, 0.82] - [0.71, 0.72]`` counts as a constant
difference of ``0.1`` instead of producing ``t ~ 1e15`` from rounding noise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import stats

from ._common import ResultMixin, as_1d_float

__all__ = ["PairedResult", "paired_test", "paired_differences", "PAIRED_METHODS"]

PAIRED_METHODS = ("t", "wilcoxon")

NOTE_FEW = "fewer than 2 paired seeds"
NOTE_ZERO = "all differences zero"
NOTE_CONST_T = "constant nonzero difference (sigma_d = 0): t = ±inf, p = 0"
NOTE_CONST_W = "constant nonzero difference (sigma_d = 0): cohens_dz = ±inf, p from scipy.stats.wilcoxon"

_ROUNDOFF_ULPS = 64.0


class PairedDifferences(NamedTuple):
    """Cleaned paired differences (internal helper result).

    ``kind`` is one of ``"few"`` (n < 2), ``"zero"`` (all differences zero),
    ``"constant"`` (constant nonzero difference) or ``"ok"``.
    """

    a: np.ndarray
    b: np.ndarray
    d: np.ndarray
    n: int
    mean_diff: float
    sigma_d: float
    kind: str


def paired_differences(a, b) -> PairedDifferences:
    """Drop pairs where either value is non-finite and summarise ``d = a - b``.

    Raises ``ValueError`` when ``a`` and ``b`` are not 1-D arrays of the same
    length.  See the module docstring for the round-off rule that classifies
    differences as zero / constant.
    """
    a = as_1d_float(a, "a")
    b = as_1d_float(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"a and b must be seed-aligned (same length), got {a.size} and {b.size}")
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    d = a - b
    n = int(d.size)
    nan = float("nan")
    if n == 0:
        return PairedDifferences(a, b, d, 0, nan, nan, "few")
    if n == 1:
        return PairedDifferences(a, b, d, 1, float(d[0]), nan, "few")
    scale = float(max(np.max(np.abs(a)), np.max(np.abs(b))))
    tol = _ROUNDOFF_ULPS * np.finfo(float).eps * scale
    if float(np.max(np.abs(d))) <= tol:
        return PairedDifferences(a, b, np.zeros(n), n, 0.0, 0.0, "zero")
    if float(np.ptp(d)) <= tol:
        m = float(np.mean(d))
        return PairedDifferences(a, b, np.full(n, m), n, m, 0.0, "constant")
    return PairedDifferences(a, b, d, n, float(np.mean(d)), float(np.std(d, ddof=1)), "ok")


@dataclass(frozen=True)
class PairedResult(ResultMixin):
    """Result of :func:`paired_test`.

    Attributes
    ----------
    mean_diff : float
        :math:`\\bar d = \\mathrm{mean}(a - b)`.
    sigma_d : float
        ``std(a - b, ddof=1)``.
    cohens_dz : float
        ``mean_diff / sigma_d``.
    statistic : float
        t statistic (``t``) or scipy's Wilcoxon statistic (``wilcoxon``).
    p_value : float
        Two-sided p-value (NaN when undefined, see module docstring).
    n : int
        Number of pairs kept (both values finite).
    method : str
        ``"t"`` or ``"wilcoxon"``.
    note : str
        Empty for regular inputs; explains degenerate cases.
    """

    mean_diff: float
    sigma_d: float
    cohens_dz: float
    statistic: float
    p_value: float
    n: int
    method: str
    note: str


def paired_test(a, b, method: str = "t") -> PairedResult:
    """Two-sided paired test of ``a`` against ``b`` (seed-aligned 1-D arrays).

    Pairs where either value is NaN (or ±inf) are dropped; ``n`` is the
    number of pairs kept.  ``method`` is ``"t"`` (:func:`scipy.stats.ttest_rel`)
    or ``"wilcoxon"`` (:func:`scipy.stats.wilcoxon`, exact null at small n).
    Degenerate inputs are documented in the module docstring.  An unknown
    ``method`` raises ``ValueError``.
    """
    if method not in PAIRED_METHODS:
        raise ValueError(f"unknown paired method {method!r}; valid choices: {', '.join(PAIRED_METHODS)}")
    pdiff = paired_differences(a, b)
    n, mean_diff, sigma_d = pdiff.n, pdiff.mean_diff, pdiff.sigma_d
    nan = float("nan")

    if pdiff.kind == "few":
        return PairedResult(mean_diff, nan, nan, nan, nan, n, method, NOTE_FEW)
    if pdiff.kind == "zero":
        return PairedResult(0.0, 0.0, nan, nan, 1.0, n, method, NOTE_ZERO)

    if pdiff.kind == "constant":
        dz = float(np.copysign(np.inf, mean_diff))
        if method == "t":
            return PairedResult(mean_diff, 0.0, dz, dz, 0.0, n, method, NOTE_CONST_T)
        res = stats.wilcoxon(pdiff.d)
        return PairedResult(mean_diff, 0.0, dz, float(res.statistic), float(res.pvalue), n, method, NOTE_CONST_W)

    dz = mean_diff / sigma_d
    if method == "t":
        res = stats.ttest_rel(pdiff.a, pdiff.b)
    else:
        res = stats.wilcoxon(pdiff.d)
    return PairedResult(mean_diff, sigma_d, dz, float(res.statistic), float(res.pvalue), n, method, "")
