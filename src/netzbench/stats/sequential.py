r"""The seed plan's group-sequential test: decide a paired comparison in rounds, adding seeds only while it
is undecided.

A comparison of two models on one task (seed-aligned differences :math:`d = a - b`) is looked at
after :math:`n_1 < n_2 < \dots < n_K` seeds, :math:`n_K` the cap. At look :math:`k` it is

- ``different`` when the paired t test rejects :math:`\mu_d = 0` at the nominal level :math:`\alpha'`;
- ``equivalent`` -- no difference as large as the target effect :math:`\delta` -- when TOST at margin
  :math:`\delta` (:func:`netzbench.stats.tost_paired`) rejects at :math:`\alpha'`;
- else it needs more seeds; at the cap it stays ``undecided``.

Looking K times at a test of level :math:`\alpha` would reject a true null more often than
:math:`\alpha`. The nominal level is Pocock's (1977): one constant boundary :math:`c` on the standardised
statistics :math:`Z_k`, chosen so that under the null the chance that *any* look crosses it is
:math:`\alpha`. With independent seeds :math:`Z_k` are partial sums, so
:math:`\operatorname{corr}(Z_i, Z_j) = \sqrt{n_i / n_j}` (:math:`i \le j`), and :math:`c` solves

.. math::

    \Pr\big(\max_k |Z_k| \ge c\big) = \alpha, \qquad Z \sim \mathcal N(0, R),\ R_{ij} = \sqrt{n_{\min(i,j)} / n_{\max(i,j)}},

computed with :func:`scipy.stats.multivariate_normal.cdf` (Genz's method, seeded) and a root finder;
:math:`\alpha' = 2(1 - \Phi(c))` (for :math:`K = 2,3,4,5` equally spaced looks at :math:`\alpha = 0.05`
that is 0.0294, 0.0221, 0.0182, 0.0158: Pocock's table; ``method="normal"``). With few seeds the
looks' t statistics have heavier tails than that normal law (3 seeds: 2 degrees of freedom), and a
false ``different`` comes about 10 % more often than :math:`\alpha`; the default ``method="t"`` holds
the paired t tests themselves to the boundary: :math:`\alpha'` is the :math:`\alpha` quantile of the
smallest p-value over the looks on seeded null paths, exact for normal differences up to Monte Carlo
error. The tests check the rate of false ``different`` on null comparisons by simulation.
:func:`bonferroni_level` (:math:`\alpha / K`) is the conservative alternative.

Edge cases: looks must be increasing integers :math:`\ge 2`; fewer finite pairs than a look asks for
mean that look is not reached (the decision is taken on what exists). Zero spread at the metric's
resolution gives NaN p-values (:mod:`netzbench.stats.paired`): never ``different`` nor ``equivalent``
from a zero-spread look.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import optimize, stats

from ._common import ResultMixin, check_open_unit
from .equivalence import tost_paired
from .paired import RESOLUTION, paired_test

__all__ = ["DECISIONS", "SequentialDecision", "bonferroni_level", "decide", "pocock_level", "seeds_saved"]

#: what a comparison is after a look (``more`` only before the cap)
DECISIONS = ("different", "equivalent", "more", "undecided")


def _check_looks(looks: Sequence[int]) -> tuple[int, ...]:
    looks = tuple(int(n) for n in looks)
    if not looks or looks[0] < 2 or any(b <= a for a, b in zip(looks, looks[1:])):
        raise ValueError(f"looks must be increasing seed counts >= 2, got {list(looks)}")
    return looks


def bonferroni_level(alpha: float, looks: Sequence[int]) -> float:
    """:math:`\\alpha / K`: each of K looks at this level keeps the overall rate at most ``alpha``."""
    check_open_unit(alpha, "alpha")
    return alpha / len(_check_looks(looks))


@lru_cache(maxsize=256)
def _pocock_normal(alpha: float, looks: tuple[int, ...]) -> float:
    k = len(looks)
    if k == 1:
        return alpha
    n = np.asarray(looks, dtype=float)
    corr = np.sqrt(np.minimum.outer(n, n) / np.maximum.outer(n, n))
    mvn = stats.multivariate_normal(mean=np.zeros(k), cov=corr, allow_singular=False, seed=20260101)

    def excess(c: float) -> float:  # P(max |Z| >= c) - alpha
        inside = mvn.cdf(np.full(k, c), lower_limit=np.full(k, -c))
        return (1.0 - inside) - alpha

    c = optimize.brentq(excess, stats.norm.isf(alpha / 2), stats.norm.isf(alpha / (2 * k)), xtol=1e-6)
    return float(2 * stats.norm.sf(c))


#: null paths the t calibration draws (its level is exact up to this Monte Carlo error, about 1e-3 at 0.05)
T_PATHS = 200_000


@lru_cache(maxsize=256)
def _pocock_t(alpha: float, looks: tuple[int, ...]) -> float:
    if len(looks) == 1:
        return alpha
    rng = np.random.default_rng(20260101)
    smallest = []
    for start in range(0, T_PATHS, 20_000):  # paired t statistics are location- and scale-free: N(0, 1) will do
        z = rng.standard_normal((min(20_000, T_PATHS - start), looks[-1]))
        s1, s2 = np.cumsum(z, axis=1), np.cumsum(z * z, axis=1)
        p_min = np.ones(len(z))
        for n in looks:
            mean = s1[:, n - 1] / n
            var = np.maximum((s2[:, n - 1] - n * mean * mean) / (n - 1), 1e-300)
            p = 2 * stats.t.sf(np.abs(mean / np.sqrt(var / n)), n - 1)
            p_min = np.minimum(p_min, p)
        smallest.append(p_min)
    return float(np.quantile(np.concatenate(smallest), alpha))


def pocock_level(alpha: float, looks: Sequence[int], method: str = "t") -> float:
    """The nominal level of each look (module docstring): Pocock's constant boundary for ``looks`` (seed
    counts) at overall ``alpha``. ``method="t"`` (default): calibrated for paired t tests, the level whose
    crossing at *some* look has probability ``alpha`` under normal null differences (the ``alpha``
    quantile of the smallest p-value over the looks, from :data:`T_PATHS` seeded null paths);
    ``"normal"``: Pocock's own, from the normal approximation (:func:`scipy.stats.multivariate_normal`)."""
    check_open_unit(alpha, "alpha")
    looks = _check_looks(looks)
    if method == "t":
        return _pocock_t(float(alpha), looks)
    if method == "normal":
        return _pocock_normal(float(alpha), looks)
    raise ValueError(f"method must be 't' or 'normal', got {method!r}")


