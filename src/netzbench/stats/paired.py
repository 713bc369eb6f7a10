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
ties/zeros, exact permutation for ``n <= 13`` with ties/zeros) on the
differences rounded to the resolution (below), so that differences equal at
the metric's resolution are exact ties or exact zeros.  For the Wilcoxon
test ``statistic`` is scipy's two-sided statistic :math:`\min(W^+, W^-)`.

Resolution
----------
Values are compared at the metric's resolution ``resolution`` (default
:data:`RESOLUTION` = 1e-6, in metric units).  The run records store float32
values, exact to about :math:`2^{-24}|x|` each, so a spread of differences up
to :math:`2^{-22}\max|x|` can be rounding alone; the resolution in effect is
``unit = max(resolution, 2**-22 * max(|a|, |b|))`` (1e-6 for metrics in
[0, 1]).  The differences have *zero spread* when
``max(d) - min(d) <= unit``: identical differences of 0.6 that differ by
1e-8 in float32 noise are one constant difference, not ``t ~ 1e7``.

Degenerate inputs give defined answers (never an exception):

============================  ==========================================================
case                          result
============================  ==========================================================
``n < 2``                     ``p_value``, ``statistic``, ``sigma_d``, ``cohens_dz`` NaN
                              (``mean_diff`` is the single difference when ``n == 1``),
                              note ``"fewer than 2 paired seeds"``.
all differences zero          zero spread and ``mean(d)`` rounds to 0 at ``unit``:
                              ``mean_diff = sigma_d = 0``, ``cohens_dz``, ``statistic``
                              and ``p_value`` NaN (no test: an undefined p-value stays
                              out of the Holm family), ``degenerate = True``.
constant nonzero difference   zero spread otherwise: ``sigma_d = 0``, ``cohens_dz = ±inf``,
                              ``degenerate = True``.  The t test is undefined (0/0 noise
                              is not evidence): ``p_value`` is the exact two-sided sign
                              test, :math:`\min(1, 2^{1-n})`, for both methods (with every
                              difference of one sign and all tied, the Wilcoxon test *is*
                              the sign test); ``statistic`` NaN for ``t``, 0 for
                              ``wilcoxon``.  The note says so.
============================  ==========================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import stats

from ._common import ResultMixin, as_1d_float

__all__ = ["PairedResult", "paired_test", "paired_differences", "at_resolution", "sign_test_p",
           "wilcoxon_exact_permutation",
           "PAIRED_METHODS", "RESOLUTION"]

PAIRED_METHODS = ("t", "wilcoxon")

#: resolution (metric units) at which paired values are compared; see the module docstring
RESOLUTION = 1e-6
# float32 keeps 24 significant bits: each value is off by up to 2**-24 |x|, a difference by twice
# that, the spread of two differences by four times.
_FLOAT32_SPREAD = 2.0 ** -22

NOTE_FEW = "fewer than 2 paired seeds"
NOTE_ZERO = "all differences zero at the resolution: no test (p undefined, left out of Holm)"
NOTE_CONST = "zero spread at the resolution (constant difference): t test undefined, p from the exact sign test"


class PairedDifferences(NamedTuple):
    """Cleaned paired differences (internal helper result).

    ``kind`` is one of ``"few"`` (n < 2), ``"zero"`` (all differences zero),
    ``"constant"`` (constant nonzero difference) or ``"ok"``; ``unit`` is the
    resolution in effect and ``n_nonzero`` the number of differences that do
    not round to zero at it (what the Wilcoxon test keeps).
    """

    a: np.ndarray
    b: np.ndarray
    d: np.ndarray
    n: int
    mean_diff: float
    sigma_d: float
    kind: str
    unit: float
    n_nonzero: int


def at_resolution(d, unit: float) -> np.ndarray:
    """``d`` rounded to the nearest multiple of ``unit`` (equal multiples are exactly equal floats)."""
    return np.rint(np.asarray(d, dtype=float) / unit) * unit


def sign_test_p(n_positive: int, n: int) -> float:
    """Exact two-sided sign test (:func:`scipy.stats.binomtest`, p = 1/2); NaN when ``n == 0``."""
    return float(stats.binomtest(int(n_positive), int(n), 0.5).pvalue) if n > 0 else float("nan")


def _check_resolution(resolution: float) -> float:
    resolution = float(resolution)
    if not (resolution > 0.0) or not np.isfinite(resolution):
        raise ValueError(f"resolution must be a positive finite number, got {resolution!r}")
    return resolution


