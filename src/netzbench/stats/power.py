r"""Is the evidence sufficient?  Power of the paired t test.

For :math:`n` seed-aligned pairs with difference standard deviation
:math:`\hat\sigma_d`, two-sided level :math:`\alpha` and target power
:math:`1-\beta`:

* minimum detectable effect (normal-approximation form with t quantiles, the
  report spec's formula; kept hand-written because
  ``TTestPower.solve_power`` solves the exact non-central-t equation, a
  different and slightly smaller number)

  .. math:: \mathrm{MDE}(n) = \bigl(t_{n-1,\,1-\alpha/2} + t_{n-1,\,1-\beta}\bigr)\,
            \hat\sigma_d/\sqrt n ;

* observed power of the two-sided paired t test at the observed effect,
  from the non-central t distribution with :math:`\nu = n-1` and
  non-centrality :math:`\lambda = \bar d/(\hat\sigma_d/\sqrt n)`:

  .. math:: P = \Pr(T'_{\nu,\lambda} > t_{\nu,1-\alpha/2})
              + \Pr(T'_{\nu,\lambda} < -t_{\nu,1-\alpha/2}),

  computed by :meth:`statsmodels.stats.power.TTestPower.power` (effect size
  :math:`d_z`, ``nobs = n``, two-sided).  Its lower tail is a non-central t
  CDF, which is NaN for large non-centrality (``scipy.stats.nct.cdf`` and
  statsmodels' ``nct_cdf`` alike, e.g. :math:`\nu = 9, \lambda = 9.4`;
  statsmodels gives NaN from :math:`\nu = 9, d_z = 3` on); there both tails
  are taken as survival functions, :math:`\Pr(T'_{\nu,|\lambda|} > t) +
  \Pr(T'_{\nu,-|\lambda|} > t)`, which stay accurate (the two agree to
  1e-15 where both are defined).  A NaN left after that is reported, never
  hidden;

* ``detectable``: :math:`|\bar d| \ge \mathrm{MDE}(n)`;
* ``seeds_needed[e]``: the smallest :math:`n' \in [2, 10000]` with
  :math:`\mathrm{MDE}(n') \le e` (holding :math:`\hat\sigma_d` fixed),
  ``None`` if there is none.

Edge cases (no exceptions):

* ``n < 2``: ``mde``, ``observed_power``, ``sigma_d`` NaN,
  ``detectable = False``, every ``seeds_needed`` value ``None``.
* zero spread at the resolution (all differences zero or constant, see
  :mod:`netzbench.stats.paired`): the t test is undefined and so are its
  MDE and power: ``mde``, ``observed_power`` NaN, ``sigma_d = 0``,
  ``detectable = False``, every ``seeds_needed`` value ``None``,
  ``degenerate = True``.
* :math:`\bar d = 0` with spread: :math:`\lambda = 0` so
  ``observed_power = alpha`` (the rejection rate under the null), and
  ``detectable = False`` -- there is no effect to detect.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats
from statsmodels.stats.power import TTestPower

from ._common import ResultMixin, check_open_unit
from .paired import RESOLUTION, paired_differences

__all__ = ["PowerResult", "paired_power", "mde", "observed_power", "MAX_SEEDS"]

MAX_SEEDS = 10_000
_TTEST_POWER = TTestPower()


@dataclass(frozen=True)
class PowerResult(ResultMixin):
    """Result of :func:`paired_power`.

    Attributes
    ----------
    mde : float
        Minimum detectable effect at the current ``n``.
    observed_power : float
        Power of the two-sided paired t test at the observed mean difference.
    detectable : bool
        ``|mean_diff| >= mde`` (and ``mean_diff != 0``).
    seeds_needed : dict[float, int | None]
        Effect size -> smallest number of seeds whose MDE is at most it.
    n : int
        Number of pairs kept.
    sigma_d : float
        ``std(a - b, ddof=1)``.
    degenerate : bool
        Zero spread at the resolution: the t test and its power are undefined.
    """

    mde: float
    observed_power: float
    detectable: bool
    seeds_needed: dict
    n: int
    sigma_d: float
    degenerate: bool = False


def mde(sigma_d: float, n, alpha: float = 0.05, power: float = 0.8):
    r"""Minimum detectable effect :math:`(t_{n-1,1-\alpha/2}+t_{n-1,power})\sigma_d/\sqrt n`.

    ``n`` may be an integer or an integer array (vectorised); ``n < 2`` gives NaN.
    """
    n_arr = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = np.where(n_arr >= 2, n_arr - 1.0, np.nan)
        factor = stats.t.ppf(1.0 - alpha / 2.0, df) + stats.t.ppf(power, df)
        out = factor * float(sigma_d) / np.sqrt(n_arr)
    return float(out) if np.ndim(out) == 0 else out


@lru_cache(maxsize=8)
def _mde_factors(alpha: float, power: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`mde`'s t-quantile sum and :math:`\\sqrt n` over ``n = 2 .. MAX_SEEDS``: the same for every pair
    compared at one ``alpha`` and ``power`` (20,000 t quantiles a pair otherwise). Read-only arrays."""
    n_arr = np.arange(2, MAX_SEEDS + 1).astype(float)
    factor = stats.t.ppf(1.0 - alpha / 2.0, n_arr - 1.0) + stats.t.ppf(power, n_arr - 1.0)
    root_n = np.sqrt(n_arr)
    factor.flags.writeable = root_n.flags.writeable = False
    return factor, root_n


