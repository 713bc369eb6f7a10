r"""Bayesian comparison of two models: over tasks (signed-rank) and over seeds (correlated t).

Instead of a p-value, each test gives the posterior probabilities of three
regions of the difference :math:`a - b` (larger = better): ``p_a_better``
(beyond ``+rope``), ``p_rope`` (inside the region of practical equivalence
``[-rope, rope]``) and ``p_b_better`` (below ``-rope``); they sum to 1.
``rope = 0`` leaves two regions (``p_rope = 0``).

Across tasks: Bayesian signed-rank test (Benavoli, Mangili, Corani, Zaffalon & Ruggeri 2014; Benavoli et al. 2017)
    a Dirichlet-process posterior on the distribution of the per-task
    differences :math:`d_n` (prior strength 0.5 on a pseudo-observation at
    0).  For each of ``n_samples`` Dirichlet draws :math:`w` the
    probabilities of the regions are
    :math:`\theta_{a} = \sum_{i,j} w_i w_j [d_i + d_j > 2\,rope]` (and
    likewise below :math:`-2\,rope`, the rest the ROPE); a region's reported
    probability is the fraction of draws in which it is the largest (as
    ``baycomp``'s ``Posterior.probs``; a draw where regions tie exactly --
    every difference zero with ``rope = 0`` -- counts for each tied region
    equally, where baycomp would give it to the first).  The draws and
    sums are those of :class:`baycomp.SignedRankTest` (Demšar, Benavoli &
    Corani's reference implementation) with ``random_state=seed``, bit for
    bit (tested), vectorised over draws; a given seed gives the same
    probabilities on every machine; the
    Monte-Carlo standard error is at most :math:`0.5/\sqrt{n\_samples}`
    (0.0022 at the default 50,000).  Differences are rounded to the metric
    resolution first (:mod:`.paired`): float32 noise is not a win.
    Uniformly rescaling the differences and the ROPE leaves the result
    unchanged, so per-task margins can be applied by dividing each task's
    difference by its margin and using ``rope = 1``.

Per task, over seeds: Bayesian correlated t-test (Corani & Benavoli 2015)
    the posterior of the mean difference is Student t with :math:`n-1`
    degrees of freedom, location :math:`\bar d` and scale
    :math:`\hat\sigma_d\sqrt{1/n + \rho/(1-\rho)}`, :math:`\rho` the
    correlation of two repetitions' differences.  Nadeau & Bengio (2003)
    correct the variance of the mean of :math:`n` repeated random
    train/test splits to :math:`\hat\sigma_d^2\,(1/n + n_{test}/n_{train})`;
    that is this scale with :math:`\rho = n_{test}/(n_{train} + n_{test})`,
    since then :math:`\rho/(1-\rho) = n_{test}/n_{train}` (``baycomp``'s
    ``CorrelatedTTest`` for k-fold cross-validation is the case
    :math:`\rho = 1/k`: its ``1/n + 1/(k-1)``).  :math:`\rho = 0` is the
    paired t test's posterior (flat prior).  Which :math:`\rho` a task's
    seeds call for follows from its split design
    (:func:`netzbench.report.comparisons.split_correlation`).

Degenerate inputs (defined answers, never an exception): pairs with a
non-finite value are dropped; fewer than 2 differences for the t-test, or no
task for the signed-rank test, give NaN probabilities.  Every task
difference zero with ``rope = 0``: the signed-rank posterior puts
:math:`\theta = 1/2` on both sides in every draw, so ``p_a_better =
p_b_better = 1/2`` (``degenerate``; with a ROPE the ROPE takes it all).  Zero spread at the
resolution (all seed differences equal, including all zero) leaves the
t posterior without a scale: NaN probabilities and ``degenerate = True``, as
for the paired t test (:mod:`.paired`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ._common import ResultMixin
from .paired import RESOLUTION, at_resolution, paired_differences

__all__ = ["BayesResult", "signed_rank_test", "correlated_t_test", "N_SAMPLES"]

#: Monte-Carlo draws of the signed-rank test (baycomp's default)
N_SAMPLES = 50_000

NOTE_NO_TASK = "no task with both models"
NOTE_FEW = "fewer than 2 paired seeds"
NOTE_ALL_ZERO = "every difference zero and no ROPE: neither model is better (1/2 each)"
NOTE_ZERO_SPREAD = "zero spread at the resolution: the t posterior has no scale"


@dataclass(frozen=True)
class BayesResult(ResultMixin):
    """Posterior probabilities of one comparison (:func:`signed_rank_test`, :func:`correlated_t_test`).

    ``mean_diff`` is the mean of :math:`a - b`; ``n`` the number of tasks
    (signed-rank) or paired seeds (t-test); ``note`` explains NaN values.
    """

    p_a_better: float
    p_rope: float
    p_b_better: float
    rope: float
    n: int
    mean_diff: float
    degenerate: bool = False
    note: str = ""


def _check_rope(rope: float) -> float:
    rope = float(rope)
    if not (rope >= 0.0) or not math.isfinite(rope):
        raise ValueError(f"rope must be a finite number >= 0, got {rope!r}")
    return rope


def signed_rank_test(a, b, rope: float = 0.0, *, n_samples: int = N_SAMPLES, seed: int = 0,
                     prior: float = 0.5, resolution: float = RESOLUTION) -> BayesResult:
    """Bayesian signed-rank test of ``a`` vs ``b`` over tasks (1-D, aligned, larger = better).

    ``rope`` in the units of the differences; ``seed`` makes the Monte-Carlo
    sample reproducible (``baycomp``'s ``random_state``); ``prior`` is the
    Dirichlet-process prior strength (baycomp's default 0.5).
    """
    rope = _check_rope(rope)
    n_samples = int(n_samples)
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}")
    pdiff = paired_differences(a, b, resolution)
    nan = float("nan")
    if pdiff.n == 0:
        return BayesResult(nan, nan, nan, rope, 0, nan, False, NOTE_NO_TASK)
    d = at_resolution(pdiff.a - pdiff.b, pdiff.unit)
    if rope == 0.0 and not d.any():  # every draw ties the two regions exactly (theta = 1/2)
        return BayesResult(0.5, 0.0, 0.5, rope, pdiff.n, 0.0, True, NOTE_ALL_ZERO)
    sample = _region_masses(d, rope, prior, n_samples, seed)
    top = sample == sample.max(axis=1, keepdims=True)  # the largest region of each draw; exact ties split evenly
    p_a, p_rope, p_b = (float(v) for v in (top / top.sum(axis=1, keepdims=True)).mean(axis=0))
    return BayesResult(p_a, p_rope, p_b, rope, pdiff.n, float(np.mean(pdiff.a - pdiff.b)))


def _heaviside(x: np.ndarray, threshold: float) -> np.ndarray:
    return (x > threshold).astype(float) + 0.5 * (x == threshold).astype(float)


def _region_masses(d: np.ndarray, rope: float, prior: float, n_samples: int, seed: int,
                   chunk: int = 4096) -> np.ndarray:
    """Per Dirichlet draw, the posterior masses of (a better, ROPE, b better): an ``(n_samples, 3)`` array.

    The same draws, products and sums, in the same order, as baycomp's ``SignedRankTest.sample(0, -d)``
    (so the same bits), vectorised over draws: there a Python loop over 50,000 draws took ~1 s per pair.
    """
    diff = np.concatenate(([0.0], -d))  # baycomp's y - x with x = 0, y = -d; first: the prior's pseudo-observation
    m = diff.size
    sums = (diff[:, None] + diff[None, :]).ravel()
    weights = np.ones(m)
    weights[0] = prior
    draws = np.random.RandomState(seed).dirichlet(weights, n_samples)
    out = np.zeros((n_samples, 3))
    below = _heaviside(-sums, 2 * rope)  # y - x below -rope: a better (baycomp's "left")
    above = _heaviside(sums, 2 * rope)
    for start in range(0, n_samples, chunk):
        w = draws[start:start + chunk]
        # each row the flattened outer product w w^T: summed along a contiguous row, as np.sum of one matrix
        prod = (w[:, :, None] * w[:, None, :]).reshape(len(w), m * m)
        if rope > 0:
            out[start:start + chunk, 0] = (prod * below).sum(axis=1)
        out[start:start + chunk, 2] = (prod * above).sum(axis=1)
    if rope > 0:
        out[:, 1] = -out[:, 0] - out[:, 2] + 1
    else:
        out[:, 0] = -out[:, 2] + 1
    return out


def correlated_t_test(a, b, rope: float = 0.0, rho: float = 0.0, resolution: float = RESOLUTION) -> BayesResult:
    """Bayesian correlated t-test of ``a`` vs ``b`` over seed-aligned values (1-D, larger = better).

    ``rho`` in [0, 1): correlation of the repetitions (0: independent
    repetitions; ``n_test / (n_train + n_test)`` for a split redrawn per
    repetition, see the module docstring).  Probabilities from the Student-t
    posterior's CDF, no sampling.
    """
    rope = _check_rope(rope)
    rho = float(rho)
    if not 0.0 <= rho < 1.0:
        raise ValueError(f"rho must lie in [0, 1), got {rho!r}")
    pdiff = paired_differences(a, b, resolution)
    nan = float("nan")
    if pdiff.kind == "few":
        return BayesResult(nan, nan, nan, rope, pdiff.n, pdiff.mean_diff, False, NOTE_FEW)
    if pdiff.kind in ("zero", "constant"):
        return BayesResult(nan, nan, nan, rope, pdiff.n, pdiff.mean_diff, True, NOTE_ZERO_SPREAD)
    n = pdiff.n
    scale = pdiff.sigma_d * math.sqrt(1.0 / n + rho / (1.0 - rho))
    post = stats.t(n - 1, loc=pdiff.mean_diff, scale=scale)
    p_a, p_b = float(post.sf(rope)), float(post.cdf(-rope))
    p_rope = max(0.0, 1.0 - p_a - p_b) if rope > 0.0 else 0.0
    return BayesResult(p_a, p_rope, p_b, rope, n, pdiff.mean_diff)
