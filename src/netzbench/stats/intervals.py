r"""Per-cell summaries: mean, spread and a confidence interval over seeds.

For one (task, model) cell with finite per-seed values :math:`x_1..x_S`:

.. math::

    \bar x = \frac1S \sum_s x_s, \qquad
    \hat\sigma = \sqrt{\frac{1}{S-1}\sum_s (x_s-\bar x)^2}, \qquad
    \mathrm{sem} = \hat\sigma/\sqrt S .

Two interval methods:

``t``
    :math:`\bar x \pm t_{(1+c)/2,\,S-1}\,\mathrm{sem}` (Student t, symmetric).
``bootstrap``
    percentile interval of :math:`B` resampled means
    :math:`\bar x^*_b` (resample the :math:`S` values with replacement):
    :math:`[q_{(1-c)/2}(\bar x^*),\, q_{(1+c)/2}(\bar x^*)]`.  The bounds may
    be asymmetric about :math:`\bar x`; ``half_width`` is
    :math:`(hi-lo)/2` for ``mean ± h`` display.

Edge cases (both methods).  Non-finite values (NaN, ±inf) are dropped first
and ``n`` counts the finite values that remain.

* ``n == 0``: every field is NaN (``n = 0``).
* ``n == 1``: ``mean`` is the single value; ``std``, ``sem``, ``lo``, ``hi``
  and ``half_width`` are NaN -- one seed gives *no* interval rather than a
  silent zero-width one.
* all values equal (``n >= 2``): ``std = sem = 0`` and the interval is the
  single point ``[mean, mean]`` (zero width here is a property of the data).

Bounded metrics.  ``bounds=(lower, upper)`` is the metric's range (accuracy,
AUC, AP, F1 in [0, 1]; ±inf for an open end).  The symmetric t interval can
leave it (three accuracies near 1 give ``hi > 1``); ``lo`` and ``hi`` are then
clipped to the range and ``clipped = True`` flags the cell.  ``half_width``
is not clipped: it stays the method's precision measure (``t·sem``).  The
percentile bootstrap of a mean never leaves the range of its values.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._common import ResultMixin, as_1d_float, check_open_unit

__all__ = ["Interval", "t_interval", "bootstrap_interval", "interval", "clip_interval", "INTERVAL_METHODS"]

INTERVAL_METHODS = ("t", "bootstrap")

# Resampled means are generated in chunks of at most this many draws so that
# memory stays bounded for large S * n_resamples.
_CHUNK_DRAWS = 4_000_000


@dataclass(frozen=True)
class Interval(ResultMixin):
    """Mean and confidence interval of one cell.

    Attributes
    ----------
    mean : float
        Sample mean of the finite values.
    lo, hi : float
        Interval bounds (NaN when ``n < 2``).
    half_width : float
        ``t``: :math:`t_{(1+c)/2,n-1}\\cdot\\mathrm{sem}`; ``bootstrap``:
        ``(hi - lo) / 2``.
    std : float
        Sample standard deviation (ddof = 1); NaN when ``n < 2``.
    sem : float
        ``std / sqrt(n)``; NaN when ``n < 2``.
    n : int
        Number of finite values used.
    method : str
        ``"t"`` or ``"bootstrap"``.
    clipped : bool
        ``lo`` or ``hi`` was clipped to the metric's ``bounds``.
    """

    mean: float
    lo: float
    hi: float
    half_width: float
    std: float
    sem: float
    n: int
    method: str
    clipped: bool = False


def _finite(values) -> np.ndarray:
    x = as_1d_float(values)
    return x[np.isfinite(x)]


def _degenerate(x: np.ndarray, method: str) -> Interval | None:
    """Interval for n < 2 (no spread estimate), else None."""
    nan = float("nan")
    if x.size == 0:
        return Interval(nan, nan, nan, nan, nan, nan, 0, method)
    if x.size == 1:
        return Interval(float(x[0]), nan, nan, nan, nan, nan, 1, method)
    return None


def _spread(x: np.ndarray) -> tuple[float, float, float]:
    """(mean, std ddof=1, sem); exact zeros when all values are equal."""
    if np.all(x == x[0]):
        return float(x[0]), 0.0, 0.0
    mean = float(np.mean(x))
    std = float(np.std(x, ddof=1))
    return mean, std, std / float(np.sqrt(x.size))


def _check_bounds(bounds) -> tuple[float, float] | None:
    if bounds is None:
        return None
    lower, upper = (float(v) for v in bounds)
    if not lower < upper:
        raise ValueError(f"bounds must be (lower, upper) with lower < upper, got {bounds!r}")
    return lower, upper


def clip_interval(iv: Interval, bounds) -> Interval:
    """``iv`` with ``lo``/``hi`` clipped to ``bounds = (lower, upper)`` and ``clipped`` set when that
    changed a bound (NaN bounds stay NaN; ``bounds=None`` returns ``iv``)."""
    b = _check_bounds(bounds)
    if b is None or not (np.isfinite(iv.lo) and np.isfinite(iv.hi)):
        return iv
    lo, hi = min(max(iv.lo, b[0]), b[1]), max(min(iv.hi, b[1]), b[0])
    if lo == iv.lo and hi == iv.hi:
        return iv
    return dataclasses.replace(iv, lo=float(lo), hi=float(hi), clipped=True)


@functools.lru_cache(maxsize=1024)
def _t_quantile(q: float, df: int) -> float:
    """``stats.t.ppf(q, df)``, remembered: a report asks for the same few (one per seed count) thousands of
    times (a learning curve's band at every epoch), and each scipy call costs about 0.1 ms."""
    return float(stats.t.ppf(q, df))


def t_interval(values, ci: float = 0.95, bounds=None) -> Interval:
    r"""Student-t confidence interval for the mean.

    .. math:: \bar x \pm t_{(1+c)/2,\; n-1}\cdot \hat\sigma/\sqrt n

    Parameters
    ----------
    values : array_like, 1-D
        Per-seed values; non-finite entries are dropped.
    ci : float
        Confidence level in (0, 1).
    bounds : (float, float), optional
        The metric's range: bounds outside it are clipped and flagged.

    Returns
    -------
    Interval
        ``method == "t"``.  See the module docstring for ``n < 2``.
    """
    ci = check_open_unit(ci, "ci")
    _check_bounds(bounds)
    x = _finite(values)
    deg = _degenerate(x, "t")
    if deg is not None:
        return deg
    mean, std, sem = _spread(x)
    h = _t_quantile(0.5 + ci / 2.0, x.size - 1) * sem
    return clip_interval(Interval(mean, float(mean - h), float(mean + h), float(h), std, sem, int(x.size), "t"),
                         bounds)


#: the name of scipy.stats.bootstrap's generator argument (``rng`` from scipy 1.15, ``random_state`` before)
_RNG_ARG = "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"


def _percentile_bootstrap(x: np.ndarray, ci: float, n_resamples: int, seed) -> tuple[float, float]:
    """:func:`scipy.stats.bootstrap` (percentile method) of the mean, ``numpy.random.default_rng(seed)``,
    resamples drawn in batches of at most ``_CHUNK_DRAWS`` values (bounded memory)."""
    batch = max(1, _CHUNK_DRAWS // x.size)
    with warnings.catch_warnings():  # scipy's standard error of a single resample (unused here) warns
        warnings.simplefilter("ignore", RuntimeWarning)
        res = stats.bootstrap((x,), np.mean, confidence_level=ci, n_resamples=n_resamples, method="percentile",
                              batch=batch if batch < n_resamples else None,
                              **{_RNG_ARG: np.random.default_rng(seed)})
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def bootstrap_interval(values, ci: float = 0.95, n_resamples: int = 10_000, seed=0, bounds=None) -> Interval:
    r"""Percentile-bootstrap confidence interval for the mean.

    Draws ``n_resamples`` resamples of the ``n`` finite values with
    replacement using ``numpy.random.default_rng(seed)``, and returns

    .. math:: [\,q_{(1-c)/2}(\bar x^*),\; q_{(1+c)/2}(\bar x^*)\,]

    (linear interpolation between order statistics), computed by
    :func:`scipy.stats.bootstrap` with ``method="percentile"``.  Its
    resampling scheme (one ``(B, n)`` draw of indices per batch) is the one
    this function used before it called scipy, so the bounds are unchanged
    to floating-point noise.  The bounds are the
    true percentiles and may be asymmetric about ``mean``;
    ``half_width = (hi - lo) / 2``.  ``std`` and ``sem`` are the ordinary
    sample quantities (ddof = 1), not bootstrap estimates.

    The result is a deterministic function of ``(values, ci, n_resamples,
    seed)`` for an integer ``seed``; ``seed=None`` draws fresh entropy.

    ``n < 2`` gives NaN bounds (see the module docstring).  ``bounds`` as in
    :func:`t_interval` (the percentile interval of means stays within the
    values' range, so it is clipped only when values lie outside ``bounds``).
    """
    ci = check_open_unit(ci, "ci")
    _check_bounds(bounds)
    n_resamples = int(n_resamples)
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")
    x = _finite(values)
    deg = _degenerate(x, "bootstrap")
    if deg is not None:
        return deg
    mean, std, sem = _spread(x)
    if std == 0.0:
        lo = hi = mean
    else:
        lo, hi = _percentile_bootstrap(x, ci, n_resamples, seed)
    return clip_interval(Interval(mean, float(lo), float(hi), float((hi - lo) / 2.0), std, sem, int(x.size),
                                  "bootstrap"), bounds)


def interval(values, ci: float = 0.95, method: str = "t", n_resamples: int = 10_000, seed=0,
             bounds=None) -> Interval:
    """Dispatch to :func:`t_interval` (``method="t"``) or
    :func:`bootstrap_interval` (``method="bootstrap"``).

    ``n_resamples`` and ``seed`` are used only by the bootstrap; ``bounds`` is
    the metric's range (clipped and flagged).  An unknown ``method`` raises
    ``ValueError`` naming the valid choices.
    """
    if method == "t":
        return t_interval(values, ci=ci, bounds=bounds)
    if method == "bootstrap":
        return bootstrap_interval(values, ci=ci, n_resamples=n_resamples, seed=seed, bounds=bounds)
    raise ValueError(f"unknown interval method {method!r}; valid choices: {', '.join(INTERVAL_METHODS)}")
