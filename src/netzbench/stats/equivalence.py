r"""Equivalence testing (TOST) and the four-way verdict.

Two one-sided paired t tests (Schuirmann 1987) on :math:`d = a - b` against
an equivalence margin :math:`\delta > 0` (in metric units):

.. math::

    H_0^{-}: \mu_d \le -\delta \ \text{vs}\ \mu_d > -\delta, \qquad
    T^{-} = \frac{\bar d + \delta}{\hat\sigma_d/\sqrt n},\ p^{-} = \Pr(t_{n-1} \ge T^{-});

    H_0^{+}: \mu_d \ge \delta \ \text{vs}\ \mu_d < \delta, \qquad
    T^{+} = \frac{\bar d - \delta}{\hat\sigma_d/\sqrt n},\ p^{+} = \Pr(t_{n-1} \le T^{+});

    p_{\mathrm{TOST}} = \max(p^{-}, p^{+}).

Equivalence (:math:`|\mu_d| < \delta`) is concluded when
:math:`p_{\mathrm{TOST}} < \alpha`.  The two tests are
:func:`statsmodels.stats.weightstats.ttost_paired` (``low = -margin``,
``upp = +margin``); they equal :func:`scipy.stats.ttest_1samp` with
``alternative="greater"`` / ``"less"`` to floating-point noise.

Edge cases (no exceptions): pairs with a non-finite value are dropped.
``n < 2`` gives NaN p-values and ``equivalent = False``.  Zero spread at the
metric's resolution (all differences equal, including all zero; rule and
``resolution`` as in :mod:`netzbench.stats.paired`): the one-sided t tests
are undefined (:math:`\hat\sigma_d = 0`), so every p-value is NaN,
``equivalent = False`` and ``note`` says so -- as the difference test, the
equivalence test never concludes from a zero-spread pair.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats as _st
from statsmodels.stats.weightstats import ttost_paired

from ._common import ResultMixin, check_open_unit
from .paired import RESOLUTION, paired_differences

__all__ = ["TostResult", "tost_paired", "tost_welch", "verdict", "VERDICTS"]

VERDICTS = ("different", "equivalent", "trivial", "undetermined")


@dataclass(frozen=True)
class TostResult(ResultMixin):
    """Result of :func:`tost_paired`.

    Attributes
    ----------
    p_value : float
        ``max(p_lower, p_upper)``.
    p_lower : float
        One-sided p-value for :math:`H_0: \\mu_d \\le -margin`.
    p_upper : float
        One-sided p-value for :math:`H_0: \\mu_d \\ge +margin`.
    margin : float
        Equivalence margin :math:`\\delta`.
    n : int
        Number of pairs kept.
    equivalent : bool
        ``p_value < alpha`` (False when ``p_value`` is NaN).
    note : str
        Empty for regular inputs; explains undefined p-values.
    """

    p_value: float
    p_lower: float
    p_upper: float
    margin: float
    n: int
    equivalent: bool
    note: str = ""


NOTE_FEW = "fewer than 2 paired seeds"
NOTE_ZERO_SPREAD = "zero spread at the resolution: one-sided t tests undefined, no equivalence concluded"


def tost_paired(a, b, margin: float, alpha: float = 0.05, resolution: float = RESOLUTION) -> TostResult:
    """Paired two-one-sided-tests equivalence test of ``a`` and ``b``.

    Parameters
    ----------
    a, b : array_like, 1-D
        Seed-aligned values.
    margin : float
        Equivalence margin :math:`\\delta > 0` in metric units.
    alpha : float
        Level for the ``equivalent`` flag.
    resolution : float
        Resolution at which differences are compared (:mod:`netzbench.stats.paired`).

    Raises
    ------
    ValueError
        If ``margin <= 0`` (or not finite) or ``alpha`` is outside (0, 1).
    """
    margin = float(margin)
    if not (margin > 0.0) or not math.isfinite(margin):
        raise ValueError(f"margin must be a positive finite number, got {margin!r}")
    alpha = check_open_unit(alpha, "alpha")
    pdiff = paired_differences(a, b, resolution)
    n = pdiff.n
    nan = float("nan")
    if pdiff.kind == "few":
        return TostResult(nan, nan, nan, margin, n, False, NOTE_FEW)
    if pdiff.kind in ("zero", "constant"):
        return TostResult(nan, nan, nan, margin, n, False, NOTE_ZERO_SPREAD)
    _, (_, p_lower, _), (_, p_upper, _) = ttost_paired(pdiff.a, pdiff.b, -margin, margin)
    p_lower, p_upper = float(p_lower), float(p_upper)
    p = max(p_lower, p_upper)
    return TostResult(p, p_lower, p_upper, margin, n, bool(p < alpha))


def tost_welch(mean_a: float, se_a: float, n_a: int, mean_b: float, se_b: float, n_b: int, margin: float,
               alpha: float = 0.05) -> TostResult:
    r"""Two one-sided Welch t tests of two independent means given as summaries (mean, standard error
    of the mean, count): is :math:`|\mu_a - \mu_b| < \delta`?

    With :math:`\Delta = \bar a - \bar b`, :math:`SE = \sqrt{SE_a^2 + SE_b^2}` and the Welch–Satterthwaite
    degrees of freedom :math:`\nu = SE^4 / (SE_a^4/(n_a-1) + SE_b^4/(n_b-1))`:
    :math:`p^- = \Pr(t_\nu \ge (\Delta + \delta)/SE)`, :math:`p^+ = \Pr(t_\nu \le (\Delta - \delta)/SE)`,
    :math:`p = \max(p^-, p^+)` (Schuirmann 1987; :func:`statsmodels.stats.weightstats.ttost_ind` with
    ``usevar="unequal"`` on the raw values gives the same). Used against a published table that prints
    only a mean and a half-width per cell. ``n`` of the result: ``n_a``. A non-finite input, a count
    below 2 or ``SE = 0`` gives NaN p-values and ``equivalent = False`` (``note`` says why).
    """
    margin = float(margin)
    if not (margin > 0.0) or not math.isfinite(margin):
        raise ValueError(f"margin must be a positive finite number, got {margin!r}")
    alpha = check_open_unit(alpha, "alpha")
    nan = float("nan")
    values = (mean_a, se_a, mean_b, se_b)
    if not all(math.isfinite(float(v)) for v in values) or min(n_a, n_b) < 2:
        return TostResult(nan, nan, nan, margin, int(n_a), False, "a mean or standard error missing, or fewer "
                                                                   "than 2 seeds")
    se = math.hypot(se_a, se_b)
    if se == 0.0:
        return TostResult(nan, nan, nan, margin, int(n_a), False, NOTE_ZERO_SPREAD)
    df = se ** 4 / (se_a ** 4 / (n_a - 1) + se_b ** 4 / (n_b - 1))
    diff = float(mean_a) - float(mean_b)
    p_lower = float(_st.t.sf((diff + margin) / se, df))
    p_upper = float(_st.t.cdf((diff - margin) / se, df))
    p = max(p_lower, p_upper)
    return TostResult(p, p_lower, p_upper, margin, int(n_a), bool(p < alpha))


def _significant(p, alpha: float) -> bool:
    p = float(p)
    return (not math.isnan(p)) and p < alpha


def verdict(p_diff_holm, p_equiv_holm, alpha: float = 0.05) -> str:
    """Cross the difference test with the equivalence test.

    With ``D = p_diff_holm < alpha`` and ``E = p_equiv_holm < alpha`` (a NaN
    p-value is never significant):

    ============  ============  ================
    D             E             verdict
    ============  ============  ================
    True          False         ``"different"``
    False         True          ``"equivalent"``
    True          True          ``"trivial"`` (real difference, inside the margin)
    False         False         ``"undetermined"`` (also when both are NaN)
    ============  ============  ================
    """
    alpha = check_open_unit(alpha, "alpha")
    diff = _significant(p_diff_holm, alpha)
    equiv = _significant(p_equiv_holm, alpha)
    if diff and equiv:
        return "trivial"
    if diff:
        return "different"
    if equiv:
        return "equivalent"
    return "undetermined"