def paired_differences(a, b, resolution: float = RESOLUTION) -> PairedDifferences:
    """Drop pairs where either value is non-finite and summarise ``d = a - b``.

    Raises ``ValueError`` when ``a`` and ``b`` are not 1-D arrays of the same
    length, or ``resolution`` is not positive.  See the module docstring for
    the resolution rule that classifies differences as zero / constant.
    ``mean_diff`` and ``sigma_d`` of regular (``"ok"``) differences are those
    of the unrounded values.
    """
    resolution = _check_resolution(resolution)
    a = as_1d_float(a, "a")
    b = as_1d_float(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"a and b must be seed-aligned (same length), got {a.size} and {b.size}")
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    d = a - b
    n = int(d.size)
    nan = float("nan")
    scale = float(max(np.max(np.abs(a)), np.max(np.abs(b)))) if n else 0.0
    unit = max(resolution, _FLOAT32_SPREAD * scale)
    n_nonzero = int(np.count_nonzero(at_resolution(d, unit)))
    if n == 0:
        return PairedDifferences(a, b, d, 0, nan, nan, "few", unit, 0)
    if n == 1:
        return PairedDifferences(a, b, d, 1, float(d[0]), nan, "few", unit, n_nonzero)
    if float(np.ptp(d)) <= unit:
        m = float(np.mean(d))
        if np.rint(m / unit) == 0.0:
            return PairedDifferences(a, b, np.zeros(n), n, 0.0, 0.0, "zero", unit, 0)
        return PairedDifferences(a, b, np.full(n, m), n, m, 0.0, "constant", unit, n)
    return PairedDifferences(a, b, d, n, float(np.mean(d)), float(np.std(d, ddof=1)), "ok", unit, n_nonzero)


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
    degenerate : bool
        The differences have zero spread at the resolution (all zero or
        constant): the t test is undefined.
    """

    mean_diff: float
    sigma_d: float
    cohens_dz: float
    statistic: float
    p_value: float
    n: int
    method: str
    note: str
    degenerate: bool = False


def paired_test(a, b, method: str = "t", resolution: float = RESOLUTION) -> PairedResult:
    """Two-sided paired test of ``a`` against ``b`` (seed-aligned 1-D arrays).

    Pairs where either value is NaN (or ±inf) are dropped; ``n`` is the
    number of pairs kept.  ``method`` is ``"t"`` (:func:`scipy.stats.ttest_rel`)
    or ``"wilcoxon"`` (:func:`scipy.stats.wilcoxon` on the differences rounded
    to ``resolution``, exact null at small n).  Degenerate inputs are
    documented in the module docstring.  An unknown ``method`` raises
    ``ValueError``.
    """
    if method not in PAIRED_METHODS:
        raise ValueError(f"unknown paired method {method!r}; valid choices: {', '.join(PAIRED_METHODS)}")
    pdiff = paired_differences(a, b, resolution)
    n, mean_diff, sigma_d = pdiff.n, pdiff.mean_diff, pdiff.sigma_d
    nan = float("nan")

    if pdiff.kind == "few":
        return PairedResult(mean_diff, nan, nan, nan, nan, n, method, NOTE_FEW)
    if pdiff.kind == "zero":
        return PairedResult(0.0, 0.0, nan, nan, nan, n, method, NOTE_ZERO, True)
    if pdiff.kind == "constant":
        dz = float(np.copysign(np.inf, mean_diff))
        p = sign_test_p(n if mean_diff > 0 else 0, n)
        return PairedResult(mean_diff, 0.0, dz, nan if method == "t" else 0.0, p, n, method, NOTE_CONST, True)

    dz = mean_diff / sigma_d
    if method == "t":
        res = stats.ttest_rel(pdiff.a, pdiff.b)
        return PairedResult(mean_diff, sigma_d, dz, float(res.statistic), float(res.pvalue), n, method, "")
    d = at_resolution(pdiff.d, pdiff.unit)
    nonzero = np.abs(d[d != 0])
    if len(d) <= PERMUTATION_MAX_N and (len(nonzero) < len(d) or len(np.unique(nonzero)) < len(nonzero)):
        statistic, p = wilcoxon_exact_permutation(d)
    else:
        res = stats.wilcoxon(d)
        statistic, p = float(res.statistic), float(res.pvalue)
    return PairedResult(mean_diff, sigma_d, dz, statistic, p, n, method, "")


#: up to this many differences scipy's Wilcoxon test with ties or zeros enumerates every sign flip
PERMUTATION_MAX_N = 13


def wilcoxon_exact_permutation(d) -> tuple[float, float]:
    """Two-sided Wilcoxon signed-rank test of ``d`` by its exact permutation distribution:
    ``(min(W+, W-), p)``, what :func:`scipy.stats.wilcoxon` gives for ``len(d) <= 13`` with ties or zeros
    (its ``method="auto"`` runs :func:`scipy.stats.permutation_test` then) -- bit for bit (tested), in
    one matrix product over the :math:`2^n` sign flips instead of a statistic call per flip.

    Zeros are dropped from the ranks (``zero_method="wilcox"``) but stay in the enumeration, as scipy
    counts them; ranks are midranks of :math:`|d|`, multiples of 1/2, so every :math:`W^+` is an exact
    float sum and the counts do not depend on the order of summation. The comparisons use scipy's
    relative tolerance (100 machine epsilons of :math:`W^+`)."""
    d = np.asarray(d, dtype=float).ravel()
    n = len(d)
    pos, neg = d > 0, d < 0
    ranks = np.zeros(n)
    ranks[pos | neg] = stats.rankdata(np.abs(d[pos | neg]))
    r_plus, r_minus = float(np.sum(ranks * pos)), float(np.sum(ranks * neg))
    keep = ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1).astype(bool)  # True: this difference keeps its sign
    null = np.where(keep, pos, neg).astype(float) @ ranks  # W+ of every sign flip (a zero stays zero)
    gamma = abs(np.finfo(float).eps * 100 * r_plus)
    less = np.count_nonzero(null <= r_plus + gamma) / 2 ** n
    greater = np.count_nonzero(null >= r_plus - gamma) / 2 ** n
    return min(r_plus, r_minus), float(min(min(less, greater) * 2, 1.0))
