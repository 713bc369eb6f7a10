r"""Stability of the mean-rank ordering under resampling of tasks.

For a rank table :math:`r_{n,i}` (N tasks, k models) with uniform mean ranks
:math:`\bar r_i`:

* **bootstrap over tasks** -- draw ``n_boot`` resamples of the N task rows
  with replacement (``numpy.random.default_rng(seed)``) and recompute the
  mean ranks :math:`\bar r^{*}_{b,i}`.  Report

  - ``order_reproduced``: fraction of resamples whose order
    ``argsort(rbar*, kind="stable")`` equals the observed order
    ``argsort(rbar, kind="stable")`` (with tied observed mean ranks the tie
    must recur, broken the same way, to count);
  - ``largest_gap_quantiles``: the 0.025 / 0.5 / 0.975 quantiles of the
    largest mean-rank gap :math:`\max_i \bar r^*_{b,i} - \min_i \bar r^*_{b,i}`;
  - ``pair_separation[(i, j)]`` (``i < j``): fraction of resamples with
    :math:`|\bar r^*_{b,i} - \bar r^*_{b,j}| > CD_\alpha(k, N)`.

* **leave-one-task-out jackknife** -- ``jackknife_mean_ranks[n]`` are the
  mean ranks without task ``n`` (shape ``(N, k)``) and
  ``jackknife_max_shift[i] = max_n |jackknife_mean_ranks[n, i] - rbar_i|``.

Edge cases (no exceptions): ``N == 1`` -- every resample is the single task
(order reproduced with probability 1) and the jackknife is undefined, so
``jackknife_mean_ranks`` is a ``(1, k)`` NaN array and
``jackknife_max_shift`` a ``(k,)`` NaN array.  ``N == 0`` -- all bootstrap
summaries are NaN, the jackknife arrays are NaN / empty.  ``k < 2`` --
``pair_separation`` is empty.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._common import ResultMixin, readonly
from .nemenyi import critical_difference
from .ranks import as_rank_table

__all__ = ["RankStability", "rank_stability", "GAP_QUANTILES"]

GAP_QUANTILES = (0.025, 0.5, 0.975)


@dataclass(frozen=True, eq=False)
class RankStability(ResultMixin):
    """Result of :func:`rank_stability`.

    ``to_dict()`` turns the tuple keys of ``pair_separation`` into ``"i-j"``
    strings and arrays into nested lists.
    """

    order_reproduced: float
    largest_gap_quantiles: dict
    pair_separation: dict
    jackknife_max_shift: np.ndarray
    jackknife_mean_ranks: np.ndarray
    n_boot: int


def rank_stability(ranks, n_boot: int = 2000, seed=0, alpha: float = 0.05) -> RankStability:
    """Bootstrap-over-tasks and jackknife stability of the mean-rank order.

    Parameters
    ----------
    ranks : array_like, shape (N, k)
        Rank table (no NaN).
    n_boot : int
        Number of bootstrap resamples (>= 1).
    seed : int or None
        Seed for ``numpy.random.default_rng``; results are reproducible for a
        fixed integer seed.
    alpha : float
        Level of the Nemenyi CD used for ``pair_separation``.
    """
    r = as_rank_table(ranks)
    n_boot = int(n_boot)
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    n_tasks, k = r.shape
    nan = float("nan")
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]

    if n_tasks == 0:
        return RankStability(
            nan,
            {q: nan for q in GAP_QUANTILES},
            {p: nan for p in pairs},
            readonly(np.full(k, np.nan)),
            readonly(np.zeros((0, k))),
            n_boot,
        )

    rbar = r.mean(axis=0)
    observed_order = np.argsort(rbar, kind="stable")

    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n_tasks, size=(n_boot, n_tasks))
    boot = r[idx].mean(axis=1)  # (n_boot, k)

    if k > 0:
        boot_order = np.argsort(boot, axis=1, kind="stable")
        order_reproduced = float(np.mean(np.all(boot_order == observed_order, axis=1)))
        gaps = boot.max(axis=1) - boot.min(axis=1)
        qs = np.quantile(gaps, GAP_QUANTILES)
        gap_q = {q: float(v) for q, v in zip(GAP_QUANTILES, qs)}
    else:
        order_reproduced = 1.0
        gap_q = {q: nan for q in GAP_QUANTILES}

    cd = critical_difference(k, n_tasks, alpha)
    sep = {(i, j): float(np.mean(np.abs(boot[:, i] - boot[:, j]) > cd)) for (i, j) in pairs}

    if n_tasks == 1:
        jack = np.full((1, k), np.nan)
        shift = np.full(k, np.nan)
    else:
        jack = (r.sum(axis=0)[None, :] - r) / (n_tasks - 1)
        shift = np.max(np.abs(jack - rbar[None, :]), axis=0)
    return RankStability(order_reproduced, gap_q, sep, readonly(shift), readonly(jack), n_boot)