def observed_power(mean_diff: float, sigma_d: float, n: int, alpha: float = 0.05) -> float:
    r"""Power of the two-sided paired t test at non-centrality :math:`\bar d/(\sigma_d/\sqrt n)`.

    :meth:`statsmodels.stats.power.TTestPower.power` at :math:`|d_z|` (the power is
    symmetric in the sign of the effect); where its non-central t CDF is NaN
    (large effects), both tails as survival functions of the non-central t.
    ``mean_diff == 0`` gives ``alpha``; ``n < 2`` or ``sigma_d`` not positive
    gives NaN.  A NaN left after the fallback stays NaN.
    """
    if n < 2 or not (sigma_d > 0.0):
        return float("nan")
    if mean_diff == 0.0:
        return alpha
    with np.errstate(all="ignore"):
        p = float(_TTEST_POWER.power(abs(mean_diff) / sigma_d, n, alpha, alternative="two-sided"))
    if not np.isfinite(p):  # the non-central t CDF of the lower tail failed: both tails as survival functions
        df = n - 1
        nc = abs(mean_diff) / (sigma_d / np.sqrt(n))
        tcrit = stats.t.ppf(1.0 - alpha / 2.0, df)
        p = float(stats.nct.sf(tcrit, df, nc) + stats.nct.sf(tcrit, df, -nc))
    return min(1.0, p) if np.isfinite(p) else float("nan")


def paired_power(a, b, alpha: float = 0.05, power: float = 0.8, effects=(0.02, 0.01, 0.005),
                 resolution: float = RESOLUTION) -> PowerResult:
    """Power analysis of the paired t test of ``a`` vs ``b`` (see module docstring).

    Parameters
    ----------
    a, b : array_like, 1-D
        Seed-aligned values; pairs with a non-finite value are dropped.
    alpha : float
        Two-sided significance level in (0, 1).
    power : float
        Target power in (0, 1) used for ``mde`` and ``seeds_needed``.
    effects : iterable of float
        Positive effect sizes (in metric units) for ``seeds_needed``.
    resolution : float
        Resolution at which differences are compared (:mod:`netzbench.stats.paired`).

    Raises
    ------
    ValueError
        For ``alpha``/``power`` outside (0, 1) or a non-positive effect.
    """
    alpha = check_open_unit(alpha, "alpha")
    power = check_open_unit(power, "power")
    effects = [float(e) for e in effects]
    if any(not (e > 0.0) or not np.isfinite(e) for e in effects):
        raise ValueError(f"effects must be positive finite numbers, got {effects}")

    pdiff = paired_differences(a, b, resolution)
    n, mean_diff, sigma_d = pdiff.n, pdiff.mean_diff, pdiff.sigma_d
    nan = float("nan")

    if pdiff.kind == "few":
        return PowerResult(nan, nan, False, {e: None for e in effects}, n, nan)
    if pdiff.kind in ("zero", "constant"):
        return PowerResult(nan, nan, False, {e: None for e in effects}, n, 0.0, True)

    m = mde(sigma_d, n, alpha, power)
    obs = observed_power(mean_diff, sigma_d, n, alpha)
    detectable = bool(mean_diff != 0.0 and abs(mean_diff) >= m)

    grid = np.arange(2, MAX_SEEDS + 1)
    factor, root_n = _mde_factors(alpha, power)
    with np.errstate(invalid="ignore", divide="ignore"):
        curve = factor * float(sigma_d) / root_n  # mde(sigma_d, grid, alpha, power), element for element
    needed = {}
    for e in effects:
        hit = np.flatnonzero(curve <= e)
        needed[e] = int(grid[hit[0]]) if hit.size else None
    return PowerResult(float(m), obs, detectable, needed, n, sigma_d)