@dataclass(frozen=True)
class SequentialDecision(ResultMixin):
    """Result of :func:`decide`: ``decision`` (:data:`DECISIONS`), at look ``look`` (1-based) with ``n``
    seeds, the t test's and TOST's p-values there, and the nominal ``level`` they were held to."""

    decision: str
    look: int
    n: int
    p_diff: float
    p_equiv: float
    level: float
    mean_diff: float


def decide(a, b, looks: Sequence[int], target_effect: float, alpha: float = 0.05, *, level: float | None = None,
           resolution: float = RESOLUTION) -> SequentialDecision:
    """Run the sequential procedure on seed-aligned ``a`` and ``b`` (their first ``looks[k]`` finite pairs at
    look k): the decision at the first look that is decided, ``more`` when the seeds run out before the
    cap, ``undecided`` at the cap. ``level``: the nominal level (default :func:`pocock_level`)."""
    looks = _check_looks(looks)
    if not target_effect > 0:
        raise ValueError(f"target_effect must be > 0, got {target_effect}")
    level = pocock_level(alpha, looks) if level is None else float(level)
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise ValueError(f"a and b must be seed-aligned, got {a.shape} and {b.shape}")
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    last = SequentialDecision("more", 0, 0, math.nan, math.nan, level, math.nan)
    for k, n in enumerate(looks, start=1):
        if len(a) < n:
            return last if last.look else SequentialDecision("more", 0, len(a), math.nan, math.nan, level, math.nan)
        diff = paired_test(a[:n], b[:n], "t", resolution)
        equiv = tost_paired(a[:n], b[:n], target_effect, level, resolution)
        p_diff, p_equiv = float(diff.p_value), float(equiv.p_value)
        if math.isfinite(p_diff) and p_diff < level:
            return SequentialDecision("different", k, n, p_diff, p_equiv, level, float(diff.mean_diff))
        if math.isfinite(p_equiv) and p_equiv < level:
            return SequentialDecision("equivalent", k, n, p_diff, p_equiv, level, float(diff.mean_diff))
        last = SequentialDecision("more" if k < len(looks) else "undecided", k, n, p_diff, p_equiv, level,
                                  float(diff.mean_diff))
    return last


def seeds_saved(decisions: Sequence[SequentialDecision], cap: int) -> dict:
    """Seed runs the plan used against giving every comparison ``cap`` seeds: ``{"used", "cap", "saved",
    "share"}`` counted per comparison (a cell shared by several comparisons needs the most any asks)."""
    used = sum(d.n for d in decisions)
    full = cap * len(decisions)
    return {"used": used, "cap": full, "saved": full - used, "share": (full - used) / full if full else 0.0}
